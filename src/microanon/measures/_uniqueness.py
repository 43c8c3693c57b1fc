"""The three estimators of population uniques from a sample's class sizes (private).

Every estimator takes the frequencies of the sample's equivalence-class sizes
(:class:`ClassSizes`) and the population size ``N``, and returns the estimated number of
population uniques, or NaN with the reason there is no valid estimate (:class:`Fit`). The
public entry point, with the sources and Dankar et al.'s choice between the three, is
:func:`microanon.measures.population_uniqueness`.

Notation: ``n`` sample records, ``u`` sample classes, ``s_j`` sample classes of size ``j``
(``s_1`` sample uniques), ``f = n / N`` the sampling fraction.

Pitman and Zayatz are ARX 3.9's mathematics. The SNB model departs from ARX's ``ModelSNB`` in
two places, both derived here from the model: ``E[s_2]`` divides by ``E^(α+2)`` (ARX multiplies,
while ARX's own Jacobian is that of the dividing form), and Shlosser's estimator has
``Σ (1−f)^j ((1+f)^j − 1) s_j`` in its denominator (ARX's code subtracts 1 outside the bracket,
once per distinct class size).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._newton import solve
from ._spans import digamma_span, trigamma_span

__all__: list[str] = []

_NO_ROOT = (
    "Newton-Raphson found no root of the {what} from any of its 17 starting points "
    "(1,000 steps each)"
)


class ClassSizes(NamedTuple):
    """Frequencies of equivalence-class sizes: ``counts[i]`` classes have ``sizes[i]`` records."""

    sizes: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, class_sizes: np.ndarray) -> ClassSizes:
        """Build from the size of every class."""
        sizes, counts = np.unique(np.asarray(class_sizes, dtype=np.int64), return_counts=True)
        return cls(sizes, counts.astype(np.int64))

    @property
    def records(self) -> int:
        """``n``: records in the sample."""
        return int(self.sizes @ self.counts)

    @property
    def classes(self) -> int:
        """``u``: classes in the sample."""
        return int(self.counts.sum())

    def of_size(self, size: int) -> int:
        """``s_size``: classes of exactly ``size`` records."""
        return int(self.counts[self.sizes == size].sum())


class Fit(NamedTuple):
    """An estimated number of population uniques, or NaN and why there is none."""

    uniques: float
    reason: str | None


def _checked(value: float, population: int) -> Fit:
    """A valid estimate lies in ``(0, N]``."""
    if math.isfinite(value) and 0.0 < value <= population:
        return Fit(float(value), None)
    return Fit(math.nan, f"the estimate {value:.6g} is outside (0, N] with N = {population:,}")


# ------------------------------------------------------------------------------------ Zayatz
def zayatz(h: ClassSizes, population: int) -> Fit:
    """Zayatz's estimate ``s_1 · P(F = 1 | f = 1) / f``.

    ``P(F = 1 | f = 1) = s_1 p_1 / Σ_j s_j p_j`` by Bayes' rule, with the population's
    class-size shares taken from the sample (``s_j / u``) and ``p_j = P(f = 1 | F = j)``
    hypergeometric: one of the ``j`` records of a class among the ``n`` drawn from ``N``. Only
    the ratios matter, ``p_j / p_1 = j Π_{i<j} (1 − (n−1)/(N−i))``, which are summed as
    logarithms with ``log1p`` (``logpmf`` of huge populations loses digits, ``pmf`` is slow).
    """
    n, s1, big_n = h.records, h.of_size(1), population
    i = np.arange(1, int(h.sizes.max()), dtype=float)
    with np.errstate(divide="ignore"):  # p_j = 0 once j > N − n + 1
        steps = np.log1p(-np.minimum((n - 1) / (big_n - i), 1.0))
    log_ratio = np.log(h.sizes) + np.concatenate(([0.0], np.cumsum(steps)))[h.sizes - 1]
    posterior = s1 / float(np.sum(h.counts * np.exp(log_ratio)))
    return _checked(s1 * posterior * big_n / n, population)


# ------------------------------------------------------------------------------------ Pitman
def pitman(h: ClassSizes, population: int) -> Fit:
    """Pitman's model: maximum-likelihood ``(θ, α)``, then ``Γ(θ + 1) / Γ(θ + α) · N^α``."""
    n, u = h.records, h.classes
    s1, s2 = np.float64(h.of_size(1)), h.of_size(2) or 1  # no class of size 2: ARX takes one
    with np.errstate(all="ignore"):  # a degenerate start is NaN, and the restarts take over
        c = s1 * (s1 - 1) / s2
        theta = (n * u * c - s1 * (n - 1) * (2 * u + c)) / (2 * s1 * u + s1 * c - n * c)
        alpha = (theta * (s1 - n) + (n - 1) * s1) / (n * u)
    root = solve(_pitman_system(h), (theta, alpha), lambda t, a: t >= 0)
    if root is None:
        return Fit(math.nan, _NO_ROOT.format(what="likelihood equations"))
    theta, alpha = root.x, root.y
    if alpha == 0:
        return Fit(math.nan, "the fitted alpha is 0")
    from scipy import special

    log_value = special.gammaln(theta + 1) - special.gammaln(theta + alpha)
    with np.errstate(over="ignore"):
        value = special.gammasgn(theta + alpha) * np.exp(log_value + alpha * math.log(population))
    return _checked(float(value), population)


