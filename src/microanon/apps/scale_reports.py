"""The internal and public reports of a release made out of core (``anonymize --engine dask``):
full-domain generalization (:func:`write_scale_reports`), PRAM, randomized response, noise and
microaggregation within blocks (:func:`write_rowwise_reports`).

The reports of :func:`microanon.apps.publish.publish` measure frequency tables
(:mod:`microanon.apps.release_frequencies`), which can be counted partition by partition: each
partition's distinct combinations in order of first appearance, then those of the partitions'
tables in partition order, give the combinations of the whole table in order of first appearance,
with their records. The original's table is counted while the engine encodes the input
(:attr:`microanon.scale.ScaleResult.original`), the published table's in the read of the
written files that verifies them (:attr:`~microanon.scale.ScaleResult.published`);
:func:`microanon.apps.publish.make_reports` then makes the same reports as in memory, every
number measured on these tables but the household risk, which one more pass over the records
measures (:mod:`microanon.scale.households`). The warning on a published column holding a text
other software writes for a missing value (R's ``NA``) is worded from the markers the encoding
pass tallied on each partition's distinct values (:attr:`~microanon.scale.ScaleResult.markers`),
and that on a person identifier that repeats (a panel) from its values counted in that pass
(:attr:`~microanon.scale.ScaleResult.repeated`). The measures of masked numeric values (noise,
microaggregation) pair every record with its own masked record: they are measured on the pairs
the pass that wrote the release gathered, in the input's order
(:attr:`microanon.scale.WrittenRelease.masked`), by the same functions as in memory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.hierarchy import SUPPRESSED, Hierarchy
from ..core.lint import LintReport
from ..core.release import Release
from ..core.schema import Schema
from ..measures.weight_classes import INVERSE, TOTAL, stand_ins
from ..methods.generalize.full_domain import level_labels
from ..models import Verification
from ..scale.frequencies import FrequencyTable
from .publish import make_reports, write_reports
from .release_frequencies import PUBLISHED, Combinations, CountedRelease, row_classes
from .report import figures_drawn_once
from .risk import HouseholdMeasure

__all__ = [
    "combinations_of",
    "in_original_order",
    "pairs_of",
    "published_of",
    "write_rowwise_reports",
    "write_scale_reports",
]


def combinations_of(
    table: FrequencyTable, weight: str | None = None, named: Sequence[str] = ()
) -> Combinations:
    """The combinations of a frequency table of values (in its order, each once), as
    :class:`Combinations`; ``weight``, counted by class with its sums
    (:mod:`microanon.measures.weight_classes`), as the mean of each combination's usable
    weights (or a value of its refused class), with the sums of their inverses; ``named``: the
    table's columns in their order, those it did not count empty (the reports only name them)."""
    values = pd.DataFrame(dict(table.codes), columns=list(table.columns))
    inverse = None
    if weight in values.columns and table.sums:
        values[weight] = stand_ins(values[weight], table.counts, table.sums[TOTAL])
        inverse = table.sums[INVERSE]
    combos = Combinations.of(values, table.columns, table.counts, inverse=inverse)
    if not named:
        return combos
    return Combinations(combos.values.reindex(columns=list(named)), combos.counts, combos.inverse)


def _keys(frame: pd.DataFrame) -> pd.Index:
    """One text key per row of ``frame`` (its cells as text, missing cells as ``nan``)."""
    if frame.shape[1] == 0:
        return pd.Index([""] * len(frame))
    return pd.MultiIndex.from_frame(frame.astype(str)).to_flat_index()


def _distinct_keys(frame: pd.DataFrame) -> tuple[np.ndarray, pd.Index]:
    """Each row's combination of ``frame`` (by first appearance) and the text key (:func:`_keys`)
    of each combination: a table of many rows whose combinations of these columns are few is
    keyed once per combination."""
    row_class, first = row_classes(frame, list(frame.columns))
    return row_class, _keys(frame.iloc[first])


def _labels(
    hierarchy: Hierarchy, level: int, values: pd.Series, recut: Mapping[str, str]
) -> np.ndarray:
    """The published labels of ``values`` at ``level``, as the release's files hold them (a
    label the release cut again on the published values, ``recut``, in its new form)."""
    codes = hierarchy.level_codes(level)[hierarchy.leaf_index(values, str(values.name))]
    labels = level_labels(hierarchy, level)
    return np.array([recut.get(x, x) for x in labels.tolist()], dtype=object)[codes]


