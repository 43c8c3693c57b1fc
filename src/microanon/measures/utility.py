"""Information loss of generalized tables, measured on the attributes' hierarchies.

Every cell of a quasi-identifier column holds a leaf (an original value), an inner label of the
column's :class:`~microanon.core.hierarchy.Hierarchy`, or ``"*"`` (a suppressed cell, the root).
A numeric column may also hold closed ranges ``"[lo, hi]"`` of its domain that are not labels of
its hierarchy (as Mondrian and local recoding publish); its domain is the hierarchy's leaves or,
without a hierarchy, the values passed in ``domains={column: values}``. Cells are resolved once
per distinct value, so the cost is one :func:`pandas.factorize` per column plus work proportional
to the number of distinct values.

- :func:`loss_metric` — Iyengar's loss metric LM (optionally with leaf weights).
- :func:`ncp` — normalized certainty penalty per attribute and the global certainty penalty GCP
  (Xu et al. 2006; Ghinita et al. 2007).
- :func:`precision` — Sweeney's precision ``Prec``.

All three take ``suppressed``: the number of rows removed from the table by suppression. A removed
row is charged like a row whose every cell is ``"*"`` (the root).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import HierarchyError, InputError
from ..core.frames import pandas_if_arrow
from ..core.hierarchy import Hierarchy
from .common import (
    NumericDomain,
    check_count,
    check_counts,
    check_hierarchies,
    normalize_columns,
    numeric_leaves,
    range_reduce,
    resolve_cells,
)

__all__ = ["LossMetric", "NCPScore", "loss_metric", "ncp", "precision"]

#: A function giving the loss in [0, 1] of each node id of a hierarchy.
_NodeLoss = Callable[[Hierarchy, np.ndarray], np.ndarray]
#: A function giving the loss in [0, 1] of closed value ranges [lo, hi] of a numeric domain.
_RangeLoss = Callable[[NumericDomain, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class _Loss:
    """How a measure charges a cell: a hierarchy node, or a value range (None: not defined)."""

    node: _NodeLoss
    range: _RangeLoss | None


@dataclass(frozen=True)
class LossMetric:
    """Result of :func:`loss_metric`.

    Attributes
    ----------
    total : float
        LM of the table: the mean loss over all quasi-identifier cells, in ``[0, 1]``.
    per_attribute : dict of str to float
        Mean loss of each quasi-identifier column (``total`` is their plain mean).
    weighted : bool
        Whether leaf weights were used.
    """

    total: float
    per_attribute: dict[str, float]
    weighted: bool = False

    def __float__(self) -> float:
        return self.total

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly copy."""
        return {
            "total": self.total,
            "per_attribute": dict(self.per_attribute),
            "weighted": self.weighted,
        }


