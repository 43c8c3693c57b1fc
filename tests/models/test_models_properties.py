"""Property tests: every check agrees with plain-Python references on random small tables.

The references loop over groups with dicts and Counters; fractions make ℓ thresholds exact, and
every Earth Mover's Distance is solved as the transportation linear program it is defined by
(scipy's HiGHS), with the ground distance written from its definition — never from the closed
forms the implementation uses.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from microanon.core.hierarchy import Hierarchy
from microanon.models import Groups, k_anonymity, l_diversity, profile, t_closeness

ALPHABETS = {
    "int": st.integers(-1, 2),
    "str": st.sampled_from(["a", "b", "[20, 30)", "*"]),
    "mixed": st.one_of(st.integers(0, 2), st.sampled_from(["0", "x"]), st.just(0.5)),
    "float": st.sampled_from([0.5, -1.25, 3.0]),
}
SA_VALUES = ["s0", "s1", "s2", "s3", "s4"]
SETTINGS = settings(max_examples=100, deadline=None)


@st.composite
def tables(draw: Any, numeric_sa: bool = False, max_rows: int = 20) -> tuple[pd.DataFrame, list]:
    """A random table with 1-3 QI columns of mixed kinds, a sensitive column ``s`` and a random
    non-unique index; returns the table and its QI names."""
    n = draw(st.integers(1, max_rows))
    columns: dict[str, list] = {}
    for j in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(sorted(ALPHABETS)))
        columns[f"q{j}"] = draw(st.lists(ALPHABETS[kind], min_size=n, max_size=n))
    m = draw(st.integers(1, 5))
    sa = st.integers(0, m) if numeric_sa else st.sampled_from(SA_VALUES[:m])
    columns["s"] = draw(st.lists(sa, min_size=n, max_size=n))
    index = draw(st.lists(st.integers(0, 3) | st.sampled_from(["i", "j"]), min_size=n, max_size=n))
    return pd.DataFrame(columns, index=index), [c for c in columns if c != "s"]


# --------------------------------------------------------------------------- references
def ref_groups(df: pd.DataFrame, quasi: list) -> dict[tuple, Counter]:
    """QI tuple -> Counter of sensitive values, by looping over rows."""
    out: dict[tuple, Counter] = {}
    rows = zip(*(df[c].tolist() for c in quasi), strict=True)
    for key, s in zip(rows, df["s"].tolist(), strict=True):
        out.setdefault(key, Counter())[s] += 1
    return out


def ref_recursive_level(counts: Counter, c: float) -> int:
    """Largest ℓ with r1 < c (r_ℓ + ... + r_m), or 0."""
    r = sorted(counts.values(), reverse=True)
    c_exact = Fraction(str(c))
    best = 0
    for ell in range(1, len(r) + 2):
        if r[0] < c_exact * sum(r[ell - 1 :]):
            best = ell
        else:
            break
    return best


def ref_entropy(counts: Counter) -> float:
    n = sum(counts.values())
    return -sum(v / n * math.log(v / n) for v in counts.values())


def lp_emd(p: list[float], q: list[float], dist: list[list[float]]) -> float:
    """min Σ d_ij f_ij  s.t.  Σ_j f_ij = p_i,  Σ_i f_ij = q_j,  f >= 0."""
    m = len(p)
    a_eq = []
    for i in range(m):
        row = np.zeros((m, m))
        row[i, :] = 1
        a_eq.append(row.ravel())
    for j in range(m):
        col = np.zeros((m, m))
        col[:, j] = 1
        a_eq.append(col.ravel())
    res = linprog(
        np.asarray(dist).ravel(), A_eq=np.array(a_eq), b_eq=np.r_[p, q], bounds=(0, None),
        method="highs",
    )  # fmt: skip
    assert res.status == 0
    return float(res.fun)


def ref_emds(groups: dict[tuple, Counter], domain: list, dist: list[list[float]]) -> dict:
    """QI tuple -> EMD of the group's distribution to the table's, over ``domain``."""
    table = sum(groups.values(), Counter())
    n = sum(table.values())
    q = [table[v] / n for v in domain]
    cache: dict[tuple, float] = {}
    out = {}
    for key, counts in groups.items():
        size = sum(counts.values())
        p = tuple(counts[v] / size for v in domain)
        if p not in cache:
            cache[p] = lp_emd(list(p), q, dist)
        out[key] = cache[p]
    return out


def offending(verdict: Any, quasi: list) -> dict[tuple, Any]:
    """QI tuple -> own value of every offending group of a verdict."""
    keys = verdict.offending[quasi].values.tolist()
    return dict(zip(map(tuple, keys), verdict.offending["value"].tolist(), strict=True))


# --------------------------------------------------------------------------- k and ℓ
@SETTINGS
@given(tables(), st.data())
def test_k_anonymity(table: tuple, data: Any) -> None:
    df, quasi = table
    groups = ref_groups(df, quasi)
    sizes = {key: sum(c.values()) for key, c in groups.items()}
    k = data.draw(st.integers(1, len(df)))
    v = k_anonymity(df, quasi, k)
    assert v.value == min(sizes.values()) and v.groups == len(groups)
    assert v.holds == (min(sizes.values()) >= k)
    assert offending(v, quasi) == {key: s for key, s in sizes.items() if s < k}
    assert k_anonymity(df, quasi, v.value).holds
    # the index does not matter, and prebuilt groups give the same answer
    reset = df.reset_index(drop=True)
    assert k_anonymity(reset, quasi, k).to_dict() == v.to_dict()
    assert k_anonymity(Groups.from_frame(df, quasi, "s"), None, k).to_dict() == v.to_dict()


@SETTINGS
@given(tables(), st.sampled_from([1, 1.5, 2, 2.5, 3, 4, 5]))
def test_frequency_l_diversity(table: tuple, ell: float) -> None:
    df, quasi = table
    groups = ref_groups(df, quasi)
    ell = min(ell, df["s"].nunique())
    own = {key: Fraction(sum(c.values()), max(c.values())) for key, c in groups.items()}
    v = l_diversity(df, quasi, "s", ell, form="frequency")
    assert math.isclose(v.value, float(min(own.values())), rel_tol=1e-12)
    bad = {key: float(x) for key, x in own.items() if 1 / x > 1 / Fraction(ell)}
    got = offending(v, quasi)
    assert got.keys() == bad.keys()
    assert all(math.isclose(got[key], bad[key], rel_tol=1e-12) for key in bad)
    assert v.holds == (not bad)


@SETTINGS
@given(tables(), st.integers(1, 5))
def test_distinct_l_diversity(table: tuple, ell: int) -> None:
    df, quasi = table
    groups = ref_groups(df, quasi)
    ell = min(ell, df["s"].nunique())
    own = {key: len(c) for key, c in groups.items()}
    v = l_diversity(df, quasi, "s", ell)
    assert v.value == min(own.values())
    assert offending(v, quasi) == {key: x for key, x in own.items() if x < ell}


@SETTINGS
@given(tables(), st.sampled_from([1, 1.3, 2, 2.5, 3, 4]))
def test_entropy_l_diversity(table: tuple, ell: float) -> None:
    df, quasi = table
    groups = ref_groups(df, quasi)
    ell = min(ell, df["s"].nunique())
    entropy = {key: ref_entropy(c) for key, c in groups.items()}
    v = l_diversity(df, quasi, "s", ell, form="entropy")
    assert math.isclose(v.value, math.exp(min(entropy.values())), rel_tol=1e-12)
    bad = {key for key, h in entropy.items() if h < math.log(ell) - 1e-12}
    assert offending(v, quasi).keys() == bad


@SETTINGS
@given(tables(), st.sampled_from([0.1, 0.5, 1, 1.5, 2, 3]), st.integers(1, 5))
def test_recursive_l_diversity(table: tuple, c: float, ell: int) -> None:
    df, quasi = table
    groups = ref_groups(df, quasi)
    m = df["s"].nunique()
    ell = min(ell, m)
    own = {key: ref_recursive_level(counts, c) for key, counts in groups.items()}
    v = l_diversity(df, quasi, "s", ell, form="recursive", c=c)
    # the achieved value is the largest ℓ for which the model holds in every group
    holds_for = [
        x for x in range(1, m + 1)
        if all(counts.most_common(1)[0][1] < Fraction(str(c)) * sum(
            sorted(counts.values(), reverse=True)[x - 1 :]) for counts in groups.values())
    ]  # fmt: skip
    assert v.value == max(holds_for, default=0) == min(own.values())
    assert offending(v, quasi) == {key: x for key, x in own.items() if x < ell}
    assert v.holds == (ell in holds_for)


# --------------------------------------------------------------------------- t-closeness
def check_emds(df: pd.DataFrame, quasi: list, expected: dict[tuple, float], **kwargs: Any) -> None:
    """With t = 0 every group of positive EMD offends, which exposes each group's value."""
    v = t_closeness(df, quasi, "s", t=0.0, **kwargs)
    assert math.isclose(v.value, max(expected.values()), abs_tol=1e-7)
    got = offending(v, quasi)
    for key, emd in expected.items():
        assert math.isclose(got.get(key, 0.0), emd, abs_tol=1e-7), (key, got.get(key), emd)
    assert v.offending["value"].is_monotonic_decreasing
    assert t_closeness(df, quasi, "s", t=v.value, **kwargs).holds
    if v.value > 0.01:
        assert not t_closeness(df, quasi, "s", t=v.value - 0.01, **kwargs).holds


