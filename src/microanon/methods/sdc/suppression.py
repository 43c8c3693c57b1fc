"""Local suppression to k-anonymity on key columns (sdcMicro's localSuppression).

A non-perturbative method of Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization*, Morgan
& Claypool 2016, Ch. 3, which leaves the choice of the value to suppress open; the greedy rule below
follows sdcMicro where it can and is ours otherwise (criterion e).

Matching. With ``wildcard=True`` (the default, as sdcMicro's counting with ``alpha = 1``) a
missing (suppressed) key value matches anything: two records *match* when they agree on every key
that both have. A record's frequency is the number of records it matches, itself included, and
the output guarantees that every record matches at least ``k`` records. Missing values in the
input are kept and count the same way.

That matching is not transitive, and it overstates what an attacker faces: one who knows a
person's key values can rule out a published record that matched only through *its own* missing
value (``(*, F, Other)`` and ``(30, F, *)`` match, but a 45-year-old's record can only be the
first). The release therefore reports ``min_candidates``: the smallest number of published
records consistent with some record's original key values. On Adult it is 1 for the wildcard
output. With ``wildcard=False`` a missing value is a value of its own (``*``): the output has
classes of at least ``k`` records with identical key patterns, so every record's original values
are consistent with at least ``k`` published records and the release is k-anonymous as pycanon,
ARX or :func:`microanon.models.k_anonymity` count it once missing cells are written ``*``.

Claimed model and output. The strict release (``wildcard=False``) writes suppressed and missing
key cells as ``"*"`` and, when its keys include every quasi-identifier of the schema, claims
k-anonymity, which :func:`microanon.models.check_release` re-checks. The wildcard release writes
them as missing values (sdcMicro's ``NA``) and claims no model: what it guarantees is the
wildcard frequency ``achieved_k``, and ``min_candidates`` says how far that is from
k-anonymity. Measured on Adult (keys age, sex, race, marital_status): the wildcard release
suppresses 1,045 / 1,824 cells at k = 3 / 5 with ``min_candidates`` 1; the strict one 1,077 /
1,886 cells with ``min_candidates`` 3 / 12.

Algorithm (greedy, on the frequency table of distinct key patterns, never on rows). In rounds:

1. compute each distinct pattern's frequency under the chosen matching;
2. every pattern with frequency < k suppresses one more of its values, in all its records. The
   attribute is chosen, among the pattern's non-missing ones, by these criteria in order:

   a. *helpful* first: suppressing it raises the pattern's frequency (as sdcMicro, which only
      suppresses a value where the record differs from its candidate matches);
   b. higher ``importance`` number first (sdcMicro's meaning: importance 1 is suppressed last,
      "if possible not at all"; the largest number is suppressed whenever possible);
   c. the suppression makes the pattern safe (frequency >= k);
   d. the larger gain in frequency;
   e. our rule: the attribute whose value occurs in the most offending patterns;
   f. more distinct values first (sdcMicro's default importance ranks attributes this way);
   g. earlier in ``columns``.

   With exact matching the frequency after a suppression counts the records that already have
   the new pattern plus the offending patterns that reach it by one suppression in the same
   round (they merge when they all choose it); with wildcard matching those are matched anyway.

   Ranking the occurrence count (e) first, as our rule was first meant to: measured on Adult
   (keys age, sex, race, marital_status; k = 3 and 5) that needed 1,101 and 2,110 suppressions
   against 1,045 and 1,824 with c and d first (and 9,379 / 14,141 against 9,134 / 12,799 with
   education and workclass added), so it only breaks ties here.

Each round suppresses exactly one value in every offending pattern (as each round of sdcMicro's
loop does), and frequencies only grow when values are suppressed, so patterns that are safe stay
safe. With wildcard matching a fully suppressed pattern matches all ``n ≥ k`` records: at most one
round per key. With exact matching the fully suppressed group may end below ``k``; it is then
filled up with records from patterns that have more than ``k`` (fewest present keys first) or,
if their surplus is too small, with one whole pattern.

Wildcard frequencies come from the missingness patterns: for each pair of patterns (which keys
are present) the records are compared on the keys present in both, by sorting packed integer
keys.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import (
    SMALLEST_GROUP,
    Boolean,
    ColumnNames,
    Integer,
    ListOf,
    Param,
    PerColumn,
)
from ...core.errors import InputError
from ...core.factorize import KEY_LIMIT, factorize, packed_key, sorted_distinct
from ...core.frames import pandas_if_arrow
from ...core.hierarchy import SUPPRESSED
from ...core.release import Release
from ...core.schema import Kind, Schema, check_frame
from ...core.table import combine_codes
from ...models import KAnonymity
from ..registry import method
from .common import (
    CATEGORICAL,
    check_flag,
    check_k,
    masked_release,
    masking_input,
    select_columns,
    with_columns,
)

__all__ = ["local_suppression", "suppress_codes", "wildcard_frequencies"]


def _missingness(codes: np.ndarray) -> np.ndarray:
    """Bit mask of the present (non-missing) keys of each row."""
    bits = (codes >= 0).astype(np.int64) << np.arange(codes.shape[1], dtype=np.int64)
    return bits.sum(axis=1)


def _pack(rows: np.ndarray) -> np.ndarray:
    """One int64 key per row of non-negative codes (equal keys ⇔ equal rows)."""
    sizes = rows.max(axis=0) + 1 if len(rows) else np.ones(rows.shape[1], dtype=np.int64)
    return packed_key(list(rows.T), sizes)[0]


def wildcard_frequencies(
    queries: np.ndarray, patterns: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """How many records each query matches when a missing value (``-1``) matches anything.

    A query and a pattern match when they agree on the keys present in both. The patterns are
    taken one missingness (the set of keys present) at a time: every query is projected onto
    the keys that missingness holds, and each pattern onto each set of keys it shares with
    some query, as one mixed-radix key per row (a code shifted by one, ``0`` for a key left
    out, so that a key also names the keys it holds): a matrix product each, then one lookup
    of all the queries' keys. Where the keys' space does not fit one int64, each pair of a
    query's and a pattern's missingness is grouped on its own (:func:`_pairwise_frequencies`).

    Parameters
    ----------
    queries : (m, p) int array
        Key codes ``>= 0``, ``-1`` for missing.
    patterns : (d, p) int array
        The records (or distinct patterns), coded the same way.
    weights : (d,) int array, optional
        Records per pattern (default 1).

    Returns
    -------
    numpy.ndarray
        int64, for each query the total weight of the patterns that agree with it on every key
        present in both.
    """
    q = np.asarray(queries, dtype=np.int64)
    pt = np.asarray(patterns, dtype=np.int64)
    w = np.ones(len(pt), np.int64) if weights is None else np.asarray(weights, np.int64)
    out = np.zeros(len(q), dtype=np.int64)
    if len(q) == 0 or len(pt) == 0:
        return out
    radix = _radix(np.maximum(q.max(axis=0), pt.max(axis=0)) + 2)
    if radix is None:
        return _pairwise_frequencies(q, pt, w)
    q_shifted, p_shifted = q + 1, pt + 1  # (0: missing, or a key left out of a projection)
    bits = np.int64(1) << np.arange(q.shape[1], dtype=np.int64)
    q_masks = np.unique(_missingness(q))
    p_masks, p_of = np.unique(_missingness(pt), return_inverse=True)
    p_groups = np.split(np.argsort(p_of, kind="stable"), np.cumsum(np.bincount(p_of))[:-1])
    for mask, rows in zip(p_masks, p_groups, strict=True):
        q_keys = q_shifted @ (radix * ((mask & bits) != 0))  # each query on the keys shared
        shared = np.unique(q_masks & mask)
        p_keys = p_shifted[rows] @ (radix[:, None] * ((shared[None, :] & bits[:, None]) != 0))
        keys, at = np.unique(p_keys.reshape(-1), return_inverse=True)
        sums = np.bincount(at.reshape(-1), weights=np.repeat(w[rows], len(shared)))
        pos = np.minimum(np.searchsorted(keys, q_keys), len(keys) - 1)
        hit = keys[pos] == q_keys
        out[hit] += sums[pos[hit]].astype(np.int64)
    return out


def _radix(sizes: np.ndarray) -> np.ndarray | None:
    """The place value of each column in one mixed-radix int64 key of columns of ``sizes``
    values; None when the key would not fit."""
    radix, place = [], 1
    for size in sizes.tolist():
        radix.append(place)
        place *= int(size)
    return np.array(radix, dtype=np.int64) if place < KEY_LIMIT else None


def _pairwise_frequencies(q: np.ndarray, pt: np.ndarray, w: np.ndarray) -> np.ndarray:
    """:func:`wildcard_frequencies` one pair of a query's and a pattern's missingness at a
    time, their shared keys packed as the codes need (:func:`_pack`)."""
    out = np.zeros(len(q), dtype=np.int64)
    q_masks, q_of = np.unique(_missingness(q), return_inverse=True)
    p_masks, p_of = np.unique(_missingness(pt), return_inverse=True)
    q_groups = np.split(np.argsort(q_of, kind="stable"), np.cumsum(np.bincount(q_of))[:-1])
    p_groups = np.split(np.argsort(p_of, kind="stable"), np.cumsum(np.bincount(p_of))[:-1])
    for qm, q_rows in zip(q_masks, q_groups, strict=True):
        for pm, p_rows in zip(p_masks, p_groups, strict=True):
            common = np.flatnonzero([(qm & pm) >> j & 1 for j in range(q.shape[1])])
            if len(common) == 0:
                out[q_rows] += w[p_rows].sum()
                continue
            keys = _pack(np.concatenate([pt[p_rows][:, common], q[q_rows][:, common]]))
            p_keys, q_keys = keys[: len(p_rows)], keys[len(p_rows) :]
            uniq, inv = np.unique(p_keys, return_inverse=True)
            sums = np.bincount(inv.reshape(-1), weights=w[p_rows]).astype(np.int64)
            pos = np.minimum(np.searchsorted(uniq, q_keys), len(uniq) - 1)
            hit = uniq[pos] == q_keys
            out[q_rows[hit]] += sums[pos[hit]]
    return out


def _distinct(codes: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows of ``codes`` (``-1`` allowed) in lexicographic order, their total weights,
    the row → pattern map (``numpy.unique(codes, axis=0)``, hashed: only the distinct rows are
    sorted)."""
    sizes = codes.max(axis=0, initial=-1) + 2 if len(codes) else np.ones(codes.shape[1], int)
    combined = combine_codes([column + 1 for column in codes.T], sizes)
    weight = np.bincount(combined.inverse, weights=weights).astype(np.int64)
    return combined.combos - 1, weight, combined.inverse


