"""Exact optimal full-domain generalization with record suppression (branch and bound).

The search looks for the lattice node (one level per quasi-identifier) that satisfies every model
after suppressing the records of failing classes, with at most ``floor(suppression · N + 1e-9)``
suppressed records, and whose metric value is smallest. Ties: values within a relative 1e-10 of
the optimum (exactly equal for discernibility) count as equal; among them fewer suppressed
records win, then the lower total level, then the lexicographically smaller level vector.

Evaluating a node means building its frequency set (rolled up from the smallest frequency set
already built below it), applying the models' monotone *filter* (:mod:`._search_models`) and,
when the filter's suppression is within the limit, the other models with ``group_ok``. In star
mode (``suppressed_rows="star"``) the suppressed records are published as one ``*`` class,
which must pass the models too: a node whose suppressed records fail them as one class is
infeasible. That condition is not monotone (3 suppressed records fail k = 5 where the 10 of a
node below pass), so with suppression allowed star mode's feasibility never is.

What an evaluation teaches is propagated over the lattice with masks (predictive tagging):

* ``sunk``: the node and every node below it are infeasible. Set for the down-set of a node
  whose filter alone suppresses more than the limit (the filtered records only grow down the
  lattice, whatever the models), of an infeasible node when feasibility is monotone, and of an
  infeasible node whose *deficit* exceeds the limit (the records its failing classes keep
  suppressed in every refinement, :func:`._search_models._deficits`).
* ``bad`` / ``good``: infeasible / feasible nodes (``sunk`` included). Feasibility is monotone,
  and ``good`` propagates up, when the filter is the whole verdict (k-anonymity, distinct ℓ,
  k-map) or nothing may be suppressed and "every class passes" is monotone up the lattice (true
  for every built-in model except δ-disclosure privacy and δ-presence with ``δ_min > 0``, see
  :mod:`._search_models`), and not star mode with suppression; otherwise only evaluated nodes
  are tagged.
* ``dominated``: nodes strictly above a node where nothing is suppressed, when "every class
  passes" is monotone. They suppress nothing either, and every metric without suppression is
  non-decreasing up the lattice, so they are never better than that node (an equal value loses
  on the total level). With a non-monotone model a node above may suppress records, and is
  evaluated like any other.

Why the result is the optimum. Every metric has a lower bound ``lb`` (:mod:`._metrics`), valid
for every feasible node. The main loop takes the unevaluated node that is neither ``bad`` nor
``dominated`` with the smallest bound, and stops when that bound exceeds the best value found
plus the tie tolerance. A node never evaluated is therefore infeasible by a sound tag, dominated
by an evaluated node, or bounded above the final optimum plus the tolerance (bounds only rise
and the best value only falls during the search): it can neither be optimal nor tie with the
optimum. A node whose value is already above the incumbent plus the tolerance once the
filter's records are suppressed (the other models can only suppress more, and suppressing more
never lowers a metric) is not checked further, for the same reason. Every other evaluated
feasible node is compared under the tie rule.

Speed-ups that only change the order of work: when a node turns out ``sunk`` the search climbs
from it (Flash's idea): it follows the successors with the smallest bounds up to a node known to
pass and binary-searches that path for its highest ``sunk`` node, whose down-set is then
tagged. When feasibility is monotone and the metric learns nothing for the nodes above an
evaluation (every metric but discernibility and aecs), the node the main loop picks is not
evaluated first: it heads the path, and is evaluated only if no node above it on the path sinks
(most picked nodes lie low, with large frequency sets, below a sunk node the climb finds).
When feasibility is not monotone, a greedy walk down from the top (to the best feasible
predecessor, while there is one) finds an early incumbent, which lets the filter's bound skip
most ``group_ok`` checks.

With ``all_minimal`` every node is classified first (same evaluations and tags, every node
checked in full) and the minimal feasible nodes — feasible nodes with no feasible node below
them — are returned, in lattice rank order.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InfeasibleError, InputError
from ...core.progress import as_progress
from ...core.table import Table
from ...models import PrivacyModel, as_models
from ...models.config import require_one_sensitive
from ..release import numbers_of
from ._budget import SearchStopped, SearchWatch
from ._lattice import Lattice
from ._lattice_frequencies import (
    FrequencySet,
    LevelMaps,
    frequency_set,
    records_per,
    roll_up,
    rolled,
)
from ._metrics import Metric, canonical_metric, make_metric
from ._search_models import ModelSet

__all__ = ["FrequencyCache", "SearchResult", "search"]

#: Frequency sets kept for rolling up, at most this many rows in total (besides the bottom's).
_CACHE_ROWS = 1_000_000
#: Rows of a cached set that does not lie below the node sought (never the smallest).
_NOT_BELOW = np.iinfo(np.int64).max


@dataclass
class SearchResult:
    """The optimal node and how it was found.

    Attributes
    ----------
    levels : dict of str to int
        Level of each quasi-identifier at the optimum.
    metric : str
        Metric name.
    metric_value : float
        Its value (for ``precision`` the precision itself; the search minimizes 1 - precision).
    suppressed : int
        Records suppressed at the optimum.
    nodes_checked : int
        Nodes whose frequency set was built and checked.
    lattice_size : int
    minimal_nodes : list of dict or None
        Every minimal feasible node (``all_minimal=True``), in lattice order.
    search_seconds : float
        Wall time of the search.
    suppressed_mask : bool array
        Which rows of the table are suppressed at the optimum (of a frequency table, with
        :attr:`Table.counts`: which distinct combinations).
    kind : {"exact", "best-first", "genetic"}
        Which search found the node: the exact one (the node is optimal, unless it stopped
        at a ``node_budget``: ``stopped="step_limit"``), the best-first
        heuristic (:mod:`._heuristic`) or the genetic search (:mod:`._genetic`; for both, the
        best node it checked).
    lower_bound : float or None
        Heuristic and genetic only: a lower bound of the optimum's value (for ``precision``
        an upper bound of the optimal precision), the smaller of the node's value and the
        bounds of every node left unchecked; None for the exact search.
    stopped : str
        Why the search ended: ``"exhausted"`` (every node checked or ruled out by its bound),
        ``"time_limit"``, ``"step_limit"``, ``"stopped"`` (by its watcher) or, the genetic
        search without a limit given, ``"converged"`` (no better node for long: see
        :data:`._genetic.PATIENCE`).
    idle_generations : int or None
        The genetic search: the generations after the one that found the node returned (None
        for the other searches).
    found_step, found_seconds : int or None, float or None
        Heuristic and genetic only: when the search checked the node it returns (its first
        check is step 1; seconds since it began): the rest of its budget found nothing better.
    """

    levels: dict[str, int]
    metric: str
    metric_value: float
    suppressed: int
    nodes_checked: int
    lattice_size: int
    minimal_nodes: list[dict[str, int]] | None = None
    search_seconds: float = 0.0
    suppressed_mask: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    kind: str = "exact"
    lower_bound: float | None = None
    stopped: str = "exhausted"
    found_step: int | None = None
    found_seconds: float | None = None
    idle_generations: int | None = None


@dataclass
class _Node:
    """What an evaluation learned about one node."""

    filter_ok: bool
    filtered: int
    checked: bool = False  # whether every model was applied (feasibility known)
    feasible: bool = False
    suppressed: int = 0
    value: float = float("inf")
    star_fails: str | None = None  # star mode: the model its '*' class fails (Verdict.head)


def check_suppression(suppression: Any) -> float:
    """Validate the suppression share (in [0, 1))."""
    if isinstance(suppression, (bool, np.bool_)) or not isinstance(
        suppression, (int, float, np.integer, np.floating)
    ):
        raise InputError(f"suppression must be a number in [0, 1), got {suppression!r}")
    value = float(suppression)
    if not 0.0 <= value < 1.0:
        raise InputError(
            f"suppression must lie in [0, 1) (a share of the records), got {suppression!r}"
        )
    return value


def check_metric(metric: Any) -> str:
    """Validate the metric: its canonical name (:func:`._metrics.canonical_metric`)."""
    return canonical_metric(metric)


class FrequencyCache:
    """Frequency sets rolled up from the bottom's, with the smaller ones kept for later roll-ups.

    The sets kept hold at most :data:`_CACHE_ROWS` rows besides the bottom's. A set that would
    exceed them takes the place of those used least recently (as a source or as a node's own
    set): the nodes a search visits move across the lattice, and the sets kept early (often
    low, large ones) stop being the best sources of the later ones. On a survey of 61,697
    records and ten quasi-identifiers, the rows rolled up fall from 33.7 to 21.6 million.

    A node is rolled up from one set, not through an intermediate one: its meet with the node
    rolled before it (cached for the next ones) rolls fewer rows but one set more, and searches
    without suppression took up to 23 % longer with it (ARX's Adult, a synthetic table, two
    real surveys), those with suppression between 13 % less and 12 % more.

    Parameters
    ----------
    bottom : FrequencySet
        The frequency set of the bottom node (every level 0).
    maps : LevelMaps
    n_sa : int
        Number of sensitive codes (0 without a sensitive attribute in the sets).
    """

    def __init__(self, bottom: FrequencySet, maps: LevelMaps, n_sa: int) -> None:
        self.bottom = bottom
        self.maps = maps
        self.n_sa = n_sa
        q = len(bottom.levels)
        self._cache: list[FrequencySet] = [bottom]
        # Levels and rows of the cached sets; the arrays grow by doubling (first len(_cache)).
        self._cache_levels = np.zeros((64, q), dtype=np.int64)
        self._cache_rows = np.zeros(64, dtype=np.int64)
        self._cache_rows[0] = len(bottom)
        self._cache_used = np.zeros(64, dtype=np.int64)  # when each was last used (a count)
        self._uses = 0
        self._cached_rows = 0  # rows of the cached sets besides the bottom's

    def at(self, target: np.ndarray) -> FrequencySet:
        """The frequency set of the node ``target`` (a level vector), rolled up from the
        smallest cached one below it."""
        source = self._smallest_below(target)
        if source.levels.tolist() == target.tolist():
            return source
        return self._rolled(source, target)

    def _smallest_below(self, target: np.ndarray) -> FrequencySet:
        """The cached frequency set with the fewest rows at or below ``target``."""
        size = len(self._cache)
        below = (self._cache_levels[:size] <= target).all(axis=1)
        rows = np.where(below, self._cache_rows[:size], _NOT_BELOW)
        index = int(rows.argmin())
        self._use(index)
        return self._cache[index]

    def _use(self, index: int) -> None:
        self._uses += 1
        self._cache_used[index] = self._uses

    def _rolled(self, source: FrequencySet, target: np.ndarray) -> FrequencySet:
        """``target``'s frequency set rolled up from ``source``, cached when it is smaller
        (in place of the sets used least recently, when the rows kept would exceed the
        limit)."""
        fs = rolled(source, target, self.maps, self.n_sa)
        if len(fs) >= len(source) or len(fs) > _CACHE_ROWS:
            return fs
        while self._cached_rows + len(fs) > _CACHE_ROWS:
            self._forget(1 + int(self._cache_used[1 : len(self._cache)].argmin()))
        size = len(self._cache)
        if size == len(self._cache_rows):
            self._cache_levels = np.concatenate([self._cache_levels, self._cache_levels])
            self._cache_rows = np.concatenate([self._cache_rows, self._cache_rows])
            self._cache_used = np.concatenate([self._cache_used, self._cache_used])
        self._cache.append(fs)
        self._cache_levels[size] = target
        self._cache_rows[size] = len(fs)
        self._cached_rows += len(fs)
        self._use(size)
        return fs

    def _forget(self, index: int) -> None:
        """Drop the cached set at ``index`` (never the bottom's): the last one takes its place."""
        last = len(self._cache) - 1
        self._cached_rows -= int(self._cache_rows[index])
        self._cache[index] = self._cache[last]
        for kept in (self._cache_levels, self._cache_rows, self._cache_used):
            kept[index] = kept[last]
        self._cache.pop()


class _Engine:
    """Frequency sets, node evaluations and the tags of one search."""

    def __init__(
        self, table: Table, models: ModelSet, limit: int, metric_name: str, all_minimal: bool
    ) -> None:
        schema = table.schema
        self.quasi = schema.quasi
        self.hierarchies = [schema.hierarchy(c) for c in self.quasi]
        self.lattice = Lattice([h.height for h in self.hierarchies], self.quasi)
        self.maps = LevelMaps(self.hierarchies)
        self.models = models
        self.limit = limit
        self.all_minimal = all_minimal
        self.n = table.n_records
        n_sa = 0
        sa = None
        if models.needs_sensitive:
            sa = table.codes(models.sensitive)
            n_sa = table.cardinality(models.sensitive)
        self.n_sa = n_sa
        leaf_codes = [table.codes(c) for c in self.quasi]  # (not copied: see frequency_set)
        bottom_levels = np.zeros(self.lattice.q, dtype=np.int64)
        self.bottom, self.row_of = frequency_set(
            bottom_levels,
            leaf_codes,
            [h.n_leaves for h in self.hierarchies],
            table.counts,
            sa,
            n_sa,
        )
        models.attach_populations(self.quasi, self.hierarchies, self.maps, self.bottom)
        leaf_counts = [
            records_per(c, table.counts, h.n_leaves)
            for c, h in zip(leaf_codes, self.hierarchies, strict=True)
        ]
        self.metric: Metric = make_metric(
            metric_name,
            self.lattice,
            self.hierarchies,
            leaf_counts,
            self.maps,
            self.n,
            self.bottom.n_classes,
            models.min_class_size,
        )
        size = self.lattice.size
        self.lb = self.metric.bounds(self.lattice)
        self.evaluated = np.zeros(size, dtype=bool)
        self.sunk = np.zeros(size, dtype=bool)  # infeasible, and so is everything below
        self.bad = np.zeros(size, dtype=bool)
        self.good = np.zeros(size, dtype=bool)
        self.dominated = np.zeros(size, dtype=bool)
        self.monotone = models.feasibility_monotone(limit)
        self.results: dict[int, _Node] = {}
        self.feasible: list[int] = []
        self.best = float("inf")
        self.checks = 0
        self.cache = FrequencyCache(self.bottom, self.maps, n_sa)

    def closed(self, nodes: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Whether each of ``nodes`` (all by default) is closed to the search: evaluated, bad
        or dominated."""
        return self.evaluated[nodes] | self.bad[nodes] | self.dominated[nodes]

    # ------------------------------------------------------------------ frequency sets
    def frequency_set(self, node: int) -> FrequencySet:
        """The frequency set of a node (see :meth:`FrequencyCache.at`)."""
        return self.cache.at(self.lattice.levels[node].astype(np.int64))

    # ------------------------------------------------------------------ evaluation
    def tolerance(self) -> float:
        """How far above the incumbent a value still ties (infinite before any incumbent)."""
        return self.metric.tolerance(self.best) if self.feasible else float("inf")

    def evaluate(self, node: int, full: bool = False) -> _Node:
        """Evaluate a node (once) and propagate what it tells.

        Unless ``full`` (or ``all_minimal``), a node that cannot beat the incumbent after its
        filter is not checked further, so its feasibility stays unknown.
        """
        shortcut = not (full or self.all_minimal)
        done = self.results.get(node)
        if done is not None and (done.checked or not done.filter_ok or shortcut):
            return done
        self.checks += done is None
        fs = self.frequency_set(node)
        fail_filter = self.models.filter(fs)
        filtered = int(fs.sizes[fail_filter].sum())
        res = _Node(filter_ok=filtered <= self.limit, filtered=filtered)
        lat = self.lattice
        bound = None
        if not res.filter_ok:
            lat.mark_below(self.sunk, node)
            lat.mark_below(self.bad, node)
        else:
            bound = self.metric.value(fs, fail_filter, filtered)
            if (
                shortcut
                and self.feasible
                and not self.models.exact_filter
                and bound > self.best + self.metric.tolerance(self.best)
            ):
                # Cannot beat the incumbent whatever the other models suppress.
                self._finish(node, res, fs, bound)
                return res
            fail, deficit = self.models.failing(fs, fail_filter, self.limit)
            res.checked = True
            res.suppressed = int(fs.sizes[fail].sum())
            res.star_fails = self.models.star_refused(fs, fail, self.limit)
            res.feasible = res.suppressed <= self.limit and res.star_fails is None
            if res.feasible:
                # Without other models the failing classes are the filter's: the value is known.
                same = fail is fail_filter
                res.value = bound if same else self.metric.value(fs, fail, res.suppressed)
                self.feasible.append(node)
                self.best = min(self.best, res.value)
                if self.monotone:
                    lat.mark_above(self.good, node)
                else:
                    self.good[node] = True
            elif self.monotone or deficit > self.limit:
                lat.mark_below(self.bad, node)
                lat.mark_below(self.sunk, node)
            else:
                self.bad[node] = True
            if res.suppressed == 0 and self.models.monotone:
                lat.mark_above(self.good, node)
                dominated = self.dominated[node]
                lat.mark_above(self.dominated, node)
                self.dominated[node] = dominated
        self._finish(node, res, fs, bound)
        return res

    def _finish(self, node: int, res: _Node, fs: FrequencySet, bound: float | None) -> None:
        self.results[node] = res
        self.evaluated[node] = True
        self.metric.refine(self.lb, self.lattice, node, fs, res.filtered, bound)

    def probe_failed(self, node: int) -> bool:
        """Whether a node is known to sink (evaluating it if needed).

        Without monotone feasibility a node that cannot beat the incumbent is not checked in
        full here, and counts as not sinking (which only makes the climb stop lower).
        """
        if self.sunk[node]:
            return True
        if self.good[node] and self.monotone:
            return False
        self.evaluate(node, full=self.monotone)
        return bool(self.sunk[node])

    def dive(self) -> None:
        """Find a good incumbent early: walk down from the top to the best feasible predecessor.

        Used when feasibility is not monotone, where the other models are checked on every node
        the bounds cannot rule out: an early incumbent lets the filter's bound skip most checks.
        """
        lat = self.lattice
        cur = lat.top
        while self.results[cur].feasible:
            lv = lat.levels[cur]
            preds = [cur - int(lat.strides[i]) for i in range(lat.q) if lv[i] > 0]
            feasible = [p for p in preds if self.evaluate(p, full=True).feasible]
            if not feasible:
                return
            cur = min(feasible, key=lambda p: (self.results[p].value, lat.rank[p]))

    def climb(self, node: int, include: bool = False) -> None:
        """Tag more of the lattice after ``node`` sank: search up a cheap path for its top.

        With ``include`` (``node`` not evaluated yet, feasibility monotone), ``node`` heads the
        path and is evaluated only if nothing above it on the path sinks. Without suppression
        the binary search starts at the highest node of the path whose bound is within the
        incumbent's tolerance (when the path goes beyond it).
        """
        lat = self.lattice
        known_pass = self.good if self.monotone else self.evaluated & ~self.sunk
        path = [node] if include else []
        cur = node
        while True:
            succ = [s for s in lat.successors(cur) if not known_pass[s]]
            if not succ:
                break
            cur = min(succ, key=lambda s: (self.lb[s], lat.rank[s]))
            path.append(cur)
        lo, hi = 0, len(path)
        if self.limit == 0 and self.feasible:
            # First probe the highest node that could still beat the incumbent: sunk, it
            # settles the path's relevant part; passing, the search stays below it.
            limit = self.best + self.tolerance()
            cut = next((i for i, x in enumerate(path) if self.lb[x] > limit), len(path))
            if 0 < cut < len(path):
                if self.probe_failed(path[cut - 1]):
                    lo = cut
                else:
                    hi = cut - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.probe_failed(path[mid]):
                lo = mid + 1
            else:
                hi = mid


def _model_set(
    table: Table, models: Sequence[PrivacyModel], suppressed_rows: str = "remove"
) -> ModelSet:
    """The models of a search on ``table`` whose suppressed records are published as
    ``suppressed_rows`` says (removed, or as one ``*`` class)."""
    schema = table.schema
    require_one_sensitive(models, schema.sensitive)
    star = suppressed_rows == "star"
    needs = [m.name for m in models if m.needs_sensitive]
    if not needs:
        return ModelSet.build(models, None, None, False, None, star=star)
    sa = schema.sensitive[0]
    codes = table.codes(sa).astype(np.int64)
    dictionary = table.dictionary(sa)
    reference = records_per(codes, table.counts, len(dictionary))
    values = pd.Index(list(dictionary))
    reference[np.asarray(pd.isna(values))] = 0  # unknown values are in no reference distribution
    numeric = numbers_of(table, sa) is not None
    return ModelSet.build(
        models, sa, values, numeric, reference, suppressed_rows == "remove", star=star
    )


def _infeasible(engine: _Engine, suppression: float) -> InfeasibleError:
    """Name the tightest constraint: the models the single class of the top node fails, or in
    star mode the ``*`` class of the nodes within the suppression limit."""
    starred = least_starred(engine.results.values())
    if starred is not None:
        return star_refusal(*starred[1:])
    needs = [r.suppressed if r.checked else r.filtered for r in engine.results.values()]
    top = engine.frequency_set(engine.lattice.top)
    return infeasible_error(engine.models, top, engine.n, engine.limit, min(needs), suppression)


def least_starred(results: Iterable[Any]) -> tuple[int, int, str] | None:
    """Of node results (``suppressed``, ``star_fails``), those refused for their ``*`` class:
    how many, and the records suppressed and model failed at the one suppressing fewest (None
    when there is none)."""
    starred = [(r.suppressed, r.star_fails) for r in results if r.star_fails]
    if not starred:
        return None
    return (len(starred), *min(starred, key=lambda x: x[0]))


def star_refusal(suppressed: int, fails: str) -> InfeasibleError:
    """The error of a search in star mode that found no feasible node although a node kept
    within the suppression limit: its ``suppressed`` records, as one ``*`` class, fail
    ``fails`` (a model's :attr:`~microanon.models.Verdict.head`)."""
    return InfeasibleError(
        "suppressed_rows: star publishes the suppressed records as one '*' class, which fails "
        f"the models at every node within the suppression limit (e.g. {suppressed:,} "
        f"record(s) failing {fails}), and no node satisfies them without suppression; publish "
        "them with suppressed_rows: remove"
    )


def infeasible_error(
    models: ModelSet, top: FrequencySet, n: int, limit: int, needs: int, suppression: float
) -> InfeasibleError:
    """The error of a search that found no feasible node.

    It names the models the single class of the top node (``top``, its frequency set) fails,
    with their achieved values, and the fewest suppressed records a node checked needed
    (``needs``).
    """
    groups = models.groups(top, slice(None), top.cls, top.sizes)
    parts = []
    for model in models.models:
        if bool(models.model_ok(model, top, groups).all()):
            continue
        params = ", ".join(f"{k}={v}" for k, v in next(iter(model.to_config().values())).items())
        try:
            detail = f"achieved {models.verdict(model, top, groups).achieved}"
        except InputError as exc:
            detail = str(exc)
        parts.append(
            f"{model.name} ({params}) fails even when all {n:,} records form one class ({detail})"
        )
    return InfeasibleError(
        f"no full-domain generalization satisfies the models with at most {suppression:.2%} "
        f"of the records suppressed ({limit:,} of {n:,}): {'; '.join(parts)}; every "
        f"node checked needs at least {needs:,} suppressed records. Allow more suppression "
        "or relax the models"
    )


def _minimal_nodes(engine: _Engine) -> list[dict[str, int]]:
    """Feasible nodes with no feasible node below them, in rank order."""
    lat = engine.lattice
    feasible = engine.good.copy()
    has_below = np.zeros(lat.size, dtype=bool)
    order = np.argsort(lat.total, kind="stable")
    totals = lat.total[order]
    bounds = np.searchsorted(totals, np.arange(totals[-1] + 2))
    reach = feasible.copy()  # feasible, or above a feasible node
    for t in range(1, int(totals[-1]) + 1):
        layer = order[bounds[t] : bounds[t + 1]]
        below = np.zeros(len(layer), dtype=bool)
        for i in range(lat.q):
            sel = lat.levels[layer, i] > 0
            below[sel] |= reach[layer[sel] - lat.strides[i]]
        has_below[layer] = below
        reach[layer] |= below
    minimal = np.flatnonzero(feasible & ~has_below)
    minimal = minimal[np.argsort(lat.rank[minimal])]
    return [lat.as_dict(int(x)) for x in minimal]


class _Frontier:
    """The open node (not evaluated, bad or dominated) of smallest bound, then rank: what the
    search takes next.

    A node's bound only rises and an open node only closes, so the smallest open bound never
    falls. The frontier keeps the open nodes whose bound is at most a limit, about the
    :data:`WINDOW` smallest when it is set: while one of them is still open and within the
    limit, the smallest of them is the smallest of all (every other node was above the limit
    and has only risen), and each step reads the window, not the lattice. When none is left,
    the window is set again from the whole lattice.
    """

    #: Open nodes the window holds when it is set (about).
    WINDOW = 4096

    def __init__(self, engine: _Engine) -> None:
        self.engine = engine
        self.nodes = np.zeros(0, dtype=np.intp)
        self.limit = -np.inf

    def next(self) -> int | None:
        """The node the search takes next, or None when every node is closed."""
        engine = self.engine
        nodes = self.nodes
        if len(nodes):
            nodes = nodes[~engine.closed(nodes) & (engine.lb[nodes] <= self.limit)]
            self.nodes = nodes
        if not len(nodes):
            nodes = np.flatnonzero(~engine.closed())
            if not len(nodes):
                return None
            self.limit = np.inf
            if len(nodes) > self.WINDOW:
                bounds = engine.lb[nodes]
                sample = bounds[:: max(len(bounds) // (4 * self.WINDOW), 1)]
                limit = float(np.quantile(sample, self.WINDOW / len(nodes), method="higher"))
                within = nodes[bounds <= limit]
                if len(within):  # (else, e.g. a NaN limit: the whole lattice is the window)
                    nodes, self.limit = within, limit
            self.nodes = nodes
        bounds = engine.lb[nodes]
        best = nodes[bounds == bounds.min()]
        return int(best[np.argmin(engine.lattice.rank[best])])


def search(
    table: Table,
    models: Any,
    suppression: float = 0.0,
    metric: str = "lm",
    all_minimal: bool = False,
    progress: bool = False,
    suppressed_rows: str = "remove",
    watch: SearchWatch | None = None,
    node_budget: int | None = None,
) -> SearchResult:
    """Find the optimal full-domain generalization of an encoded table.

    Parameters
    ----------
    table : Table
        The encoded original table; every quasi-identifier needs a hierarchy. A frequency
        table (with :attr:`Table.counts`) gives exactly the result of the records it
        summarizes: the counts weigh every frequency set, metric and reference distribution.
    models : PrivacyModel, config entry or list of them
        Privacy models every kept class must satisfy (see :func:`microanon.models.as_models`).
    suppression : float
        Largest share of the records that may be suppressed, in ``[0, 1)``.
    metric : {"lm", "discernibility", "aecs", "precision", "entropy", "loss"} or mapping
        What to minimize (see :mod:`microanon.methods.generalize._metrics`; for ``precision``
        the precision is maximized); ARX's Loss with options as a mapping (see
        :func:`~microanon.methods.generalize._metrics.canonical_metric`).
    all_minimal : bool
        Also return every minimal feasible node (Incognito's answer).
    progress : bool
        Show a progress bar over the lattice nodes.
    suppressed_rows : {"remove", "star"}
        How the release shows suppressed records. Removed, they leave the published table, and
        t-closeness, β-likeness and δ-disclosure privacy are checked against the distribution of
        the records kept (a node suppresses further until its kept classes pass against it);
        published as ``*``, they stay, and the reference is the original table's.
    watch : SearchWatch, optional
        Asked after each step of the search whether to stop (only
        :meth:`~._budget.SearchWatch.stop_requested`).
    node_budget : int, optional
        Once this many nodes are checked and one of them is feasible, the search stops before
        its next step and returns the best feasible node checked (``stopped="step_limit"``: a
        node left unchecked might be better). The same nodes are checked in the same order as
        without it, so the answer is a function of the table, the models and the budget. Not
        with ``all_minimal``.

    Returns
    -------
    SearchResult

    Raises
    ------
    InputError
        Bad suppression, metric or models; no quasi-identifier.
    InfeasibleError
        When no node satisfies the models within the suppression limit, naming the model that
        fails even on the single class of the top node.
    SearchStopped
        ``watch`` asked the search to stop.
    """
    started = time.perf_counter()
    suppression = check_suppression(suppression)
    metric = check_metric(metric)
    if suppressed_rows not in ("remove", "star"):
        raise InputError(f"suppressed_rows must be 'remove' or 'star', got {suppressed_rows!r}")
    resolved = as_models(models)
    if not table.schema.quasi:
        raise InputError("the schema has no quasi-identifier: mark the columns an attacker knows")
    if table.n_rows == 0:
        raise InputError("the table is empty: there is nothing to generalize")
    if node_budget is not None and (all_minimal or node_budget < 1):
        raise InputError(
            f"node_budget must be at least 1 and without all_minimal, got {node_budget!r}"
        )
    limit = int(np.floor(suppression * table.n_records + 1e-9))
    models_set = _model_set(table, resolved, suppressed_rows)
    engine = _Engine(table, models_set, limit, metric, all_minimal)
    lat = engine.lattice
    with as_progress(bool(progress)).count("full-domain search", lat.size, unit="node") as nodes:

        def tick() -> None:
            if watch is not None and watch.stop_requested():
                raise SearchStopped("the full-domain search was stopped before its optimum")
            if progress:
                nodes.advance(int(np.count_nonzero(engine.closed())) - nodes.n)

        stopped = "exhausted"
        engine.evaluate(lat.top)
        if not engine.monotone:
            engine.dive()
        if all_minimal:
            while True:
                unknown = ~(engine.good | engine.bad)
                node = int(np.argmax(unknown)) if unknown.any() else None
                if node is None:
                    break
                engine.evaluate(node)
                if engine.sunk[node]:
                    engine.climb(node)
                tick()
        frontier = _Frontier(engine)
        while True:
            node = frontier.next()
            if node is None or engine.lb[node] > engine.best + engine.tolerance():
                break
            if node_budget is not None and engine.checks >= node_budget and engine.feasible:
                stopped = "step_limit"  # (a node is left that could be better)
                break
            if engine.monotone and not engine.good[node] and not engine.metric.learns_above:
                engine.climb(node, include=True)
            else:
                engine.evaluate(node)
                if engine.sunk[node]:
                    engine.climb(node)
            tick()
        nodes.advance(lat.size - nodes.n)
    if not engine.feasible:
        raise _infeasible(engine, suppression)
    best = engine.best
    tol = engine.metric.tolerance(best)
    ties = [x for x in engine.feasible if engine.results[x].value <= best + tol]
    winner = min(ties, key=lambda x: (engine.results[x].suppressed, lat.rank[x]))
    res = engine.results[winner]
    if res.suppressed:
        _, _, mask = _suppressed_rows(engine, winner)
    else:  # no class fails: nothing to map back to the rows
        mask = np.zeros(table.n_rows, dtype=bool)
    return SearchResult(
        levels=lat.as_dict(winner),
        metric=metric,
        metric_value=engine.metric.report(res.value),
        suppressed=res.suppressed,
        nodes_checked=engine.checks,
        lattice_size=lat.size,
        minimal_nodes=_minimal_nodes(engine) if all_minimal else None,
        search_seconds=time.perf_counter() - started,
        suppressed_mask=mask,
        stopped=stopped,
    )


def _suppressed_rows(engine: _Engine, node: int) -> tuple[FrequencySet, np.ndarray, np.ndarray]:
    """A node's frequency set, its classes that the models reject and the table rows they hold.

    Returns
    -------
    fs : FrequencySet
    fail : bool array over the classes of ``fs``
    mask : bool array over the rows of the table
    """
    fs, row_of = roll_up(
        engine.bottom, engine.lattice.levels[node].astype(np.int64), engine.maps, engine.n_sa
    )
    fail, _ = engine.models.failing(fs, engine.models.filter(fs))
    return fs, fail, fail[fs.cls[row_of[engine.row_of]]]
