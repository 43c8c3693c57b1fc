"""Survey design columns ``microanon init`` recognizes: sampling weights, household ids, strata.

Each is recognized by its name *and* its values, and the reason names both:

``weight``
    a name like a sampling weight (:data:`WEIGHT_NAMES`: ``wght``, ``wgt``, ``pw``, ``perwt``,
    ``perweight``, ``dweight``, ``final_weight``, ...) on a numeric column with a value in every
    row (a survey gives every respondent a weight) whose values are all positive, or zero for
    some (DAAG's ``nassCDS``, the occupants of US crashes of 1997-2002, weighs 212 of its
    26,217 occupants 0), and not a handful of whole numbers. A column named just ``weight`` or
    ``wt`` (or ``wt71``) may be a body weight: it is taken for a sampling weight only when its
    values carry more than two decimals (a scale does not weigh people to the gram); a birth,
    baby or body weight
    (``bwght``, ``lbwght``, ``birthweight``) never is, nor is a weight named by the word alone
    (``weight``, ``wt``, ``wgt``, ``wght``, with a number or not) beside a height or a body mass
    index (``ht``, ``hgt``, ``height``, ``bmi``: a body weight converted from pounds carries many
    decimals, as causaldata's ``nhefs_complete`` ``wt82`` beside ``ht`` does, and Stat2Data's
    ``Pulse`` ``Wgt`` beside ``Hgt`` is in whole pounds), nor ``wt`` with a number beside ``wt``
    with another number (``wt71`` and ``wt82``: one measurement repeated over a study's waves);
``household``
    a name like a household id (:data:`HOUSEHOLD_NAMES`: ``hh``, ``hhid``, ``household``,
    ``hh_id``, ...) whose values repeat (several people share a household) and are not a few
    codes (a household *size* or *type* has few values);
``strata``
    a name like a stratum id (``stratum``, ``strata``, ``strat``, ``varstrat``) with at least
    two values.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import numpy as np
import pandas as pd

from ...core.schema import Role
from .profile import ColumnProfile, normalized_name

__all__ = ["HOUSEHOLD_NAMES", "STRATA_NAMES", "WEIGHT_NAMES", "design_role"]

#: Names (normalized, see :func:`~microanon.apps.init.profile.normalized_name`) of sampling weights.
WEIGHT_NAMES = re.compile(
    r"wght|wgt|_w_?t_?(fin|final|fnl|per|hh|s)|(samp|pers?|fin|hh|base|design)_?wt_"
    r"|_pw\d*_|_pwt_"
    r"|[a-z0-9]weights?_|_(final|sample|sampling|design|survey|person|household|hh|base|post"
    r"|calibrat\w*|analysis|cross|panel|trim\w*|expansion|raking)_weights?_"
    r"|_weights?_(final|fin|adj\w*|post|trim\w*|\d+)_"
)
#: A bare ``weight`` or ``wt``: a sampling weight or a body weight, told apart by the values.
_BARE_WEIGHT = re.compile(r"_weights?_|_wts?\d*_")
#: Names of a person's weight, never a sampling weight: birth, baby or body weight
#: (``bwght``, ``lbwght``, ``birthweight``, ``body_wt``, ...).
_PERSON_WEIGHT = re.compile(r"_l?bw(ght|gt|t)_|(birth|baby|body)_?w(ei)?g?h?t")
#: A weight named by the word alone, with a number or not (``weight``, ``wt``, ``wgt``,
#: ``wght``, ``wt82``): beside a height (:data:`_HEIGHT_NAMES`) it is a person's body weight.
_WEIGHT_WORD = re.compile(r"^_(weights?|wts?|wgt|wght)\d*_$")
#: ``wt`` with a number alone (``wt71``): beside another one with another number it is one
#: measurement repeated over waves.
_NUMBERED_WT = re.compile(r"^_wts?(\d+)_$")
#: Names of a person's height or body mass index (``ht``, ``hgt``, ``height``, ``Height_cm``,
#: ``bmi``, ``body_mass``).
_HEIGHT_NAMES = re.compile(r"_(ht|hgt|bmi)\d*_|height|body_?mass")
#: Names of household ids.
HOUSEHOLD_NAMES = re.compile(
    r"_hh_?(id|no|nr|num|number)?\d*_|_household_?(id|no|nr|number)?_"
    # (a family's id: mosaicData's Galton family, 197 families' children, had been a key)
    r"|_family_?(id|no|nr|num|number)?_"
)
#: Names that say a household column is something else than its id (size, type, income,
#: earnings, ...).
_HOUSEHOLD_ATTRIBUTE = re.compile(
    r"size|type|income|inc_|earn|wage|expen|spend|consum|wealth|asset|head|member|count|weight|wt"
)
#: Names of stratum ids.
STRATA_NAMES = re.compile(r"_strat(a|um|ification)?\d*_|_var_?strat_|_stratum_?id_")


def _decimals_over_two(values: pd.Series) -> float:
    """Share of the values with more than two decimals."""
    x = values.to_numpy(dtype=float)
    return float(np.mean(np.abs(x * 100 - np.round(x * 100)) > 1e-6))


def design_role(
    col: pd.Series, p: ColumnProfile, columns: Collection[str]
) -> tuple[Role, str, str] | None:
    """The survey design role of a column, its rule and the reason, or None.

    Parameters
    ----------
    col : Series
        The column's values.
    p : ColumnProfile
        Its profile.
    columns : collection of str
        The names of the table's columns (this one among them): a weight named by the word
        alone beside a height, or ``wt`` with a number beside another, is a body weight.

    Returns
    -------
    (role, rule, reason) or None
    """
    name = normalized_name(p.name)
    if p.distinct == 0:
        return None
    if (WEIGHT_NAMES.search(name) or _BARE_WEIGHT.search(name)) and not _PERSON_WEIGHT.search(name):
        if _body_weight(name, [normalized_name(c) for c in columns if c != p.name]):
            return None
        return _weight(col, p, bare=not WEIGHT_NAMES.search(name))
    if HOUSEHOLD_NAMES.search(name) and not _HOUSEHOLD_ATTRIBUTE.search(name):
        return _household(p)
    if STRATA_NAMES.search(name) and p.distinct >= 2:
        return (
            Role.STRATA,
            "design",
            f"design rule: the name looks like a stratum id ({p.distinct:,} strata); published "
            "unchanged, checked by the schema lint like an insensitive column",
        )
    return None


def _body_weight(name: str, others: list[str]) -> bool:
    """Whether a weight named ``name`` is a person's body weight by the names of the table's
    ``others`` columns (all normalized): a weight named by the word alone beside a height or a
    body mass index, or ``wt`` with a number beside ``wt`` with another number."""
    if _WEIGHT_WORD.search(name) and any(_HEIGHT_NAMES.search(o) for o in others):
        return True
    numbered = _NUMBERED_WT.search(name)
    if numbered is None:
        return False
    waves = (_NUMBERED_WT.search(o) for o in others)
    return any(m is not None and int(m.group(1)) != int(numbered.group(1)) for m in waves)


def _weight(col: pd.Series, p: ColumnProfile, *, bare: bool) -> tuple[Role, str, str] | None:
    present = col.dropna()
    if p.type != "numeric" or len(present) < len(col) or (present < 0).any():
        return None  # (a missing value: not a respondent's design weight)
    zeros = int((present == 0).sum())
    if zeros == len(present):
        return None
    if p.integer and p.distinct <= 10:  # a few whole numbers: a code, not a weight
        return None
    precise = _decimals_over_two(present)
    if bare and precise < 0.5:  # a body weight is kept to a decimal or two
        return None
    values = "whole numbers" if p.integer else f"{precise:.0%} with more than two decimals"
    below = int((present < 1).sum())
    used = (
        "used by the risk measures"
        if not below
        else f"not used by the risk measures: {below:,} value(s) are below 1, and they read a "
        "sampling weight as an inverse inclusion probability, at least 1 (a weight scaled to "
        "the sample must be scaled back to the population it stands for)"
    )
    return (
        Role.WEIGHT,
        "design",
        f"design rule: the name looks like a sampling weight and the values are "
        f"{'non-negative' if zeros else 'positive'} numbers ({p.distinct:,} distinct, {values}, "
        f"{_number(p.low)} to {_number(p.high)}{f'; {zeros:,} of them 0' if zeros else ''}); "
        "published unchanged, not generalized (the schema lint warns when it tells a "
        f"quasi-identifier, as a weight drawn per stratum can), and {used}",
    )


def _household(p: ColumnProfile) -> tuple[Role, str, str] | None:
    if p.distinct <= 20 or p.unique_share >= 0.95:  # a few codes, or one person per id
        return None
    return (
        Role.HOUSEHOLD,
        "design",
        f"design rule: the name looks like a household id and values repeat ({p.distinct:,} "
        f"households on {p.rows:,} rows); used for the household risk, never published",
    )


def _number(x: float | None) -> str:
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else f"{x:.4g}"
