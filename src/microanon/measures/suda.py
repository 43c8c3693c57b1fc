"""SUDA: minimal sample uniques and the special-uniques risk scores, as sdcMicro's ``suda2``.

A set ``S`` of key attributes is a *minimal sample unique* (MSU) of a record when no other
record of the sample shares the record's values on ``S`` and no proper subset of ``S`` has that
property (Elliot, Manning & Ford 2002). A record with a small MSU, or with many MSUs, is
*special*: it stands out on few of its attributes, so it is more likely to be unique in the
population too. SUDA (Special Uniques Detection Algorithm) scores each record from the sizes of
its MSUs; SUDA2 (Manning, Haglin & Keane 2008) finds the MSUs faster by a recursive search over
subsets of the data. DIS-SUDA (Elliot, Skinner & Dale) turns the scores into estimated
probabilities that a match on the keys is correct.

- :func:`suda2` — scores, DIS-SUDA scores and attribute contributions (:class:`Suda`).
- :func:`minimal_uniques` — the MSUs themselves, one row per record and MSU.

The search works on the distinct key combinations. The subsets of the keys are split into chains
of nested subsets (a symmetric chain decomposition: 70 chains for 8 keys); one sort of the
combinations per chain gives the groups of every subset in it as runs of sorted rows, so the
uniqueness of every record on every subset costs one sort per chain and a pass per subset.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.frames import pandas_if_arrow
from .keys import check_fraction, key_codes, pack

__all__ = ["AUTO", "AUTO_WORK", "Suda", "auto_size", "minimal_uniques", "suda2"]

_MISSING_MODES = {
    "ignore": "a missing value matches no other record and is never part of an MSU (suda2)"
}


@dataclass(frozen=True, eq=False)
class Suda:
    """SUDA scores of every record (see :func:`suda2`).

    Attributes
    ----------
    score : pandas.Series
        SUDA score per record (0 for a record without MSU), indexed like the input.
    dis_score : pandas.Series
        DIS-SUDA score per record, in [0, 1].
    msu_counts : pandas.DataFrame
        Number of MSUs of each size (columns ``1..max_size``) per record.
    contributions : pandas.DataFrame
        Per record and key: the share of the record's score coming from the MSUs that contain
        the key (sdcMicro's ``contributionPercent``, a fraction; rows sum to at least 1 when the
        score is positive, since an MSU counts for each of its keys; 0 when the score is 0).
    attribute_contributions : pandas.Series
        Per key, in percent: ``100 · Σ_r contribution(r, key) · score(r) / Σ_r score(r)``
        (sdcMicro's ``attribute_contributions``).
    level_contributions : pandas.DataFrame
        Per key and value (columns ``variable``, ``value``, ``contribution``), in percent: the
        share of the key's total contribution coming from records with that value
        (sdcMicro's ``attribute_level_contributions``).
    max_size : int
        Largest MSU size searched.
    dis_fraction : float
        The sampling fraction used for DIS-SUDA.
    """

    score: pd.Series
    dis_score: pd.Series
    msu_counts: pd.DataFrame
    contributions: pd.DataFrame
    attribute_contributions: pd.Series
    level_contributions: pd.DataFrame
    max_size: int
    dis_fraction: float


#: ``max_size`` for every key when the search stays within :data:`AUTO_WORK`, else the largest
#: size that does (:func:`auto_size`).
AUTO = "auto"
#: The default search's work: key subsets times distinct key combinations, each subset a pass
#: over the combinations (10^8 took about 4 s on a 2-core VM, on 22 keys of a real survey file).
AUTO_WORK = 10**8


def _check_max_size(max_size: Any, n_keys: int) -> int:
    if max_size is None or max_size == AUTO:
        return n_keys
    if isinstance(max_size, (bool, np.bool_)) or not isinstance(max_size, (int, np.integer)):
        raise InputError(
            f"'max_size' must be a positive integer, {AUTO!r} or None, got {max_size!r}"
        )
    if not 1 <= max_size <= n_keys:
        raise InputError(f"'max_size' must be between 1 and the {n_keys} key(s), got {max_size}")
    return int(max_size)


_MAX_BYTES = 1 << 30  # uniqueness flags kept during the search: one bit per record and subset
_MAX_SUBSETS = 1 << 22  # key subsets searched


def _fits(n_keys: int, max_size: int, n_uniques: int, n_distinct: int | None = None) -> bool:
    """Whether the search up to ``max_size`` of ``n_keys`` keys stays within its limits (at
    most :data:`_MAX_SUBSETS` key subsets, one bit per subset and unique within
    :data:`_MAX_BYTES`), and with ``n_distinct`` combinations within :data:`AUTO_WORK`."""
    n_subsets = sum(math.comb(n_keys, k) for k in range(max_size + 1))
    if n_distinct is not None and n_subsets * n_distinct > AUTO_WORK:
        return False
    return n_subsets <= _MAX_SUBSETS and n_subsets * (n_uniques // 8 + 1) <= _MAX_BYTES


def auto_size(n_keys: int, n_uniques: int, n_distinct: int | None = None) -> int:
    """The largest MSU size the search takes on for ``n_keys`` keys and ``n_uniques``
    sample-unique combinations, within :data:`AUTO_WORK` as well when the number of distinct
    combinations ``n_distinct`` is given; 0 when not even single keys fit."""
    size = 0
    while size < n_keys and _fits(n_keys, size + 1, n_uniques, n_distinct):
        size += 1
    return size


def _chains(n_keys: int, max_size: int) -> list[tuple[list[int], list[int]]]:
    """A symmetric chain decomposition of the key subsets of size at most ``max_size``.

    Each chain is ``(bottom, added)``: the subsets ``bottom``, ``bottom + added[:1]``,
    ``bottom + added[:2]``, ... Every subset is in exactly one chain (de Bruijn, van Ebbenhorst
    Tengbergen & Kruyswijk 1951): read a subset as a word of brackets, key ``i`` in the subset a
    closing one, else an opening one; the chain's bottom has every closing bracket matched, and
    its unmatched opening brackets are closed one at a time, left to right.
    """
    chains = []
    for size in range(max_size + 1):
        for bottom in itertools.combinations(range(n_keys), size):
            members = set(bottom)
            opened: list[int] = []
            balanced = True
            for i in range(n_keys):
                if i not in members:
                    opened.append(i)
                elif opened:
                    opened.pop()
                else:
                    balanced = False
                    break
            if balanced:
                chains.append((list(bottom), opened[: max_size - size]))
    return chains


def _msu_search(
    combos: np.ndarray, counts: np.ndarray, sizes: Sequence[int], max_size: int
) -> tuple[np.ndarray, list[tuple[tuple[int, ...], np.ndarray]]]:
    """Every MSU of size at most ``max_size`` of the sample-unique combinations.

    For every chain of :func:`_chains`, the distinct combinations are sorted once on the chain's
    keys in chain order; the groups of every subset in the chain are then runs of the sorted
    rows. A subset is an MSU of a record when the record's values there occur once, it has no
    missing value there, and they occur more than once on each subset one smaller.

    Parameters
    ----------
    combos : (n_distinct, n_keys) int64 array
        Distinct key combinations, codes ``0..size-1`` and ``-1`` for a missing value (which
        matches no other record and is never part of an MSU).
    counts : (n_distinct,) int64 array
        Records per combination.

    Returns
    -------
    uniques : int64 array
        The combinations that occur once (only they can have MSUs).
    found : list of (subset, positions)
        For every key subset (a tuple of key positions, by size, then in lexicographic order)
        with MSUs, the positions in ``uniques`` of the combinations it is an MSU of.
    """
    n_distinct, p = combos.shape
    uniques = np.flatnonzero(counts == 1)
    if not len(uniques):
        return uniques, []
    if not _fits(p, max_size, len(uniques)):
        n_subsets = sum(math.comb(p, k) for k in range(max_size + 1))
        raise InputError(
            f"SUDA over {p} keys up to size {max_size} would search {n_subsets:,} key subsets for "
            f"{len(uniques):,} sample-unique records, past what this function searches; the "
            f"largest size it searches here is {auto_size(p, len(uniques))} ('max_size', "
            "--suda-max-size on the command line)"
        )
    columns = [np.ascontiguousarray(combos[:, a]) + 1 for a in range(p)]  # missing: a value
    radix = [s + 1 for s in sizes]
    # unique[S]: bit-packed flags over `uniques`, set where the record's S-values occur once.
    # A unique combination occurs once, so it is alone on S exactly when it is a run of one row
    # in the rows sorted on S: a run starts at it and at the next row.
    unique: dict[tuple[int, ...], np.ndarray] = {}
    for bottom, added in _chains(p, max_size):
        order_keys = bottom + added
        if math.prod(radix[a] for a in order_keys) < 1 << 62:
            packed = np.zeros(n_distinct, dtype=np.int64)
            for a in order_keys:
                packed = packed * radix[a] + columns[a]
            order = np.argsort(packed)
        else:
            order = np.lexsort([columns[a] for a in reversed(order_keys)])
        where = np.empty(n_distinct, dtype=np.int64)
        where[order] = np.arange(n_distinct)
        at = where[uniques]
        starts = np.zeros(n_distinct + 1, dtype=bool)
        starts[[0, -1]] = True
        for depth, a in enumerate(order_keys):
            column = columns[a][order]
            starts[1:-1] |= column[1:] != column[:-1]
            if depth + 1 >= len(bottom):
                alone = (starts[:-1] & starts[1:])[at]
                unique[tuple(sorted(order_keys[: depth + 1]))] = np.packbits(alone)
        if not bottom:  # the empty set is no MSU, even of a one-record table
            unique[()] = np.packbits(np.zeros(len(uniques), dtype=bool))
    present = [np.packbits(combos[uniques, a] >= 0) for a in range(p)]
    found: list[tuple[tuple[int, ...], np.ndarray]] = []
    for size in range(1, max_size + 1):
        for subset in itertools.combinations(range(p), size):
            msu = unique[subset]
            for d, a in enumerate(subset):
                msu = msu & present[a] & ~unique[subset[:d] + subset[d + 1 :]]
            if msu.any():
                found.append((subset, np.flatnonzero(np.unpackbits(msu, count=len(uniques)))))
    return uniques, found


def _score_weights(n_keys: int, original_scores: bool) -> np.ndarray:
    """Score of one MSU of size ``k = 1..n_keys`` (index ``k - 1``), as sdcMicro's suda2.

    ``original_scores=True``: ``(n_keys - k)!`` (Elliot et al.'s product ``Π_{i=k}^{M} (ATT - i)``
    with ``M = ATT - 1``); else ``(2^(n_keys-k) - 1) · k! (n_keys-k)! / n_keys!``.
    """
    if original_scores:
        return np.array([float(math.factorial(n_keys - k)) for k in range(1, n_keys + 1)])
    return np.array(
        [
            float(
                Fraction(
                    (2 ** (n_keys - k) - 1) * math.factorial(k) * math.factorial(n_keys - k),
                    math.factorial(n_keys),
                )
            )
            for k in range(1, n_keys + 1)
        ]
    )


def _sdcmicro_unique_count(data: pd.DataFrame, keys: Sequence[str]) -> int:
    """Records that sdcMicro's suda2 counts as unique for the DIS fraction.

    suda2 puts the records in a 16-bit hash table of their key values (integers: R's numbers
    truncated, missing = -999; text as factor codes) and counts the records alone in their hash
    bucket. In exact arithmetic the count cancels out of DIS-SUDA; it is followed here because
    sdcMicro works in single precision, where it changes the last digits.
    """
    h = np.zeros(len(data), dtype=np.int64)
    for c in keys:
        col = data[c]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            v = np.trunc(col.to_numpy(dtype=float, na_value=np.nan))
            v = np.where(np.isnan(v), -999.0, v).astype(np.int64)
        else:
            codes, _ = pd.factorize(col, sort=True, use_na_sentinel=True)
            v = np.where(codes < 0, -999, codes + 1).astype(np.int64)
        h = ((((h << 1) & 0xFFFF) | (h >> 15)) + v) & 0xFFFF
    per_bucket = np.bincount(h, minlength=1 << 16)
    return int(np.count_nonzero(per_bucket[h] == 1))


def _dis_scores(
    score: np.ndarray, n_keys: int, uniques: int, pairs: int, dis_fraction: float
) -> np.ndarray:
    """DIS-SUDA scores, in sdcMicro's arithmetic (single precision where it uses it)."""
    f32 = np.float32
    f = f32(dis_fraction)
    u = f32(uniques)
    if uniques:
        dis = f32(u * f) / f32(u * f + f32(pairs) * (f32(1) - f))
        spread = float(f32(f32(u / dis) - u))
    else:  # sdcMicro divides 0 by 0 here; the limit is the count-free expression
        spread = float(f32(pairs) * (f32(1) - f) / f)
    q = float(f32(1) + (f32(8) - f32(n_keys)) / f32(20))
    scored = score != 0
    powered = np.where(scored, score, 1.0) ** q
    adj = float(np.add.accumulate(np.where(scored, 1.0 / powered, 0.0))[-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scored, 1.0 / (1.0 + spread / (powered * adj)), 0.0)


def _prepare(
    data: Any, keys: Any, max_size: Any, missing: Any
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, list[int], int]:
    cols, codes, sizes = key_codes(data, keys, missing, _MISSING_MODES)
    max_size = _check_max_size(max_size, len(cols))
    row_combo = pack(codes, sizes)
    first = np.unique(row_combo, return_index=True)[1]
    combos = codes[first]
    counts = np.bincount(row_combo, minlength=len(first)).astype(np.int64)
    return cols, combos, counts, row_combo, sizes, max_size


def suda2(
    data: pd.DataFrame,
    keys: Sequence[str],
    *,
    max_size: int | None = None,
    dis_fraction: float = 0.01,
    original_scores: bool = True,
    missing: str = "error",
) -> Suda:
    """SUDA scores, DIS-SUDA scores and attribute contributions of every record.

    The minimal sample uniques (MSUs, see the module docstring) of every record are found up to
    ``max_size`` keys. A record's SUDA score adds, over its MSUs, a weight that falls with the
    MSU's size ``k`` among ``m`` keys: ``(m - k)!`` (Elliot, Manning & Ford 2002, with the
    largest MSU size ``m - 1``; ``original_scores=False``: sdcMicro's alternative
    ``(2^(m-k) - 1) · k! (m-k)! / m!``). Records sharing all their key values with another
    record have no MSU and score 0.

    DIS-SUDA (Elliot, Skinner & Dale) spreads the estimated probability that a sample unique is a
    population unique over the scored records: with ``U`` the sample uniques, ``D`` the records
    in key combinations that occur exactly twice, ``f = dis_fraction`` the sampling fraction and
    ``DIS = U f / (U f + D (1 - f))``, a record with score ``s > 0`` gets
    ``1 / (1 + (U / DIS - U) / (s^q · Σ_r s_r^-q))`` with ``q = 1 + (8 - m) / 20``, as sdcMicro
    computes it (in single precision where sdcMicro uses it).

    Agrees with sdcMicro's ``suda2(data, variables = keys, missing = -999, DisFraction = f)``
    (version 5.8.1) for three or more keys given as whole numbers: scores and contributions
    exactly, DIS-SUDA scores to rounding (see ``docs/measures.md``). sdcMicro truncates numeric
    key values to integers and pads one or two keys with constant dummy keys; here values are
    compared as they are and the scores use the real number of keys.

    Parameters
    ----------
    data : pandas.DataFrame
    keys : sequence of str
        The key (quasi-identifier) columns.
    max_size : int, ``"auto"`` or None
        Largest MSU size searched; default all keys (as sdcMicro). ``"auto"``: all keys when
        the search stays within :data:`AUTO_WORK` (key subsets times distinct combinations),
        else the largest size that does (:func:`auto_size`), which the result's ``max_size``
        says. The weights still use ``m = len(keys)``.
    dis_fraction : float
        Sampling fraction for DIS-SUDA, in (0, 1); sdcMicro's ``DisFraction`` (default 0.01).
    original_scores : bool
        Elliot's weights (default, sdcMicro's default) or sdcMicro's alternative.
    missing : {"error", "ignore"}
        ``"error"``: a missing key value raises :class:`InputError`. ``"ignore"``: as sdcMicro's
        ``suda2`` (``NA`` set to ``missing = -999``), a missing value matches no other record
        and is never part of an MSU.

    Returns
    -------
    Suda

    Raises
    ------
    InputError
        Bad table or keys, missing key values with ``missing="error"``, ``max_size`` outside
        ``1..len(keys)``, ``dis_fraction`` outside (0, 1).

    References
    ----------
    Elliot, M. J., Manning, A. M. & Ford, R. W. (2002). A computational algorithm for handling
    the special uniques problem. *International Journal of Uncertainty, Fuzziness and
    Knowledge-Based Systems* 10(5), 493–509.

    Manning, A. M., Haglin, D. J. & Keane, J. A. (2008). A recursive search algorithm for
    statistical disclosure assessment. *Data Mining and Knowledge Discovery* 16(2), 165–196.

    Elliot, M. J., Skinner, C. J. & Dale, A. (1998). Special uniques, random uniques and sticky
    populations: some counterintuitive effects of geographical detail on disclosure risk.
    *Research in Official Statistics* 1(2), 53–67 (the DIS measure behind DIS-SUDA).
    """
    data = pandas_if_arrow(data, "data")
    if not isinstance(original_scores, (bool, np.bool_)):
        raise InputError(f"'original_scores' must be True or False, got {original_scores!r}")
    fraction = check_fraction(dis_fraction, "dis_fraction")
    auto = isinstance(max_size, str) and max_size == AUTO
    cols, combos, counts, row_combo, sizes, max_size = _prepare(data, keys, max_size, missing)
    n_keys = len(cols)
    if auto:
        max_size = max(1, min(max_size, auto_size(n_keys, int((counts == 1).sum()), len(counts))))
    weights = _score_weights(n_keys, bool(original_scores))
    uniques, found = _msu_search(combos, counts, sizes, max_size)

    msu_counts = np.zeros((len(uniques), max_size), dtype=np.int64)
    raw = np.zeros((len(uniques), n_keys))
    for subset, pos in found:
        msu_counts[pos, len(subset) - 1] += 1
        for a in subset:
            raw[pos, a] += weights[len(subset) - 1]
    u_score = msu_counts @ weights[:max_size]
    with np.errstate(divide="ignore", invalid="ignore"):
        u_contrib = np.where(u_score[:, None] > 0, raw / u_score[:, None], 0.0)

    at = np.full(len(counts), -1, dtype=np.int64)
    at[uniques] = np.arange(len(uniques))
    rec = at[row_combo]
    has = rec >= 0
    n = len(row_combo)
    score = np.zeros(n)
    score[has] = u_score[rec[has]]
    contrib = np.zeros((n, n_keys))
    contrib[has] = u_contrib[rec[has]]
    counts_rec = np.zeros((n, max_size), dtype=np.int64)
    counts_rec[has] = msu_counts[rec[has]]

    pairs = 2 * int(np.count_nonzero(counts == 2))
    dis = _dis_scores(score, n_keys, _sdcmicro_unique_count(data, cols), pairs, fraction)

    weighted = contrib * score[:, None]
    total = score.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        attr = 100.0 * weighted.sum(axis=0) / total
    levels = []
    for j, c in enumerate(cols):
        by_value = pd.Series(weighted[:, j]).groupby(data[c].to_numpy(), sort=True).sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            share = 100.0 * by_value.to_numpy() / weighted[:, j].sum()
        levels.append(pd.DataFrame({"variable": c, "value": by_value.index, "contribution": share}))
    index = data.index
    return Suda(
        score=pd.Series(score, index=index, name="suda_score"),
        dis_score=pd.Series(dis, index=index, name="dis_suda_score"),
        msu_counts=pd.DataFrame(counts_rec, index=index, columns=range(1, max_size + 1)),
        contributions=pd.DataFrame(contrib, index=index, columns=cols),
        attribute_contributions=pd.Series(attr, index=cols, name="contribution"),
        level_contributions=pd.concat(levels, ignore_index=True),
        max_size=max_size,
        dis_fraction=fraction,
    )


def minimal_uniques(
    data: pd.DataFrame,
    keys: Sequence[str],
    *,
    max_size: int | None = None,
    missing: str = "error",
) -> pd.DataFrame:
    """The minimal sample uniques (MSUs) of every record, one row per record and MSU.

    Parameters
    ----------
    data : pandas.DataFrame
    keys : sequence of str
    max_size : int, optional
        Largest MSU size searched (default: all keys).
    missing : {"error", "ignore"}
        As in :func:`suda2`.

    Returns
    -------
    pandas.DataFrame
        Columns ``row`` (the record's index label), ``size`` and ``keys`` (a tuple of key
        names, in the order of ``keys``), ordered by record position, then size, then keys.

    Raises
    ------
    InputError
        As :func:`suda2`.
    """
    data = pandas_if_arrow(data, "data")
    cols, combos, counts, row_combo, sizes, max_size = _prepare(data, keys, max_size, missing)
    uniques, found = _msu_search(combos, counts, sizes, max_size)
    at = np.full(len(counts), -1, dtype=np.int64)
    at[uniques] = np.arange(len(uniques))
    row_of_unique = np.empty(len(uniques), dtype=np.int64)
    has = at[row_combo] >= 0
    row_of_unique[at[row_combo][has]] = np.flatnonzero(has)
    parts = [
        pd.DataFrame(
            {
                "pos": row_of_unique[pos],
                "size": len(subset),
                "order": rank,
                "keys": [tuple(cols[a] for a in subset)] * len(pos),
            }
        )
        for rank, (subset, pos) in enumerate(found)
    ]
    if not parts:
        return pd.DataFrame({"row": data.index[:0], "size": [], "keys": []}).astype({"size": int})
    out = pd.concat(parts, ignore_index=True).sort_values(["pos", "size", "order"], kind="stable")
    return pd.DataFrame(
        {
            "row": data.index[out["pos"].to_numpy()],
            "size": out["size"].to_numpy(),
            "keys": out["keys"].to_numpy(),
        }
    )
