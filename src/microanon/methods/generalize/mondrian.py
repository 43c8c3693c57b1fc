"""Mondrian multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan, ICDE 2006).

LeFevre, DeWitt & Ramakrishnan, *Mondrian Multidimensional K-Anonymity*, ICDE 2006.

Strict Mondrian cuts the table recursively. For a partition, each quasi-identifier has a
normalized width:

- numeric: ``(max - min of the partition's values) / (max - min of the whole table's values)``;
- categorical or ordinal (with a hierarchy): ``covered leaves / domain size`` of the partition's
  current node — the lowest node of the hierarchy covering the partition's values (starting from
  the root and cutting into the only non-empty child is a cut every model allows, so a partition
  always sits at that node).

Dimensions are tried in decreasing width (ties in schema order); the first allowed cut is made:

- numeric: at the median — the ``⌈n/2⌉``-th smallest of the partition's ``n`` values — into
  ``<= median`` and ``> median``; with ``relaxed=True`` the values equal to the median are shared
  out so that the two sides hold ``⌈n/2⌉`` and ``⌊n/2⌋`` records;
- categorical: into the children of the current node (one part per non-empty child).

A cut is allowed when it yields at least two parts and every part satisfies every model
(k-anonymity on its size; ℓ-diversity and t-closeness with :meth:`PrivacyModel.group_ok`,
t-closeness against the whole table's sensitive distribution). A partition with no allowed cut
is final. A dimension whose values are all equal in the partition cannot be cut.

Implementation. The work is on the frequency table of distinct (quasi-identifier codes,
sensitive code) combinations with their counts. The recursion runs breadth-first, one *round* per
depth, and every step of a round is vectorized over all partitions of that depth: segment
reductions give the bounds and widths, one lexicographic sort per tried dimension gives the
weighted medians, and the models are checked for the parts of all partitions at once. A round
costs ``O(m log m)`` for ``m`` frequency rows, and there are about ``log2(n / k)`` rounds plus
the heights of the hierarchies, so the whole run is ``O(n log n)``; Python loops only run over
rounds and dimensions. In relaxed mode a frequency row that straddles the median is split into
two weighted pieces, and the records of that combination are assigned to the pieces in row
order.

Published values: a numeric quasi-identifier as the closed range ``"[lo, hi]"`` of its actual
values in the partition (the value itself, as text, when ``lo == hi``), a categorical one as the
label of its current node (the root as ``"*"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import Boolean, Param
from ...core.errors import InputError
from ...core.progress import Count, as_progress
from ...core.release import Release
from ...core.schema import Schema
from ..registry import method
from ..release import generalized_release, prepare
from ._recode import (
    CategoricalDim,
    Dim,
    Encoded,
    GroupCheck,
    NumericDim,
    box_labels,
    encode,
    group_bounds,
    publish,
    quasi_dims,
)

__all__ = ["mondrian"]


def _segments(part: np.ndarray) -> np.ndarray:
    """Start of every run of equal values in a sorted array."""
    return np.flatnonzero(np.r_[True, part[1:] != part[:-1]])


def _median_cut(
    code: np.ndarray, w: np.ndarray, part: np.ndarray, size: np.ndarray, relaxed: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cut the pieces of several partitions at their weighted median.

    Parameters
    ----------
    code, w, part : arrays over pieces
        Rank on the cut dimension, weight and partition of every piece.
    size : array over all partitions
        Records per partition.

    Returns
    -------
    index : int array
        Input piece of every output piece (in relaxed mode a piece that straddles the median
        appears twice, once per side).
    weight : int array
        Weight of every output piece.
    side : int array
        0 for the lower part, 1 for the upper part.
    """
    order = np.lexsort((code, part))
    code, w, part = code[order], w[order], part[order]
    cum = np.cumsum(w)
    firsts = _segments(part)
    base = np.zeros(len(size), dtype=np.int64)
    base[part[firsts]] = (cum - w)[firsts]  # records of earlier partitions in this order
    half = (size + 1) // 2  # ⌈n/2⌉: the median is the half-th smallest value
    if not relaxed:
        present = part[firsts]
        median = np.zeros(len(size), dtype=np.int64)
        median[present] = code[np.searchsorted(cum, base[present] + half[present], side="left")]
        return order, w, (code > median[part]).astype(np.int64)
    before = cum - w - base[part]  # records of the same partition before the piece
    lower = np.clip(half[part] - before, 0, w)  # how much of the piece falls in the lower half
    upper = w - lower
    has_lower, has_upper = lower > 0, upper > 0
    index = np.concatenate([order[has_lower], order[has_upper]])
    weight = np.concatenate([lower[has_lower], upper[has_upper]])
    side = np.repeat([0, 1], [np.count_nonzero(has_lower), np.count_nonzero(has_upper)])
    return index, weight, side