@dataclass(frozen=True)
class NCPScore:
    """Result of :func:`ncp`.

    Attributes
    ----------
    gcp : float
        Global certainty penalty: the ``weights``-weighted mean of ``per_attribute``, in ``[0, 1]``.
    per_attribute : dict of str to float
        Mean NCP of the cells of each quasi-identifier column.
    weights : dict of str to float
        Attribute weights used, normalized to sum to 1.
    """

    gcp: float
    per_attribute: dict[str, float]
    weights: dict[str, float]

    def __float__(self) -> float:
        return self.gcp

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly copy."""
        return {
            "gcp": self.gcp,
            "per_attribute": dict(self.per_attribute),
            "weights": dict(self.weights),
        }


# ---------------------------------------------------------------------------------- node losses
def _lm_loss(h: Hierarchy, nodes: np.ndarray) -> np.ndarray:
    """``(|leaves(v)| - 1) / (|domain| - 1)``; 0 everywhere for a one-leaf domain."""
    d = h.n_leaves
    if d <= 1:
        return np.zeros(len(nodes))
    return (h.leaf_count(nodes) - 1) / (d - 1)


def _lm_weighted_loss(h: Hierarchy, nodes: np.ndarray) -> np.ndarray:
    """``(l(v) - min_w(v)) / (l(root) - min_w(root))`` with leaf weights ``w`` and ``l`` their sum.

    With unit weights this is the unweighted LM; a leaf costs 0, the root 1, and the loss never
    decreases from a node to its parent.
    """
    w = h.weights
    den = float(w.sum() - w.min())
    if h.n_leaves <= 1 or den <= 0:
        return np.zeros(len(nodes))
    lo, hi = h.leaf_range(nodes)
    num = h.weight(nodes) - range_reduce(w, lo, hi, np.minimum)
    return np.clip(num / den, 0.0, 1.0)


def _ncp_count_loss(h: Hierarchy, nodes: np.ndarray) -> np.ndarray:
    """Categorical NCP: 0 if ``v`` covers one leaf, else ``|leaves(v)| / |domain|``."""
    card = h.leaf_count(nodes)
    return np.where(card <= 1, 0.0, card / h.n_leaves)


def _ncp_range_loss(values: np.ndarray) -> _NodeLoss:
    """Numeric NCP: ``(max - min of the covered leaf values) / (max - min of the domain)``."""
    span = float(values.max() - values.min())

    def loss(h: Hierarchy, nodes: np.ndarray) -> np.ndarray:
        if span <= 0:
            return np.zeros(len(nodes))
        lo, hi = h.leaf_range(nodes)
        width = range_reduce(values, lo, hi, np.maximum) - range_reduce(values, lo, hi, np.minimum)
        return width / span

    return loss


def _precision_loss(h: Hierarchy, nodes: np.ndarray) -> np.ndarray:
    """``level(v) / height``; 0 everywhere for a hierarchy of height 0."""
    if h.height == 0:
        return np.zeros(len(nodes))
    return h.node_level(nodes) / h.height


# ---------------------------------------------------------------------------------- range losses
def _lm_range(dom: NumericDomain, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``(|domain values in [lo, hi]| - 1) / (|domain| - 1)``; 0 for a one-value domain."""
    if dom.size <= 1:
        return np.zeros(len(lo))
    a, b = dom.positions(lo, hi)
    return (b - a - 1) / (dom.size - 1)


