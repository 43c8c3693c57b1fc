"""Canonical value keys and the root label, shared by the hierarchy modules.

Data read from CSV may hold ``25`` where a hierarchy file holds ``"25"`` and a float column
``25.0``; :func:`value_key` gives all three the key ``"25"``, so that values and labels match
whatever type they were read as.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import datetime, time
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "SUPPRESSED",
    "is_missing",
    "moment_text",
    "number_text_key",
    "shown",
    "value_key",
    "written_positions",
]

#: The label of a fully suppressed cell in published tables.
SUPPRESSED = "*"


def value_key(value: Any) -> str:
    """Return the canonical lookup key of a value: integral numbers lose their ``.0``.

    Data read from CSV may hold ``25`` where a hierarchy file holds ``"25"`` and a float column
    ``25.0``; all three share the key ``"25"``. A date (a date and time at midnight without a
    time zone) and its ISO text share the key ``"2012-01-22"`` (:func:`moment_text`), as does the
    text ``"2012-01-22 00:00:00"``.
    """
    kind = type(value)  # the common cases first: this runs for every label and value
    if kind is str:
        text = value.strip()
        if len(text) == 19 and text.endswith(_MIDNIGHT) and _ISO_DATE.fullmatch(text[:10]):
            return text[:10]  # (a date's leaf as earlier versions wrote it)
        return text
    if kind is int:
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if math.isfinite(value) and float(value).is_integer():
            return str(int(value))
        return repr(float(value))
    if isinstance(value, datetime):
        return moment_text(value)
    return str(value).strip()


_MIDNIGHT = " 00:00:00"
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def moment_text(moment: datetime) -> str:
    """The text of a date and time as a release writes it: ``str(moment)``, except that one at
    midnight without a time zone (a date read from a Stata, SPSS, SAS, Excel or Parquet file)
    is its date alone, ``2012-01-22`` rather than ``2012-01-22 00:00:00``."""
    at_midnight = moment.time() == time() and getattr(moment, "nanosecond", 0) == 0
    if moment.tzinfo is None and at_midnight:
        return moment.date().isoformat()
    return str(moment)


def written_positions(values: Iterable[Any]) -> dict[str, int]:
    """Each value's position by the text a table writes for it (``str``: ``'1.0'`` for ``1.0``),
    the first of equal texts.

    A column of numbers and the value ``?`` is published as text: this finds such a text among
    the values it was written from, where :func:`value_key` (``'1'`` for ``1.0``) does not.
    """
    out: dict[str, int] = {}
    for i, v in enumerate(values):
        out.setdefault(str(v), i)
    return out


def number_text_key(text: Any) -> str | None:
    """The :func:`value_key` of the number a text writes (``'1'`` for ``'1.0'``), None for a
    text that writes no finite number, or for a value that is not text.

    A column of numbers and the value ``?`` is published as text written from its numbers
    (``'1.0'``), where a hierarchy built from them may hold the whole number ``1``: the two
    meet on this key.
    """
    if type(text) is not str:
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return value_key(number) if math.isfinite(number) else None


def shown(value: Any) -> str:
    """How an error message shows a value of the data: ``98``, ``2.5``, ``'PR'``.

    numpy scalars print as the Python scalars they hold (``98``, never ``np.int64(98)``);
    text is quoted; anything else is its text, quoted (a date as a release writes it:
    :func:`moment_text`).
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (str, bool, int, float)) or value is None:
        return repr(value)
    return f"'{moment_text(value) if isinstance(value, datetime) else value}'"


def is_missing(value: Any) -> bool:
    """Whether a scalar is a missing value (None, NaN, ``pd.NA``, NaT)."""
    missing = pd.isna(value)
    return bool(missing) if isinstance(missing, (bool, np.bool_)) else False
