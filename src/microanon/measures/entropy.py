"""Non-uniform entropy (De Waal & Willenborg 1999, as used by ARX): the information a generalized
table loses about each original cell.

A record whose original value of a quasi-identifier is ``v`` and whose published cell is ``g``
loses ``-log2 P(v | g)`` bits, where ``P(v | g) = f(v) / Σ_{w covered by g} f(w)`` and ``f`` are
the value frequencies of the *original* column. An unchanged cell loses 0 bits; ``"*"`` loses
``-log2(f(v) / N)``. The measure is the sum over records and quasi-identifiers.

Design for suppression: a suppressed record is either published with ``"*"`` cells (it is then
an ordinary row) or removed from the release. Removed records must still be charged, with their
original values, so the measure takes the *full* original table and a boolean ``kept`` mask over
its rows: ``published`` is aligned position by position with ``original[kept]``, and every removed
record counts as fully suppressed (``"*"`` in every quasi-identifier).

Which original values a published cell covers is decided by
:func:`~microanon.measures.estimators.cover_intervals`: the value itself, ``"*"`` (everything), a
label of the column's hierarchy (the leaves under it), or a numeric range such as ``[20, 29]`` or
``[20, 30)`` (the original values inside it). The work is one pass over the distinct
(original value, published value) pairs of each column.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.frames import pandas_if_arrow
from ..core.hierarchy import Hierarchy
from ..core.table import combine_codes, factorize_column
from .common import check_counts, check_quasi
from .estimators import cover_intervals

__all__ = ["NonUniformEntropy", "non_uniform_entropy"]


@dataclass(frozen=True)
class NonUniformEntropy:
    """Result of :func:`non_uniform_entropy`.

    Attributes
    ----------
    total : float
        Bits lost over all records and quasi-identifiers (>= 0; 0 for unmodified data).
    per_attribute : dict of str to float
        Bits lost in each quasi-identifier column.
    normalized : float
        ``total`` divided by its value when every cell is suppressed (``N`` times the sum of the
        columns' empirical entropies), in ``[0, 1]``; 0 when every column is constant.
    """

    total: float
    per_attribute: dict[str, float]
    normalized: float

    def __float__(self) -> float:
        return self.total

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly copy."""
        return {
            "total": self.total,
            "per_attribute": dict(self.per_attribute),
            "normalized": self.normalized,
        }


def _kept_mask(kept: Any, n_original: int, n_published: int) -> np.ndarray:
    if kept is None:
        if n_published != n_original:
            raise InputError(
                f"published has {n_published} rows but original has {n_original}: pass 'kept', "
                "the mask of original rows present in the release"
            )
        return np.ones(n_original, dtype=bool)
    mask = np.asarray(kept)
    if mask.dtype != bool or mask.shape != (n_original,):
        raise InputError(
            f"'kept' must be a boolean array with one entry per original row ({n_original})"
        )
    if int(mask.sum()) != n_published:
        raise InputError(
            f"'kept' marks {int(mask.sum())} rows but published has {n_published}; published "
            "must be aligned row by row with original[kept]"
        )
    return mask


def _domain(
    original: pd.Series, hierarchy: Hierarchy | None, column: str, counts: np.ndarray | None
):
    """Domain (code order), the code of every original row, and each domain value's frequency
    (in records: ``counts`` per row, or one)."""
    codes, uniques = factorize_column(original, column)
    if hierarchy is not None:
        domain = hierarchy.leaves
        to_domain = hierarchy.leaf_index(list(uniques), column=column)
    else:
        try:
            order = np.argsort(np.asarray(uniques), kind="stable")
        except TypeError:  # mixed types: any fixed order will do without ranges
            order = np.argsort([str(u) for u in uniques], kind="stable")
        domain = [uniques[i] for i in order]
        to_domain = np.empty(len(order), dtype=np.int64)
        to_domain[order] = np.arange(len(order))
    row_code = to_domain[codes]
    freq = np.bincount(row_code, weights=counts, minlength=len(domain)).astype(np.int64)
    return domain, row_code, freq


def _column_bits(
    original: pd.Series,
    published: pd.Series,
    kept: np.ndarray,
    hierarchy: Hierarchy | None,
    column: str,
    counts: np.ndarray | None,
) -> tuple[float, float]:
    """Bits lost in one column, and the bits lost if every cell were suppressed (``counts``:
    records per original row, or one)."""
    domain, row_code, freq = _domain(original, hierarchy, column, counts)
    n = int(freq.sum())
    cum = np.concatenate([[0], np.cumsum(freq)])
    pub_codes, labels = factorize_column(published, column)
    lo, hi = cover_intervals(list(labels), domain, hierarchy=hierarchy, column=column)
    kept_code = row_code[kept]
    pairs = combine_codes([kept_code, pub_codes], [len(domain), len(labels)])
    records = pairs.counts
    if counts is not None:
        records = np.bincount(pairs.inverse, weights=counts[kept], minlength=len(records))
    v, g = pairs.combos[:, 0], pairs.combos[:, 1]
    outside = (v < lo[g]) | (v >= hi[g])
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise InputError(
            f"column '{column}': published value {labels[g[i]]!r} does not cover the original "
            f"value {domain[v[i]]!r} of its row; is published aligned with original[kept]?"
        )
    covered = cum[hi[g]] - cum[lo[g]]
    bits = float(np.dot(records.astype(np.int64), np.log2(covered / freq[v])))
    dropped = None if counts is None else counts[~kept]
    removed = np.bincount(row_code[~kept], weights=dropped, minlength=len(domain)).astype(np.int64)
    present = freq > 0
    per_value = np.zeros(len(domain))
    per_value[present] = np.log2(n / freq[present])
    bits += float(np.dot(removed, per_value))
    return bits, float(np.dot(freq, per_value))


def non_uniform_entropy(
    original: pd.DataFrame,
    published: pd.DataFrame,
    quasi: Sequence[str] | str,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    *,
    kept: np.ndarray | Sequence[bool] | None = None,
    counts: np.ndarray | Sequence[int] | None = None,
) -> NonUniformEntropy:
    """Non-uniform entropy of a generalized table: ``Σ_records Σ_QI -log2 P(v | g)``.

    ``P(v | g)`` is the share of the original records whose value is covered by the published
    cell ``g`` that hold the record's original value ``v`` (frequencies from the full original
    column). See the module docstring for covers and suppression.

    Parameters
    ----------
    original : DataFrame
        The full original table (every record, including those the release removed).
    published : DataFrame
        The generalized table, aligned row by row with ``original[kept]`` (empty when every
        record was removed).
    quasi : sequence of str or str
        Quasi-identifier columns (present in both tables).
    hierarchies : mapping of str to Hierarchy, optional
        Hierarchies that resolve generalized labels (columns without one accept original values,
        ``"*"`` and numeric ranges).
    kept : boolean array, optional
        Which original rows are in ``published`` (default: all; then the tables have one
        length). Removed rows count as fully suppressed.
    counts : sequence of int, optional
        Records per row of ``original`` (and of the aligned ``published`` row): the tables are
        then a frequency table of distinct (original, published) combinations, measured as the
        tables with each row repeated ``counts`` times (default: one record per row).

    Returns
    -------
    NonUniformEntropy
        ``total`` bits, ``per_attribute`` bits and the ``normalized`` value in ``[0, 1]``.

    Raises
    ------
    InputError
        Bad tables or columns, missing values, misaligned tables or ``kept``, a published cell
        that is not a known label or does not cover its row's original value.
    HierarchyError
        An original value that is not a leaf of its column's hierarchy.
    """
    original = pandas_if_arrow(original, "original")
    published = pandas_if_arrow(published, "published")
    cols = check_quasi(original, quasi, what="original table")
    if not isinstance(published, pd.DataFrame):
        raise InputError(
            "published: expected a pandas DataFrame or an Arrow-compatible table, got "
            f"{type(published).__name__}"
        )
    absent = [c for c in cols if c not in published.columns]
    if absent:  # published may be empty: every record removed
        raise InputError(f"published table has no column(s) {', '.join(map(repr, absent))}")
    hierarchies = dict(hierarchies or {})
    bad = [c for c in cols if c in hierarchies and not isinstance(hierarchies[c], Hierarchy)]
    if bad:
        raise InputError(f"'hierarchies' entry for column '{bad[0]}' is not a Hierarchy")
    mask = _kept_mask(kept, len(original), len(published))
    weights = check_counts(counts, len(original))
    per: dict[str, float] = {}
    worst = 0.0
    for c in cols:
        bits, full = _column_bits(original[c], published[c], mask, hierarchies.get(c), c, weights)
        per[c] = max(bits, 0.0)
        worst += full
    total = float(math.fsum(per.values()))
    normalized = min(total / worst, 1.0) if worst > 0 else 0.0
    return NonUniformEntropy(total=total, per_attribute=per, normalized=normalized)
