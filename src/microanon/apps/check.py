"""The ``microanon check`` profile: privacy models and re-identification risk of one table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..core.data_order import data_order
from ..core.errors import InputError
from ..core.missing import as_value, numbers_with_strays, stray_note, stray_refusal, stray_text
from ..core.reading import marker_warnings, missing_marker_columns
from ..core.schema import check_frame
from ..core.wording import how_many
from ..measures.table_profile import check_missing_policy, groups_profile
from ..models import Groups

__all__ = [
    "apply_check_missing",
    "privacy_profile",
    "format_profile",
    "format_requirements",
    "stray_text_notes",
    "marker_notes",
    "requirements",
    "STRAY_TEXT_SHARE",
]


#: A text column in which at least this share of the non-missing values parse as numbers, but not
#: all, is taken for a numeric column holding stray text (a missing-value marker, a typo).
STRAY_TEXT_SHARE = 0.9


def privacy_profile(
    data: pd.DataFrame,
    quasi: Sequence[str],
    sensitive: str | None,
    c: float = 2.0,
    distance: str | None = None,
    threshold: float = 0.2,
    missing: str = "value",
    beta_form: str = "basic",
    population: pd.DataFrame | None = None,
    population_count: str | None = None,
    estimator: str | None = None,
    fraction: float | None = None,
    significance: float = 0.01,
) -> dict[str, Any]:
    """Everything ``microanon check`` reports, as one JSON-friendly dict.

    Parameters
    ----------
    data : DataFrame
    quasi : sequence of str
        Quasi-identifier columns.
    sensitive : str or None
        The sensitive column; None profiles the keys alone (the ℓ, t, β and δ figures are
        None).
    c : float
        ``c`` of recursive (c, ℓ)-diversity.
    distance : {"equal", "ordered"}, optional
        t-closeness ground distance; default ordered for a numeric sensitive column, else equal.
        The ordered distance orders an ordered categorical column by its categories
        (:func:`~microanon.core.data_order.data_order`).
    threshold : float
        Records whose re-identification risk exceeds it are counted as at risk.
    missing : {"value", "drop", "error"}
        Missing values in the checked columns: ``value`` (the default), a missing
        quasi-identifier value is the value ``?`` and a missing sensitive value is unknown
        (counted under ``unknown_sensitive``, toward no ℓ, t, β or δ); ``drop``, those rows are
        left out (counted under ``dropped``); ``error``, refuse the table.
    beta_form : {"basic", "enhanced"}
        Form of β-likeness whose achieved β is reported.
    population : DataFrame, optional
        A population containing the table, generalized like it: adds δ-presence (the smallest
        and largest ratio of records to people) and k-map (the fewest people of a class).
    population_count : str, optional
        Column of ``population`` with the people per row (default: one person per row).
    estimator : {"poisson", "zero_truncated_poisson"}, optional
        Without a population, k-map estimated from the sampling ``fraction`` instead.
    fraction, significance : float
        The estimator's sampling fraction and significance level.

    Returns
    -------
    microanon.models.Profile
        A dict (shown as a table in a notebook) with keys ``rows``, ``classes``, ``k``,
        ``l_frequency``, ``l_distinct``, ``l_entropy``, ``l_recursive``, ``c``,
        ``t_closeness``, ``t_distance``, ``beta_likeness``, ``beta_form``,
        ``delta_disclosure``, ``uniques``, ``risk_max``, ``risk_avg``, ``risk_threshold``,
        ``records_at_risk``, ``dropped``, ``unknown_sensitive``; with a population also
        ``delta_presence_min``, ``delta_presence_max`` and ``k_map``, with an estimator
        ``k_map`` and ``k_map_estimator``.
    """
    quasi = list(quasi)
    if not quasi:
        raise InputError("--quasi: name at least one quasi-identifier column")
    checked = [*quasi, *([] if sensitive is None else [sensitive])]
    check_frame(data, checked)
    data, dropped = apply_check_missing(data, quasi, sensitive, missing)
    if population is not None and missing == "value":  # its missing values are ? too
        population = as_value(population, quasi)
    # (an ordered categorical sensitive column declares the ordered distance's order)
    order = None if sensitive is None else data_order(data[sensitive])
    return groups_profile(
        Groups.from_frame(data, quasi, sensitive),
        quasi,
        sensitive,
        numeric=sensitive is not None and pd.api.types.is_numeric_dtype(data[sensitive]),
        c=c,
        distance=distance,
        threshold=threshold,
        beta_form=beta_form,
        population=population,
        population_count=population_count,
        estimator=estimator,
        fraction=fraction,
        significance=significance,
        dropped=dropped,
        order=order,
    )


def apply_check_missing(
    data: pd.DataFrame, quasi: Sequence[str], sensitive: str | None, missing: str
) -> tuple[pd.DataFrame, int]:
    """``data`` with the checked columns' missing values treated by ``missing`` (see
    :func:`privacy_profile`), and the rows left out.

    Raises
    ------
    InputError
        An unknown policy; missing values under ``error`` (naming every such column); no row
        left.
    """
    columns = [*quasi, *([] if sensitive is None else [sensitive])]
    counts = {c: int(n) for c, n in data[columns].isna().sum().items() if n}
    check_missing_policy(missing, counts)
    if not counts:
        return data, 0
    if missing == "drop":
        keep = data[columns].notna().all(axis=1)
        data = data.loc[keep]
        check_frame(data, what="table after dropping rows with missing values")
        return data, int((~keep).sum())
    return as_value(data, [c for c in quasi if c in counts]), 0


def stray_text_notes(
    data: pd.DataFrame, columns: Sequence[str], sensitive: str | None = None
) -> list[str]:
    """Refuse a mostly numeric sensitive column that holds a few non-numeric values; the notes
    on such quasi-identifiers.

    Read from a file, a numeric column with one stray string (``?``, ``n/a``, a typo, or a real
    answer such as a grade ``other``) becomes a text column. For the sensitive column that
    matters: its t-closeness distance silently changes from ordered to equal, so it is refused.
    A quasi-identifier's classes are the same whether its values are read as numbers or as text,
    and a stray string is a value of its own as a missing value is (``--missing value``, the
    default): it is noted, not refused, as ``init``, ``anonymize`` and ``risk`` read such a
    column as categories. A text column counts as mostly numeric when at least
    :data:`STRAY_TEXT_SHARE` of its non-missing values parse as numbers. In a quasi-identifier
    ``?`` is no stray string: a release writes a missing value so
    (:func:`~microanon.core.missing.stray_text`).

    Parameters
    ----------
    data : DataFrame
        The table as read.
    columns : sequence of str
        The columns to look at (the checked ones).
    sensitive : str, optional
        The sensitive column: its message also offers ``--distance``, which settles its
        t-closeness distance (the caller leaves it out of ``columns`` when ``--distance`` is
        given).

    Returns
    -------
    list of str
        One warning per mostly numeric quasi-identifier with stray text.

    Raises
    ------
    InputError
        For the sensitive column, naming it, how many values are not numbers and an example.
    """
    notes = []
    for column in columns:
        values = data[column]
        if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
            continue
        values = values.dropna()
        if values.empty:
            continue
        text = stray_text(values, quasi=column != sensitive)
        bad = int(text.sum())
        strays = values[text].unique()
        if not numbers_with_strays(bad, len(values), strays, STRAY_TEXT_SHARE):
            continue
        example = str(values[text].iloc[0])
        if column == sensitive:
            raise InputError(stray_refusal(column, bad, len(values), example))
        notes.append(stray_note(column, bad, len(values), example))
    return notes


def marker_notes(data: pd.DataFrame, columns: Sequence[str], noted: Sequence[str]) -> list[str]:
    """The warnings on the checked ``columns`` holding a missing-value marker of other software
    as a value of its own (R's ``NA``: :func:`~microanon.core.reading.missing_marker_columns`)
    that :func:`stray_text_notes` did not name.

    A column of answers holding ``NA`` is read as text either way, so no stray-text rule sees
    it, and its marker counts as an answer: in the sensitive column an unknown answer becomes a
    value of the ℓ, t, β and δ figures (the General Social Survey's ``grass``, ``NA`` for 785 of
    2,044 respondents, has a distinct ℓ of 3 read so and 2 with ``--na-values NA``), and in a
    quasi-identifier ``--missing drop`` or ``error`` passes it by.

    Parameters
    ----------
    data : DataFrame
        The table as read.
    columns : sequence of str
        The checked columns.
    noted : sequence of str
        The columns :func:`stray_text_notes` looked at: a column of numbers there holding a
        marker was noted (or refused) already.

    Returns
    -------
    list of str
        One warning per marker and kind of column, naming each column, its rows and the option.
    """
    found = missing_marker_columns(data.loc[:, list(dict.fromkeys(columns))])
    # (a column of numbers holding a survey's negative codes was read as numbers: not noted)
    named = {
        c: f for c, f in found.items() if f.lowest is not None or not (f.numbers and c in noted)
    }
    return marker_warnings(
        named,
        "check",
        "run check again with --na-values {option}",
        coded="run check again with {options}",
    )


def format_profile(p: dict[str, Any]) -> str:
    """Human-readable rendering of :func:`privacy_profile`'s result."""
    lines = [
        (
            "rows",
            f"{p['rows']:,}"
            + (f"  ({p['dropped']:,} dropped for missing values)" if p["dropped"] else ""),
        ),
        *(
            [
                (
                    "unknown sensitive values",
                    f"{p['unknown_sensitive']:,} (count toward no l, t, beta, delta)",
                )
            ]
            if p.get("unknown_sensitive")
            else []
        ),
        ("equivalence classes", f"{p['classes']:,}"),
        ("k-anonymity", f"k = {p['k']}"),
        *_sensitive_lines(p),
        *_presence_lines(p),
        ("sample uniques", how_many(p["uniques"], "record")),
        ("re-identification risk", f"max {p['risk_max']:.4g}, average {p['risk_avg']:.4g}"),
        (f"records with risk > {p['risk_threshold']:g}", f"{p['records_at_risk']:.2%}"),
    ]
    width = max(len(a) for a, _ in lines)
    return "\n".join(f"{a:<{width}}  {b}" for a, b in lines)


def _sensitive_lines(p: dict[str, Any]) -> list[tuple[str, str]]:
    """The profile's lines of the sensitive column, when it has one."""
    if p["l_distinct"] is None:
        return []
    return [
        ("distinct l-diversity", f"l = {p['l_distinct']}"),
        ("frequency l-diversity", f"l = {p['l_frequency']:.4g}"),
        ("entropy l-diversity", f"l = {p['l_entropy']:.4g}"),
        (f"recursive (c={p['c']:g}, l)-diversity", f"l = {p['l_recursive']}"),
        (f"t-closeness ({p['t_distance']} distance)", f"t = {p['t_closeness']:.4g}"),
        (f"{p['beta_form']} beta-likeness", f"beta = {p['beta_likeness']:.4g}"),
        ("delta-disclosure privacy", f"delta = {p['delta_disclosure']:.4g}"),
    ]


def _presence_lines(p: dict[str, Any]) -> list[tuple[str, str]]:
    """The profile's δ-presence and k-map lines, when it has them."""
    lines = []
    if "delta_presence_max" in p:
        lines.append(
            (
                "delta-presence",
                f"ratios from {p['delta_presence_min']:.4g} to {p['delta_presence_max']:.4g}",
            )
        )
    if "k_map" in p:
        how = f" ({p['k_map_estimator']} estimate)" if "k_map_estimator" in p else ""
        lines.append((f"k-map{how}", f"k = {p['k_map']}"))
    return lines


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
    beta: float | None = None,
    delta: float | None = None,
    delta_min: float | None = None,
    delta_max: float | None = None,
    k_map: int | None = None,
) -> list[dict[str, Any]]:
    """Compare a profile with the models the user requires.

    Parameters
    ----------
    p : dict
        A :func:`privacy_profile` result.
    k, l, t : optional
        Required k (at least), ℓ of form ``l_form`` (at least) and t (at most).
    l_form : {"distinct", "frequency", "entropy", "recursive"}
    beta : float, optional
        Required β-likeness of the profile's form (at most).
    delta : float, optional
        Required δ-disclosure privacy: every ``|ln(q / p)|`` below it.
    delta_min, delta_max : float, optional
        Required δ-presence: every ratio at least ``delta_min`` and at most ``delta_max``
        (the profile needs a population).
    k_map : int, optional
        Required k-map (the profile needs a population or an estimator).

    Returns
    -------
    list of dict
        One ``{"model", "required", "achieved", "holds"}`` per requirement given.

    Raises
    ------
    InputError
        A requirement out of range (or NaN), an unknown ``l_form``, ``delta_min`` above
        ``delta_max``, or a population requirement without a population in the profile.
    """
    if l_form not in L_FORMS:
        raise InputError(f"--l-form must be one of {', '.join(L_FORMS)}, got {l_form!r}")
    for flag, value in (("--t", t), ("--delta-min", delta_min), ("--delta-max", delta_max)):
        if value is not None and not 0 <= value <= 1:
            raise InputError(f"{flag} must be in [0, 1], got {value:g}")
    for flag, value, low in (("--k", k, 1), ("--l", l, 1), ("--k-map", k_map, 1)):
        if value is not None and not value >= low:  # NaN too
            raise InputError(f"{flag} must be at least {low}, got {value:g}")
    for flag, value in (("--beta", beta), ("--delta-disclosure", delta)):
        if value is not None and not value > 0:
            raise InputError(f"{flag} must be positive, got {value:g}")
    if delta_min is not None and delta_max is not None and delta_min > delta_max:
        raise InputError(f"--delta-min ({delta_min:g}) exceeds --delta-max ({delta_max:g})")
    if (delta_min is not None or delta_max is not None) and "delta_presence_max" not in p:
        raise InputError("--delta-min/--delta-max need --population-file (delta-presence)")
    if k_map is not None and "k_map" not in p:
        raise InputError("--k-map needs --population-file or --k-map-estimator")
    needs = [
        f
        for f, v in (("--l", l), ("--t", t), ("--beta", beta), ("--delta-disclosure", delta))
        if v is not None
    ]
    if needs and p["l_distinct"] is None:
        raise InputError(
            f"{', '.join(needs)}: measured on a sensitive column; name it with --sensitive"
        )
    at_least, at_most = 1, -1
    wanted = [
        ("k-anonymity", k, p["k"], at_least),
        (f"{l_form} l-diversity", l, p[L_FORMS[l_form]], at_least),
        (f"t-closeness ({p['t_distance']} distance)", t, p["t_closeness"], at_most),
        (f"{p['beta_form']} beta-likeness", beta, p["beta_likeness"], at_most),
        ("delta-disclosure privacy", delta, p["delta_disclosure"], at_most),
        ("delta-presence, delta_min", delta_min, p.get("delta_presence_min"), at_least),
        ("delta-presence, delta_max", delta_max, p.get("delta_presence_max"), at_most),
        ("k-map", k_map, p.get("k_map"), at_least),
    ]
    out = []
    for model, required, achieved, direction in wanted:
        if required is None:
            continue
        if direction == at_least:
            holds = achieved >= required - 1e-12
        elif model == "delta-disclosure privacy":  # strict: |ln(q / p)| < δ
            holds = achieved < required - 1e-12
        else:
            holds = achieved <= required + 1e-12
        out.append({"model": model, "required": required, "achieved": achieved, "holds": holds})
    return out


def format_requirements(reqs: list[dict[str, Any]]) -> str:
    """One line per requirement: holds or FAILS, required and achieved."""
    return "\n".join(
        f"{'holds' if r['holds'] else 'FAILS'}: {r['model']} required {r['required']:g}, "
        f"achieved {r['achieved']:.4g}"
        for r in reqs
    )
