"""The Dask engine's report tables equal those the in-memory reports group from rows.

:func:`merge_counted` merges a table's partitions' frequency tables, counted while the engine
encodes them (:attr:`Encoded.counted`) or from the written files as they are verified
(:func:`~microanon.scale.verify.verify_files`);
:func:`published_of`,
:func:`in_original_order` and :func:`pairs_of` rebuild, from the original's combinations and the
published files' (grouped by class, in another order), the tables
:meth:`ReleaseTables.of` groups from the original's and the release's rows.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from letters import LETTERS

from microanon.apps.release_frequencies import Combinations, CountedRelease, ReleaseTables
from microanon.apps.scale_reports import (
    combinations_of,
    in_original_order,
    pairs_of,
    published_of,
)
from microanon.core import Hierarchy, Schema
from microanon.core.hierarchy import SUPPRESSED
from microanon.core.reading import missing_marker_columns
from microanon.core.release import Release
from microanon.methods.generalize.full_domain import level_labels
from microanon.models import KAnonymity
from microanon.scale.encode import (
    clean_partition,
    encode_dataset,
    encode_partition,
    merge_counted,
    reported_counts,
)
from microanon.scale.verify import count_files, verify_files

SETTINGS = settings(max_examples=30, deadline=None)

NUMBERS = Hierarchy.from_levels(
    [[0, "0-1", "*"], [1, "0-1", "*"], [2, "2-3", "*"], [3, "2-3", "*"]]
)


@st.composite
def records(draw: st.DrawFn, missing: bool = True) -> pd.DataFrame:
    rows = draw(st.integers(1, 30))
    letters = st.sampled_from(list("abcde") + ([None] if missing else []))
    sensitive = st.sampled_from(["x", "y", "z"] + ([None] if missing else []))
    return pd.DataFrame(
        {
            "a": draw(st.lists(letters, min_size=rows, max_size=rows)),
            "n": draw(st.lists(st.integers(0, 3), min_size=rows, max_size=rows)),
            "s": draw(st.lists(sensitive, min_size=rows, max_size=rows)),
        }
    )


def _plain(values: pd.DataFrame) -> pd.DataFrame:
    """``values`` as objects, a missing value ``None`` (Dask reads an all-missing text column
    as Arrow strings, whose missing value is ``pd.NA``)."""
    values = values.astype(object)
    return values.where(values.notna(), None)


def _same(got: Combinations, expected: Combinations) -> None:
    pd.testing.assert_frame_equal(_plain(got.values), _plain(expected.values), check_dtype=False)
    assert got.counts.tolist() == expected.counts.tolist()


@pytest.fixture(scope="module")
def client(scheduler):
    import distributed

    with distributed.Client(scheduler, set_as_default=False) as c:
        yield c


def _pieces(table: pd.DataFrame, cuts: list[int]) -> list[pd.DataFrame]:
    """``table`` cut into consecutive pieces at ``cuts`` (some may be empty)."""
    bounds = [0, *sorted(c % (len(table) + 1) for c in cuts), len(table)]
    return [table.iloc[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


#: ``a`` a quasi-identifier whose missing value is the value ``?``, ``n`` a number, ``s`` a
#: sensitive column whose missing values are kept as unknown.
POLICIES = Schema.from_dict(
    {
        "a": {"role": "quasi", "missing": "value"},
        "n": {"role": "quasi", "kind": "numeric"},
        "s": {"role": "sensitive", "missing": "keep"},
    }
)


@SETTINGS
@given(
    records(),
    st.lists(st.integers(0, 30), max_size=3),
    st.sampled_from([["a", "n"], ["a", "n", "s"]]),
)
def test_partitions_counted_while_encoding_give_the_whole_table(table, cuts, encoded):
    """The combinations each partition counts while it is encoded (from its codes when the
    encoded columns are the counted ones, else grouped again), one partition after the other,
    are those of the whole table as the method receives it, in order of first appearance."""
    columns = ["a", "n", "s"]
    parts = [encode_partition(p, POLICIES, encoded, counted=columns) for p in _pieces(table, cuts)]
    got = combinations_of(merge_counted([p.counted for p in parts], columns))
    expected = Combinations.of(POLICIES.validate(table, check_leaves=False), columns)
    _same(got, expected)
    assert sum(p.unknown.get("s", 0) for p in parts) == int(table["s"].isna().sum())


@SETTINGS
@given(records(), st.lists(st.integers(0, 30), max_size=3))
def test_the_verified_files_combinations_equal_the_whole_table_grouped(
    client, tmp_path_factory, table, cuts
):
    """The read that verifies written Parquet files also gives their combinations of every
    column (each file counted where it lies, merged in file order): those of the table the files
    hold, in order of first appearance, missing values included; the checked column's verdict
    comes from the same read."""
    folder = tmp_path_factory.mktemp("files")
    files = []
    for i, piece in enumerate(_pieces(table, cuts)):
        files.append(str(folder / f"part.{i}.parquet"))
        piece.to_parquet(files[-1], index=False)
    columns = ["a", "n", "s"]
    (verdict,), rows, counted = verify_files(
        files, ["n"], None, [KAnonymity(1)], client, counted=columns
    )
    assert verdict.holds and rows == len(table)
    _same(combinations_of(counted), Combinations.of(table, columns))


@st.composite
def generalized(draw: st.DrawFn):
    """A full-domain release of a table in memory: levels, whole classes suppressed (removed or
    published as ``*``); and its published combinations in another order, as the files hold them."""
    original = draw(records(missing=False))
    levels = {"a": draw(st.integers(0, 2)), "n": draw(st.integers(0, 2))}
    labels = pd.DataFrame(  # as full_domain publishes them: text
        {
            "a": level_labels(LETTERS, levels["a"])[
                LETTERS.level_codes(levels["a"])[LETTERS.leaf_index(original["a"])]
            ],
            "n": level_labels(NUMBERS, levels["n"])[
                NUMBERS.level_codes(levels["n"])[NUMBERS.leaf_index(original["n"])]
            ],
        }
    )
    classes = list(dict.fromkeys(map(tuple, labels.to_numpy().tolist())))
    gone = draw(st.sets(st.sampled_from(classes), max_size=len(classes) - 1))
    suppressed = labels.apply(tuple, axis=1).isin(gone).to_numpy()
    star = draw(st.booleans())
    data = labels.assign(s=original["s"].to_numpy())
    if star:
        data.loc[suppressed, ["a", "n"]] = SUPPRESSED
    else:
        data = data.loc[~suppressed].reset_index(drop=True)
    meta = {
        "method": "full_domain",
        "quasi": ["a", "n"],
        "sensitive": ["s"],
        "levels": levels,
        "suppressed": int(suppressed.sum()),
        "rows_in": len(original),
    }
    release = Release("generalized", {"data": data}, meta)
    files = Combinations.of(data, ["a", "n", "s"])
    shuffled = draw(st.permutations(range(len(files.counts))))
    files = Combinations(files.values.iloc[shuffled].reset_index(drop=True), files.counts[shuffled])
    result = SimpleNamespace(
        metadata={"levels": levels},
        internal={"hierarchies": {"a": LETTERS.to_dict(), "n": NUMBERS.to_dict()}},
    )
    return original, release, files, result


@SETTINGS
@given(generalized())
def test_counted_release_equals_the_tables_of_the_rows(case):
    original, release, files, result = case
    expected = ReleaseTables.of(original, release)
    before = Combinations.of(original, ["a", "n", "s"])
    labels = published_of(before, files, ["a", "n"], "s", result)
    published = in_original_order(files, labels)
    kept = before.records == published.records
    counted = CountedRelease.of(
        before, published, ["a", "n"], "s", pairs_of(before, labels) if kept else None
    )
    _same(counted.tables.before, expected.before)
    _same(counted.tables.after, expected.after)
    _same(counted.published, Combinations.of(release.data, list(release.data.columns)))
    assert (counted.tables.pairs is None) == (expected.pairs is None)
    if expected.pairs is not None:
        _same(counted.tables.pairs, expected.pairs)


#: A published text column (``t``, insensitive) that may hold R's missing-value marker ``NA``
#: as text, beside the columns of :data:`POLICIES`; ``w`` a sampling weight, ``h`` a household.
SURVEY = Schema.from_dict(
    {
        **POLICIES.to_dict(),
        "t": {"role": "insensitive"},
        "w": {"role": "weight", "kind": "numeric"},
        "h": {"role": "household"},
    }
)


@st.composite
def surveys(draw: st.DrawFn) -> pd.DataFrame:
    """:func:`records` with a text column, a sampling weight (some missing, some below 1) and a
    household id (some missing)."""
    table = draw(records())
    rows = len(table)
    texts = st.sampled_from(["x", "12", "NA", " NA", None])
    weights = st.sampled_from([1.0, 2.5, 40.0, 0.5, np.nan])
    return table.assign(
        t=draw(st.lists(texts, min_size=rows, max_size=rows)),
        w=draw(st.lists(weights, min_size=rows, max_size=rows)),
        h=draw(st.lists(st.sampled_from([1, 2, 3, None]), min_size=rows, max_size=rows)),
    )


def _same_weighted(got: Combinations, expected: Combinations, weight: str) -> None:
    """The same combinations, records and sums of inverse weights; the mean weights to the
    rounding of sums taken in another order."""
    keys = [c for c in expected.values.columns if c != weight]
    _same(
        Combinations(got.values[keys], got.counts),
        Combinations(expected.values[keys], expected.counts),
    )
    np.testing.assert_allclose(
        got.values[weight].astype(float), expected.values[weight].astype(float), rtol=1e-12
    )
    np.testing.assert_allclose(got.inverse, expected.inverse, rtol=1e-12)


@SETTINGS
@given(surveys(), st.lists(st.integers(0, 30), max_size=3), st.booleans())
def test_partitions_counted_for_the_reports_give_the_whole_table(table, cuts, weighted):
    """The combinations each cleaned partition counts for the reports of a row-wise release
    (:func:`reported_counts`: the sampling weight by class with its sums, a record without a
    household id as one without a weight), merged one partition after the other, are those of
    the whole table as the method receives it, in order of first appearance."""
    columns = ["a", "n", "s", *(["w"] if weighted else [])]
    weight, household = ("w", "h") if weighted else (None, None)
    parts = [
        reported_counts(clean_partition(p, SURVEY), columns, weight, household)
        for p in _pieces(table, cuts)
    ]
    got = combinations_of(merge_counted(parts, columns), weight)
    entering = SURVEY.validate(table, check_leaves=False)
    if not weighted:
        _same(got, Combinations.of(entering, columns))
        return
    missing = entering["h"].isna().to_numpy()
    _same_weighted(got, Combinations.weighted(entering, ["a", "n", "s"], "w", missing), "w")


@SETTINGS
@given(surveys(), st.integers(1, 4), st.booleans())
def test_the_encoding_pass_counts_the_reports_tables_of_any_partitioning(
    client, table, parts, weighted
):
    """``encode_dataset(..., reported=...)`` (the pass of PRAM and randomized response out of
    core) counts, beside the encoding, the original's combinations of the measured columns and
    the published columns' missing-value markers as read: over any partitioning of the rows,
    the combinations of the table the method receives, in order of first appearance (the
    sampling weight by class with its sums), and the markers :func:`missing_marker_columns`
    finds in the whole table."""
    import dask.dataframe as dd

    frame = dd.from_pandas(table, npartitions=parts, sort=False)
    columns = ["a", "n", "s", *(["w"] if weighted else [])]
    encoding, _ = encode_dataset(frame, SURVEY, ["a"], client, reported=columns)
    entering = SURVEY.validate(table, check_leaves=False)
    assert encoding.markers == missing_marker_columns(table.loc[:, SURVEY.published])
    if not weighted:
        _same(combinations_of(encoding.combinations), Combinations.of(entering, columns))
        return
    got = combinations_of(encoding.combinations, "w")
    missing = entering["h"].isna().to_numpy()
    _same_weighted(got, Combinations.weighted(entering, ["a", "n", "s"], "w", missing), "w")


@SETTINGS
@given(surveys(), st.lists(st.integers(0, 30), max_size=3))
def test_the_written_files_counted_one_by_one_give_the_table_they_hold(
    client, tmp_path_factory, table, cuts
):
    """:func:`count_files` (the read of a row-wise release's written files for its reports):
    the combinations of the files read one after the other, in order of first appearance,
    the sampling weight by class with its sums."""
    folder = tmp_path_factory.mktemp("written")
    files = []
    for i, piece in enumerate(_pieces(table, cuts)):
        files.append(folder / f"part.{i}.parquet")
        piece.to_parquet(files[-1], index=False)
    columns = ["a", "n", "s", "w"]
    got = combinations_of(count_files(files, columns, client, weight="w"), "w")
    _same_weighted(got, Combinations.weighted(table, ["a", "n", "s"], "w"), "w")