def _lm_weighted_range(dom: NumericDomain, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The weighted LM of the domain values in ``[lo, hi]`` (see :func:`_lm_weighted_loss`)."""
    w = dom.weights
    den = float(w.sum() - w.min())
    if dom.size <= 1 or den <= 0:
        return np.zeros(len(lo))
    a, b = dom.positions(lo, hi)
    cum = np.concatenate([[0.0], np.cumsum(w)])
    num = cum[b] - cum[a] - range_reduce(w, a, b, np.minimum)
    return np.clip(num / den, 0.0, 1.0)


def _ncp_count_range(dom: NumericDomain, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Leaf-count NCP of a range: 0 if it covers one domain value, else ``covered / |domain|``."""
    a, b = dom.positions(lo, hi)
    return np.where(b - a <= 1, 0.0, (b - a) / dom.size)


def _ncp_span_range(dom: NumericDomain, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Range NCP: ``(hi - lo) / (max - min of the domain)``."""
    span = float(dom.values[-1] - dom.values[0])
    if span <= 0:
        return np.zeros(len(lo))
    return (hi - lo) / span


# ---------------------------------------------------------------------------------- driver
def _mean_losses(
    data: pd.DataFrame,
    cols: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    domains: Mapping[str, NumericDomain],
    losses: Mapping[str, _Loss],
    suppressed: int,
    counts: Any = None,
) -> dict[str, float]:
    """Mean cell loss of each column; suppressed rows are charged the root's (whole domain's).

    ``counts``: records per row of ``data`` (a frequency table; None: one each)."""
    out = {}
    weights = check_counts(counts, len(data))
    n = (len(data) if weights is None else int(weights.sum())) + suppressed
    for c in cols:
        h, dom, loss = hierarchies.get(c), domains.get(c), losses[c]
        cells = resolve_cells(data[c], h, dom, c, weights)
        per_value = np.zeros(len(cells.counts))
        ranged = cells.ranges
        if (~ranged).any():
            per_value[~ranged] = loss.node(h, cells.nodes[~ranged])
        if ranged.any():
            if loss.range is None:
                label = cells.labels[int(np.argmax(ranged))]
                raise HierarchyError(
                    f"column '{c}': {label!r} is a value range, not a node of its hierarchy; "
                    "precision is defined for hierarchy generalizations only (loss_metric and "
                    "ncp measure ranges)"
                )
            per_value[ranged] = loss.range(dom, cells.lo[ranged], cells.hi[ranged])
        total = float(np.dot(cells.counts, per_value))
        if suppressed:
            if h is not None:
                root = loss.node(h, np.zeros(1, dtype=np.int64))
            else:
                root = loss.range(dom, dom.values[:1], dom.values[-1:])
            total += suppressed * float(root[0])
        out[c] = total / n
    return out


def loss_metric(
    data: pd.DataFrame,
    hierarchies: Mapping[str, Hierarchy],
    quasi: Sequence[str] | str | None = None,
    suppressed: int = 0,
    *,
    weighted: bool = False,
    domains: Mapping[str, Any] | None = None,
    counts: Sequence[int] | np.ndarray | None = None,
) -> LossMetric:
    """Iyengar's loss metric (LM) of a generalized table.

    A cell holding node ``v`` of its column's hierarchy loses
    ``(|leaves(v)| - 1) / (|domain| - 1)``: 0 for an original value, 1 for ``"*"`` or the root.
    A numeric column may also hold closed ranges ``"[lo, hi]"`` that are not hierarchy labels
    (as Mondrian and local recoding publish); such a cell loses
    ``(|{domain values x : lo <= x <= hi}| - 1) / (|domain| - 1)``. LM is the mean over all
    quasi-identifier cells, suppressed rows included; it lies in ``[0, 1]``.

    Parameters
    ----------
    data : pandas.DataFrame
        Generalized table; QI cells hold leaves, inner labels of the hierarchy, or ``"*"``;
        numeric columns also closed ranges ``"[lo, hi]"``.
    hierarchies : mapping of str to Hierarchy
        Hierarchy of each quasi-identifier column (a numeric column may have a domain instead).
    quasi : sequence of str or str, optional
        Quasi-identifier columns (default: every key of ``hierarchies``, then of ``domains``).
    suppressed : int, default 0
        Rows removed from ``data`` by suppression; each costs the root's loss (1) in every cell.
    weighted : bool, default False
        Use the hierarchies' leaf weights ``w``: a cell loses
        ``(l(v) - min_{leaves(v)} w) / (l(root) - min_{domain} w)`` with ``l(v)`` the total weight
        under ``v`` (for a range, of the domain values inside it). With unit weights this equals
        the unweighted LM; a column given by its domain has unit weights.
    domains : mapping of str to sequence of numbers, optional
        The domain of a numeric quasi-identifier that has no hierarchy: its original column or
        its distinct values. Its cells hold numbers, closed ranges ``"[lo, hi]"`` or ``"*"``.
        The domain of a column with a numeric hierarchy is the hierarchy's leaves.
    counts : sequence of int, optional
        Records per row: ``data`` is then a frequency table of distinct combinations, measured
        as the table with each row repeated ``counts`` times (default: one record per row).

    Returns
    -------
    LossMetric
        ``total`` (the LM) and ``per_attribute`` (the mean loss of each column).

    Notes
    -----
    A column whose domain has one leaf (or, weighted, zero total weight above its lightest leaf)
    loses nothing, not even in a suppressed cell.

    Raises
    ------
    InputError
        Bad table or QI list, a QI column with neither hierarchy nor domain (or both), a domain
        that is not a set of numbers, missing values, ``suppressed < 0``.
    HierarchyError
        A cell value that is not a label of its column's hierarchy (nor, for a numeric column,
        a range ``[lo, hi]`` inside the domain that contains one of its values).
    """
    data = pandas_if_arrow(data, "data")
    n_suppressed = check_count(suppressed, "suppressed")
    cols, hs, doms = check_hierarchies(data, hierarchies, quasi, domains)
    loss = _Loss(_lm_weighted_loss, _lm_weighted_range) if weighted else _Loss(_lm_loss, _lm_range)
    per = _mean_losses(data, cols, hs, doms, {c: loss for c in cols}, n_suppressed, counts)
    total = float(np.mean(list(per.values())))
    return LossMetric(total=total, per_attribute=per, weighted=bool(weighted))


def _check_weights(weights: Any, cols: Sequence[str]) -> dict[str, float]:
    if weights is None:
        return {c: 1.0 / len(cols) for c in cols}
    if isinstance(weights, Mapping):
        absent = [c for c in cols if c not in weights]
        extra = [k for k in weights if k not in cols]
        if absent or extra:
            raise InputError(
                "'weights' must give one weight per quasi-identifier column ("
                + ", ".join(map(repr, cols))
                + ")"
                + (f"; missing {', '.join(map(repr, absent))}" if absent else "")
                + (f"; not quasi-identifiers: {', '.join(map(repr, extra))}" if extra else "")
            )
        raw = [weights[c] for c in cols]
    elif isinstance(weights, Sequence) and not isinstance(weights, str):
        if len(weights) != len(cols):
            raise InputError(
                f"'weights' has {len(weights)} entries but there are {len(cols)} quasi-identifier "
                f"columns ({', '.join(map(repr, cols))})"
            )
        raw = list(weights)
    else:
        raise InputError(
            "'weights' must be a mapping column -> weight or a sequence, got "
            f"{type(weights).__name__}"
        )
    for c, w in zip(cols, raw, strict=True):
        if (
            isinstance(w, (bool, np.bool_))
            or not isinstance(w, numbers.Real)
            or not math.isfinite(float(w))
            or w < 0
        ):
            raise InputError(
                f"'weights': weight of column '{c}' must be a non-negative number, got {w!r}"
            )
    total = float(sum(float(w) for w in raw))
    if total <= 0:
        raise InputError("'weights' are all zero; give at least one column a positive weight")
    return {c: float(w) / total for c, w in zip(cols, raw, strict=True)}


def _range_columns(
    numeric_ranges: bool | Collection[str],
    cols: Sequence[str],
    hs: Mapping[str, Hierarchy],
    doms: Mapping[str, NumericDomain],
) -> list[str]:
    """Columns measured by value range (they must have a numeric domain)."""
    if isinstance(numeric_ranges, (bool, np.bool_)):
        return [c for c in cols if c in doms] if numeric_ranges else []
    wanted = normalize_columns(numeric_ranges, "numeric_ranges")
    stray = [c for c in wanted if c not in cols]
    if stray:
        raise InputError(
            f"'numeric_ranges' names column(s) {', '.join(map(repr, stray))} that are not "
            f"quasi-identifiers here ({', '.join(map(repr, cols))})"
        )
    for c in wanted:
        if c not in doms:
            raise HierarchyError(
                f"column '{c}': numeric_ranges needs a hierarchy whose leaves are numbers (or a "
                f"numeric domain); leaves include {hs[c].leaves[:3]!r}"
            )
    return wanted


def _ncp_loss(c: str, ranged: Collection[str], hs: Mapping[str, Hierarchy]) -> _Loss:
    """The NCP of column ``c``: by value range or by leaf count."""
    if c not in ranged:
        return _Loss(_ncp_count_loss, _ncp_count_range)
    leaves = numeric_leaves(hs[c]) if c in hs else None
    node = _ncp_range_loss(leaves) if leaves is not None else _ncp_count_loss
    return _Loss(node, _ncp_span_range)


def ncp(
    data: pd.DataFrame,
    hierarchies: Mapping[str, Hierarchy],
    quasi: Sequence[str] | str | None = None,
    weights: Mapping[str, float] | Sequence[float] | None = None,
    *,
    numeric_ranges: bool | Collection[str] = False,
    suppressed: int = 0,
    domains: Mapping[str, Any] | None = None,
    counts: Sequence[int] | np.ndarray | None = None,
) -> NCPScore:
    """Normalized certainty penalty (NCP) per attribute and global certainty penalty (GCP).

    Per cell holding node ``v`` (Xu et al. 2006): categorical
    ``NCP(v) = 0`` if ``v`` covers one leaf, else ``|leaves(v)| / |domain|``. For a column measured
    by range, ``NCP(v) = (max - min of the leaf values under v) / (max - min of all leaf values)``.
    A numeric column may also hold closed ranges ``"[lo, hi]"`` that are not hierarchy labels
    (as Mondrian and local recoding publish): by range such a cell costs
    ``(hi - lo) / (max - min of the domain)``, by leaf count it covers the domain values
    ``x`` with ``lo <= x <= hi``. An attribute's NCP is the mean over its cells; GCP (Ghinita et
    al. 2007) is the weighted mean of the attributes' NCP, in ``[0, 1]``.

    Parameters
    ----------
    data : pandas.DataFrame
        Generalized table; QI cells hold leaves, inner labels of the hierarchy, or ``"*"``;
        numeric columns also closed ranges ``"[lo, hi]"``.
    hierarchies : mapping of str to Hierarchy
        Hierarchy of each quasi-identifier column (a numeric column may have a domain instead).
    quasi : sequence of str or str, optional
        Quasi-identifier columns (default: every key of ``hierarchies``, then of ``domains``).
    weights : mapping of str to float or sequence of float, optional
        Non-negative attribute weights (one per QI column; normalized to sum 1). Default: equal.
    numeric_ranges : bool or collection of str, default False
        ``True``: measure by value range every QI column whose hierarchy leaves are all numbers
        or that has a domain (other columns keep the leaf-count rule). A collection: exactly
        these columns (each needs numeric leaves or a domain). ``False``: the leaf-count rule
        everywhere.
    suppressed : int, default 0
        Rows removed from ``data`` by suppression; each costs the root's NCP in every cell.
    domains : mapping of str to sequence of numbers, optional
        The domain of a numeric quasi-identifier that has no hierarchy (see :func:`loss_metric`).
    counts : sequence of int, optional
        Records per row of a frequency table (see :func:`loss_metric`).

    Returns
    -------
    NCPScore
        ``gcp``, ``per_attribute`` and the normalized ``weights``.

    Raises
    ------
    InputError
        Bad table, QI list, weights, domains or ``suppressed``; a QI column with neither
        hierarchy nor domain (or both); missing values.
    HierarchyError
        A cell value not in its hierarchy (nor a valid range of a numeric column), or a
        ``numeric_ranges`` column without numeric domain.
    """
    data = pandas_if_arrow(data, "data")
    n_suppressed = check_count(suppressed, "suppressed")
    cols, hs, doms = check_hierarchies(data, hierarchies, quasi, domains)
    w = _check_weights(weights, cols)
    ranged = _range_columns(numeric_ranges, cols, hs, doms)
    losses = {c: _ncp_loss(c, ranged, hs) for c in cols}
    per = _mean_losses(data, cols, hs, doms, losses, n_suppressed, counts)
    gcp = float(sum(w[c] * per[c] for c in cols))
    return NCPScore(gcp=min(max(gcp, 0.0), 1.0), per_attribute=per, weights=w)


def precision(
    data: pd.DataFrame,
    hierarchies: Mapping[str, Hierarchy],
    quasi: Sequence[str] | str | None = None,
    suppressed: int = 0,
    *,
    counts: Sequence[int] | np.ndarray | None = None,
) -> float:
    """Sweeney's precision ``Prec = 1 - Σ_cells level(v) / height(A) / (N · |QI|)``.

    ``level(v)`` is 0 for an original value and ``height - depth(v)`` for an inner node (the root
    or ``"*"`` has the full height). A column of height 0 loses nothing.

    Parameters
    ----------
    data : pandas.DataFrame
        Generalized table; QI cells hold leaves, inner labels of the hierarchy, or ``"*"``.
    hierarchies : mapping of str to Hierarchy
    quasi : sequence of str or str, optional
        Quasi-identifier columns (default: every key of ``hierarchies``, in order).
    suppressed : int, default 0
        Rows removed from ``data`` by suppression; each counts at full height in every cell and
        ``N = len(data) + suppressed``.
    counts : sequence of int, optional
        Records per row of a frequency table (see :func:`loss_metric`); ``N`` is then their sum
        plus ``suppressed``.

    Returns
    -------
    float
        In ``[0, 1]``: 1 for original values, 0 when every cell is ``"*"``.

    Raises
    ------
    InputError
        Bad table or QI list, a QI column without hierarchy, missing values, ``suppressed < 0``.
    HierarchyError
        A cell value that is not a label of its column's hierarchy; in particular a value range
        ``"[lo, hi]"`` (as Mondrian publishes) that is not one: precision needs levels, so it
        is defined for hierarchy generalizations only.
    """
    data = pandas_if_arrow(data, "data")
    n_suppressed = check_count(suppressed, "suppressed")
    cols, hs, doms = check_hierarchies(data, hierarchies, quasi)
    loss = _Loss(_precision_loss, None)
    per = _mean_losses(data, cols, hs, doms, {c: loss for c in cols}, n_suppressed, counts)
    return float(1.0 - np.mean(list(per.values())))