def _exact_frequencies(
    queries: np.ndarray, patterns: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """Weight of the (distinct) pattern identical to each query, ``-1`` compared as a value."""
    keys = _pack(np.concatenate([patterns, queries]) + 1)
    p_keys, q_keys = keys[: len(patterns)], keys[len(patterns) :]
    order = np.argsort(p_keys)
    pos = np.minimum(np.searchsorted(p_keys[order], q_keys), len(order) - 1)
    hit = p_keys[order][pos] == q_keys
    out = np.zeros(len(queries), dtype=np.int64)
    out[hit] = weights[order[pos[hit]]]
    return out


def _fill_blank_group(codes: np.ndarray, k: int) -> np.ndarray:
    """Exact matching: grow a fully suppressed group of fewer than ``k`` rows to ``k`` rows.

    Rows are taken from patterns with more than ``k`` rows, fewest present keys first; when
    their surplus does not suffice, one whole pattern (fewest present keys, then fewest rows)
    is fully suppressed instead: it has at least ``k`` rows.
    """
    blank = np.all(codes < 0, axis=1)
    need = k - int(blank.sum())
    if blank.sum() == 0 or need <= 0:
        return codes
    patterns, counts, row_pattern = _distinct(codes, np.ones(len(codes)))
    present = (patterns >= 0).sum(axis=1)
    donors = np.flatnonzero(present > 0)
    surplus = counts[donors] - k
    if surplus.sum() >= need:
        order = donors[np.lexsort((-surplus, present[donors]))]
        spare = counts[order] - k
        take = np.clip(need - (np.cumsum(spare) - spare), 0, spare)
    else:
        order = donors[np.lexsort((counts[donors], present[donors]))][:1]
        take = counts[order]
    out = codes.copy()
    for pattern, t in zip(order[take > 0], take[take > 0], strict=True):
        rows = np.flatnonzero(row_pattern == pattern)[-int(t) :]
        out[rows] = -1
    return out


def suppress_codes(
    codes: np.ndarray, k: int, importance: Sequence[int] | None = None, wildcard: bool = True
) -> tuple[np.ndarray, int]:
    """Greedy local suppression of a code matrix (see the module docstring).

    Parameters
    ----------
    codes : (n, p) int array
        Key codes ``>= 0``, ``-1`` for missing.
    k : int
        ``1 <= k <= n``.
    importance : sequence of p ints, optional
        sdcMicro's importance (1 = suppressed last); default all equal.
    wildcard : bool
        Missing values match anything (True) or only missing values (False).

    Returns
    -------
    codes : (n, p) int64 array
        The input with suppressed cells set to ``-1``; every row matches at least ``k`` rows
        (with ``wildcard=False``: at least ``k`` rows have its exact pattern).
    rounds : int
        Number of rounds run.
    """
    codes = np.asarray(codes, dtype=np.int64)
    n, p = codes.shape
    imp = np.zeros(p, np.int64) if importance is None else np.asarray(importance, np.int64)
    cardinality = np.array([len(sorted_distinct(c[c >= 0])) for c in codes.T], dtype=np.int64)
    patterns, counts, row_pattern = _distinct(codes, np.ones(n))
    rounds = 0
    while True:
        if wildcard:
            freq = wildcard_frequencies(patterns, patterns, counts)
        else:
            freq = counts
        offending = np.flatnonzero((freq < k) & (patterns >= 0).any(axis=1))
        if len(offending) == 0:
            break
        rounds += 1
        off = patterns[offending]
        # Candidate (offending pattern, attribute) pairs: the attribute is present.
        cand_row, cand_col = np.nonzero(off >= 0)
        queries = off[cand_row].copy()
        queries[np.arange(len(cand_row)), cand_col] = -1
        before = freq[offending][cand_row]
        if wildcard:
            gain = wildcard_frequencies(queries, patterns, counts) - before
        else:
            # Existing records with the new pattern, plus the offending patterns that reach the
            # same pattern by one suppression this round (they merge if they all choose it).
            same = np.unique(_pack(queries + 1), return_inverse=True)[1].reshape(-1)
            peers = np.bincount(same, weights=counts[offending][cand_row]).astype(np.int64)
            gain = _exact_frequencies(queries, patterns, counts) + peers[same] - before
        # Our score: in how many offending patterns the attribute's value occurs.
        score = np.zeros(len(cand_row), np.int64)
        for j in range(p):
            on = cand_col == j
            _, inv, cnt = np.unique(off[cand_row[on], j], return_inverse=True, return_counts=True)
            score[on] = cnt[inv.reshape(-1)]
        reach = before + gain >= k
        keys = (-cand_col, cardinality[cand_col], score, gain, reach, imp[cand_col], gain > 0)
        order = np.lexsort((*keys, cand_row))  # the last key sorts first
        last = np.r_[cand_row[order][1:] != cand_row[order][:-1], True]
        best = order[last]  # one per offending pattern, in pattern order
        patterns[offending[cand_row[best]], cand_col[best]] = -1
        patterns, counts, merged = _distinct(patterns, counts)
        row_pattern = merged[row_pattern]
    out = patterns[row_pattern]
    return (out if wildcard else _fill_blank_group(out, k)), rounds


def _importance(importance: Any, columns: list[str]) -> list[int] | None:
    if importance is None:
        return None
    p = len(columns)
    if isinstance(importance, Mapping):
        keys = set(map(str, importance))
        if keys != set(columns):
            absent = [c for c in columns if c not in keys]
            extra = sorted(keys - set(columns))
            raise InputError(  # (a name that is no key first: most likely a typo)
                "importance: give one value per key column "
                + (f"(unknown: {extra[0]})" if extra else f"(missing: {', '.join(absent)})")
            )
        values = [importance[c] for c in columns]
    elif isinstance(importance, Sequence) and not isinstance(importance, str):
        values = list(importance)
        if len(values) != p:
            raise InputError(f"importance: {len(values)} value(s) for {p} key column(s)")
    else:
        raise InputError(f"importance: expected a mapping or a sequence, got {importance!r}")
    for c, v in zip(columns, values, strict=True):
        if (
            isinstance(v, (bool, np.bool_))
            or not isinstance(v, numbers.Integral)
            or not 1 <= v <= p
        ):
            raise InputError(f"importance of '{c}': expected an integer in 1..{p}, got {v!r}")
    return [int(v) for v in values]


def _published_column(values: pd.Series, blank: np.ndarray, kind: Kind, star: bool) -> pd.Series:
    """A key column with ``blank`` cells set missing or to ``"*"`` (``star``).

    Missing cells keep a numeric column numeric (integers as nullable ``Int64``); ``"*"`` makes
    any column text.
    """
    if kind is Kind.NUMERIC and not star:
        dtype = "Int64" if pd.api.types.is_integer_dtype(values) else "float64"
        return values.astype(dtype).mask(blank)
    marker = SUPPRESSED if star else None
    return pd.Series(
        np.where(blank, marker, values.to_numpy(dtype=object)), index=values.index, dtype=object
    )


@method(
    "local_suppression",
    step="any",
    kind="masked",
    publishes="The table with single values blanked out. Claims k-anonymity on the keys when "
    "strict (wildcard: false).",
    help="Blanks out single values (not whole records) of the records that stand out until "
    "every record matches at least k records.",
    params=(
        SMALLEST_GROUP,
        Param(
            "columns",
            "The key columns (the categorical and ordinal quasi-identifiers by default).",
            (ColumnNames(),),
        ),
        Param(
            "importance",
            "Per key column, 1 (blanked last) to the number of keys (blanked first).",
            (PerColumn(Integer(1)), ListOf(Integer(1))),
        ),
        Param(
            "wildcard",
            "A blank matches any value (true, as sdcMicro), or is a value of its own (false: "
            "strict k-anonymity).",
            (Boolean(),),
        ),
    ),
    in_memory_because="what it suppresses depends on the frequencies of the combinations it "
    "changes, record by record",
)
def local_suppression(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    k: int,
    columns: Sequence[str] | None = None,
    importance: Mapping[str, int] | Sequence[int] | None = None,
    wildcard: bool = True,
) -> Release:
    """Suppress key values until every record matches at least ``k`` records.

    Parameters
    ----------
    data : DataFrame
        May hold missing values in the key columns: they match anything (sdcMicro's ``NA``),
        unless the column's missing-value policy is ``drop`` (the rows are left out first) or
        ``error`` (refused).
    schema : Schema or mapping
    k : int
        ``1 <= k <= n``.
    columns : sequence of str, optional
        Key columns (default: the categorical and ordinal quasi-identifiers). Numeric columns
        may be named explicitly: their values are treated as categories.
    importance : mapping of column to int, or sequence, optional
        sdcMicro's importance, integers in ``1..p`` (ties allowed): a key with importance 1 is
        suppressed last, one with importance ``p`` first (whenever that helps). Default: no
        preference, our rule (e) decides. sdcMicro's default (more categories =
        less important) is ``importance`` = the rank of each key's number of categories.
    wildcard : bool
        True (default, sdcMicro): a missing value matches anything. False: a missing value is a
        value of its own (``*``), so the output has classes of at least ``k`` identical key
        patterns, i.e. is k-anonymous as pycanon, ARX or :func:`~microanon.models.k_anonymity`
        count it once missing cells are written ``*`` (see the module docstring); the
        release publishes them so.

    Returns
    -------
    Release
        Kind ``"masked"``: the validated rows and columns. With ``wildcard=True`` suppressed
        (and input-missing) key cells are missing, as in sdcMicro (numeric keys stay numeric,
        integer ones as nullable ``Int64``); with ``wildcard=False`` they are ``"*"``, the
        value they are counted as (the column becomes text). Metadata: ``parameters`` (``k``,
        ``columns``, ``importance``, ``wildcard``); ``models``: k-anonymity with this ``k``
        when ``wildcard=False`` and the keys include every quasi-identifier of the schema, else
        none (the wildcard matching is not k-anonymity: ``min_candidates`` can be 1);
        ``suppressed_by_column`` (new suppressions per column),
        ``suppressed_total``, ``suppressed_cells`` (per column, the 0-based row positions in the
        published table of its suppressed cells), ``missing_before`` (input missing values per
        key), ``rounds``, ``achieved_k`` (the smallest frequency of the output under the chosen
        matching) and ``min_candidates`` (the smallest number of published records consistent
        with a record's original key values: what an attacker who knows them faces).

    Raises
    ------
    InputError
        ``k`` not an integer >= 1; bad ``columns`` or ``importance``; a key column with only
        missing values.
    InfeasibleError
        ``k`` above the number of records.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["f", "f", "m", "m", "m"], "zip": ["1", "1", "2", "2", "3"]})
    >>> rel = local_suppression(df, {"sex": "quasi", "zip": "quasi"}, k=2)
    >>> rel.data["zip"].tolist(), rel.metadata["suppressed_cells"]
    (['1', '1', '2', '2', None], {'zip': [4]})
    """
    data = pandas_if_arrow(data, "data")
    check_flag(wildcard, "wildcard")
    check_k(k)
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    check_frame(data, schema.columns)
    given = schema.select(schema.published)
    if columns is None:
        keys = select_columns(given, None, CATEGORICAL, "local_suppression")
    else:
        keys = select_columns(given, columns, tuple(Kind), "local_suppression")
    imp = _importance(importance, keys)
    # Missing keys are wildcards: validate with a placeholder value, then blank them again;
    # except where the column's policy leaves the row out (drop) or refuses it (error): the
    # validation applies it
    missing = data.loc[:, keys].isna().to_numpy().copy()
    missing[:, [schema[c].missing_policy in ("drop", "error") for c in keys]] = False
    filled = data
    if missing.any():
        filled = data.copy()
        for j, c in enumerate(keys):
            if missing[:, j].all():
                raise InputError(f"key column '{c}' has only missing values")
            if missing[:, j].any():
                filled.loc[missing[:, j], c] = data[c][~missing[:, j]].iloc[0]
    schema, frame = masking_input(filled, schema)
    n = len(frame)
    k = check_k(k, n)
    blank_before = missing[frame.index.to_numpy()]
    codes = np.column_stack([factorize(frame[c])[0] for c in keys]).astype(np.int64)
    codes[blank_before] = -1
    out, rounds = suppress_codes(codes, k, imp, bool(wildcard))
    blank = out < 0
    new = blank & ~blank_before
    published = with_columns(
        frame,
        {
            c: _published_column(frame[c], blank[:, j], schema[c].kind, not wildcard)
            for j, c in enumerate(keys)
            if blank[:, j].any()
        },
    )
    patterns, counts, _ = _distinct(out, np.ones(n))
    achieved = wildcard_frequencies(patterns, patterns, counts) if wildcard else counts
    candidates = wildcard_frequencies(_distinct(codes, np.ones(n))[0], patterns, counts)
    parameters = {"k": k, "columns": keys, "importance": imp, "wildcard": bool(wildcard)}
    covered = bool(schema.quasi) and set(schema.quasi) <= set(keys)
    return masked_release(
        "local_suppression",
        published,
        schema,
        parameters,
        n,
        models=[KAnonymity(k)] if covered and not wildcard else [],
        suppressed_by_column={c: int(new[:, j].sum()) for j, c in enumerate(keys)},
        suppressed_total=int(new.sum()),
        suppressed_cells={
            c: np.flatnonzero(new[:, j]).tolist() for j, c in enumerate(keys) if new[:, j].any()
        },
        missing_before={c: int(blank_before[:, j].sum()) for j, c in enumerate(keys)},
        rounds=rounds,
        achieved_k=int(achieved.min()),
        min_candidates=int(candidates.min()),
    )