def _pitman_system(h: ClassSizes):
    """Score equations of the Pitman sampling formula in ``(θ, α)`` and their Jacobian.

    ``∂L/∂θ = Σ_{i<u} 1/(θ+iα) − Σ_{i<n} 1/(θ+i)`` and
    ``∂L/∂α = Σ_{i<u} i/(θ+iα) − Σ_j s_j Σ_{k<j} 1/(k−α)``, every sum a span of
    :mod:`._spans` (with ``x = θ/α``, ``Σ_{i<u} 1/(θ+iα) = Σ_{i=1}^{u−1} 1/(x+i) / α``).
    """
    n, u = h.records, h.classes
    big = h.sizes > 1
    lengths, counts = (h.sizes[big] - 1).astype(float), h.counts[big].astype(float)

    def system(theta: np.ndarray, alpha: np.ndarray) -> tuple[np.ndarray, ...]:
        x = theta / alpha
        s_1 = digamma_span(x + 1, u - 1) / alpha  # Σ 1/(θ+iα)
        s_2 = trigamma_span(x + 1, u - 1) / alpha**2  # Σ 1/(θ+iα)²
        p_1 = digamma_span(theta + 1, n - 1)  # Σ 1/(θ+i)
        p_2 = trigamma_span(theta + 1, n - 1)
        one = (1 - alpha)[:, None]
        r_1 = (counts * digamma_span(one, lengths)).sum(axis=1)  # Σ_j s_j Σ_k 1/(k−α)
        r_2 = (counts * trigamma_span(one, lengths)).sum(axis=1)
        weighted_1 = ((u - 1) - theta * s_1) / alpha  # Σ i/(θ+iα)
        weighted_2 = (s_1 - theta * s_2) / alpha  # Σ i/(θ+iα)²
        squared_2 = ((u - 1) - 2 * theta * s_1 + theta**2 * s_2) / alpha**2  # Σ i²/(θ+iα)²
        return (
            s_1 - p_1,
            weighted_1 - r_1,
            p_2 - s_2,
            -weighted_2,
            -weighted_2,
            -squared_2 - r_2,
        )

    return system


# --------------------------------------------------------------------------------------- SNB
def snb(h: ClassSizes, population: int) -> Fit:
    """The slide negative binomial model: ``K · β^α`` from the moment equations for ``s_1, s_2``.

    ``K``, the number of non-empty population classes, is Shlosser's estimator in the form of
    Haas et al. (:func:`shlosser_classes`); ``(α, β)`` solve ``E[s_1] = s_1`` and
    ``E[s_2] = s_2`` (:func:`_snb_system`) from ARX's starting point ``(1, 1)``.
    """
    f = h.records / population
    k = shlosser_classes(h, f)
    if not (math.isfinite(k) and k > 0):
        return Fit(math.nan, f"the estimated number of population classes is {k:.6g}")
    root = solve(_snb_system(k, f, h.of_size(1), h.of_size(2)), (1.0, 1.0), None)
    if root is None:
        return Fit(math.nan, _NO_ROOT.format(what="moment equations"))
    return _checked(k * root.y**root.x, population)


def shlosser_classes(h: ClassSizes, f: float) -> float:
    """Non-empty population classes ``K``: Shlosser's estimator as modified by Haas et al.

    ``K = u + s_1 · [Σ j f² (1−f²)^(j−1) s_j / Σ (1−f)^j ((1+f)^j − 1) s_j]
    · [Σ (1−f)^j s_j / Σ j f (1−f)^(j−1) s_j]²``.
    """
    j, s = h.sizes.astype(float), h.counts.astype(float)
    with np.errstate(all="ignore"):
        keep = (1 - f) ** j * s
        ratio = np.sum(j * f**2 * (1 - f**2) ** (j - 1) * s) / np.sum(keep * ((1 + f) ** j - 1))
        scale = np.sum(keep) / np.sum(j * f * (1 - f) ** (j - 1) * s)
        return float(h.classes + h.of_size(1) * ratio * scale**2)


def _snb_system(k: float, f: float, s1: int, s2: int):
    """``E[s_1] − s_1`` and ``E[s_2] − s_2`` under the SNB model, and their Jacobian in ``(α, β)``.

    A population class has ``1 + X`` records, ``X`` negative binomial with parameters ``(α, β)``
    (probability generating function ``(β / (1 − (1−β) z))^α``), and each record is sampled with
    probability ``f``. With ``D = (1−f)(1−β)`` and ``E = 1 − D``:
    ``E[s_1] = K f (β/E)^α (1 + αD/E)`` and
    ``E[s_2] = K f² α (1−β) β^α (2 − (1−α) D) / (2 E^(α+2))``.
    """

    def system(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
        d = (1 - f) * (1 - b)
        e = 1 - d
        r = b / e
        m1 = k * f * r**a * (1 + a * d / e)
        # d/dα and d/dβ of E[s_1]; dr/dβ = f/E², d(D/E)/dβ = −(1−f)/E².
        m1_a = k * f * r**a * (np.log(r) * (1 + a * d / e) + d / e)
        m1_b = k * f * a * r ** (a - 1) / e**2 * (f * (1 + a * d / e) - (1 - f) * r)
        shape = 2 - (1 - a) * d
        q = b**a * shape / e ** (a + 2)
        m2 = k * f**2 / 2 * a * (1 - b) * q
        p = b**a / e ** (a + 2)  # q = p · shape
        m2_a = k * f**2 / 2 * (1 - b) * p * (shape + a * d + a * shape * (np.log(b) - np.log(e)))
        q_b = q * (a / b - (a + 2) * (1 - f) / e) + p * (1 - a) * (1 - f)
        m2_b = k * f**2 / 2 * a * ((1 - b) * q_b - q)
        return m1 - s1, m2 - s2, m1_a, m1_b, m2_a, m2_b

    return system
