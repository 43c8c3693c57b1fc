"""A person identifier that repeats: the records of a panel or a long file, which k counts one
by one.

``init`` warns of an identifier found by its name, or by its values as an id code or as a
balanced panel's unit id (:func:`balanced`), whose values repeat (a panel's person id);
``anonymize`` and the workbench warn of it too, since a config written by hand (or an init
proposal run as it is) says nothing of it: a k-anonymous class may then be one person's
records, and k counts records, not people. Both engines count the identifier's values and rows
(:mod:`microanon.core.repetition`: on the whole table in memory, partition by partition out of
core), tell such an id by them (:func:`microanon.apps.init.people.numbers_people`) and word the
warning here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..core.repetition import Repetition, repetition

__all__ = [
    "GROUPS",
    "REPEATED",
    "balanced",
    "repeated_id_note",
    "repeated_id_notes",
    "repeated_ids",
    "repeats",
]

#: Share of the rows whose identifier another row holds too from which it is said to repeat.
REPEATED = 0.2
#: Fewest values of an identifier that numbers people (fewer: a test's kind, a site).
GROUPS = 50


def repeated_id_note(column: str, distinct: int, rows: int, held: int) -> str:
    """The warning on ``column``, dropped as an identifier, whose ``distinct`` values repeat on
    the ``held`` of the table's ``rows`` rows that hold one."""
    where = f"{rows:,} rows" if held == rows else f"the {held:,} of {rows:,} rows that hold one"
    return (
        f"{column!r}, dropped as an identifier, repeats ({distinct:,} values on {where}): "
        "if it numbers people, a person has several records here (a panel), and k counts "
        "records, not people (a class may be one person's records): keep one record per person "
        "for k to count people"
    )


def repeats(distinct: int, rows: int, unique_share: float) -> bool:
    """Whether an identifier of ``distinct`` values on ``rows`` rows, ``unique_share`` of them
    holding a value no other row has, repeats as a panel's person id does: at least
    :data:`GROUPS` values and at least :data:`REPEATED` of the rows sharing theirs."""
    return distinct < rows and unique_share <= 1 - REPEATED and distinct >= GROUPS


def balanced(found: Repetition) -> bool:
    """Whether a column whose values were counted into ``found`` looks like a balanced panel's
    unit id (a person, a household or a firm followed over the same waves): at least
    :data:`GROUPS` values, every row holding one, each on as many rows as every other, two or
    more (plm's ``Males``: 545 men on 8 rows each). Such an id :func:`repeats`."""
    return found.distinct >= GROUPS and found.held == found.rows and found.fewest == found.most >= 2


def repeated_id_notes(found: Mapping[str, Repetition]) -> list[str]:
    """The warnings on the identifiers of ``found`` whose values repeat (:func:`repeats`), one
    per column, in its order.

    Parameters
    ----------
    found : mapping of str to Repetition
        Each identifier's values and rows, counted on the whole table
        (:func:`~microanon.core.repetition.repetition`) or out of core, partition by partition
        (:func:`~microanon.core.repetition.merged`): the same numbers.

    Returns
    -------
    list of str
        :func:`repeated_id_note` for each column that repeats.
    """
    return [
        repeated_id_note(column, r.distinct, r.rows, r.held)
        for column, r in found.items()
        if repeats(r.distinct, r.rows, r.alone_share)
    ]


def repeated_ids(data: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    """The warnings on the ``columns`` of ``data`` (the schema's identifiers named as record or
    person identifiers) whose values repeat (:func:`repeats`), one per column.

    Parameters
    ----------
    data : DataFrame
        The table as read (every row).
    columns : sequence of str
        The columns to look at.

    Returns
    -------
    list of str
        :func:`repeated_id_note` for each column that repeats (:func:`repeated_id_notes`).
    """
    return repeated_id_notes({column: repetition(data[column]) for column in columns})
