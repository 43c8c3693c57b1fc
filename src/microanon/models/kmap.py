"""k-map: every released record matches at least k people of the population.

Sweeney, *Computational Disclosure Control: A Primer on Data Privacy Protection*, PhD thesis,
MIT, 2001 (k-map); El Emam & Dankar, *Protecting Privacy Using k-Anonymity*, JAMIA 15(5), 2008
(k-map as the attacker who does not know who is in the sample, and its estimation from the
sample).

k-anonymity counts the matching records in the release; k-map counts the matching people in the
population the release was drawn from, which an attacker re-identifying a sample record has to
tell apart. Two ways to know that count:

- a **population table** (see :mod:`microanon.models.population`): a class passes when at least
  ``k`` people of the population share its quasi-identifier values;
- an **estimator** of the population count from the sample, as ARX offers: the sample is a
  simple random sample drawing a share ``fraction`` of the population, so a population cell of
  ``K`` people holds about ``Poisson(fraction · K)`` records. A class of the sample is taken to
  have at least ``k`` people when so many records would be unlikely from ``k`` people: with
  ``X ~ Poisson(λ)``, ``λ = fraction · k``, the derived threshold is the smallest ``c`` with
  ``P(X >= c) <= significance`` (``zero_truncated_poisson``: ``X`` conditioned on ``X >= 1``,
  since only non-empty cells are seen), capped at ``k`` (``k`` records are always ``k`` people).
  The check is then k-anonymity with that threshold.

ARX (``KMap``, 3.x) implements the same two estimators; its zero-truncated variant derives the
same threshold, its Poisson variant one more than the rule above, and it caps the threshold at
the number of records, where microanon does not (a threshold above the table size fails).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from microanon.core.constraints import Choice, Integer, Param, Real
from microanon.core.errors import InputError

from .base import ClassBounds
from .groups import Columns, Groups, groups_of
from .params import choice, integer, real
from .population import POPULATION_PARAMETERS, PopulationModel, population_sizes
from .verdict import Verdict, build_verdict

__all__ = ["k_map", "KMap", "ESTIMATORS", "estimated_threshold"]

#: Estimators of a cell's population count from the sample.
ESTIMATORS = ("poisson", "zero_truncated_poisson")
_CHUNK = 1024


def _check_estimator(
    estimator: Any, fraction: Any, significance: Any
) -> tuple[str | None, float | None, float]:
    """Validate the estimator settings."""
    significance = real("significance", significance)
    if not 0.0 <= significance <= 1.0:
        raise InputError(f"significance must lie in [0, 1], got {significance!r}")
    if estimator is None:
        if fraction is not None:
            raise InputError("fraction is only used with an estimator (estimator='poisson', ...)")
        return None, None, significance
    estimator = choice("estimator", estimator, ESTIMATORS)
    if fraction is None:
        raise InputError(
            "fraction: the estimator needs the sampling fraction (records / population size)"
        )
    fraction = real("fraction", fraction)
    if not 0.0 < fraction <= 1.0:
        raise InputError(
            f"fraction must lie in (0, 1] (records / population size), got {fraction!r}"
        )
    return estimator, fraction, significance


def estimated_threshold(k: int, fraction: float, significance: float, estimator: str) -> int:
    """The class size from which a sample class is taken to have at least ``k`` people.

    The smallest ``c`` with ``P(X >= c) <= significance`` for ``X ~ Poisson(fraction · k)``
    (zero-truncated: conditioned on ``X >= 1``), capped at ``k``.

    Parameters
    ----------
    k : int
    fraction : float
        Sampling fraction, in (0, 1].
    significance : float
        Largest accepted probability that a cell of ``k`` people shows ``c`` or more records.
    estimator : {"poisson", "zero_truncated_poisson"}

    Returns
    -------
    int
        Between 1 and ``k``.

    Examples
    --------
    >>> estimated_threshold(5, 0.01, 0.05, "poisson")
    1
    >>> estimated_threshold(5, 0.01, 0.05, "zero_truncated_poisson")
    2
    """
    from scipy.stats import poisson

    lam = fraction * k
    shown = float(poisson.sf(0, lam)) if estimator == "zero_truncated_poisson" else 1.0
    start = 0
    while start < k:  # c - 1 = j: the first j with P(X > j) <= significance · P(X shown)
        j = np.arange(start, min(start + _CHUNK, k))
        ok = np.flatnonzero(poisson.sf(j, lam) <= significance * shown)
        if len(ok):
            return int(min(j[ok[0]] + 1, k))
        start += _CHUNK
    return k


def _achieved_estimated(smallest: int, fraction: float, significance: float, estimator: str) -> int:
    """The largest k whose derived threshold is at most the smallest class size."""

    def passes(k: int) -> bool:
        return estimated_threshold(k, fraction, significance, estimator) <= smallest

    lo, hi = smallest, 2 * smallest  # the threshold never exceeds k: k = smallest passes
    while passes(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # passes(lo), not passes(hi); the threshold is non-decreasing in k
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if passes(mid) else (lo, mid)
    return lo


def _verdict(
    groups: Groups,
    k: int | None,
    population: np.ndarray | None,
    estimator: str | None,
    fraction: float | None,
    significance: float,
) -> Verdict:
    if population is not None:
        offending = None if k is None else population < k
        return build_verdict(
            "k-map", {"k": k}, groups, population, int(population.min()), offending
        )
    sizes = groups.sizes
    smallest = int(sizes.min())
    threshold = None if k is None else estimated_threshold(k, fraction, significance, estimator)
    parameters: dict[str, Any] = {
        "k": k,
        "estimator": estimator,
        "fraction": fraction,
        "significance": significance,
        "threshold": threshold,
    }
    value = _achieved_estimated(smallest, fraction, significance, estimator)
    offending = None if threshold is None else sizes < threshold
    return build_verdict("k-map", parameters, groups, sizes, value, offending)


def k_map(
    data: pd.DataFrame | Groups,
    quasi: Columns | None,
    k: int | None = None,
    population: pd.DataFrame | None = None,
    count: Hashable | None = None,
    estimator: str | None = None,
    fraction: float | None = None,
    significance: float = 0.01,
) -> Verdict:
    """Check k-map, against a population table or with an estimator.

    Parameters
    ----------
    data : DataFrame or Groups
        The released table, or its prebuilt groups.
    quasi : column name or sequence of names, or None
        Quasi-identifier columns (``None`` with prebuilt groups).
    k : int, optional
        Required people per class, at least 1. Without it the verdict only reports the achieved
        value.
    population : DataFrame, optional
        The population containing ``data``, generalized like it (see
        :mod:`microanon.models.population`). Give either this or ``estimator``.
    count : column name, optional
        Column of ``population`` with the people per row.
    estimator : {"poisson", "zero_truncated_poisson"}, optional
        Estimate the population counts from the sample (see the module docstring).
    fraction : float, optional
        Sampling fraction of the estimator: records / population size, in (0, 1].
    significance : float, default 0.01
        The estimator's significance level, in [0, 1].

    Returns
    -------
    Verdict
        With a population: each class's own value is its people in the population and ``value``
        the smallest of them (the largest k that holds). With an estimator: each class's own value
        is its size, ``parameters["threshold"]`` the derived class size and ``value`` the largest
        k whose threshold every class meets.

    Raises
    ------
    InputError
        If ``k < 1``, neither or both of ``population`` and ``estimator`` are given, the
        estimator lacks ``fraction`` or has bad settings, or the population lacks a
        quasi-identifier column or holds fewer people than some class has records.

    Examples
    --------
    >>> import pandas as pd
    >>> released = pd.DataFrame({"age": ["[20, 30)", "[20, 30)", "[30, 40)"]})
    >>> public = pd.DataFrame({"age": ["[20, 30)", "[30, 40)"], "people": [9, 4]})
    >>> k_map(released, "age", 3, population=public, count="people").value
    4
    """
    if k is not None:
        k = integer("k", k)
    estimator, fraction, significance = _check_estimator(estimator, fraction, significance)
    if (population is None) == (estimator is None):
        raise InputError(
            "k-map needs either population (a population table) or estimator (an estimate "
            "from the sampling fraction), not both"
            if population is not None
            else "k-map needs either population (a population table) or estimator "
            "('poisson' or 'zero_truncated_poisson' with a fraction)"
        )
    groups = groups_of(data, quasi)
    counts = None if population is None else population_sizes(groups, population, count)
    return _verdict(groups, k, counts, estimator, fraction, significance)


@dataclass(frozen=True)
class KMap(PopulationModel):
    """k-map with fixed parameters (see :func:`k_map`).

    Parameters
    ----------
    k : int
        Required people per class, at least 1.
    estimator : {"poisson", "zero_truncated_poisson"}, optional
        Estimate the population from the sample instead of a population table.
    fraction : float, optional
        The estimator's sampling fraction, in (0, 1].
    significance : float, default 0.01
        The estimator's significance level.
    population : DataFrame, optional
        The population table (keyword only), when no estimator is given. A model read back
        from a release's configuration has none; :func:`~microanon.models.check_release`
        supplies the counts the release keeps internally.
    count : column name, optional
        Column of ``population`` with the people per row (keyword only).

    Notes
    -----
    Monotone in both senses k-anonymity is: a class passing stays passing when merged, and a
    failing class is made of failing parts (their population cells are smaller).
    """

    instead: ClassVar[str] = (
        "; or give estimator and fraction (the share of the population in the data) instead"
    )

    PROMISE: ClassVar[str] = (
        "Every published combination matches at least k people of the population (given, or "
        "estimated), not just k records of the sample."
    )
    PARAMETERS: ClassVar[tuple[Param, ...]] = (
        *POPULATION_PARAMETERS,
        Param(
            "k",
            "Smallest number of people of the population every published combination must match.",
            (Integer(1),),
        ),
        Param(
            "estimator",
            "Estimate the population from the sample instead of a population table.",
            (Choice(("poisson", "zero_truncated_poisson")),),
        ),
        Param(
            "fraction",
            "The estimator's sampling fraction: the share of the population in the data, above "
            "0 and at most 1.",
            (Real(0, 1, closed="right"),),
        ),
        Param(
            "significance",
            "The estimator's significance level, between 0 and 1.",
            (Real(0, 1, closed="neither"),),
        ),
    )

    k: int
    estimator: str | None = None
    fraction: float | None = None
    significance: float = 0.01

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", integer("k", self.k))
        estimator, fraction, significance = _check_estimator(
            self.estimator, self.fraction, self.significance
        )
        if estimator is not None and self.population is not None:
            raise InputError("k-map: give either population or estimator, not both")
        object.__setattr__(self, "estimator", estimator)
        object.__setattr__(self, "fraction", fraction)
        object.__setattr__(self, "significance", significance)
        self._check_population()

    @property
    def name(self) -> str:
        """``"k-map"``."""
        return "k-map"

    @property
    def needs_population(self) -> bool:
        """Whether the model is checked against a population table (no estimator)."""
        return self.estimator is None

    @property
    def threshold(self) -> int | None:
        """The estimator's derived class size (None without an estimator)."""
        if self.estimator is None:
            return None
        return estimated_threshold(self.k, self.fraction, self.significance, self.estimator)

    @property
    def monotone(self) -> bool:
        """Population cells and class sizes add up when classes merge."""
        return True

    def class_bounds(self, reference: np.ndarray | None, numeric: bool) -> ClassBounds:
        """The estimator's derived class size, or k people of the population: the whole
        verdict."""
        if self.estimator is not None:
            return ClassBounds(min_size=int(self.threshold or 1), exact=True)
        return ClassBounds(min_people=int(self.k), exact=True)

    def class_ok(self, sizes: np.ndarray, population: np.ndarray) -> np.ndarray:
        """Classes with at least k people in the population."""
        return population >= self.k

    def verdict(self, groups: Groups, population: np.ndarray | None) -> Verdict:
        """The verdict given each group's people (None with an estimator)."""
        return _verdict(
            groups, self.k, population, self.estimator, self.fraction, self.significance
        )

    def group_ok(self, groups: Groups) -> np.ndarray:
        """Groups that pass: by their population, or by the estimator's threshold."""
        if self.estimator is not None:
            return groups.sizes >= self.threshold
        return super().group_ok(groups)

    def check(
        self,
        data: pd.DataFrame | Groups,
        quasi: Columns | None = None,
        sensitive: Hashable | None = None,
    ) -> Verdict:
        """Check the model; ``sensitive`` is accepted for a uniform interface and not used."""
        if self.estimator is not None:
            return self.verdict(groups_of(data, quasi), None)
        return super().check(data, quasi)

    def to_config(self) -> dict[str, dict[str, Any]]:
        """``{"k_map": {"k": ...}}``, plus the estimator settings (never the population)."""
        params: dict[str, Any] = {"k": self.k}
        if self.estimator is not None:
            params.update(
                estimator=self.estimator, fraction=self.fraction, significance=self.significance
            )
        return {"k_map": params}
