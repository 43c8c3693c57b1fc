"""The reports' numbers from frequency tables equal the row-based numbers they replace.

Each reference below is the row-based computation the report sections made before they read
frequency tables (kept here, not in the package): privacy numbers on the rows, the utility
numbers on the published rows and the aligned original, the risk profile of the rows.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from letters import LETTERS

from microanon.apps.release_frequencies import (
    PUBLISHED,
    Combinations,
    ReleaseTables,
    as_suppressed,
)
from microanon.apps.release_sections import privacy_metrics, utility_metrics
from microanon.apps.risk import RiskOptions, assess_risk
from microanon.core.errors import InputError, MicroanonError
from microanon.core.hierarchy import SUPPRESSED
from microanon.core.release import Release
from microanon.measures import (
    discernibility,
    equivalence_classes,
    loss_metric,
    ncp,
    non_uniform_entropy,
    reidentification_risk,
)
from microanon.models import profile

SETTINGS = settings(max_examples=30, deadline=None)

PARENT = {"a": "ab", "b": "ab", "c": "cd", "d": "cd", "e": "e"}


def rows_privacy(table: pd.DataFrame, quasi: list[str], sensitive: str | None) -> dict:
    """The row-based privacy numbers (the reports' former ``privacy_metrics``)."""
    out = {}
    if sensitive is not None:
        prof = profile(table, quasi, sensitive)
        out.update({k: prof[k] for k in ("classes", "k", "l_distinct", "l_entropy", "t_closeness")})
    else:
        stats = equivalence_classes(table, quasi)
        out.update(classes=stats.count, k=stats.min_size)
    risk = reidentification_risk(table, quasi, threshold=0.2)
    out.update(risk_max=risk.max, risk_avg=risk.average, records_at_risk=risk.share_above)
    return out


SENSITIVE = st.sampled_from(["x", "y", "z", None])


@st.composite
def records(draw: st.DrawFn, missing_quasi: bool = False) -> pd.DataFrame:
    rows = draw(st.integers(1, 30))
    letters = st.sampled_from(["a", "b", "c", "d", "e", None] if missing_quasi else list("abcde"))
    return pd.DataFrame(
        {
            "a": draw(st.lists(letters, min_size=rows, max_size=rows)),
            "n": draw(st.lists(st.integers(0, 3), min_size=rows, max_size=rows)),
            "s": draw(st.lists(SENSITIVE, min_size=rows, max_size=rows)),
        }
    )


@SETTINGS
@given(records(), st.booleans())
def test_privacy_metrics_from_counts_equal_rows(table, with_sensitive):
    sensitive = "s" if with_sensitive else None
    combos = Combinations.of(table, ["a", "n", "s"])
    if with_sensitive and table["s"].isna().all():  # no known value: ℓ and t not measured
        got = privacy_metrics(combos.values, ["a", "n"], "s", combos.counts)
        unmeasured = {"l_distinct": None, "l_entropy": None, "t_closeness": None}
        assert got == {**rows_privacy(table, ["a", "n"], None), **unmeasured}
        return
    got = privacy_metrics(combos.values, ["a", "n"], sensitive, combos.counts)
    assert got == rows_privacy(table, ["a", "n"], sensitive)
    assert privacy_metrics(table, ["a", "n"], sensitive) == got


def _approx(got: object, expected: object) -> None:
    """Equal numbers, floats to the last bits (sums over combinations rather than rows)."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys()
        for key in expected:
            _approx(got[key], expected[key])
    elif isinstance(expected, float) and not np.isnan(expected):
        assert got == pytest.approx(expected, rel=1e-12)
    else:
        assert got == expected or (got != got and expected != expected)


@SETTINGS
@given(
    records(missing_quasi=True),
    st.sampled_from(["value", "any", "drop"]),
    st.booleans(),
    st.sampled_from([None, [1.0], [1.0, 40.0, 250.5]]),
    st.randoms(use_true_random=False),
)
def test_risk_from_counts_equals_rows(table, missing, fraction, weights, random):
    """The risk profile of a frequency table equals that of its records, with a sampling weight
    too (a combination of the keys and the weight stands for its records)."""
    share = 0.5 if fraction else None
    columns = ["a", "n"]
    if weights is not None:
        table = table.assign(w=[random.choice(weights) for _ in range(len(table))])
        columns.append("w")
    weight = "w" if weights is not None else None
    options = RiskOptions(["a", "n"], suda=False, missing=missing, fraction=share, weights=weight)
    combos = Combinations.of(table, columns)
    try:
        ref = assess_risk(table, options)
    except InputError as exc:  # e.g. no record left to measure: refused from counts alike
        with pytest.raises(InputError, match=re.escape(str(exc))):
            assess_risk(combos.values, options, combos.counts)
        return
    got = assess_risk(combos.values, options, combos.counts)
    _approx(got.numbers, ref.numbers)
    # The plotted histogram: the same records at each risk.
    for model in ("prosecutor", "journalist"):
        by_rows = ref.record_risks[model].value_counts().sort_index()
        weighted = pd.Series(got.record_weights, index=got.record_risks.index)
        by_combos = weighted.groupby(got.record_risks[model]).sum().sort_index()
        assert by_rows.to_dict() == by_combos.to_dict()
    if weight is not None:  # each record's individual risk, to the last bits of F_k's sum
        by_rows = np.sort(ref.record_risks["individual"].to_numpy())
        by_combos = np.repeat(got.record_risks["individual"].to_numpy(), got.record_weights)
        np.testing.assert_allclose(np.sort(by_combos), by_rows, rtol=1e-12)


@st.composite
def generalized(draw: st.DrawFn) -> tuple[pd.DataFrame, Release]:
    """An original table and a release of it that keeps every row in order, some starred."""
    original = draw(records())
    original["s"] = original["s"].fillna("x")
    level = draw(st.sampled_from([0, 1]))
    cells = original["a"].map(PARENT) if level else original["a"]
    numbers = original["n"].map(lambda v: "[0, 1]" if v < 2 else "[2, 3]")
    star = np.asarray(draw(st.lists(st.booleans(), min_size=len(original), max_size=len(original))))
    data = pd.DataFrame(
        {
            "a": np.where(star, SUPPRESSED, cells),
            "n": np.where(star, SUPPRESSED, numbers),
            "s": original["s"],
        }
    )
    meta = {
        "method": "test",
        "quasi": ["a", "n"],
        "sensitive": [],
        "hierarchies": {"a": LETTERS.to_dict()},
        "suppressed": int(star.sum()),
        "rows_in": len(original),
    }
    return original, Release("generalized", {"data": data}, meta)


def attempt(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except MicroanonError:
        return None


def rows_utility(release: Release, original: pd.DataFrame) -> dict:
    """The row-based utility numbers (the reports' former ``utility_metrics``, no ID3)."""
    data, quasi = release.data, ["a", "n"]
    suppressed = release.metadata["suppressed"]
    hs = {"a": LETTERS}
    domains = {"n": original["n"]}
    kept = data.loc[~(data[quasi].astype(str) == SUPPRESSED).all(axis=1).to_numpy()]
    entropy = attempt(non_uniform_entropy, original, data, quasi, hs)
    lm = attempt(loss_metric, data, hs, quasi, suppressed=0, domains=domains)
    gcp = attempt(ncp, data, hs, quasi, suppressed=0, domains=domains)
    return {
        "LM": None if lm is None else lm.total,
        "GCP": None if gcp is None else gcp.gcp,
        "precision": None,  # 'n' has no hierarchy: precision does not apply
        "discernibility": discernibility(kept, quasi, suppressed=suppressed) if len(kept) else None,
        "AECS": len(data) / equivalence_classes(data, quasi).count,
        "suppressed": suppressed,
        "non-uniform entropy (normalized)": None if entropy is None else entropy.normalized,
    }


@SETTINGS
@given(generalized())
def test_utility_metrics_from_release_tables_equal_rows(case):
    original, release = case
    tables = ReleaseTables.of(original, release)
    assert tables.before.records == tables.after.records == tables.pairs.records == len(original)
    got = utility_metrics(release, original, extended=True, tables=tables)
    assert got == rows_utility(release, original)
    assert utility_metrics(release, original, extended=True) == got


@SETTINGS
@given(records(missing_quasi=True))
def test_suppressed_cells_read_alike_in_combinations(table):
    combos = Combinations.of(table, ["a", "n", "s"])
    shown = as_suppressed(combos.values)
    ref = rows_privacy(table.astype(object).fillna(SUPPRESSED), ["a", "n"], "s")
    assert privacy_metrics(shown, ["a", "n"], "s", combos.counts) == ref


@SETTINGS
@given(generalized())
def test_the_pairs_are_the_combinations_of_both_sides_rows(case):
    """Whether each original combination is published one way (the pairs are then found from
    the original's classes alone) or not (some rows starred): the pairs are the combinations
    of the original's and the published columns side by side, in order of first row."""
    original, release = case
    pairs = ReleaseTables.of(original, release).pairs
    held = shown = ["a", "n"]  # the quasi-identifiers (the release names no sensitive one)
    side_by_side = pd.concat(
        [original[held], release.data[shown].rename(columns=lambda c: c + PUBLISHED)], axis=1
    )
    want = Combinations.of(side_by_side, list(side_by_side.columns))
    pd.testing.assert_frame_equal(pairs.values, want.values)
    np.testing.assert_array_equal(pairs.counts, want.counts)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), min_size=1, max_size=40))
