"""The missing-value policies, one set of names for every command (no pandas: the command
line's options are built from them at start).

A policy says what a missing cell of a column is:

``value``
    a value of its own, published as ``?``: a quasi-identifier's missing value is a leaf of its
    hierarchy that generalizes like any other (the default of quasi-identifiers, as in ARX);
``keep``
    an empty cell that stays empty (the default of sensitive and insensitive columns): a
    sensitive column's missing value is unknown and counts toward no ℓ-diversity, t-closeness,
    β-likeness or δ-disclosure;
``drop``
    the row is left out, and counted per column in every output;
``error``
    the table is refused, naming every such column.

The risk measures also take ``any``: sdcMicro's convention, in which a missing key value
matches every value of its column.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (the command line imports this module: numpy and pandas only when used)
    import numpy as np
    import pandas as pd

__all__ = [
    "CHECK_MISSING",
    "MISSING_ALIASES",
    "MISSING_LABEL",
    "MISSING_MARKERS",
    "MISSING_POLICIES",
    "RISK_MISSING",
    "as_value",
    "is_missing_answer",
    "numbers_with_strays",
    "policy_name",
    "stray_note",
    "stray_refusal",
    "stray_text",
]

#: The policies of a schema column (``missing:``), in the order the docs list them.
MISSING_POLICIES = ("value", "keep", "drop", "error")
#: Older names, still read: ``category`` was ``value``; the risk command's ``sdcmicro`` is ``any``.
MISSING_ALIASES = {"category": "value", "sdcmicro": "any"}
#: Label of a missing value under the ``value`` policy.
MISSING_LABEL = "?"
#: Texts that other software writes for a missing value and that a reader taking an empty
#: field alone (and ``na_values``) as missing reads as values: R's ``write.csv`` writes ``NA``,
#: spreadsheets ``#N/A``, databases ``NULL``, pandas ``NaN`` or ``<NA>``. A ``.`` (SAS's and
#: Stata's missing number) counts only in a column whose other values are numbers.
MISSING_MARKERS = ("NA", "N/A", "n/a", "#N/A", "NaN", "nan", "NULL", "null", "<NA>", ".")
#: Said of :data:`MISSING_LABEL` where a check finds it among numbers.
_MARKER_NOTE = " (how microanon's releases write a missing value)"
#: The policies of ``check`` (``keep`` is ``value`` there: a missing sensitive value is unknown
#: either way).
CHECK_MISSING = tuple(p for p in MISSING_POLICIES if p != "keep")
#: The policies of ``risk``: those of ``check`` and sdcMicro's ``any``.
RISK_MISSING = (*CHECK_MISSING[:1], "any", *CHECK_MISSING[1:])


def as_value(frame: pd.DataFrame, columns: Any) -> pd.DataFrame:
    """``frame`` (a copy) with the missing cells of those ``columns`` it holds the value
    :data:`MISSING_LABEL`, as the ``value`` policy makes a record's: a population read beside
    the data is matched with the data's ``?`` that way."""
    frame = frame.copy()
    for column in columns:
        if column in frame.columns and frame[column].isna().any():
            held = frame[column].astype(object)
            frame[column] = held.where(frame[column].notna(), MISSING_LABEL)
    return frame


def is_missing_answer(value: Any) -> bool:
    """Whether ``value`` is a missing answer: an empty cell (``None``, NaN, pandas' ``NA``) or
    :data:`MISSING_LABEL` (text compared without the spaces around it, as
    :func:`~microanon.core.keys.value_key` compares it).

    Examples
    --------
    >>> [is_missing_answer(v) for v in (None, float("nan"), "?", " ? ", "no", 0)]
    [True, True, True, True, False, False]
    """
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip() == MISSING_LABEL
    try:
        return bool(value != value)  # NaN and NaT differ from themselves
    except TypeError:  # pandas' NA has no truth value
        return True


def stray_text(values: pd.Series, quasi: bool) -> np.ndarray:
    """Which of a text column's present ``values`` are no numbers (a stray string in a column
    of numbers). In a quasi-identifier :data:`MISSING_LABEL` is none: it is how microanon's
    releases write a missing quasi-identifier value, and how the checks read one (a value of
    its own)."""
    import numpy as np
    import pandas as pd

    # each distinct value looked at once (a survey column holds few), then spread to the rows
    codes, uniques = pd.factorize(values)
    distinct = pd.Series(uniques, dtype=object)
    stray = pd.to_numeric(distinct, errors="coerce").isna().to_numpy(copy=True)
    if quasi:
        stray &= (distinct.astype(str) != MISSING_LABEL).to_numpy()
    return np.append(stray, False)[codes]  # (a missing value, code -1: no stray text)


def numbers_with_strays(bad: int, total: int, strays: Any, share: float) -> bool:
    """Whether a text column, ``bad`` of whose ``total`` present values are no numbers (the
    distinct ones ``strays``), is a column of numbers with stray text: at least ``share`` of its
    values are numbers, or every stray one is a missing-value marker (:data:`MISSING_MARKERS`),
    however many rows hold it (a survey item R wrote with ``NA`` for half its rows)."""
    if bad == 0 or bad >= total:
        return False
    if total - bad >= share * total - 1e-9:
        return True
    return all(str(v).strip() in MISSING_MARKERS for v in strays)


def stray_note(column: str, bad: int, total: int, example: str) -> str:
    """The warning on a mostly numeric quasi-identifier ``column`` with ``bad`` of ``total``
    values that are no numbers (:func:`stray_text`), one of them ``example``: they are read as
    values of their own, which is what a quasi-identifier's classes need either way."""
    return (
        f"column {column!r} is numeric but for {bad:,} of {total:,} values that are not numbers, "
        f"e.g. {example!r}: they are read as values of their own, as a missing value is; if they "
        f"mark missing answers, read the file with --na-values {example!r}"
    )


def stray_refusal(column: str, bad: int, total: int, example: str) -> str:
    """The message refusing a mostly numeric sensitive ``column`` with ``bad`` of ``total``
    values that are no numbers (:func:`stray_text`), one of them ``example``: its t-closeness
    distance would silently change from ordered to equal."""
    note = _MARKER_NOTE if example == MISSING_LABEL else ""
    return (
        f"column {column!r} is numeric but for {bad:,} of {total:,} values that are not numbers, "
        f"e.g. {example!r}{note}: mark missing-value markers with --na-values {example!r} or "
        "correct the data; or pass --distance equal to treat it as categories"
    )


def policy_name(name: Any, allowed: tuple[str, ...], what: str) -> str:
    """``name`` with an older name resolved, if it is one of ``allowed``.

    Raises
    ------
    ValueError
        Naming ``what`` (a column, an option) and the allowed policies; callers turn it into
        their own error class.
    """
    policy = MISSING_ALIASES.get(name, name) if isinstance(name, str) else name
    if policy not in allowed:
        raise ValueError(f"{what}: missing must be one of {', '.join(allowed)}, got {name!r}")
    return policy
