"""Information loss of generalized tables, measured on the attributes' hierarchies.

Every cell of a quasi-identifier column holds a leaf (an original value), an inner label of the
column's :class:`~microanon.core.hierarchy.Hierarchy`, or ``"*"`` (a suppressed cell, the root).
Cells are resolved to hierarchy nodes once per distinct value, so the cost is one
:func:`pandas.factorize` per column plus work proportional to the number of distinct values.

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
from ..core.hierarchy import Hierarchy
from ._common import (
    check_count,
    check_hierarchies,
    normalize_columns,
    range_reduce,
    resolve_nodes,
)

__all__ = ["LossMetric", "NCPScore", "loss_metric", "ncp", "precision"]

#: A function giving the loss in [0, 1] of each node id of a hierarchy.
_NodeLoss = Callable[[Hierarchy, np.ndarray], np.ndarray]


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


def _numeric_leaves(h: Hierarchy) -> np.ndarray | None:
    """Leaf values as floats in depth-first order, or None if some leaf is not a finite number."""
    leaves = h.leaves
    if any(isinstance(v, (bool, np.bool_)) for v in leaves):
        return None
    vals = pd.to_numeric(pd.Series(leaves, dtype=object), errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(vals)):
        return None
    return vals


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


# ---------------------------------------------------------------------------------- driver
def _mean_losses(
    data: pd.DataFrame,
    cols: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    losses: Mapping[str, _NodeLoss],
    suppressed: int,
) -> dict[str, float]:
    """Mean node loss over the cells of each column; suppressed rows are charged the root's loss."""
    out = {}
    n = len(data) + suppressed
    for c in cols:
        h = hierarchies[c]
        nodes, counts = resolve_nodes(data[c], h, c)
        total = float(np.dot(counts, losses[c](h, nodes)))
        if suppressed:
            total += suppressed * float(losses[c](h, np.zeros(1, dtype=np.int64))[0])
        out[c] = total / n
    return out


def loss_metric(
    data: pd.DataFrame,
    hierarchies: Mapping[str, Hierarchy],
    quasi: Sequence[str] | str | None = None,
    suppressed: int = 0,
    *,
    weighted: bool = False,
) -> LossMetric:
    """Iyengar's loss metric (LM) of a generalized table.

    A cell holding node ``v`` of its column's hierarchy loses
    ``(|leaves(v)| - 1) / (|domain| - 1)``: 0 for an original value, 1 for ``"*"`` or the root.
    LM is the mean over all quasi-identifier cells, suppressed rows included; it lies in
    ``[0, 1]``.

    Parameters
    ----------
    data : pandas.DataFrame
        Generalized table; QI cells hold leaves, inner labels of the hierarchy, or ``"*"``.
    hierarchies : mapping of str to Hierarchy
        Hierarchy of each quasi-identifier column.
    quasi : sequence of str or str, optional
        Quasi-identifier columns (default: every key of ``hierarchies``, in order).
    suppressed : int, default 0
        Rows removed from ``data`` by suppression; each costs the root's loss (1) in every cell.
    weighted : bool, default False
        Use the hierarchies' leaf weights ``w``: a cell loses
        ``(l(v) - min_{leaves(v)} w) / (l(root) - min_{domain} w)`` with ``l(v)`` the total weight
        under ``v``. With unit weights this equals the unweighted LM.

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
        Bad table or QI list, a QI column without hierarchy, missing values, ``suppressed < 0``.
    HierarchyError
        A cell value that is not a label of its column's hierarchy.
    """
    n_suppressed = check_count(suppressed, "suppressed")
    cols, hs = check_hierarchies(data, hierarchies, quasi)
    fn = _lm_weighted_loss if weighted else _lm_loss
    per = _mean_losses(data, cols, hs, {c: fn for c in cols}, n_suppressed)
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
    numeric_ranges: bool | Collection[str], cols: Sequence[str], hs: Mapping[str, Hierarchy]
) -> dict[str, np.ndarray]:
    """Columns measured by value range, with their numeric leaf values."""
    if isinstance(numeric_ranges, (bool, np.bool_)):
        if not numeric_ranges:
            return {}
        out = {}
        for c in cols:
            vals = _numeric_leaves(hs[c])
            if vals is not None:
                out[c] = vals
        return out
    wanted = normalize_columns(numeric_ranges, "numeric_ranges")
    stray = [c for c in wanted if c not in cols]
    if stray:
        raise InputError(
            f"'numeric_ranges' names column(s) {', '.join(map(repr, stray))} that are not "
            f"quasi-identifiers here ({', '.join(map(repr, cols))})"
        )
    out = {}
    for c in wanted:
        vals = _numeric_leaves(hs[c])
        if vals is None:
            raise HierarchyError(
                f"column '{c}': numeric_ranges needs a hierarchy whose leaves are numbers; "
                f"leaves include {hs[c].leaves[:3]!r}"
            )
        out[c] = vals
    return out