def test_paired_classes_equal_grouping_the_pairs(rows):
    """:func:`_paired` answers as grouping the rows' pairs of classes, whether or not the
    right grouping is a function of the left one."""
    from microanon.apps.release_frequencies import _first_order, _paired

    left_codes = np.array([r[0] for r in rows], dtype=np.int64)
    right_codes = np.array([r[1] for r in rows], dtype=np.int64)
    left = _first_order([left_codes], [5], len(rows))
    right = _first_order([right_codes], [4], len(rows))
    want = _first_order([left[0], right[0]], [len(left[1]), len(right[1])], len(rows))
    got = _paired(left, right)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(1, 6), min_size=1, max_size=4).flatmap(
        lambda sizes: st.tuples(
            st.just(sizes),
            st.lists(st.tuples(*(st.integers(-1, s - 1) for s in sizes)), min_size=1, max_size=60),
        )
    ),
    st.sampled_from([0, 2**40]),
)
def test_classes_of_codes_with_missing_values_are_their_rows_by_first_appearance(case, more):
    """Codes from ``-1`` (a missing value) packed into one key per row, in a space within one
    int64 key or beyond it (``more`` codes declared per column, renumbered on the way): each
    row's class is its combination's number in order of first appearance, as reading the rows
    gives it."""
    from microanon.apps.release_frequencies import _first_order

    sizes, rows = case
    codes = [np.array([r[j] for r in rows], dtype=np.int64) for j in range(len(sizes))]
    number: dict[tuple, int] = {}
    want = [number.setdefault(r, len(number)) for r in rows]
    first = [rows.index(r) for r in number]
    got = _first_order(codes, [s + 1 + more for s in sizes], len(rows))
    assert got[0].tolist() == want and got[1].tolist() == first


