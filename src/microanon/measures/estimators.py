"""What an analyst can estimate from a release, compared with the truth.

- :func:`cover_intervals` — which original domain values a published cell covers.
- :func:`estimate_joint` — the joint distribution of some quasi-identifiers and the sensitive
  attribute over the *original* domain, estimated from a generalized or an anatomized release.
- :func:`true_joint` — the same distribution computed from the original table.
- :func:`kl_divergence` — ``d_KL(P, Q)`` of the truth ``P`` from an estimate ``Q``.
- :func:`reconstruction_error` — Xiao & Tao's reconstruction error (RCE) of an anatomized release.

The estimates of generalized and anatomized releases are the ones Guo, Ying & Wu compare
randomized response with (*Limiting Attribute Disclosure in Randomization Based Microdata
Release*, Journal of Computing Science and Engineering 5(3):169–182, 2011, Figs. 5–7); the paper
does not spell them out, so their form below is our reconstruction. The reconstruction error is
that of Xiao & Tao, *Anatomy: Simple and Effective Privacy Preservation*, VLDB 2006.

Covers. Codes of a :class:`~microanon.core.table.Table` column are positions in its dictionary:
the hierarchy's leaves in depth-first order for a column with a hierarchy, ascending values for a
numeric column, the declared order for an ordinal one, sorted values otherwise. Every published
cell covers a contiguous run of those codes: an original value covers itself, ``"*"`` covers the
whole domain, a label of the column's hierarchy covers the leaves under it, and a numeric range
``[lo, hi]`` (any of ``[ ] ( )`` brackets) covers the domain values inside it (the domain must be
numeric and ascending).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import HierarchyError, InputError
from ..core.hierarchy import SUPPRESSED, Hierarchy, parse_interval, value_key
from ..core.release import Release
from ..core.table import Table, combine_codes, factorize_column
from ..methods.generalize.anatomy import COUNT_COLUMN, GROUP_COLUMN
from .common import normalize_columns, numeric_values

__all__ = [
    "MAX_JOINT_CELLS",
    "cover_intervals",
    "estimate_joint",
    "kl_divergence",
    "reconstruction_error",
    "true_joint",
]

#: Largest dense joint distribution :func:`estimate_joint` and :func:`true_joint` build.
MAX_JOINT_CELLS = 50_000_000
#: Floor applied to the estimate in :func:`kl_divergence` (our guard: keeps the logarithm finite).
KL_FLOOR = 1e-12


# ---------------------------------------------------------------------------------- covers
def _ascending_numbers(domain: Sequence[Any]) -> np.ndarray | None:
    """The domain as floats if every value is a finite number in strictly ascending order."""
    vals = numeric_values(domain)
    if vals is None or len(vals) == 0 or np.any(np.diff(vals) <= 0):
        return None
    return vals


def cover_intervals(
    labels: Sequence[Any],
    domain: Sequence[Any],
    *,
    hierarchy: Hierarchy | None = None,
    column: str = "?",
) -> tuple[np.ndarray, np.ndarray]:
    """Run ``[lo, hi)`` of domain positions covered by each published label.

    Parameters
    ----------
    labels : sequence
        Published cell values (typically the distinct values of a released column).
    domain : sequence
        The original domain in code order; with a ``hierarchy`` it must be its leaves in
        depth-first order (the coding of :class:`~microanon.core.table.Table`).
    hierarchy : Hierarchy, optional
        Resolves inner labels to the leaves under them.
    column : str
        Column name for error messages.

    Returns
    -------
    lo, hi : (len(labels),) int64 arrays
        Label ``i`` covers domain positions ``lo[i] .. hi[i] - 1``.

    Raises
    ------
    InputError
        A label that is neither a domain value, ``"*"``, a hierarchy label nor a numeric range
        over a numeric ascending domain; a range that covers no domain value; a hierarchy whose
        leaves are not ``domain``.
    """
    domain = list(domain)
    d = len(domain)
    if hierarchy is not None and [value_key(v) for v in hierarchy.leaves] != [
        value_key(v) for v in domain
    ]:
        raise InputError(
            f"column '{column}': the hierarchy's leaves are not the column's domain in code order"
        )
    position = {value_key(v): i for i, v in enumerate(domain)}
    numbers: np.ndarray | None = None
    lo = np.empty(len(labels), dtype=np.int64)
    hi = np.empty(len(labels), dtype=np.int64)
    for i, label in enumerate(labels):  # one pass over distinct labels, never over rows
        key = value_key(label)
        if key in position:
            lo[i] = position[key]
            hi[i] = lo[i] + 1
            continue
        if key == SUPPRESSED:
            lo[i], hi[i] = 0, d
            continue
        if hierarchy is not None:
            try:
                node = hierarchy.node_of([label], column=column)
            except HierarchyError:  # not a label of the hierarchy: maybe a range
                node = None
            if node is not None:
                a, b = hierarchy.leaf_range(node)
                lo[i], hi[i] = int(a[0]), int(b[0])
                continue
        interval = parse_interval(key)
        if interval is not None:
            if numbers is None:
                numbers = _ascending_numbers(domain)
            if numbers is None:
                raise InputError(
                    f"column '{column}': range {label!r} needs a numeric domain in ascending "
                    "code order"
                )
            a, b, closed_lo, closed_hi = interval
            lo[i] = np.searchsorted(numbers, a, side="left" if closed_lo else "right")
            hi[i] = np.searchsorted(numbers, b, side="right" if closed_hi else "left")
            if hi[i] <= lo[i]:
                raise InputError(f"column '{column}': range {label!r} covers no original value")
            continue
        raise InputError(
            f"column '{column}': published value {label!r} is not an original value, '*', a "
            "label of the column's hierarchy or a numeric range such as '[20, 29]'"
        )
    return lo, hi


def _table_cover(
    series: pd.Series, original: Table, column: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row codes of a released column's distinct values and their covers in the Table's coding."""
    codes, uniques = factorize_column(series, column)
    h = original.schema[column].hierarchy
    lo, hi = cover_intervals(
        list(uniques),
        original.dictionary(column),
        hierarchy=h if isinstance(h, Hierarchy) else None,
        column=column,
    )
    return codes, lo, hi


