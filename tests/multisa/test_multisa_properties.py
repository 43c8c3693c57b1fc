"""Properties of the multi-SA methods on random tables (hypothesis), against literal references."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

import microanon.methods.multisa.grouping as grouping_module
from microanon.core.errors import InfeasibleError
from microanon.core.release import Release
from microanon.methods.multisa import (
    cluster_attributes,
    create_sids,
    group_records,
    heuristic_resort,
    mixed_model,
    rating,
    strong_rules,
)

SETTINGS = settings(max_examples=150, deadline=None)


@st.composite
def sensitive_tables(draw, max_rows: int = 40, min_values: int = 1) -> pd.DataFrame:
    """A record id (the quasi-identifier) and 2-4 sensitive columns over small domains (of
    ``min_values`` to 5 values each)."""
    n = draw(st.integers(1, max_rows))
    d = draw(st.integers(2, 4))
    data = {"rid": np.arange(n)}
    for j in range(d):
        k = draw(st.integers(max(min_values, 1), 5))
        data[f"s{j}"] = [
            f"v{x}" for x in draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
        ]
    return pd.DataFrame(data)


def tables_and_l() -> st.SearchStrategy[tuple[pd.DataFrame, int]]:
    """An l of 2 to 4 and a table whose sensitive columns have domains of l to 5 values: most
    of them hold enough values for the methods to publish, some (of few records) too few, which
    the methods refuse."""
    return st.integers(2, 4).flatmap(
        lambda ell: st.tuples(sensitive_tables(min_values=ell), st.just(ell))
    )


def _schema(df: pd.DataFrame) -> dict[str, str]:
    return {c: ("quasi" if c == "rid" else "sensitive") for c in df.columns}


def _sensitive(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if c != "rid"]


def _rules(df: pd.DataFrame, sensitive: list[str], conf: float) -> set[tuple]:
    """Strong rules by plain counting."""
    rows = df[sensitive].values.tolist()
    out = set()
    for i, j in itertools.permutations(range(len(sensitive)), 2):
        for x in {r[i] for r in rows}:
            sx = sum(r[i] == x for r in rows)
            for y in {r[j] for r in rows if r[i] == x}:
                sxy = sum(r[i] == x and r[j] == y for r in rows)
                if sxy / sx >= conf - 1e-12:
                    out.add((sensitive[i], x, sensitive[j], y, sx, sxy))
    return out


def _literal_sac(df: pd.DataFrame, conf: float) -> np.ndarray:
    """Algorithm 7 read literally on the plain count's strong rules: the pivot is the attribute
    with the most distinct strong values (the first on a tie); SAC holds every record with a
    strong value of another attribute."""
    sensitive = _sensitive(df)
    strong = {(a, x) for a, x, b, y, _, _ in _rules(df, sensitive, conf)}
    strong |= {(b, y) for _, _, b, y, _, _ in _rules(df, sensitive, conf)}
    counts = [sum(a == s for a, _ in strong) for s in sensitive]
    pivot = sensitive[counts.index(max(counts))]
    held = [df[s].map(lambda v, s=s: (s, v) in strong) for s in sensitive if s != pivot]
    return np.logical_or.reduce([h.to_numpy(dtype=bool) for h in held])


def too_few_values(df: pd.DataFrame, ell: int) -> bool:
    """Whether a sensitive column holds fewer than ``ell`` distinct values: no SID and no SAC
    group could hold ``ell`` of them, every value of it would be ``*``, and both methods refuse
    the run up front, naming the column (as Anatomy refuses it)."""
    return any(df[s].nunique() < ell for s in _sensitive(df))


def _refused_for_too_few(refusal: InfeasibleError, df: pd.DataFrame, ell: int) -> None:
    few = [s for s in _sensitive(df) if df[s].nunique() < ell]
    assert str(refusal).startswith(f"l = {ell} is impossible for sensitive column"), refusal
    for s in few:
        k = df[s].nunique()
        assert f"'{s}' ({k} distinct value{'s' if k != 1 else ''})" in str(refusal)


def mixed_or_refused(df: pd.DataFrame, ell: int, conf: float, seed: int) -> Release | None:
    """The mixed model's release of ``df``, or None when it refuses the run: exactly when a
    sensitive column holds fewer than ``ell`` values (:func:`too_few_values`) or the paper's
    algorithms read literally would publish no record (every record in SAC, Algorithm 7, and
    no group formed by the literal first fit, Algorithm 11); a release publishes some."""
    few = too_few_values(df, ell)
    sac = _literal_sac(df, conf)
    codes = np.column_stack([pd.factorize(df[s])[0] for s in _sensitive(df)])
    nothing = bool(sac.all()) and not first_fit(codes, sac, ell)[0]
    try:
        release = mixed_model(df, _schema(df), l=ell, min_confidence=conf, rng=seed)
    except InfeasibleError as refusal:
        if few:
            _refused_for_too_few(refusal, df, ell)
        elif not nothing:  # no group, and no IR record whose values SIDs could all take
            assert str(refusal).startswith(f"l = {ell} publishes nothing: every record"), refusal
        else:
            assert "publishes nothing" in str(refusal), refusal
        return None
    assert not few and not nothing and release.metadata["rows_out"] > 0
    return release


def rating_or_refused(df: pd.DataFrame, ell: int, seed: int, improved: bool = True):
    """Rating's release of ``df``, or None when it refuses the run: when a sensitive column
    holds fewer than ``ell`` values (:func:`too_few_values`), or when every record holds, in
    some sensitive column, a value no SID can take (the records left out, one column's at a
    time, until none is left)."""
    try:
        release = rating(df, _schema(df), l=ell, improved=improved, rng=seed)
    except InfeasibleError as refusal:
        if too_few_values(df, ell):
            _refused_for_too_few(refusal, df, ell)
        else:
            assert str(refusal).startswith(f"l = {ell} publishes nothing: every record"), refusal
        return None
    assert not too_few_values(df, ell)
    return release


@SETTINGS
@given(sensitive_tables(), st.sampled_from([0.3, 0.5, 2 / 3, 0.75, 0.8, 1.0]))
def test_strong_rules_match_plain_counting(df, conf):
    sensitive = _sensitive(df)
    got = strong_rules(df, sensitive, conf)
    assert set(map(tuple, got.drop(columns="confidence").values.tolist())) == _rules(
        df, sensitive, conf
    )
    assert np.allclose(got["confidence"], got["support_xy"] / got["support_x"])


@SETTINGS
@given(tables_and_l(), st.sampled_from([0.3, 0.5, 0.75, 1.0]), st.integers(0, 2**32 - 1))
def test_mixed_model_release(case, conf, seed):
    df, ell = case
    sensitive = _sensitive(df)
    rel = mixed_or_refused(df, ell, conf, seed)
    if rel is None:
        return
    sac, at, idt = rel.tables["sac"], rel.tables["at"], rel.tables["idt"]
    meta = rel.metadata["multisa"]
    original = df.set_index("rid")
    rules = _rules(df, sensitive, conf)
    assert meta["strong_rules"] == len(rules)

    # Every record is published once (SAC~ or AT) or deleted.
    sac_ids, at_ids = sac["rid"].astype(int).tolist(), at["rid"].astype(int).tolist()
    assert len(set(sac_ids)) == len(sac_ids) and not set(sac_ids) & set(at_ids)
    unplaced = sum(meta["unplaced"].values())
    assert len(sac_ids) + len(at_ids) + meta["deleted"] + unplaced == len(df)
    assert len(df) == rel.metadata["rows_in"]
    assert rel.metadata["rows_out"] == len(sac_ids) + len(at_ids)
    assert len(set(at_ids)) == len(at_ids)  # (in random order: see the test of the order)

    # Clusters are the connected components of the attributes linked by strong rules.
    clusters = meta["clusters"]
    cluster_of = {a: k for k, c in enumerate(clusters) for a in c}
    assert sorted(cluster_of) == sorted(sensitive)
    assert all(cluster_of[a] == cluster_of[b] for a, _, b, _, _, _ in rules)

    # SAC~: groups of l records with pairwise distinct values on every sensitive attribute,
    # each cluster's value vectors a permutation of the records' own.
    for _, group in sac.groupby("group"):
        assert len(group) == ell
        for s in sensitive:
            assert group[s].nunique() == ell
        truth = original.loc[group["rid"].astype(int)]
        for cluster in clusters:
            assert Counter(map(tuple, group[cluster].values.tolist())) == Counter(
                map(tuple, truth[cluster].values.tolist())
            )

    # SIDs: at least l distinct values; AT l-diverse (Def. 2): each published SID holds the
    # record's value, once, and absorbs one occurrence of each member value.
    members = idt.groupby("sid")["value"].apply(list).to_dict()
    for values in members.values():
        assert len(values) == len(set(values)) >= ell
    truth = original.loc[at_ids]
    for s in sensitive:
        sids = at[s].tolist()
        for sid, value in zip(sids, truth[s], strict=True):
            assert value in members[sid]  # (never a '*': its record is left out instead)
        used = Counter(sids)
        assert used == {k: len(v) for k, v in members.items() if k.rsplit("#", 1)[0] == s}

    # No AT record contains a whole strong rule (Algorithm 7).
    for _, row in truth.iterrows():
        assert not any(row[a] == x and row[b] == y for a, x, b, y, _, _ in rules)

    # Lemma 22: without deletion or records left out, every rule's confidence is read back.
    if meta["deleted"] == 0 and not unplaced:
        for a, x, b, y, sx, sxy in rules:
            both = int(((sac[a] == x) & (sac[b] == y)).sum())
            support = int((sac[a] == x).sum()) + int(
                ((idt["attribute"] == a) & (idt["value"] == x)).sum()
            )
            assert (both, support) == (sxy, sx)


@SETTINGS
@given(tables_and_l(), st.integers(0, 2**32 - 1))
def test_original_and_improved_rating_publish_the_same(case, seed):
    df, ell = case
    improved = rating_or_refused(df, ell, seed)
    original = rating_or_refused(df, ell, seed, improved=False)
    if improved is None or original is None:
        assert improved is original
        return
    for name in ("sac", "at", "idt"):
        pd.testing.assert_frame_equal(improved.tables[name], original.tables[name])
    assert improved.metadata["multisa"] == original.metadata["multisa"]
    assert (improved.metadata["method"], original.metadata["method"]) == (
        "improved_rating",
        "rating",
    )


@SETTINGS
@given(st.lists(st.integers(0, 12), min_size=1, max_size=30), st.integers(2, 6))
def test_create_sids(sizes, ell):
    sids = create_sids(sizes, ell)
    slow = create_sids(sizes, ell, improved=False)
    for field in ("sid", "bucket", "suppressed"):
        assert getattr(sids, field).tolist() == getattr(slow, field).tolist()
    assert sids.n_sids == slow.n_sids
    for s in range(sids.n_sids):
        held = sids.bucket[sids.sid == s]
        assert len(held) == len(set(held.tolist())) >= ell
    taken = np.bincount(sids.bucket, minlength=len(sizes))
    assert (taken + sids.suppressed).tolist() == sizes
    # Before the residual step every SID has exactly l values: at most n // l SIDs.
    assert sids.n_sids <= sum(sizes) // ell


@SETTINGS
@given(st.lists(st.integers(1, 9), min_size=1, max_size=25), st.data())
def test_heuristic_resort_is_a_stable_sort(sizes, data):
    before = sorted(sizes, reverse=True)
    need = data.draw(st.integers(0, len(before)))
    after = np.array(before)
    after[:need] -= 1
    assert heuristic_resort(after, need).tolist() == np.argsort(-after, kind="stable").tolist()


def first_fit(codes: np.ndarray, sac: np.ndarray, ell: int) -> tuple[list, list]:
    """Algorithm 11 read literally: scan SAC, then IR, from the front for every pick."""
    rows = np.asarray(codes).tolist()
    sac_list = [i for i, s in enumerate(sac.tolist()) if s]
    ir_list = [i for i, s in enumerate(sac.tolist()) if not s]
    groups, deleted = [], []
    while sac_list:
        group, borrowed = [sac_list.pop(0)], []
        while len(group) < ell:

            def compatible(r, group=group):
                return all(rows[r][j] != rows[g][j] for g in group for j in range(len(rows[r])))

            pick = next((r for r in sac_list if compatible(r)), None)
            if pick is not None:
                sac_list.remove(pick)
            else:
                pick = next((r for r in ir_list if compatible(r)), None)
                if pick is None:
                    break
                ir_list.remove(pick)
                borrowed.append(pick)
            group.append(pick)
        if len(group) == ell:
            groups.append(group)
        else:
            deleted += [r for r in group if r not in borrowed]
            ir_list = sorted(ir_list + borrowed)
    return groups, sorted(deleted)


@st.composite
def code_tables(draw):
    n = draw(st.integers(1, 70))
    d = draw(st.integers(1, 4))
    cards = draw(st.lists(st.integers(1, 6), min_size=d, max_size=d))
    codes = np.column_stack(
        [draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)) for k in cards]
    )
    sac = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    return codes, sac


@pytest.mark.parametrize("window", [0, 1, grouping_module._WINDOW])
@SETTINGS
@given(code_tables(), st.integers(2, 5))
def test_grouping_is_literal_first_fit(window, table, ell):
    codes, sac = table
    original = grouping_module._WINDOW
    grouping_module._WINDOW = window  # 0: every pick goes through the trie
    try:
        got = group_records(codes, sac, ell)
    finally:
        grouping_module._WINDOW = original
    groups, deleted = first_fit(codes, sac, ell)
    assert got.groups.tolist() == groups
    assert got.deleted.tolist() == deleted


@SETTINGS
@given(st.integers(1, 7), st.data())
def test_clusters_are_connected_components(d, data):
    pairs = data.draw(st.lists(st.tuples(st.integers(0, d - 1), st.integers(0, d - 1)), max_size=8))
    linked = np.array([p for p in pairs if p[0] != p[1]], dtype=np.int64).reshape(-1, 2)
    clusters = cluster_attributes(d, linked)
    graph = coo_matrix((np.ones(len(linked)), (linked[:, 0], linked[:, 1])), shape=(d, d))
    _, labels = connected_components(graph, directed=False)
    expected = [[int(j) for j in np.flatnonzero(labels == labels[first])] for first in range(d)]
    expected = sorted({tuple(c) for c in expected})
    assert clusters == [list(c) for c in expected]


def test_deletion_causes():
    """A combination conflict, then an attribute with too few values left."""
    codes = np.array([[0, 0, 0], [0, 1, 1], [1, 0, 1]])
    got = group_records(codes, np.ones(3, dtype=bool), 2)
    assert got.deleted.tolist() == [0, 1, 2]
    assert got.cause.tolist() == [-1, 2, 2]


def test_deleted_by_names_the_exhausted_column():
    """s0's third value is held once: one group of three forms with it, the six other records
    (all in SAC) are deleted for want of a third s0 value."""
    df = pd.DataFrame(
        {
            "rid": range(9),
            "s0": ["a", "a", "b", "b", "a", "b", "c", "a", "b"],
            "s1": ["x", "x", "y", "y", "z", "w", "v", "v", "v"],
        }
    )
    release = mixed_model(df, _schema(df), l=3, rng=0)
    meta = release.metadata["multisa"]
    assert meta["deleted"] == 6 and release.metadata["rows_out"] == len(release.tables["sac"]) == 3
    assert meta["deleted_by"] == {"s0": 6}


def test_a_run_that_would_publish_nothing_is_refused():
    """s0 has two values: at l = 3 no group can form and no SID either; the run is refused in
    one line naming s0, l and its two values (as Anatomy refuses an l above a column's values),
    whatever allow_suppression says. Four records whose columns hold three values each, but no
    three of which differ on both, all in SAC, publish nothing either: refused."""
    df = pd.DataFrame(
        {
            "rid": range(6),
            "s0": ["a", "a", "b", "b", "a", "b"],
            "s1": ["x", "x", "y", "y", "z", "w"],
        }
    )
    for allow in (True, False):
        with pytest.raises(InfeasibleError) as refusal:
            mixed_model(df, _schema(df), l=3, allow_suppression=allow, rng=0)
        assert str(refusal.value) == (
            "l = 3 is impossible for sensitive column 's0' (2 distinct values): every SAC group "
            "and every SID needs l different values of each sensitive column, so no SAC group "
            "could form (its records would be deleted) and no SID could take the other "
            "records' values of it; lower l to 2 or less"
        )
    crossed = pd.DataFrame({"rid": range(4), "s0": list("ccab"), "s1": list("xzyy")})
    with pytest.raises(InfeasibleError, match="^l = 3 publishes nothing: all 4 records are in SAC"):
        mixed_model(crossed, _schema(crossed), l=3, rng=0)


@settings(max_examples=60, deadline=None)
@given(tables_and_l())
def test_deleted_by_adds_up(case):
    df, ell = case
    release = mixed_or_refused(df, ell, 0.5, 0)
    if release is None:
        return
    meta = release.metadata["multisa"]
    assert sum(meta["deleted_by"].values()) == meta["deleted"]
    assert set(meta["deleted_by"]) <= {*_sensitive(df), "combination"}


@pytest.mark.parametrize("method", ["rating", "mixed_model"])
def test_the_published_order_of_at_discloses_no_value(method):
    """The GSS vocabulary test file (carData's GSSvocab), sorted by the score as a file may be:
    an attacker with the public tables only gives the i-th AT row carrying a SID the i-th value
    the IDT lists for it. With AT in table order that recovered every score (100 %, as on vcd's
    Suicide file); in random order about one in ℓ, what the SIDs allow. (A record number is
    published beside, for the test to know each row's true score.)"""
    from real_surveys import survey

    gss = survey("gss_vocab").dropna().head(4000)
    gss = gss.sort_values("vocab", kind="stable").reset_index(drop=True)
    gss["vocab"] = gss["vocab"].astype(int).astype(str)
    gss["rid"] = np.arange(len(gss))
    schema = {
        "gender": "quasi", "ageGroup": "quasi", "nativeBorn": "quasi",
        "vocab": "sensitive", "educGroup": "sensitive", "rid": "insensitive",
        "year": "identifier", "age": "identifier", "educ": "identifier",
    }  # fmt: skip
    make = rating if method == "rating" else mixed_model
    rel = make(gss, schema, l=3, rng=np.random.default_rng(5))
    at, idt = rel.tables["at"], rel.tables["idt"]
    assert len(at) > 1000
    listed = idt[idt["attribute"] == "vocab"].groupby("sid")["value"].agg(list)
    occurrence = at.groupby("vocab").cumcount()
    guesses = [
        listed[sid][i] if sid != "*" and i < len(listed[sid]) else None
        for sid, i in zip(at["vocab"], occurrence, strict=True)
    ]
    truth = gss["vocab"].to_numpy()[at["rid"].astype(int).to_numpy()]
    made = [(g, t) for g, t in zip(guesses, truth, strict=True) if g is not None]
    share = sum(g == t for g, t in made) / len(made)
    assert share < 0.5, share


def _diversity_by_groupby(release: Release) -> dict:
    """The report's ℓ-diversity figures counted with pandas on the tables as written."""
    ells = release.metadata["multisa"]["l"]
    sensitive = list(release.metadata["sensitive"])
    ell = {a: int(ells[a] if isinstance(ells, dict) else ells) for a in sensitive}
    idt, sac = release.tables["idt"], release.tables["sac"]
    out = {"sids": None, "smallest": None, "groups": True}
    if len(idt):
        distinct = idt.groupby(["attribute", "sid"])["value"].nunique()
        out["sids"] = all(distinct.loc[a].min() >= ell[a] for a in distinct.index.unique(0))
        out["smallest"] = int(idt.groupby(["attribute", "sid"]).size().min())
    if len(sac):
        sizes = sac.groupby("group").size()
        for a in sensitive:
            out["groups"] &= bool((sac.groupby("group")[a].nunique() == sizes).all())
        out["groups"] &= bool((sizes >= min(ell.values())).all())
    return out


@SETTINGS
@given(tables_and_l(), st.sampled_from([None, 0.5, 1.0]), st.integers(0, 2**32 - 1), st.data())
def test_published_diversity_is_counted_as_on_the_tables(case, conf, seed, data):
    """The report's ℓ-diversity figures from the release's encoding equal those counted with
    pandas on its tables, on rating and mixed-model releases, and on a release whose SAC~
    lost its distinct values (a value copied within a group)."""
    from microanon.measures.multisa import published_diversity

    df, ell = case
    if conf is None:
        rel = rating_or_refused(df, ell, seed)
    else:
        rel = mixed_or_refused(df, ell, conf, seed)
    if rel is None:
        return
    sac = rel.tables["sac"]
    if len(sac) and data.draw(st.booleans()):  # a broken group: one value twice
        s = _sensitive(df)[0]
        sac = sac.copy()
        sac.loc[sac.index[1], s] = sac.loc[sac.index[0], s]
        rel = Release(rel.kind, {**rel.tables, "sac": sac}, rel.metadata)
    got = published_diversity(rel)
    want = _diversity_by_groupby(rel)
    assert (got.sids_diverse, got.smallest_sid, got.groups_diverse) == (
        want["sids"],
        want["smallest"],
        want["groups"],
    )
