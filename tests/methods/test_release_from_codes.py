"""Releases built from codes equal the per-cell construction; roll-ups equal plain grouping."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import Release, Schema, Table
from microanon.core.hierarchy import SUPPRESSED
from microanon.core.release import text_release
from microanon.datasets import adult_hierarchies, load_arx_adult
from microanon.methods.generalize.full_domain import full_domain, search
from microanon.methods.generalize.mondrian import mondrian
from microanon.methods.release import text_column

_lattice = importlib.import_module("microanon.methods.generalize._lattice")
_frequencies = importlib.import_module("microanon.methods.generalize._lattice_frequencies")
_search = importlib.import_module("microanon.methods.generalize._search")

QUASI = ["sex", "age", "race", "marital_status", "education", "native_country", "workclass"]


@pytest.fixture(scope="module")
def adult() -> tuple[pd.DataFrame, Schema]:
    data = load_arx_adult().iloc[:6000][[*QUASI, "occupation", "salary_class"]]
    data.index = pd.RangeIndex(100, 100 + len(data))  # the release must not depend on it
    hs = adult_hierarchies()
    spec: dict = {q: {"role": "quasi", "hierarchy": hs[q]} for q in QUASI}
    spec["occupation"] = {"role": "sensitive"}
    spec["salary_class"] = {"role": "insensitive"}
    return data, Schema.from_dict(spec)


def _per_cell(table: Table, levels: dict[str, int], mask: np.ndarray, mode: str) -> pd.DataFrame:
    """The published table built value by value: one label string per cell."""
    keep = ~mask if mode == "remove" else np.ones(len(mask), dtype=bool)
    data = {}
    for c in table.columns:
        values = table.values(c)
        if c in levels:
            h = table.schema.hierarchy(c)
            labels = [str(x) for x in h.level_labels(levels[c])]
            values = np.array(
                [labels[code] for code in h.level_codes(levels[c])[table.codes(c)]], dtype=object
            )
            if mode == "star":
                values[mask] = SUPPRESSED
        data[c] = [str(v) for v in values[keep]]
    return pd.DataFrame(data, dtype=object)


@pytest.mark.parametrize(
    ("models", "suppression", "mode"),
    [
        ({"k_anonymity": {"k": 5}}, 0.0, "remove"),
        ({"k_anonymity": {"k": 10}}, 0.05, "remove"),
        ({"k_anonymity": {"k": 10}}, 0.05, "star"),
        ({"l_diversity": {"l": 2}}, 0.02, "remove"),
    ],
)
def test_full_domain_release_equals_per_cell_construction(
    adult: tuple[pd.DataFrame, Schema], models: dict, suppression: float, mode: str
) -> None:
    data, schema = adult
    release = full_domain(
        data, schema, models=models, suppression=suppression, suppressed_rows=mode
    )
    table = Table.from_frame(data, schema)
    result = search(table, models, suppression, suppressed_rows=mode)
    assert release.metadata["levels"] == result.levels
    expected = _per_cell(table, result.levels, result.suppressed_mask, mode)
    pd.testing.assert_frame_equal(release.data, expected)
    assert all(release.data[c].dtype == object for c in release.data.columns)


def test_mondrian_release_is_text_per_cell(adult: tuple[pd.DataFrame, Schema]) -> None:
    data, _ = adult
    hs = adult_hierarchies()
    spec: dict = {"age": {"role": "quasi", "kind": "numeric"}}
    spec |= {q: {"role": "quasi", "hierarchy": hs[q]} for q in ("sex", "race", "workclass")}
    spec["occupation"] = {"role": "sensitive"}
    release = mondrian(data[list(spec)], spec, models={"k_anonymity": {"k": 5}})
    assert all(release.data[c].dtype == object for c in release.data.columns)
    assert all(isinstance(v, str) for c in release.data.columns for v in release.data[c])
    pd.testing.assert_series_equal(
        release.data["occupation"], data["occupation"].astype(object).reset_index(drop=True)
    )


@pytest.mark.parametrize(
    "labels",
    [["a", "b", "a"], [1, 2, 3], [1, "b", 2.5]],
    ids=["strings", "integers", "mixed"],
)
def test_text_column_is_what_the_release_publishes(labels: list) -> None:
    # A text column is released as it is; the release of its values converts them alike.
    index = pd.RangeIndex(7, 11)
    codes = np.array([2, 0, 2, 1])
    column = text_column(codes, np.array(labels, dtype=object), index)
    assert column.index.equals(index) and column.dtype == object
    fast = text_release("generalized", {"data": pd.DataFrame({"x": column})}).data
    values = pd.Series([labels[c] for c in codes], dtype=object)
    plain = Release("generalized", {"data": pd.DataFrame({"x": values})}).data
    pd.testing.assert_frame_equal(fast, plain)
    assert [type(v) for v in fast["x"]] == [type(v) for v in plain["x"]]


def test_one_label_fills_the_column() -> None:
    # A top level (one label) is filled rather than taken: the same column, the same object.
    index = pd.RangeIndex(3, 8)
    column = text_column(np.zeros(5, dtype=np.int64), np.array(["*"], dtype=object), index)
    assert column.index.equals(index) and column.dtype == object
    assert column.tolist() == ["*"] * 5
    plain = Release("generalized", {"data": pd.DataFrame({"x": ["*"] * 5})}).data
    pd.testing.assert_frame_equal(
        text_release("generalized", {"data": pd.DataFrame({"x": column})}).data, plain
    )


def test_lattice_boxes_are_the_order() -> None:
    lat = _lattice.Lattice([2, 1, 3], ["a", "b", "c"])
    rng = np.random.default_rng(7)
    for node in rng.integers(0, lat.size, 12):
        lv = lat.levels[node]
        below, above = np.all(lat.levels <= lv, axis=1), np.all(lat.levels >= lv, axis=1)
        for mark, mask in ((lat.mark_below, below), (lat.mark_above, above)):
            marked = np.zeros(lat.size, dtype=bool)
            mark(marked, int(node))
            np.testing.assert_array_equal(marked, mask)
        succ = [x for x in range(lat.size) if (lat.levels[x] - lv).sum() == 1 and above[x]]
        assert sorted(lat.successors(int(node))) == succ
        # a view of the down-set (up-set) holds its entries, and writing to it writes them
        values = np.arange(lat.size * 2, dtype=float).reshape(lat.size, 2)
        for view, mask in ((lat.view_below, below), (lat.view_above, above)):
            seen = view(values, int(node))
            assert sorted(seen.reshape(-1, 2).tolist()) == sorted(values[mask].tolist())
            written = np.zeros(lat.size)
            view(written, int(node))[...] = 1.0
            np.testing.assert_array_equal(written == 1.0, mask)


@settings(max_examples=60, deadline=None)
@given(
    heights=st.lists(st.integers(0, 4), min_size=1, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_lattice_levels_and_grid_sums_are_the_definition(heights: list[int], seed: int) -> None:
    """Node ``i`` is the ``i``-th level vector in lexicographic order; its total, its rank (by
    total, then lexicographically) and ``grid_sum`` are those of that vector, the sums bit for
    bit as gathered attribute by attribute."""
    lat = _lattice.Lattice(heights, [f"q{i}" for i in range(len(heights))])
    vectors = np.array(list(itertools.product(*(range(h + 1) for h in heights))))
    np.testing.assert_array_equal(lat.levels, vectors)
    assert lat.levels.dtype == np.int16 and lat.levels.flags.c_contiguous
    np.testing.assert_array_equal(lat.total, vectors.sum(axis=1))
    order = sorted(range(lat.size), key=lambda x: (int(lat.total[x]), tuple(vectors[x])))
    np.testing.assert_array_equal(lat.rank[order], np.arange(lat.size))
    rng = np.random.default_rng(seed)
    per_level = [rng.random(h + 1) for h in heights]
    gathered = np.zeros(lat.size)
    for i, values in enumerate(per_level):
        gathered += values[vectors[:, i]]
    np.testing.assert_array_equal(lat.grid_sum(per_level), gathered)


def _bottom(adult: tuple[pd.DataFrame, Schema], with_sa: bool, ones: bool):
    """Adult's hierarchies, level maps, leaf codes, sensitive codes (with ``with_sa``) and
    their number, the records per row (``ones``: an array of ones, else None) and the
    bottom's frequency set."""
    data, schema = adult
    table = Table.from_frame(data, schema)
    hs = [schema.hierarchy(q) for q in QUASI]
    maps = _frequencies.LevelMaps(hs)
    leaf = [table.codes(q).astype(np.int64) for q in QUASI]
    sa = table.codes("occupation").astype(np.int64) if with_sa else None
    n_sa = table.cardinality("occupation") if with_sa else 0
    counts = np.ones(table.n_rows, dtype=np.int64) if ones else None
    bottom, _ = _frequencies.frequency_set(
        np.zeros(len(QUASI), np.int64), leaf, [h.n_leaves for h in hs], counts, sa, n_sa
    )
    return hs, maps, leaf, sa, n_sa, counts, bottom


