"""All achieved privacy levels of a table at once, from one shared grouping."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pandas as pd

from microanon.core import display
from microanon.core.errors import InputError

from .groups import Columns, Groups, groups_of
from .kmap import k_map
from .ldiversity import group_diversity
from .params import real
from .presence import delta_presence
from .tcloseness import group_emd

__all__ = ["Profile", "population_profile", "profile"]


class Profile(dict[str, Any]):
    """The achieved privacy levels of a table: a plain ``dict`` (JSON as it is) that shows as a
    table in a notebook, with the smallest class size as its key figure."""

    def _repr_html_(self) -> str:
        key = None
        if "k" in self:
            key = f"k = {display.number(self['k'])}"
            if "classes" in self and "rows" in self:
                key += (
                    f": the smallest of {display.number(self['classes'])} classes of "
                    f"{display.number(self['rows'])} records"
                )
        return display.card("Privacy profile", key, display.pairs(self))


def profile(
    data: pd.DataFrame | Groups,
    quasi: Columns | None,
    sensitive: Hashable | None,
    c: float = 2.0,
) -> Profile:
    """Achieved k, every ℓ and t of a table, computed from one shared :class:`Groups`.

    Parameters
    ----------
    data : DataFrame or Groups
        The table, or its prebuilt groups (built with the sensitive column).
    quasi : column name or sequence of names, or None
        Quasi-identifier columns (``None`` with prebuilt groups).
    sensitive : column name or None
        Sensitive column (``None`` with prebuilt groups).
    c : float
        Constant of recursive (c, ℓ)-diversity.

    Returns
    -------
    Profile
        A dict: ``rows``, ``classes`` (number of groups), ``k``, ``l_frequency``, ``l_distinct``,
        ``l_entropy``, ``l_recursive`` (for ``c``), ``t_closeness`` (default distance, see
        :func:`~microanon.models.t_closeness`), ``t_distance`` (the distance used) and
        ``unknown_sensitive`` (records whose sensitive value is missing: the ℓ and t figures
        count known values only); plain Python numbers.

    Raises
    ------
    InputError
        If ``c <= 0``, the columns are unusable, or the sensitive column holds no known value.
    """
    c = real("c", c)
    if c <= 0:
        raise InputError(f"c must be positive, got {c!r}")
    groups = groups_of(data, quasi, sensitive, need_sensitive=True)
    if not groups.n_values:  # (a model on it holds for want of a value; nothing to profile)
        raise InputError(
            f"sensitive column {groups.sensitive!r} holds no known value: its ℓ and t cannot be "
            "measured"
        )
    view, _ = groups.known_view()  # the sensitive figures count known values only
    emd, distance = group_emd(view)
    return Profile(
        {
            "rows": groups.n_rows,
            "classes": groups.n_groups,
            "k": int(groups.sizes.min()),
            "l_frequency": float(group_diversity(view, "frequency").min()),
            "l_distinct": int(group_diversity(view, "distinct").min()),
            "l_entropy": float(group_diversity(view, "entropy").min()),
            "l_recursive": int(group_diversity(view, "recursive", c).min()),
            "t_closeness": float(emd.max()),
            "t_distance": distance,
            "unknown_sensitive": groups.unknown_records,
        }
    )


def population_profile(
    data: pd.DataFrame | Groups,
    quasi: Columns | None,
    population: pd.DataFrame | None = None,
    count: Hashable | None = None,
    estimator: str | None = None,
    fraction: float | None = None,
    significance: float = 0.01,
) -> dict[str, Any]:
    """Achieved δ-presence and k-map against a population, or k-map estimated from a fraction.

    Parameters
    ----------
    data : DataFrame or Groups
    quasi : column name or sequence of names, or None
        Quasi-identifier columns (``None`` with prebuilt groups).
    population : DataFrame, optional
        A population containing ``data``, generalized like it.
    count : column name, optional
        Column of ``population`` with the people per row.
    estimator : {"poisson", "zero_truncated_poisson"}, optional
        Without a population: k-map's population estimated from ``fraction``.
    fraction, significance : float
        The estimator's sampling fraction and significance level.

    Returns
    -------
    dict
        With a population ``delta_presence_min``, ``delta_presence_max`` (the smallest and
        largest ratio of records to people) and ``k_map`` (the fewest people of a class); with
        an estimator ``k_map`` and ``k_map_estimator``; otherwise empty.

    Raises
    ------
    InputError
        Both a population and an estimator; a fraction without an estimator; what
        :func:`~microanon.models.delta_presence` and :func:`~microanon.models.k_map` raise.
    """
    if population is not None and estimator is not None:
        raise InputError("give either a population file or a k-map estimator, not both")
    if population is not None:
        presence = delta_presence(data, quasi, population, count=count)
        people = k_map(data, quasi, population=population, count=count)
        return {
            "delta_presence_min": float(presence.lowest),
            "delta_presence_max": float(presence.value),
            "k_map": int(people.value),
        }
    if estimator is not None:
        estimated = k_map(
            data, quasi, estimator=estimator, fraction=fraction, significance=significance
        )
        return {"k_map": int(estimated.value), "k_map_estimator": estimator}
    if fraction is not None:
        raise InputError(
            "a sampling fraction is for the k-map estimator: give one (--k-map-estimator)"
        )
    return {}
