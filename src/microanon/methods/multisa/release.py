"""The multi-SA releases: the strong-rule mixed model and Rating.

The mixed model of Yi & Shi, *Privacy Protection Method for Multiple Sensitive Attributes Based on
Strong Rule*, Mathematical Problems in Engineering 2015, Art. ID 464731; Rating of Liu, Luo & Huang
(ICDM Workshops 2011).

Both publish the quasi-identifiers unchanged in three tables (release kind ``multi-sa``):

* ``sac`` — SAC~: the grouped records, with an integer ``group`` column; within a group, the
  vectors of values of one cluster of sensitive attributes are permuted among the records, and
  each cluster independently, so links inside a cluster survive and links across clusters do not;
* ``at`` — the other records, each sensitive value replaced by the name of the SID that absorbed
  it (``attribute#number``); a record whose value no SID can take is left out (Rating's
  algorithm publishes such a value as ``*``, which would give it away: see :func:`rating`);
* ``idt`` — ``attribute``, ``sid``, ``value``: the member values of every SID.

The mixed model (:func:`mixed_model`) mines the strong rules, splits the table into SAC and IR
(Algorithm 7), clusters the sensitive attributes (Algorithm 10), groups SAC into groups of ``l``
records with pairwise distinct values on every sensitive attribute (Algorithm 11) and publishes
the remaining IR records with improved Rating. :func:`rating` publishes every record with Rating
(original or improved SID creation) and an empty ``sac`` table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import Boolean, Integer, Param, PerColumn, Real
from ...core.errors import InfeasibleError, InputError, SchemaError
from ...core.factorize import factorize_keys, remember, sharing
from ...core.random import RandomLike, make_rng
from ...core.release import Release, canonical_column
from ...core.schema import Kind, Schema
from ...core.table import Table
from ...core.wording import how_many
from ...models.multisa_check import GROUP_COLUMN, IDT_COLUMNS, SUPPRESSED_SID
from ..registry import method
from ..release import generalized_release, prepare, text_column
from .clustering import cluster_attributes
from .grouping import Grouping, group_records
from .itemsets import check_max_items, check_min_support, itemset_rule_codes
from .partition import sac_partition
from .rules import check_min_confidence, rule_codes
from .sids import assign_sids, check_l, create_sids

__all__ = ["mixed_model", "rating", "GROUP_COLUMN", "SUPPRESSED_SID", "IDT_COLUMNS"]


def _check_flag(value: Any, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{what}: needs True or False, got {value!r}")
    return bool(value)


def _prepare(data: pd.DataFrame, schema: Schema | Mapping[str, Any]) -> tuple[Table, list[str]]:
    """Encode the input; check that there are two or more sensitive columns and no clash."""
    table, _ = prepare(data, schema, need_hierarchies=False)
    sensitive = table.schema.sensitive
    if len(sensitive) < 2:
        raise SchemaError(
            "multiple-sensitive-attribute methods need at least two sensitive columns in the "
            f"schema, found {len(sensitive)}" + (f" ({', '.join(sensitive)})" if sensitive else "")
        )
    if GROUP_COLUMN in table.columns:
        raise InputError(
            f"column '{GROUP_COLUMN}' clashes with the group column of the published SAC table; "
            "rename it"
        )
    return table, sensitive


def _l_per_attribute(l: Any, sensitive: list[str]) -> dict[str, int]:  # noqa: E741
    if isinstance(l, Mapping):
        unknown = [str(k) for k in l if k not in sensitive]
        if unknown:
            raise InputError(
                f"l: {', '.join(map(repr, unknown))} not sensitive column(s); they are "
                + ", ".join(sensitive)
            )
        absent = [s for s in sensitive if s not in l]
        if absent:
            raise InputError(f"l: no value for sensitive column(s) {', '.join(absent)}")
        return {s: check_l(l[s], f"l[{s!r}]") for s in sensitive}
    ell = check_l(l)
    return {s: ell for s in sensitive}


def _check_domains(
    codes: np.ndarray, sensitive: list[str], ells: dict[str, int], *, groups: bool
) -> None:
    """Refuse an ``l`` above a sensitive column's number of distinct values, whatever
    ``allow_suppression`` says (as Anatomy refuses it): no SID (and no SAC group, ``groups``)
    could hold l different values of it, so none of its values could be published.

    Raises
    ------
    InfeasibleError
        One line naming every such column, its number of distinct values and its l.
    """
    few = {
        s: distinct
        for j, s in enumerate(sensitive)
        if (distinct := int(np.count_nonzero(np.bincount(codes[:, j])))) < ells[s]
    }
    if not few:
        return
    shared = len({ells[s] for s in few}) == 1
    named = " and ".join(
        f"'{s}' ({how_many(k, 'distinct value')}" + ("" if shared else f", l = {ells[s]}") + ")"
        for s, k in few.items()
    )
    head = f"l = {ells[next(iter(few))]}" if shared else "l"
    plural = "s" if len(few) > 1 else ""
    them = "them" if len(few) > 1 else "it"
    why = (
        "every SAC group and every SID needs l different values of each sensitive column, so "
        "no SAC group could form (its records would be deleted) and no SID could take the "
        f"other records' values of {them}"
        if groups
        else "every SID needs l different values of its column, so no SID could take a value "
        f"of {them}"
    )
    single = [s for s, k in few.items() if k < 2]
    if single:  # (no l of 2 or more: another role is the way)
        way = (
            f"give {' and '.join(repr(s) for s in single)} another role (one value cannot be "
            "l-diverse: insensitive publishes it with its records)"
        )
        others = len(few) - len(single)
        if others:
            way += ", and lower l for the other column" + ("s" if others > 1 else "")
    else:
        way = f"lower l to {min(few.values())} or less" if shared else "lower l"
    raise InfeasibleError(
        f"{head} is impossible for sensitive column{plural} {named}: {why}; {way}"
    )


def _lower_l(ell: int) -> str:
    """The first way on from a refusal of ``ell``: lower it, or, at 2 already, fewer sensitive
    columns (each one more is one more set of values a group's records must differ on). Role
    identifier is named first: a sensitive column derived from another one (a type's dummies
    beside the type) may not be published unchanged, which the schema lint refuses."""
    if ell > 2:
        return "lower l"
    return (
        "give one or more of the sensitive columns another role: identifier (left out) or "
        "insensitive (published unchanged) (l = 2 is the least)"
    )


def _deletion_error(
    codes: np.ndarray, deleted: np.ndarray, table: Table, sensitive: list[str], ell: int
) -> InfeasibleError:
    """Name the attribute on which the records to delete concentrate most."""
    counts = [np.bincount(codes[deleted, j]) for j in range(len(sensitive))]
    j = max(range(len(sensitive)), key=lambda j: counts[j].max())  # ties: the first
    name, top = sensitive[j], int(np.argmax(counts[j]))
    return InfeasibleError(
        f"{len(deleted)} SAC record(s) cannot be put into groups of l = {ell} records with "
        f"pairwise distinct sensitive values and would be deleted; {int(counts[j][top])} of them "
        f"hold '{table.dictionary(name)[top]}' in sensitive column '{name}'; {_lower_l(ell)}, "
        "or allow suppression (allow_suppression: true) to delete them"
    )


def _nothing_published(codes: np.ndarray, ell: int) -> InfeasibleError:
    """The refusal of a mixed-model run that would publish no record: every record is in SAC
    and no group was formed (every sensitive column holding at least ``ell`` values, which
    :func:`_check_domains` checked before)."""
    return InfeasibleError(
        f"l = {ell} publishes nothing: all {len(codes):,} records are in SAC and the grouping "
        "formed no group of l records with pairwise distinct values on every sensitive column, "
        f"so all would be deleted; {_lower_l(ell)}"
    )


def _all_unplaced(ell: int, unplaced: dict[str, int]) -> InfeasibleError:
    """The refusal of a run whose records Rating would all leave out (``unplaced``: per
    sensitive column, the records left out because no SID of it could take their value)."""
    named = ", ".join(f"'{s}' {n:,}" for s, n in unplaced.items() if n)
    return InfeasibleError(
        f"l = {ell} publishes nothing: every record holds, in some sensitive column, a value no "
        f"SID can take (records left out by column: {named}), the excess of values that fill "
        "more than 1/l of their column; lower l or give such a column another role"
    )


def _deleted_by(grouping: Grouping, sensitive: list[str]) -> dict[str, int]:
    """Deleted SAC records per cause: the column that ran out of values, or ``combination``."""
    causes, counts = np.unique(grouping.cause, return_counts=True)
    return {
        (sensitive[c] if c >= 0 else "combination"): int(k)
        for c, k in zip(causes.tolist(), counts.tolist(), strict=True)
    }


def _sid_names(name: str, n_sids: int) -> np.ndarray:
    """``name#1 .. name#n``."""
    return np.asarray([f"{name}#{i}" for i in range(1, n_sids + 1)], dtype=object)


def _taken_column(table: Table, column: str, rows: np.ndarray) -> pd.Series:
    """Column ``column`` of the records ``rows`` (positions, in the order published) as a
    release publishes it, built from the table's codes: text as the object column of str
    :func:`~microanon.core.release.canonical_column` gives (its codes kept for the writer, the
    verification and the reports, :func:`~microanon.methods.release.text_column`), a numeric
    column decoded as :meth:`~microanon.core.table.Table.to_frame` decodes it."""
    index = pd.RangeIndex(len(rows))
    if table.schema[column].kind is Kind.NUMERIC:
        numbers = table.to_frame([column])[column]
        return canonical_column(numbers.iloc[rows].set_axis(index))
    return text_column(table.codes(column)[rows], table.dictionary(column), index)


def _sid_column(sid: np.ndarray, names: np.ndarray, index: pd.Index) -> pd.Series:
    """The column of SID names ``names[sid]`` (names distinct: built so), its codes kept for the
    run (:func:`~microanon.core.factorize.remember`) from the SID numbers, without comparing the
    names (hundreds of thousands at 10^6 records) as :func:`text_column` would."""
    column = pd.Series(names[sid], index=index, dtype=object, copy=False)
    if sharing():
        codes, order = factorize_keys(sid)  # numbered in order of first appearance
        remember(column, codes, pd.Index(names[order], dtype=object))
    return column


def _text_labels(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct labels (str, in order of first appearance) and the position of each of
    ``labels`` among them."""
    position: dict[str, int] = {}
    at = np.fromiter((position.setdefault(v, len(position)) for v in labels), np.int64)
    return np.asarray(list(position), dtype=object), at


def _rating_tables(
    table: Table,
    sensitive: list[str],
    rows: np.ndarray,
    ells: dict[str, int],
    *,
    improved: bool,
    allow_suppression: bool,
    rng: np.random.Generator,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """AT and IDT of the records ``rows`` (ascending), one attribute after the other, and per
    attribute the records left out because no SID of it could take their value.

    Rating puts an occurrence that every SID already holds nowhere: the values left so are
    those of the few values that fill more than ``1/l`` of the column, so published as ``*``
    (as the algorithm has it) they would give the value away, a class of fewer than ``l``
    values. With ``allow_suppression`` their records are left out instead, those of the
    attribute that leaves the most out first, and the SIDs made again on the others, until every
    published value is in a SID; else the run is refused, naming the attribute and the value.

    The tables are built from codes, their columns as a release publishes them (see
    :func:`_taken_column`): a SID column holds one object per SID name, with the record's SID
    number as its code, and the IDT's columns are taken from the attributes' names, the SID
    names and the values' text.
    """
    public = [c for c in table.columns if c not in sensitive]
    unplaced = dict.fromkeys(sensitive, 0)
    kept = rows
    while True:
        plans = [_sids_of(table, name, kept, ells[name], improved, rng) for name in sensitive]
        lost = [int(np.count_nonzero(plan.sid < 0)) for plan in plans]
        if not any(lost):
            break
        # the column that leaves the most values out first: the records left out change the
        # other columns' SIDs, which may then take the values they could not take before
        j = int(np.argmax(lost))
        if not allow_suppression:
            raise _unplaced_error(table, sensitive[j], kept, ells[sensitive[j]], plans[j])
        unplaced[sensitive[j]] += lost[j]
        kept = kept[plans[j].sid >= 0]
    # In random order: in table order the i-th AT row carrying a SID would hold, on a table
    # sorted by the sensitive value, the i-th of the values the IDT lists for it (every value
    # recovered from the public tables alone).
    order = rng.permutation(len(kept))
    at = {c: _taken_column(table, c, kept[order]) for c in public}
    for name, plan in zip(sensitive, plans, strict=True):
        at[name] = _sid_column(plan.sid[order], plan.names, pd.RangeIndex(len(kept)))
    idt = _idt(
        sensitive,
        {name: plan.names for name, plan in zip(sensitive, plans, strict=True)},
        [plan.idt for plan in plans],
        [plan.values for plan in plans],
    )
    return pd.DataFrame(at, copy=False), idt, unplaced


@dataclass(frozen=True)
class _SidPlan:
    """One attribute's SIDs over a set of records: each record's SID number (``-1``: none
    could take its value), the SID names, the IDT's (SID, value code) pairs, the values' text,
    and the value of each bucket and the bucket sizes (for a refusal)."""

    sid: np.ndarray
    names: np.ndarray
    idt: tuple[int, np.ndarray, np.ndarray]
    values: np.ndarray
    appearance: np.ndarray
    sizes: np.ndarray
    suppressed: np.ndarray


def _sids_of(
    table: Table,
    name: str,
    rows: np.ndarray,
    ell: int,
    improved: bool,
    rng: np.random.Generator,
) -> _SidPlan:
    """Rating's SIDs of attribute ``name`` over the records ``rows``, and each record's."""
    codes = table.codes(name)[rows].astype(np.int64)
    values = np.asarray([str(v) for v in table.dictionary(name)], dtype=object)
    uniq, first = np.unique(codes, return_index=True)
    appearance = uniq[np.argsort(first)]  # bucket -> code, in order of first appearance
    bucket_of = np.full(table.cardinality(name), -1, dtype=np.int64)
    bucket_of[appearance] = np.arange(len(appearance))
    buckets = bucket_of[codes]
    sizes = np.bincount(buckets, minlength=len(appearance))
    sids = create_sids(sizes, ell, improved=improved)
    sid = assign_sids(buckets, sids, rng)
    member_codes = appearance[sids.bucket]
    key = np.lexsort((member_codes, sids.sid))
    return _SidPlan(
        sid,
        _sid_names(name, sids.n_sids),
        (sids.n_sids, sids.sid[key], member_codes[key]),
        values,
        appearance,
        sizes,
        sids.suppressed,
    )


def _unplaced_error(
    table: Table, name: str, rows: np.ndarray, ell: int, plan: _SidPlan
) -> InfeasibleError:
    """The refusal of values no SID of ``name`` can take, naming the value most of them hold."""
    lost = int(plan.suppressed.sum())
    worst = int(np.argmax(plan.suppressed))
    return InfeasibleError(
        f"sensitive column '{name}': {lost} occurrence(s) cannot be put into SIDs of "
        f"l = {ell} distinct values, {int(plan.suppressed[worst])} of them of "
        f"{plan.values[plan.appearance[worst]]!r}, which holds {int(plan.sizes[worst])} of the "
        f"{len(rows)} records published with Rating (at most n/l can be grouped); lower l, "
        f"give '{name}' another role, or allow suppression (allow_suppression: true) to leave "
        "those records out"
    )


def _idt(
    sensitive: list[str],
    names_of: dict[str, np.ndarray],
    idt_codes: list[tuple[int, np.ndarray, np.ndarray]],
    value_text: list[np.ndarray],
) -> pd.DataFrame:
    """The IDT: every attribute's SIDs with their member values, attribute after attribute,
    each in order of SID and value code; its columns taken from the (distinct) attribute names,
    SID names and value texts of all the attributes."""
    index = pd.RangeIndex(sum(len(sid) for _, sid, _ in idt_codes))
    attribute = np.repeat(np.arange(len(sensitive)), [len(sid) for _, sid, _ in idt_codes])
    # the SID names of all attributes: distinct, as attribute names are
    offsets = np.cumsum([0] + [n for n, _, _ in idt_codes])
    sid = np.concatenate([sid + offsets[j] for j, (_, sid, _) in enumerate(idt_codes)])
    sid_names = np.concatenate([names_of[a] for a in sensitive]).astype(object)
    texts, position = _text_labels(np.concatenate(value_text).astype(object))
    starts = np.cumsum([0] + [len(v) for v in value_text])
    value = np.concatenate(
        [position[starts[j] + codes] for j, (_, _, codes) in enumerate(idt_codes)]
    )
    return pd.DataFrame(
        {
            "attribute": text_column(attribute, np.asarray(sensitive, dtype=object), index),
            "sid": _sid_column(sid, sid_names, index),
            "value": text_column(value, texts, index),
        },
        copy=False,
    )


def _sac_table(
    table: Table,
    sensitive: list[str],
    grouping: Grouping,
    clusters: list[list[int]],
    rng: np.random.Generator,
) -> pd.DataFrame:
    """SAC~: the groups with every cluster's value vectors permuted within each group.

    Its columns are built from codes as the AT's (:func:`_taken_column`).
    """
    groups = grouping.groups
    n_groups, ell = groups.shape
    rows = groups.reshape(-1)
    label = np.repeat(rng.permutation(n_groups) + 1, ell)
    source = {}  # per sensitive column: the record whose value each row of SAC~ holds
    for cluster in clusters:
        slot = np.argsort(rng.random((n_groups, ell)), axis=1)
        taken = np.take_along_axis(groups, slot, axis=1).reshape(-1)
        for j in cluster:
            source[sensitive[j]] = taken
    order = np.lexsort((rows, label))
    sac = {c: _taken_column(table, c, rows[order]) for c in table.columns if c not in sensitive}
    sac[GROUP_COLUMN] = pd.Series(label[order].astype(np.int64), copy=False)
    for name in sensitive:
        sac[name] = _taken_column(table, name, source[name][order])
    return pd.DataFrame(sac, copy=False)


def _release(
    method: str,
    table: Table,
    sensitive: list[str],
    parameters: dict[str, Any],
    sac: pd.DataFrame,
    at: pd.DataFrame,
    idt: pd.DataFrame,
    multisa: dict[str, Any],
) -> Release:
    return generalized_release(
        method,
        at,
        table,
        parameters,
        [],
        kind="multi-sa",
        extra_tables={"sac": sac, "at": at, "idt": idt},
        rows_out=len(sac) + len(at),
        text=True,
        multisa=multisa,
    )


@method(
    "mixed_model",
    kind="multi-sa",
    publishes="The records in groups of l whose sensitive values break the strong association "
    "rules, with what was deleted or blanked out. Every group and SID l-diverse, re-checked on "
    "the files.",
    help="For several sensitive columns: publishes them so that strong associations between "
    "their values do not give anyone's values away.",
    params=(
        Param(
            "l",
            "Records per group and different values per sensitive column in every group.",
            (Integer(2),),
        ),
        Param(
            "min_confidence",
            "How certain an association must be to count as strong, above 0 and at most 1.",
            (Real(0, 1, closed="right"),),
        ),
        Param(
            "min_support",
            "How many records must hold an association for it to count.",
            (Integer(1),),
        ),
        Param(
            "max_items",
            "Most values in one association, both sides counted (2: between two single values).",
            (Integer(2),),
            none_means="no limit",
        ),
        Param(
            "allow_suppression",
            "Leave out the records no group or SID can take (otherwise refuse).",
            (Boolean(),),
        ),
    ),
    in_memory_because="its groupings of several sensitive attributes are built record by record",
)
def mixed_model(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    l: int,  # noqa: E741 - the paper's name
    min_confidence: float = 0.8,
    min_support: int = 1,
    max_items: int | None = 2,
    allow_suppression: bool = True,
    rng: RandomLike = None,
) -> Release:
    """Publish a table with several sensitive attributes by the strong-rule mixed model.

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
        At least one quasi-identifier and two or more sensitive columns (their values are
        treated as categories); no hierarchy is needed.
    l : int
        Records per SAC group and distinct values per SID (``>= 2``).
    min_confidence : float
        Confidence of a strong rule (``0 < min_confidence <= 1``).
    min_support : int
        Records that must hold a strong rule's values (the paper's 1).
    max_items : int or None
        Most values in a strong rule ``X → Y`` counting both sides: 2 (default) gives the
        paper's rules between two single values; more (or ``None``: no limit) also mines rules
        with several values on a side, with mlxtend (``pip install 'microanon[rules]'``). Every
        value of such a rule is a strong value and all its attributes fall into one cluster
        (see :mod:`microanon.methods.multisa.itemsets`).
    allow_suppression : bool
        Delete SAC records that no group can take and leave out the other records whose value
        no SID can take (default; see :func:`rating`). When false, either raises
        :class:`InfeasibleError` instead. An ``l`` above a sensitive column's number of distinct
        values, and a run that would publish no record, are refused either way.
    rng : numpy.random.Generator, int or None
        Randomness of the permutations inside groups, the group labels and which occurrence of a
        value goes to which SID (``None``: OS entropy).

    Returns
    -------
    Release
        Kind ``multi-sa`` with tables ``sac`` (quasi-identifier and insensitive columns, ``group``
        ``1..g`` in random order, the sensitive columns with their original values permuted
        within the group cluster by cluster; rows sorted by group), ``at`` (the other published
        records in random order, each sensitive value replaced by its SID name
        ``attribute#number``) and ``idt`` (``attribute``, ``sid``, ``value`` as text).
        Metadata: the standard keys (``method`` ``mixed_model``; ``rows_out`` = published
        records) and ``multisa``: ``l``, ``min_confidence``, ``clusters`` (lists of attribute
        names), ``deleted`` (SAC records not published), ``deleted_by`` (those deletions by
        cause: the name of the sensitive column that ran out of values for the group, or
        ``"combination"`` when each column still had other values but no single record avoided
        all of the group's), ``unplaced`` (per attribute, the other records left out because
        no SID of it could take their value), ``strong_rules`` (their number), ``pivot``
        (``S_k``) and ``borrowed`` (IR records that completed SAC groups).

    Raises
    ------
    InputError
        A bad parameter (naming it), a column named ``group``, bad data.
    SchemaError
        No quasi-identifier or fewer than two sensitive columns.
    InfeasibleError
        Whatever ``allow_suppression`` says: a sensitive column with fewer than ``l`` distinct
        values (naming it, ``l`` and its number of values), or a run that would publish no
        record (every record in SAC and no group formed). With ``allow_suppression=False``
        also: SAC records that cannot be grouped, or values that cannot be put into SIDs
        (naming the attribute and the value).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [30, 41, 52, 63], "disease": ["flu", "flu", "ulcer", "ulcer"],
    ...                    "drug": ["a", "a", "b", "b"]})
    >>> rel = mixed_model(df, {"age": "quasi", "disease": "sensitive", "drug": "sensitive"},
    ...                   l=2, rng=0)
    >>> len(rel.tables["sac"]), rel.metadata["multisa"]["clusters"]
    (4, [['disease', 'drug']])
    """
    ell = check_l(l)
    conf = check_min_confidence(min_confidence)
    support = check_min_support(min_support)
    limit = check_max_items(max_items)
    allow = _check_flag(allow_suppression, "allow_suppression")
    gen = make_rng(rng)
    table, sensitive = _prepare(data, schema)
    codes = np.column_stack([table.codes(s).astype(np.int64) for s in sensitive])
    _check_domains(codes, sensitive, dict.fromkeys(sensitive, ell), groups=True)
    cards = [table.cardinality(s) for s in sensitive]
    columns = [codes[:, j] for j in range(len(sensitive))]
    if limit == 2:
        rules = rule_codes(columns, cards, conf, support)
    else:
        rules = itemset_rule_codes(columns, cards, conf, min_support=support, max_items=limit)
    part = sac_partition([codes[:, j] for j in range(len(sensitive))], rules.strong_values(cards))
    clusters = cluster_attributes(len(sensitive), rules.linked_attributes())
    grouping = group_records(codes, part.sac, ell)
    if part.sac.all() and not grouping.groups.size:
        raise _nothing_published(codes, ell)
    if len(grouping.deleted) and not allow:
        raise _deletion_error(codes, grouping.deleted, table, sensitive, ell)
    published = np.ones(table.n_rows, dtype=bool)
    published[part.sac] = False
    published[grouping.groups.reshape(-1)] = False
    at, idt, unplaced = _rating_tables(
        table,
        sensitive,
        np.flatnonzero(published),
        {s: ell for s in sensitive},
        improved=True,
        allow_suppression=allow,
        rng=gen,
    )
    if not len(at) and not grouping.groups.size:
        raise _all_unplaced(ell, unplaced)
    sac = _sac_table(table, sensitive, grouping, clusters, gen)
    return _release(
        "mixed_model",
        table,
        sensitive,
        {
            "l": ell,
            "min_confidence": conf,
            "min_support": support,
            "max_items": limit,
            "allow_suppression": allow,
        },
        sac,
        at,
        idt,
        {
            "l": ell,
            "min_confidence": conf,
            "min_support": support,
            "max_items": limit,
            "clusters": [[sensitive[j] for j in c] for c in clusters],
            "deleted": len(grouping.deleted),
            "deleted_by": _deleted_by(grouping, sensitive),
            "unplaced": unplaced,
            "strong_rules": len(rules),
            "pivot": sensitive[part.pivot],
            "borrowed": int(np.count_nonzero(~part.sac[grouping.groups.reshape(-1)])),
        },
    )


@method(
    "rating",
    kind="multi-sa",
    publishes="An attribute table and one table per sensitive column, linked through groups "
    "holding l different values each, re-checked on the files.",
    help="For several sensitive columns: publishes each one in its own table of groups, every "
    "group holding l different values.",
    params=(
        Param(
            "l",
            "Different values per group, one for all sensitive columns or one per column.",
            (Integer(2), PerColumn(Integer(2))),
        ),
        Param(
            "improved",
            "Use the faster improved way of forming groups (the same groups as the original).",
            (Boolean(),),
        ),
        Param(
            "allow_suppression",
            "Leave out the records whose value no group can take (otherwise refuse).",
            (Boolean(),),
        ),
    ),
    in_memory_because="its groupings of several sensitive attributes are built record by record",
)
def rating(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    l: int | Mapping[str, int],  # noqa: E741 - the paper's name
    improved: bool = True,
    allow_suppression: bool = True,
    rng: RandomLike = None,
) -> Release:
    """Publish a table with several sensitive attributes by Rating (every attribute on its own).

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
        At least one quasi-identifier and two or more sensitive columns.
    l : int or mapping of str to int
        Distinct values per SID (``>= 2``), one for all sensitive columns or one per column.
    improved : bool
        Improved SID creation (dangerous buckets, heuristic re-sort; default) or the original
        stable bubble sort. Both give the same SIDs; the original is much slower.
    allow_suppression : bool
        Leave out the records whose value of some sensitive column no SID can take (default);
        when false, raise :class:`InfeasibleError` instead. Rating's algorithm publishes such a
        value as ``*``, but the values no SID can take are the excess of the few values that
        fill more than ``1/l`` of their column (every SID already holds them), so a ``*`` would
        give the value away; the SIDs are made again on the records kept. An ``l`` above a
        sensitive column's number of distinct values is refused either way.
    rng : numpy.random.Generator, int or None
        Randomness of which occurrence of a value goes to which SID (``None``: OS entropy).

    Returns
    -------
    Release
        Kind ``multi-sa`` with an empty ``sac`` table, ``at`` (every record kept, in random
        order) and ``idt`` (see :func:`mixed_model`). Metadata ``method`` is ``improved_rating`` or
        ``rating``; ``multisa`` has ``l``, ``min_confidence`` (``None``), ``clusters`` (every
        attribute alone), ``deleted`` (0), ``unplaced`` (per attribute, the records left out
        because no SID of it could take their value) and ``strong_rules`` (``None``: not
        mined).

    Raises
    ------
    InputError, SchemaError
        As :func:`mixed_model`; ``l`` given for an unknown column or missing for one.
    InfeasibleError
        A sensitive column with fewer distinct values than its ``l`` (naming it, ``l`` and its
        number of values), whatever ``allow_suppression`` says; only with
        ``allow_suppression=False``: values that cannot be put into SIDs (naming attribute and
        value).
    """
    improved = _check_flag(improved, "improved")
    allow = _check_flag(allow_suppression, "allow_suppression")
    if not isinstance(l, Mapping):
        check_l(l)
    gen = make_rng(rng)
    table, sensitive = _prepare(data, schema)
    ells = _l_per_attribute(l, sensitive)
    codes = np.column_stack([table.codes(s).astype(np.int64) for s in sensitive])
    _check_domains(codes, sensitive, ells, groups=False)
    at, idt, unplaced = _rating_tables(
        table,
        sensitive,
        np.arange(table.n_rows),
        ells,
        improved=improved,
        allow_suppression=allow,
        rng=gen,
    )
    if not len(at):
        raise _all_unplaced(max(ells.values()), unplaced)
    none = np.zeros(0, dtype=np.int64)
    sac = {c: _taken_column(table, c, none) for c in table.columns if c not in sensitive}
    sac[GROUP_COLUMN] = pd.Series(none, copy=False)
    sac |= {c: _taken_column(table, c, none) for c in sensitive}
    l_meta = ells if isinstance(l, Mapping) else ells[sensitive[0]]
    return _release(
        "improved_rating" if improved else "rating",
        table,
        sensitive,
        {"l": l_meta, "improved": improved, "allow_suppression": allow},
        pd.DataFrame(sac, copy=False),
        at,
        idt,
        {
            "l": l_meta,
            "min_confidence": None,
            "clusters": [[s] for s in sensitive],
            "deleted": 0,
            "unplaced": unplaced,
            "strong_rules": None,
        },
    )
