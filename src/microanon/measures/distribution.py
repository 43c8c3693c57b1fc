"""Utility of a release measured on an estimated joint distribution.

The measures are those of the experiments of Guo, Ying & Wu, *Limiting Attribute Disclosure in
Randomization Based Microdata Release* (Journal of Computing Science and Engineering
5(3):169–182, 2011; Figs. 3–7, Tables 4–5).

Every measure compares the true distribution ``P = π`` of some quasi-identifiers and the
sensitive attribute (:func:`~microanon.measures.estimators.true_joint`) with an estimate
``Q = π̂`` over the same dense array (axes in column order, the sensitive attribute last):

- :func:`chi_square`, :func:`squared_euclidean` and
  :func:`~microanon.measures.estimators.kl_divergence` — distances between ``P`` and ``Q``;
- :func:`query_errors` — relative error of ``COUNT(*)`` queries, on the base group-by or on
  every group-by of the CUBE;
- :func:`uncertainty_coefficients` — Theil's uncertainty coefficient ``U(B | A)`` of every
  ordered pair of attributes of one joint distribution;
- :func:`estimate_distribution` — ``Q`` from any supported release (generalized, anatomized,
  randomized);
- :func:`utility_report` — all of the above in one call.

Raw estimates and distributions. A randomized-response reconstruction ``π̂ = P⁻¹λ̂`` is unbiased
and sums to 1 but may hold negative cells. The squared Euclidean distance, χ² (with the original
in the denominator) and the query errors use it as it is; measures that need a distribution
(KL, χ² with the estimate in the denominator, the uncertainty coefficients) *clip-renormalize*
it first: negative cells become 0 and the array is divided by its sum (our choice: the paper
does not say how negative estimates enter these measures).
Estimates of generalized and anatomized releases are distributions already.
"""

from __future__ import annotations

import itertools
import math
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.hierarchy import value_key
from ..core.keys import number_text_key, written_positions
from ..core.missing import is_missing_answer
from ..core.release import Release
from ..core.table import Table
from .estimators import (
    KL_FLOOR,
    _check_joint_columns,
    _joint_shape,
    estimate_joint,
    kl_divergence,
    true_joint,
)
from .factored import Factors

__all__ = [
    "QueryErrors",
    "chi_square",
    "estimate_distribution",
    "query_errors",
    "squared_euclidean",
    "uncertainty_coefficients",
    "utility_report",
]

#: Largest departure from 1 accepted for the sum of a true distribution ``P``.
SUM_TOLERANCE = 1e-6
#: Entropy (nats) below which an attribute counts as constant in :func:`uncertainty_coefficients`
#: (a one-value marginal that sums to 1 - 1 ulp has entropy ~1e-16, not 0).
ENTROPY_TOLERANCE = 1e-12


