"""Models that compare each class with a population: the shared part of δ-presence and k-map.

The *population* is the public table the released records were drawn from (a census, a voter
list): a DataFrame with the quasi-identifier columns, one row per person or, with ``count``, one
row per combination of values with the number of people holding it. A class of the checked
table and a population row match when every quasi-identifier is equal, compared as the table's
own classes are (``25`` and ``25.0`` are one value, ``"25"`` another: a population read with
other types than the table does not match it, and the check says so, since the population must
contain every record). To check a generalized table, give the population generalized the same
way; a search such as :func:`microanon.methods.generalize.full_domain` does that itself, node
by node.
"""

from __future__ import annotations

import dataclasses
from abc import abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import numpy as np
import pandas as pd

from microanon.core.constraints import Anything, Param, Text
from microanon.core.errors import InputError
from microanon.core.frames import pandas_if_arrow
from microanon.core.table import combine_codes

from .base import PrivacyModel
from .groups import Columns, Groups, groups_of
from .verdict import Verdict

__all__ = [
    "POPULATION_PARAMETERS",
    "PopulationModel",
    "population_weights",
    "population_sizes",
    "population_record",
    "population_from_record",
]

_Model = TypeVar("_Model", bound="PopulationModel")


def population_weights(population: Any, count: Hashable | None) -> np.ndarray:
    """People per population row: 1 each, or the ``count`` column (whole numbers >= 0).

    Raises
    ------
    InputError
        If ``population`` is not a non-empty DataFrame, or ``count`` is absent or holds missing,
        negative or fractional values.
    """
    if not isinstance(population, pd.DataFrame):
        raise InputError(
            "population must be a pandas DataFrame (or an Arrow-compatible table) with the "
            "quasi-identifier columns, not "
            f"{type(population).__name__}"
        )
    if len(population) == 0:
        raise InputError("population: the table is empty")
    if count is None:
        return np.ones(len(population), dtype=np.int64)
    if count not in population.columns:
        raise InputError(
            f"count: column {count!r} is not in the population; its columns are "
            f"{list(population.columns)}"
        )
    values = pd.to_numeric(population[count], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values < 0) | (values != np.floor(values))
    if bad.any():
        raise InputError(
            f"count: column {count!r} of the population must hold whole numbers >= 0; "
            f"{int(bad.sum())} value(s) are not"
        )
    return values.astype(np.int64)