@pytest.mark.parametrize("with_sa", [False, True])
def test_roll_up_equals_grouping_the_records(
    adult: tuple[pd.DataFrame, Schema], with_sa: bool
) -> None:
    hs, maps, leaf, sa, n_sa, ones, bottom = _bottom(adult, with_sa, ones=True)
    rng = np.random.default_rng(3)
    for _ in range(12):
        mid = np.array([rng.integers(0, h.height + 1) for h in hs])
        top = np.array([rng.integers(m, h.height + 1) for m, h in zip(mid, hs, strict=True)])
        codes = [h.level_codes(int(b))[c] for h, b, c in zip(hs, top, leaf, strict=True)]
        cards = [maps.card(i, int(b)) for i, b in enumerate(top)]
        plain, _ = _frequencies.frequency_set(top, codes, cards, ones, sa, n_sa)
        via, _ = _frequencies.roll_up(bottom, mid, maps, n_sa)
        twice, _ = _frequencies.roll_up(via, top, maps, n_sa)
        for got in (
            twice,
            _frequencies.roll_up(bottom, top, maps, n_sa)[0],
            _frequencies.rolled(via, top, maps, n_sa),  # without the row map
            _frequencies.rolled(bottom, top, maps, n_sa),
        ):
            np.testing.assert_array_equal(got.codes, plain.codes)
            np.testing.assert_array_equal(got.counts, plain.counts)
            np.testing.assert_array_equal(got.cls, plain.cls)
            np.testing.assert_array_equal(got.sizes, plain.sizes)
            if with_sa:
                np.testing.assert_array_equal(got.sa, plain.sa)
                np.testing.assert_array_equal(got.n_distinct, plain.n_distinct)


