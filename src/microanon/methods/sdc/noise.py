"""Noise addition for continuous attributes, with sdcMicro's ``addNoise`` options.

As described in Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization*, Morgan & Claypool
2016, Ch. 3.

Six methods, each an array-level function plus the DataFrame-level :func:`add_noise`:

==============  =============================================================================
``additive``    ``y_j = x_j + e_j``, ``e_j ~ N(0, (α·sd_j)²)`` i.i.d., independent across columns
                (sdcMicro's ``additive`` with ``noise = 100·α``). Means and covariances are kept
                in expectation, variances grow to ``(1 + α²)·Var(X_j)`` and correlations shrink
                to ``ρ/(1 + α²)``. (Written with noise variance ``α·Var``, that α is α² here.)
``correlated``  ``e ~ N(0, α·Σ)`` with ``Σ`` the sample covariance (sdcMicro's ``correlated``
                with ``noise = 100·α``): ``Σ_Y = (1 + α)·Σ`` in expectation, so correlation
                coefficients are kept.
``kim``         correlated noise, then the linear transformation of Kim (1986):
                ``y = c·(z − z̄) + x̄`` with ``z = x + e`` and ``c = (1 + α)^(-1/2)``. The noise is
                conditioned on the sample so that the release keeps the sample means and the
                sample covariance matrix *exactly*: it is centred, made orthogonal to the
                centred data and given sample covariance exactly ``α·Σ``; then
                ``cov(Z) = (1 + α)·Σ`` and ``cov(Y) = Σ`` to rounding error (no finite-sample
                constant as in Kim's original is needed). It needs ``n ≥ 2p + 1`` rows.
``multiplicative``
                noise with a nonlinear transformation, for positive skewed columns (incomes,
                turnovers): additive noise on ``ln x``, transformed back,
                ``y = x·exp(e)``, ``e ~ N(−σ_j²/2, σ_j²)``, ``σ_j = α·sd(ln x_j)``, i.i.d.
                (multiplicative noise in the log-normal form of Kim & Winkler, *Multiplicative
                Noise for Masking Continuous Data*, US Census Bureau Research Report
                Statistics #2003-01). Every value stays positive and keeps its order of
                magnitude (the change is relative, ``y/x = exp(e)``: large values get large
                absolute noise, small values small noise, so the skewness stays);
                ``E[exp(e)] = 1`` keeps means in expectation; ``Var(ln Y_j) = (1 + α²)·Var(ln
                X_j)``. It needs values > 0.
``laplace``     ``y = x + Lap(0, Δ/ε)`` per value (Δ = ``sensitivity``).
``geometric``   ``y = x + G₁ − G₂`` for integer columns, with ``G₁, G₂`` i.i.d. geometric on
                ``{0, 1, ...}``: ``P(y − x = z) = (1 − q)/(1 + q)·q^|z|``, ``q = exp(−ε/Δ)``.
==============  =============================================================================

``laplace`` and ``geometric`` add the noise of the Laplace and geometric mechanisms to every cell:
each cell is an ε-differentially private release of itself when Δ bounds how much one cell can
change (e.g. the column's range). That is local, per-cell protection; the ε of several columns
add up. Which Δ is right is the data owner's call, which is why it has no default.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import Choice, ColumnNames, ListOf, Param, PerColumn, Real
from ...core.errors import InputError
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import Kind, Schema
from ..registry import OutOfCore, method
from .common import (
    check_matrix,
    check_number,
    masked_release,
    masking_input,
    numeric_matrix,
    select_columns,
    with_columns,
)

__all__ = [
    "NOISE_METHODS",
    "add_correlated",
    "add_independent",
    "add_noise",
    "additive_noise",
    "correlated_noise",
    "kim_noise",
    "multiplicative_noise",
    "laplace_noise",
    "geometric_noise",
    "check_noise_parameters",
    "check_per_column",
    "sqrt_psd",
]

NOISE_METHODS = ("additive", "correlated", "kim", "multiplicative", "laplace", "geometric")
"""The noise methods :func:`add_noise` knows."""
_GAUSSIAN = ("additive", "correlated", "kim", "multiplicative")


# ---------------------------------------------------------------------- parameters
def _amount(noise: Any) -> float:
    return check_number(noise, "noise", 0)


def check_per_column(value: Any, p: int, name: str) -> np.ndarray:
    """A positive scalar, or one positive value per column, as one value per column.

    Shared with the out-of-core engine (:mod:`microanon.scale.rowwise`), which checks the
    sensitivities of the differential-privacy mechanisms the same way.

    Parameters
    ----------
    value : float or sequence of float
        One number, or ``p`` numbers.
    p : int
        The number of columns.
    name : str
        The parameter's name (for the messages).

    Returns
    -------
    numpy.ndarray
        ``p`` positive floats.

    Raises
    ------
    InputError
        When ``value`` is neither one nor ``p`` positive numbers.
    """
    arr = np.atleast_1d(np.asarray(value, dtype=object))
    if arr.ndim != 1 or len(arr) not in (1, p):
        raise InputError(f"{name}: expected one number or {p} numbers (one per column)")
    values = [check_number(v, name, 0, low_open=True) for v in arr]
    return np.broadcast_to(np.array(values), (p,)).copy()


def _columns_first(x: Any, name: str = "x") -> tuple[np.ndarray, bool]:
    """``x`` as a C-contiguous ``p × n`` float array (one row per column) and whether it was 1-d.

    Working column by column keeps every pass contiguous: a DataFrame's values arrive as a
    column-major ``n × p`` array, whose transpose is this without a copy.
    """
    return np.ascontiguousarray(check_matrix(x, name).T), np.ndim(x) == 1


def _dp_input(x: Any, epsilon: float, sensitivity: Any) -> tuple[np.ndarray, bool, np.ndarray]:
    """The data of a differential-privacy mechanism (``p × n``), its layout and ``Δ_j / ε``."""
    eps = check_number(epsilon, "epsilon", 0, low_open=True)
    xt, flat = _columns_first(x)
    return xt, flat, check_per_column(sensitivity, xt.shape[0], "sensitivity") / eps


def _rows_first(yt: np.ndarray, flat: bool) -> np.ndarray:
    """Back to the caller's layout: ``n`` values, or an (F-ordered) ``n × p`` array."""
    return yt[0] if flat else yt.T