@SETTINGS
@given(tables())
def test_t_closeness_equal(table: tuple) -> None:
    df, quasi = table
    groups = ref_groups(df, quasi)
    domain = sorted(set(df["s"]))
    dist = [[float(i != j) for j in range(len(domain))] for i in range(len(domain))]
    check_emds(df, quasi, ref_emds(groups, domain, dist))


@SETTINGS
@given(tables(numeric_sa=True))
def test_t_closeness_ordered_numeric(table: tuple) -> None:
    df, quasi = table
    groups = ref_groups(df, quasi)
    domain = sorted(set(df["s"]))
    m = len(domain)
    dist = [[abs(i - j) / max(m - 1, 1) for j in range(m)] for i in range(m)]
    check_emds(df, quasi, ref_emds(groups, domain, dist))  # numeric: ordered by default


@SETTINGS
@given(tables(), st.data())
def test_t_closeness_ordered_explicit(table: tuple, data: Any) -> None:
    df, quasi = table
    groups = ref_groups(df, quasi)
    extra = data.draw(st.lists(st.sampled_from(["u", "v", "w"]), unique=True))
    domain = data.draw(st.permutations(sorted(set(df["s"])) + extra))
    m = len(domain)
    dist = [[abs(i - j) / max(m - 1, 1) for j in range(m)] for i in range(m)]
    check_emds(df, quasi, ref_emds(groups, domain, dist), order=domain)


