"""Eigenvector-based perturbation of collected records, EPR.

After Zhang, Wang & Zhao, *A New Scheme on Privacy-Preserving Data Classification*, KDD 2005, as
Zhang & Zhang (*Generalization-Based Privacy-Preserving Data Collection*, DaWaK 2008) use it as a
baseline. We work from an outline of the scheme, not from its exact steps, which we could not
check; this module implements that outline, with the choices it leaves open fixed as follows.

1. Each respondent's record is one-hot encoded (one bit per value of every column), a vector
   ``t`` of ``D`` zeros and ones.
2. The collector (untrusted) keeps the perturbed vectors received so far. Respondents arrive in
   order; the first ``warmup`` of them get no guidance and submit ``t + ε``, ``ε ~ N(0, σ² I_D)``.
3. Afterwards the collector sends each respondent ``V``, the top-``k*`` eigenvectors of the Gram
   matrix ``Σ r rᵀ`` of the vectors received so far (uncentred, so the projection ``V Vᵀ t``
   of the outline needs no mean), recomputed every ``refresh`` submissions.
4. The respondent submits ``r = V (Vᵀ t + ε)``, ``ε ~ N(0, σ² I_{k*})``: its record projected on
   the collector's subspace, plus noise inside that subspace (the scheme's randomization).
5. The miner and the attacker decode a submitted vector column by column: the value whose
   bit scores highest (:func:`epr_decode`). Smaller ``k*`` keeps less of each record.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.frames import pandas_if_arrow
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from .onehot import OneHotLayout, bit_release, read_bit_release

__all__ = ["epr", "epr_decode", "epr_vectors"]


def _check_int(value: Any, name: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} must be a whole number >= {low}, got {value!r}")
    if int(value) < low:
        raise InputError(f"{name} must be >= {low}, got {value}")
    return int(value)


def _check_sigma(sigma: Any) -> float:
    if isinstance(sigma, (bool, np.bool_)) or not isinstance(sigma, numbers.Real):
        raise InputError(f"sigma must be a non-negative number, got {sigma!r}")
    if not np.isfinite(sigma) or sigma < 0:
        raise InputError(f"sigma must be a non-negative number, got {sigma}")
    return float(sigma)


def epr_vectors(
    onehot: np.ndarray,
    k: int,
    *,
    sigma: float = 0.25,
    warmup: int | None = None,
    refresh: int = 100,
    rng: RandomLike = None,
) -> np.ndarray:
    """The vectors respondents submit under EPR, in arrival order (steps 2–4 of the module).

    Parameters
    ----------
    onehot : ndarray, shape (n, D)
        The respondents' one-hot records, in arrival order.
    k : int
        Eigenvectors sent to each respondent, ``1 .. D``.
    sigma : float, default 0.25
        Standard deviation of the respondent's noise (per coordinate of the subspace).
    warmup : int, optional
        Respondents who submit before the collector has any guidance (default ``D``: enough
        vectors for a Gram matrix of full rank).
    refresh : int, default 100
        Submissions between recomputations of the eigenvectors.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    ndarray, shape (n, D)
        The submitted vectors.
    """
    t = np.asarray(onehot, dtype=np.float64)
    if t.ndim != 2 or t.shape[0] == 0:
        raise InputError("epr: expected a non-empty 2-d array of one-hot records")
    n, dim = t.shape
    k = _check_int(k, "k", 1)
    if k > dim:
        raise InputError(f"k = {k} is larger than the number of bits D = {dim}")
    sigma = _check_sigma(sigma)
    warmup = dim if warmup is None else _check_int(warmup, "warmup", 1)
    refresh = _check_int(refresh, "refresh", 1)
    gen = make_rng(rng)
    out = np.empty_like(t)
    first = min(warmup, n)
    out[:first] = t[:first] + sigma * gen.standard_normal((first, dim))
    gram = out[:first].T @ out[:first]
    for lo in range(first, n, refresh):
        hi = min(lo + refresh, n)
        _, vecs = np.linalg.eigh(gram)  # ascending eigenvalues
        v = vecs[:, ::-1][:, :k]
        noise = sigma * gen.standard_normal((hi - lo, k))
        out[lo:hi] = (t[lo:hi] @ v + noise) @ v.T
        gram += out[lo:hi].T @ out[lo:hi]
    return out


def epr(
    data: pd.DataFrame,
    columns: Sequence[Hashable],
    k: int,
    *,
    sigma: float = 0.25,
    warmup: int | None = None,
    refresh: int = 100,
    clear: Sequence[Hashable] = (),
    rng: RandomLike = None,
) -> Release:
    """Collect the records of ``data`` (rows in arrival order) by EPR.

    Parameters
    ----------
    data : DataFrame
        The respondents' records, in the order they arrive.
    columns : sequence of column names
        Categorical columns the respondents perturb (one-hot, domains = sorted values).
    k : int
        Eigenvectors ``k*`` sent to each respondent; at most the number of bits.
    sigma, warmup, refresh
        See :func:`epr_vectors`.
    clear : sequence of column names, optional
        Columns submitted as they are (e.g. a class label). Every other column is left out.
    rng : numpy.random.Generator, int or None
        Source of randomness (``None``: OS entropy). Never recorded in the release.

    Returns
    -------
    Release
        Kind ``"randomized"``: table ``data`` with one float column per bit (``"column=value"``)
        then the clear columns, in arrival order (the order is part of the scheme: each vector
        was computed against those before it). Metadata: ``method`` = ``"epr"``,
        ``parameters`` and ``epr`` = ``{"k", "sigma", "warmup", "refresh", "domains"}``.

    Raises
    ------
    InputError
        Bad table or columns, missing values, ``k`` outside ``1 .. D``, negative ``sigma``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["F", "M"] * 50, "smoker": ["y", "n", "n", "n"] * 25})
    >>> rel = epr(df, ["sex", "smoker"], 2, rng=0)
    >>> epr_decode(rel).shape
    (100, 2)
    """
    data = pandas_if_arrow(data, "data")
    layout = OneHotLayout.from_frame(data, columns, "epr")
    clear = layout.clear_columns(data, clear, "epr")
    warmup = layout.width if warmup is None else warmup
    vectors = epr_vectors(
        layout.encode(data), k, sigma=sigma, warmup=warmup, refresh=refresh, rng=rng
    )
    spec = {"k": int(k), "sigma": float(sigma), "warmup": int(warmup), "refresh": int(refresh)}
    return bit_release("epr", vectors, layout, data[clear], spec, spec)


def epr_decode(release: Release) -> pd.DataFrame:
    """Decode an :func:`epr` release: per column, the value whose bit scores highest; the clear
    columns follow as they are.

    Raises
    ------
    InputError
        Not an EPR release, or bit columns missing.
    """
    layout, values, clear, _ = read_bit_release(release, "epr", "epr_decode")
    decoded = layout.decode(values.astype(np.float64))
    for c in clear.columns:
        decoded[c] = clear[c].to_numpy()
    return decoded
