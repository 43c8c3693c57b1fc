"""Which values a randomized column's public domain may name.

A randomized release publishes each randomized column's domain beside its distortion matrix:
decoding and reconstruction need both. A domain read off the original would name values that
no published row holds (the ZIP code of one person, randomized away), and so tell anyone that
somebody in the data holds them. A value of a public domain must therefore be

- declared by the data owner: the schema's ``categories`` (a codebook) or an ordinal column's
  ``order``, public by that statement; or
- held by the published column itself.

Otherwise the release is refused, naming the column; declaring the column's categories makes
the domain independent of the data, and the release is never refused for this. In-memory
methods check the randomized codes (:func:`check_domains`); the out-of-core engine checks the
distinct values of the written files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...core.errors import InputError
from ...core.hierarchy import value_key

__all__ = ["check_domains", "undeclared_absent"]


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
    """
    allowed = {value_key(v) for v in published} | {value_key(v) for v in declared or ()}
    return [v for v in domain if value_key(v) not in allowed]


def check_domains(
    domains: Mapping[str, Sequence[Any]],
    published: Mapping[str, Iterable[Any]],
    declared: Mapping[str, Sequence[Any]],
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

    Raises
    ------
    InputError
        For the first column whose domain names a value that is neither declared nor published
        (the message gives the count, never the values: an error may be shown to others).
    """
    for column, domain in domains.items():
        absent = undeclared_absent(domain, published[column], declared.get(column))
        if absent:
            raise InputError(
                f"column '{column}': {len(absent)} value(s) of its domain are held by no "
                "published row, and the public domain would name them (telling anyone that "
                "somebody in the data holds them); declare the column's possible values "
                "(categories: [...] in the schema, a codebook) or recode rare values first"
            )