def test_t_closeness_ordered_is_never_below_zero():
    """One class holding the table's distribution (s0, s1, s2 once each): its EMD is 0, which
    the prefix sums had left at -5.6e-17, so that the value itself was refused as a t."""
    df = pd.DataFrame({"q0": [0.5, 0.5, 0.5], "s": ["s0", "s1", "s2"]})
    verdict = t_closeness(df, ["q0"], "s", t=0.0, order=["s0", "s1", "s2"])
    assert verdict.value == 0.0 and verdict.holds
    assert t_closeness(df, ["q0"], "s", t=verdict.value, order=["s0", "s1", "s2"]).holds


@st.composite
def trees(draw: Any, leaves: list[str]) -> list[list[str]]:
    """Root-to-leaf paths of a random tree, leaves at depths 1-3 (unbalanced in general)."""
    paths = []
    for leaf in leaves:
        branch = draw(st.lists(st.integers(0, 1), max_size=2))
        inner = ["n" + "".join(map(str, branch[: j + 1])) for j in range(len(branch))]
        paths.append(["root", *inner, leaf])
    return paths


def tree_distance(paths: list[list[str]]) -> list[list[float]]:
    """Height of the lowest common ancestor over the tree height, from the paths alone."""
    height = max(len(p) for p in paths) - 1
    out = []
    for a in paths:
        row = []
        for b in paths:
            common = 0
            while common < min(len(a), len(b)) and a[common] == b[common]:
                common += 1
            row.append(0.0 if a == b else (height - (common - 1)) / max(height, 1))
        out.append(row)
    return out


