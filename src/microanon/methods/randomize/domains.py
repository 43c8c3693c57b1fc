"""Which values a randomized column's public domain may name.

A randomized release publishes each randomized column's domain beside its distortion matrix:
decoding and reconstruction need both. A domain read off the original would name values that
no published row holds (the ZIP code of one person, randomized away), and so tell anyone that
somebody in the data holds them. A value of a public domain must therefore be

- declared by the data owner: the schema's ``categories`` (a codebook) or an ordinal column's
  ``order``, public by that statement; or
- held by the published column itself.

Otherwise the release is refused, naming the column (never the value: an error may be shown to
others) and what declares its values for its kind (:func:`declare_advice`): a categorical
column's ``categories``, an ordinal column's ``order``; a numeric column declares none, and is
made ordinal with an ``order`` listing every possible value. Declared values make the domain
independent of the data, and the release is never refused for this.

Whether a value ends up in no published row depends on the draw. So that the same input is
not accepted or refused by chance, the chance is computed before the draw from the column's
matrix and value counts (:func:`check_drawable`): a value ``u`` is in no published row with
probability ``Π_v (1 - P[u, v])^n_v``, and a column whose undeclared values' chances add up to
more than :data:`ABSENT_CHANCE` (a bound on the chance that any is missed) is refused before
anything is drawn. After the draw the
published values are checked too (:func:`check_domains`; in memory on the randomized codes, out
of core on the distinct values of the written files), which refuses with at most that chance.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...core.errors import InputError
from ...core.hierarchy import value_key
from ...core.keys import number_text_key
from ...core.missing import MISSING_LABEL
from ...core.schema import Kind

__all__ = [
    "ABSENT_CHANCE",
    "absent_chances",
    "check_domains",
    "check_drawable",
    "declare_advice",
    "undeclared_absent",
]

#: The largest chance, over the draw, that a randomized column's public domain names a value
#: that no published row holds, with which a release is drawn at all (see :func:`check_drawable`):
#: a column whose draw would be refused more than once in a hundred is refused before it.
ABSENT_CHANCE = 0.01


def undeclared_absent(
    domain: Sequence[Any], published: Iterable[Any], declared: Sequence[Any] | None
) -> list[Any]:
    """The values of ``domain`` that neither the published column holds nor the owner declared.

    Parameters
    ----------
    domain : sequence
        The column's public domain, in domain order.
    published : iterable
        The values the published column holds.
    declared : sequence or None
        The column's declared values (:attr:`~microanon.core.schema.Attribute.declared_values`).

    Returns
    -------
    list
        Those values, in domain order.

    A number of the domain is held by the published text of that number as well (``18.0``
    where a column of decimal numbers beside the value ``?`` was written as text, out of core).
    """
    published = list(published)
    allowed = {value_key(v) for v in published} | {value_key(v) for v in declared or ()}
    written = {number_text_key(v) for v in published} - {None}
    return [
        v
        for v in domain
        if value_key(v) not in allowed and not (_is_number(v) and value_key(v) in written)
    ]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def check_domains(
    domains: Mapping[str, Sequence[Any]],
    published: Mapping[str, Iterable[Any]],
    declared: Mapping[str, Sequence[Any]],
    kinds: Mapping[str, Kind | str] | None = None,
) -> None:
    """Refuse a randomized release whose public domains would name unpublished original values.

    Parameters
    ----------
    domains : mapping of column to sequence
        Each randomized column's public domain.
    published : mapping of column to iterable
        The values each randomized column holds in the published table.
    declared : mapping of column to sequence
        The columns' declared values (:meth:`~microanon.core.schema.Schema.declared`).
    kinds : mapping of column to Kind, optional
        The columns' kinds, for what the message says declares their values
        (:func:`declare_advice`; a column not listed: categorical).

    Raises
    ------
    InputError
        For the first column whose domain names a value that is neither declared nor published
        (the message gives the count, never the values: an error may be shown to others).
    """
    for column, domain in domains.items():
        absent = undeclared_absent(domain, published[column], declared.get(column))
        if absent:
            advice = declare_advice(absent, (kinds or {}).get(column, Kind.CATEGORICAL))
            raise InputError(
                f"column '{column}': this draw left {len(absent)} value(s) of its domain in no "
                f"published row (a chance of at most {ABSENT_CHANCE:g}), and the public domain "
                "would name them (telling anyone that somebody in the data holds them); run it "
                f"again with another seed (or none), or {advice}"
            )


def absent_chances(matrix: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each domain value's chance of being held by no published row.

    Parameters
    ----------
    matrix : (d, d) array
        The column's distortion matrix, ``matrix[u, v] = Pr(published u | original v)``.
    counts : (d,) int array
        The records holding each original value.

    Returns
    -------
    (d,) float array
        ``Π_v (1 - matrix[u, v]) ** counts[v]`` for every ``u`` (the records are drawn
        independently).
    """
    counts = np.asarray(counts, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log1p(-np.clip(np.asarray(matrix, dtype=np.float64), 0.0, 1.0))
        terms = np.where(counts[None, :] > 0, logs * counts[None, :], 0.0)
    return np.exp(terms.sum(axis=1))


def check_drawable(
    column: str,
    matrix: np.ndarray,
    counts: np.ndarray,
    domain: Sequence[Any],
    declared: Sequence[Any] | None,
    kind: Kind | str = Kind.CATEGORICAL,
) -> None:
    """Refuse, before the draw, a column whose public domain would too likely name a value that
    no published row holds.

    Parameters
    ----------
    column : str
    matrix : (d, d) array
        Its distortion matrix, in domain order.
    counts : (d,) int array
        The records holding each value of ``domain``.
    domain : sequence
        Its public domain.
    declared : sequence or None
        Its declared values (never a leak).
    kind : Kind, default categorical
        Its kind, for what the message says declares its values (:func:`declare_advice`).

    Raises
    ------
    InputError
        When the chance that some undeclared value is held by no published row (bounded by
        their chances added up) may exceed :data:`ABSENT_CHANCE`; the message gives that bound,
        never a value.
    """
    undeclared = undeclared_absent(domain, (), declared)
    if not undeclared:
        return
    keys = {value_key(v) for v in undeclared}
    at = np.array([value_key(v) in keys for v in domain])
    chances = absent_chances(matrix, counts)[at]
    total = float(chances.sum())
    if total > ABSENT_CHANCE:
        raise InputError(
            f"column '{column}': the randomization would leave some value of its domain in no "
            f"published row with a chance of up to {min(total, 1.0):.2g} (more than "
            f"{ABSENT_CHANCE:g}), and the public domain would name it (telling anyone that "
            f"somebody in the data holds it); {declare_advice(undeclared, kind)}, or recode its "
            "rare values into common ones first"
        )


def declare_advice(values: Sequence[Any], kind: Kind | str) -> str:
    """What the data owner declares so that a column's public domain may name ``values`` (its
    undeclared ones, never shown: an error may be seen by others), by the column's kind.

    Parameters
    ----------
    values : sequence
        The column's values that its domain would name without a published row or a
        declaration.
    kind : Kind
        The column's kind: a categorical column declares its ``categories``, an ordinal one its
        ``order``; a numeric column declares none (the schema refuses ``categories`` for it) and
        is declared as an ordinal column with an ``order`` listing every possible value.

    Returns
    -------
    str
        The advice, a clause of an error message. The value ``?`` alone (a missing answer,
        ``missing: value``) is declared among the others, or left out with ``missing: drop``.
    """
    kind = Kind(kind)
    missing_only = {value_key(v) for v in values} == {value_key(MISSING_LABEL)}
    if kind is Kind.CATEGORICAL:
        if missing_only:
            return (
                f"add the value {MISSING_LABEL} (a missing answer, missing: value) to the "
                "column's declared categories, or leave its missing answers out (missing: drop)"
            )
        return "declare the column's possible values (categories: [...] in the schema, a codebook)"
    if kind is Kind.ORDINAL:
        where = "list every possible value of the column in its order: [...] in the schema"
    else:
        where = (
            "declare the column's possible values: a numeric column declares none, so give it "
            "kind: ordinal with order: [...] listing every possible value"
        )
    if missing_only:
        return (
            f"{where}, the value {MISSING_LABEL} (a missing answer, missing: value) among them, "
            "or leave its missing answers out (missing: drop)"
        )
    return where
