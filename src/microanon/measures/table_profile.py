"""The figures of ``microanon check`` from one grouping of a table (in memory or out of core)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.missing import CHECK_MISSING
from ..models import Groups, beta_likeness, delta_disclosure, profile, t_closeness
from ..models.profile import Profile, population_profile
from .attacker import class_attacker_risks

__all__ = ["SENSITIVE_FIGURES", "check_missing_policy", "groups_profile", "refuse_missing_keys"]


def check_missing_policy(missing: str, counts: dict[str, int]) -> None:
    """Refuse an unknown policy, or missing values (``counts`` per column) under ``error``.

    Raises
    ------
    InputError
        Naming the policy, or every column with missing values and their counts.
    """
    if missing not in CHECK_MISSING:
        raise InputError(f"missing must be one of {', '.join(CHECK_MISSING)}, got {missing!r}")
    if counts and missing == "error":
        named = ", ".join(f"'{c}' ({n:,})" for c, n in counts.items())
        raise InputError(
            f"missing values in column(s) {named}; pass --missing value (a missing "
            "quasi-identifier value is the value ?, a missing sensitive value is unknown) or "
            "--missing drop"
        )


def refuse_missing_keys(records: dict[str, int]) -> None:
    """Refuse missing key values under the risk measures' ``error`` policy (``records``: the
    records with a missing value, per key column), naming every such column and the other
    policies.

    Raises
    ------
    InputError
        When some column has such records.
    """
    named = ", ".join(f"'{q}' ({n:,})" for q, n in records.items() if n)
    if named:
        raise InputError(
            f"missing key values in column(s) {named}; pass --missing value (a missing value "
            "is the value ?), any (sdcMicro's: it matches every value) or drop"
        )


#: The profile's figures of a sensitive column (None without one).
SENSITIVE_FIGURES = (
    "l_frequency",
    "l_distinct",
    "l_entropy",
    "l_recursive",
    "t_closeness",
    "t_distance",
    "beta_likeness",
    "delta_disclosure",
)


def groups_profile(
    groups: Groups,
    quasi: Sequence[str],
    sensitive: str | None,
    *,
    numeric: bool,
    c: float = 2.0,
    distance: str | None = None,
    threshold: float = 0.2,
    beta_form: str = "basic",
    population: pd.DataFrame | None = None,
    population_count: str | None = None,
    estimator: str | None = None,
    fraction: float | None = None,
    significance: float = 0.01,
    dropped: int = 0,
    order: Sequence[Any] | None = None,
) -> Profile:
    """Every figure of the ``check`` profile, from the table's classes.

    Parameters
    ----------
    groups : Groups
        The classes of the quasi-identifiers, with the sensitive column (record counts as
        weights for a frequency table).
    quasi : sequence of str
    sensitive : str or None
        None: the figures of the keys alone (classes, k, uniques, risks, δ-presence, k-map);
        those of a sensitive column (:data:`SENSITIVE_FIGURES`) are None.
    numeric : bool
        Whether the sensitive column is numeric (the default t-closeness distance is then
        ordered, else equal).
    c, distance, threshold, beta_form, population, population_count, estimator, fraction, \
significance
        As for :func:`microanon.apps.check.privacy_profile`.
    dropped : int
        Rows left out for missing values, reported as such.
    order : sequence, optional
        The sensitive values from lowest to highest, for the ordered distance (a column of
        text has no order of its own).

    Returns
    -------
    Profile
        A dict with the keys of :func:`microanon.apps.check.privacy_profile`.
    """
    risk = class_attacker_risks(groups.sizes, None, threshold, "sample")["prosecutor"]
    presence = population_profile(
        groups, quasi, population, population_count, estimator, fraction, significance
    )
    if sensitive is None:
        figures: dict = dict.fromkeys(SENSITIVE_FIGURES)
        unknown = 0
    else:
        figures, unknown = _sensitive_figures(groups, quasi, sensitive, numeric, c, distance, order)
        figures["beta_likeness"] = float(beta_likeness(groups, None, None, form=beta_form).value)
        figures["delta_disclosure"] = float(delta_disclosure(groups, None, None).value)
    return Profile(
        {
            "rows": int(groups.n_rows),
            "classes": int(groups.n_groups),
            "k": int(groups.sizes.min()),
            **figures,
            "c": float(c),
            "beta_form": beta_form,
            **presence,
            "uniques": int(np.count_nonzero(groups.sizes == 1)),
            "risk_max": float(risk["highest"]),
            "risk_avg": float(risk["average"]),
            "risk_threshold": float(threshold),
            "records_at_risk": float(risk["share_above"]),
            "dropped": dropped,
            "unknown_sensitive": unknown,
        }
    )


def _sensitive_figures(
    groups: Groups,
    quasi: Sequence[str],
    sensitive: str,
    numeric: bool,
    c: float,
    distance: str | None,
    order: Sequence[Any] | None = None,
) -> tuple[dict, int]:
    """The ℓ and t figures of the sensitive column, and its unknown values (``order``: the
    ordered distance's, when it is the one asked for)."""
    prof = profile(groups, quasi, sensitive, c=c)
    if distance is not None:
        order = order if distance == "ordered" else None
        verdict = t_closeness(groups, quasi, sensitive, distance=distance, order=order)
        prof["t_closeness"] = verdict.value
    else:
        distance = "ordered" if numeric else "equal"
    figures = {
        "l_frequency": float(prof["l_frequency"]),
        "l_distinct": int(prof["l_distinct"]),
        "l_entropy": float(prof["l_entropy"]),
        "l_recursive": int(prof["l_recursive"]),
        "t_closeness": float(prof["t_closeness"]),
        "t_distance": distance,
    }
    return figures, int(prof["unknown_sensitive"])
