"""The measures on ARX Adult (30,162 rows, 8 quasi-identifiers) at a few full-domain levels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon.core import Hierarchy
from microanon.measures import (
    discernibility,
    equivalence_classes,
    loss_metric,
    ncp,
    precision,
    reidentification_risk,
    sample_uniques,
)

QI = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]


@pytest.fixture(scope="module")
def adult(reference_data):
    folder = reference_data / "arx-adult"
    df = pd.read_csv(folder / "adult.csv", sep=";")
    hs = {q: Hierarchy.from_arx_csv(folder / f"adult_hierarchy_{q}.csv", name=q) for q in QI}
    return df, hs


def recode(df: pd.DataFrame, hs: dict[str, Hierarchy], levels: dict[str, int]) -> pd.DataFrame:
    """Full-domain recoding, one Hierarchy.generalize call per distinct value of each column."""
    out = df.copy()
    for q, lvl in levels.items():
        codes, uniques = pd.factorize(df[q])
        out[q] = hs[q].generalize(list(uniques), min(lvl, hs[q].height), q)[codes]
    return out


def test_adult_levels(adult):
    df, hs = adult
    assert len(df) == 30162
    chain = [0, 1, 2, 3, 4]  # the same level for every QI (capped at each hierarchy's height)
    tables = [recode(df, hs, {q: lvl for q in QI}) for lvl in chain]
    lms = [loss_metric(t, hs, QI) for t in tables]
    lm_w = [loss_metric(t, hs, QI, weighted=True).total for t in tables]
    gcps = [ncp(t, hs, QI).gcp for t in tables]
    gcps_r = [ncp(t, hs, QI, numeric_ranges=["age"]).gcp for t in tables]
    precs = [precision(t, hs, QI) for t in tables]
    counts = [equivalence_classes(t, QI).count for t in tables]
    for values in (lm_w, gcps, gcps_r, precs, [lm.total for lm in lms]):
        assert all(0.0 <= v <= 1.0 for v in values)
    assert lms[0].total == 0.0 and precs[0] == 1.0 and gcps[0] == 0.0
    assert lms[-1].total == 1.0 and precs[-1] == 0.0 and gcps[-1] == pytest.approx(1.0)
    assert np.all(np.diff([lm.total for lm in lms]) > 0)  # LM strictly grows with the level
    assert np.all(np.diff(lm_w) > 0) and lm_w == pytest.approx([lm.total for lm in lms])
    assert np.all(np.diff(gcps) > 0) and np.all(np.diff(gcps_r) > 0)
    assert np.all(np.diff(precs) < 0)
    assert np.all(np.diff(counts) <= 0)
    # per attribute, LM never decreases either
    for q in QI:
        per = [lm.per_attribute[q] for lm in lms]
        assert np.all(np.diff(per) >= 0)
    # ungeneralized Adult: 18,109 distinct QI combinations, 14,021 of them unique records
    assert counts[0] == 18109
    assert sample_uniques(tables[0], QI).count == 14021
    # level 1 of sex is "*": that attribute is fully lost, the other hierarchies only partly
    assert lms[1].per_attribute["sex"] == 1.0
    assert 0 < lms[1].per_attribute["age"] < 1


def test_adult_mixed_levels_monotone(adult):
    df, hs = adult
    low = {"age": 1, "education": 1, "native-country": 1, "sex": 0}
    high = {"age": 2, "education": 2, "native-country": 1, "sex": 1}
    a, b = recode(df, hs, low), recode(df, hs, high)
    assert loss_metric(a, hs, QI).total < loss_metric(b, hs, QI).total
    assert precision(a, hs, QI) > precision(b, hs, QI)
    assert discernibility(a, QI) <= discernibility(b, QI)
    ra, rb = reidentification_risk(a, QI), reidentification_risk(b, QI)
    assert rb.average <= ra.average and rb.records_above <= ra.records_above