@settings(max_examples=25, deadline=None)
@given(limit=st.integers(0, 3000), with_sa=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_the_frequency_cache_gives_each_node_its_set_within_its_limit(
    adult: tuple[pd.DataFrame, Schema], limit: int, with_sa: bool, seed: int
) -> None:
    """Whatever the sets kept (a limit of ``limit`` rows, the least recently used given up),
    the cache answers every node with the set rolled up from the bottom; it keeps at most the
    limit besides the bottom, and keeps the bottom."""
    hs, maps, _, _, n_sa, _, bottom = _bottom(adult, with_sa, ones=False)
    rng = np.random.default_rng(seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_search, "_CACHE_ROWS", limit)
        cache = _search.FrequencyCache(bottom, maps, n_sa)
        for _ in range(30):
            node = np.array([rng.integers(0, h.height + 1) for h in hs], dtype=np.int64)
            got = cache.at(node)
            want = _frequencies.rolled(bottom, node, maps, n_sa)
            np.testing.assert_array_equal(got.levels, node)
            for name in ("codes", "counts", "cls", "sizes", "sa", "n_distinct"):
                np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
            kept = cache._cache
            assert kept[0] is bottom
            assert sum(len(fs) for fs in kept[1:]) == cache._cached_rows <= limit
            assert cache._cache_rows[: len(kept)].tolist() == [len(fs) for fs in kept]
            for i, fs in enumerate(kept):
                np.testing.assert_array_equal(cache._cache_levels[i], fs.levels)
