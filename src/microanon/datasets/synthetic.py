"""Synthetic tables for the distribution-based anonymization experiments.

The synthetic data of the experiments of Koudas, Srivastava, Yu & Zhang, *Distribution-based
Microdata Anonymization*, PVLDB 2(1):958–969, 2009 (Figs. 5–13); parameters the paper does not give
(the normal distribution's spread, the correlation) are ours.

One quasi-identifier ``age`` and one integer sensitive attribute ``value`` on an ordered domain
``low..high``: uniform, normal or Zipf, independent of age or positively correlated with it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.random import RandomLike, make_rng

__all__ = ["SYNTHETIC_DISTRIBUTIONS", "synthetic_numeric", "zipf_probabilities"]

SYNTHETIC_DISTRIBUTIONS: tuple[str, ...] = ("uniform", "normal", "zipf")
"""Accepted values of ``synthetic_numeric(distribution=...)``."""


def _is_int(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _positive_real(x: Any, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(float(x)):
        raise InputError(f"synthetic_numeric: {what} must be a finite number, got {x!r}")
    if float(x) <= 0:
        raise InputError(f"synthetic_numeric: {what} must be positive, got {x!r}")
    return float(x)


def zipf_probabilities(n_values: int, s: float) -> np.ndarray:
    """Zipf probabilities over ranks ``1..n_values``: ``P(k) = k**-s / sum(i**-s)``.

    Parameters
    ----------
    n_values : int
        Domain size (at least 1).
    s : float
        Exponent, positive.

    Returns
    -------
    numpy.ndarray
        ``n_values`` probabilities summing to 1, decreasing in rank.
    """
    if not _is_int(n_values) or n_values < 1:
        raise InputError(f"zipf_probabilities: n_values must be an integer >= 1, got {n_values!r}")
    s = _positive_real(s, "s")
    w = np.arange(1, int(n_values) + 1, dtype=float) ** -s
    return w / w.sum()


def synthetic_numeric(
    n: int = 10_000,
    distribution: str = "uniform",
    low: int = 1024,
    high: int = 3072,
    correlated: bool = False,
    s: float = 0.1,
    sd: float | None = None,
    age_range: Sequence[int] = (17, 79),
    rng: RandomLike = None,
) -> pd.DataFrame:
    """Generate ``n`` records ``(age, value)`` as in the synthetic experiments of Koudas et al.

    Parameters
    ----------
    n : int
        Number of records, at least 1.
    distribution : {"uniform", "normal", "zipf"}
        Marginal distribution family of ``value`` on the integer domain ``low..high`` (inclusive,
        ``N = high - low + 1`` values; the default 1024..3072 has 2,049):

        * ``uniform``: every value equally likely.
        * ``normal``: Normal(centre, ``sd``) rounded to the nearest integer and clipped to the
          domain; centre ``(low + high) / 2``.
        * ``zipf``: ``P(low + k - 1) ∝ k**-s`` for rank ``k = 1..N``: rank 1 is the smallest
          value (:func:`zipf_probabilities`).
    low, high : int
        Domain bounds, ``low < high``.
    correlated : bool
        Make ``age`` and ``value`` positively correlated (see Notes). Otherwise they are
        independent.
    s : float
        Zipf exponent (> 0); used by ``zipf`` only.
    sd : float, optional
        Noise standard deviation on the value scale (> 0). Defaults: ``(high - low) / 6`` for the
        independent normal (so ±3 sd spans the domain); ``(high - low) / 12`` whenever
        ``correlated`` is true.
    age_range : (int, int)
        Inclusive age bounds ``(a0, a1)`` with ``a0 < a1``.
    rng : numpy.random.Generator, int or None
        Randomness (see :func:`microanon.core.random.make_rng`).

    Returns
    -------
    pandas.DataFrame
        Columns ``age`` and ``value`` (``int64``), ``RangeIndex``.

    Raises
    ------
    InputError
        Naming the parameter that is out of range or of the wrong type.

    Notes
    -----
    Without correlation ``age`` is uniform on ``a0..a1``. With ``correlated=True``:

    * ``normal``: ``age`` is uniform and ``value ~ Normal(v(age), sd)``, rounded and clipped,
      where ``v(age) = low + (age - a0) / (a1 - a0) * (high - low)`` maps the age range linearly
      onto the domain. With the default ``sd = (high - low) / 12`` an age group's values span
      about a third of the domain, and about 3% of the records are clipped to each end.
    * ``uniform`` and ``zipf``: ``value`` is drawn from its marginal first; then ``age`` is the
      value's relative position ``(value - low) / (high - low)`` mapped linearly onto the age
      range, plus Normal noise with the same relative standard deviation
      (``sd / (high - low) * (a1 - a0)``, by default ``(a1 - a0) / 12``), rounded and clipped to
      the age range. The value's marginal is exactly the requested one; the age marginal is
      close to (not exactly) the value's shape, with extra mass at ``a0`` and ``a1``.

    Examples
    --------
    >>> df = synthetic_numeric(1000, "normal", correlated=True, rng=0)
    >>> list(df.columns), len(df)
    (['age', 'value'], 1000)
    """
    if not _is_int(n) or n < 1:
        raise InputError(f"synthetic_numeric: n must be an integer >= 1, got {n!r}")
    if not isinstance(distribution, str) or distribution not in SYNTHETIC_DISTRIBUTIONS:
        raise InputError(
            "synthetic_numeric: distribution must be one of "
            f"{', '.join(repr(d) for d in SYNTHETIC_DISTRIBUTIONS)}, got {distribution!r}"
        )
    for what, x in (("low", low), ("high", high)):
        if not _is_int(x):
            raise InputError(f"synthetic_numeric: {what} must be an integer, got {x!r}")
    low, high = int(low), int(high)
    if low >= high:
        raise InputError(f"synthetic_numeric: low must be smaller than high, got {low}..{high}")
    if not isinstance(correlated, (bool, np.bool_)):
        raise InputError(f"synthetic_numeric: correlated must be True or False, got {correlated!r}")
    s = _positive_real(s, "s")
    if sd is not None:
        sd = _positive_real(sd, "sd")
    if (
        isinstance(age_range, (str, bytes))
        or not isinstance(age_range, Sequence)
        or len(age_range) != 2
        or not all(_is_int(a) for a in age_range)
    ):
        raise InputError(
            f"synthetic_numeric: age_range must be two integers (a0, a1), got {age_range!r}"
        )
    a0, a1 = int(age_range[0]), int(age_range[1])
    if a0 >= a1:
        raise InputError(f"synthetic_numeric: age_range must have a0 < a1, got ({a0}, {a1})")

    gen = make_rng(rng)
    width = high - low
    if distribution == "normal":
        scale = sd if sd is not None else width / (12 if correlated else 6)
        age = gen.integers(a0, a1 + 1, size=n)
        if correlated:
            centre = low + (age - a0) / (a1 - a0) * width
        else:
            centre = np.full(n, (low + high) / 2)
        value = np.clip(np.rint(gen.normal(centre, scale)), low, high).astype(np.int64)
    else:
        if distribution == "uniform":
            value = gen.integers(low, high + 1, size=n)
        else:
            cdf = np.cumsum(zipf_probabilities(width + 1, s))
            rank0 = np.searchsorted(cdf, gen.random(n) * cdf[-1], side="right")
            value = low + np.minimum(rank0, width)
        if correlated:
            rel_sd = (sd / width) if sd is not None else 1 / 12
            pos = (value - low) / width
            raw_age = a0 + pos * (a1 - a0) + gen.normal(0.0, rel_sd * (a1 - a0), size=n)
            age = np.clip(np.rint(raw_age), a0, a1)
        else:
            age = gen.integers(a0, a1 + 1, size=n)
    return pd.DataFrame(
        {"age": np.asarray(age, dtype=np.int64), "value": np.asarray(value, dtype=np.int64)}
    )
