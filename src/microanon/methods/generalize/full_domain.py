"""Optimal full-domain generalization with record suppression (Incognito / Flash).

Incognito: LeFevre, DeWitt & Ramakrishnan, *Incognito: Efficient Full-Domain K-Anonymity*, SIGMOD
2005. Flash: Kohlmayer, Prasser, Eckert, Kemper & Kuhn, *Flash: Efficient, Stable and Optimal
K-Anonymity*, IEEE PASSAT 2012.

Every quasi-identifier is recoded to one level of its hierarchy (one *node* of the lattice of
level vectors); the records of equivalence classes that fail some privacy model are suppressed,
at most ``suppression`` of them; among the nodes that satisfy every model this way, the one with
the best value of the chosen metric is published. The answer is the exact optimum on lattices
of at most :data:`._lattice.MAX_NODES` nodes; on bigger ones (or with ``search="heuristic"``
or ``"genetic"``) it is the best feasible node a best-first search (:mod:`._heuristic`) or a
genetic search (:mod:`._genetic`, for many quasi-identifiers) finds within a budget, which
satisfies every model but may not be optimal.

Metrics (all minimized; each equals the named measure of the published table, ``N`` input
records, ``S`` suppressed, ``q`` quasi-identifiers):

- ``lm``: Iyengar's loss metric, :func:`microanon.measures.loss_metric` with ``suppressed=S``
  (a suppressed record costs 1 in every cell);
- ``precision``: Sweeney's precision, :func:`microanon.measures.precision` with
  ``suppressed=S`` (suppressed cells at full height); the search minimizes ``1 - precision`` and
  the release reports the precision;
- ``discernibility``: ``Σ_{kept classes} |E|² + S·N``,
  :func:`microanon.measures.discernibility` of the kept rows with ``suppressed=S``;
- ``aecs``: ARX's average equivalence-class size ``N / C``, ``C`` the number of classes of the
  star-published table (the suppressed records form one class), i.e.
  :func:`microanon.measures.aecs` of that table with ``k=1``;
- ``entropy``: non-uniform entropy (De Waal & Willenborg; as in ARX), in bits:
  ``Σ_records Σ_QI -log2 P(original | published)``, ``P(v | g) = f(v) / f(g)`` with ``f`` the
  original column frequencies, and ``P = f(v) / N`` for a suppressed cell;
- ``loss``: ARX's Loss (the metric ARX optimizes by default; Prasser & Kohlmayer's ARX): each
  quasi-identifier's loss metric with suppressed cells at full loss, aggregated over the
  quasi-identifiers by their geometric mean ``Π(1 + L_i)^(1/q) - 1``; options (a mapping
  ``{"name": "loss", "aggregate": "arithmetic", "gs_factor": 0.3}``) give the arithmetic mean
  (which is ``lm``) and ARX's gsFactor, the weight of suppression against generalization. The
  release records the canonical name, e.g. ``"loss(aggregate=arithmetic, gs_factor=0.3)"``;
  :mod:`microanon.methods.generalize._metrics` has the formulas.

Ties (values within a relative 1e-10, exactly equal for discernibility) are broken by fewer
suppressed records, then the lower total level, then the lexicographically smaller levels in
schema order. How the search prunes and why its answer is optimal is documented in
:mod:`microanon.methods.generalize._search`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import Anything, Boolean, Choice, Integer, Param, Real
from ...core.errors import InfeasibleError, InputError
from ...core.hierarchy import SUPPRESSED, Hierarchy, number_line_order
from ...core.random import RandomLike
from ...core.range_bounds import recut_labels
from ...core.release import Release
from ...core.schema import Schema
from ...core.table import Table
from ...models import Groups, as_models
from ...models.population import population_record, population_sizes, population_weights
from ..registry import OutOfCore, method
from ..release import (
    SUPPRESSED_ROWS,
    generalized_release,
    prepare,
    text_column,
    unchanged_column,
)
from ._budget import SearchWatch
from ._levels import evaluate_levels
from ._metrics import METRICS
from ._search import SearchResult, check_metric, check_suppression, search
from .searches import SEARCHES, check_search, run_search

__all__ = ["apply_levels", "full_domain", "level_labels", "search", "SearchResult"]


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def level_labels(hierarchy: Hierarchy, level: int, held: np.ndarray | None = None) -> np.ndarray:
    """The published labels of a hierarchy level (strings), indexed by level code.

    Shared with the out-of-core engine (:mod:`microanon.scale.apply`), which publishes the same
    labels partition by partition.

    Parameters
    ----------
    hierarchy : Hierarchy
        The quasi-identifier's hierarchy.
    level : int
        The generalization level.
    held : bool array, optional
        Per leaf code, whether a published record holds the leaf. Given, a level of ranges cut
        from the data (a ``quantiles`` or numeric ``balanced`` hierarchy) is cut again on the
        published values (:func:`~microanon.core.range_bounds.recut_labels`): its bounds then
        tell nothing of a suppressed record's value.

    Returns
    -------
    numpy.ndarray
        Object array of strings, one per code of the level.
    """
    labels = [str(x) for x in hierarchy.level_labels(level)]
    if held is not None and _recuttable(hierarchy, level):
        _recut_numbers(hierarchy, level, held, labels)
    return np.array(labels, dtype=object)


def _recut_numbers(hierarchy: Hierarchy, level: int, held: np.ndarray, labels: list[str]) -> None:
    """:func:`level_labels`'s ranges cut again, in ``labels``: those of the leaves that are
    numbers, in increasing order (a missing value's leaf ``?`` beside them, never in a range
    of theirs, stays as it is)."""
    # (truth values read as 0 and 1 have no level of ranges: no level is taken for one)
    values = hierarchy.leaf_numbers
    numbers = np.isfinite(values)
    codes = hierarchy.level_codes(level)
    if np.intersect1d(codes[numbers], codes[~numbers]).size:
        return
    values, held = values[numbers], held[numbers]
    if not np.all(np.diff(values) > 0):
        return
    shown, ranges = np.unique(codes[numbers], return_inverse=True)
    recut = recut_labels([labels[c] for c in shown], values, ranges, held)
    for code, label in zip(shown.tolist(), recut or (), strict=False):
        labels[code] = label


def published_labels(
    schema: Schema,
    levels: Mapping[str, int],
    every: Mapping[str, np.ndarray],
    kept: np.ndarray,
) -> dict[str, np.ndarray]:
    """Per quasi-identifier, the labels its level publishes: :func:`level_labels`, cut again
    on the leaves that the records published with their quasi-identifiers hold (``kept``, a
    boolean mask over the records, or the distinct combinations, of ``every``: the leaf codes
    of all of them by quasi-identifier), and on those no record holds, which the hierarchy
    holds as the owner declared it (a declared domain): a release that publishes every record
    publishes the hierarchy's labels."""
    out = {}
    for q, lv in levels.items():
        h = schema.hierarchy(q)
        if not _recuttable(h, int(lv)):
            out[q] = level_labels(h, int(lv))
            continue
        held = np.ones(h.n_leaves, dtype=bool)
        held[every[q]] = False
        held[every[q][kept]] = True
        out[q] = level_labels(h, int(lv), held)
    return out


