"""δ-presence: how sure an attacker can be that a person of the population is in the release.

Nergiz, Atzori & Clifton, *Hiding the Presence of Individuals from Shared Databases*, SIGMOD
2007. The attacker knows a public population table P that contains the released table T (a
sample of P: the patients of one hospital among the region's residents). After generalizing P
and T the same way, a person of P whose generalized values match a class of the release is in T
with probability (records of the class in T) / (people of the class in P). (δ_min, δ_max)-presence
asks every such probability to lie in [δ_min, δ_max]: the release neither reveals that someone
took part (δ_max) nor that someone did not (δ_min).

Only classes with released records are constrained, as in ARX (a class of the population with
no released record says nothing the suppressed-record count does not already say). Each class's
own value is its ratio; the verdict's value is the largest ratio (the smallest δ_max that holds)
and its ``lowest`` the smallest ratio (the largest δ_min that holds).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from microanon.core.constraints import Param, Real
from microanon.core.errors import InputError

from .base import BOUND_SLACK
from .groups import Columns, Groups, groups_of
from .params import TOL, real
from .population import POPULATION_PARAMETERS, PopulationModel, population_sizes
from .verdict import Verdict, build_verdict

__all__ = ["delta_presence", "DeltaPresence"]


def _check_deltas(delta_min: Any, delta_max: Any) -> tuple[float, float]:
    """Validate ``0 <= delta_min <= delta_max <= 1``."""
    delta_min = real("delta_min", delta_min)
    delta_max = real("delta_max", delta_max)
    for name, value in (("delta_min", delta_min), ("delta_max", delta_max)):
        if not 0.0 <= value <= 1.0:
            raise InputError(f"{name} must lie in [0, 1] (a probability), got {value!r}")
    if delta_min > delta_max:
        raise InputError(f"delta_min ({delta_min!r}) exceeds delta_max ({delta_max!r})")
    return delta_min, delta_max


def _verdict(groups: Groups, population: np.ndarray, deltas: tuple[float, float] | None) -> Verdict:
    ratio = groups.sizes / population
    offending = None
    parameters: dict[str, Any] = {"delta_min": None, "delta_max": None}
    if deltas is not None:
        lo, hi = deltas
        offending = (ratio < lo - TOL) | (ratio > hi + TOL)
        parameters = {"delta_min": lo, "delta_max": hi}
    return build_verdict(
        "delta-presence",
        parameters,
        groups,
        ratio,
        float(ratio.max()),
        offending,
        worst_is_high=True,
        lowest=float(ratio.min()),
    )


def delta_presence(
    data: pd.DataFrame | Groups,
    quasi: Columns | None,
    population: pd.DataFrame,
    delta_min: float | None = None,
    delta_max: float | None = None,
    count: Hashable | None = None,
) -> Verdict:
    """Check (δ_min, δ_max)-presence against a population.

    Parameters
    ----------
    data : DataFrame or Groups
        The released table, or its prebuilt groups.
    quasi : column name or sequence of names, or None
        Quasi-identifier columns (``None`` with prebuilt groups).
    population : DataFrame
        The public population that contains ``data``, with every quasi-identifier column,
        generalized like ``data`` (see :mod:`microanon.models.population`).
    delta_min, delta_max : float, optional
        Bounds of each class's ratio, ``0 <= delta_min <= delta_max <= 1``; a missing one
        defaults to 0 or 1. Without either the verdict only reports the achieved value.
    count : column name, optional
        Column of ``population`` with the number of people per row.

    Returns
    -------
    Verdict
        Each class's own value is (its records) / (its people in the population); ``value`` is
        the largest ratio. The model holds iff every ratio lies in ``[delta_min, delta_max]``
        (within 1e-12). ``lowest`` is the smallest ratio.

    Raises
    ------
    InputError
        If ``delta_min > delta_max``, a bound lies outside [0, 1], the population lacks a
        quasi-identifier column or holds fewer people than some class has records, or the columns
        are unusable.

    Examples
    --------
    >>> import pandas as pd
    >>> released = pd.DataFrame({"zip": ["476**", "476**", "479**"]})
    >>> public = pd.DataFrame({"zip": ["476**", "479**"], "n": [4, 2]})
    >>> delta_presence(released, "zip", public, 0.25, 0.5, count="n").holds
    True
    """
    deltas = None
    if delta_min is not None or delta_max is not None:
        deltas = _check_deltas(
            0.0 if delta_min is None else delta_min, 1.0 if delta_max is None else delta_max
        )
    groups = groups_of(data, quasi)
    return _verdict(groups, population_sizes(groups, population, count), deltas)


@dataclass(frozen=True)
class DeltaPresence(PopulationModel):
    """(δ_min, δ_max)-presence with fixed bounds (see :func:`delta_presence`).

    Parameters
    ----------
    delta_min, delta_max : float
        Bounds of each class's ratio of records to people, ``0 <= delta_min <= delta_max <= 1``.
    population : DataFrame, optional
        The public population (keyword only). A model read back from a release's configuration
        has none; :func:`~microanon.models.check_release` supplies the counts the release keeps
        internally.
    count : column name, optional
        Column of ``population`` with the people per row (keyword only).

    Notes
    -----
    Not monotone under generalization when ``delta_min > 0``: merging a class with population
    cells that have no released record lowers its ratio below ``delta_min``. With
    ``delta_min = 0`` it is (sums of ``n <= δ N`` stay so).
    """

    PROMISE: ClassVar[str] = (
        "Whether a person of a public population is in the data can be guessed with a "
        "probability between delta_min and delta_max only (needs the population)."
    )
    PARAMETERS: ClassVar[tuple[Param, ...]] = (
        *POPULATION_PARAMETERS,
        Param(
            "delta_min",
            "Smallest share of the population's people of a published combination that may be "
            "in the data, from 0 to delta_max.",
            (Real(0, 1),),
        ),
        Param(
            "delta_max",
            "Largest share of the population's people of a published combination that may be in "
            "the data, from delta_min to 1.",
            (Real(0, 1),),
        ),
    )

    delta_min: float
    delta_max: float

    def __post_init__(self) -> None:
        lo, hi = _check_deltas(self.delta_min, self.delta_max)
        object.__setattr__(self, "delta_min", lo)
        object.__setattr__(self, "delta_max", hi)
        self._check_population()

    @property
    def name(self) -> str:
        """``"delta-presence"``."""
        return "delta-presence"

    @property
    def monotone(self) -> bool:
        """Only without a lower bound (see the class's notes)."""
        return self.delta_min == 0.0

    def deficits(self, groups: Groups, people: np.ndarray | None) -> np.ndarray:
        """From the upper bound: passing parts hold at most ``δ_max`` records per person of
        their population cells, which lie in the group's, so ``s >= n - δ_max N`` records of a
        group with ``N`` people stay suppressed."""
        sizes = groups.sizes.astype(np.float64)
        return np.maximum(sizes - (self.delta_max + TOL + BOUND_SLACK) * people, 0.0)

    def class_ok(self, sizes: np.ndarray, population: np.ndarray) -> np.ndarray:
        """Classes whose ratio of records to people lies in ``[delta_min, delta_max]``."""
        ratio = sizes / population
        return (ratio >= self.delta_min - TOL) & (ratio <= self.delta_max + TOL)

    def verdict(self, groups: Groups, population: np.ndarray) -> Verdict:
        """The verdict given each group's people in the population."""
        return _verdict(groups, population, (self.delta_min, self.delta_max))

    def to_config(self) -> dict[str, dict[str, Any]]:
        """``{"delta_presence": {"delta_min": ..., "delta_max": ...}}`` (never the population)."""
        return {"delta_presence": {"delta_min": self.delta_min, "delta_max": self.delta_max}}
