"""Anatomy: publish exact quasi-identifiers and the sensitive values in two tables linked only by
a group id.

Xiao & Tao, *Anatomy: Simple and Effective Privacy Preservation*, VLDB 2006.

The quasi-identifier table (QIT) holds every published non-sensitive column with its exact values
plus a ``group`` column; the sensitive table (ST) holds ``group``, the sensitive value and
``count``. Every group is frequency ℓ-diverse: no sensitive value covers more than ``1/ℓ`` of its
records, so an attacker who knows a person's quasi-identifiers links them to a sensitive value
with probability at most ``1/ℓ``.

Group formation (vectorized, no loop over groups or rows). Xiao & Tao hash the tuples into one
bucket per sensitive value and, while at least ℓ buckets are non-empty, form a group with one
tuple from each of the ℓ largest buckets; the ``r = n mod ℓ`` residual tuples (distinct values)
each join a group not yet holding their value. Under the eligibility condition (no value in more
than ``n/ℓ`` records) this ends with ``g = ⌊n/ℓ⌋`` groups of ℓ distinct values plus the residue.
The same kind of partition is computed here arithmetically: tuples are laid out bucket after
bucket (largest bucket first, tuples in random order inside each bucket) and the tuple at position
``p`` joins group ``p mod g``. A bucket holds at most ``g`` tuples (``c ≤ n/ℓ``), so its tuples
fall into distinct groups: every group holds at least ℓ tuples, all with *distinct* sensitive
values. The residue (positions ``ℓg .. n-1``) goes to groups ``0 .. r-1``, which get ℓ + 1
tuples; only when ``r > g`` (possible only for ``n < ℓ(ℓ-1)``) it wraps around and sizes are
``⌊n/g⌋`` or ``⌈n/g⌉`` (then some group must exceed ℓ + 1 whatever the algorithm).
This is the output class of the greedy algorithm with residual tuples spread over distinct
groups, and the reconstruction error is the same: ``n - g`` for every partition into ``g`` groups
of distinct values. Cost: one random permutation and one stable (radix) sort of small integer
codes, O(n).

Randomness and row order. Which tuple of a bucket goes to which group is drawn with ``rng``;
group ids are then relabelled by a random permutation (so an id says nothing about bucket sizes)
and the QIT rows are shuffled, so neither the row order of the QIT nor a group id carries the
original row order. The seed is never stored.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import Integer, Param
from ...core.errors import InfeasibleError, InputError
from ...core.keys import shown
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import Kind, Schema
from ...models import LDiversity
from ...models.config import one_sensitive_column
from ..registry import method
from ..release import generalized_release, prepare

__all__ = ["anatomy", "GROUP_COLUMN", "COUNT_COLUMN"]

#: Name of the group-id column of both tables.
GROUP_COLUMN = "group"
#: Name of the count column of the sensitive table.
COUNT_COLUMN = "count"


def _check_l(l: Any) -> int:  # noqa: E741 - the model's own name for the parameter
    if (
        isinstance(l, (bool, np.bool_))
        or not isinstance(l, numbers.Real)
        or float(l) != int(l)
        or int(l) < 2
    ):
        raise InputError(f"l: Anatomy needs a whole number l >= 2, got {l!r}")
    return int(l)


def _check_eligible(sa_counts: np.ndarray, values: np.ndarray, column: str, ell: int) -> None:
    """Raise InfeasibleError unless a frequency ℓ-diverse partition exists (eligibility)."""
    n = int(sa_counts.sum())
    present = int(np.count_nonzero(sa_counts))
    top = int(np.argmax(sa_counts))
    largest = min(present, n // int(sa_counts[top]))  # the largest eligible l
    if ell > present:
        why = f"column '{column}' has only {present} distinct value(s); every group needs l "
        raise InfeasibleError(
            f"l = {ell} is impossible: {why}different sensitive values; {_way_on(largest, present)}"
        )
    if sa_counts[top] * ell > n:
        raise InfeasibleError(
            f"l = {ell} is impossible: value {shown(values[top])} of column '{column}' occurs in "
            f"{int(sa_counts[top]):,} of {n:,} records, more than n/l = {n / ell:,.6g}; "
            + _way_on(largest, present)
        )


def _way_on(largest: int, present: int) -> str:
    """What to do when ℓ is infeasible: lower it to ``largest``, the largest eligible ℓ; when
    even ℓ = 2 is not (a value in more than half the records), another sensitive column or a
    method whose ℓ-diversity is the distinct one, which the column meets with one record of
    another value per class (merging values never helps: it only makes a value more frequent)."""
    if largest >= 2:
        return f"lower l to {largest} or less"
    if present < 2:
        return "give another column the sensitive role"
    return (
        "no l of 2 or more is possible for this column (Anatomy needs every sensitive value in "
        "at most 1/l of the records): give another column the sensitive role, or use full_domain "
        "or mondrian with the model l_diversity: {l: 2}"
    )


def _assign_groups(sa: np.ndarray, sa_counts: np.ndarray, ell: int, rng: np.random.Generator):
    """Group id of every record (``0 .. g-1``, randomly labelled) and the number of groups."""
    n = len(sa)
    g = n // ell
    # Bucket order: largest bucket first (ties by code); tuples in random order inside a bucket.
    bucket_rank = np.empty(len(sa_counts), dtype=np.int64)
    bucket_rank[np.argsort(-sa_counts, kind="stable")] = np.arange(len(sa_counts))
    perm = rng.permutation(n)
    keys = bucket_rank[sa[perm]].astype(np.min_scalar_type(len(sa_counts)))  # radix-sortable
    layout = perm[np.argsort(keys, kind="stable")]
    group = np.empty(n, dtype=np.int64)
    group[layout] = np.arange(n, dtype=np.int64) % g
    return rng.permutation(g)[group], g


@method(
    "anatomy",
    kind="anatomized",
    publishes="Two tables: the exact quasi-identifiers with a group number, and per group its "
    "sensitive values with counts. Frequency l-diversity by construction, re-checked.",
    help="Publishes the quasi-identifiers unchanged in one table and the sensitive values in "
    "another, linked only by a group number: every group holds l different sensitive values.",
    params=(
        Param("l", "Number of different sensitive values every group must hold.", (Integer(2),)),
    ),
    in_memory_because="it builds groups record by record from the whole table",
)
def anatomy(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    l: int,  # noqa: E741 - the model's own name for the parameter
    rng: RandomLike = None,
) -> Release:
    """Anatomize a table: exact quasi-identifiers in one table, sensitive values in another.

    Parameters
    ----------
    data : DataFrame
        The original table.
    schema : Schema or mapping
        Must have at least one quasi-identifier and exactly one sensitive column. Hierarchies are
        not needed (values are published exactly).
    l : int
        Required frequency ℓ-diversity of every group (``>= 2``).
    rng : numpy.random.Generator, int or None
        Randomness for the tuple choice, group labels and QIT row order (``None``: OS entropy).

    Returns
    -------
    Release
        Kind ``"anatomized"`` with tables ``qit`` (the quasi-identifier and insensitive columns in
        schema order, exact values, plus an integer ``group`` column ``1..g``; rows in random
        order) and ``st`` (``group``, the sensitive column, ``count``; one row per group and value,
        sorted by group). Metadata: the standard keys of a generalization-style release
        (``rows_out`` = QIT rows = records), ``l`` and ``groups`` (the number of groups). The
        claimed model is frequency ℓ-diversity of the groups (the group id as quasi-identifier).

    Raises
    ------
    InputError
        ``l`` not a whole number >= 2; a published column named ``group``, or a sensitive column
        named ``count``; bad data (see :meth:`microanon.Table.from_frame`).
    SchemaError
        No quasi-identifier, or not exactly one sensitive column.
    InfeasibleError
        A sensitive value occurs in more than ``n/l`` records (naming it and its count), or ``l``
        exceeds the number of distinct sensitive values.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [23, 27, 35, 59, 61, 65],
    ...                    "disease": ["flu", "gastritis", "flu", "flu", "dyspepsia", "cold"]})
    >>> rel = anatomy(df, {"age": "quasi", "disease": "sensitive"}, l=2, rng=0)
    >>> rel.metadata["groups"], len(rel.tables["qit"]), int(rel.tables["st"]["count"].max())
    (3, 6, 1)
    """
    ell = _check_l(l)
    schema = schema if isinstance(schema, Schema) else Schema.from_dict(schema)
    sensitive = one_sensitive_column("Anatomy", schema.sensitive)  # (before its missing values)
    table, _ = prepare(data, schema, need_hierarchies=False)
    schema_ = table.schema
    public = [c for c in table.columns if c != sensitive]
    if GROUP_COLUMN in public or sensitive in (GROUP_COLUMN, COUNT_COLUMN):
        clash = GROUP_COLUMN if GROUP_COLUMN in public else sensitive
        raise InputError(
            f"column '{clash}' clashes with a column Anatomy adds ('{GROUP_COLUMN}', "
            f"'{COUNT_COLUMN}'); rename it"
        )
    sa = table.codes(sensitive).astype(np.int64)
    values = table.dictionary(sensitive)
    sa_counts = np.bincount(sa, minlength=len(values))
    _check_eligible(sa_counts, values, sensitive, ell)

    gen = make_rng(rng)
    group, n_groups = _assign_groups(sa, sa_counts, ell, gen)

    qit = table.to_frame(public).reset_index(drop=True)
    qit[GROUP_COLUMN] = group + 1
    qit = qit.iloc[gen.permutation(len(qit))].reset_index(drop=True)

    m = len(values)
    pairs, counts = np.unique(group * m + sa, return_counts=True)
    st_group, st_value = np.divmod(pairs, m)
    sa_values = values[st_value]
    if schema_[sensitive].kind is Kind.NUMERIC:
        sa_values = pd.to_numeric(pd.Series(sa_values)).to_numpy()
    st = pd.DataFrame(
        {GROUP_COLUMN: st_group + 1, sensitive: sa_values, COUNT_COLUMN: counts.astype(np.int64)}
    )
    return generalized_release(
        "anatomy",
        qit,
        table,
        {"l": ell},
        [LDiversity(l=ell, form="frequency")],
        kind="anatomized",
        extra_tables={"qit": qit, "st": st},
        public=("l", "groups"),
        l=ell,
        groups=n_groups,
    )