def _recuttable(hierarchy: Hierarchy, level: int) -> bool:
    """Whether :func:`level_labels` may cut the level's labels again: a level between the
    leaves and the root, of a hierarchy with two leaves or more that are numbers."""
    return 0 < level < hierarchy.height and np.isfinite(hierarchy.leaf_numbers).sum() >= 2


def recut_record(
    schema: Schema, levels: Mapping[str, int], labels: Mapping[str, np.ndarray]
) -> dict[str, dict[str, str]]:
    """What a release records internally as ``recut``: per quasi-identifier whose published
    labels (:func:`published_labels`) are not its hierarchy's, each hierarchy label and the
    label published in its place."""
    out = {}
    for q, lv in levels.items():
        plain = level_labels(schema.hierarchy(q), int(lv)).tolist()
        changed = {a: b for a, b in zip(plain, labels[q].tolist(), strict=True) if a != b}
        if changed:
            out[q] = changed
    return out


def emptied_record(
    table: Table, levels: Mapping[str, int], mask: np.ndarray
) -> dict[str, dict[str, int]]:
    """What a release records internally as ``emptied``: per quasi-identifier, each label of
    its level in its hierarchy (:func:`level_labels`, as the data owner gave or built it, not
    cut again: no published record has it) held by records of ``table`` every one of which was
    suppressed (``mask``), and how many records hold it, on the number line
    (:func:`~microanon.core.hierarchy.number_line_order`). The release says nothing of whoever
    has such a value (a category of the original gone, e.g. the highest score of a rating).

    ``table`` may be a frequency table (its ``counts`` are the records of each row).
    """
    if not mask.any():
        return {}
    weights = table.counts
    out = {}
    for q, lv in levels.items():
        # per leaf the records and the suppressed ones (the few rows of the mask), then per label
        hierarchy = table.schema.hierarchy(q)
        leaves = table.codes(q)
        size = len(hierarchy.leaves)
        held = np.bincount(leaves, weights, minlength=size)
        gone = np.bincount(leaves[mask], None if weights is None else weights[mask], size)
        ancestor = hierarchy.level_codes(int(lv))
        labels = level_labels(hierarchy, int(lv))
        at_level = np.bincount(ancestor, held, len(labels))
        kept = np.bincount(ancestor, held - gone, len(labels))
        emptied = {
            str(labels[i]): int(round(at_level[i]))
            for i in np.flatnonzero((at_level > 0) & (kept == 0))
        }
        if emptied:  # (in the order a reader expects, not the hierarchy's: dates newest first)
            out[q] = {label: emptied[label] for label in number_line_order(emptied)}
    return out


