"""Full-domain searches re-run on one frequency table, without publishing rows.

The internal report of a release that warns proposes the closest configurations (one model
left out, twice the suppression) with the information loss each would have. For
:func:`~microanon.methods.generalize.full_domain` each alternative differs from the release only
in the search's input (models, suppression, budget), so :class:`FrequencyRuns` encodes the
original once into the frequency table of its quasi-identifiers and sensitive attributes (the
table the out-of-core engine searches; the search's answer on it is the answer on the records
it summarizes) and runs one lattice search per alternative on it; out of core, the frequency
table the release's own search ran on, counted partition by partition, serves the same way
(:meth:`FrequencyRuns.of_table`). Each answer is given as the
frequency table of what the release at that node would publish on its quasi-identifiers
(:class:`PublishedClasses`): the measures of the published table (Iyengar's loss metric,
columns ``*`` in every row) follow from it without building the published rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.hierarchy import SUPPRESSED, Hierarchy
from ...core.random import RandomLike
from ...core.schema import Schema
from ...core.table import Table, combine_codes
from ...models import PrivacyModel, as_models
from ._budget import SearchWatch
from ._levels import evaluate_levels
from ._search import SearchResult
from .full_domain import _flag, _prepare, published_labels, recut_record
from .searches import check_search, lattice_size, run_search

__all__ = ["FrequencyRuns", "PublishedClasses"]


@dataclass(frozen=True)
class PublishedClasses:
    """What a full-domain release at one node publishes on its quasi-identifiers.

    Attributes
    ----------
    levels : dict of str to int
        The node the search chose.
    suppressed : int
        Records suppressed (left out of the published table).
    values : pandas.DataFrame
        One row per distinct combination of published quasi-identifier values (the level
        labels, strings), in order of the combination's first row of the frequency table (built
        from records: of its first published record, so that every value of a column first
        appears in the same order as in the published rows).
    counts : int64 array
        Published records per row of ``values``.
    hierarchies : dict of str to Hierarchy
        The quasi-identifiers' hierarchies, as the release records them.
    metric_value : float
        The value of the search's metric at the node (for ``precision`` the precision).
    optimal : bool
        Whether the exact search proved the node optimal (not when it stopped at a node
        budget, nor for a heuristic search or a node given).
    recut : dict of str to dict of str to str
        The labels of ``values`` published in place of their hierarchy's, by hierarchy label
        (:func:`~.full_domain.recut_record`, as a release records them).
    """

    levels: dict[str, int]
    suppressed: int
    values: pd.DataFrame
    counts: np.ndarray
    hierarchies: dict[str, Hierarchy]
    metric_value: float
    optimal: bool
    recut: dict[str, dict[str, str]]

    def fully_generalized(self) -> list[str]:
        """The quasi-identifiers that are ``*`` in every published row (none if no row is
        published), in schema order."""
        if not len(self.values):
            return []
        return [q for q in self.values.columns if bool((self.values[q] == SUPPRESSED).all())]


class FrequencyRuns:
    """A frequency table of the original, for several full-domain searches with
    ``suppressed_rows="remove"`` and models not checked against a population.

    Parameters
    ----------
    table : Table
        The original encoded as a frequency table (:attr:`Table.counts`) of its
        quasi-identifiers, each with its hierarchy, and of the sensitive column the models
        need, in any row order: :meth:`of_records` encodes a DataFrame, and the out-of-core
        engine passes the table its search ran on.
    """

    def __init__(self, table: Table) -> None:
        #: The frequency table the searches run on.
        self.table = table

    @classmethod
    def of_records(
        cls, data: pd.DataFrame, schema: Schema | Mapping[str, Any], models: Any
    ) -> FrequencyRuns:
        """The original table encoded once, its rows in order of first record.

        Parameters
        ----------
        data : DataFrame
            The original table, as :func:`~microanon.methods.generalize.full_domain` receives
            it.
        schema : Schema or mapping
        models : model specification
            The release's models (the alternatives search with some of them); validated and
            resolved as :func:`~microanon.methods.generalize.full_domain` does.

        Raises
        ------
        InputError
            What :func:`~microanon.methods.generalize.full_domain` raises on its input, and a
            model checked against a population (whose hierarchies depend on the models given).
        """
        table, resolved, _, _ = _prepare(data, schema, models, 0.0, "lm", "remove")
        _refuse_population(resolved)
        return cls._counted(table)

    @classmethod
    def of_encoded(cls, table: Table, models: Any) -> FrequencyRuns:
        """The original as :func:`~microanon.methods.generalize.full_domain` encoded it for a
        release (:attr:`Release.encoded <microanon.core.release.Release.encoded>`, one row per
        record), counted as :meth:`of_records` counts it: the same frequency table, without
        encoding the records again.

        Raises
        ------
        InputError
            Bad models, or a model checked against a population.
        """
        _refuse_population(as_models(models))
        return cls._counted(table)

    @classmethod
    def _counted(cls, table: Table) -> FrequencyRuns:
        """An encoded original (one row per record) counted into a frequency table of its
        quasi-identifiers and sensitive attributes, rows in order of first record."""
        columns = [*table.schema.quasi, *table.schema.sensitive]
        found = combine_codes(
            [table.codes(c) for c in columns], [table.cardinality(c) for c in columns]
        )
        order = np.argsort(found.first, kind="stable")  # rows in order of first record
        return cls(
            Table.from_codes(
                {c: found.combos[order, j] for j, c in enumerate(columns)},
                {c: table.dictionary(c) for c in columns},
                table.schema.select(columns),
                counts=found.counts[order],
            )
        )

    @classmethod
    def of_table(cls, table: Table, models: Any) -> FrequencyRuns:
        """Searches on a frequency table already encoded (the one a release's search ran on).

        Raises
        ------
        InputError
            Bad models, or a model checked against a population.
        """
        _refuse_population(as_models(models))
        return cls(table)

    def search(
        self,
        models: Sequence[PrivacyModel],
        *,
        suppression: float = 0.0,
        metric: str | Mapping[str, Any] = "lm",
        all_minimal: bool = False,
        search: str = "auto",
        time_limit: float | None = None,
        step_limit: int | None = None,
        rng: RandomLike = None,
        watch: SearchWatch | None = None,
        start: Mapping[str, int] | None = None,
        node_budget: int | None = None,
    ) -> PublishedClasses:
        """The node :func:`~microanon.methods.generalize.full_domain` would choose with these
        parameters (``suppressed_rows="remove"``), and what it would publish.

        Parameters as :func:`~microanon.methods.generalize.full_domain`'s; ``watch`` may stop
        the search and ``start`` is a node a heuristic or genetic search checks first, and
        the exact search stops at ``node_budget`` nodes checked (see
        :func:`~.searches.run_search`). A heuristic or genetic search does not work for its
        lower bound, which is not returned: the same node, without the second or more the
        bound may take.

        Raises
        ------
        InputError, InfeasibleError
            As :func:`~microanon.methods.generalize.full_domain`.
        SearchStopped
            ``watch`` stopped the exact search.
        """
        choice = check_search(search, time_limit, step_limit, _flag("all_minimal", all_minimal))
        result, record = run_search(
            self.table,
            as_models(list(models)),
            suppression,
            metric,
            "remove",
            choice,
            rng=rng,
            watch=watch,
            lower_bound=False,  # (what is published is read, not how far from the optimum)
            start=start,
            node_budget=node_budget,
        )
        return self._published(result, record["optimal"])

    def at_levels(
        self,
        models: Sequence[PrivacyModel],
        levels: Mapping[str, int],
        *,
        suppression: float = 0.0,
        metric: str | Mapping[str, Any] = "lm",
    ) -> PublishedClasses:
        """What :func:`~microanon.methods.generalize.full_domain` would publish at ``levels``
        with these models and suppression (``suppressed_rows="remove"``), without a search
        (:func:`~._levels.evaluate_levels`; not proven optimal).

        Raises
        ------
        InputError, InfeasibleError
            As :func:`~._levels.evaluate_levels`: bad levels, or a node the models do not meet
            within the suppression.
        """
        result = evaluate_levels(self.table, list(models), levels, suppression, metric)
        return self._published(result, False)

    def exact(self, search: str = "auto", all_minimal: bool = False) -> bool:
        """Whether :meth:`search` with this ``search`` (and no limit) runs the exact search
        on this table's lattice."""
        choice = check_search(search, None, None, _flag("all_minimal", all_minimal))
        return choice.kind(lattice_size(self.table), len(self.table.schema.quasi)) == "exact"

    def _published(self, result: SearchResult, optimal: bool) -> PublishedClasses:
        """The published classes of the kept rows at ``result``'s levels, in order of first
        record."""
        levels, kept = result.levels, ~result.suppressed_mask
        schema = self.table.schema
        quasi = list(schema.quasi)
        codes = [
            schema.hierarchy(q).level_codes(int(levels[q])).take(self.table.codes(q)[kept])
            for q in quasi
        ]
        # the labels it would publish: ranges cut from the data cut again on its records
        every = {q: self.table.codes(q) for q in quasi}
        shown = published_labels(schema, levels, every, kept)
        labels = [shown[q] for q in quasi]
        found = combine_codes(codes, [len(x) for x in labels])
        order = np.argsort(found.first, kind="stable")
        counts = np.bincount(
            found.inverse, weights=self.table.weights[kept], minlength=len(found.first)
        ).astype(np.int64)
        values = pd.DataFrame(
            {q: labels[j].take(found.combos[order, j]) for j, q in enumerate(quasi)}
        )
        # The hierarchies as a release records them (its metadata keeps them as label paths).
        hierarchies = {q: Hierarchy.from_dict(schema.hierarchy(q).to_dict()) for q in quasi}
        return PublishedClasses(
            dict(levels),
            int(result.suppressed),
            values,
            counts[order],
            hierarchies,
            float(result.metric_value),
            optimal,
            recut_record(schema, levels, shown),
        )


def _refuse_population(models: Sequence[PrivacyModel]) -> None:
    """Refuse models checked against a population (their hierarchies depend on the models)."""
    if any(m.needs_population for m in models):
        raise InputError("FrequencyRuns: models against a population are not supported")