# ---------------------------------------------------------------------------------- joint
def _check_joint_columns(original: Table, columns: Any, sensitive: Any) -> tuple[list[str], str]:
    if not isinstance(original, Table):
        raise InputError(
            f"original must be a microanon Table (Table.from_frame), got {type(original).__name__}"
        )
    empty = isinstance(columns, (list, tuple)) and len(columns) == 0
    cols = [] if empty else normalize_columns(columns, "columns")
    if not isinstance(sensitive, str):
        raise InputError(f"sensitive must be one column name, got {sensitive!r}")
    if sensitive in cols:
        raise InputError(f"sensitive column '{sensitive}' is also listed in 'columns'")
    absent = [c for c in cols + [sensitive] if c not in original.columns]
    if absent:
        raise InputError(
            f"column(s) {', '.join(map(repr, absent))} not in the original table; it has "
            + ", ".join(original.columns)
        )
    return cols, sensitive


def _joint_shape(original: Table, dims: list[str]) -> tuple[int, ...]:
    shape = tuple(original.cardinality(c) for c in dims)
    cells = math.prod(shape)
    if cells > MAX_JOINT_CELLS:
        raise InputError(
            f"the joint distribution of {', '.join(dims)} has {cells:,} cells "
            f"({' x '.join(map(str, shape))}), more than {MAX_JOINT_CELLS:,}; use fewer or "
            "coarser columns"
        )
    return shape


