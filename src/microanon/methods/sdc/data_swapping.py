"""Data swapping of categorical columns: values exchanged between pairs of records.

Data swapping (Dalenius & Reiss, *Data-swapping: A Technique for Disclosure Control*, Journal
of Statistical Planning and Inference 6, 1982; Domingo-Ferrer, Sánchez & Soria-Comas, *Database
Anonymization*, Morgan & Claypool 2016, Ch. 3, §"data swapping") exchanges the values of an
attribute between records, so that its frequency counts stay exactly as they were while the link
between the value and the rest of the record is broken for the swapped records. Statistics
offices apply it to a few records, within strata (e.g. swapping the region of households of the
same size) and targeted at risky records, as the US Census Bureau's and sdcMicro's
``recordSwap`` do.

The procedure here, for each swapped column on its own (``n`` records, swap rate ``rate``)::

    pairs <- round(rate · n / 2)
    order <- a random order of the records: uniform, or, with key columns, weighted by the
             risk 1 / f (f the number of records sharing the record's key combination), so
             that rare combinations come first (Efraimidis–Spirakis weighted sampling)
    for i in order, until `pairs` pairs are formed:
        if i is not swapped yet:
            j <- a uniformly chosen record, not swapped yet, of i's stratum whose value differs
            if there is one: exchange the values of i and j; mark both swapped

So exactly ``2 · pairs`` records change value (fewer only when a stratum runs out of records of
other values), every record changes at most once, and because every change is an exchange inside
one stratum, the frequency of every value of the column — overall and within every stratum — is
exactly that of the original. The other columns are untouched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import ColumnNames, Param, Real
from ...core.errors import InputError
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import Schema
from ..registry import method
from .common import (
    CATEGORICAL,
    _named,
    check_number,
    combination_codes,
    masked_release,
    masking_input,
    select_columns,
    with_columns,
)

__all__ = ["data_swap", "swap_codes"]


def swap_codes(
    codes: Any,
    rate: float,
    strata: Any = None,
    risk: Any = None,
    rng: RandomLike = None,
) -> np.ndarray:
    """The pairing of data swapping: ``partner[i]`` is the record whose value ``i`` publishes.

    Parameters
    ----------
    codes : array of int, shape (n,)
        The value of the swapped column, as codes.
    rate : float
        Swap rate in ``[0, 1]``: ``round(rate · n / 2)`` pairs are formed.
    strata : array of int, shape (n,), optional
        Stratum of each record; pairs stay inside a stratum.
    risk : array of float, shape (n,), optional
        Positive weights: records are taken as initiators in a random order weighted by them.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    ndarray of int, shape (n,)
        An involution: ``partner[partner[i]] == i``; ``partner[i] == i`` for an unswapped record,
        ``codes[partner[i]] != codes[i]`` and ``strata[partner[i]] == strata[i]`` otherwise.

    Raises
    ------
    InputError
        ``rate`` outside ``[0, 1]``; arrays of other lengths; non-positive or non-finite risks.

    Examples
    --------
    >>> p = swap_codes([0, 0, 1, 1], 1.0, rng=0)
    >>> sorted(p.tolist()) == [0, 1, 2, 3], all(p[p] == range(4))
    (True, True)
    """
    rate = check_number(rate, "rate", 0, 1)
    code = np.asarray(codes, dtype=np.int64)
    n = len(code)
    stratum = np.zeros(n, np.int64) if strata is None else np.asarray(strata, dtype=np.int64)
    weight = np.ones(n) if risk is None else np.asarray(risk, dtype=np.float64)
    if code.ndim != 1 or stratum.shape != (n,) or weight.shape != (n,):
        raise InputError(f"codes, strata, risk: expected 1-d arrays of length {n}")
    if not (np.isfinite(weight).all() and (weight > 0).all()):
        raise InputError("risk: expected positive finite weights")
    gen = make_rng(rng)
    partner = np.arange(n)
    target = int(round(rate * n / 2))
    if target == 0:
        return partner
    order = np.argsort(gen.standard_exponential(n) / weight, kind="stable")
    # Records of each (stratum, value) cell in random order, popped from the end (records
    # swapped meanwhile are skipped when met), and the number still unswapped in each cell.
    pools: dict[int, dict[int, list[int]]] = {}
    for i in gen.permutation(n).tolist():
        pools.setdefault(int(stratum[i]), {}).setdefault(int(code[i]), []).append(i)
    left = {s: {v: len(pool) for v, pool in cells.items()} for s, cells in pools.items()}
    swapped = np.zeros(n, dtype=bool)
    pairs = 0
    for i in order.tolist():
        if pairs == target:
            break
        if swapped[i]:
            continue
        s_i, v_i = int(stratum[i]), int(code[i])
        counts = left[s_i]
        others = [v for v, c in counts.items() if v != v_i and c > 0]
        if not others:
            continue
        sizes = np.cumsum([counts[v] for v in others])
        v_j = others[int(np.searchsorted(sizes, gen.integers(0, sizes[-1]), side="right"))]
        pool = pools[s_i][v_j]
        j = pool.pop()
        while swapped[j]:
            j = pool.pop()
        partner[i], partner[j] = j, i
        swapped[i] = swapped[j] = True
        counts[v_i] -= 1
        counts[v_j] -= 1
        pairs += 1
    return partner


@method(
    "data_swap",
    step="any",
    kind="masked",
    publishes="The table with values of categorical columns exchanged between records.",
    help="Exchanges the values of categorical columns between pairs of records.",
    params=(
        Param(
            "rate",
            "Share of the records whose value is exchanged (0.05 = 5 %).",
            (Real(0, 1),),
        ),
        Param(
            "columns",
            "Categorical columns to swap, each on its own (the categorical quasi-identifiers by "
            "default).",
            (ColumnNames(),),
        ),
        Param(
            "strata",
            "Columns whose combinations values are swapped within (never across).",
            (ColumnNames(),),
        ),
        Param(
            "keys",
            "Swap first the records whose combination of these columns is rare.",
            (ColumnNames(),),
        ),
    ),
    in_memory_because="each value is swapped with one of another record of its stratum",
)
def data_swap(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    rate: float,
    columns: Sequence[str] | None = None,
    strata: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    rng: RandomLike = None,
) -> Release:
    """Swap the values of categorical columns between pairs of records (data swapping).

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
    rate : float
        Swap rate in ``[0, 1]``: the share of records whose value is exchanged
        (``round(rate · n / 2)`` pairs per column).
    columns : sequence of str, optional
        Categorical or ordinal columns to swap, each on its own (default: the categorical and
        ordinal quasi-identifiers that are neither strata nor key columns).
    strata : sequence of str, optional
        Columns whose value combinations are the strata; values are swapped only between records
        of one stratum.
    keys : sequence of str, optional
        Targeted swapping: records whose combination of these columns is rare are swapped first
        (risk ``1 / f``). Default: every record is equally likely.
    rng : numpy.random.Generator, int or None
        Source of randomness; never recorded.

    Returns
    -------
    Release
        Kind ``"masked"``: the validated rows and columns, the chosen columns swapped (values
        and dtype kept). Metadata: ``parameters`` (``rate``, ``columns``, ``strata``, ``keys``),
        ``masked_numeric`` (empty: the report measures the release like a recoding),
        ``swapped`` (per column, the number of records whose value changed).

    Raises
    ------
    InputError
        ``rate`` outside ``[0, 1]``; bad ``columns``; a strata or key column that is unknown,
        or also swapped.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"region": list("NNNNSSSS"), "age": [20, 30, 40, 50] * 2})
    >>> schema = {"region": "quasi", "age": {"role": "quasi", "kind": "numeric"}}
    >>> rel = data_swap(df, schema, rate=0.5, rng=1)
    >>> rel.data["region"].value_counts().to_dict(), rel.metadata["swapped"]
    ({'N': 4, 'S': 4}, {'region': 4})
    """
    check_number(rate, "rate", 0, 1)
    schema, frame = masking_input(data, schema)
    blocks = _named(schema, strata, "strata")
    risky = _named(schema, keys, "keys")
    if columns is None:
        cols = [
            q
            for q in select_columns(schema, None, CATEGORICAL, "data_swap")
            if q not in blocks and q not in risky
        ]
        if not cols:
            raise InputError(
                "data_swap: no categorical quasi-identifier besides the strata and key "
                "columns; name the columns to swap with columns="
            )
    else:
        cols = select_columns(schema, columns, CATEGORICAL, "data_swap")
    for c in cols:
        if c in blocks:
            raise InputError(f"strata: column '{c}' is swapped and cannot also be a stratum")
    stratum = combination_codes(frame, blocks) if blocks else None
    risk = None
    if risky:
        key = combination_codes(frame, risky)
        risk = 1.0 / np.bincount(key)[key]
    gen = make_rng(rng)
    new: dict[str, Any] = {}
    swapped: dict[str, int] = {}
    for c in cols:
        values = frame[c]
        partner = swap_codes(combination_codes(frame, [c]), rate, stratum, risk, gen)
        new[c] = values.iloc[partner].to_numpy()
        swapped[c] = int(np.count_nonzero(partner != np.arange(len(partner))))
    parameters = {"rate": rate, "columns": cols, "strata": blocks, "keys": risky}
    return masked_release(
        "data_swap",
        with_columns(frame, new),
        schema,
        parameters,
        len(frame),
        masked_numeric=[],
        swapped=swapped,
    )
