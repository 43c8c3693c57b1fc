"""The ``microanon check`` profile: privacy models and re-identification risk of one table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..core.errors import InputError
from ..core.schema import check_frame
from ..measures import reidentification_risk, sample_uniques
from ..models import Groups, profile, t_closeness

__all__ = [
    "privacy_profile",
    "format_profile",
    "format_requirements",
    "refuse_stray_text",
    "requirements",
    "STRAY_TEXT_SHARE",
]


#: A text column in which at least this share of the non-missing values parse as numbers, but not
#: all, is taken for a numeric column holding stray text (a missing-value marker, a typo).
STRAY_TEXT_SHARE = 0.9


def privacy_profile(
    data: pd.DataFrame,
    quasi: Sequence[str],
    sensitive: str,
    c: float = 2.0,
    distance: str | None = None,
    threshold: float = 0.2,
    missing: str = "error",
) -> dict[str, Any]:
    """Everything ``microanon check`` reports, as one JSON-friendly dict.

    Parameters
    ----------
    data : DataFrame
    quasi : sequence of str
        Quasi-identifier columns.
    sensitive : str
        The sensitive column.
    c : float
        ``c`` of recursive (c, ℓ)-diversity.
    distance : {"equal", "ordered"}, optional
        t-closeness ground distance; default ordered for a numeric sensitive column, else equal.
    threshold : float
        Records whose re-identification risk exceeds it are counted as at risk.
    missing : {"error", "drop"}
        Rows with missing values in the checked columns raise an error or are dropped (and
        counted under ``dropped``).

    Returns
    -------
    dict
        Keys ``rows``, ``classes``, ``k``, ``l_frequency``, ``l_distinct``, ``l_entropy``,
        ``l_recursive``, ``c``, ``t_closeness``, ``t_distance``, ``uniques``, ``risk_max``,
        ``risk_avg``, ``risk_threshold``, ``records_at_risk``, ``dropped``.
    """
    quasi = list(quasi)
    if not quasi:
        raise InputError("--quasi: name at least one quasi-identifier column")
    check_frame(data, [*quasi, sensitive])
    if missing not in ("error", "drop"):
        raise InputError(f"missing must be 'error' or 'drop', got {missing!r}")
    dropped = 0
    if missing == "drop":
        keep = data[[*quasi, sensitive]].notna().all(axis=1)
        dropped = int((~keep).sum())
        data = data.loc[keep]
        check_frame(data, what="table after dropping rows with missing values")
    groups = Groups.from_frame(data, quasi, sensitive)
    prof = profile(groups, quasi, sensitive, c=c)
    if distance is not None:
        prof["t_closeness"] = t_closeness(groups, quasi, sensitive, distance=distance).value
    else:
        distance = "ordered" if pd.api.types.is_numeric_dtype(data[sensitive]) else "equal"
    risk = reidentification_risk(data, quasi, threshold=threshold)
    uniques = sample_uniques(data, quasi).count
    return {
        "rows": int(prof["rows"]),
        "classes": int(prof["classes"]),
        "k": int(prof["k"]),
        "l_frequency": float(prof["l_frequency"]),
        "l_distinct": int(prof["l_distinct"]),
        "l_entropy": float(prof["l_entropy"]),
        "l_recursive": int(prof["l_recursive"]),
        "c": float(c),
        "t_closeness": float(prof["t_closeness"]),
        "t_distance": distance,
        "uniques": int(uniques),
        "risk_max": float(risk.max),
        "risk_avg": float(risk.average),
        "risk_threshold": float(threshold),
        "records_at_risk": float(risk.share_above),
        "dropped": dropped,
    }


def refuse_stray_text(
    data: pd.DataFrame, columns: Sequence[str], sensitive: str | None = None
) -> None:
    """Refuse a mostly numeric column that holds a few non-numeric values.

    Read from a file, a numeric column with one stray string (``?``, ``n/a``, a typo) becomes a
    text column: its values are then compared as labels, the t-closeness distance of a sensitive
    column silently changes from ordered to equal, and the marker forms its own equivalence class.
    A text column counts as mostly numeric when at least :data:`STRAY_TEXT_SHARE` of its
    non-missing values parse as numbers.

    Parameters
    ----------
    data : DataFrame
        The table as read.
    columns : sequence of str
        The columns to look at (the checked ones).
    sensitive : str, optional
        The sensitive column: the message then also offers ``--distance``, which settles its
        t-closeness distance (the caller skips this check for it when ``--distance`` is given).

    Raises
    ------
    InputError
        For the first such column, naming it, how many values are not numbers and an example.
    """
    for column in columns:
        values = data[column]
        if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
            continue
        values = values.dropna()
        if values.empty:
            continue
        text = pd.to_numeric(values, errors="coerce").isna().to_numpy()
        bad = int(text.sum())
        if bad == 0 or len(values) - bad < STRAY_TEXT_SHARE * len(values) - 1e-9:
            continue
        example = str(values[text].iloc[0])
        distance = (
            "; or pass --distance equal to treat it as categories" if column == sensitive else ""
        )
        raise InputError(
            f"column {column!r} is numeric but for {bad:,} of {len(values):,} values that are "
            f"not numbers, e.g. {example!r}: mark missing-value markers with --na-values "
            f"{example!r} or correct the data{distance}"
        )


def format_profile(p: dict[str, Any]) -> str:
    """Human-readable rendering of :func:`privacy_profile`'s result."""
    lines = [
        (
            "rows",
            f"{p['rows']:,}"
            + (f"  ({p['dropped']:,} dropped for missing values)" if p["dropped"] else ""),
        ),
        ("equivalence classes", f"{p['classes']:,}"),
        ("k-anonymity", f"k = {p['k']}"),
        ("distinct l-diversity", f"l = {p['l_distinct']}"),
        ("frequency l-diversity", f"l = {p['l_frequency']:.4g}"),
        ("entropy l-diversity", f"l = {p['l_entropy']:.4g}"),
        (f"recursive (c={p['c']:g}, l)-diversity", f"l = {p['l_recursive']}"),
        (f"t-closeness ({p['t_distance']} distance)", f"t = {p['t_closeness']:.4g}"),
        ("sample uniques", f"{p['uniques']:,} records"),
        ("re-identification risk", f"max {p['risk_max']:.4g}, average {p['risk_avg']:.4g}"),
        (f"records with risk > {p['risk_threshold']:g}", f"{p['records_at_risk']:.2%}"),
    ]
    width = max(len(a) for a, _ in lines)
    return "\n".join(f"{a:<{width}}  {b}" for a, b in lines)


