"""ID3 (Quinlan 1986) and the (relative) classification accuracy of Zhang & Zhang (DaWaK 2008)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.core import Release, Table
from microanon.core.errors import InputError
from microanon.datasets import adult_schema, load_adult
from microanon.measures.classification import ID3, classification_accuracy, relative_accuracy

SETTINGS = settings(max_examples=150, deadline=None)

TENNIS = pd.DataFrame(
    [
        r.split()
        for r in """sunny hot high weak no
        sunny hot high strong no
        overcast hot high weak yes
        rain mild high weak yes
        rain cool normal weak yes
        rain cool normal strong no
        overcast cool normal strong yes
        sunny mild high weak no
        sunny cool normal weak yes
        rain mild normal weak yes
        sunny mild normal strong yes
        overcast mild high strong yes
        rain mild high strong no
        overcast hot normal weak yes""".splitlines()
    ],
    columns=["outlook", "temperature", "humidity", "wind", "play"],
)
FEATURES = ["outlook", "temperature", "humidity", "wind"]


# ------------------------------------------------------------------------------ reference ID3
def entropy(labels: list) -> float:
    n = len(labels)
    return -sum(c / n * math.log2(c / n) for c in Counter(labels).values())


def majority(labels: list):
    """The most frequent label; ties: the label that sorts first (labels of mixed types, as
    ``p``, ``1``, ``2`` here: by their text, which orders one-digit numbers as numbers)."""
    counts = Counter(labels)
    best = max(counts.values())
    return min((c for c in counts if counts[c] == best), key=str)


def ref_fit(rows: list[dict], target: str, attrs: list[str]) -> dict:
    labels = [r[target] for r in rows]
    node = {"majority": majority(labels)}
    if len(rows) < 2 or len(set(labels)) == 1:
        return node
    best, best_cond = None, math.inf
    for a in attrs:
        parts: dict = {}
        for r in rows:
            parts.setdefault(r[a], []).append(r[target])
        if len(parts) < 2:
            continue
        cond = sum(len(p) / len(rows) * entropy(p) for p in parts.values())
        if cond < best_cond - 1e-12:
            best, best_cond = a, cond
    if best is None:
        return node
    rest = [a for a in attrs if a != best]
    node["attr"] = best
    node["children"] = {
        v: ref_fit([r for r in rows if r[best] == v], target, rest) for v in {r[best] for r in rows}
    }
    return node


def ref_predict(node: dict, row: dict):
    while "attr" in node and row[node["attr"]] in node["children"]:
        node = node["children"][row[node["attr"]]]
    return node["majority"]


def ref_size(node: dict) -> int:
    return 1 + sum(ref_size(c) for c in node.get("children", {}).values())


# ------------------------------------------------------------------------------ play tennis
def test_play_tennis_tree():
    tree = ID3().fit(TENNIS[FEATURES], TENNIS["play"])
    # Quinlan's tree: outlook at the root; sunny -> humidity, overcast -> yes, rain -> wind.
    assert tree.n_nodes == 8
    assert tree.features[tree._tree.attribute[0]] == "outlook"
    assert list(tree.classes) == ["no", "yes"]
    assert (tree.predict(TENNIS[FEATURES]) == TENNIS["play"].to_numpy()).all()
    probe = pd.DataFrame(
        {
            "outlook": ["sunny", "sunny", "overcast", "rain", "rain", "fog", "sunny"],
            "temperature": ["hot"] * 7,
            "humidity": ["high", "normal", "high", "high", "high", "high", "dry"],
            "wind": ["weak", "weak", "strong", "strong", "weak", "weak", "weak"],
        }
    )
    # Unseen values stop at their node: 'fog' -> root majority (yes); 'dry' -> sunny node (no).
    assert tree.predict(probe).tolist() == ["no", "yes", "yes", "no", "yes", "yes", "no"]


def test_play_tennis_leave_one_out_matches_reference():
    rows = TENNIS.to_dict("records")
    correct = sum(
        ref_predict(ref_fit(rows[:i] + rows[i + 1 :], "play", FEATURES), rows[i]) == rows[i]["play"]
        for i in range(len(rows))
    )
    loo = classification_accuracy(TENNIS, FEATURES, "play", folds=14, rng=0)
    assert loo == pytest.approx(correct / 14)
    assert loo == pytest.approx(11 / 14)


def test_majority_tie_goes_to_the_first_class_and_constant_features_do_not_split():
    X = pd.DataFrame({"a": ["x", "x", "x", "x"]})
    tree = ID3().fit(X, ["b", "a", "b", "a"])
    assert tree.n_nodes == 1
    assert tree.predict(X).tolist() == ["a"] * 4


def test_numeric_labels_and_single_row():
    tree = ID3().fit(pd.DataFrame({"f": [1]}), [7])
    assert tree.predict(pd.DataFrame({"f": [1, 2]})).tolist() == [7, 7]


def test_id3_errors():
    with pytest.raises(InputError, match="fit the tree first"):
        ID3().predict(TENNIS)
    with pytest.raises(InputError, match="rows"):
        ID3().fit(TENNIS[FEATURES], TENNIS["play"][:3])
    with pytest.raises(InputError, match="DataFrame"):
        ID3().fit(TENNIS[[]], TENNIS["play"])
    tree = ID3().fit(TENNIS[FEATURES], TENNIS["play"])
    with pytest.raises(InputError, match="wind"):
        tree.predict(TENNIS[["outlook", "temperature", "humidity"]])
    with pytest.raises(InputError, match="missing"):
        ID3().fit(TENNIS[FEATURES].assign(wind=None), TENNIS["play"])


# ------------------------------------------------------------------------------ properties
@st.composite
def datasets(draw):
    n = draw(st.integers(1, 40))
    m = draw(st.integers(1, 4))
    feats = {
        f"f{j}": draw(
            st.lists(st.sampled_from("abcd"[: draw(st.integers(1, 4))]), min_size=n, max_size=n)
        )
        for j in range(m)
    }
    y = draw(st.lists(st.sampled_from(["p", "q", "r"]), min_size=n, max_size=n))
    probe = {f: draw(st.lists(st.sampled_from("abcde"), min_size=5, max_size=5)) for f in feats}
    return pd.DataFrame(feats), pd.Series(y), pd.DataFrame(probe)


@SETTINGS
@given(datasets())
def test_id3_matches_reference(data):
    X, y, probe = data
    tree = ID3().fit(X, y)
    ref = _reference_tree(X, y)
    assert tree.n_nodes == ref_size(ref)
    for frame in (X, probe):
        expected = [ref_predict(ref, r) for r in frame.to_dict("records")]
        assert tree.predict(frame).tolist() == expected


@st.composite
def dummies(draw):
    """Many features, each mostly one value (a table of dummies: the tree is grown from the
    records off each feature's most common value), that value not always the first seen."""
    n = draw(st.integers(2, 60))
    feats = {}
    for j in range(draw(st.integers(1, 12))):
        common, rare = draw(st.permutations("abc"))[:2]
        cells = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
        feats[f"f{j}"] = [rare if c == 0 else "c" if c == 1 and j % 2 else common for c in cells]
    y = draw(st.lists(st.sampled_from(["p", "q", "r"]), min_size=n, max_size=n))
    return pd.DataFrame(feats), pd.Series(y)


def _reference_tree(X: pd.DataFrame, y: pd.Series):
    """The reference ID3 tree of ``X`` and ``y``."""
    records = [{**r, "_y": t} for r, t in zip(X.to_dict("records"), y, strict=True)]
    return ref_fit(records, "_y", list(X.columns))


@SETTINGS
@given(dummies())
def test_id3_on_dummies_matches_reference(data):
    X, y = data
    tree = ID3().fit(X, y)
    ref = _reference_tree(X, y)
    assert tree.n_nodes == ref_size(ref)
    assert tree.predict(X).tolist() == [ref_predict(ref, r) for r in X.to_dict("records")]


@settings(max_examples=50, deadline=None)
@given(datasets(), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_accuracy_is_a_share_and_relative_accuracy_of_identity_is_one(data, folds, seed):
    X, y, _ = data
    if len(X) < folds:
        return
    df = X.assign(target=y)
    acc = classification_accuracy(df, list(X.columns), "target", folds=folds, rng=seed)
    assert 0 <= acc <= 1
    assert acc * len(df) == pytest.approx(round(acc * len(df)))
    if acc > 0:
        assert relative_accuracy(df, df, list(X.columns), "target", folds, seed) == 1.0


def test_relative_accuracy_uses_original_labels_and_same_folds():
    # Released features that are all '*' predict the original majority only.
    df = pd.concat([TENNIS] * 3, ignore_index=True)
    blank = df.assign(**{f: "*" for f in FEATURES}, play="*")
    base = classification_accuracy(df, FEATURES, "play", folds=3, rng=1)
    rel = relative_accuracy(df, blank, FEATURES, "play", folds=3, rng=1)
    assert rel == pytest.approx((27 / 42) / base)
    release = Release("generalized", {"data": blank})
    assert relative_accuracy(df, release, FEATURES, "play", folds=3, rng=1) == rel


def _pairs(original: pd.DataFrame, released: pd.DataFrame) -> tuple:
    """The frequency table of (original row, released row) pairs, as the reports count it."""
    both = pd.concat([original, released.add_suffix(" (published)")], axis=1)
    table = both.groupby(list(both.columns), sort=False).size().reset_index(name="n")
    back = table[[c + " (published)" for c in released.columns]]
    return table[list(original.columns)], back.set_axis(released.columns, axis=1), table["n"]


@settings(max_examples=50, deadline=None)
@given(datasets(), st.integers(0, 2**32 - 1))
def test_relative_accuracy_on_counted_pairs_is_that_of_the_records(data, seed):
    """Leave-one-out (folds = records) is the same whatever the draw of the folds: on the
    counted pairs it is the accuracy on the records, exactly."""
    X, y, _ = data
    if len(X) < 2:
        return
    df = X.assign(target=y)
    released = df.assign(**{c: df[c].where(df[c] != "a", "*") for c in X.columns})
    features, n = list(X.columns), len(df)
    if classification_accuracy(df, features, "target", folds=n, rng=seed) == 0:
        return
    expected = relative_accuracy(df, released, features, "target", folds=n, rng=seed)
    original, back, counts = _pairs(df, released[features])
    got = relative_accuracy(original, back, features, "target", n, seed, counts=counts.to_numpy())
    assert got == expected


def test_drawn_folds_split_every_pair_and_fold_as_a_random_split_would():
    from microanon.measures.classification import _drawn_fold_counts

    records = np.array([7, 1, 30, 2, 5], dtype=np.int64)
    rng = np.random.default_rng(3)
    means = np.zeros((5, 4))
    for _ in range(2000):
        per_fold = _drawn_fold_counts(records, 4, rng)
        assert per_fold.sum(axis=1).tolist() == records.tolist()
        assert per_fold.sum(axis=0).tolist() == [12, 11, 11, 11]  # as _fold_of cuts 45 rows
        means += per_fold / 2000
    # each record is in fold f with probability size_f / 45
    expected = np.outer(records, [12, 11, 11, 11]) / 45
    assert np.abs(means - expected).max() < 0.15


def test_relative_accuracy_refuses_bad_counts():
    with pytest.raises(InputError, match="counts"):
        relative_accuracy(TENNIS, TENNIS, FEATURES, "play", counts=np.ones(3, dtype=int))
    with pytest.raises(InputError, match="at least 1"):
        relative_accuracy(TENNIS, TENNIS, FEATURES, "play", counts=np.zeros(14, dtype=int))


def test_accuracy_errors():
    with pytest.raises(InputError, match="folds"):
        classification_accuracy(TENNIS, FEATURES, "play", folds=1)
    with pytest.raises(InputError, match="folds"):
        classification_accuracy(TENNIS, FEATURES, "play", folds=15)
    with pytest.raises(InputError, match="target"):
        classification_accuracy(TENNIS, FEATURES, "nope")
    with pytest.raises(InputError, match="also listed"):
        classification_accuracy(TENNIS, FEATURES + ["play"], "play")
    with pytest.raises(InputError, match="aligned"):
        relative_accuracy(TENNIS, TENNIS.iloc[:10], FEATURES, "play")
    anat = Release("anatomized", {"qit": TENNIS, "st": TENNIS})
    with pytest.raises(InputError, match="single-table"):
        relative_accuracy(TENNIS, anat, FEATURES, "play")


# --------------------------------------------------- frequency tables against the row-based ID3
def ref_folds(n: int, folds: int, seed: int) -> np.ndarray:
    """The protocol's folds: a random permutation cut into ``folds`` near-equal parts."""
    fold = np.empty(n, dtype=np.int64)
    fold[np.random.default_rng(seed).permutation(n)] = np.arange(n) * folds // n
    return fold


def ref_cv_accuracy(X: pd.DataFrame, y: list, fold: np.ndarray, folds: int) -> float:  # noqa: N803
    """Row by row: the reference tree of each fold's other rows predicts the fold's rows."""
    rows = [{**r, "_y": t} for r, t in zip(X.to_dict("records"), y, strict=True)]
    correct = 0
    for f in range(folds):
        tree = ref_fit([r for r, g in zip(rows, fold, strict=True) if g != f], "_y", list(X))
        correct += sum(
            ref_predict(tree, r) == r["_y"] for r, g in zip(rows, fold, strict=True) if g == f
        )
    return correct / len(rows)


@st.composite
def repeated_tables(draw):
    """Few distinct rows, each repeated, shuffled: features, a coarser release of them, labels."""
    m = draw(st.integers(1, 3))
    distinct = draw(
        st.lists(
            st.tuples(
                *(st.sampled_from("abcd") for _ in range(m)), st.sampled_from(["p", "q", 1, 2])
            ),
            min_size=1,
            max_size=8,
        )
    )
    repeats = draw(st.lists(st.integers(1, 6), min_size=len(distinct), max_size=len(distinct)))
    rows = [r for r, times in zip(distinct, repeats, strict=True) for _ in range(times)]
    rows = draw(st.permutations(rows))
    X = pd.DataFrame([r[:m] for r in rows], columns=[f"f{j}" for j in range(m)])
    coarse = {f: draw(st.dictionaries(st.sampled_from("abcd"), st.sampled_from("ab*"))) for f in X}
    released = X.apply(lambda col: col.map(lambda v, c=col.name: coarse[c].get(v, v)))
    return X, released, [r[m] for r in rows]


@settings(max_examples=40, deadline=None)
@given(repeated_tables(), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_frequency_table_accuracy_equals_the_row_by_row_reference(data, folds, seed):
    X, released, y = data
    if len(X) < folds:
        return
    feats = list(X.columns)
    fold = ref_folds(len(X), folds, seed)
    base = ref_cv_accuracy(X, y, fold, folds)
    assert classification_accuracy(X.assign(y=y), feats, "y", folds, seed) == base
    if base == 0:
        with pytest.raises(InputError, match="no held-out row"):
            relative_accuracy(X.assign(y=y), released, feats, "y", folds, seed)
    else:
        expected = ref_cv_accuracy(released, y, fold, folds) / base
        assert relative_accuracy(X.assign(y=y), released, feats, "y", folds, seed) == expected


@settings(max_examples=40, deadline=None)
@given(repeated_tables(), st.data())
def test_counts_grow_the_tree_of_the_repeated_rows(data, draw):
    X, _, y = data
    counts = draw.draw(st.lists(st.integers(0, 3), min_size=len(X), max_size=len(X)))
    if not any(counts):
        with pytest.raises(InputError, match="all 0"):
            ID3().fit(X, y, counts=counts)
        return
    repeated = np.repeat(np.arange(len(X)), counts)
    tree = ID3().fit(X, y, counts=counts)
    plain = ID3().fit(X.iloc[repeated], [y[i] for i in repeated])
    ref = ref_fit([{**X.iloc[i].to_dict(), "_y": y[i]} for i in repeated], "_y", list(X.columns))
    probe = pd.concat([X, X.assign(f0="e")], ignore_index=True)
    expected = [ref_predict(ref, r) for r in probe.to_dict("records")]
    assert tree.n_nodes == plain.n_nodes == ref_size(ref)
    assert tree.predict(probe).tolist() == plain.predict(probe).tolist() == expected


@settings(max_examples=20, deadline=None)
@given(repeated_tables(), st.integers(0, 2**32 - 1), st.data())
def test_missing_values_are_refused_by_both_measures(data, seed, draw):
    X, released, y = data
    if len(X) < 2:
        return
    where = draw.draw(st.integers(0, len(X) - 1))
    holed = X.copy()
    holed.iloc[where, 0] = None
    feats = list(X.columns)
    with pytest.raises(InputError, match="missing"):
        classification_accuracy(holed.assign(y=y), feats, "y", 2, seed)
    with pytest.raises(InputError, match="missing"):
        relative_accuracy(X.assign(y=y), holed, feats, "y", 2, seed)
    labels = pd.Series(y, dtype=object)
    labels.iloc[where] = None
    with pytest.raises(InputError, match="missing"):
        ID3().fit(X, labels)


def test_counts_errors():
    with pytest.raises(InputError, match="counts has 3"):
        ID3().fit(TENNIS[FEATURES], TENNIS["play"], counts=[1, 2, 3])
    with pytest.raises(InputError, match="whole numbers"):
        ID3().fit(TENNIS[FEATURES], TENNIS["play"], counts=[0.5] * 14)


# ------------------------------------------------------------------------------ Adult
def test_adult_income_relative_accuracy_on_a_coarse_recoding():
    df = load_adult()
    table = Table.from_frame(df, adult_schema(sensitive="occupation"))
    features = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
    original = table.to_frame()
    coarse = table.recode(
        {
            "age": 3,
            "education": 3,
            "marital_status": 1,
            "workclass": 1,
            "native_country": 1,
            "race": 1,
        }
    ).to_frame()
    rel = relative_accuracy(original, coarse, features, "income", folds=5, rng=0)
    assert 0.5 < rel < 1


@settings(max_examples=50, deadline=None)
@given(datasets(), st.integers(0, 2**32 - 1), st.booleans(), st.data())
def test_a_release_that_only_relabels_values_has_the_accuracy_of_its_trees(
    data, seed, counted, draw
):
    """Each feature relabelled one to one (a release that generalized nothing): the answer,
    taken without growing the release's trees (and the original's only until a fold predicts a
    record), is what growing them all gives (1); a feature with two values merged is not such
    a release."""
    import microanon.measures.classification as classification

    X, y, _ = data
    if len(X) < 3:
        return
    df = X.assign(target=y)
    features = list(X.columns)
    names = draw.draw(st.permutations(list("vwxyz")))
    relabelled = df.assign(**{c: df[c].map(dict(zip("abcde", names, strict=True))) for c in X})
    counts = None
    original, released = df, relabelled
    if counted:
        original, back, found = _pairs(df, relabelled[features])
        released, counts = back, found.to_numpy()

    def answer() -> float | str:
        try:
            return relative_accuracy(original, released, features, "target", 3, seed, counts=counts)
        except InputError as error:  # the original's accuracy 0 on these folds: both refuse
            return str(error)

    shortcut = answer()
    saved = classification._relabelled
    classification._relabelled = lambda *args: False
    try:
        grown = answer()
    finally:
        classification._relabelled = saved
    assert shortcut == grown
    assert shortcut == 1.0 or "predicts no held-out row" in str(shortcut)
    merged = df[features[0]].replace({"b": "a"})
    if merged.nunique() < df[features[0]].nunique():
        codes = [pd.factorize(col)[0] for col in (df[features[0]], merged)]
        cards = [int(c.max()) + 1 for c in codes]
        assert not classification._relabelled(codes[:1], codes[1:], cards[:1], cards[1:])


@settings(max_examples=50, deadline=None)
@given(datasets(), st.randoms(use_true_random=False))
def test_spread_folds_give_one_answer_in_any_row_order(data, shuffle):
    """Spread folds draw nothing: the records and their counted pairs, in any row order, give
    the same accuracy (a report says the same on every run and engine)."""
    X, y, _ = data
    if len(X) < 3:
        return
    df = X.assign(target=y)
    released = df.assign(**{c: df[c].where(df[c] != "a", "*") for c in X.columns})
    features = list(X.columns)

    def answer(original, back, counts=None) -> float | str:
        try:
            return relative_accuracy(
                original, back, features, "target", 3, counts=counts, spread=True
            )
        except InputError as error:
            return str(error)

    expected = answer(df, released[features])
    original, back, counts = _pairs(df, released[features])
    order = list(range(len(original)))
    shuffle.shuffle(order)
    moved = answer(
        original.iloc[order].reset_index(drop=True),
        back.iloc[order].reset_index(drop=True),
        counts.to_numpy()[order],
    )
    assert moved == answer(original, back, counts.to_numpy()) == expected


def test_spread_folds_divide_every_pair_and_balance_the_folds():
    from microanon.measures.classification import _spread_fold_counts

    records = np.array([7, 1, 30, 2, 5], dtype=np.int64)
    per_fold = _spread_fold_counts(records, 4, np.array([2, 0, 4, 1, 3]))
    assert per_fold.sum(axis=1).tolist() == records.tolist()
    assert sorted(per_fold.sum(axis=0).tolist()) == [11, 11, 11, 12]
    assert (per_fold.max(axis=1) - per_fold.min(axis=1) <= 1).all()