@SETTINGS
@given(tables(), st.data())
def test_t_closeness_hierarchical(table: tuple, data: Any) -> None:
    df, quasi = table
    groups = ref_groups(df, quasi)
    extra = data.draw(st.lists(st.sampled_from(["u", "v"]), unique=True))
    domain = sorted(set(df["s"])) + extra
    paths = data.draw(trees(domain))
    hierarchy = Hierarchy.from_paths(paths, name="s")
    check_emds(df, quasi, ref_emds(groups, domain, tree_distance(paths)), hierarchy=hierarchy)


@SETTINGS
@given(tables(numeric_sa=True), st.sampled_from([0.5, 1, 2, 3]))
def test_profile_agrees_with_each_check(table: tuple, c: float) -> None:
    df, quasi = table
    p = profile(df, quasi, "s", c=c)
    assert p["k"] == k_anonymity(df, quasi).value
    for form in ("frequency", "distinct", "entropy"):
        assert p[f"l_{form}"] == l_diversity(df, quasi, "s", form=form).value
    assert p["l_recursive"] == l_diversity(df, quasi, "s", form="recursive", c=c).value
    assert p["t_closeness"] == t_closeness(df, quasi, "s").value
    assert (p["rows"], p["classes"]) == (len(df), len(ref_groups(df, quasi)))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 7), st.integers(1, 4)), min_size=1,
             max_size=40),
    st.integers(0, 5),
)  # fmt: skip
def test_emd_ordered_is_the_sum_of_cdf_differences(rows, gaps) -> None:
    """emd_ordered (summed over each group's values) against the ordered EMD written from its
    definition, position by position: (1/(m-1)) Σ_i |Σ_{j<=i} (p_j - q_j)|, for sensitive
    values spread over a domain with ``gaps`` positions no record holds, and weighted rows."""
    from microanon.models.emd import emd_ordered

    frame = pd.DataFrame(rows, columns=["q", "s", "n"])
    groups = Groups.from_frame(frame, ["q"], "s", weights=frame["n"].to_numpy())
    width = max(groups.n_values + gaps, 2)  # (one value alone: a domain of two)
    position = np.sort(np.random.default_rng(gaps).choice(width, groups.n_values, replace=False))
    table = [Fraction(0)] * width
    per_group: dict[int, list[Fraction]] = {}
    total = sum(frame["n"])
    for g, v, c in zip(groups.pair_group, groups.pair_value, groups.pair_count, strict=True):
        per_group.setdefault(int(g), [Fraction(0)] * width)[position[v]] += Fraction(int(c))
        table[position[v]] += Fraction(int(c), total)
    got = emd_ordered(groups, position, width)
    for g, counts in per_group.items():
        size = sum(counts)
        running, distance = Fraction(0), Fraction(0)
        for i in range(width):
            running += counts[i] / size - table[i]
            distance += abs(running)
        assert math.isclose(got[g], float(distance / (width - 1)), abs_tol=1e-12)