def true_joint(table: Table, columns: Sequence[str], sensitive: str) -> np.ndarray:
    """The joint distribution of ``columns`` and ``sensitive`` in an original table.

    Parameters
    ----------
    table : Table
        The original table (codes index the result); a frequency table (with
        :attr:`~microanon.core.table.Table.counts`) gives the distribution of its records.
    columns : sequence of str
        Quasi-identifier columns (may be empty).
    sensitive : str

    Returns
    -------
    ndarray
        Shape ``(|dom c1|, ..., |dom sensitive|)``, summing to 1.

    Raises
    ------
    InputError
        Unknown columns, or more than :data:`MAX_JOINT_CELLS` cells.
    """
    cols, sensitive = _check_joint_columns(table, columns, sensitive)
    dims = cols + [sensitive]
    shape = _joint_shape(table, dims)
    flat = np.ravel_multi_index([table.codes(c).astype(np.int64) for c in dims], shape)
    if table.counts is None:
        counts = np.bincount(flat, minlength=math.prod(shape))
    else:  # (sums of whole numbers: the distribution the records' own rows give)
        counts = np.bincount(flat, weights=table.counts, minlength=math.prod(shape))
    return (counts / table.n_records).reshape(shape)


def _spread(shape: tuple[int, ...], lo: np.ndarray, hi: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """Dense array with ``mass[i]`` spread uniformly over the box ``lo[i] <= x < hi[i]``.

    Unit boxes are added directly; otherwise every box adds its density at the 2^D corners of
    a difference array whose running sums along every axis give the result.
    """
    width = hi - lo
    if np.all(width == 1):
        flat = np.ravel_multi_index(tuple(lo.T), shape)
        return np.bincount(flat, weights=mass, minlength=math.prod(shape)).reshape(shape)
    density = mass / np.prod(width, axis=1)
    big = tuple(s + 1 for s in shape)
    n_dims = len(shape)
    flat, weight = [], []
    for corner in range(2**n_dims):
        upper = [(corner >> j) & 1 for j in range(n_dims)]
        idx = tuple(hi[:, j] if upper[j] else lo[:, j] for j in range(n_dims))
        flat.append(np.ravel_multi_index(idx, big))
        weight.append(-density if sum(upper) % 2 else density)
    out = np.bincount(
        np.concatenate(flat), weights=np.concatenate(weight), minlength=math.prod(big)
    ).reshape(big)
    for axis in range(n_dims):
        np.cumsum(out, axis=axis, out=out)
    out = np.maximum(out[tuple(slice(0, s) for s in shape)], 0.0)
    return out / out.sum()


def _release_tables(release: Any) -> dict[str, pd.DataFrame]:
    if isinstance(release, Release):
        return release.tables
    if isinstance(release, pd.DataFrame):
        return {"data": release}
    if isinstance(release, Mapping) and all(isinstance(v, pd.DataFrame) for v in release.values()):
        return dict(release)
    raise InputError(
        "release must be a Release, a published DataFrame or a mapping of table names to "
        f"DataFrames, got {type(release).__name__}"
    )


def _need(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    absent = [c for c in columns if c not in df.columns]
    if absent:
        raise InputError(
            f"the {what} has no column(s) {', '.join(map(repr, absent))}; it has "
            + ", ".join(map(str, df.columns))
        )


def _generalized_boxes(data: pd.DataFrame, original: Table, dims: list[str]):
    _need(data, dims, "published table")
    if len(data) == 0:
        raise InputError("the published table is empty")
    parts = [_table_cover(data[c], original, c) for c in dims]
    combined = combine_codes([p[0] for p in parts], [len(p[1]) for p in parts])
    lo = np.column_stack([p[1][combined.combos[:, j]] for j, p in enumerate(parts)])
    hi = np.column_stack([p[2][combined.combos[:, j]] for j, p in enumerate(parts)])
    return lo, hi, combined.counts / len(data)


def _anatomized_boxes(qit: pd.DataFrame, st: pd.DataFrame, original: Table, cols, sensitive):
    _need(qit, cols + [GROUP_COLUMN], "QIT")
    _need(st, [GROUP_COLUMN, sensitive, COUNT_COLUMN], "ST")
    if len(qit) == 0:
        raise InputError("the QIT is empty")
    st_group, group_ids = factorize_column(st[GROUP_COLUMN], GROUP_COLUMN)
    counts = pd.to_numeric(st[COUNT_COLUMN], errors="coerce").to_numpy(float)
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise InputError(f"the ST column '{COUNT_COLUMN}' must hold non-negative counts")
    group_size = np.bincount(st_group, weights=counts, minlength=len(group_ids))
    qit_group = group_ids.get_indexer(qit[GROUP_COLUMN])
    if np.any(qit_group < 0):
        raise InputError("the QIT has group ids that the ST does not list")
    if not np.array_equal(np.bincount(qit_group, minlength=len(group_ids)), group_size):
        raise InputError("QIT and ST disagree on group sizes: not an anatomized release")
    parts = [_table_cover(qit[c], original, c) for c in cols]
    combined = combine_codes(
        [p[0] for p in parts] + [qit_group], [len(p[1]) for p in parts] + [len(group_ids)]
    )
    pair_group = combined.combos[:, -1]
    sa_codes, sa_lo, sa_hi = _table_cover(st[sensitive], original, sensitive)
    # Join each (QI combination, group) pair with the ST rows of its group.
    order = np.argsort(st_group, kind="stable")
    starts = np.searchsorted(st_group[order], np.arange(len(group_ids)))
    per_group = np.bincount(st_group, minlength=len(group_ids))
    reps = per_group[pair_group]
    pair = np.repeat(np.arange(len(pair_group)), reps)
    offset = np.arange(len(pair)) - np.repeat(np.cumsum(reps) - reps, reps)
    row = order[starts[pair_group[pair]] + offset]
    lo = [p[1][combined.combos[pair, j]] for j, p in enumerate(parts)] + [sa_lo[sa_codes[row]]]
    hi = [p[2][combined.combos[pair, j]] for j, p in enumerate(parts)] + [sa_hi[sa_codes[row]]]
    mass = combined.counts[pair] * counts[row] / group_size[st_group[row]] / len(qit)
    return np.column_stack(lo), np.column_stack(hi), mass


def estimate_joint(
    release: Release | pd.DataFrame | Mapping[str, pd.DataFrame],
    original: Table,
    columns: Sequence[str],
    sensitive: str,
) -> np.ndarray:
    """Estimate the joint distribution of ``columns`` and ``sensitive`` from a release.

    Our reconstruction of the estimators behind Guo, Ying & Wu's comparison (2011), over the
    original domain (the codes of ``original``):

    - generalized release (one table; its ``columns`` and ``sensitive`` cells hold original
      values, ``"*"``, hierarchy labels or numeric ranges): every record's mass ``1/N`` is spread
      uniformly over the original combinations its cells cover (the product of the covers), so
      each generalized group's sensitive counts are spread uniformly over the QI combinations its
      generalized values cover. Rows removed by suppression are not in the release; the estimate
      is over the published rows.
    - anatomized release (``qit`` + ``st``): a QIT tuple with QI values ``α`` in group ``g`` adds
      ``c_g(s) / |g|`` to cell ``(α, s)`` for every sensitive value ``s`` of its group (divided
      by ``N``). Its QI marginal is exactly the true one.

    Parameters
    ----------
    release : Release, DataFrame or mapping of str to DataFrame
        A release (kind ``anatomized`` or a single-table kind), a published table, or the tables
        ``{"qit": ..., "st": ...}``.
    original : Table
        The encoded original table; its dictionaries are the domains and its schema's
        hierarchies resolve generalized labels (encode with the schema the method used).
    columns : sequence of str
        Quasi-identifier columns of the joint (may be empty).
    sensitive : str
        The sensitive column.

    Returns
    -------
    ndarray
        Shape ``(|dom c1|, ..., |dom sensitive|)`` indexed by ``original``'s codes, summing to 1.

    Raises
    ------
    InputError
        More than :data:`MAX_JOINT_CELLS` (5e7) cells (naming the size: the estimate is dense,
        so use small attribute subsets); unknown or absent columns; a cell that covers no
        original value; QIT and ST that disagree.
    """
    cols, sensitive = _check_joint_columns(original, columns, sensitive)
    shape = _joint_shape(original, cols + [sensitive])
    tables = _release_tables(release)
    if "qit" in tables and "st" in tables:
        lo, hi, mass = _anatomized_boxes(tables["qit"], tables["st"], original, cols, sensitive)
    elif "data" in tables or len(tables) == 1:
        data = tables.get("data", next(iter(tables.values())))
        lo, hi, mass = _generalized_boxes(data, original, cols + [sensitive])
    else:
        raise InputError(
            f"cannot estimate from tables {', '.join(tables)}: expected 'data' or 'qit' + 'st'"
        )
    return _spread(shape, lo, hi, mass)


def kl_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """Kullback-Leibler divergence ``d_KL(P, Q) = Σ p_i log(p_i / q_i)`` (natural log).

    ``P`` is the truth (e.g. :func:`true_joint`), ``Q`` an estimate (e.g. :func:`estimate_joint`
    or a reconstruction that may hold small negative values). ``Q`` is clipped at 0,
    renormalized to sum 1 and floored at 1e-12 (our guards: Guo, Ying & Wu define KL on
    distributions); ``P`` is normalized to sum 1. Cells with ``p_i = 0`` contribute 0.

    Raises
    ------
    InputError
        Shapes differ, non-finite values, negative ``P`` entries, or an all-zero ``P`` or ``Q``.
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if p.shape != q.shape:
        raise InputError(f"P and Q must have one shape, got {p.shape} and {q.shape}")
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(q))):
        raise InputError("P and Q must hold finite numbers")
    if np.any(p < 0) or p.sum() <= 0:
        raise InputError("P must be a distribution: non-negative with a positive sum")
    q = np.clip(q, 0.0, None)
    total = q.sum()
    if total <= 0:
        raise InputError("Q has no positive entry")
    # only P's non-empty cells contribute: Q normalized and floored there alone
    nz = np.flatnonzero(p.reshape(-1) > 0)
    p_nz = p.reshape(-1)[nz] / p.sum()
    q_nz = np.maximum(q.reshape(-1)[nz] / total, KL_FLOOR)
    return max(float(np.sum(p_nz * np.log(p_nz / q_nz))), 0.0)  # >= 0 up to rounding


def reconstruction_error(release: Release | Mapping[str, pd.DataFrame]) -> float:
    """Reconstruction error (RCE) of an anatomized release (Xiao & Tao, VLDB 2006).

    For a tuple ``t`` in group ``j``, ``Err_t = Σ_v (c_j(v)/|j| - 1[v = t.S])²`` and
    ``RCE = Σ_t Err_t``. Summing over the tuples of a group with ``p_v = c_j(v)/|j|``:
    ``Σ_t Err_t = |j| Σ_v p_v² - 2 Σ_v c_j(v) p_v + |j| = |j| (1 - Σ_v p_v²)``, so

        ``RCE = Σ_j ( |j| - Σ_v c_j(v)² / |j| )``

    needs only the per-group counts of the ST (which are exact in an anatomized release): no
    alignment of published and original records is needed. A group of ``m`` distinct values,
    one record each, contributes ``m - 1``.

    Parameters
    ----------
    release : Release or mapping
        An ``anatomized`` release, or a mapping with its ``st`` table.

    Returns
    -------
    float

    Raises
    ------
    InputError
        No ``st`` table, or an ST without ``group`` and ``count`` columns or with negative counts.
    """
    tables = release.tables if isinstance(release, Release) else release
    if not isinstance(tables, Mapping) or not isinstance(tables.get("st"), pd.DataFrame):
        raise InputError("reconstruction_error needs an anatomized release (its 'st' table)")
    st = tables["st"]
    _need(st, [GROUP_COLUMN, COUNT_COLUMN], "ST")
    group, _ = factorize_column(st[GROUP_COLUMN], GROUP_COLUMN)
    counts = pd.to_numeric(st[COUNT_COLUMN], errors="coerce").to_numpy(float)
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise InputError(f"the ST column '{COUNT_COLUMN}' must hold non-negative counts")
    size = np.bincount(group, weights=counts)
    square = np.bincount(group, weights=counts**2)
    used = size > 0
    return float(np.sum(size[used] - square[used] / size[used]))