# ---------------------------------------------------------------------------------- validation
def _as_array(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0 or arr.size == 0:
        raise InputError(f"{name} must be a non-empty array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} must hold finite numbers")
    return arr


def _check_truth(p: Any) -> np.ndarray:
    p = _as_array(p, "P")
    if np.any(p < 0) or abs(p.sum() - 1.0) > SUM_TOLERANCE:
        raise InputError(
            f"P must be a distribution: non-negative and summing to 1 (sum {p.sum():.6g}); "
            "divide counts by the number of records"
        )
    return p


def _check_pair(p: Any, q: Any) -> tuple[np.ndarray, np.ndarray]:
    p = _check_truth(p)
    q = _as_array(q, "Q")
    if p.shape != q.shape:
        raise InputError(f"P and Q must have one shape, got {p.shape} and {q.shape}")
    return p, q


def _clip_renorm(q: np.ndarray) -> np.ndarray:
    """Negative cells set to 0, then divided by the sum (see the module docstring)."""
    q = np.clip(q, 0.0, None)
    total = q.sum()
    if total <= 0:
        raise InputError("the estimate has no positive cell")
    return q / total


# ---------------------------------------------------------------------------------- distances
def chi_square(p: Any, q: Any, denominator: str = "original") -> float:
    """χ² distance between the true distribution ``P`` and an estimate ``Q``.

    As in Guo, Ying & Wu (2011), Figs. 3 and 5.

    - ``denominator="original"`` (default): ``Σ_{i: p_i > 0} (p_i − q_i)² / p_i``, on ``Q`` as
      given (a raw reconstruction may hold negative cells). Cells with ``p_i = 0`` are skipped,
      so mass an estimate puts on empty cells is not charged; the original in the denominator
      never divides by a non-positive estimate (our choice: we could not establish which
      denominator Guo, Ying & Wu use).
    - ``denominator="estimate"``: ``Σ_i (p_i − q_i)² / q_i`` over all cells, with ``Q``
      clip-renormalized and floored at 1e-12 as in
      :func:`~microanon.measures.estimators.kl_divergence`; a cell with ``p_i > 0`` that the
      estimate leaves (near) empty contributes about ``p_i² · 10¹²``.

    Parameters
    ----------
    p : array_like
        True distribution (non-negative, summing to 1).
    q : array_like
        Estimate with the shape of ``p``.
    denominator : {"original", "estimate"}

    Returns
    -------
    float
        ``>= 0``; 0 when ``Q = P``.

    Raises
    ------
    InputError
        Different shapes, non-finite values, ``P`` not a distribution, an unknown
        ``denominator``, or (``"estimate"``) no positive cell in ``Q``.

    Examples
    --------
    >>> chi_square([0.5, 0.5, 0.0], [0.25, 0.75, 0.1])  # 0.25²/0.5 + 0.25²/0.5
    0.25
    """
    p, q = _check_pair(p, q)
    if denominator == "original":
        nz = p > 0
        return float(np.sum((p[nz] - q[nz]) ** 2 / p[nz]))
    if denominator == "estimate":
        q = np.maximum(_clip_renorm(q), KL_FLOOR)
        return float(np.sum((p - q) ** 2 / q))
    raise InputError(f"denominator must be 'original' or 'estimate', got {denominator!r}")


def squared_euclidean(p: Any, q: Any) -> float:
    """Squared Euclidean distance ``‖Q − P‖² = Σ_i (q_i − p_i)²`` (Guo, Ying & Wu 2011, Lemma 3).

    The quantity whose expectation the optimal randomization parameters minimize
    (``E‖π̂ − π‖² = trace Σ``), so ``Q`` is used as given: pass the raw unbiased reconstruction,
    not a clipped one.

    Raises
    ------
    InputError
        Different shapes, non-finite values or ``P`` not a distribution.

    Examples
    --------
    >>> squared_euclidean([0.5, 0.5], [0.75, 0.25])  # 0.25² + 0.25²
    0.125
    """
    p, q = _check_pair(p, q)
    return float(np.sum((q - p) ** 2))


# ---------------------------------------------------------------------------------- queries
@dataclass(frozen=True)
class QueryErrors:
    """Result of :func:`query_errors`.

    Attributes
    ----------
    mean : float
        Relative error ``|act − est| / act`` averaged over every answered query (every cell with
        ``act > 0`` of every group-by, pooled).
    per_group_by : dict of tuple of int to float
        Mean relative error of each group-by, keyed by the axes it groups by (``()`` is the
        grand total; the base group-by is all axes).
    queries : dict of tuple of int to int
        Number of answered queries (cells with ``act > 0``) of each group-by.
    mean_absolute : float
        ``|act − est|`` in records, averaged like ``mean``.
    """

    mean: float
    per_group_by: dict[tuple[int, ...], float]
    queries: dict[tuple[int, ...], int]
    mean_absolute: float

    def __float__(self) -> float:
        return self.mean

    @property
    def mean_over_group_bys(self) -> float:
        """Unweighted mean of the per-group-by means (each group-by counts once)."""
        return float(np.mean(list(self.per_group_by.values())))


#: Most pairs of answered and published cells a group-by's estimates are summed from (bounds the
#: temporary memory of :func:`query_errors` with factors, about 40 bytes a pair).
_MAX_PAIRS = 5_000_000
#: How many times the cells of ``λ`` and the answered cells a marginal of ``q`` must hold before
#: the pairs are counted at all: grouping and sorting a cell costs about as much as summing a
#: hundred cells of ``q``.
_PAIRING = 100
#: Cells of ``q`` summed in the time of one of :attr:`~microanon.measures.factored._Pairs.work`'s
#: steps (a gather and a product per pair and matrix).
_PAIR_STEP = 8


def _summed(done: dict[tuple[int, ...], np.ndarray], keep: tuple[int, ...]) -> np.ndarray:
    """The marginal ``keep`` of the array ``done`` holds whole (its key: every axis), summed from
    the smallest marginal of ``done`` (in cells) that contains it, and added to ``done``: visited
    from the largest, group-bys cost about the size of the marginals, not ``2^k`` passes over
    the array."""
    parent = _parent(done, keep)
    marginal = done[parent]
    for i in sorted((i for i, a in enumerate(parent) if a not in keep), reverse=True):
        marginal = _sum_axis(marginal, i)
    done[keep] = marginal
    return marginal


def _parent(done: dict[tuple[int, ...], np.ndarray], keep: tuple[int, ...]) -> tuple[int, ...]:
    """The smallest marginal of ``done`` (in cells) that contains ``keep``."""
    return min((k for k in done if set(keep) <= set(k)), key=lambda k: done[k].size)


def _marginal(arr: np.ndarray, keep: tuple[int, ...]) -> np.ndarray:
    """``arr`` summed over every axis but ``keep`` (in that order), in one pass: by einsum,
    about twice as fast as ``sum`` over many axes of a large array (``sum`` beyond 52 axes)."""
    if arr.ndim > len(_AXES):
        return arr.sum(axis=tuple(a for a in range(arr.ndim) if a not in keep))
    return np.einsum(f"{_AXES[: arr.ndim]}->{''.join(_AXES[a] for a in keep)}", arr)


#: einsum's names of axes.
_AXES = string.ascii_letters


def _sum_axis(arr: np.ndarray, axis: int) -> np.ndarray:
    """``arr`` summed over one axis: as ``(before, d, after)``, by einsum, several times faster
    than ``sum`` over a middle or last axis of a large array."""
    shape = arr.shape[:axis] + arr.shape[axis + 1 :]
    flat = np.ascontiguousarray(arr).reshape(math.prod(arr.shape[:axis]), arr.shape[axis], -1)
    return np.einsum("bda->ba", flat).reshape(shape)


def query_errors(
    p: Any,
    q: Any,
    n: int,
    cube: bool = False,
    *,
    include_sensitive: str = "any",
    factors: Factors | None = None,
) -> QueryErrors:
    """Relative error of count queries answered from an estimate (Guo, Ying & Wu 2011, Fig. 6).

    ``SELECT <group-by>, COUNT(*) ... GROUP BY <group-by>``: the actual answer of a cell is
    ``act = n · P(cell)`` and the estimate ``est = n · Q(cell)``, both from marginals (sums over
    the other axes: P's from its non-empty cells, Q's from the dense array). The relative error
    ``|act − est| / act`` is averaged over the cells with ``act > 0`` (our choice: empty cells
    have no relative error); ``n`` cancels in it and only scales
    :attr:`QueryErrors.mean_absolute`.

    - base (``cube=False``): the group-by of all axes (``A1..Am, S``), i.e. every cell;
    - CUBE (``cube=True``): ``GROUP BY CUBE(A1..Am, S)``, every subset of the axes — ``2^(m+1)``
      group-bys including the grand total (the paper does not say whether every group-by
      contains the sensitive attribute; default ``include_sensitive="any"``); with
      ``include_sensitive="always"`` only the ``2^m`` group-bys that contain the sensitive
      attribute (the last axis). The mean pools all cells of all group-bys; per-group-by means are
      reported too.

    Parameters
    ----------
    p : array_like
        True distribution (non-negative, summing to 1), sensitive attribute on the last axis.
    q : array_like
        Estimate with the shape of ``p``; a raw reconstruction (negative cells allowed) gives the
        errors of the unbiased ``est = N · π̂``.
    n : int
        Number of records of the original table (``> 0``).
    cube : bool, default False
    include_sensitive : {"any", "always"}, default "any"
        Which CUBE group-bys to answer (ignored for the base group-by).
    factors : Factors, optional
        ``q`` as the factors of a reconstruction (:class:`~microanon.measures.factored.Factors`):
        a group-by's estimates are then summed from the published cells that reach its
        answered cells wherever that is less work than ``q``'s marginal (the same numbers to
        rounding; ``q`` is read for the other group-bys).

    Returns
    -------
    QueryErrors

    Raises
    ------
    InputError
        Different shapes, non-finite values, ``P`` not a distribution, ``n`` not a positive
        integer, or an unknown ``include_sensitive``.

    Examples
    --------
    >>> errors = query_errors([[0.5, 0.0], [0.25, 0.25]], [[0.25, 0.25], [0.25, 0.25]], 4)
    >>> errors.mean  # cells with act > 0: |2 - 1|/2, 0, 0
    0.16666666666666666
    """
    p, q = _check_pair(p, q)
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n <= 0:
        raise InputError(f"n must be a positive integer (the number of records), got {n!r}")
    if include_sensitive not in ("any", "always"):
        raise InputError(f"include_sensitive must be 'any' or 'always', got {include_sensitive!r}")
    axes = tuple(range(p.ndim))
    if not cube:
        group_bys = [axes]
    else:
        last = p.ndim - 1
        group_bys = [
            keep
            for size in range(p.ndim, -1, -1)
            for keep in itertools.combinations(axes, size)
            if include_sensitive == "any" or last in keep
        ]
    # P's non-empty cells (few, in a big joint): each group-by's answered cells are theirs
    held = np.flatnonzero(p.reshape(-1) > 0)
    coords, mass = np.unravel_index(held, p.shape), p.reshape(-1)[held]
    answers: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    dense: dict[tuple[int, ...], np.ndarray] = {axes: q}  # q's marginals summed so far
    for keep in sorted(group_bys, key=len, reverse=True):
        dims = [p.shape[a] for a in keep]
        cell = np.zeros_like(held)  # (the grand total: one cell)
        if keep:
            cell = np.ravel_multi_index([coords[a] for a in keep], dims)
        answered, which = np.unique(cell, return_inverse=True)
        est = None
        parent = dense[_parent(dense, keep)].size  # the work of summing q's marginal
        if factors is not None and parent > _PAIRING * (len(factors.mass) + len(answered)):
            # from λ's cells, when that is less work than summing q (pairing them is work too)
            pairs = factors.pairs(keep, np.unravel_index(answered, dims) if keep else ())
            if pairs.size <= _MAX_PAIRS and _PAIR_STEP * pairs.work <= parent:
                est = pairs.values()
        if est is None:
            marginal = dense[keep] if keep in dense else _summed(dense, keep)
            est = np.ravel(marginal)[answered]
        answers[keep] = answered, which.reshape(-1), est
    per: dict[tuple[int, ...], float] = {}
    queries: dict[tuple[int, ...], int] = {}
    rel_sum = abs_sum = 0.0
    for keep in group_bys:
        answered, which, est = answers[keep]
        act = n * np.bincount(which, weights=mass, minlength=len(answered))
        diff = np.abs(act - n * est)
        rel = diff / act
        per[keep] = float(rel.mean())
        queries[keep] = len(answered)
        rel_sum += float(rel.sum())
        abs_sum += float(diff.sum())
    total = sum(queries.values())
    return QueryErrors(rel_sum / total, per, queries, abs_sum / total)


# ---------------------------------------------------------------------------------- uncertainty
def _entropy(p: np.ndarray) -> float:
    nz = p[p > 0]
    return float(-np.sum(nz * np.log(nz)))


def uncertainty_coefficients(joint: Any, names: Sequence[str]) -> pd.DataFrame:
    """Uncertainty coefficient ``U(B | A)`` of every ordered pair of attributes.

    As in Guo, Ying & Wu (2011), Tables 4–5 and Fig. 7.

    ``U(B | A) = [H(A) + H(B) − H(A, B)] / H(B) = I(A; B) / H(B)``: the share of the entropy of
    the *response* ``B`` explained by ``A`` (Agresti's U with ``B`` as the column variable),
    computed from the pair's 2-d marginal of ``joint``. For a quasi-identifier–sensitive pair
    the response is the sensitive attribute: ``U(SA | QI)`` is ``frame.loc[qi, sa]``. On the
    30,162-row Adult table ``U(occupation | income) = I / H(occupation) = 0.02744`` (the paper's
    "U(Occupation | Salary) = 2.74×10⁻²"); the other direction, ``I / H(income)``, is 0.1151.

    ``joint`` is clip-renormalized first (negative cells of a raw reconstruction become 0). A
    response or explanatory attribute with entropy 0 (below :data:`ENTROPY_TOLERANCE`) gives
    ``U = 0`` (our convention; ``I(A; B) <= min(H(A), H(B))``); so does an attribute that a
    generalized release published as ``"*"`` everywhere, whose estimate is uniform and
    independent of the rest. Values are clamped to ``[0, 1]`` against rounding.

    Parameters
    ----------
    joint : array_like
        Joint distribution (or raw estimate) with one axis per attribute.
    names : sequence of str
        The attributes, one per axis, distinct.

    Returns
    -------
    DataFrame
        Square, index ``given`` (``A``) and columns ``response`` (``B``), both ``names``; entry
        ``(A, B)`` is ``U(B | A)``. The diagonal is NaN (not a pair).

    Raises
    ------
    InputError
        Non-finite values, no positive cell, or ``names`` that do not match the axes.

    Examples
    --------
    >>> u = uncertainty_coefficients([[0.5, 0.0], [0.0, 0.5]], ["a", "b"])
    >>> float(u.loc["a", "b"]), float(u.loc["b", "a"])
    (1.0, 1.0)
    """
    arr = _clip_renorm(_as_array(joint, "joint"))
    names = list(names) if not isinstance(names, str) else [names]
    if len(names) != arr.ndim or len(set(names)) != len(names):
        raise InputError(
            f"names must name the {arr.ndim} axes of the joint once each, got {names!r}"
        )
    k = arr.ndim
    marg = [_marginal(arr, (a,)) for a in range(k)]
    h = np.array([_entropy(m) for m in marg])
    u = np.full((k, k), np.nan)
    for a, b in itertools.combinations(range(k), 2):
        if min(h[a], h[b]) <= ENTROPY_TOLERANCE:  # a constant: I(A; B) <= min(H(A), H(B)) = 0
            u[a, b] = u[b, a] = 0.0
            continue
        pair = _marginal(arr, (a, b))
        mutual = h[a] + h[b] - _entropy(pair)
        u[a, b] = min(max(mutual / h[b], 0.0), 1.0)
        u[b, a] = min(max(mutual / h[a], 0.0), 1.0)
    return pd.DataFrame(
        u,
        index=pd.Index(names, name="given"),
        columns=pd.Index(names, name="response"),
    )


# ---------------------------------------------------------------------------------- estimates
def _axis_order(
    domain: Sequence[Any], original: Table, column: str, randomized: bool = True
) -> tuple[np.ndarray | None, int]:
    """Where each of the Table's codes of ``column`` is on a reconstruction's axis (None: in the
    same order), checking the values, and how many cells the axis lacks: a column that was not
    randomized has the values the published table holds, and the Table's dictionary may name
    more (a hierarchy's leaves over a declared range), which the axis gets as empty cells
    after its own."""
    dictionary = list(original.dictionary(column))
    target = [value_key(v) for v in dictionary]
    got = [value_key(v) for v in domain]
    if got != target:  # a column of numbers and the value ? is published as text ('1.0')
        known, written = set(target), written_positions(dictionary)
        got = [
            k if k in known else _written_key(v, k, target, written)
            for v, k in zip(domain, got, strict=True)
        ]
    if got == target:
        return None, 0
    if not randomized and set(got) < set(target):
        held = set(got)
        got = got + [v for v in target if v not in held]
    position = {v: i for i, v in enumerate(got)}
    if len(position) != len(got) or set(position) != set(target):
        missing = [v for v in target if v not in position]
        extra = [v for v in position if v not in set(target)]
        raise InputError(
            f"column '{column}': the randomized release's domain is not the original table's "
            f"(missing {missing[:5]}, unexpected {extra[:5]}); encode the original with the "
            "schema and data the release was made from"
        )
    return np.array([position[v] for v in target], dtype=np.intp), len(got) - len(domain)


def _written_key(value: Any, key: str, target: Sequence[str], written: Mapping[str, int]) -> str:
    """The key in ``target`` of a domain value published as text (``'1.0'``): the dictionary
    value written as that text, else the number it writes (the dictionary may hold ``1``
    where the data held ``1.0``); ``key`` itself when neither is there."""
    if not isinstance(value, str):
        return key
    if value in written:
        return target[written[value]]
    number = number_text_key(value)
    return number if number is not None and number in set(target) else key


def _reconstruction(
    release: Release,
    original: Table,
    columns: Sequence[str],
    sensitive: str,
    counts: np.ndarray | None = None,
) -> tuple[np.ndarray, Any, list[np.ndarray | None]]:
    """The raw reconstruction of ``columns`` and ``sensitive`` in the release's codes (with
    empty cells for the Table's values a kept column's published rows lack), the
    :class:`~microanon.methods.randomize.reconstruct.Reconstruction` it comes from and, per
    axis, where each of the Table's codes is on it (None: in the same order;
    :func:`_axis_order`). ``counts``: records per row of the release's table, when it holds
    its distinct rows."""
    from ..methods.randomize.reconstruct import reconstruct  # lazy: a method module

    cols, sensitive = _check_joint_columns(original, columns, sensitive)
    dims = cols + [sensitive]
    shape = _joint_shape(original, dims)
    rec = reconstruct(release, columns=dims, counts=counts)
    if list(rec.columns) != dims or len(rec.domains) != len(dims):
        raise InputError(f"the reconstruction is over columns {list(rec.columns)}, expected {dims}")
    for column, domain in zip(dims, list(rec.domains), strict=True):
        # a missing answer of the Table that no published row holds: an empty cell, left as it
        # is by the column's matrix (PRAM publishes missing answers as they were)
        held = {value_key(v) for v in domain}
        lacking = [
            v
            for v in original.dictionary(column)
            if is_missing_answer(v) and value_key(v) not in held
        ]
        if lacking:
            rec = rec.with_unchanged(column, lacking)
    domains = list(rec.domains)
    est = np.asarray(rec.estimate, dtype=float).reshape(tuple(len(d) for d in domains))
    orders = []
    for axis, (column, domain) in enumerate(zip(dims, domains, strict=True)):
        order, lacking = _axis_order(domain, original, column, rec.inverses[axis] is not None)
        if lacking:  # values no published row holds: empty cells of a column kept as it was
            pad = list(est.shape)
            pad[axis] = lacking
            est = np.concatenate([est, np.zeros(pad)], axis=axis)
        orders.append(order)
    if est.shape != shape:
        raise InputError(f"the reconstruction has shape {est.shape}, expected {shape}")
    return est, rec, orders


def _reordered(p: np.ndarray, orders: Sequence[np.ndarray | None]) -> np.ndarray:
    """``p``, indexed by the Table's codes, indexed by a reconstruction's (``orders`` as
    :func:`_reconstruction` gives them), moved cell by non-empty cell."""
    if all(order is None for order in orders):
        return p
    flat = p.reshape(-1)
    held = np.flatnonzero(flat)
    cells = list(np.unravel_index(held, p.shape))
    for axis, order in enumerate(orders):
        if order is not None:
            cells[axis] = order[cells[axis]]
    out = np.zeros(p.size)
    out[np.ravel_multi_index(cells, p.shape)] = flat[held]
    return out.reshape(p.shape)


#: Release kinds :func:`estimate_distribution` reads, and the estimator it uses.
ESTIMATED_KINDS = {
    "generalized": "estimate_joint",
    "anatomized": "estimate_joint",
    "randomized": "reconstruct",
}


def estimate_distribution(
    release: Release | pd.DataFrame | Mapping[str, pd.DataFrame],
    original: Table,
    columns: Sequence[str],
    sensitive: str,
    *,
    clip_renorm: bool = True,
) -> np.ndarray:
    """The joint distribution of ``columns`` and ``sensitive`` estimated from any release.

    - ``randomized``: the unbiased reconstruction ``π̂ = P⁻¹λ̂``
      (:func:`microanon.methods.randomize.reconstruct.reconstruct`), its axes reordered to the
      codes of ``original`` (the release's published domains must be the Table's dictionaries,
      value for value); clip-renormalized unless ``clip_renorm=False``.
    - ``generalized`` / ``anatomized`` (or a bare published table / ``{"qit", "st"}`` mapping):
      :func:`~microanon.measures.estimators.estimate_joint`, a distribution already.

    Parameters
    ----------
    release : Release, DataFrame or mapping of str to DataFrame
    original : Table
        The encoded original table (its dictionaries index the result; encode it with the schema
        the method used).
    columns : sequence of str
        Quasi-identifier columns of the joint (may be empty).
    sensitive : str
    clip_renorm : bool, default True
        Clip-renormalize a reconstruction; ``False`` returns the raw unbiased estimate (which may
        hold negative cells). No effect on the other kinds.

    Returns
    -------
    ndarray
        Shape ``(|dom c1|, ..., |dom sensitive|)`` indexed by ``original``'s codes, summing to 1.

    Raises
    ------
    InputError
        A release kind without an estimator (supported: see :data:`ESTIMATED_KINDS`), a
        randomized release whose domains differ from the Table's, or any error of the estimator.
    """
    if isinstance(release, Release) and release.kind not in ESTIMATED_KINDS:
        raise InputError(
            f"no distribution estimator for a '{release.kind}' release; supported kinds: "
            + ", ".join(ESTIMATED_KINDS)
        )
    if isinstance(release, Release) and release.kind == "randomized":
        est, _, orders = _reconstruction(release, original, columns, sensitive)
        for axis, order in enumerate(orders):
            if order is not None:
                est = np.take(est, order, axis=axis)
        return _clip_renorm(est) if clip_renorm else est
    return estimate_joint(release, original, columns, sensitive)


def _mean(values: Any) -> float:
    values = np.asarray(values, dtype=float)
    return float(values.mean()) if values.size else math.nan


def utility_report(
    release: Release | pd.DataFrame | Mapping[str, pd.DataFrame],
    original_table: Table,
    columns: Sequence[str],
    sensitive: str,
    counts: np.ndarray | None = None,
    *,
    cube_limit: int | None = None,
) -> dict[str, Any]:
    """Every distribution-based utility measure of Guo, Ying & Wu (2011) for one release.

    ``P`` = :func:`~microanon.measures.estimators.true_joint`, ``Q`` =
    :func:`estimate_distribution` with ``clip_renorm=False`` (the raw reconstruction of a
    randomized release; the estimate of the other kinds).

    Parameters
    ----------
    release : Release, DataFrame or mapping of str to DataFrame
    original_table : Table
    columns : sequence of str
        Quasi-identifier columns.
    sensitive : str
    counts : int array, optional
        Records per row of a randomized release's table, when it holds the distinct rows of
        the published table (counted out of core); ``original_table`` may then be a frequency
        table too (:meth:`Table.from_codes` with counts). The measures are those of the records.
    cube_limit : int, optional
        Most work of the CUBE's query errors: its ``2^(m+1)`` group-bys times the original's
        non-empty cells, each group-by's answered cells found among them (default: no limit).
        Above it ``query_error_cube`` is None and ``cube_work`` says how much it would be: it
        doubles with each attribute (0.15-0.25 µs a unit: 8 s for 12 quasi-identifiers and
        10,373 non-empty cells).

    Returns
    -------
    dict
        - ``kind``: the release kind (``None`` for bare tables); ``n``: original records;
        - ``kl``: :func:`~microanon.measures.estimators.kl_divergence` ``(P, Q)`` (``Q``
          clip-renormalized and floored at 1e-12);
        - ``chi_square``: :func:`chi_square` ``(P, Q)``, the original in the denominator;
        - ``squared_euclidean``: ``‖Q − P‖²`` on the raw ``Q``;
        - ``query_error_base`` / ``query_error_cube``: mean relative error of the base group-by
          and of the CUBE (all subsets, pooled), :func:`query_errors` on the raw ``Q``; with a
          ``cube_limit``, also ``cube_work`` (the CUBE's group-bys and the original's non-empty
          cells), and ``query_error_cube`` None when their product is above it;
        - ``u_sa_qi``: mean of ``U(sensitive | A)`` over the quasi-identifiers ``A``;
        - ``u_qi_qi``: mean of ``U(B | A)`` over ordered pairs of distinct quasi-identifiers
          (NaN with fewer than two);
        - ``uncertainty``: the :func:`uncertainty_coefficients` frame of the clip-renormalized
          ``Q``.

    Raises
    ------
    InputError
        See :func:`estimate_distribution`.
    """
    p = true_joint(original_table, columns, sensitive)
    factors = None
    if isinstance(release, Release) and release.kind == "randomized":
        # P in the reconstruction's codes rather than Q in the Table's: every measure is the
        # same under a renaming of an attribute's values, and P has few non-empty cells
        q, rec, orders = _reconstruction(release, original_table, columns, sensitive, counts)
        observed = np.asarray(rec.observed).reshape(tuple(len(d) for d in rec.domains))
        factors = Factors.of(observed, rec.inverses, q.shape)
        p = _reordered(p, orders)
    else:
        if counts is not None:
            raise InputError(
                "counts: only the table of a randomized release is read as a frequency table"
            )
        q = estimate_distribution(release, original_table, columns, sensitive, clip_renorm=False)
    n = original_table.n_records
    names = list(columns) + [sensitive]
    u = uncertainty_coefficients(q, names)
    qis = list(columns)
    among = u.loc[qis, qis].to_numpy()
    work = (2**p.ndim, int(np.count_nonzero(p)))
    cube = None
    if cube_limit is None or work[0] * work[1] <= cube_limit:
        cube = query_errors(p, q, n, cube=True, factors=factors).mean
    out = {
        "kind": release.kind if isinstance(release, Release) else None,
        "n": n,
        "kl": kl_divergence(p, q),
        "chi_square": chi_square(p, q),
        "squared_euclidean": squared_euclidean(p, q),
        "query_error_base": query_errors(p, q, n, factors=factors).mean,
        "query_error_cube": cube,
        "u_sa_qi": _mean(u.loc[qis, sensitive].to_numpy()),
        "u_qi_qi": _mean(among[~np.eye(len(qis), dtype=bool)]),
        "uncertainty": u,
    }
    if cube_limit is not None:
        out["cube_work"] = work
    return out
