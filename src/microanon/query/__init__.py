"""Aggregate queries over distribution releases, with guaranteed bounds.

The query answering of Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata Anonymization*,
PVLDB 2(1):958–969, 2009.

The quasi-identifiers of a distribution release are exact, so a condition on them selects a known
number of records in each group; each group's published subdomains then bound every aggregate
of the sensitive attribute:

- :class:`BoundTables`: the per-group auxiliary tables (for every ``k``: sum of the ``k``
  smallest lows and ``k`` largest highs, ``k``-th largest high and smallest low), built once and
  answering batches of queries in one numpy pass;
- :func:`bounded_aggregate`: COUNT, SUM, AVG, MIN, MAX of one selection (mask, function or SQL
  condition);
- :func:`sensitive_count`: COUNT of the selected records whose sensitive value lies in a set of
  categories or values (or a range), bounded;
- :func:`query`: SQL (``SELECT AVG(salary) FROM release WHERE age BETWEEN 30 AND 40``) through
  DuckDB, optionally with the true answers on the original table.

>>> from microanon.query import bounded_aggregate, query  # doctest: +SKIP
>>> bounded_aggregate(release, "avg", where="zipcode LIKE '913%'").exact  # doctest: +SKIP
(Fraction(35000, 1), Fraction(55000, 1))
"""

from __future__ import annotations

from .aggregate import AggregateBound, bounded_aggregate
from .bounds import AGGREGATES, BoundArrays, BoundTables
from .sensitive_count import sensitive_count
from .sql import ParsedQuery, limits, parse_query, query, set_limits, where_mask

__all__ = [
    "AGGREGATES",
    "AggregateBound",
    "BoundArrays",
    "BoundTables",
    "ParsedQuery",
    "bounded_aggregate",
    "limits",
    "parse_query",
    "query",
    "sensitive_count",
    "set_limits",
    "where_mask",
]