def test_aecs_counts_removed_records_as_one_class_as_star_mode_does():
    # The report says "AECS, suppressed records as one class": a release that removes its
    # suppressed records has the AECS of the same release publishing them as one '*' class
    # (a real survey run had reported published rows over published classes).
    from microanon.methods.generalize.full_domain import apply_levels

    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.choice(list("abcde"), 400), "n": rng.integers(0, 40, 400)})
    ages = {"builder": "intervals", "widths": [10]}
    schema = {
        "a": {"role": "quasi", "hierarchy": LETTERS},
        "n": {"role": "quasi", "hierarchy": ages},
    }
    releases = {
        mode: apply_levels(
            df,
            schema,
            models=[{"k_anonymity": {"k": 4}}],
            levels={"a": 0, "n": 0},
            suppression=0.9,
            suppressed_rows=mode,
        )  # fmt: skip
        for mode in ("remove", "star")
    }
    got = {mode: utility_metrics(r, df) for mode, r in releases.items()}
    assert got["remove"]["suppressed"] == got["star"]["suppressed"] > 0
    assert got["remove"]["AECS"] == got["star"]["AECS"]
    star = releases["star"].data
    assert got["star"]["AECS"] == len(star) / equivalence_classes(star, ["a", "n"]).count


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(["*", "a", "?", None, np.nan, 1, "1", 2.5, pd.NA]), max_size=40),
    st.sampled_from(["object", "str", "category"]),
)
def test_missing_and_starred_cells_from_codes_are_those_compared_one_by_one(cells, dtype):
    """The column table's suppressed-cell counts: where a published column is missing and
    where it holds ``*``, from its codes, as ``isna`` and ``== '*'`` give them cell by cell."""
    from microanon.apps.release_summary import _missing_and_starred

    if dtype != "object":  # (text or categories of text: no numbers among them)
        cells = [c if c is None or c is np.nan or c is pd.NA else str(c) for c in cells]
    column = pd.Series(cells, dtype=dtype)
    missing, starred = _missing_and_starred(column)
    assert missing.tolist() == column.isna().tolist()
    assert starred.tolist() == (column == "*").fillna(False).astype(bool).tolist()


@SETTINGS
@given(records(missing_quasi=True), st.integers(0, 2), st.data())
def test_leaving_out_empty_columns_keeps_the_combinations(table, empty, data):
    """A table counted out of core names the columns it did not count, empty: projecting its
    combinations onto the others (in any order) keeps them as they are, which grouping them
    again gives too (the same rows, counts and order)."""
    columns = list(table.columns)
    combos = Combinations.of(table, columns, np.arange(1, len(table) + 1))
    named = combos.values.assign(**{f"empty{i}": np.nan for i in range(empty)})
    wide = Combinations(named, combos.counts)
    kept = data.draw(st.permutations(columns))
    got = wide.project(kept)
    expected = Combinations.of(named, kept, combos.counts)
    pd.testing.assert_frame_equal(got.values.reset_index(drop=True), expected.values)
    np.testing.assert_array_equal(got.counts, expected.counts)
