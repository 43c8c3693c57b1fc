"""SID creation of Rating, original and improved.

Rating: Liu, Luo & Huang, ICDM Workshops 2011; the improvement: Yi & Shi, *Privacy Protection Method
for Multiple Sensitive Attributes Based on Strong Rule*, Mathematical Problems in Engineering 2015,
Art. ID 464731.

Rating generalizes every sensitive attribute on its own: the occurrences of its values are grouped
into *SIDs*, sets of ``l`` distinct values, each SID taking one occurrence of each of its values.
Buckets (one per value, holding its occurrences) are kept in a *sequence* sorted by size,
descending and stable (initial ties: order of first appearance); every SID takes one value from
the ``l`` largest buckets. The original Rating re-sorts the whole sequence with a stable bubble
sort after every SID, O(m²) for ``m`` buckets. The improved version (Algorithms 13 and 19):

* a *dangerous* bucket (``size · l >= n``: Definition 18 as we reconstruct it from the proof of
  Lemma 20) must contribute to every SID (Lemma 20, Corollary 21), so those buckets are set apart
  once (SDB) and the others need ``l - |SDB|``;
* after the first ``need`` buckets of the sorted sequence lose one value each, the sequence is out
  of order only when ``size(seq[need]) < size(seq[need + 1])``; then the block of buckets that
  fell from ``s`` to ``s - 1`` moves, in its order, behind the last bucket of size ``s``
  (Lemma 14, Corollaries 16–17). This is the stable re-sort at O(1) to O(m) per SID.

Both produce the same SIDs: a dangerous bucket is always among the ``l`` largest (``l + 1``
buckets of its size or more would hold more than ``n`` values), and the restriction of a stable
sort to the other buckets is the stable sort of the sequence. The residual occurrences (values
left when fewer than ``l`` buckets are non-empty) go one at a time, bucket by bucket in the
initial order, into the first SID of smallest current size that does not hold the value yet
(our choice); an occurrence without such a SID is suppressed (published as ``*``).
"""

from __future__ import annotations

import bisect
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...core.errors import InputError

__all__ = [
    "Sids",
    "assign_sids",
    "check_l",
    "create_sids",
    "dangerous_buckets",
    "heuristic_resort",
]


@dataclass(frozen=True)
class Sids:
    """The SIDs of one sensitive attribute.

    Attributes
    ----------
    n_sids : int
        Number of SIDs (numbered ``0..n_sids-1`` in creation order).
    sid, bucket : int64 arrays
        One entry per member value: the SID and the bucket (value) it holds; sorted by SID, then
        bucket.
    suppressed : int64 array
        Per bucket, the occurrences no SID could take.
    """

    n_sids: int
    sid: np.ndarray
    bucket: np.ndarray
    suppressed: np.ndarray


def _sizes(sizes: Sequence[int] | np.ndarray) -> np.ndarray:
    arr = np.asarray(sizes)
    if arr.ndim != 1 or (len(arr) and (arr.dtype.kind not in "iu" or arr.min() < 0)):
        raise InputError(f"sizes: need a 1-d sequence of non-negative integers, got {sizes!r}")
    return arr.astype(np.int64)


def check_l(l: object, what: str = "l") -> int:  # noqa: E741 - the paper's name
    """Validate ``l``: a whole number ``>= 2`` (``what`` names it in the error)."""
    if (
        isinstance(l, (bool, np.bool_))
        or not isinstance(l, numbers.Real)
        or not np.isfinite(float(l))
        or float(l) != int(l)
        or int(l) < 2
    ):
        raise InputError(f"{what}: needs a whole number >= 2, got {l!r}")
    return int(l)


def dangerous_buckets(sizes: Sequence[int] | np.ndarray, l: int) -> np.ndarray:  # noqa: E741
    """Dangerous buckets (Definition 18): non-empty buckets with ``size · l >= n``.

    Parameters
    ----------
    sizes : sequence of int
        Bucket sizes; ``n`` is their sum.
    l : int

    Returns
    -------
    bool array, one entry per bucket.

    Examples
    --------
    >>> dangerous_buckets([2, 2, 2], 2).tolist(), dangerous_buckets([2, 1, 1], 2).tolist()
    ([False, False, False], [True, False, False])
    """
    arr = _sizes(sizes)
    ell = check_l(l)
    return (arr > 0) & (arr * ell >= arr.sum())