def hierarchy_labels(
    values: pd.DataFrame, recut: Mapping[str, Mapping[str, str]] | None
) -> pd.DataFrame:
    """``values`` (published quasi-identifier labels) with each label published in place of its
    hierarchy's (``recut``, :func:`recut_record`) replaced by that hierarchy label: the node
    it stands for, as the measures read a release (node by node, as the search measured it;
    the published label may also be another level's, as ``[80, 100)`` cut again from
    ``[80, 90)`` under fixed widths of 10 and 20).

    Parameters
    ----------
    values : DataFrame
    recut : mapping, optional
        Per quasi-identifier, each hierarchy label and the label published in its place.

    Returns
    -------
    DataFrame
        ``values`` itself when nothing was cut again.
    """
    if not recut:
        return values
    out = values.copy()
    for q, changed in recut.items():
        if q in out.columns:
            back = {new: old for old, new in changed.items()}
            out[q] = out[q].map(lambda v, back=back: back.get(v, v))
    return out


def publish_levels(
    table: Table,
    levels: Mapping[str, int],
    mask: np.ndarray,
    mode: str,
    shown: Mapping[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """The published table of a node.

    Quasi-identifiers become their level labels as strings (:func:`published_labels`: ranges
    cut from the data are cut again on the values published); suppressed records are removed
    (``mode="remove"``) or keep ``"*"`` in every quasi-identifier (``mode="star"``); the other
    columns are unchanged. Columns in schema order, rows in input order with the input index.
    ``shown``: those labels, when they are known already.

    The table is built from the codes: a quasi-identifier's column is its level's labels
    indexed by the level codes of its records, another column its dictionary indexed by its
    codes (object columns of text as a release publishes them, see
    :func:`microanon.methods.release.text_column`); only numeric columns are decoded value
    by value.
    """
    keep = ~mask if mode == "remove" else np.ones(len(mask), dtype=bool)
    rows = np.flatnonzero(keep)
    star = mask[rows] if mode == "star" else None
    every = len(rows) == table.n_rows
    index = table.index if every else table.index[rows]
    if shown is None:
        shown = _shown(table, levels, mask)
    data: dict[str, Any] = {}
    for c in table.columns:
        if c not in levels:
            data[c] = unchanged_column(table, c, rows)
            continue
        h = table.schema.hierarchy(c)
        lv = int(levels[c])
        labels = shown[c]
        codes = table.codes(c) if every else table.codes(c)[rows]
        ancestor = h.level_codes(lv)
        leaves = np.array_equal(ancestor, np.arange(len(ancestor)))
        if not leaves:  # (the leaves: as they are)
            codes = ancestor.take(codes)
        appearance = table.appearance.get(c) if every else None
        if appearance is not None and not leaves:
            appearance = (appearance[0], ancestor.take(appearance[1]))
        if star is not None and star.any():
            codes = codes.astype(np.int64)  # (a copy: the table's codes stay as they are)
            codes[star] = len(labels)
            labels = np.append(labels, np.array([SUPPRESSED], dtype=object))
            appearance = None  # (a starred row is no longer its value's label)
        data[c] = text_column(codes, labels, index, appearance)
    return pd.DataFrame(data, index=index, copy=False)  # fresh columns: nothing to copy


def _shown(table: Table, levels: Mapping[str, int], mask: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`published_labels` of the records of ``table`` published with their
    quasi-identifiers (not ``mask``)."""
    return published_labels(table.schema, levels, {q: table.codes(q) for q in levels}, ~mask)


def _check_star_class(
    published: pd.DataFrame, n_star: int, table: Table, models: list[Any]
) -> None:
    """Refuse star mode when the suppressed records, published as one ``*`` class, fail a model.

    In star mode the suppressed records stay in the table with every quasi-identifier ``*``:
    an attacker sees them as one equivalence class, with their true sensitive values. That
    class must satisfy the models like every other one (the plain definition on the table as
    written), or the release would be weaker than it claims.
    """
    quasi = table.schema.quasi
    sensitive = table.schema.sensitive[0] if table.schema.sensitive else None
    for m in models:
        verdict = m.check(published, quasi, sensitive if m.needs_sensitive else None)
        offending = verdict.offending
        star = (offending[quasi].astype(str) == SUPPRESSED).all(axis=1) if len(offending) else []
        if not verdict.holds and np.any(star):
            raise InfeasibleError(
                f"suppressed_rows: star would publish the {n_star} suppressed record(s) as one "
                f"'*' class that fails it ({verdict}); publish them with "
                "suppressed_rows: remove, or allow less suppression"
            )


def population_records(
    table: Table,
    levels: Mapping[str, int],
    published: pd.DataFrame,
    models: list[Any],
    shown: Mapping[str, np.ndarray],
) -> list[dict[str, Any] | None]:
    """Per claimed model, the people of its population in each published class (or None).

    The population is generalized to the published levels with the labels the release
    publishes (``shown``: :func:`published_labels`) and matched to the published classes as
    :func:`microanon.models.check_release` will match them. This is internal metadata: counts
    taken on the population.
    """
    quasi = table.schema.quasi
    groups = Groups.from_frame(published, quasi)
    count = "people"
    while count in quasi:
        count += "_"
    out: list[dict[str, Any] | None] = []
    for model in models:
        if not model.needs_population:
            out.append(None)
            continue
        columns = {}
        for q in quasi:
            h = table.schema.hierarchy(q)
            leaves = h.leaf_index(model.population[q], column=q)
            columns[q] = shown[q][h.level_codes(int(levels[q]))[leaves]]
        generalized = pd.DataFrame(columns)
        generalized[count] = population_weights(model.population, model.count)
        out.append(population_record(groups.keys, population_sizes(groups, generalized, count)))
    return out


@method(
    "full_domain",
    kind="generalized",
    publishes="One hierarchy level per quasi-identifier: the optimum for the metric, or on a "
    "lattice too big for the exact search the best a heuristic search found (the summary "
    "and the internal report say which). Claims the models given.",
    help="Replaces each quasi-identifier by one level of its hierarchy, the same level for every "
    "record (e.g. every age by its 10-year band), choosing the levels that lose the least "
    "information while the privacy models hold. Records that would still stand out can be "
    "removed, up to the share you allow. The most common choice.",
    params=(
        Param(
            "suppression",
            "Largest share of the records that may be removed because they would still stand "
            "out, from 0 to below 1 (0.05 = 5 %). Removing a few records often lets the others "
            "keep much more detail.",
            (Real(0, 1, closed="left"),),
        ),
        Param(
            "metric",
            "What counts as information lost when comparing levels: lm (how much each value is "
            "generalized; the usual choice), loss (ARX's default measure), discernibility or "
            "aecs (group sizes), precision, entropy. ARX's loss takes options as a mapping, "
            "e.g. {name: loss, aggregate: arithmetic, gs_factor: 0.3}.",
            (Choice(METRICS), Anything("a metric with options, e.g. {name: loss, gs_factor: 0.3}")),
        ),
        Param(
            "suppressed_rows",
            "Removed records are left out of the release (remove), or kept with every "
            "quasi-identifier shown as * (star).",
            (Choice(("remove", "star")),),
        ),
        Param(
            "all_minimal",
            "Also list every other smallest set of levels that meets the models (for "
            "comparison; slower).",
            (Boolean(),),
        ),
        Param(
            "search",
            "How the levels are chosen: exact finds the best levels but handles at most "
            "2,097,152 combinations of levels; heuristic searches within a time or step budget "
            "and may miss the best (with 12 or more quasi-identifiers it runs the genetic "
            "search, else best-first); best-first walks up from the least generalized levels; "
            "genetic evolves random combinations within the budget (fresh randomness on every "
            "run); auto uses exact when it can.",
            (Choice(SEARCHES),),
        ),
        Param(
            "time_limit",
            "Seconds the heuristic or genetic search may run (30 when no limit is given); the "
            "result then depends on the computer's speed. With no limit given the genetic "
            "search also stops once 400 generations found nothing better (and at least as many "
            "as it took to find its best).",
            (Real(0, None, closed="neither"),),
        ),
        Param(
            "step_limit",
            "Most combinations of levels the heuristic or genetic search checks (the same "
            "result on every computer; for the genetic search, with the same seed).",
            (Integer(1),),
        ),
    ),
    out_of_core=OutOfCore("full_domain_dask", rowwise=False),
    randomized="partly",
)
def full_domain(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    models: Any,
    suppression: float = 0.0,
    metric: str | Mapping[str, Any] = "lm",
    suppressed_rows: str = "remove",
    all_minimal: bool = False,
    progress: bool = False,
    search: str = "auto",
    time_limit: float | None = None,
    step_limit: int | None = None,
    watch: SearchWatch | None = None,
    rng: RandomLike = None,
) -> Release:
    """Publish the optimal (or, on a huge lattice, the best found) full-domain generalization.

    Parameters
    ----------
    data : DataFrame
        The original table.
    schema : Schema or mapping
        At least one quasi-identifier, each with a hierarchy; models on a sensitive attribute
        need exactly one sensitive column.
    models : model specification
        Anything :func:`microanon.models.as_models` reads, e.g.
        ``[{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 3, "form": "entropy"}}]``. Every
        kept equivalence class satisfies all of them; t-closeness, β-likeness and δ-disclosure
        privacy compare each class with the original table's sensitive distribution.
        δ-presence and k-map with a population table generalize the model's population with the
        schema's hierarchies at every node (its values must be leaves of them).
    suppression : float, default 0
        Largest share of the records that may be suppressed, in ``[0, 1)``: a node is feasible
        when the records of its failing classes number at most ``floor(suppression · N)``.
    metric : str or mapping, default "lm"
        What the optimum minimizes (precision: maximizes): ``"lm"``, ``"discernibility"``,
        ``"aecs"``, ``"precision"``, ``"entropy"`` or ``"loss"``; see the module docstring. ARX's
        Loss takes options as a mapping ``{"name": "loss", "aggregate": "geometric" | "arithmetic",
        "gs_factor": γ}``.
    suppressed_rows : {"remove", "star"}, default "remove"
        Leave suppressed records out, or publish them with every quasi-identifier ``"*"``.
    all_minimal : bool, default False
        Also record every minimal feasible node (Incognito's answer) in ``minimal_nodes``.
    progress : bool, default False
        Show a progress bar over the lattice (exact search).
    search : {"auto", "exact", "heuristic", "best-first", "genetic"}, default "auto"
        ``"exact"``: the optimum, for lattices of at most ``MAX_NODES`` (2,097,152) nodes.
        ``"best-first"``: a best-first walk up the lattice within a budget
        (:mod:`microanon.methods.generalize._heuristic`, which draws nothing at random).
        ``"genetic"``: a genetic search within a budget (see
        :mod:`microanon.methods.generalize._genetic`; it draws from ``rng``). ``"heuristic"``:
        on a lattice of more than ``MAX_NODES`` nodes with at least ``GENETIC_MIN_QUASI``
        (12) quasi-identifiers the genetic search, otherwise the best-first one. Both
        publish the best feasible node they checked, which
        satisfies every model but may not be optimal. ``"auto"``: the exact search when the
        lattice is small enough, else as ``"heuristic"``.
    time_limit : float, optional
        Seconds after which the heuristic or genetic search checks no further node; 30 when
        neither limit is given. A result found under a time limit depends on the machine's
        speed. When neither limit is given the genetic search also stops once
        :data:`~._genetic.PATIENCE` (400) generations, and at least as many as it took to find
        its best node, found no better one (``stopped="converged"``): given a ``step_limit``
        or a ``time_limit`` it runs to it.
    step_limit : int, optional
        Most lattice nodes the heuristic or genetic search checks (with the genetic search,
        the same result for the same ``rng`` state).
    watch : SearchWatch, optional
        Follows the heuristic or genetic search (nodes checked, best value so far) and may
        stop it early; the best node found until then is published (the workbench's stop
        button). Asked to stop, the exact search raises ``SearchStopped`` instead: it has no
        answer until its optimum is proven.
    rng : numpy.random.Generator, int or None
        The genetic search's source of randomness (its first generation, parents, crossover,
        mutation and immigrants; an integer seeds a new generator); no other search draws from
        it. None: a generator seeded
        from the operating system's entropy (:func:`numpy.random.default_rng`), so two runs
        may differ. Only drawn from: neither the generator nor its state is written anywhere
        (not into the release's metadata).

    Returns
    -------
    Release
        Kind ``"generalized"``, table ``data``: the published columns in schema order,
        quasi-identifiers as level labels (strings), other columns unchanged. Metadata: the
        standard keys (``rows_in``, ``rows_out``, ...) plus ``levels`` ({quasi-identifier:
        level}), ``suppressed`` (records), ``metric`` ({"name", "value"}), ``nodes_checked``,
        ``lattice_size``, ``search_seconds``, ``search`` (which search ran, whether the node is
        optimal, and for the heuristic and genetic searches why it stopped and a lower bound
        of the optimum), with
        ``all_minimal`` ``minimal_nodes``, and with
        a model checked against a population ``populations`` (internal: per claimed model, the
        people of each published class, for :func:`microanon.models.check_release`). Public:
        ``levels`` and the ``parameters``, which name ``search``, ``time_limit`` and
        ``step_limit`` when given (not which search ``"auto"`` ran: that depends on the
        hierarchies' heights, internal like them).

    Raises
    ------
    InputError
        Suppression outside ``[0, 1)``, an unknown metric or ``suppressed_rows``, no models,
        bad data or schema (a quasi-identifier without hierarchy is a ``SchemaError``); a
        population that lacks a quasi-identifier, holds a value outside its hierarchy or does
        not contain the table; ``suppressed_rows="star"`` with a population model and
        ``suppression > 0``; an unknown ``search``, a bad ``time_limit`` or ``step_limit``, a
        limit or ``all_minimal`` with the exact search, ``search="exact"`` on a lattice of more
        than ``MAX_NODES`` nodes.
    InfeasibleError
        No node satisfies the models within the suppression limit; the message names the model
        that fails even when every record is in one class. The heuristic and genetic searches
        raise it too when their budget runs out before they find a feasible node.

    Examples
    --------
    >>> from microanon.datasets import load_adult, adult_schema
    >>> release = full_domain(load_adult(), adult_schema(sensitive="occupation"),
    ...                       models={"k_anonymity": {"k": 5}}, suppression=0.05)  # doctest: +SKIP
    >>> release.metadata["levels"]  # doctest: +SKIP
    """
    all_minimal = _flag("all_minimal", all_minimal)
    progress = _flag("progress", progress)
    choice = check_search(search, time_limit, step_limit, all_minimal)
    table, resolved, suppression, metric = _prepare(
        data, schema, models, suppression, metric, suppressed_rows
    )
    result, record = run_search(
        table,
        resolved,
        suppression,
        metric,
        suppressed_rows,
        choice,
        progress=progress,
        watch=watch,
        rng=rng,
    )
    extra: dict[str, Any] = {}
    if all_minimal:
        extra["minimal_nodes"] = result.minimal_nodes
    return _release(
        table,
        resolved,
        result,
        {
            "suppression": suppression,
            "metric": metric,
            "suppressed_rows": suppressed_rows,
            "all_minimal": all_minimal,
            **choice.public(),
        },
        nodes_checked=result.nodes_checked,
        lattice_size=result.lattice_size,
        search_seconds=result.search_seconds,
        search=record,
        **extra,
    )


def apply_levels(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    models: Any,
    levels: Mapping[str, int],
    suppression: float = 0.0,
    metric: str = "lm",
    suppressed_rows: str = "remove",
) -> Release:
    """Publish a table at given levels, with :func:`full_domain`'s suppression rule, no search.

    The records of the classes that fail some model at ``levels`` are suppressed exactly as
    :func:`full_domain` suppresses them at that node; on the table a search chose ``levels`` for,
    the release is the search's own. This is how a recoding found on one table is applied to the
    next (:class:`~microanon.methods.generalize.Anonymizer`).

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
        As for :func:`full_domain`; every value of a quasi-identifier must be a leaf of its
        hierarchy.
    models : model specification
    levels : mapping of str to int
        One level per quasi-identifier.
    suppression : float, default 0
        Largest share of the records that may be suppressed, in ``[0, 1)``.
    metric : str, default "lm"
        The metric whose value the release records.
    suppressed_rows : {"remove", "star"}, default "remove"

    Returns
    -------
    Release
        Kind ``"generalized"``, as :func:`full_domain`'s, with ``levels`` among the
        ``parameters`` and without the search's statistics (``nodes_checked``,
        ``lattice_size``, ``search_seconds``).

    Raises
    ------
    InputError
        As :func:`full_domain`; a level missing, outside its hierarchy or for another column.
    InfeasibleError
        More records would have to be suppressed than ``suppression`` allows (the message gives
        both shares), or in star mode the suppressed records fail a model as one class.
    """
    table, resolved, suppression, metric = _prepare(
        data, schema, models, suppression, metric, suppressed_rows
    )
    result = evaluate_levels(table, resolved, levels, suppression, metric, suppressed_rows)
    parameters = {
        "suppression": suppression,
        "metric": metric,
        "suppressed_rows": suppressed_rows,
        "levels": result.levels,
    }
    return _release(table, resolved, result, parameters)


def _prepare(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    models: Any,
    suppression: Any,
    metric: Any,
    suppressed_rows: Any,
) -> tuple[Table, list[Any], float, str]:
    """Check the parameters, encode the table and resolve the models."""
    suppression = check_suppression(suppression)
    metric = check_metric(metric)
    if suppressed_rows not in SUPPRESSED_ROWS:
        raise InputError(
            f"suppressed_rows must be one of {', '.join(SUPPRESSED_ROWS)}, got {suppressed_rows!r}"
        )
    table, resolved = prepare(
        data,
        schema,
        as_models(models),
        need_hierarchies=True,
        populations=True,
        unknown_sensitive=True,
    )
    with_population = [m for m in resolved if m.needs_population]
    if with_population and suppressed_rows == "star" and suppression > 0:
        raise InputError(
            f"suppressed_rows: star is not available with {with_population[0].name} against a "
            "population (a '*' record matches every person); use suppressed_rows: remove"
        )
    return table, resolved, suppression, metric


def _release(
    table: Table,
    models: list[Any],
    result: SearchResult,
    parameters: Mapping[str, Any],
    **metadata: Any,
) -> Release:
    """The release of a node: the published table, checked in star mode, and its metadata."""
    mode = parameters["suppressed_rows"]
    mask = result.suppressed_mask
    shown = _shown(table, result.levels, mask)
    published = publish_levels(table, result.levels, mask, mode, shown)
    if mode == "star" and result.suppressed:
        _check_star_class(published, result.suppressed, table, models)
    if any(m.needs_population for m in models):
        metadata["populations"] = population_records(table, result.levels, published, models, shown)
    recut = recut_record(table.schema, result.levels, shown)
    if recut:
        metadata["recut"] = recut
    emptied = emptied_record(table, result.levels, mask)
    if emptied:
        metadata["emptied"] = emptied
    return generalized_release(
        "full_domain",
        published,
        table,
        parameters,
        models,
        # The heights stay internal: a hierarchy built from the data (intervals, quantiles,
        # balanced, masking) has a height that depends on the original values.
        public=("levels",),
        text=True,
        levels=result.levels,
        heights={q: table.schema.hierarchy(q).height for q in result.levels},
        suppressed=result.suppressed,
        metric={"name": result.metric, "value": result.metric_value},
        **metadata,
    )