def _column_sd(xt: np.ndarray) -> np.ndarray:
    """Sample standard deviation (ddof 1) of each row, one contiguous pass per row."""
    sd = np.empty(len(xt))
    for j, row in enumerate(xt):
        d = row - row.mean()
        sd[j] = math.sqrt(float(d @ d) / (len(row) - 1))
    return sd


def _centred(xt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column means, the centred data (``p × n``) and the sample covariance (ddof 1, as R)."""
    mean = xt.mean(axis=1)
    xc = xt - mean[:, None]
    return mean, xc, (xc @ xc.T) / (xt.shape[1] - 1)


def sqrt_psd(s: np.ndarray) -> np.ndarray:
    """A matrix ``A`` with ``A Aᵀ = S`` for a symmetric positive semi-definite ``S``.

    Shared with the out-of-core engine (:mod:`microanon.scale.rowwise`), which takes the root
    of the covariance it computes in one pass over the data.

    Parameters
    ----------
    s : numpy.ndarray
        A symmetric positive semi-definite matrix.

    Returns
    -------
    numpy.ndarray
        ``A`` (negative eigenvalues of rounding clipped to 0).
    """
    vals, vecs = np.linalg.eigh(s)
    return vecs * np.sqrt(np.clip(vals, 0.0, None))


def _need_rows(xt: np.ndarray, rows: int, what: str) -> None:
    if xt.shape[1] < rows:
        raise InputError(f"{what} needs at least {rows} rows, got {xt.shape[1]}")


# ---------------------------------------------------------------------- array level
def additive_noise(x: Any, noise: float, rng: RandomLike = None) -> np.ndarray:
    """Uncorrelated Gaussian noise with standard deviation ``noise · sd_j`` per column.

    Parameters
    ----------
    x : array, shape (n,) or (n, p)
    noise : float
        α >= 0 (sdcMicro's ``noise`` divided by 100).
    rng : numpy.random.Generator, int or None

    Returns
    -------
    numpy.ndarray
        Float array of the shape of ``x``.
    """
    return _additive(x, noise, rng)[0]


def _additive(x: Any, noise: float, rng: RandomLike) -> tuple[np.ndarray, np.ndarray]:
    """:func:`additive_noise` and the standard deviation of the noise of each column."""
    alpha = _amount(noise)
    xt, flat = _columns_first(x)
    _need_rows(xt, 2, "additive noise")
    sigma = alpha * _column_sd(xt)
    return _rows_first(add_independent(xt, sigma, make_rng(rng)), flat), sigma


def add_independent(xt: np.ndarray, sigma: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """``xt`` (``p × n``) plus independent ``N(0, sigma_j²)`` noise: additive noise per record.

    The per-record kernel of :func:`additive_noise`, shared with the out-of-core engine: given
    the noise's standard deviations (which the caller computes on the whole table;
    :mod:`microanon.scale.rowwise` applies it partition by partition).

    Parameters
    ----------
    xt : numpy.ndarray
        The data, one row per column (``p × n``).
    sigma : numpy.ndarray
        The standard deviation of the noise of each column (``p``).
    gen : numpy.random.Generator
        The random stream.

    Returns
    -------
    numpy.ndarray
        The noisy data (``p × n``).
    """
    yt = gen.standard_normal(xt.shape)
    yt *= sigma[:, None]
    yt += xt
    return yt


def add_correlated(xt: np.ndarray, root: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """``xt`` (``p × n``) plus noise ``root @ N(0, I)``: covariance ``root rootᵀ`` per record.

    The per-record kernel of :func:`correlated_noise`, shared with the out-of-core engine
    (:mod:`microanon.scale.rowwise` applies it partition by partition): given a square root of
    the noise's covariance (:func:`sqrt_psd` of ``α Σ``, with ``Σ`` computed on the whole table).

    Parameters
    ----------
    xt : numpy.ndarray
        The data, one row per column (``p × n``).
    root : numpy.ndarray
        A square root of the noise's covariance (``p × p``).
    gen : numpy.random.Generator
        The random stream.

    Returns
    -------
    numpy.ndarray
        The noisy data (``p × n``).
    """
    yt = root @ gen.standard_normal(xt.shape)
    yt += xt
    return yt


def correlated_noise(x: Any, noise: float, rng: RandomLike = None) -> np.ndarray:
    """Gaussian noise with covariance ``noise · Σ`` (Σ the sample covariance of ``x``).

    Parameters and return value as :func:`additive_noise`.
    """
    alpha = _amount(noise)
    xt, flat = _columns_first(x)
    _need_rows(xt, 2, "correlated noise")
    _, xc, cov = _centred(xt)
    del xc
    return _rows_first(add_correlated(xt, sqrt_psd(alpha * cov), make_rng(rng)), flat)


def kim_noise(x: Any, noise: float, rng: RandomLike = None) -> np.ndarray:
    """Correlated noise plus Kim's linear transformation, keeping means and covariances exactly.

    Parameters and return value as :func:`additive_noise`; ``x`` needs ``n ≥ 2p + 1`` rows.
    The sample mean and the sample covariance (ddof 1) of the result equal those of ``x`` up to
    rounding error.
    """
    alpha = _amount(noise)
    xt, flat = _columns_first(x)
    p, n = xt.shape
    _need_rows(xt, 2 * p + 1, f"Kim's method on {p} column(s)")
    mean, xc, cov = _centred(xt)
    g = make_rng(rng).standard_normal(xt.shape)
    g -= g.mean(axis=1)[:, None]
    gram_inv = np.linalg.pinv(xc @ xc.T)
    for _ in range(2):  # project out the centred data's span (twice, for rounding)
        g -= (g @ xc.T @ gram_inv) @ xc
    chol = np.linalg.cholesky((g @ g.T) / (n - 1))
    # Sample covariance exactly I, then exactly α·Σ; still centred and orthogonal to the data.
    e = (sqrt_psd(alpha * cov) @ np.linalg.inv(chol)) @ g
    del g
    e += xc
    e *= 1.0 / math.sqrt(1.0 + alpha)
    e += mean[:, None]
    return _rows_first(e, flat)


def multiplicative_noise(x: Any, noise: float, rng: RandomLike = None) -> np.ndarray:
    """Log-normal multiplicative noise: ``y = x·exp(e)``, ``e ~ N(−σ²/2, σ²)`` per value.

    Additive noise on the logarithm, transformed back (see the module docstring); ``σ_j`` is
    ``noise`` times the sample standard deviation of ``ln x_j``.

    Parameters
    ----------
    x : array, shape (n,) or (n, p)
        Positive values.
    noise : float
        α >= 0.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    numpy.ndarray
        Positive float array of the shape of ``x``.

    Raises
    ------
    InputError
        A value <= 0 (naming its row and column), fewer than 2 rows, ``noise`` < 0.

    Examples
    --------
    >>> y = multiplicative_noise([[1.0], [10.0], [100.0], [1000.0]], 0.2, rng=0)
    >>> bool((y > 0).all()), y.shape
    (True, (4, 1))
    """
    return _multiplicative(x, noise, rng)[0]


def _multiplicative(x: Any, noise: float, rng: RandomLike) -> tuple[np.ndarray, np.ndarray]:
    """:func:`multiplicative_noise` and the standard deviation of the log-noise of each column."""
    alpha = _amount(noise)
    xt, flat = _columns_first(x)
    _need_rows(xt, 2, "multiplicative noise")
    bad = xt <= 0
    if bad.any():
        col, row = np.argwhere(bad)[0]
        raise InputError(
            f"x: multiplicative noise needs positive values; column {col}, row {row} holds "
            f"{xt[col, row]!r}"
        )
    logs = np.log(xt)
    sigma = alpha * _column_sd(logs)
    e = add_independent(np.broadcast_to(-0.5 * sigma[:, None] ** 2, xt.shape), sigma, make_rng(rng))
    np.exp(e, out=e)
    e *= xt
    return _rows_first(e, flat), sigma


def laplace_noise(
    x: Any, epsilon: float, sensitivity: float | Sequence[float], rng: RandomLike = None
) -> np.ndarray:
    """Laplace noise of scale ``sensitivity / epsilon`` added to every value.

    Drawn as ``b·(E₁ − E₂)`` with ``E₁, E₂`` i.i.d. standard exponential, which is exactly
    Laplace with scale ``b`` (and faster to draw than through the logarithm of a uniform).

    Parameters
    ----------
    x : array, shape (n,) or (n, p)
    epsilon : float
        Privacy parameter ε > 0 (per value).
    sensitivity : float or sequence of float
        Δ > 0, one for all columns or one per column.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    numpy.ndarray
        Float array of the shape of ``x``.
    """
    xt, flat, scale = _dp_input(x, epsilon, sensitivity)
    gen = make_rng(rng)
    yt = gen.standard_exponential(xt.shape)
    yt -= gen.standard_exponential(xt.shape)
    yt *= scale[:, None]
    yt += xt
    return _rows_first(yt, flat)


def geometric_noise(
    x: Any, epsilon: float, sensitivity: float | Sequence[float], rng: RandomLike = None
) -> np.ndarray:
    """Two-sided geometric noise with parameter ``q = exp(−epsilon / sensitivity)``.

    Drawn as ``⌊E₁/λ⌋ − ⌊E₂/λ⌋`` with ``λ = ε/Δ`` and ``E₁, E₂`` i.i.d. standard exponential:
    ``P(⌊E/λ⌋ ≥ m) = e^(−mλ) = q^m``, so each floor is geometric on ``{0, 1, ...}`` and their
    difference has ``P(z) = (1 − q)/(1 + q)·q^|z|``.

    Parameters as :func:`laplace_noise`; ``x`` must hold integers (of any dtype).

    Returns
    -------
    numpy.ndarray
        int64 array of the shape of ``x``.
    """
    xt, flat, scale = _dp_input(x, epsilon, sensitivity)
    if not np.array_equal(xt, np.round(xt)) or np.abs(xt).max() >= 2.0**53:
        raise InputError("x: geometric noise needs integer values; use laplace for other data")
    gen = make_rng(rng)
    out = xt.astype(np.int64)
    for draw in range(2):
        steps = gen.standard_exponential(xt.shape)
        steps *= scale[:, None]
        np.floor(steps, out=steps)
        if draw == 0:
            out += steps.astype(np.int64)
        else:
            out -= steps.astype(np.int64)
    return _rows_first(out, flat)


def check_noise_parameters(method: str, noise: Any, epsilon: Any, sensitivity: Any) -> bool:
    """Refuse the parameters a noise ``method`` does not take, and name those it lacks.

    Returns
    -------
    bool
        Whether the method is one of the Gaussian ones (``noise`` = α), not a differentially
        private one (``epsilon`` and ``sensitivity``).

    Raises
    ------
    InputError
        Naming the parameter given that the method does not take, or each one it lacks.
    """
    if method in _GAUSSIAN:
        if noise is None:
            raise InputError(f"noise: method '{method}' needs noise = α (e.g. 0.5)")
        if epsilon is not None or sensitivity is not None:
            raise InputError(
                f"epsilon, sensitivity: method '{method}' takes noise, not epsilon or sensitivity"
            )
        return True
    if noise is not None:
        raise InputError(f"noise: method '{method}' takes epsilon and sensitivity, not noise")
    lacking = [n for n, v in (("epsilon", epsilon), ("sensitivity", sensitivity)) if v is None]
    if lacking:
        raise InputError(
            f"{', '.join(lacking)}: method '{method}' needs epsilon and sensitivity, and "
            f"{' and '.join(lacking)} {'is' if len(lacking) == 1 else 'are'} not given"
        )
    return False


# ---------------------------------------------------------------------- DataFrame level
@method(
    "add_noise",
    step="any",
    kind="masked",
    publishes="The table with noisy numeric columns.",
    help="Adds random noise to numeric columns, keeping their means and spread approximately.",
    params=(
        Param(
            "method",
            "The kind of noise: additive, correlated, kim, multiplicative (Gaussian), laplace "
            "or geometric (differential privacy).",
            (Choice(NOISE_METHODS),),
        ),
        Param(
            "noise",
            "How much Gaussian noise: a multiple of each column's standard deviation (0.1 = a "
            "tenth of it).",
            (Real(0, None),),
        ),
        Param(
            "epsilon",
            "Privacy budget of laplace and geometric noise, above 0 (smaller: more noise).",
            (Real(0, None, closed="neither"),),
        ),
        Param(
            "sensitivity",
            "How much one record can change each column, above 0 (laplace and geometric).",
            (
                Real(0, None, closed="neither"),
                ListOf(Real(0, None, closed="neither")),
                PerColumn(Real(0, None, closed="neither")),
            ),
        ),
        Param(
            "columns",
            "Numeric columns to perturb (the numeric quasi-identifiers by default).",
            (ColumnNames(),),
        ),
    ),
    out_of_core=OutOfCore("add_noise_dask", variants="additive, correlated, laplace, geometric"),
)
def add_noise(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    method: str = "additive",
    noise: float | None = None,
    epsilon: float | None = None,
    sensitivity: float | Mapping[str, float] | None = None,
    columns: Sequence[str] | None = None,
    rng: RandomLike = None,
) -> Release:
    """Add noise to numeric columns (sdcMicro's ``addNoise``).

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
    method : {"additive", "correlated", "kim", "multiplicative", "laplace", "geometric"}
        See the module docstring for what each adds and preserves.
    noise : float
        α >= 0 for the Gaussian methods (sdcMicro's ``noise = 150`` is ``noise=1.5``):
        standard deviations ``α·sd_j`` (``additive``), ``α·sd(ln x_j)`` on the log scale
        (``multiplicative``) or covariance ``α·Σ`` (``correlated``, ``kim``). Not used by
        ``laplace`` and ``geometric``.
    epsilon : float
        ε > 0 for ``laplace`` and ``geometric``.
    sensitivity : float or mapping of column to float
        Δ > 0 for ``laplace`` and ``geometric``, for all columns or per column.
    columns : sequence of str, optional
        Numeric columns to perturb (default: the numeric quasi-identifiers). The Gaussian
        methods use their joint covariance.
    rng : numpy.random.Generator, int or None
        Source of randomness; never recorded.

    Returns
    -------
    Release
        Kind ``"masked"``, same rows and columns as the validated input; perturbed columns are
        float (int64 for ``geometric``). Metadata: ``parameters`` (method, noise, epsilon,
        sensitivity, columns), ``masked_numeric`` (the perturbed columns) and ``noise_scale``
        (per column: σ of ``additive``, σ of the log-noise of ``multiplicative``, the Laplace
        scale Δ/ε, or the geometric ``q``; omitted for ``correlated`` and ``kim``).

    Raises
    ------
    InputError
        Unknown method; a missing, superfluous or out-of-range ``noise``, ``epsilon`` or
        ``sensitivity``; bad ``columns``; non-finite values; too few rows; non-integer values
        for ``geometric``; values <= 0 for ``multiplicative``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"income": [10.0, 12.0, 15.0, 11.0], "age": [30, 40, 50, 60]})
    >>> schema = {"income": {"role": "quasi", "kind": "numeric"},
    ...           "age": {"role": "quasi", "kind": "numeric"}}
    >>> rel = add_noise(df, schema, method="additive", noise=0.1, rng=1)
    >>> list(rel.data.columns), rel.metadata["parameters"]["method"]
    (['income', 'age'], 'additive')
    """
    if method not in NOISE_METHODS:
        raise InputError(f"method: expected one of {', '.join(NOISE_METHODS)}, got {method!r}")
    gaussian = check_noise_parameters(method, noise, epsilon, sensitivity)
    if gaussian:
        _amount(noise)
    else:
        check_number(epsilon, "epsilon", 0, low_open=True)
    schema, frame = masking_input(data, schema)
    cols = select_columns(schema, columns, (Kind.NUMERIC,), "add_noise")
    x = numeric_matrix(frame, cols, "add_noise")
    if isinstance(sensitivity, Mapping):
        unknown = sorted(set(map(str, sensitivity)) - set(cols))
        absent = [c for c in cols if c not in sensitivity]
        if unknown or absent:
            raise InputError(
                "sensitivity: give one value per perturbed column "
                + (f"(unknown: {', '.join(unknown)})" if unknown else f"(missing: {absent[0]})")
            )
        sens: Any = [sensitivity[c] for c in cols]
    else:
        sens = sensitivity
    gen = make_rng(rng)
    scale: dict[str, float] = {}
    if method == "additive":
        y, sigma = _additive(x, noise, gen)
        scale = dict(zip(cols, sigma.tolist(), strict=True))
    elif method == "multiplicative":
        bad = [c for j, c in enumerate(cols) if (x[:, j] <= 0).any()]
        if bad:
            raise InputError(
                f"add_noise: method 'multiplicative' needs positive values; column '{bad[0]}' "
                "holds values <= 0"
            )
        y, sigma = _multiplicative(x, noise, gen)
        scale = dict(zip(cols, sigma.tolist(), strict=True))
    elif method == "correlated":
        y = correlated_noise(x, noise, gen)
    elif method == "kim":
        y = kim_noise(x, noise, gen)
    else:
        eps = float(epsilon)
        delta = check_per_column(sens, len(cols), "sensitivity")
        if method == "geometric":
            bad = [c for j, c in enumerate(cols) if not np.array_equal(x[:, j], np.round(x[:, j]))]
            if bad:
                raise InputError(
                    f"add_noise: method 'geometric' needs integer columns; '{bad[0]}' holds "
                    "non-integer values (use method 'laplace')"
                )
            y = geometric_noise(x, eps, delta, gen)
            factor = np.exp(-eps / delta)
        else:
            y = laplace_noise(x, eps, delta, gen)
            factor = delta / eps
        scale = dict(zip(cols, factor.tolist(), strict=True))
    published = with_columns(frame, {c: y[:, j] for j, c in enumerate(cols)})
    sens_param = dict(sensitivity) if isinstance(sensitivity, Mapping) else sensitivity
    parameters = {
        "method": method,
        "noise": noise,
        "epsilon": epsilon,
        "sensitivity": sens_param,
        "columns": cols,
    }
    extra = {"noise_scale": scale} if scale else {}
    return masked_release(
        "add_noise", published, schema, parameters, len(frame), masked_numeric=cols, **extra
    )