def published_of(
    original: Combinations,
    published: Combinations,
    quasi: Sequence[str],
    sensitive: str | None,
    result: Any,
) -> pd.DataFrame:
    """What each of the original's combinations became: its quasi-identifiers generalized with
    the release's levels (``*`` where the combination was suppressed, whether it was published
    so, in star mode, or removed) and its sensitive value, when published."""
    levels = result.metadata.get("levels") or {}
    hierarchies = result.internal.get("hierarchies") or {}
    recut = result.internal.get("recut") or {}
    shown = [c for c in [*quasi, sensitive] if c is not None and c in published.values.columns]
    labels = pd.DataFrame(
        {
            c: _labels(
                Hierarchy.from_dict(hierarchies[c]),
                int(levels[c]),
                original.values[c],
                recut.get(c, {}),
            )
            if c in quasi
            else original.values[c].to_numpy()
            for c in shown
        }
    )
    gone = ~_keys(labels).isin(_distinct_keys(published.values[shown])[1])
    labels.loc[gone, [c for c in shown if c in quasi]] = SUPPRESSED
    return labels


def in_original_order(published: Combinations, labels: pd.DataFrame) -> Combinations:
    """The published table's combinations in the order of the records they were made from.

    The release's files hold their rows in an order independent of the input (each row in a
    file drawn at random, each file sorted by value: :mod:`microanon.scale.record_order`); the
    release made in memory keeps the records' order, in which its reports read the classes.
    ``labels``: what each of the original's combinations became (:func:`published_of`), in
    order of first appearance; a published combination comes where its quasi-identifiers'
    labels and sensitive value first appear, ties in the files' order.
    """
    first = pd.Series(np.arange(len(labels)), index=_keys(labels))
    first = first[~first.index.duplicated()]
    row_class, keys = _distinct_keys(published.values[list(labels.columns)])
    rank = first.reindex(keys).to_numpy(dtype=float)[row_class]
    order = np.lexsort((np.arange(len(rank)), np.nan_to_num(rank, nan=len(labels))))
    return published.reordered(order)


def pairs_of(original: Combinations, labels: pd.DataFrame) -> Combinations:
    """Each record's original quasi-identifiers and sensitive value, then its published ones
    (named with :data:`~microanon.apps.release_frequencies.PUBLISHED`), as
    :meth:`ReleaseTables.of` pairs them when the release keeps every record: what a combination
    became depends on the combination alone, so the pairs are the original's combinations."""
    right = labels.rename(columns={c: c + PUBLISHED for c in labels.columns})
    values = pd.concat([original.values.reset_index(drop=True), right], axis=1)
    return Combinations(values, original.counts)


def write_scale_reports(
    result: Any,
    columns: Sequence[str],
    schema: Schema,
    lint: LintReport,
    subtitle: str | None = None,
    config: Any = None,
    households: HouseholdMeasure | None = None,
) -> dict[str, Any]:
    """Write ``internal/report.html`` and ``public/report.html`` of a full-domain release made
    out of core; return the numbers shown (as :func:`microanon.apps.publish.publish`).

    Parameters
    ----------
    result : microanon.scale.ScaleResult
        What :func:`microanon.scale.full_domain_dask` wrote (the release at ``result.path``),
        with the combinations it counted: the original's while encoding it
        (``result.original``, with the published columns holding a missing-value marker of
        other software, ``result.markers``), the written files' while verifying them
        (``result.published``).
    columns : sequence of str
        The original's columns.
    schema : Schema
        The schema the release was made with.
    lint : LintReport
        The schema lint of the original (on a sample).
    subtitle : str, optional
        First line of the internal report.
    config : PipelineConfig, optional
        The run's configuration: with it, a release that warns proposes the closest
        configurations, searched on the frequency table the release's search ran on.
    households : callable, optional
        With a schema that has a sampling weight and a household id: the household risk of
        the original's records (:func:`microanon.scale.households.household_measure`).
    """
    quasi = [str(q) for q in result.metadata.get("quasi") or []]
    sensitive = (result.metadata.get("sensitive") or [None])[0]
    held = [c for c in [*quasi, sensitive] if c is not None]
    weight = schema.weight  # counted with the original's combinations, for the survey risks
    columns_counted = [*held, *([weight] if weight is not None else [])]
    if (
        result.original is None
        or result.published is None
        or result.markers is None
        or result.original.columns != columns_counted
    ):
        raise ValueError("the release's combinations were not counted for its reports")
    original = combinations_of(result.original, weight)
    weighted = None
    if weight is not None:
        weighted = original.project([*quasi, weight])
        original = original.project(held)
    published = combinations_of(result.published, weight, result.columns)
    labels = published_of(original, published, quasi, sensitive, result)
    published = in_original_order(published, labels)
    kept = original.records == published.records  # every record published (suppressed as *)
    pairs = pairs_of(original, labels) if kept else None
    counted = CountedRelease.of(
        original, published, quasi, sensitive, pairs, result.searched, weighted, households
    )
    return _written(
        result, "generalized", counted, result.markers, columns, schema, lint, config, subtitle
    )


