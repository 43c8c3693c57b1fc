"""Reconstruct the original joint distribution from a randomized release.

The estimator of Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based Microdata
Release*, Journal of Computing Science and Engineering 5(3), 2011 (eq. 2; Lemma 2).

The published proportions ``λ̂`` over the cells of ``Ω = Ω_1 × … × Ω_k`` (row-major, the first
column slowest) estimate ``λ = P π`` with ``P = P_1 ⊗ … ⊗ P_k``; the unbiased estimator is
``π̂ = P⁻¹ λ̂``, applied axis by axis with each ``A_i = P_i⁻¹`` (:func:`kron_apply`), never forming
``P``. Its covariance (eq. 2) is ``Σ = (1/N) A [diag(λ) − λ λᵀ] Aᵀ`` with ``A = ⊗ A_i``; everything
reported here is evaluated at the observed ``λ̂`` (so ``A λ̂ = π̂``) in O(cells · Σ d_i) time and
O(cells) memory:

- ``diag Σ = (1/N) [(A ∘ A) λ̂ − π̂ ∘ π̂]``, where ``A ∘ A = ⊗ (A_i ∘ A_i)`` (the element-wise
  square of a Kronecker product is the Kronecker product of the squares);
- for a count query over the cells selected by ``w = ⊗ w_i`` (0/1 indicator vectors per column),
  ``Var(N w·π̂) = N [Σ_cells (Aᵀ w)² λ̂ − (w·π̂)²]`` with ``Aᵀ w = ⊗ (A_iᵀ w_i)``, so the sum is a
  contraction of ``λ̂`` with one vector per axis.

Marginals are reconstructions of their own: summing ``π̂`` over a column equals reconstructing the
summed-out ``λ̂`` with the remaining matrices, because every ``P_i`` (hence ``A_i``) has columns
summing to 1.

A missing answer that PRAM published as it was (the value ``?``, an empty cell: no value of the
column's public domain, see :mod:`.sampling`) is a cell of its own after the domain's, which the
matrix leaves as it is (its row and column of the identity): its estimate is the published share
(its variance that of a column published unchanged), and the known values' cells are
reconstructed beside it.

Estimates that are distributions (:meth:`Reconstruction.distribution`): ``"inverse"`` is ``π̂``
itself, optionally clipped and renormalized; ``"em"`` the maximum-likelihood estimate by the EM
iteration of iterative Bayesian reconstruction and ``"projection"`` the Euclidean projection of
``π̂`` onto the simplex (:mod:`.simplex`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.frames import pandas_if_arrow
from ...core.hierarchy import value_key
from ...core.keys import number_text_key, written_positions
from ...core.missing import MISSING_LABEL, is_missing_answer
from ...core.release import Release
from .matrices import check_distortion, kron_apply, uniform_inverse, uniform_retention
from .simplex import em_reconstruct, project_simplex

__all__ = ["ESTIMATORS", "Reconstruction", "reconstruct", "MAX_CELLS"]

#: How :meth:`Reconstruction.distribution` estimates the distribution: the inverse ``π̂ = P⁻¹λ̂``
#: (unbiased, may be negative unless clipped), maximum likelihood by EM, or ``π̂`` projected onto
#: the probability simplex.
ESTIMATORS = ("inverse", "em", "projection")

#: Largest number of cells a reconstruction may have (about 0.8 GB per float64 array).
MAX_CELLS = 100_000_000


def _contract(tensor: np.ndarray, vectors: Sequence[np.ndarray | None]) -> float:
    """``Σ_cells tensor · ⊗ v_i`` (``None`` = all-ones), contracting the last axis first."""
    out = tensor
    for v in reversed(vectors):
        out = out.sum(axis=-1) if v is None else out @ v
    return float(out)


@dataclass(frozen=True, eq=False)
class Reconstruction:
    """The reconstructed joint distribution of some columns of a randomized release.

    Attributes
    ----------
    columns : list of str
        The columns, in axis order (the first is the slowest in the row-major cell order).
    domains : list of lists
        The values of each column, in code order (axis ``i`` has ``len(domains[i])`` cells).
    estimate : numpy.ndarray
        The unbiased estimate ``π̂ = P⁻¹ λ̂`` of the cell proportions, shape ``shape``. It sums
        to 1 but may hold negative entries (see :meth:`distribution`).
    observed : numpy.ndarray
        The published cell proportions ``λ̂``, same shape.
    matrices : list of numpy.ndarray or None
        The distortion matrix ``P_i`` of each column; ``None`` for a column that was not
        randomized (the identity).
    inverses : list of numpy.ndarray or None
        ``P_i⁻¹`` (``None`` for the identity).
    n : int
        Number of records.
    clip_renorm : bool
        Default of :meth:`distribution`.
    method : {"inverse", "em", "projection"}
        Default estimator of :meth:`distribution` (see :data:`ESTIMATORS`).
    """

    columns: list[str]
    domains: list[list[Any]]
    estimate: np.ndarray
    observed: np.ndarray
    matrices: list[np.ndarray | None]
    inverses: list[np.ndarray | None]
    n: int
    clip_renorm: bool = False
    method: str = "inverse"

    @property
    def shape(self) -> tuple[int, ...]:
        """Number of values of each column."""
        return self.estimate.shape

    @classmethod
    def from_observed(
        cls,
        observed: np.ndarray,
        matrices: Sequence[np.ndarray | None],
        n: int,
        *,
        columns: Sequence[str] | None = None,
        domains: Sequence[Sequence[Any]] | None = None,
        clip_renorm: bool = False,
        method: str = "inverse",
    ) -> Reconstruction:
        """Reconstruct from published cell proportions and the distortion matrices.

        Parameters
        ----------
        observed : array of shape ``(d_1, …, d_k)``
            Published proportions ``λ̂`` (non-negative, summing to 1), row-major cell order.
        matrices : sequence of arrays or None
            One distortion matrix per axis (``None``: not randomized).
        n : int
            Number of records the proportions come from (for the variances).
        columns, domains : optional
            Names (default ``"0", "1", …``) and values (default ``0 .. d_i - 1``) of the axes.
        clip_renorm : bool
            Default of :meth:`distribution`.
        method : {"inverse", "em", "projection"}
            Default estimator of :meth:`distribution`.

        Raises
        ------
        InputError
            Proportions that are not a distribution; a matrix per axis missing or of the wrong
            size, or invalid (see :func:`check_distortion`); ``n < 1``; an unknown ``method``.
        """
        lam = np.asarray(observed, dtype=float)
        if lam.ndim == 0 or lam.size == 0:
            raise InputError("observed: expected a non-empty array of cell proportions")
        if not np.all(np.isfinite(lam)) or np.any(lam < 0) or abs(lam.sum() - 1.0) > 1e-9:
            raise InputError("observed: cell proportions must be non-negative and sum to 1")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise InputError(f"n: the number of records must be a positive integer, got {n!r}")
        if len(matrices) != lam.ndim:
            raise InputError(f"{len(matrices)} matrices for {lam.ndim} axes of observed")
        columns = [str(i) for i in range(lam.ndim)] if columns is None else list(columns)
        domains = [list(range(d)) for d in lam.shape] if domains is None else list(domains)
        if len(columns) != lam.ndim or [len(v) for v in domains] != list(lam.shape):
            raise InputError("columns and domains must match the axes of observed")
        checked = []
        for column, m, d in zip(columns, matrices, lam.shape, strict=True):
            if m is not None:
                m = check_distortion(m, f"matrix of '{column}'")
                if m.shape != (d, d):
                    raise InputError(f"matrix of '{column}': shape {m.shape}, axis has {d} cells")
            checked.append(m)
        inverses = [None if m is None else np.linalg.inv(m) for m in checked]
        method = _check_method(method)
        return cls._build(columns, domains, lam, checked, inverses, int(n), clip_renorm, method)

    @classmethod
    def _build(
        cls, columns, domains, lam, matrices, inverses, n, clip_renorm, method
    ) -> Reconstruction:
        estimate = kron_apply(inverses, lam)
        return cls(
            list(columns),
            [list(v) for v in domains],
            np.ascontiguousarray(estimate),
            lam,
            list(matrices),
            list(inverses),
            n,
            bool(clip_renorm),
            method,
        )

    # ------------------------------------------------------------------ estimates
    def distribution(
        self, clip_renorm: bool | None = None, *, method: str | None = None
    ) -> np.ndarray:
        """The estimated distribution of the cells.

        Parameters
        ----------
        clip_renorm : bool, optional
            With ``method="inverse"``: ``True`` sets negative estimates to 0 and rescales the
            rest to sum to 1 (a proper distribution, for distances such as KL; biased);
            ``False`` gives the raw unbiased :attr:`estimate` (sums to 1, may be negative).
            Default: the ``clip_renorm`` the reconstruction was made with. Ignored by the other
            methods, whose estimates are distributions.
        method : {"inverse", "em", "projection"}, optional
            ``"inverse"``: ``π̂ = P⁻¹λ̂`` as above; ``"em"``: the maximum-likelihood estimate
            (EM, :func:`~.simplex.em_reconstruct`); ``"projection"``: the closest distribution
            to ``π̂`` in Euclidean distance (:func:`~.simplex.project_simplex`). Default: the
            ``method`` the reconstruction was made with.

        Raises
        ------
        InputError
            An unknown ``method``.
        """
        method = self.method if method is None else _check_method(method)
        if method == "em":
            return em_reconstruct(self.observed, self.matrices)[0]
        if method == "projection":
            return project_simplex(self.estimate)
        clip = self.clip_renorm if clip_renorm is None else bool(clip_renorm)
        if not clip:
            return self.estimate.copy()
        q = np.clip(self.estimate, 0.0, None)
        return q / q.sum()

    def variance(self) -> np.ndarray:
        """Estimated variance of each cell of :attr:`estimate`: the diagonal of Σ (eq. 2).

        ``(1/N)[(⊗ A_i∘A_i) λ̂ − π̂²]`` with ``A_i = P_i⁻¹``, O(cells · Σ d_i) time. Never
        negative (Jensen: ``Σ_k A_jk² λ_k ≥ (Σ_k A_jk λ_k)²`` for a distribution ``λ``).
        """
        squares = [None if a is None else a * a for a in self.inverses]
        second = kron_apply(squares, self.observed)
        return np.clip((second - self.estimate**2) / self.n, 0.0, None)

    def standard_errors(self) -> np.ndarray:
        """Square roots of :meth:`variance`."""
        return np.sqrt(self.variance())

    def with_unchanged(self, column: str, values: Sequence[Any]) -> Reconstruction:
        """The reconstruction with a cell for each of ``values`` (missing answers that no
        published row holds: ``?``, ``None``) after ``column``'s own, empty, which its matrix
        leaves as they are (see the module's notes). The other cells' estimates and variances
        are unchanged, and the new cells' are 0.

        Raises
        ------
        InputError
            A column not in the reconstruction.
        """
        (column,) = self._names([column])
        axis = self.columns.index(column)
        k = len(values)
        if not k:
            return self
        pad = list(self.observed.shape)
        pad[axis] = k
        lam = np.concatenate([self.observed, np.zeros(pad)], axis=axis)
        domains = [list(d) for d in self.domains]
        domains[axis] = domains[axis] + list(values)
        matrices, inverses = list(self.matrices), list(self.inverses)
        matrices[axis] = _unchanged(matrices[axis], k)
        inverses[axis] = _unchanged(inverses[axis], k)
        return Reconstruction._build(
            self.columns,
            domains,
            lam,
            matrices,
            inverses,
            self.n,
            self.clip_renorm,
            self.method,
        )

    def marginal(self, columns: str | Sequence[str]) -> Reconstruction:
        """The reconstruction of the joint distribution of fewer columns (in the order given).

        Its estimate is the sum of :attr:`estimate` over the other columns, and its variances
        are those of that sum.
        """
        names = self._names(columns)
        dropped = tuple(i for i, c in enumerate(self.columns) if c not in names)
        kept = [c for c in self.columns if c in names]
        order = [kept.index(c) for c in names]
        lam = self.observed.sum(axis=dropped).transpose(order)
        idx = [self.columns.index(c) for c in names]
        return Reconstruction._build(
            names,
            [self.domains[i] for i in idx],
            lam,
            [self.matrices[i] for i in idx],
            [self.inverses[i] for i in idx],
            self.n,
            self.clip_renorm,
            self.method,
        )

    def count(self, query: Mapping[str, Any]) -> tuple[float, float]:
        """Estimated number of records matching a query, and its standard error.

        Parameters
        ----------
        query : mapping of column to a value or a list of values
            Records whose value of each named column is among the given ones (columns not named
            are unrestricted); ``{}`` counts every record.

        Returns
        -------
        (estimate, standard_error) : tuple of float
            ``N Σ_selected π̂`` (unbiased) and ``sqrt(N [Σ (Aᵀw)² λ̂ − (w·π̂)²])``.

        Raises
        ------
        InputError
            A column not in the reconstruction, or a value not in its domain.
        """
        if not isinstance(query, Mapping):
            raise InputError("query must be a mapping of column to value(s)")
        self._names(list(query), allow_empty=True)
        weights: list[np.ndarray | None] = []
        for i, column in enumerate(self.columns):
            if column not in query:
                weights.append(None)
                continue
            wanted = query[column]
            if isinstance(wanted, (str, bytes)) or not isinstance(
                wanted, (Sequence, set, frozenset, np.ndarray, pd.Index)
            ):
                wanted = [wanted]
            w = np.zeros(self.shape[i])
            w[[self._position(i, v) for v in wanted]] = 1.0
            weights.append(w)
        share = _contract(self.estimate, weights)
        lifted = []
        for a, w in zip(self.inverses, weights, strict=True):
            # A_iᵀ 1 = 1 (columns of P_i⁻¹ sum to 1), so an unrestricted axis stays "all ones".
            lifted.append(None if w is None else (w if a is None else a.T @ w) ** 2)
        second = _contract(self.observed, lifted)
        variance = self.n * (second - share**2)
        return self.n * share, math.sqrt(max(variance, 0.0))

    # ------------------------------------------------------------------ helpers
    def _names(self, columns: str | Sequence[str], allow_empty: bool = False) -> list[str]:
        names = [columns] if isinstance(columns, str) else list(columns)
        unknown = [c for c in names if c not in self.columns]
        if unknown:
            raise InputError(
                f"column(s) {', '.join(map(repr, unknown))} not in the reconstruction; it has "
                + ", ".join(self.columns)
            )
        if len(set(names)) != len(names):
            raise InputError(f"columns repeat: {names}")
        if not names and not allow_empty:
            raise InputError("name at least one column")
        return names

    def _position(self, axis: int, value: Any) -> int:
        domain = self.domains[axis]
        for i, v in enumerate(domain):
            if v == value and type(v) is type(value):
                return i
        key = value_key(value)
        for i, v in enumerate(domain):
            if value_key(v) == key:
                return i
        raise InputError(
            f"value {value!r} is not in the domain of column '{self.columns[axis]}' "
            f"({len(domain)} values)"
        )


def _check_method(method: object) -> str:
    if not isinstance(method, str) or method not in ESTIMATORS:
        raise InputError(f"method: expected one of {', '.join(ESTIMATORS)}, got {method!r}")
    return method


def _unchanged(matrix: np.ndarray | None, k: int) -> np.ndarray | None:
    """``matrix`` with ``k`` more rows and columns of the identity (``None``, the identity,
    stays ``None``)."""
    if matrix is None or not k:
        return matrix
    d = len(matrix)
    out = np.eye(d + k)
    out[:d, :d] = matrix
    return out


# ---------------------------------------------------------------------- building from a release
def _encode(series: pd.Series, domain: Sequence[Any], column: str) -> tuple[np.ndarray, list]:
    """Position of each published value in ``domain``: exact match first, then by value key,
    then as the text a table writes for it (a column of numbers and the value ``?`` is
    published as text: ``'1.0'`` for the domain's ``1.0``), then by the number that text
    writes (``'1.0'`` for the domain's ``1``). A missing answer that ``domain`` does not name
    (PRAM publishes it as it was: ``?``, an empty cell ``None``) is at a cell of its own after
    the domain's; the second result lists those cells' values."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    if np.any(codes < 0):  # empty cells, looked up as None
        codes = np.where(codes < 0, len(uniques), codes)
        uniques = pd.Index([*uniques, None], dtype=object)
    extra: list[Any] = []
    try:
        index = pd.Index(list(domain), dtype=object)
    except TypeError as exc:  # pragma: no cover - unhashable domain values
        raise InputError(f"domain of '{column}' holds unhashable values: {exc}") from None
    if not index.is_unique:
        raise InputError(f"the domain of column '{column}' repeats values")
    where = index.get_indexer(pd.Index(uniques, dtype=object))
    if np.any(where < 0):
        keys: dict[str, int] = {}
        for i, v in enumerate(domain):
            keys.setdefault(value_key(v), i)
        texts = written_positions(domain)
        for j in np.flatnonzero(where < 0):
            value = uniques[j]
            found = None if value is None else keys.get(value_key(value))
            if found is None and isinstance(value, str):
                found = texts.get(value)
            if found is None and value is not None:  # 1 in the domain, the text written from 1.0
                found = keys.get(number_text_key(value))
            if found is None and is_missing_answer(value):  # published as it was
                missing = None if value is None else MISSING_LABEL
                if missing not in extra:
                    extra.append(missing)
                found = len(domain) + extra.index(missing)
            if found is None:
                raise InputError(
                    f"column '{column}': published value {value!r} is not in the domain "
                    "the release declares"
                )
            where[j] = found
    return where[codes], extra


def _sorted_domain(series: pd.Series, column: str) -> tuple[np.ndarray, list[Any]]:
    """Codes and sorted distinct values of a column that was not randomized."""
    try:
        codes, uniques = pd.factorize(series, sort=True, use_na_sentinel=True)
    except TypeError:
        codes, uniques = pd.factorize(series, sort=False, use_na_sentinel=True)
        order = sorted(range(len(uniques)), key=lambda i: value_key(uniques[i]))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        codes = np.where(codes < 0, -1, rank[np.maximum(codes, 0)])
        uniques = pd.Index([uniques[i] for i in order], dtype=object)
    if np.any(codes < 0):
        raise InputError(f"column '{column}' has missing values")
    return codes, list(uniques)


def _spec_of(column: str, entry: Any, series: pd.Series) -> tuple[list[Any], np.ndarray, Any]:
    """Domain, matrix and inverse of a randomized column from a metadata entry or a matrix."""
    if isinstance(entry, Mapping):
        if "matrix" not in entry or "domain" not in entry:
            raise InputError(f"randomization of '{column}' needs 'domain' and 'matrix'")
        domain, matrix, keep = list(entry["domain"]), entry["matrix"], entry.get("keep")
        if matrix is None:
            raise InputError(
                f"the matrix of '{column}' is internal: invariant PRAM builds it from the "
                "original's frequencies, and the published frequencies already estimate them"
            )
    else:  # (an empty cell is no value of the domain: published as it was)
        matrix, keep = entry, None
        domain = _sorted_domain(series.dropna(), column)[1]
    d = len(domain)
    if keep is None:
        m = check_distortion(matrix, f"matrix of '{column}'")
        inverse = None
    else:  # uniform retention: valid by construction, closed-form inverse (no O(d³) checks)
        name = f"keep of '{column}'"
        m, inverse = uniform_retention(d, keep, name), uniform_inverse(d, keep, name)
        given = np.asarray(matrix, dtype=float)
        if given.shape != m.shape or not np.allclose(given, m, rtol=0, atol=1e-9):
            raise InputError(
                f"matrix of '{column}' is not the {d} × {d} uniform-retention matrix of keep {keep}"
            )
    if m.shape != (d, d):
        raise InputError(
            f"matrix of '{column}': shape {m.shape} does not match its domain of {d} value(s)"
        )
    return domain, m, np.linalg.inv(m) if inverse is None else inverse


def reconstruct(
    release_or_frame: Release | pd.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    matrices: Mapping[str, Any] | None = None,
    clip_renorm: bool = False,
    method: str = "inverse",
    counts: np.ndarray | None = None,
) -> Reconstruction:
    """Estimate the original joint distribution of some columns from randomized data.

    Parameters
    ----------
    release_or_frame : Release or DataFrame
        A ``randomized`` release (its domains and matrices are read from the metadata; an
        invariant PRAM matrix only from the full release, its public part does not hold it), or
        a randomized table together with ``matrices``.
    columns : sequence of str, optional
        The columns of the joint distribution, in axis order (row-major cells, the first column
        slowest). Default: every randomized column, in table order. Columns that were not
        randomized may be included (identity matrix; their domain is their sorted distinct
        published values).
    matrices : mapping, optional
        Only with a DataFrame: column -> distortion matrix (its rows and columns follow the
        column's sorted distinct values, empty cells left out), or column -> ``{"domain":
        [...], "matrix": ..., "keep": p or None}`` as in a release's ``randomized`` metadata.
        A missing answer outside the domain (PRAM's ``?`` or empty cell) is a cell of its own,
        published as it was (the reconstruction's domain ends with it).
    clip_renorm : bool
        Default of :meth:`Reconstruction.distribution`: ``True`` clips negative estimates to 0
        and renormalizes. The :attr:`~Reconstruction.estimate` is always the unbiased one.
    method : {"inverse", "em", "projection"}, default "inverse"
        Default estimator of :meth:`Reconstruction.distribution`: ``π̂`` (clipped per
        ``clip_renorm``), maximum likelihood by EM, or ``π̂`` projected onto the simplex.
    counts : int array, optional
        Records each row of the randomized table stands for, when it is a frequency table (its
        distinct rows with their records, counted out of core): ``λ̂`` is then the distribution
        of the records (default: one record per row).

    Returns
    -------
    Reconstruction

    Raises
    ------
    InputError
        Not a randomized release; ``matrices`` with a release, or missing with a frame; unknown
        or repeated columns; a published value outside its declared domain (other than a
        missing answer); an invalid matrix;
        more than :data:`MAX_CELLS` cells; an unknown ``method``.

    Examples
    --------
    >>> import pandas as pd
    >>> from microanon.methods.randomize.release import randomize
    >>> df = pd.DataFrame({"s": ["a", "b"] * 500, "q": ["x"] * 1000})
    >>> rel = randomize(df, {"q": "quasi", "s": "sensitive"}, keep={"s": 0.9}, rng=1)
    >>> r = reconstruct(rel)
    >>> r.columns, r.shape, round(float(r.estimate.sum()), 12)
    (['s'], (2,), 1.0)
    """
    release_or_frame = pandas_if_arrow(release_or_frame, "release_or_frame")
    method = _check_method(method)
    if isinstance(release_or_frame, Release):
        if release_or_frame.kind != "randomized":
            raise InputError(
                f"reconstruct needs a 'randomized' release, got a '{release_or_frame.kind}' one"
            )
        if matrices is not None:
            raise InputError("a release carries its own matrices; pass matrices only with a frame")
        frame = release_or_frame.data
        meta = release_or_frame.metadata
        applied = meta.get("applied_matrices") or {}  # internal: only in the full release
        specs = {
            c: {**entry, "matrix": applied[c]}
            if entry.get("matrix") is None and c in applied
            else entry
            for c, entry in (meta.get("randomized") or {}).items()
        }
    elif isinstance(release_or_frame, pd.DataFrame):
        if not isinstance(matrices, Mapping):
            raise InputError("reconstructing a DataFrame needs matrices: column -> matrix")
        frame, specs = release_or_frame, dict(matrices)
    else:
        raise InputError(
            f"expected a randomized Release or a DataFrame, got {type(release_or_frame).__name__}"
        )
    if len(frame) == 0:
        raise InputError("the randomized table is empty: there is nothing to reconstruct")
    weights = _row_counts(counts, len(frame))
    unknown = [c for c in specs if c not in frame.columns]
    if unknown:
        raise InputError(f"matrices name columns not in the table: {', '.join(map(repr, unknown))}")
    if columns is None:
        columns = [c for c in frame.columns if c in specs]
    elif isinstance(columns, str):
        columns = [columns]
    columns = list(columns)
    if not columns:
        raise InputError("no columns to reconstruct: the release randomized none; name some")
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise InputError(
            f"column(s) {', '.join(map(repr, absent))} not in the table; it has "
            + ", ".join(map(str, frame.columns))
        )
    if len(set(columns)) != len(columns):
        raise InputError(f"columns repeat: {columns}")

    domains, mats, invs, codes = [], [], [], []
    for column in columns:
        series = frame[column]
        if column in specs:
            domain, m, inv = _spec_of(column, specs[column], series)
            code, extra = _encode(series, domain, column)
            domain = domain + extra  # missing answers published as they were: unchanged
            m, inv = _unchanged(m, len(extra)), _unchanged(inv, len(extra))
        else:
            code, domain = _sorted_domain(series, column)
            m = inv = None
        domains.append(domain)
        mats.append(m)
        invs.append(inv)
        codes.append(code)
    shape = tuple(len(v) for v in domains)
    cells = math.prod(shape)
    if cells > MAX_CELLS:
        raise InputError(
            f"the joint distribution of {', '.join(columns)} has {cells:,} cells (more than "
            f"{MAX_CELLS:,}); reconstruct fewer columns and combine marginals"
        )
    flat = np.ravel_multi_index(codes, shape) if len(codes) > 1 else codes[0]
    if weights is None:
        records = len(frame)
        lam = np.bincount(flat, minlength=cells).reshape(shape) / records
    else:  # (sums of whole numbers: the same λ̂ as the records' own rows give)
        records = int(weights.sum())
        lam = np.bincount(flat, weights=weights, minlength=cells).reshape(shape) / records
    return Reconstruction._build(columns, domains, lam, mats, invs, records, clip_renorm, method)


def _row_counts(counts: np.ndarray | None, rows: int) -> np.ndarray | None:
    """``counts`` checked as one positive whole number per row of a table of ``rows`` rows."""
    if counts is None:
        return None
    counts = np.asarray(counts)
    if counts.shape != (rows,) or not np.issubdtype(counts.dtype, np.integer):
        raise InputError(
            f"counts must be one whole number per row ({rows}), got shape {counts.shape} of "
            f"{counts.dtype}"
        )
    if rows and int(counts.min()) < 1:
        raise InputError("counts must be positive: a row stands for at least one record")
    return counts.astype(np.float64)
