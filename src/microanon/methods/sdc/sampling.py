"""Sampling: publish a random subsample of the records.

A non-perturbative method of Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization*, Morgan
& Claypool 2016, Ch. 3.

Simple random sampling without replacement takes ``m = round(f·n)`` records (halves rounded up)
uniformly. Stratified sampling applies the same fraction in every stratum (a distinct
combination of the ``strata`` columns; missing values form their own stratum) and keeps the
total at ``m = round(f·n)``: each stratum gets ``floor(f·n_h)`` records, and the ``m − Σ floor``
records left over go, one each, to the strata with the largest fractional parts ``f·n_h −
floor(f·n_h)`` (ties between equal parts broken at random). So every stratum gets
``floor(f·n_h)`` or ``ceil(f·n_h)`` records (largest-remainder apportionment).

The sample keeps the records' original relative order in memory; their positions in the original
table are not published (they would link the sample back to it), and a saved release writes its
rows sorted by their values (:mod:`microanon.core.record_order`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import ColumnNames, Param, Real
from ...core.errors import InputError
from ...core.frames import pandas_if_arrow
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import Schema, check_frame, refuse_repeated
from ..registry import method
from .common import check_number, combination_codes, masked_release, masking_input

__all__ = ["sample", "sample_rows", "stratum_sizes"]


def _check_fraction(fraction: Any) -> float:
    return check_number(fraction, "fraction", 0, 1, low_open=True)


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def stratum_sizes(counts: Any, fraction: float, rng: RandomLike = None) -> np.ndarray:
    """How many records to draw per stratum (largest-remainder apportionment of ``round(f·n)``).

    Parameters
    ----------
    counts : 1-d int array
        Records per stratum.
    fraction : float
        Sampling fraction in ``(0, 1]``.
    rng : numpy.random.Generator, int or None
        Breaks ties between equal fractional parts.

    Returns
    -------
    numpy.ndarray
        int64 sizes, each ``floor(f·n_h)`` or ``ceil(f·n_h)``, summing to ``round(f·Σ n_h)``.
    """
    f = _check_fraction(fraction)
    n_h = np.asarray(counts, dtype=np.int64)
    exact = f * n_h
    sizes = np.floor(exact).astype(np.int64)
    extra = _round_half_up(f * int(n_h.sum())) - int(sizes.sum())
    if extra > 0:
        rest = exact - sizes
        order = np.lexsort((make_rng(rng).random(len(n_h)), -rest))
        sizes[order[:extra]] += 1
    return sizes


def sample_rows(
    n: int,
    fraction: float,
    strata: np.ndarray | None = None,
    rng: RandomLike = None,
) -> np.ndarray:
    """Positions of a random sample of ``0..n-1``, in increasing order.

    Parameters
    ----------
    n : int
        Number of records.
    fraction : float
        Sampling fraction in ``(0, 1]``.
    strata : int array of length n, optional
        Stratum code ``0..h-1`` of each record; see the module docstring for the sizes.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    numpy.ndarray
        Sorted int64 positions (``round(f·n)`` of them).

    Raises
    ------
    InputError
        ``fraction`` outside ``(0, 1]``; a sample that would be empty; bad stratum codes.
    """
    f = _check_fraction(fraction)
    m = _round_half_up(f * n)
    if m == 0:
        raise InputError(
            f"fraction: a sample of {fraction} of {n} rows would be empty; use a larger fraction"
        )
    gen = make_rng(rng)
    if strata is None:
        rows = gen.choice(n, size=m, replace=False, shuffle=False)
        rows.sort()
        return rows.astype(np.int64, copy=False)
    codes = np.asarray(strata)
    if codes.shape != (n,) or codes.dtype.kind not in "iu" or (codes < 0).any():
        raise InputError(f"strata: expected {n} non-negative integer stratum codes")
    counts = np.bincount(codes)
    sizes = stratum_sizes(counts, f, gen)
    # A random order within each stratum: shuffle, then a stable (radix) sort by stratum.
    perm = gen.permutation(n)
    small = codes.astype(np.uint16) if len(counts) <= 1 << 16 else codes  # radix sort if small
    grouped = perm[np.argsort(small[perm], kind="stable")]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(n) - np.repeat(starts, counts)
    rows = grouped[rank < np.repeat(sizes, counts)]
    rows.sort()
    return rows


@method(
    "sample",
    step="first",
    kind="masked",
    publishes="A random subsample of the records.",
    help="Publishes a random share of the records only, so nobody can be sure a given person is "
    "in the file.",
    params=(
        Param(
            "fraction",
            "Share of the records published, from above 0 to 1 (0.1 = 10 %).",
            (Real(0, 1, closed="right"),),
        ),
        Param(
            "strata",
            "Column(s) whose combinations are sampled each on its own (the same share of each).",
            (ColumnNames(),),
        ),
    ),
    in_memory_because="its strata are sampled with exact sizes over the whole table",
)
def sample(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    fraction: float,
    strata: str | Sequence[str] | None = None,
    rng: RandomLike = None,
) -> Release:
    """Publish a random subsample, simple or stratified.

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
    fraction : float
        Sampling fraction ``f`` in ``(0, 1]``; ``round(f·n)`` records are published (halves
        rounded up).
    strata : str or sequence of str, optional
        Column(s) of ``data`` whose distinct combinations are the strata (they need not be in
        the schema; missing values form a stratum). Every stratum is sampled at the same
        fraction, sizes rounded as described in the module docstring.
    rng : numpy.random.Generator, int or None
        Source of randomness; never recorded.

    Returns
    -------
    Release
        Kind ``"masked"``: the sampled records (validated published columns, unchanged), in
        their original relative order (written sorted by their values). Metadata:
        ``parameters`` (``fraction``, ``strata``), ``rows_in``, ``rows_out``, ``sampled`` (the
        rows drawn, internal) and, when stratified, ``strata_count`` (number of strata).

    Raises
    ------
    InputError
        ``fraction`` outside ``(0, 1]``; an empty sample; a stratum column absent from ``data``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"region": ["a"] * 6 + ["b"] * 4, "x": range(10)})
    >>> rel = sample(df, {"region": "quasi", "x": "insensitive"}, fraction=0.5,
    ...              strata="region", rng=0)
    >>> rel.data["region"].value_counts().sort_index().tolist()
    [3, 2]
    """
    data = pandas_if_arrow(data, "data")
    f = _check_fraction(fraction)
    names = [strata] if isinstance(strata, str) else (None if strata is None else list(strata))
    if names is not None:
        if not names:
            raise InputError("strata: give at least one column name, or None")
        refuse_repeated(names, "strata")
        check_frame(data, names, what="strata")
    schema, frame = masking_input(data, schema)
    codes = None
    extra: dict[str, Any] = {}
    if names is not None:
        groups = combination_codes(data, names)
        codes = groups[frame.index.to_numpy()]  # frame.index: positions of the kept rows
        extra["strata_count"] = int(np.count_nonzero(np.bincount(codes)))
    rows = sample_rows(len(frame), f, codes, rng)
    published = frame.iloc[rows]
    parameters = {"fraction": fraction, "strata": names}
    extra["sampled"] = len(published)  # the rows not drawn are not suppressed ones
    return masked_release("sample", published, schema, parameters, len(frame), **extra)
