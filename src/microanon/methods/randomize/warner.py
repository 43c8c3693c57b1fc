"""Warner's randomized response for one binary trait.

Warner, *Randomized Response: A Survey Technique for Eliminating Evasive Answer Bias*, Journal
of the American Statistical Association 60(309):63–69, 1965.

Each respondent answers the question "do you belong to A?" with probability ``p`` and "do you
belong to not-A?" otherwise, so the published "yes" is the truth with probability ``p``. With the
domain ``[False, True]`` this is the 2 × 2 distortion matrix ``[[p, 1 − p], [1 − p, p]]`` (the
uniform-retention matrix ``uniform_retention(2, p)`` for ``p ≥ ½``), and the estimator is the
reconstruction of :mod:`.reconstruct`:

``π̂ = (λ̂ − (1 − p)) / (2p − 1)``,
``Var(π̂) = λ(1 − λ) / (n (2p − 1)²) = π(1 − π)/n + p(1 − p)/(n (2p − 1)²)``

(evaluated at the estimates), defined for ``p ≠ ½``. ``p < ½`` is a valid (mirrored) design.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ...core.errors import InputError
from ...core.random import RandomLike, make_rng
from .reconstruct import Reconstruction
from .sampling import randomize_codes

__all__ = ["warner", "warner_estimate", "warner_matrix"]


def _check_p(p: Any) -> float:
    if (
        isinstance(p, (bool, np.bool_))
        or not isinstance(p, numbers.Real)
        or not math.isfinite(float(p))
        or not 0.0 <= float(p) <= 1.0
    ):
        raise InputError(f"p: the probability of the direct question must be in [0, 1], got {p!r}")
    if abs(float(p) - 0.5) < 1e-12:
        raise InputError(
            "p: with p = 1/2 the answers are independent of the trait and nothing can be "
            "estimated; choose p away from 1/2"
        )
    return float(p)


def warner_matrix(p: float) -> np.ndarray:
    """Warner's distortion matrix ``[[p, 1 − p], [1 − p, p]]`` over ``[False, True]``.

    Raises
    ------
    InputError
        ``p`` outside ``[0, 1]`` or equal to ½.
    """
    p = _check_p(p)
    return np.array([[p, 1.0 - p], [1.0 - p, p]])


def warner(answers: Any, p: float, rng: RandomLike = None) -> np.ndarray:
    """Randomize binary answers: each is published truthfully with probability ``p``, else negated.

    Parameters
    ----------
    answers : array-like of bool
        Each respondent's true membership of the trait.
    p : float
        Probability of answering the direct question, in ``[0, 1]``, not ½.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    numpy.ndarray of bool
        The published answers (same order).

    Raises
    ------
    InputError
        Answers not a non-empty one-dimensional boolean array; bad ``p``.
    """
    p = _check_p(p)
    a = np.asarray(answers)
    if a.ndim != 1 or a.size == 0 or a.dtype != np.bool_:
        raise InputError("answers: expected a non-empty one-dimensional array of booleans")
    return randomize_codes(a.astype(np.int8), 2, make_rng(rng), keep=p).astype(bool)


def warner_estimate(yes_share: float, p: float, n: int) -> tuple[float, float]:
    """Estimate the share of the trait from the share of published "yes" answers.

    Parameters
    ----------
    yes_share : float
        Observed share ``λ̂`` of "yes" answers, in ``[0, 1]``.
    p : float
        Probability of the direct question (not ½).
    n : int
        Number of respondents.

    Returns
    -------
    (estimate, variance) : tuple of float
        ``π̂ = (λ̂ − (1 − p)) / (2p − 1)`` (unbiased; may fall outside ``[0, 1]``) and the
        estimated variance ``π̂(1 − π̂)/n + p(1 − p)/(n(2p − 1)²)``.

    Examples
    --------
    >>> est, var = warner_estimate(0.38, 0.8, 1000)
    >>> round(est, 6), round(var, 8)
    (0.3, 0.00065444)
    """
    matrix = warner_matrix(p)
    if (
        isinstance(yes_share, (bool, np.bool_))
        or not isinstance(yes_share, numbers.Real)
        or not 0.0 <= float(yes_share) <= 1.0
    ):
        raise InputError(f"yes_share: expected a share in [0, 1], got {yes_share!r}")
    y = float(yes_share)
    rec = Reconstruction.from_observed(
        np.array([1.0 - y, y]), [matrix], n, columns=["trait"], domains=[[False, True]]
    )
    return float(rec.estimate[1]), float(rec.variance()[1])