def _joint_codes(
    column: Hashable, data: pd.Series, population: pd.Series
) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes of one column of the groups and of the population in one shared dictionary."""
    both = pd.concat([data, population], ignore_index=True)
    codes, dictionary = pd.factorize(both)
    missing = int(np.count_nonzero(codes < 0))
    if missing:
        raise InputError(
            f"population: column {column!r} has {missing} missing value(s); every person needs "
            "a value"
        )
    return codes[: len(data)], codes[len(data) :], len(dictionary)


def population_sizes(
    groups: Groups, population: pd.DataFrame, count: Hashable | None = None
) -> np.ndarray:
    """People of the population in each group: those with the group's quasi-identifier values.

    Parameters
    ----------
    groups : Groups
        The groups of the checked table.
    population : DataFrame
        The population, with every quasi-identifier column of ``groups``.
    count : column name, optional
        Column of ``population`` holding the people per row (default: one per row).

    Returns
    -------
    (n_groups,) int64 array

    Raises
    ------
    InputError
        If the population lacks a quasi-identifier column, has fewer people than the table has
        records, or has fewer people than records in some group (the population must contain
        the table).
    """
    population = pandas_if_arrow(population, "population")
    weights = population_weights(population, count)
    absent = [c for c in groups.quasi if c not in population.columns]
    if absent:
        raise InputError(
            f"population: quasi-identifier column(s) {', '.join(map(repr, absent))} missing; "
            f"its columns are {list(population.columns)}"
        )
    if int(weights.sum()) < groups.n_rows:
        raise InputError(
            f"population: {int(weights.sum())} people, fewer than the {groups.n_rows} records of "
            "the table it must contain"
        )
    keys = groups.keys
    codes, cards = [], []
    for c in groups.quasi:
        data_codes, pop_codes, card = _joint_codes(c, keys[c], population[c])
        codes.append(np.concatenate([data_codes, pop_codes]))
        cards.append(card)
    inverse = combine_codes(codes, cards).inverse
    n = groups.n_groups
    per_combo = np.bincount(inverse[n:], weights=weights, minlength=int(inverse.max()) + 1)
    sizes = per_combo[inverse[:n]].astype(np.int64)
    short = np.flatnonzero(sizes < groups.sizes)
    if len(short):
        g = int(short[0])
        where = ", ".join(f"{c}={v!r}" for c, v in keys.iloc[g].items())
        raise InputError(
            f"population: the class ({where}) has {int(groups.sizes[g])} record(s) but only "
            f"{int(sizes[g])} people in the population, which must contain every record "
            f"({len(short)} class(es) fall short; is the population generalized like the table?)"
        )
    return sizes


def population_record(classes: pd.DataFrame, people: np.ndarray) -> dict[str, Any]:
    """The JSON form in which a release keeps, internally, the population of its classes.

    Parameters
    ----------
    classes : DataFrame
        One row per published class: its quasi-identifier values (as published).
    people : int array
        People of the population in each class.

    The classes are listed in the order of their values (as text), so the record does not
    depend on the order in which a method met them.
    """
    rows = [[str(v) for v in row] for row in classes.itertuples(index=False)]
    order = sorted(range(len(rows)), key=rows.__getitem__)
    return {
        "quasi": [str(c) for c in classes.columns],
        "classes": [rows[i] for i in order],
        "people": [int(people[i]) for i in order],
    }


def population_from_record(record: Any) -> tuple[pd.DataFrame, str]:
    """The population table, and its count column, of a :func:`population_record`.

    Raises
    ------
    InputError
        If ``record`` is not of that form.
    """
    ok = isinstance(record, dict) and {"quasi", "classes", "people"} <= set(record)
    if not ok or len(record["classes"]) != len(record["people"]):
        raise InputError("populations: a release's population record is malformed")
    quasi = list(record["quasi"])
    name = "people"
    while name in quasi:
        name += "_"
    frame = pd.DataFrame(record["classes"], columns=quasi, dtype=object)
    frame[name] = np.asarray(record["people"], dtype=np.int64)
    return frame, name


#: The parameters every population model takes (its fields ``population`` and ``count``).
POPULATION_PARAMETERS = (
    Param(
        "population",
        "The public population: a file (or table) with the quasi-identifier columns, one row "
        "per person or with a count column.",
        (Anything("a file or a table"),),
    ),
    Param("count", "The population's column with the people each row stands for.", (Text(),)),
)


@dataclass(frozen=True)
class PopulationModel(PrivacyModel):
    """A model checked against a population (see the module docstring).

    The population is held by the model and compared by identity, not by value; it is never part
    of :meth:`to_config` (a release's public metadata names the model and its thresholds only).
    """

    population: pd.DataFrame | None = field(default=None, compare=False, repr=False, kw_only=True)
    count: Hashable | None = field(default=None, kw_only=True)

    def _check_population(self) -> None:
        """Validate the population fields (for ``__post_init__``)."""
        if self.population is not None:
            object.__setattr__(self, "population", pandas_if_arrow(self.population, "population"))
            population_weights(self.population, self.count)
        elif self.count is not None:
            raise InputError("count: names a column of the population, but no population is given")

    #: These models are about the quasi-identifiers only.
    needs_sensitive: ClassVar[bool] = False
    #: What may stand for the population table instead, in the refusal of a model without one.
    instead: ClassVar[str] = ""

    @property
    def needs_population(self) -> bool:
        """Whether checking the model needs a population table."""
        return True

    def with_population(
        self: _Model, population: pd.DataFrame, count: Hashable | None = None
    ) -> _Model:
        """The same model with another population (validated)."""
        return dataclasses.replace(self, population=population, count=count)

    def require_population(self) -> pd.DataFrame:
        """The model's population.

        Raises
        ------
        InputError
            If the model holds none.
        """
        if self.population is None:
            raise InputError(
                f"population: {self.name} needs the population table, with the "
                "quasi-identifier columns and one row per person or a count column (in a "
                "config: population: FILE among the model's parameters; in Python: a "
                f"DataFrame){self.instead}"
            )
        return self.population

    def population_of(self, groups: Groups) -> np.ndarray:
        """People of the model's population in each group (see :func:`population_sizes`).

        Raises
        ------
        InputError
            If the model holds no population, or see :func:`population_sizes`.
        """
        return population_sizes(groups, self.require_population(), self.count)

    @abstractmethod
    def class_ok(self, sizes: np.ndarray, population: np.ndarray) -> np.ndarray:
        """Whether each class passes, from its records and its people in the population."""

    @abstractmethod
    def verdict(self, groups: Groups, population: np.ndarray) -> Verdict:
        """The verdict on ``groups``, given each group's people in the population."""

    def group_ok(self, groups: Groups) -> np.ndarray:
        """Groups that pass, their population counted by :meth:`population_of`."""
        return self.class_ok(groups.sizes, self.population_of(groups))

    def check(
        self,
        data: pd.DataFrame | Groups,
        quasi: Columns | None = None,
        sensitive: Hashable | None = None,
    ) -> Verdict:
        """Check the model on a table (or prebuilt groups) against its population.

        ``sensitive`` is accepted for a uniform interface and not used.
        """
        groups = groups_of(data, quasi)
        return self.verdict(groups, self.population_of(groups))