def _resort(seq: list[int], key: list[int], need: int) -> None:
    """Algorithm 13 in place, on ``key = -size`` (ascending when sizes are descending).

    The first ``need`` buckets of a sorted sequence just lost a value (their key went up by 1).
    """
    if need == 0 or need >= len(key) or key[need - 1] <= key[need]:
        return
    k = key[need]  # size s = -k; the block fell from s to s - 1 (key k + 1)
    i0 = need - 1
    while i0 > 0 and key[i0 - 1] == k + 1:
        i0 -= 1
    j = bisect.bisect_right(key, k, need)  # positions need .. j-1 have size s
    seq[i0:j] = seq[need:j] + seq[i0:need]
    key[i0:j] = key[need:j] + key[i0:need]


def heuristic_resort(sizes: Sequence[int] | np.ndarray, need: int) -> np.ndarray:
    """Algorithm 13: restore the order of a sequence whose first ``need`` buckets lost a value.

    Parameters
    ----------
    sizes : sequence of int
        Bucket sizes in sequence order, *after* the first ``need`` were decremented; before, the
        sequence was sorted by size, descending.
    need : int
        Number of decremented buckets at the front.

    Returns
    -------
    int64 array
        The new order (positions into ``sizes``): sizes descending, ties in the previous order —
        the same as a stable sort.

    Examples
    --------
    >>> heuristic_resort([4, 3, 3, 4, 3], 3).tolist()  # [A4, B3, C3, D4, E3] -> A, D, B, C, E
    [0, 3, 1, 2, 4]
    """
    key = (-_sizes(sizes)).tolist()
    if not isinstance(need, numbers.Integral) or not 0 <= need <= len(key):
        raise InputError(f"need: needs a whole number in 0..{len(key)}, got {need!r}")
    seq = list(range(len(key)))
    _resort(seq, key, int(need))
    return np.asarray(seq, dtype=np.int64)


def _bubble_sort(seq: list[int], size: list[int]) -> None:
    """Stable bubble sort by size, descending, in place: every pass over the whole sequence."""
    m = len(size)
    for i in range(m - 1):
        for j in range(m - 1 - i):
            if size[j] < size[j + 1]:
                size[j], size[j + 1] = size[j + 1], size[j]
                seq[j], seq[j + 1] = seq[j + 1], seq[j]


def _improved(order: np.ndarray, sizes: np.ndarray, ell: int) -> np.ndarray:
    """Algorithm 19: the SIDs (member buckets, one row each) of the improved Rating.

    Round by round as the paper does, except that a repeated state is skipped ahead (see
    :func:`_skip`): the same SIDs as round by round, without a Python step per SID.
    """
    n = int(sizes.sum())
    n_sdb = int(np.count_nonzero(sizes[order] * ell >= n))  # a prefix of the sorted order
    sdb = order[:n_sdb]
    seq = order[n_sdb:].tolist()
    key = (-sizes[seq]).tolist()  # -size: the sequence sorted descending is ascending here
    need = ell - n_sdb
    rounds = int(sizes[sdb].min()) if len(sdb) else n
    if need == 0:  # every SID is the SDB
        return np.tile(sdb, (rounds, 1))
    blocks: list[np.ndarray] = []  # the non-SDB members of the SIDs, a block of rows each
    current: list[list[int]] = []  # the rounds since the last block
    seen: dict[tuple, tuple[int, int, int]] = {}  # band state -> (round in current, keys)
    done = 0
    while done < rounds and need <= len(key) and key[need - 1] < 0:
        skipped = _skip(seq, key, need, rounds - done, current, seen)
        if skipped is not None:
            blocks += [np.asarray(current, dtype=np.int64).reshape(-1, need), skipped]
            done += len(skipped)
            current = []
            seen.clear()
            continue
        current.append(seq[:need])
        done += 1
        for i in range(need):
            key[i] += 1
        _resort(seq, key, need)
    blocks.append(np.asarray(current, dtype=np.int64).reshape(-1, need))
    members = np.concatenate(blocks)
    return np.concatenate([np.broadcast_to(sdb, (len(members), n_sdb)), members], axis=1)


#: Most buckets in the band for which :func:`_skip` keeps states: a wider band (a sensitive
#: column of thousands of values of about one count, an income's) rotates too slowly to repeat
#: soon, and each state it kept would cost as much as many rounds.
_BAND_LIMIT = 256
#: Most states :func:`_skip` keeps at once (the oldest are dropped together).
_STATES_KEPT = 4096


