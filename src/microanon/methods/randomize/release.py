"""Randomized response on chosen columns of a table: RR-S, RR-QI, RR-Both.

The release procedure of Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based
Microdata Release*, Journal of Computing Science and Engineering 5(3), 2011.

Every record's value of every randomized column is replaced independently: kept with probability
``p`` and otherwise swapped for one of the other ``d - 1`` values uniformly (the uniform-retention
matrix, the paper's eq. 1), or drawn from the column of a general distortion matrix (PRAM). The
release publishes the randomized table together with each column's domain and matrix: analysts need
them to reconstruct the original distribution (:func:`~microanon.methods.randomize.reconstruct`),
and attackers are assumed to know them anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import Schema
from ...core.table import Table
from .sampling import publish, resolve_specs

__all__ = ["randomize"]


def randomize(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    keep: Mapping[str, float] | None = None,
    matrices: Mapping[str, Any] | None = None,
    rng: RandomLike = None,
) -> Release:
    """Randomize chosen columns of a table record by record (randomized response / PRAM).

    Parameters
    ----------
    data : DataFrame
        The original table.
    schema : Schema or mapping
        Roles and kinds. Any published column may be randomized (typically quasi-identifiers
        and/or the sensitive column); identifier columns are dropped as always.
    keep : mapping of column to float, optional
        Uniform retention: keep probability ``p`` in ``(1/d, 1]`` per column, where ``d`` is the
        size of the column's domain. ``p = 1/d`` is refused (singular: nothing could be
        reconstructed). Columns with a single value (``d = 1``) are left as they are.
    matrices : mapping of column to array, optional
        General ``d × d`` distortion matrices, ``matrix[u, v] = Pr(published u | original v)``
        (columns sum to 1; invertible), rows and columns in the column's domain order.
    rng : numpy.random.Generator, int or None
        Source of randomness (``None``: OS entropy). Never recorded in the release.

    Returns
    -------
    Release
        Kind ``"randomized"``: table ``data`` with every published column in schema order, the
        randomized ones holding their randomized values, rows in random order (the row order of
        the original carries nothing into the release). Metadata: the standard keys
        (``method`` = ``"randomized_response"``, ``parameters``, ``quasi``, ``sensitive``,
        ``hierarchies``, ``rows_in``, ``rows_out``; ``models`` is empty) and ``randomized``:
        column -> ``{"domain": values in code order, "matrix": P as nested lists, "keep": p or
        None}``.

    Notes
    -----
    The domain of a column is its dictionary in the encoded :class:`~microanon.Table`: the leaves
    of its hierarchy when it has one (values absent from the data included), the declared order
    of an ordinal column, and the sorted distinct values otherwise. Cost: O(n) per randomized
    column (vectorized over codes).

    Raises
    ------
    InputError
        No column named; an unknown or identifier column; a column in both ``keep`` and
        ``matrices``; a keep probability outside ``(1/d, 1]``; a matrix of the wrong shape, not
        column-stochastic or singular; bad data (see :meth:`microanon.Table.from_frame`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["F", "M", "M", "F"], "disease": ["flu", "cold", "flu", "hiv"]})
    >>> codebook = {"role": "sensitive", "categories": ["cold", "flu", "hiv"]}  # declared: public
    >>> rel = randomize(df, {"sex": "quasi", "disease": codebook}, keep={"disease": 0.8}, rng=0)
    >>> rel.metadata["randomized"]["disease"]["domain"], len(rel.data)
    (['cold', 'flu', 'hiv'], 4)
    """
    table = Table.from_frame(data, schema)
    specs = resolve_specs(table, keep, matrices)
    parameters = {"keep": dict(keep or {}), "matrices": list(matrices or {})}
    return publish(table, specs, "randomized_response", parameters, make_rng(rng))