def _widths(dims: list[Dim], lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, list]:
    """Normalized width (n_parts, n_dims) and each categorical dimension's current nodes."""
    widths = np.zeros((lo.shape[1], len(dims)))
    nodes: list[np.ndarray | None] = []
    for j, d in enumerate(dims):
        if isinstance(d, NumericDim):
            if d.span > 0:
                widths[:, j] = (d.values[hi[j]] - d.values[lo[j]]) / d.span
            nodes.append(None)
        else:
            node = d.tree.lca(lo[j], hi[j])
            widths[:, j] = (d.tree.hi[node] - d.tree.lo[node]) / d.tree.n_leaves
            nodes.append(node)
    return widths, nodes


def _partition(
    dims: list[Dim], enc: Encoded, check: GroupCheck, relaxed: bool, placed: Count
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Run Mondrian breadth-first over the frequency table.

    Returns
    -------
    rows, weights, partition : int arrays over the final pieces
        Frequency row, records and final partition (``0..n-1``) of every piece.
    n : int
        Number of final partitions.
    """
    n_dims = len(dims)
    stride = max([d.tree.hierarchy.n_nodes if isinstance(d, CategoricalDim) else 2 for d in dims])
    rows = np.arange(len(enc.counts))
    w = enc.counts.astype(np.int64)
    part = np.zeros(len(rows), dtype=np.int64)
    done: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    n_final = 0
    while len(rows):
        order = np.argsort(part, kind="stable")
        rows, w, part = rows[order], w[order], part[order]
        starts = _segments(part)
        n_parts = len(starts)
        size = np.add.reduceat(w, starts)
        codes = enc.codes[:, rows]
        lo = np.minimum.reduceat(codes, starts, axis=1)
        hi = np.maximum.reduceat(codes, starts, axis=1)
        widths, nodes = _widths(dims, lo, hi)
        cuttable = (hi > lo).T
        undecided = (size >= 2 * check.k) & cuttable.any(axis=1)
        rank = np.argsort(-np.where(cuttable, widths, -1.0), axis=1, kind="stable")
        next_rows, next_w, next_key = [], [], []
        for r in range(n_dims):
            dim = rank[:, r]
            tried = undecided & cuttable[np.arange(n_parts), dim]
            if not tried.any():
                break
            pieces, weights, keys = [], [], []
            for j in np.unique(dim[tried]):
                sel = np.flatnonzero((tried & (dim == j))[part])
                d = dims[j]
                if isinstance(d, NumericDim):
                    idx, ww, sub = _median_cut(codes[j, sel], w[sel], part[sel], size, relaxed)
                else:
                    idx, ww = np.arange(len(sel)), w[sel]
                    sub = d.tree.child_towards(nodes[j][part[sel]], codes[j, sel])
                pieces.append(sel[idx])
                weights.append(ww)
                keys.append(part[sel[idx]] * stride + sub)
            piece = np.concatenate(pieces)
            weight = np.concatenate(weights)
            key, group = np.unique(np.concatenate(keys), return_inverse=True)
            sa = None if enc.sa is None else enc.sa[rows[piece]]
            ok = check.ok(group, weight, len(key), sa)
            owner = key // stride
            allowed = (
                tried
                & (np.bincount(owner, minlength=n_parts) >= 2)
                & (np.bincount(owner[~ok], minlength=n_parts) == 0)
            )
            take = allowed[owner[group]]
            next_rows.append(rows[piece[take]])
            next_w.append(weight[take])
            next_key.append(key[group[take]])
            undecided &= ~allowed
        split = np.zeros(n_parts, dtype=bool)
        if next_key:
            split[np.concatenate(next_key) // stride] = True
        final_id = np.cumsum(~split) - 1 + n_final
        fin = ~split[part]
        done.append((rows[fin], w[fin], final_id[part[fin]]))
        n_final += int(np.count_nonzero(~split))
        placed.advance(int(size[~split].sum()))
        if not split.any():
            break
        rows = np.concatenate(next_rows)
        w = np.concatenate(next_w)
        _, part = np.unique(np.concatenate(next_key), return_inverse=True)
    out_rows, out_w, out_part = (np.concatenate(a) for a in zip(*done, strict=True))
    return out_rows, out_w, out_part, n_final


def _row_pieces(inverse: np.ndarray, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Piece of every record: the records of a frequency row fill its pieces in row order."""
    by_row = np.argsort(rows, kind="stable")
    ends = np.cumsum(weights[by_row])
    position = np.empty(len(inverse), dtype=np.int64)
    position[np.argsort(inverse, kind="stable")] = np.arange(len(inverse))
    return by_row[np.searchsorted(ends, position, side="right")]


@method(
    "mondrian",
    kind="generalized",
    ranges=True,
    publishes="Numeric quasi-identifiers as ranges [lo, hi], categorical ones as hierarchy nodes. "
    "Claims the models given.",
    help="Splits the records into groups of similar people and publishes each group's range of "
    "values (e.g. age 30-39) instead of the values. Keeps more detail than one level for "
    "everybody; no record is removed.",
    params=(
        Param(
            "relaxed",
            "Allow records with the median value on either side of a split (groups more even in "
            "size).",
            (Boolean(),),
        ),
    ),
    in_memory_because="it splits the whole table recursively, and each group's recoding "
    "depends on its records",
)
def mondrian(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    models: Any,
    relaxed: bool = False,
    progress: bool = False,
) -> Release:
    """Anonymize a table with Mondrian multidimensional partitioning.

    Parameters
    ----------
    data : DataFrame
        The original table.
    schema : Schema or mapping
        At least one quasi-identifier. Numeric quasi-identifiers need no hierarchy; categorical
        and ordinal ones need one. Models on a sensitive attribute need exactly one sensitive
        column.
    models : model specification
        Anything :func:`microanon.models.as_models` reads, e.g.
        ``[{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 3}}]``.
    relaxed : bool, default False
        Relaxed Mondrian: records whose value equals the median may go to either side so that a
        numeric cut is balanced (the ranges of the two sides may then share the median).
    progress : bool, default False
        Show a progress bar (records placed in final partitions).

    Returns
    -------
    Release
        Kind ``"generalized"``: table ``data`` with the published columns in schema order and
        the original row order; numeric quasi-identifiers as text ``"[lo, hi]"`` (or the value
        when ``lo == hi``), categorical ones as hierarchy labels (the root as ``"*"``), other
        columns unchanged. Metadata: the standard keys plus ``partitions`` (number of final
        partitions), ``relaxed`` and ``suppressed`` (always 0). In strict mode every partition
        is one equivalence class of the published table; in relaxed mode two partitions may
        publish the same values and form one class (which still satisfies every model, as each
        model here is preserved by merging groups).

    Raises
    ------
    InputError
        ``relaxed`` not a bool; bad data (see :meth:`microanon.Table.from_frame`) or models.
    SchemaError
        No quasi-identifier; a non-numeric quasi-identifier without hierarchy; a sensitive
        model without exactly one sensitive column.
    InfeasibleError
        A model fails on the whole table (e.g. k above the number of records, ℓ above the number
        of distinct sensitive values).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [25, 25, 26, 27, 27, 28], "zip": [1, 2, 3, 4, 5, 6]})
    >>> rel = mondrian(df, {"age": {"role": "quasi", "kind": "numeric"}, "zip": "insensitive"},
    ...                models={"k_anonymity": {"k": 3}})
    >>> list(rel.data["age"]), rel.metadata["partitions"]
    (['[25, 26]', '[25, 26]', '[25, 26]', '[27, 28]', '[27, 28]', '[27, 28]'], 2)
    """
    if not isinstance(relaxed, (bool, np.bool_)):
        raise InputError(f"relaxed must be True or False, got {relaxed!r}")
    table, resolved = prepare(data, schema, models, need_hierarchies=False, unknown_sensitive=True)
    dims = quasi_dims(table, "Mondrian")
    sensitive = table.schema.sensitive[0] if any(m.needs_sensitive for m in resolved) else None
    enc = encode(table, dims, sensitive)
    check = GroupCheck(resolved, table, enc)
    check.require_feasible(enc)
    with as_progress(bool(progress)).count("mondrian", table.n_rows, unit="rec") as placed:
        rows, weights, part, n_parts = _partition(dims, enc, check, bool(relaxed), placed)
    lo, hi = group_bounds(enc.codes, rows, part, n_parts)
    group_of_row = part[_row_pieces(enc.inverse, rows, weights)]
    published = publish(table, dims, box_labels(dims, lo, hi), group_of_row)
    return generalized_release(
        "mondrian",
        published,
        table,
        {"relaxed": bool(relaxed)},
        resolved,
        public=("partitions", "relaxed"),
        text=True,
        partitions=n_parts,
        relaxed=bool(relaxed),
        suppressed=0,
    )
