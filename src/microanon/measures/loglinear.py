"""Global re-identification risk from a Poisson log-linear model of the key table.

Skinner & Shlomo (2008) model the sample frequencies of the key combinations as independent
Poisson counts whose means follow a log-linear model in the keys, and estimate from the fitted
means how many sample uniques are population uniques (``τ1``) and how many correct matches an
intruder can expect from the sample uniques (``τ2``). :func:`loglinear_risk` fits the model (main
effects of the keys, optionally with two-way interactions) and computes both measures as
sdcMicro's ``modRisk(method = "default")`` (formerly ``LLmodGlobalRisk``) does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ..core.errors import InputError
from ..core.frames import pandas_if_arrow
from .common import check_counts
from .keys import check_weights, key_codes, pack

__all__ = ["LoglinearRisk", "loglinear_risk"]

_MISSING_MODES = {
    "drop": "records with a missing key are left out of the model and the risk, as modRisk's glm"
}
_MAX_DESIGN = 50_000_000  # grid cells × model parameters of an IRLS fit


@dataclass(frozen=True, eq=False)
class LoglinearRisk:
    """Log-linear model risk measures (:func:`loglinear_risk`).

    Attributes
    ----------
    tau1 : float
        Estimated number of sample uniques that are population uniques:
        ``Σ_{k: f_k = 1} exp(-(1 - π_k) λ_k)``.
    tau2 : float
        Estimated number of correct matches of the sample uniques:
        ``Σ_{k: f_k = 1} (1 - exp(-v_k)) / v_k`` with ``v_k = (1 - π_k) λ_k``.
    global_risk1, global_risk2 : float
        ``tau1`` and ``tau2`` divided by the number of non-empty key combinations: the figures
        sdcMicro's ``modRisk`` reports as ``gr1`` and ``gr2``.
    cells : pandas.DataFrame
        One row per non-empty key combination: the keys, ``count`` (``f_k``), ``inclusion``
        (``π_k``, the sum of ``1 / weight`` over its records) and ``fitted`` (``λ_k``).
    records : int
        Records in the model (all, or those without a missing key).
    """

    tau1: float
    tau2: float
    global_risk1: float
    global_risk2: float
    cells: pd.DataFrame
    records: int


def _check_interactions(interactions: Any, keys: list[str]) -> list[tuple[int, int]]:
    if isinstance(interactions, (str, bytes)) or not isinstance(interactions, Sequence):
        raise InputError(
            "'interactions' must be a sequence of (key, key) pairs, got "
            f"{type(interactions).__name__}"
        )
    pairs = []
    for pair in interactions:
        if not (isinstance(pair, Sequence) and not isinstance(pair, str) and len(pair) == 2):
            raise InputError(f"'interactions' holds {pair!r}; each entry is a pair of key names")
        a, b = pair
        absent = [c for c in (a, b) if c not in keys]
        if absent or a == b:
            raise InputError(
                f"interaction {pair!r} must name two different keys among {', '.join(keys)}"
            )
        pairs.append(tuple(sorted((keys.index(a), keys.index(b)))))
    if len(set(pairs)) < len(pairs):
        raise InputError("'interactions' names a pair of keys more than once")
    return pairs


def _poisson_irls(x: np.ndarray, y: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """Fitted means of a Poisson log-linear model (design ``x``, counts ``y``) by IRLS.

    Starts from ``y + 0.1`` as R's ``glm`` and stops when the deviance changes by less than
    ``tol`` relative (glm: 1e-8). Each step is a weighted least-squares fit, which copes with
    the near-singular systems of cells whose fitted means go to 0 (empty margins of an
    interaction); the fitted means are unique all the same.
    """
    mu = y + 0.1
    eta = np.log(mu)
    positive = y > 0
    deviance = np.inf
    with threadpool_limits(1, user_api="blas"):  # small products: threads only contend
        for _ in range(100):
            root = np.sqrt(mu)
            z = eta + (y - mu) / mu
            beta = np.linalg.lstsq(x * root[:, None], z * root, rcond=None)[0]
            eta = x @ beta
            mu = np.exp(eta)
            new = 2 * (np.sum(y[positive] * np.log(y[positive] / mu[positive])) - np.sum(y - mu))
            if abs(new - deviance) <= tol * (abs(new) + 0.1):
                return mu
            deviance = new
    raise InputError("the log-linear model did not converge in 100 IRLS iterations")


def _design(
    grid: np.ndarray, levels: Sequence[int], pairs: Sequence[tuple[int, int]]
) -> np.ndarray:
    """Treatment-coded design matrix (intercept, main effects, two-way interactions)."""
    dummies = [
        (grid[:, [j]] == np.arange(1, levels[j])[None, :]).astype(float) for j in range(len(levels))
    ]
    parts = [np.ones((len(grid), 1)), *dummies]
    for a, b in pairs:
        parts.append((dummies[a][:, :, None] * dummies[b][:, None, :]).reshape(len(grid), -1))
    return np.hstack(parts)


def loglinear_risk(
    data: pd.DataFrame,
    keys: Sequence[str],
    weights: str,
    *,
    interactions: Sequence[tuple[str, str]] = (),
    missing: str = "error",
    counts: Any = None,
) -> LoglinearRisk:
    """Skinner–Shlomo global risk measures from a Poisson log-linear model of the key table.

    The sample counts ``f_k`` of all combinations ``k`` of the keys' observed values (empty ones
    included) are modelled as Poisson with ``log λ_k`` linear in the keys' main effects (each
    key categorical) and, optionally, in two-way interactions. With ``π_k`` the sum of the
    inverse sampling weights of the records in ``k``, each sample unique contributes
    ``exp(-v_k)`` to ``τ1`` (the probability that it is unique in the population) and
    ``(1 - exp(-v_k)) / v_k`` to ``τ2`` (the expected inverse of its population count), where
    ``v_k = (1 - π_k) λ_k`` (``(1 - exp(-v)) / v`` is 1 at ``v = 0``).

    As sdcMicro's ``modRisk(data, method = "default", formulaM = ~ key1 + key2 + ...,
    weights = weights)`` with the keys as factors (sdcMicro reports ``τ / #non-empty cells``:
    :attr:`LoglinearRisk.global_risk1` and ``global_risk2``). Like sdcMicro, this puts the
    fitted *sample* mean ``λ_k`` where Skinner & Shlomo's formulas have the population mean.
    The main-effects model is fitted in closed form (its maximum-likelihood fit is
    ``n · Π_j (n_j(k_j) / n)``), a model with interactions by IRLS over the full grid of
    combinations.

    Parameters
    ----------
    data : pandas.DataFrame
    keys : sequence of str
        The key columns (categorical).
    weights : str
        The sampling-weight column.
    interactions : sequence of (str, str)
        Two-way interactions to add to the main effects, e.g. ``[("urbrur", "roof")]``.
    missing : {"error", "drop"}
        ``"error"``: a missing key value raises :class:`InputError`. ``"drop"``: records with a
        missing key are left out of the model and the risk, as in sdcMicro (where ``glm``
        drops them).
    counts : int array, optional
        Records per row: ``data`` is then a frequency table of distinct rows, each row's
        records sharing its keys and its weight; the model and the risk are those of the table
        it summarizes.

    Returns
    -------
    LoglinearRisk

    Raises
    ------
    InputError
        Bad table, keys or weights (see :func:`individual_risk`); missing key values with
        ``missing="error"``; no record without a missing key; bad ``interactions``; an
        interaction model whose grid is too large to fit.

    References
    ----------
    Skinner, C. J. & Shlomo, N. (2008). Assessing identification risk in survey microdata using
    log-linear models. *Journal of the American Statistical Association* 103(483), 989–1001.

    Skinner, C. J. & Holmes, D. J. (1998). Estimating the re-identification risk per record in
    microdata. *Journal of Official Statistics* 14(4), 361–372.
    """
    data = pandas_if_arrow(data, "data")
    cols, codes, _ = key_codes(data, keys, missing, _MISSING_MODES)
    pairs = _check_interactions(interactions, cols)
    checked = check_counts(counts, len(data))
    w = check_weights(data, weights, checked)
    keep = (codes >= 0).all(axis=1)
    if not keep.any():
        raise InputError("every record has a missing key value: there is no record to model")
    records = np.ones(int(keep.sum()), dtype=np.int64) if checked is None else checked[keep]
    kept = data.loc[keep, cols]
    codes = np.column_stack([pd.factorize(kept[c])[0] for c in cols]).astype(np.int64)
    levels = [int(codes[:, j].max()) + 1 for j in range(len(cols))]
    cell = pack(codes, levels)
    n_cells = int(cell.max()) + 1
    count = np.bincount(cell, weights=records, minlength=n_cells)
    inclusion = np.bincount(cell, weights=records / w[keep], minlength=n_cells)
    first = np.unique(cell, return_index=True)[1]
    cell_codes = codes[first]
    n = float(records.sum())
    if pairs:
        n_params = (
            1
            + sum(v - 1 for v in levels)
            + sum((levels[a] - 1) * (levels[b] - 1) for a, b in pairs)
        )
        n_grid = int(np.prod(levels, dtype=float))
        if n_grid * n_params > _MAX_DESIGN:
            raise InputError(
                f"the interaction model has {n_grid:,} cells × {n_params:,} parameters, too large "
                "to fit here; use fewer keys, fewer levels or fewer interactions"
            )
        grid = np.column_stack(np.unravel_index(np.arange(n_grid), levels)).astype(np.int64)
        grid_cell = np.ravel_multi_index(cell_codes.T, levels)
        y = np.zeros(n_grid)
        y[grid_cell] = count
        fitted = _poisson_irls(_design(grid, levels, pairs), y)[grid_cell]
    else:
        fitted = np.full(n_cells, n)
        for j in range(len(cols)):
            margin = np.bincount(codes[:, j], weights=records, minlength=levels[j])
            fitted *= margin[cell_codes[:, j]] / n
    # The risks are those of the sample uniques: only their cells are computed (a larger cell
    # of small weights has 1 - inclusion < 0, whose exp would overflow for nothing).
    v = ((1 - inclusion) * fitted)[count == 1]
    risk1 = np.exp(-v)
    with np.errstate(divide="ignore", invalid="ignore"):
        risk2 = np.where(v == 0, 1.0, -np.expm1(-v) / v)
    tau1, tau2 = float(risk1.sum()), float(risk2.sum())
    table = pd.DataFrame({c: kept[c].to_numpy()[first] for c in cols})
    table["count"] = count.astype(np.int64)
    table["inclusion"] = inclusion
    table["fitted"] = fitted
    return LoglinearRisk(
        tau1=tau1,
        tau2=tau2,
        global_risk1=tau1 / n_cells,
        global_risk2=tau2 / n_cells,
        cells=table,
        records=int(n),
    )
