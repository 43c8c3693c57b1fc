"""All achieved privacy levels of a table at once, from one shared grouping."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pandas as pd

from microanon.core.errors import InputError

from ._params import real
from .groups import Columns, Groups, groups_of
from .ldiversity import group_diversity
from .tcloseness import group_emd

__all__ = ["profile"]


def profile(
    data: pd.DataFrame | Groups,
    quasi: Columns | None,
    sensitive: Hashable | None,
    c: float = 2.0,
) -> dict[str, Any]:
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
    dict
        ``rows``, ``classes`` (number of groups), ``k``, ``l_frequency``, ``l_distinct``,
        ``l_entropy``, ``l_recursive`` (for ``c``), ``t_closeness`` (default distance, see
        :func:`~microanon.models.t_closeness`) and ``t_distance`` (the distance used); plain
        Python numbers.

    Raises
    ------
    InputError
        If ``c <= 0`` or the columns are unusable.
    """
    c = real("c", c)
    if c <= 0:
        raise InputError(f"c must be positive, got {c!r}")
    groups = groups_of(data, quasi, sensitive, need_sensitive=True)
    emd, distance = group_emd(groups)
    return {
        "rows": groups.n_rows,
        "classes": groups.n_groups,
        "k": int(groups.sizes.min()),
        "l_frequency": float(group_diversity(groups, "frequency").min()),
        "l_distinct": int(group_diversity(groups, "distinct").min()),
        "l_entropy": float(group_diversity(groups, "entropy").min()),
        "l_recursive": int(group_diversity(groups, "recursive", c).min()),
        "t_closeness": float(emd.max()),
        "t_distance": distance,
    }
