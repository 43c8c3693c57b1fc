"""PRAM, the post-randomization method, with sdcMicro's invariant variant.

PRAM: Gouweleeuw, Kooiman, Willenborg & de Wolf, *Post Randomisation for Statistical Disclosure
Control: Theory and Implementation*, Journal of Official Statistics 14(4), 1998.

PRAM randomizes categorical columns record by record with general transition matrices: the same
machinery as randomized response (:func:`~microanon.methods.randomize.randomize`), and the same
release. The *invariant* PRAM matrix (Kooiman, Willenborg & Gouweleeuw; sdcMicro's ``pram``)
leaves the expected frequencies of a column unchanged. In the column-stochastic convention used
here (``P[u, v] = Pr(published u | original v)``), with the column's original distribution ``π``:

1. a basic matrix ``P`` (uniform retention with keep probability ``p``, or a given matrix);
2. its back-transition ``Q[v, u] = Pr(original v | published u) = P[u, v] π_v / λ_u`` with
   ``λ = P π`` (Bayes);
3. ``R = Q P`` (``R[w, v] = Σ_u Q[w, u] P[u, v]``: publish through ``P``, map back through
   ``Q``), and sdcMicro's mixture ``R_α = α R + (1 − α) I``.

``R_α π = π`` (``Q λ = π``) and ``R_α`` is column-stochastic, so ``π`` is its stationary
distribution: the expected published frequencies equal the original ones. ``R`` is similar to the
symmetric positive semi-definite ``D_π^{1/2} Pᵀ D_λ⁻¹ P D_π^{1/2}``: its eigenvalues lie in
``[0, 1]``, so ``R_α`` is invertible for every ``α < 1`` and ``R`` itself when ``P`` is invertible
and every value occurs in the data.

A missing answer is not post-randomized. The matrices are over a column's known values (``d``
of them, in domain order; ``π`` their distribution): a record whose answer is missing, the value
``?`` of ``missing: value`` or an empty cell of ``missing: keep``, is published as it is, and no
known answer is published as missing. Whether a person answered is then what it was; the
published frequencies of the known values are those of the records that answered, and the
public domain names the known values only. sdcMicro's ``pram`` treats R's ``NA`` alike.

Differences from sdcMicro (our choices): sdcMicro stores matrices row-stochastic (its ``Rs`` is
``R_α`` transposed); it draws each diagonal entry of the basic matrix uniformly from ``[pd, 1]``,
whereas here the keep probability ``p`` is used as given (a deterministic, published matrix); strata
are not supported (sdcMicro computes one matrix per variable for all strata anyway).

``R_α`` reveals the column's original distribution (its stationary distribution), so a release
keeps it internal (``applied_matrices``): the public part names the basic matrix's keep
probability and ``alpha``, and the published frequencies themselves estimate the original ones
without bias, which is what invariant PRAM is for.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import Boolean, Param, PerColumn, Real
from ...core.errors import InputError
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import Schema
from ...core.table import Table
from ..registry import OutOfCore, method
from .matrices import check_distortion, uniform_retention
from .sampling import ColumnSpec, publish, resolve_specs

__all__ = ["pram", "invariant_matrix", "check_alpha", "invariant_spec", "DEFAULT_ALPHA"]

#: sdcMicro's default amount of perturbation of the invariant matrix.
DEFAULT_ALPHA = 0.5


def check_alpha(alpha: Any) -> float:
    """Validate invariant PRAM's ``alpha``: shared by :func:`pram` and the out-of-core engine.

    Parameters
    ----------
    alpha : float
        The amount of perturbation of the invariant matrix.

    Returns
    -------
    float
        ``alpha`` as a float.

    Raises
    ------
    InputError
        Unless ``alpha`` is a number in [0, 1].
    """
    if (
        isinstance(alpha, (bool, np.bool_))
        or not isinstance(alpha, numbers.Real)
        or not 0.0 <= float(alpha) <= 1.0
    ):
        raise InputError(f"alpha: expected a number in [0, 1], got {alpha!r}")
    return float(alpha)


def invariant_matrix(
    frequencies: np.ndarray,
    keep: float | np.ndarray,
    *,
    alpha: float = 1.0,
) -> np.ndarray:
    """The invariant PRAM matrix of a column with the given value frequencies.

    Parameters
    ----------
    frequencies : 1-d array
        Counts (or proportions) of the column's values, in domain order; zeros allowed.
    keep : float or 2-d array
        The basic matrix: a keep probability ``p`` in ``[1/d, 1]`` (uniform retention) or a
        ``d × d`` column-stochastic matrix.
    alpha : float
        Mixture weight in ``[0, 1]``: ``α R + (1 − α) I`` (sdcMicro's ``alpha``; 1 gives ``R``).

    Returns
    -------
    numpy.ndarray
        ``d × d``, column-stochastic, with ``R π = π`` for ``π = frequencies / Σ frequencies``.
        Not validated for invertibility (``α = 1`` with an absent value, or ``p = 1/d``, makes it
        singular).

    Raises
    ------
    InputError
        Frequencies not a non-empty, non-negative vector with a positive sum; ``keep`` or
        ``alpha`` out of range; a basic matrix of the wrong shape or not column-stochastic.

    Examples
    --------
    >>> import numpy as np
    >>> r = invariant_matrix(np.array([60, 30, 10]), 0.8)
    >>> bool(np.allclose(r @ np.array([0.6, 0.3, 0.1]), [0.6, 0.3, 0.1]))
    True
    """
    f = np.asarray(frequencies, dtype=float)
    if f.ndim != 1 or f.size == 0 or not np.all(np.isfinite(f)) or np.any(f < 0) or f.sum() <= 0:
        raise InputError(
            "frequencies: expected a non-empty vector of non-negative counts with a positive sum"
        )
    a = check_alpha(alpha)
    d = f.size
    if isinstance(keep, numbers.Real) and not isinstance(keep, (bool, np.bool_)):
        basic = uniform_retention(d, float(keep), "keep")
    else:
        basic = np.asarray(keep, dtype=float)
        if basic.shape != (d, d):
            raise InputError(f"keep: a basic matrix must be {d} × {d}, got shape {basic.shape}")
        if np.any(basic < 0) or not np.allclose(basic.sum(axis=0), 1.0, rtol=0, atol=1e-9):
            raise InputError("keep: a basic matrix must be non-negative with columns summing to 1")
    pi = f / f.sum()
    lam = basic @ pi
    back = basic.T * pi[:, None]  # back[v, u] = P[u, v] π_v
    seen = lam > 0
    back[:, seen] /= lam[seen]
    back[:, ~seen] = np.eye(d)[:, ~seen]  # never published: any distribution keeps R stochastic
    r = back @ basic
    return a * r + (1.0 - a) * np.eye(d)


def invariant_spec(
    column: str, spec: ColumnSpec, counts: np.ndarray, dictionary: np.ndarray, alpha: float
) -> ColumnSpec:
    """The invariant matrix of one column from its value counts (domain order), validated.

    The kernel that :func:`pram` shares with the out-of-core engine: :func:`pram` counts the
    codes of the table; :mod:`microanon.scale.rowwise` passes the counts of a dataset larger than
    memory.

    Parameters
    ----------
    column : str
        The column's name (for the messages).
    spec : ColumnSpec
        The column's distortion specification (its keep probabilities; the values it is over,
        :attr:`ColumnSpec.known`).
    counts : numpy.ndarray
        The count of each value of the column's dictionary, one per code.
    dictionary : numpy.ndarray
        The column's values, one per code.
    alpha : float
        The amount of perturbation (validated by :func:`check_alpha`).

    Returns
    -------
    ColumnSpec
        The column's invariant distortion matrix, over the values ``spec`` is over (the known
        ones: the frequencies it keeps are theirs, a missing answer being published as it is).

    Raises
    ------
    InputError
        When no record holds a value the matrix is over; when ``alpha`` is 1 and one of them
        does not occur (singular matrix).
    """
    counts, dictionary = spec.over(np.asarray(counts)), spec.over(np.asarray(dictionary))
    d = len(counts)
    if not counts.sum():
        raise InputError(
            f"column '{column}': no record holds a known value, so invariant PRAM has no "
            "frequencies to keep"
        )
    if alpha == 1.0 and d > 1 and np.any(counts == 0):
        absent = dictionary[counts == 0][0]
        raise InputError(
            f"column '{column}': value {absent!r} does not occur in the data, which makes "
            "the invariant matrix with alpha = 1 singular; use alpha < 1"
        )
    r = invariant_matrix(counts, spec.matrix, alpha=alpha)
    matrix = check_distortion(r, f"invariant matrix of '{column}'")
    return ColumnSpec(matrix, None, from_data=True, known=spec.known)


@method(
    "pram",
    step="any",
    treats_columns=True,
    kind="randomized",
    publishes="The table with PRAM-randomized columns and the transition matrices.",
    help="Changes values of chosen columns at random with known probabilities (PRAM), so that a "
    "published value may not be the person's own.",
    params=(
        Param(
            "matrices",
            "Per column, the probabilities of publishing each value for each original value "
            "(a square matrix over the column's known values, in domain order; a missing "
            "answer is published as it is).",
            (PerColumn(),),
        ),
        Param(
            "keep",
            "Per column, the probability that a value is published unchanged (0.8 = 80 %), "
            "above 1/d for a column of d known values; the other known values are equally "
            "likely, and a missing answer is published as it is.",
            (PerColumn(Real(0, 1, closed="right")),),
        ),
        Param(
            "invariant",
            "Adjust the probabilities so that the published frequencies of each column are "
            "expected to equal the original ones.",
            (Boolean(),),
        ),
        Param(
            "alpha",
            "Only with invariant: how much of the change to apply, from 0 to 1 (0.5 when not "
            "given).",
            (Real(0, 1),),
        ),
    ),
    out_of_core=OutOfCore("pram_dask"),
)
def pram(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    matrices: Mapping[str, Any] | None = None,
    keep: Mapping[str, float] | None = None,
    invariant: bool = False,
    alpha: float | None = None,
    rng: RandomLike = None,
) -> Release:
    """Post-randomize chosen columns with transition matrices (PRAM), optionally invariant ones.

    Parameters
    ----------
    data : DataFrame
        The original table.
    schema : Schema or mapping
        Any published column may be post-randomized.
    matrices : mapping of column to array, optional
        Transition matrices ``P[u, v] = Pr(published u | original v)``, ``d × d`` over the
        column's ``d`` known values in domain order (see
        :func:`~microanon.methods.randomize.randomize` for domains; a missing answer, the value
        ``?`` or an empty cell, is no row or column: it is published as it is).
    keep : mapping of column to float, optional
        Uniform-retention matrices over the known values with these keep probabilities in
        ``(1/d, 1]`` (sdcMicro's ``pd``, used as the diagonal itself rather than as the lower
        bound of random diagonals).
    invariant : bool
        Replace each matrix by the invariant matrix built from it and the frequencies of the
        column's known values in ``data`` (:func:`invariant_matrix`), so that expected published
        frequencies equal the original ones.
    alpha : float, optional
        Only with ``invariant``: the mixture ``α R + (1 − α) I`` (default 0.5, as sdcMicro).
    rng : numpy.random.Generator, int or None
        Source of randomness (``None``: OS entropy). Never recorded in the release.

    Returns
    -------
    Release
        Kind ``"randomized"``, as :func:`~microanon.methods.randomize.randomize` publishes it,
        with ``method`` = ``"pram"``, parameters ``keep``, ``matrices`` (the columns given
        matrices), ``invariant`` and ``alpha``; in ``randomized`` each column's domain is its
        known values and its matrix the one applied, except that an invariant matrix (computed
        from the original's counts) is null there and kept internal in ``applied_matrices``
        (``keep`` is then null too). Every record is published, its missing answers as they
        were.

    Raises
    ------
    InputError
        As :func:`~microanon.methods.randomize.randomize` (``d`` counting the known values;
        empty cells are accepted); a column without a known value; ``alpha`` without
        ``invariant`` or outside ``[0, 1]``; an invariant matrix that is singular
        (``alpha = 1`` and a known value absent from the data).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"roof": ["tin", "tile", "tin", "straw"] * 25})
    >>> rel = pram(df, {"roof": "sensitive"}, keep={"roof": 0.8}, invariant=True, rng=0)
    >>> rel.metadata["parameters"]["alpha"], len(rel.data)
    (0.5, 100)
    """
    if not isinstance(invariant, (bool, np.bool_)):
        raise InputError(f"invariant must be True or False, got {invariant!r}")
    if alpha is not None and not invariant:
        raise InputError("alpha mixes the invariant PRAM matrix; it needs invariant=True")
    a = check_alpha(DEFAULT_ALPHA if alpha is None else alpha) if invariant else None
    table = Table.from_frame(data, schema)
    specs = resolve_specs(table, keep, matrices, known_only=True)
    if invariant:
        for column, spec in specs.items():
            counts = np.bincount(table.codes(column), minlength=table.cardinality(column))
            specs[column] = invariant_spec(column, spec, counts, table.dictionary(column), a)
    parameters = {
        "keep": dict(keep or {}),
        "matrices": list(matrices or {}),
        "invariant": bool(invariant),
        "alpha": a,
    }
    return publish(table, specs, "pram", parameters, make_rng(rng))