#: ``--l-form`` -> the profile key holding the achieved ℓ of that form.
L_FORMS = {
    "distinct": "l_distinct",
    "frequency": "l_frequency",
    "entropy": "l_entropy",
    "recursive": "l_recursive",
}


def requirements(
    p: dict[str, Any],
    k: int | None = None,
    l: float | None = None,  # noqa: E741 - the model's name
    l_form: str = "distinct",
    t: float | None = None,
) -> list[dict[str, Any]]:
    """Compare a profile with the models the user requires.

    Parameters
    ----------
    p : dict
        A :func:`privacy_profile` result.
    k, l, t : optional
        Required k (at least), ℓ of form ``l_form`` (at least) and t (at most).
    l_form : {"distinct", "frequency", "entropy", "recursive"}

    Returns
    -------
    list of dict
        One ``{"model", "required", "achieved", "holds"}`` per requirement given.

    Raises
    ------
    InputError
        A requirement out of range or an unknown ``l_form``.
    """
    if l_form not in L_FORMS:
        raise InputError(f"--l-form must be one of {', '.join(L_FORMS)}, got {l_form!r}")
    out = []
    if k is not None:
        if k < 1:
            raise InputError(f"--k must be at least 1, got {k}")
        out.append(
            {"model": "k-anonymity", "required": k, "achieved": p["k"], "holds": p["k"] >= k}
        )
    if l is not None:
        if l < 1:
            raise InputError(f"--l must be at least 1, got {l:g}")
        achieved = p[L_FORMS[l_form]]
        out.append(
            {
                "model": f"{l_form} l-diversity",
                "required": l,
                "achieved": achieved,
                "holds": achieved >= l - 1e-12,
            }
        )
    if t is not None:
        if not 0 <= t <= 1:
            raise InputError(f"--t must be in [0, 1], got {t:g}")
        out.append(
            {
                "model": f"t-closeness ({p['t_distance']} distance)",
                "required": t,
                "achieved": p["t_closeness"],
                "holds": p["t_closeness"] <= t + 1e-12,
            }
        )
    return out


def format_requirements(reqs: list[dict[str, Any]]) -> str:
    """One line per requirement: holds or FAILS, required and achieved."""
    return "\n".join(
        f"{'holds' if r['holds'] else 'FAILS'}: {r['model']} required {r['required']:g}, "
        f"achieved {r['achieved']:.4g}"
        for r in reqs
    )