def ncp(
    data: pd.DataFrame,
    hierarchies: Mapping[str, Hierarchy],
    quasi: Sequence[str] | str | None = None,
    weights: Mapping[str, float] | Sequence[float] | None = None,
    *,
    numeric_ranges: bool | Collection[str] = False,
    suppressed: int = 0,
) -> NCPScore:
    """Normalized certainty penalty (NCP) per attribute and global certainty penalty (GCP).

    Per cell holding node ``v`` (Xu et al. 2006): categorical
    ``NCP(v) = 0`` if ``v`` covers one leaf, else ``|leaves(v)| / |domain|``. For a column measured
    by range, ``NCP(v) = (max - min of the leaf values under v) / (max - min of all leaf values)``.
    An attribute's NCP is the mean over its cells; GCP (Ghinita et al. 2007) is the weighted mean
    of the attributes' NCP, in ``[0, 1]``.

    Parameters
    ----------
    data : pandas.DataFrame
        Generalized table; QI cells hold leaves, inner labels of the hierarchy, or ``"*"``.
    hierarchies : mapping of str to Hierarchy
        Hierarchy of each quasi-identifier column.
    quasi : sequence of str or str, optional
        Quasi-identifier columns (default: every key of ``hierarchies``, in order).
    weights : mapping of str to float or sequence of float, optional
        Non-negative attribute weights (one per QI column; normalized to sum 1). Default: equal.
    numeric_ranges : bool or collection of str, default False
        ``True``: measure by value range every QI column whose hierarchy leaves are all numbers
        (other columns keep the leaf-count rule). A collection: exactly these columns (their
        leaves must be numbers). ``False``: the leaf-count rule everywhere.
    suppressed : int, default 0
        Rows removed from ``data`` by suppression; each costs the root's NCP in every cell.

    Returns
    -------
    NCPScore
        ``gcp``, ``per_attribute`` and the normalized ``weights``.

    Raises
    ------
    InputError
        Bad table, QI list, weights or ``suppressed``; a QI column without hierarchy; missing
        values.
    HierarchyError
        A cell value not in its hierarchy, or a ``numeric_ranges`` column with non-numeric leaves.
    """
    n_suppressed = check_count(suppressed, "suppressed")
    cols, hs = check_hierarchies(data, hierarchies, quasi)
    w = _check_weights(weights, cols)
    ranged = _range_columns(numeric_ranges, cols, hs)
    losses = {c: _ncp_range_loss(ranged[c]) if c in ranged else _ncp_count_loss for c in cols}
    per = _mean_losses(data, cols, hs, losses, n_suppressed)
    gcp = float(sum(w[c] * per[c] for c in cols))
    return NCPScore(gcp=min(max(gcp, 0.0), 1.0), per_attribute=per, weights=w)


def precision(
    data: pd.DataFrame,
    hierarchies: Mapping[str, Hierarchy],
    quasi: Sequence[str] | str | None = None,
    suppressed: int = 0,
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

    Returns
    -------
    float
        In ``[0, 1]``: 1 for original values, 0 when every cell is ``"*"``.

    Raises
    ------
    InputError
        Bad table or QI list, a QI column without hierarchy, missing values, ``suppressed < 0``.
    HierarchyError
        A cell value that is not a label of its column's hierarchy.
    """
    n_suppressed = check_count(suppressed, "suppressed")
    cols, hs = check_hierarchies(data, hierarchies, quasi)
    per = _mean_losses(data, cols, hs, {c: _precision_loss for c in cols}, n_suppressed)
    return float(1.0 - np.mean(list(per.values())))