def write_rowwise_reports(
    result: Any,
    columns: Sequence[str],
    schema: Schema,
    lint: LintReport,
    subtitle: str | None = None,
    config: Any = None,
    households: HouseholdMeasure | None = None,
) -> dict[str, Any]:
    """Write ``internal/report.html`` and ``public/report.html`` of a release made partition by
    partition (PRAM, randomized response, noise, microaggregation within blocks); return the
    numbers shown (as :func:`microanon.apps.publish.publish`).

    The risk profiles are measured on two frequency tables: the original's combinations of the
    quasi-identifiers, the sensitive column and the sampling weight, counted in the pass that
    read it (``result.counted``), and the written files' (``result.published``), counted in
    the read that checked them; the published table's combinations are taken in the files'
    order, as the release read back holds them. No measure of a randomized release pairs a
    record with its published record (its utility compares the two distributions); those of
    masked numeric columns do, on the pairs gathered while the release was written
    (``result.masked``).

    Parameters
    ----------
    result : microanon.scale.WrittenRelease
        What :func:`microanon.scale.write_rowwise` wrote (at ``result.path``), with the
        combinations it counted.
    columns, schema, lint, subtitle, config, households
        As for :func:`write_scale_reports`.
    """
    found = result.counted
    quasi = [str(q) for q in result.metadata.get("quasi") or []]
    sensitive = (result.metadata.get("sensitive") or [None])[0]
    held = [c for c in [*quasi, sensitive] if c is not None]
    weight = schema.weight
    if (
        found is None
        or result.published is None
        or found.columns
        != [
            *held,
            *([weight] if weight is not None else []),
        ]
    ):
        raise ValueError("the release's combinations were not counted for its reports")
    original = combinations_of(found.original, weight)
    weighted = None
    if weight is not None:
        weighted = original.project([*quasi, weight])
        original = original.project(held)
    published = combinations_of(result.published, weight, result.columns)
    counted = CountedRelease.of(
        original,
        published,
        quasi,
        sensitive,
        weighted=weighted,
        households=households,
        resolved=found.schema,
        masked=result.masked,
    )
    return _written(
        result, result.kind, counted, found.markers, columns, schema, lint, config, subtitle
    )


def _written(
    result: Any,
    kind: str,
    counted: CountedRelease,
    markers: Any,
    columns: Sequence[str],
    schema: Schema,
    lint: LintReport,
    config: Any,
    subtitle: str | None,
) -> dict[str, Any]:
    """The reports of a release of ``kind`` written out of core at ``result.path``, measured on
    ``counted`` (``markers``: the published columns of the original holding a missing-value
    marker), written there; the numbers shown."""
    public = dict(result.metadata)
    internal = {**public, **result.internal, "audit": {"lint": lint.to_dict()}}
    data = counted.published.values
    release = Release(kind, {"data": data}, internal, public)
    part = Release(kind, release.tables, public, public)  # (its columns already text)
    part.has_internal = False
    verification = Verification(list(getattr(result, "verdicts", [])), public=part)
    shown = pd.DataFrame(columns=list(columns))
    with figures_drawn_once():  # (as publish makes the in-memory run's)
        numbers, *pages = make_reports(
            release,
            shown,
            schema,
            lint,
            verification,
            config,
            subtitle,
            counted,
            markers=markers,
            repeated=result.repeated,
        )
    write_reports(Path(result.path), *pages)
    # as the in-memory run's numbers give them (its verification also scans the public part)
    verdicts = verification.to_dict()
    return {
        **numbers,
        "verification": {"ok": verdicts["ok"], "verdicts": verdicts["verdicts"]},
        "lint": lint.to_dict(),
    }
