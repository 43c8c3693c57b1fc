"""The distribution attack and the feasibility conditions of GTR.

Eqs. 1–3, Definition 1, Theorem 1 and Corollary 1 of Zhang & Zhang, *Generalization-Based
Privacy-Preserving Data Collection*, DaWaK 2008.

For a respondent ``o`` and the collected multiset ``G``:

* the anonymous group ``G_o = {t ∈ G : t[QI] ⪰ o[QI]}``;
* ``φ_QI(o, t) = Π_A l(o[A], t[A]) / l(t[A])`` and ``φ_SA(a, v) = l(a, v) / l(v)``;
* ``f̂ = Σ_{t∈G_o} φ_QI(o, t)``, ``f̂_a = Σ_{t∈G_o} φ_QI(o, t) φ_SA(a, t[SA])`` and
  ``Pr[a | o[QI], G] = f̂_a / f̂`` (eqs. 1–3);
* ``Pv(o, G) = 1 − max_a Pr[a | o[QI], G]``, and ``Pv = 1`` when ``G_o`` is empty (our
  convention: there is nothing to estimate from);
* the margins ``M_a = (1 − τ) f̂ − f̂_a``, the coefficients ``c_a = φ_SA(a, v) − (1 − τ)`` and
  Theorem 1: ``t ⪰ o`` protects ``o`` (``Pv(o, G ∪ {t}) ≥ τ``) iff ``φ_QI(o, t) · c_a ≤ M_a`` for
  every base sensitive value ``a``; the bounds ``m1 ≤ φ ≤ m2`` of the bound table and Corollary 1.

Every function computes in float64 by default and exactly (``exact=True``: :class:`Fraction`
values, object arrays) on request. Per-value arrays follow :attr:`Survey.sa_values`. ``collected``
is a :class:`CollectedSet` or any iterable of tuples (labels); tuples are given by labels.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ...core.errors import InputError
from .compress import CollectedSet
from .taxonomy import Survey

__all__ = [
    "AttackEstimate",
    "anonymous_group",
    "as_collected",
    "as_tau",
    "attack",
    "can_protect",
    "margins",
    "phi_bounds",
    "phi_qi",
    "phi_sa",
    "protects",
    "pv",
    "sa_coefficients",
]

Tuple = Sequence[Any] | Mapping[str, Any]

#: Unit roundoff of float64.
UNIT = 2.0**-53


def as_tau(tau: Any) -> Fraction:
    """The privacy threshold as an exact fraction in (0, 1].

    A float is read as the decimal it prints as (``0.7`` is 7/10, not the binary double nearest
    to it); ints, :class:`Fraction` and :class:`Decimal` are exact.
    """
    if isinstance(tau, bool) or not isinstance(tau, (numbers.Real, Decimal)):
        raise InputError(f"tau must be a number in (0, 1], got {tau!r}")
    if isinstance(tau, (float, np.floating)):
        if not math.isfinite(tau):
            raise InputError(f"tau must be a number in (0, 1], got {tau!r}")
        value = Fraction(repr(float(tau)))
    else:
        value = Fraction(tau)
    if not 0 < value <= 1:
        raise InputError(f"tau must be in (0, 1], got {tau!r}")
    return value


def as_collected(collected: CollectedSet | Iterable[Tuple], survey: Survey) -> CollectedSet:
    """``collected`` as a :class:`CollectedSet` of ``survey`` (tuples are given by labels)."""
    if isinstance(collected, CollectedSet):
        if collected.survey is not survey and collected.survey != survey:
            raise InputError("the collected set belongs to another survey")
        return collected
    if isinstance(collected, (str, bytes, Mapping)):
        raise InputError(
            f"collected must be a CollectedSet or a list of tuples, got {type(collected).__name__}"
        )
    return CollectedSet.from_tuples(survey, collected)


# ---------------------------------------------------------------------- sums over G_o
class RespondentSums:
    """``f̂`` and ``f̂_a`` of one respondent over a collected set, in float64 and (lazily) exactly.

    Parameters
    ----------
    survey : Survey
    collected : CollectedSet
    o : ndarray
        The respondent's codes (leaves).

    Attributes
    ----------
    total : float
        ``f̂_{o[QI]}``.
    joint : ndarray
        ``f̂_{o[QI],a}`` per base sensitive value.
    error : float
        A bound on the absolute rounding error of ``total``, ``joint`` and of the margins
        ``(1 − τ) total − joint``: ``4 (n + 2m + S + B + 16) u · total`` for ``n`` pairs,
        ``m`` quasi-identifiers, ``S`` sensitive nodes, ``B`` base sensitive values and unit
        roundoff ``u`` — at least twice the worst case of the summations performed.
    """

    def __init__(self, survey: Survey, collected: CollectedSet, o: np.ndarray) -> None:
        self.survey, self.collected, self.o = survey, collected, o
        cols = collected.columns
        counts = collected.counts
        phi = counts.astype(float)
        for j, tx in enumerate(survey.quasi_taxonomies):
            # w(o_A) / l(v) on o_A's ancestors, 0 elsewhere: the product is φ_QI on G_o, 0 off it.
            fac = np.zeros(tx.n_nodes)
            chain = tx.chain(int(o[j]))
            fac[chain] = tx.leaf_weight[tx.leaf_position(int(o[j]))] / tx.weight[chain]
            phi *= fac[cols[j]]
        sa = survey.sa
        self.by_node = np.bincount(cols[-1], weights=phi, minlength=sa.n_nodes)
        self.total = float(self.by_node.sum())
        self.joint = self.by_node @ survey.sa_share
        n, m = len(counts), len(survey.quasi)
        self.error = 4 * (n + 2 * m + sa.n_nodes + sa.n_leaves + 16) * UNIT * self.total
        self._exact: tuple[Fraction, list[Fraction]] | None = None

    def group_mask(self) -> np.ndarray:
        """Which pairs of the collected set are in ``G_o`` (exact cover tests)."""
        cols = self.collected.columns
        mask = np.ones(cols.shape[1], dtype=bool)
        for j, tx in enumerate(self.survey.quasi_taxonomies):
            anc = np.zeros(tx.n_nodes, dtype=bool)
            anc[tx.chain(int(self.o[j]))] = True
            mask &= anc[cols[j]]
        return mask

    def exact(self) -> tuple[Fraction, list[Fraction]]:
        """``(f̂, [f̂_a])`` in exact rational arithmetic (computed once).

        Pairs of ``G_o`` are grouped by the exact masses of their values and their sensitive
        value, so the rational work is per group, not per pair.
        """
        if self._exact is not None:
            return self._exact
        survey = self.survey
        mask = self.group_mask()
        cols = self.collected.columns[:, mask]
        counts = self.collected.counts[mask]
        qtx = survey.quasi_taxonomies
        key = np.vstack([tx.weight_class[cols[j]] for j, tx in enumerate(qtx)] + [cols[-1]])
        groups, inverse = np.unique(key, axis=1, return_inverse=True)
        sums = np.zeros(groups.shape[1], dtype=np.int64)
        np.add.at(sums, inverse.ravel(), counts)
        k = Fraction(1)
        for j, tx in enumerate(qtx):
            k *= tx.leaf_weight_exact[tx.leaf_position(int(self.o[j]))]
        by_node: dict[int, Fraction] = {}
        for g in range(groups.shape[1]):
            d = Fraction(1)
            for j, tx in enumerate(qtx):
                d *= tx.class_weight_exact[int(groups[j, g])]
            s = int(groups[-1, g])
            by_node[s] = by_node.get(s, Fraction(0)) + Fraction(int(sums[g])) * k / d
        share = survey.sa_share_exact
        total = sum(by_node.values(), Fraction(0))
        joint = [Fraction(0)] * survey.sa.n_leaves
        for s, f in by_node.items():
            for a, x in enumerate(share[s]):
                if x:
                    joint[a] += f * x
        self._exact = (total, joint)
        return self._exact


def _sums(o: Tuple, collected: Any, survey: Survey) -> RespondentSums:
    _check_survey(survey)
    o_codes = survey.encode_base(o)
    return RespondentSums(survey, as_collected(collected, survey), o_codes)


def _check_survey(survey: Any) -> None:
    if not isinstance(survey, Survey):
        raise InputError(f"survey must be a Survey, got {type(survey).__name__}")


# ---------------------------------------------------------------------- public functions
def anonymous_group(
    o: Tuple, collected: CollectedSet | Iterable[Tuple], survey: Survey
) -> np.ndarray:
    """``G_o``: a boolean mask over the pairs of the collected set (``t[QI] ⪰ o[QI]``)."""
    return _sums(o, collected, survey).group_mask()


def phi_qi(o: Tuple, t: Tuple, survey: Survey, *, exact: bool = False) -> float | Fraction:
    """``φ_QI(o, t) = Π_A l(o[A], t[A]) / l(t[A])`` (eq. 2); 0 if ``t[QI]`` does not cover ``o``."""
    _check_survey(survey)
    oc, tc = survey.encode_base(o), survey.encode(t)
    out = Fraction(1)
    for j, tx in enumerate(survey.quasi_taxonomies):
        out *= tx.pair_weight_exact(int(oc[j]), int(tc[j])) / tx.weight_exact[int(tc[j])]
    return out if exact else float(out)


def phi_sa(a: Any, v: Any, survey: Survey, *, exact: bool = False) -> float | Fraction:
    """``φ_SA(a, v) = l(a, v) / l(v)``: the share of the base sensitive value ``a`` inside ``v``."""
    _check_survey(survey)
    sa = survey.sa
    a_code, v_code = sa.base_code(a), sa.code(v)
    out = survey.sa_share_exact[v_code][sa.leaf_position(a_code)]
    return out if exact else float(out)


@dataclass(frozen=True)
class AttackEstimate:
    """What the distribution attack estimates for a respondent's quasi-identifier cell.

    Attributes
    ----------
    size : int
        ``|G_o|``, counted with multiplicity.
    f_qi : float or Fraction
        ``f̂_{o[QI]}``.
    f_joint : ndarray
        ``f̂_{o[QI],a}`` per base sensitive value (object array of Fractions when exact).
    probabilities : ndarray
        ``Pr[a | o[QI], G]`` per base sensitive value (NaN, or None when exact, if ``G_o`` is
        empty).
    pv : float or Fraction
        ``Pv(o, G)``; 1 when ``G_o`` is empty.
    sa_values : list
        The base sensitive values, in the order of the arrays.
    """

    size: int
    f_qi: float | Fraction
    f_joint: np.ndarray
    probabilities: np.ndarray
    pv: float | Fraction
    sa_values: list[Any]


def attack(
    o: Tuple, collected: CollectedSet | Iterable[Tuple], survey: Survey, *, exact: bool = False
) -> AttackEstimate:
    """Run the distribution attack (eqs. 1–3) against respondent ``o``."""
    sums = _sums(o, collected, survey)
    size = int(sums.collected.counts[sums.group_mask()].sum())
    if exact:
        total, joint_list = sums.exact()
        joint = np.array(joint_list, dtype=object)
        if size == 0:
            probs = np.array([None] * len(joint_list), dtype=object)
            value: float | Fraction = Fraction(1)
        else:
            probs = np.array([x / total for x in joint_list], dtype=object)
            value = 1 - max(probs)
        return AttackEstimate(size, total, joint, probs, value, survey.sa_values)
    if size == 0:
        probs_f = np.full(survey.sa.n_leaves, np.nan)
        return AttackEstimate(0, 0.0, sums.joint, probs_f, 1.0, survey.sa_values)
    probs_f = sums.joint / sums.total
    return AttackEstimate(
        size, sums.total, sums.joint, probs_f, float(1 - probs_f.max()), survey.sa_values
    )


def pv(
    o: Tuple, collected: CollectedSet | Iterable[Tuple], survey: Survey, *, exact: bool = False
) -> float | Fraction:
    """``Pv(o, G) = 1 − max_a Pr[a | o[QI], G]`` (1 when ``G_o`` is empty)."""
    return attack(o, collected, survey, exact=exact).pv


def margins(
    o: Tuple,
    collected: CollectedSet | Iterable[Tuple],
    survey: Survey,
    tau: Any,
    *,
    exact: bool = False,
) -> np.ndarray:
    """``M_a = (1 − τ) f̂ − f̂_a`` for every base sensitive value ``a`` (Theorem 1)."""
    tau = as_tau(tau)
    sums = _sums(o, collected, survey)
    if exact:
        total, joint = sums.exact()
        return np.array([(1 - tau) * total - x for x in joint], dtype=object)
    return float(1 - tau) * sums.total - sums.joint


def sa_coefficients(v: Any, survey: Survey, tau: Any, *, exact: bool = False) -> np.ndarray:
    """``c_a = φ_SA(a, v) − (1 − τ)`` for every base sensitive value ``a`` (Theorem 1)."""
    tau = as_tau(tau)
    _check_survey(survey)
    row = survey.sa_share_exact[survey.sa.code(v)]
    out = [x - (1 - tau) for x in row]
    if exact:
        return np.array(out, dtype=object)
    return np.array([float(x) for x in out])


def phi_bounds(m: Sequence[Any] | np.ndarray, c: Sequence[Any] | np.ndarray) -> tuple[Any, Any]:
    """The bounds ``(m1, m2)`` on ``φ_QI`` from the margins ``M_a`` and coefficients ``c_a``.

    The paper splits the values by the signs of ``M_a`` and ``c_a`` into subsets with bounds of
    their own; as we work it out from Theorem 1: ``c_a > 0`` gives ``φ ≤ M_a / c_a`` (infeasible
    when ``M_a ≤ 0``), ``c_a < 0`` with ``M_a < 0`` gives ``φ ≥ M_a / c_a``, ``c_a = 0`` with
    ``M_a < 0`` is infeasible; ``m1 = max(0, lower bounds)``, ``m2 = min(1, upper bounds)``. An
    infeasible value makes ``m2 = 0``. Works on floats and on Fractions (then exactly).
    """
    m, c = list(m), list(c)
    if len(m) != len(c):
        raise InputError(f"margins and coefficients differ in length ({len(m)} and {len(c)})")
    lo: Any = 0
    hi: Any = 1
    for ma, ca in zip(m, c, strict=True):
        if ca > 0:
            hi = min(hi, ma / ca) if ma > 0 else 0
        elif ca < 0:
            if ma < 0:
                lo = max(lo, ma / ca)
        elif ma < 0:
            hi = 0
        if hi == 0:
            break
    return lo, max(hi, 0)


def can_protect(m1: Any, m2: Any) -> bool:
    """Corollary 1: some ``φ`` in ``(0, 1]`` satisfies the bounds, ``(m1 = 0 < m2)`` or
    ``(0 < m1 ≤ m2)``."""
    return bool((m1 == 0 and 0 < m2) or (0 < m1 <= m2))


def protects(
    o: Tuple, t: Tuple, collected: CollectedSet | Iterable[Tuple], survey: Survey, tau: Any
) -> bool:
    """Definition 1, exactly: whether ``Pv(o, G ∪ {t}) ≥ τ`` (``t`` must generalize ``o``).

    Raises
    ------
    InputError
        If ``t`` does not generalize ``o`` (naming the attribute), or on bad input.
    """
    tau = as_tau(tau)
    sums = _sums(o, collected, survey)
    tc = survey.encode(t, "generalized tuple")
    survey.check_generalizes(tc, sums.o)
    total, joint = sums.exact()
    phi = phi_qi(o, t, survey, exact=True)
    share = survey.sa_share_exact[int(tc[-1])]
    total = total + phi
    worst = max(x + phi * s for x, s in zip(joint, share, strict=True))
    return worst <= (1 - tau) * total
