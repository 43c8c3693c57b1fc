"""Evaluation helpers of a collected set: every respondent's Pv, the loss, encoding, sampling."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

from microanon.core import Hierarchy
from microanon.core.errors import HierarchyError, InputError
from microanon.methods.collect import (
    CollectedSet,
    Survey,
    average_loss,
    encode_frame,
    pv,
    pv_all,
    sample_base,
)


@pytest.fixture(scope="module")
def survey() -> Survey:
    age = Hierarchy.from_nested({"Any": {"20-29": ["20-24", "25-29"], "30-39": ["30-34", "35-39"]}})
    sex = Hierarchy.from_nested({"*": ["F", "M"]})
    disease = Hierarchy.from_nested(
        {"AnyD": {"Resp": ["Flu", "Cold"], "Dig": ["Ulcer", "Gastritis"]}}
    ).with_weights({"Flu": 3, "Cold": 1, "Ulcer": 1, "Gastritis": 2})
    return Survey({"age": age, "sex": sex, "disease": disease}, ["age", "sex"], "disease")


def test_pv_all_equals_pv_for_every_respondent(survey: Survey) -> None:
    rng = np.random.default_rng(3)
    nodes = [np.arange(tx.n_nodes) for tx in survey.taxonomies]
    g = CollectedSet(survey)
    g.extend_codes(np.column_stack([rng.choice(n, 60) for n in nodes]))
    leaves = [tx.leaf_node for tx in survey.taxonomies]
    people = np.column_stack([rng.choice(lv, 40) for lv in leaves])
    got = pv_all(survey, g, people)
    want = [float(pv(survey.decode(p), g, survey, exact=True)) for p in people]
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert pv_all(survey, CollectedSet(survey), people).tolist() == [1.0] * 40  # empty groups
    assert len(pv_all(survey, g, people[:0])) == 0


def test_average_loss_and_encoding(survey: Survey) -> None:
    frame = pd.DataFrame(
        {
            "age": ["20-29", "25-29", "Any"],
            "sex": ["F", "*", "M"],
            "disease": ["Flu", "Resp", "AnyD"],
        }
    )
    codes = encode_frame(survey, frame)
    g = CollectedSet(survey)
    g.extend_codes(codes)
    want = sum(survey.loss(t) for t in frame.itertuples(index=False)) / 3
    assert average_loss(survey, g) == want
    # ⟨20-29, F, Flu⟩ 1/4, ⟨25-29, *, Resp⟩ 1/2 + 1/4, ⟨Any, M, AnyD⟩ 3/4 + 3/4
    assert average_loss(survey, g) == F(5, 6)
    with pytest.raises(InputError, match="generalized value"):
        encode_frame(survey, frame, base=True)
    with pytest.raises(HierarchyError, match="40-49"):
        encode_frame(survey, frame.assign(age=["40-49", "Any", "Any"]))
    with pytest.raises(InputError, match="sex"):
        encode_frame(survey, frame.drop(columns="sex"))
    with pytest.raises(InputError, match="empty"):
        average_loss(survey, CollectedSet(survey))


def test_sample_base_draws_inside_and_by_weight(survey: Survey) -> None:
    codes = encode_frame(
        survey, pd.DataFrame({"age": ["20-29"], "sex": ["*"], "disease": ["AnyD"]})
    )
    base, rows = sample_base(survey, codes, 7000, rng=5)
    assert (rows == 0).all() and len(base) == 7000
    assert set(base["age"]) == {"20-24", "25-29"}
    shares = base["disease"].value_counts(normalize=True)
    for value, w in {"Flu": 3, "Cold": 1, "Ulcer": 1, "Gastritis": 2}.items():
        assert shares[value] == pytest.approx(w / 7, abs=0.02)  # in proportion to leaf weights
    with pytest.raises(InputError, match="draws"):
        sample_base(survey, codes, 0)
