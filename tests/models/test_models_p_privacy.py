"""P-privacy (Def. 3.2) and generalization (Def. 3.1): Figure 2 and the paper's examples of
U-private generalizations (Koudas et al., PVLDB 2009), perturbed releases, a float-free brute-force
formula on random cases, the model in configs and in check_release, the method's releases, and bad
input."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from microanon import InputError, Release
from microanon.methods.distribution import distribution_anonymize
from microanon.models import (
    PPrivacy,
    as_models,
    check_release,
    covers,
    model_from_config,
    p_privacy,
)

K = 1000
U = {"values": [30 * K, 40 * K, 50 * K, 60 * K], "weights": [1, 1, 1, 1]}
FIGURE2 = {
    1: [(30, 30, 1), (40, 40, 1), (50, 50, 1), (60, 60, 1)],
    2: [(30, 40, 1), (50, 60, 1), (30, 60, 1)],
    3: [(30, 40, 1), (50, 60, 1), (30, 60, 2)],
}


def make_release(entries, sizes=None, hierarchies=(U,), group_hierarchy=None, models=None):
    """A distribution release with the given entries per group (values in thousands)."""
    sizes = sizes or {g: sum(c for *_, c in rows) for g, rows in entries.items()}
    groups = sorted(set(entries) | set(sizes))
    qit = pd.DataFrame({"group": [g for g in groups for _ in range(sizes.get(g, 0))]})
    st_ = pd.DataFrame(
        [(g, lo * K, hi * K, c) for g, rows in entries.items() for lo, hi, c in rows],
        columns=["group", "low", "high", "count"],
    )
    dist = {
        "hierarchies": list(hierarchies),
        "group_hierarchy": group_hierarchy or [0] * len(groups),
    }
    meta = {"sensitive": ["salary"], "distribution": dist}
    if models is not None:
        meta["models"] = models
    return Release("distribution", {"qit": qit, "st": st_}, meta)


FIG2_SIZES = {1: 4, 2: 3, 3: 4}


def test_figure2_is_u_private():
    verdict = p_privacy(make_release(FIGURE2, FIG2_SIZES))
    assert verdict.holds and verdict.value == 0 and verdict.groups == 3
    assert verdict.offending.empty and verdict.model == "P-privacy"
    assert str(verdict) == "P-privacy: holds over 3 groups"


@pytest.mark.parametrize(
    ("group", "rows", "reason", "first"),
    [
        (2, [(30, 40, 1), (40, 60, 1), (30, 60, 1)], "mixture", 40),  # widened entry
        (3, [(30, 40, 2), (50, 60, 1), (30, 60, 2)], "mixture", 30),  # one more [30, 40]
        (2, [(30, 40, 2), (50, 60, 1)], "mixture", 30),  # unbalanced
        (2, [(30, 40, 1), (50, 60, 1), (30, 55, 1)], "not a domain value", None),
        (2, [(30, 40, 1), (50, 60, 1)], "fewer entries than records", None),  # P-private, short
        (1, [(30, 30, 1), (40, 40, 1), (50, 50, 1), (70, 70, 1)], "not a domain value", None),
    ],
)
def test_perturbed_figure2_fails(group, rows, reason, first):
    verdict = p_privacy(make_release({**FIGURE2, group: rows}, FIG2_SIZES))
    assert not verdict.holds
    off = verdict.offending
    assert off["group"].tolist() == [group] and reason in off["reason"].iloc[0]
    if first is None:
        assert np.isnan(off["first_value"].iloc[0])
    else:
        assert off["first_value"].iloc[0] == first * K and off["value"].iloc[0] > 0
    assert f"group {group}" in str(verdict) and "1 of 3 groups offend" in str(verdict)
    assert verdict.to_dict()["offending"][0]["group"] == group


def test_zero_weight_entry_and_deviation_value():
    zero = {"values": [30 * K, 40 * K, 50 * K, 60 * K], "weights": [1, 1, 0, 2]}
    verdict = p_privacy(make_release({1: [(50, 50, 1), (30, 60, 3)]}, hierarchies=(zero,)))
    assert not verdict.holds and "weight 0" in verdict.offending["reason"].iloc[0]
    assert np.isnan(verdict.value)
    # {30-60} x 4 is P-private for any target; {30},{40},{60}x2 too for weights 1,1,0,2.
    assert p_privacy(make_release({1: [(30, 60, 4)]}, hierarchies=(zero,))).holds
    assert p_privacy(
        make_release({1: [(30, 30, 1), (40, 40, 1), (60, 60, 2)]}, hierarchies=(zero,))
    ).holds
    # {30}, {40}, {60}: mixture (1/3, 1/3, 0, 1/3) vs (1/4, 1/4, 0, 1/2): deviation max 1/3.
    verdict = p_privacy(
        make_release({1: [(30, 30, 1), (40, 40, 1), (60, 60, 1)]}, hierarchies=(zero,))
    )
    assert verdict.value == pytest.approx(1 / 3) and verdict.offending["first_value"][0] == 30 * K


def test_section_5_1_examples():
    first = [(30, 30, 1), (40, 40, 1), (50, 60, 2)]
    second = [(30, 40, 2), (50, 50, 1), (60, 60, 1)]
    assert p_privacy(make_release({1: first})).holds
    assert p_privacy(make_release({1: second})).holds
    lows = lambda rows: [lo for lo, _, _ in rows]  # noqa: E731
    highs = lambda rows: [hi for _, hi, _ in rows]  # noqa: E731
    counts = lambda rows: [c for *_, c in rows]  # noqa: E731
    for rows in (first, second):
        assert covers([30, 40, 50, 60], lows(rows), highs(rows), counts(rows))
    assert covers([30, 30, 50, 60], lows(second), highs(second), counts(second))
    assert not covers([30, 30, 50, 60], lows(first), highs(first), counts(first))
    assert not covers([30, 40, 50, 60, 60], lows(first), highs(first), counts(first))


def _covers_brute(values, entries) -> bool:
    slots = [(lo, hi) for lo, hi, c in entries for _ in range(c)]
    if len(values) > len(slots):
        return False
    return any(
        all(lo <= v <= hi for v, (lo, hi) in zip(values, perm, strict=False))
        for perm in itertools.permutations(slots, len(values))
    )


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=0, max_size=4),
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(1, 2)), min_size=0, max_size=4
    ),
)
def test_covers_agrees_with_brute_force(values, raw):
    entries = [(lo, lo + width, c) for lo, width, c in raw]
    lo = [e[0] for e in entries]
    hi = [e[1] for e in entries]
    cnt = [e[2] for e in entries]
    assert covers(values, lo, hi, cnt) == _covers_brute(values, entries)


# ---------------------------------------------------------------------------- brute force
def _brute_group(values, weights, entries, records):
    """Def. 3.2 verbatim in Fractions: (ok, first failing value or None, max deviation)."""
    total = sum(weights)
    n = sum(c for *_, c in entries)
    sub = []
    for lo, hi, c in entries:
        if lo not in values or hi not in values or lo > hi:
            return False, None, None
        w_e = sum(w for v, w in zip(values, weights, strict=True) if lo <= v <= hi)
        if w_e == 0:
            return False, None, None
        sub.append((lo, hi, c, w_e))
    first, worst = None, Fraction(0)
    for v, w in zip(values, weights, strict=True):
        mixture = sum(
            (c * Fraction(w, w_e) for lo, hi, c, w_e in sub if lo <= v <= hi), Fraction(0)
        )
        target = n * Fraction(w, total)
        if mixture != target:
            first = v if first is None else first
        if w > 0 and n > 0:
            worst = max(worst, abs(mixture / target - 1))
    return first is None and n >= records, first, worst


@st.composite
def random_releases(draw):
    n_h = draw(st.integers(1, 2))
    hierarchies = []
    for _ in range(n_h):
        vals = sorted(draw(st.lists(st.integers(0, 9), min_size=1, max_size=5, unique=True)))
        ws = draw(st.lists(st.integers(0, 3), min_size=len(vals), max_size=len(vals)))
        if sum(ws) == 0:
            ws[draw(st.integers(0, len(vals) - 1))] = 1
        hierarchies.append((vals, ws))
    n_groups = draw(st.integers(1, 3))
    gh = [draw(st.integers(0, n_h - 1)) for _ in range(n_groups)]
    entries, sizes = {}, {}
    for g in range(1, n_groups + 1):
        vals, ws = hierarchies[gh[g - 1]]
        rows = []
        if draw(st.booleans()):  # P-private by construction: sums of partition blocks
            for _ in range(draw(st.integers(1, 2))):
                cuts = sorted(draw(st.sets(st.integers(1, len(vals) - 1))) if len(vals) > 1 else [])
                bounds = [0, *cuts, len(vals)]
                t = draw(st.integers(1, 2))
                for a, b in itertools.pairwise(bounds):
                    if sum(ws[a:b]):
                        rows.append((vals[a], vals[b - 1], t * sum(ws[a:b])))
            if draw(st.booleans()):  # perturb: one more entry
                i = draw(st.integers(0, len(vals) - 1))
                rows.append((vals[i], vals[i], 1))
        else:
            for _ in range(draw(st.integers(1, 4))):
                a = draw(st.integers(0, len(vals) - 1))
                b = draw(st.integers(a, len(vals) - 1))
                lo = vals[a] + (0.5 if draw(st.integers(0, 9)) == 0 else 0)
                rows.append((lo, vals[b], draw(st.integers(1, 3))))
        entries[g] = rows
        n = sum(c for *_, c in rows)
        sizes[g] = draw(st.integers(0, n + 1))
    return hierarchies, gh, entries, sizes


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_releases())
def test_checker_agrees_with_brute_force(case):
    hierarchies, gh, entries, sizes = case
    qit = pd.DataFrame({"group": [g for g in sorted(sizes) for _ in range(sizes[g])]})
    st_ = pd.DataFrame(
        [(g, lo, hi, c) for g, rows in entries.items() for lo, hi, c in rows],
        columns=["group", "low", "high", "count"],
    )
    dist = {
        "hierarchies": [{"values": v, "weights": w} for v, w in hierarchies],
        "group_hierarchy": gh,
    }
    release = Release("distribution", {"qit": qit, "st": st_}, {"distribution": dist})
    verdict = p_privacy(release)
    expected_bad = {}
    for g, rows in entries.items():
        vals, ws = hierarchies[gh[g - 1]]
        ok, first, worst = _brute_group(vals, ws, rows, sizes[g])
        if not ok:
            expected_bad[g] = (first, worst)
    off = verdict.offending.set_index("group")
    assert verdict.holds == (not expected_bad)
    assert set(off.index) == set(expected_bad)
    for g, (first, worst) in expected_bad.items():
        if worst is None:
            assert np.isnan(off.loc[g, "value"])
        else:
            assert off.loc[g, "value"] == pytest.approx(float(worst))
            if first is not None:
                assert off.loc[g, "first_value"] == first


# ---------------------------------------------------------------------------- model
def test_model_in_configs_and_check_release():
    model = model_from_config("p_privacy", {})
    assert model == PPrivacy() and model.name == "P-privacy" and model.needs_sensitive
    assert as_models([{"p_privacy": {}}, {"k_anonymity": {"k": 2}}])[0] == model
    assert model.to_config() == {"p_privacy": {}}
    assert as_models({"p_privacy": None}) == [model]
    claims = [
        {"k_anonymity": {"k": 3}},
        {"l_diversity": {"l": 4, "form": "distinct"}},
        {"l_diversity": {"l": 4, "form": "entropy"}},
        {"t_closeness": {"t": 0.01}},
    ]
    rel = make_release(FIGURE2, FIG2_SIZES, models=claims)
    verdicts = check_release(rel)
    assert [v.model for v in verdicts] == [
        "P-privacy", "k-anonymity", "distinct l-diversity", "entropy l-diversity", "t-closeness"
    ]  # fmt: skip
    assert all(v.holds for v in verdicts)
    assert verdicts[1].value == 3 and verdicts[2].value == 4 and verdicts[4].value == 0
    assert model.check(rel).holds
    stricter = check_release(rel, [{"k_anonymity": {"k": 4}}, {"p_privacy": {}}])
    assert [v.model for v in stricter] == ["k-anonymity", "P-privacy"]
    assert not stricter[0].holds and stricter[1].holds
    # (A root copy more keeps P-privacy; a lopsided split does not.)
    assert p_privacy(make_release({**FIGURE2, 3: [(30, 40, 2), (50, 60, 2)]}, FIG2_SIZES)).holds
    broken = make_release({**FIGURE2, 3: [(30, 40, 3), (50, 60, 1)]}, FIG2_SIZES, models=claims)
    assert not check_release(broken)[0].holds


def test_targets_differ_per_group():
    skew = {"values": [30 * K, 40 * K, 50 * K, 60 * K], "weights": [3, 1, 0, 0]}
    rel = make_release(
        {1: [(30, 30, 3), (40, 40, 1)], 2: [(30, 60, 2)]},
        hierarchies=(skew, U),
        group_hierarchy=[0, 1],
        models=[{"l_diversity": {"l": 2, "form": "distinct"}}, {"t_closeness": {"t": 0.9}}],
    )
    p, ldiv, t = check_release(rel)
    assert p.holds and ldiv.holds and ldiv.value == 2
    # Mixture: 4 records at (3/4, 1/4, 0, 0) and 2 at U -> t of group 2 is its EMD to that.
    assert 0 < t.value < 0.9 and t.holds


def test_method_releases_are_p_private_and_perturbations_are_not():
    rng = np.random.default_rng(3)
    data = pd.DataFrame(
        {
            "age": rng.integers(20, 60, 300),
            "zip": rng.integers(0, 5, 300),
            "s": rng.integers(0, 40, 300),
        }
    )
    schema = {"age": "quasi", "zip": "quasi", "s": "sensitive"}
    for kwargs in (
        {"target": "uniform", "groups": "zip"},
        {"target": {"normal": {"variance": 80}}, "fakes": 0.1},
        {"target": "empirical", "partition": "qi_sa", "subgroup_by": ["zip"], "fakes": 2},
    ):
        rel = distribution_anonymize(data, schema, rng=1, **kwargs)
        assert p_privacy(rel).holds, kwargs
        assert all(v.holds for v in check_release(rel))
        low = rel.metadata["distribution"]["hierarchies"][0]["values"][0]
        extra = pd.DataFrame({"group": [1], "low": [low], "high": [low], "count": [1]})
        st_ = pd.concat([rel.tables["st"], extra], ignore_index=True)
        tampered = Release("distribution", {"qit": rel.tables["qit"], "st": st_}, rel.metadata)
        assert not p_privacy(tampered).holds


def test_bad_input():
    rel = make_release(FIGURE2, FIG2_SIZES)
    with pytest.raises(InputError, match="'distribution' releases"):
        p_privacy(Release("generalized", {"data": pd.DataFrame({"a": [1]})}))
    with pytest.raises(InputError, match="not on a table"):
        PPrivacy().check(rel.tables["qit"], ["group"])
    with pytest.raises(InputError, match="cannot be enforced"):
        PPrivacy().group_ok(None)
    with pytest.raises(InputError, match="lacks distribution"):
        p_privacy(Release("distribution", rel.tables, {}))
    with pytest.raises(InputError, match="outside 1..2"):
        p_privacy(make_release(FIGURE2, FIG2_SIZES, group_hierarchy=[0, 0]))
    bad_weights = {"values": [1, 2], "weights": [0, 0]}
    with pytest.raises(InputError, match="positive sum"):
        p_privacy(make_release(FIGURE2, FIG2_SIZES, hierarchies=(bad_weights,)))
    unsorted = {"values": [2, 1], "weights": [1, 1]}
    with pytest.raises(InputError, match="sorted"):
        p_privacy(make_release(FIGURE2, FIG2_SIZES, hierarchies=(unsorted,)))
    with pytest.raises(InputError, match="group_hierarchy"):
        p_privacy(make_release(FIGURE2, FIG2_SIZES, group_hierarchy=[0, 0, 5]))


def test_mixed_categorical_and_numeric_hierarchies_are_refused():
    cat = {"values": ["a", "b"], "weights": [1, 1], "categorical": True}
    with pytest.raises(InputError, match="every hierarchy is categorical or none"):
        p_privacy(
            make_release(FIGURE2, FIG2_SIZES, hierarchies=(U, cat), group_hierarchy=[0, 0, 1])
        )