def _skip(
    seq: list[int],
    key: list[int],
    need: int,
    left: int,
    current: list[list[int]],
    seen: dict[tuple, tuple[int, int, int]],
) -> np.ndarray | None:
    """Skip ahead when the state repeats: the SIDs of the rounds skipped (their non-SDB
    members), ``key`` updated to after them; None when nothing is skipped (the state is
    recorded in ``seen``).

    The *band* is the first ``B`` buckets of the sorted sequence, those of size at least the
    smallest taken size ``s`` minus one; the others are at least two smaller. Its *top* is
    those larger than ``s`` (all taken), the *rest* the others. When the top and the rest hold
    the same buckets in the same order, each with the same differences of size, as ``p``
    rounds ago (those rounds are ``current[-p:]``), every top bucket lost the same ``δ_top``
    and every other band bucket the same ``δ``; when they lost all the ``need · p`` values
    taken, no bucket outside the band lost any. A round depends only on the order and on the
    comparisons of sizes, so the same ``p`` rounds repeat as long as every comparison between
    the three groups comes out as in those rounds: while every top bucket stays larger than
    every other band bucket, and those larger than every bucket outside (then no group's
    bucket ties with another's, and none is empty). ``k`` more repetitions keep that when the
    smallest top size minus ``k · δ_top`` exceeds the largest other band size of ``p`` rounds
    ago, and the smallest other band size minus ``k · δ`` exceeds the largest size outside;
    within the ``left`` rounds to go.
    """
    band = bisect.bisect_right(key, key[need - 1] + 1)
    if band > _BAND_LIMIT:  # (many buckets of about one size: a state costs more than a round)
        return None
    if len(seen) >= _STATES_KEPT:
        seen.clear()
    top = bisect.bisect_left(key, key[need - 1])  # sizes above the smallest taken
    state = (
        top,
        band,
        tuple(seq[:band]),
        tuple(k - key[0] for k in key[:top]),
        tuple(k - key[top] for k in key[top:band]),
    )
    before = seen.get(state)
    seen[state] = (len(current), key[0], key[top])
    if before is None:
        return None
    p = len(current) - before[0]
    delta_top, delta = key[0] - before[1], key[top] - before[2]
    if need * p != delta_top * top + delta * (band - top) or delta < 1 or (top and delta_top < 1):
        return None  # a bucket outside the band lost values (or a group none)
    largest = -key[top] + delta  # the rest's largest size p rounds ago: at least any since
    smallest = -key[band - 1]
    other = -key[band] if band < len(key) else 0
    times = min((smallest - other - 1) // delta, left // p)
    if top:
        times = min(times, (-key[top - 1] - largest - 1) // delta_top)
    if times < 1:
        return None
    for i in range(top):
        key[i] += times * delta_top
    for i in range(top, band):
        key[i] += times * delta
    return np.tile(np.asarray(current[-p:], dtype=np.int64).reshape(-1, need), (times, 1))


def _original(order: np.ndarray, sizes: np.ndarray, ell: int) -> list[list[int]]:
    """Rating's SID creation: the ``l`` largest buckets, then a stable bubble sort."""
    seq = order.tolist()
    size = sizes[seq].tolist()
    sids: list[list[int]] = []
    while ell <= len(size) and size[ell - 1] > 0:
        sids.append(seq[:ell])
        for i in range(ell):
            size[i] -= 1
        _bubble_sort(seq, size)
    return sids


def _unstable(
    order: np.ndarray, sizes: np.ndarray, ell: int, rng: np.random.Generator
) -> list[list[int]]:
    """The ``l`` largest buckets, then an unstable sort: ties in a fresh random order."""
    size = sizes.copy()
    seq = order[np.lexsort((rng.random(len(order)), -size[order]))]
    sids: list[list[int]] = []
    while ell <= len(seq) and size[seq[ell - 1]] > 0:
        sids.append(seq[:ell].tolist())
        size[seq[:ell]] -= 1
        seq = seq[np.lexsort((rng.random(len(seq)), -size[seq]))]
    return sids


def create_sids(
    sizes: Sequence[int] | np.ndarray,
    l: int,  # noqa: E741 - the paper's name
    *,
    improved: bool = True,
    unstable: np.random.Generator | None = None,
) -> Sids:
    """Create the SIDs of one sensitive attribute from its bucket sizes.

    Parameters
    ----------
    sizes : sequence of int
        Occurrences of each value (bucket), buckets in order of first appearance in the data
        (the tie-break of the initial sort).
    l : int
        Distinct values per SID (``>= 2``).
    improved : bool
        Algorithm 19 with the heuristic re-sort (default), or the original Rating with a stable
        bubble sort after every SID. Both give the same SIDs; the original is the slow baseline.
    unstable : numpy.random.Generator or None
        Instead of either, re-sort with an *unstable* sort after every SID (and at the start):
        buckets of equal size in a fresh random order drawn from this generator — the
        comparison behind Yi & Shi's remark that stability matters. Still the ``l`` largest
        buckets every time, so the number of SIDs is the same; only which of the tied buckets
        give a value changes, and with it where residual occurrences can go.

    Returns
    -------
    Sids
        SIDs in creation order with their member buckets (residual occurrences included) and the
        suppressed occurrences per bucket.

    Examples
    --------
    >>> sids = create_sids([2, 3, 3], 2)  # cold, gastritis, ulcer: 2, 3 and 3 occurrences
    >>> [sids.bucket[sids.sid == s].tolist() for s in range(sids.n_sids)]
    [[1, 2], [1, 2], [0, 1], [0, 2]]
    """
    arr = _sizes(sizes)
    ell = check_l(l)
    order = np.argsort(-arr, kind="stable")
    order = order[arr[order] > 0]
    if unstable is not None:
        sids = _unstable(order, arr, ell, unstable)
    else:
        sids = (_improved if improved else _original)(order, arr, ell)
    n_sids = len(sids)
    sid = np.repeat(np.arange(n_sids, dtype=np.int64), ell)
    bucket = np.asarray(sids, dtype=np.int64).reshape(-1)
    left = arr - np.bincount(bucket, minlength=len(arr))
    extra_sid, extra_bucket, suppressed = _residual(sid, bucket, left, order, n_sids, ell)
    sid = np.concatenate([sid, extra_sid])
    bucket = np.concatenate([bucket, extra_bucket])
    key = np.lexsort((bucket, sid))
    return Sids(n_sids, sid[key], bucket[key], suppressed)


def _residual(
    sid: np.ndarray,
    bucket: np.ndarray,
    left: np.ndarray,
    order: np.ndarray,
    n_sids: int,
    ell: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Place residual occurrences; returns the added (sid, bucket) pairs and the suppressed."""
    size = np.full(n_sids, ell, dtype=np.int64)
    suppressed = np.zeros(len(left), dtype=np.int64)
    added_sid: list[np.ndarray] = []
    added_bucket: list[np.ndarray] = []
    for b in order[left[order] > 0].tolist():
        holds = np.zeros(n_sids, dtype=bool)
        holds[sid[bucket == b]] = True
        free = np.flatnonzero(~holds)
        chosen = free[np.argsort(size[free], kind="stable")[: left[b]]]
        size[chosen] += 1
        suppressed[b] = left[b] - len(chosen)
        added_sid.append(chosen)
        added_bucket.append(np.full(len(chosen), b, dtype=np.int64))
    if not added_sid:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, suppressed
    return np.concatenate(added_sid), np.concatenate(added_bucket), suppressed


def assign_sids(values: np.ndarray, sids: Sids, rng: np.random.Generator) -> np.ndarray:
    """The SID that absorbs each occurrence (``-1``: suppressed).

    Occurrences of one value are interchangeable: they go to the SIDs holding the value in
    creation order, taking the occurrences in a random order, so that which record of a value
    lands in which of its SIDs — and which records are suppressed — carries no information.

    Parameters
    ----------
    values : int array
        Bucket of every occurrence (record), as numbered for :func:`create_sids`.
    sids : Sids
    rng : numpy.random.Generator

    Returns
    -------
    int64 array, the SID of every occurrence.
    """
    values = np.asarray(values, dtype=np.int64)
    n_buckets = len(sids.suppressed)
    by_value = np.lexsort((sids.sid, sids.bucket))
    member_sid = sids.sid[by_value]
    members = np.bincount(sids.bucket, minlength=n_buckets)
    member_start = np.concatenate([[0], np.cumsum(members)[:-1]])
    shuffled = rng.permutation(len(values))
    occurrence = shuffled[np.argsort(values[shuffled], kind="stable")]
    counts = np.bincount(values, minlength=n_buckets)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    sorted_values = values[occurrence]
    rank = np.arange(len(values)) - start[sorted_values]
    out = np.full(len(values), -1, dtype=np.int64)
    ok = rank < members[sorted_values]
    out[occurrence[ok]] = member_sid[member_start[sorted_values[ok]] + rank[ok]]
    return out
