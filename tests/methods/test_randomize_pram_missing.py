"""PRAM leaves a missing answer as it is and publishes no known answer as missing: its matrices
are over a column's known values (the value ``?`` of ``missing: value`` and the empty cell of
``missing: keep`` are none), as sdcMicro's ``pram`` leaves R's ``NA`` out."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon import InputError
from microanon.methods.randomize.matrices import uniform_retention
from microanon.methods.randomize.pram import invariant_matrix, pram
from microanon.methods.randomize.reconstruct import reconstruct
from microanon.methods.randomize.release import randomize
from microanon.methods.randomize.sampling import ColumnSpec, draw_column, known_codes

#: modeldata's credit_data: Marital, Home and Job hold 1, 6 and 2 missing answers.
CREDIT_SCHEMA = {
    "Marital": "quasi",  # (a quasi-identifier's missing answer: the value ?)
    "Home": "quasi",
    "Age": {"role": "quasi", "kind": "numeric"},
    "Job": {"role": "sensitive", "missing": "keep"},  # an empty cell that stays empty
    "Status": "insensitive",
}
CREDIT_KEEP = {"Marital": 0.8, "Home": 0.8, "Job": 0.8}


@pytest.fixture(scope="module")
def credit() -> pd.DataFrame:
    data = survey("credit_data")[list(CREDIT_SCHEMA)]
    assert data[list(CREDIT_KEEP)].isna().sum().to_dict() == {"Marital": 1, "Home": 6, "Job": 2}
    return data


def _missing(column: pd.Series) -> int:
    return int((column.isna() | (column.astype(object) == "?")).sum())


def test_credit_data_missing_answers_are_published_as_they_were(credit):
    """With keep 0.8, about 180 married, single, ... people had been published as ? (read as
    non-respondents by SPSS and Stata, where ? is a missing code): now exactly the 1, 6 and 2
    people who did not answer are published without an answer, every row is published, and
    the public domains name the known values only."""
    release = pram(credit, CREDIT_SCHEMA, keep=CREDIT_KEEP, rng=0)
    assert len(release.data) == len(credit) == 4454
    assert release.metadata["rows_out"] == 4454
    for column in CREDIT_KEEP:
        assert _missing(release.data[column]) == credit[column].isna().sum(), column
        entry = release.public_metadata["randomized"][column]
        known = sorted(credit[column].dropna().unique())
        assert entry["domain"] == known
        assert np.allclose(entry["matrix"], uniform_retention(len(known), 0.8))
    assert (release.data["Marital"] == "?").sum() == 1  # missing: value publishes ?
    assert release.data["Job"].isna().sum() == 2  # missing: keep, an empty cell
    # the known answers are randomized among themselves
    assert set(release.data["Home"]) == {*credit["Home"].dropna(), "?"}


def test_randomized_response_still_draws_over_the_whole_domain(credit):
    """Randomized response's matrices (and bounds) stay over the whole domain, ? a value."""
    release = randomize(credit, CREDIT_SCHEMA, keep={"Marital": 0.8}, rng=0)
    assert release.metadata["randomized"]["Marital"]["domain"][0] == "?"
    assert (release.data["Marital"] == "?").sum() > 50
    with pytest.raises(InputError, match="'Job' has 2 missing value"):
        randomize(credit, CREDIT_SCHEMA, keep={"Job": 0.8}, rng=0)


_VALUES = ["a", "b", "c", "d"]


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(0, 60),
    d=st.integers(1, 4),
    question=st.booleans(),
    empty=st.booleans(),
    keep=st.floats(0.3, 1.0),
    general=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_kernel_leaves_each_missing_record_in_place(n, d, question, empty, keep, general, seed):
    """Record by record: a missing answer (? and/or an empty cell, anywhere in the dictionary)
    keeps its code at its position, a known one is drawn among the known codes only."""
    dictionary = ["?"] * question + _VALUES[:d] + [None] * empty
    dictionary = np.array(dictionary, dtype=object)
    known = known_codes(dictionary)
    assert [dictionary[k] for k in known] == _VALUES[:d]
    gen = np.random.default_rng(seed)
    codes = gen.integers(0, len(dictionary), n).astype(np.int8)
    p = max(keep, 1 / d + 0.01) if d > 1 else 1.0
    if general and d > 1:
        matrix = gen.random((d, d)) + np.eye(d)
        matrix /= matrix.sum(axis=0)
        spec = ColumnSpec(matrix, None, known=known)
    else:
        spec = ColumnSpec(uniform_retention(d, min(p, 1.0)), min(p, 1.0), known=known)
    out = draw_column(codes, len(dictionary), spec, gen)
    assert out.dtype == codes.dtype and len(out) == n
    missing = ~np.isin(codes, known)
    np.testing.assert_array_equal(out[missing], codes[missing])
    assert np.isin(out[~missing], known).all()


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.sampled_from(["x", "y", "z", None]), min_size=2, max_size=80),
    policy=st.sampled_from(["value", "keep"]),
    invariant=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_pram_on_tables_with_missing_cells(values, policy, invariant, seed):
    """Any table, either policy: as many missing answers published as there were, the known
    answers published as known values of the column, and the public domain its known values."""
    if all(v is None for v in values):
        values = ["x", *values]
    frame = pd.DataFrame({"q": ["k"] * len(values), "s": values})
    role = "quasi" if policy == "value" else "sensitive"
    schema = {"q": "quasi", "s": {"role": role, "missing": policy}}
    # (declared: a value randomized away may still be named by the public domain)
    schema["s"]["categories"] = sorted({v for v in values if v is not None})
    release = pram(frame, schema, keep={"s": 0.9}, invariant=invariant, rng=seed)
    published = release.data["s"]
    assert _missing(published) == sum(v is None for v in values)
    if policy == "keep":
        assert (published.astype(object) == "?").sum() == 0  # empty stays empty, not ?
    known = release.metadata["randomized"]["s"]["domain"]
    assert known == schema["s"]["categories"]
    assert set(published[published.notna() & (published != "?")]) <= set(known)


def test_a_matrix_over_the_known_values_is_accepted_and_one_with_the_missing_refused(credit):
    """A matrix is d × d over the known values; the old shape, with a row and a column for ?,
    is refused in one line naming the known values."""
    m = np.full((5, 5), 0.05) + np.eye(5) * 0.75  # divorced, married, separated, single, widow
    release = pram(credit, CREDIT_SCHEMA, matrices={"Marital": m}, rng=1)
    assert np.allclose(release.public_metadata["randomized"]["Marital"]["matrix"], m)
    assert (release.data["Marital"] == "?").sum() == 1
    old = np.full((6, 6), 0.04) + np.eye(6) * 0.76
    with pytest.raises(InputError) as refused:
        pram(credit, CREDIT_SCHEMA, matrices={"Marital": old}, rng=1)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("matrices['Marital']: shape (6, 6) but the column has 5 known")
    assert "'divorced', 'married', 'separated', 'single', 'widow'" in message
    assert "'?'" not in message


def test_a_keep_probability_is_bounded_by_the_known_values():
    """keep above 1/d, d counting the known values: 1/3 is refused for three known values and
    ?, though above 1/4."""
    frame = pd.DataFrame({"q": ["k"] * 9, "s": ["x", "y", "z"] * 2 + [None, "x", "y"]})
    schema = {"q": "quasi", "s": {"role": "quasi", "missing": "value"}}
    with pytest.raises(InputError, match=r"keep\['s'\]: keep probability 1/3 makes"):
        pram(frame, schema, keep={"s": 1 / 3}, rng=0)
    with pytest.raises(InputError, match="'s' has no known value to randomize"):
        pram(frame.assign(s=None), schema, keep={"s": 0.9}, rng=0)


def test_invariant_pram_keeps_the_known_values_frequencies():
    """Invariant PRAM's matrix is computed from the known values' counts: their expected
    published frequencies are the original ones, and the missing answers' count is exact."""
    gen = np.random.default_rng(5)
    n = 2000
    roof = gen.choice(["concrete", "straw", "tile", "tin"], n, p=[0.05, 0.15, 0.3, 0.5])
    frame = pd.DataFrame({"roof": np.where(gen.random(n) < 0.1, None, roof), "w": "x"})
    schema = {"roof": "quasi", "w": "quasi"}
    domain = ["concrete", "straw", "tile", "tin"]
    original = frame["roof"].value_counts().reindex(domain).to_numpy()
    reps = 100
    published = np.zeros((reps, 4))
    for i in range(reps):
        rel = pram(frame, schema, keep={"roof": 0.6}, invariant=True, alpha=0.9, rng=gen)
        published[i] = rel.data["roof"].value_counts().reindex(domain, fill_value=0).to_numpy()
        assert (rel.data["roof"] == "?").sum() == frame["roof"].isna().sum()
    r = np.array(rel.metadata["applied_matrices"]["roof"])
    assert np.allclose(r, invariant_matrix(original, 0.6, alpha=0.9))
    assert rel.metadata["randomized"]["roof"]["domain"] == domain
    sd = np.sqrt((r * (1 - r)) @ original)
    assert np.all(np.abs(published.mean(axis=0) - original) <= 4 * sd / np.sqrt(reps))


def test_reconstruction_counts_the_missing_answers_as_published_unchanged(credit):
    """The reconstruction's cell of ? (after the public domain's) is the published share, with
    the variance of a share published unchanged; the known values' cells are reconstructed
    beside it."""
    release = pram(credit, CREDIT_SCHEMA, keep={"Home": 0.7}, rng=3)
    rec = reconstruct(release, ["Home"])
    assert rec.domains[0][-1] == "?" and len(rec.domains[0]) == 7
    share = 6 / 4454
    assert rec.estimate[-1] == pytest.approx(share)
    assert rec.variance()[-1] == pytest.approx(share * (1 - share) / 4454)
    truth = credit["Home"].value_counts().reindex(rec.domains[0][:-1]).to_numpy() / 4454
    assert np.all(np.abs(rec.estimate[:-1] - truth) <= 5 * rec.standard_errors()[:-1])
    assert rec.count({"Home": "?"}) == pytest.approx((6, np.sqrt(6 * (1 - share))))
    job = reconstruct(pram(credit, CREDIT_SCHEMA, keep={"Job": 0.8}, rng=3), ["Job"])
    assert job.domains[0][-1] is None and job.estimate[-1] == pytest.approx(2 / 4454)
