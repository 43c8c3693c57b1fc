"""A numeric column that is an exact linear combination of others: a sum, a mean, a difference.

A survey's scale score is often the sum or the mean of its items (the European Social Survey's
``immigsent`` is ``imbgeco + imueclt + imwbcnt``). Published beside the items, such a score can be
computed again from them: whatever a release does to the score, the items give it back. The
schema lint (:mod:`microanon.core.lint`) asks this of each numeric quasi-identifier, with the
columns published unchanged as the candidate parts (:func:`exact_combinations`).

The search is a least-squares fit with an intercept, bounded in size:

- it runs on at most :data:`SAMPLE_ROWS` rows spread evenly over the table (the candidates are
  read on them once for every column), those where the column is known;
- among at most :data:`MAX_PARTS` candidates, on the rows where all of them are known: the
  candidates known on the most rows are taken first (by twentieths of the rows), the most
  correlated with the column first among those, each that leaves enough rows (one missing on
  most of them is passed over);
- enough means at least :data:`MIN_ROWS` distinct rows, and :data:`ROWS_PER_COEFFICIENT` per
  coefficient fitted (the intercept included), so that a fit is not exact by chance because a
  small table has about as many rows as columns.

A fit is exact when no residual exceeds :func:`tolerance`: a thousandth of the column's range
and a quarter of the smallest gap between two of its values (so that the combination, rounded to
the nearest value, gives back every value: the mean of three items of 0 to 10 stored with two
decimals is found), and never less than the rounding of floating point. The parts are then the
fewest the fit needs: each candidate whose removal keeps the fit exact is removed, the smallest
coefficients first. The combination found is checked on every row of the table where the column
and its parts are known; a single part is not reported here (it is a one-to-one recoding, the
lint's dependency scan's case).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from .factorize import sorted_distinct

__all__ = [
    "MAX_PARTS",
    "MIN_ROWS",
    "ROWS_PER_COEFFICIENT",
    "SAMPLE_ROWS",
    "Combination",
    "exact_combinations",
    "tolerance",
]

#: Most candidate parts a combination is sought among (see :func:`_chosen`).
MAX_PARTS = 60
#: Most rows the fit is sought on (spread evenly over the table).
SAMPLE_ROWS = 1_000
#: Fewest distinct rows a fit needs.
MIN_ROWS = 30
#: Fewest distinct rows per coefficient fitted, the intercept included.
ROWS_PER_COEFFICIENT = 2
#: A residual of at most this share of the column's range counts as none ...
RANGE_SHARE = 1e-3
#: ... and of at most this share of the smallest gap between two of its values.
GAP_SHARE = 0.25
#: The rounding of floating point, relative to the largest absolute value of the column.
_ROUNDING = 1e-9
#: A coefficient (per standard deviation of its part) below this share of the column's standard
#: deviation is tried as zero first, all such at once.
_NEGLIGIBLE = 1e-6
#: The largest denominator of the fractions a combination's coefficients are written as.
_DENOMINATOR = 12
#: Singular values of the parts' product with themselves below this share of the largest are
#: none (parts that are combinations of each other: a least-squares solution among many).
_RCOND = 1e-12


@dataclass(frozen=True)
class Combination:
    """A column that is ``intercept + sum(coefficients * parts)`` on every row where all are
    known.

    Attributes
    ----------
    column : str
    parts : tuple of str
        The fewest columns the combination needs, in the table's order.
    coefficients : tuple of float
        One per part.
    intercept : float
    rows : int
        The rows of the table where the column and every part are known: it holds on all of
        them.
    residual : float
        The largest difference there between the column and the combination: 0 up to the
        rounding of floating point, else that of values rounded (a mean stored with two
        decimals), within :func:`tolerance`.
    """

    column: str
    parts: tuple[str, ...]
    coefficients: tuple[float, ...]
    intercept: float
    rows: int
    residual: float

    @property
    def name(self) -> str:
        """What the combination is: ``the sum``, ``the mean``, ``the difference`` or ``a linear
        combination``."""
        shown = [_number(c) for c in self.coefficients]
        if _number(self.intercept) == "0":
            if all(c == "1" for c in shown):
                return "the sum"
            if all(c == _number(1 / len(shown)) for c in shown):
                return "the mean"
            if sorted(shown) == ["-1", "1"]:
                return "the difference"
        return "a linear combination"

    @property
    def formula(self) -> str:
        """The combination written out, coefficients to six significant digits: ``immigsent =
        imbgeco + imueclt + imwbcnt``, a mean ``score = (a + b + c) / 3``."""
        if self.name == "the mean":
            return f"{self.column} = ({' + '.join(self.parts)}) / {len(self.parts)}"
        text = ""
        for coefficient, part in zip(self.coefficients, self.parts, strict=True):
            shown = _number(coefficient)
            term = part if shown.lstrip("-") == "1" else f"{shown.lstrip('-')} * {part}"
            minus = shown.startswith("-")
            text = f"{text} {'-' if minus else '+'} {term}" if text else "-" * minus + term
        intercept = _number(self.intercept)
        if intercept != "0":
            sign = "-" if intercept.startswith("-") else "+"
            text = f"{text} {sign} {intercept.lstrip('-')}"
        return f"{self.column} = {text}"


def _number(value: float) -> str:
    """``value`` to six significant digits, ``0`` for a negative zero."""
    text = f"{value:.6g}"
    return "0" if text == "-0" else text


def _numbers(column: pd.Series) -> np.ndarray:
    """``column`` as floats: a value that is not a finite number is missing (NaN)."""
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        values = column.to_numpy(dtype="float64", na_value=np.nan)
    else:
        values = pd.to_numeric(column, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    return np.where(np.isfinite(values), values, np.nan)


def tolerance(values: np.ndarray) -> float:
    """The largest residual that counts as none for a column of these (known) values.

    Parameters
    ----------
    values : float array
        At least two distinct values.

    Returns
    -------
    float
        The smaller of :data:`RANGE_SHARE` of their range and :data:`GAP_SHARE` of the smallest
        gap between two of them, but at least the rounding of floating point.
    """
    distinct = sorted_distinct(values)
    gap = float(np.diff(distinct).min())
    spread = float(distinct[-1] - distinct[0])
    rounding = _ROUNDING * float(np.abs(distinct).max())
    return max(min(RANGE_SHARE * spread, GAP_SHARE * gap), rounding)


def _needed(coefficients: int) -> int:
    """The distinct rows a fit of this many coefficients (the intercept included) needs."""
    return max(MIN_ROWS, ROWS_PER_COEFFICIENT * coefficients)


def _spread(rows: np.ndarray, most: int) -> np.ndarray:
    """At most ``most`` of ``rows``, evenly spread (all of them when they are as few)."""
    if len(rows) <= most:
        return rows
    return rows[np.linspace(0, len(rows) - 1, most).round().astype(np.int64)]


def _varied(parts: np.ndarray) -> np.ndarray:
    """The indices of the columns of ``parts`` with two known values or more (a constant is
    the intercept); ``fmin`` and ``fmax`` pass over a missing value."""
    low = np.fmin.reduce(parts, axis=0, initial=np.inf)
    high = np.fmax.reduce(parts, axis=0, initial=-np.inf)
    return np.flatnonzero(high > low)


class _Candidates:
    """The candidate parts on the sample rows where a column is known, prepared once for every
    column known on the same rows: those with two known values or more there (a constant is the
    intercept; ``fmin`` and ``fmax`` pass over a missing value), their values and names, which
    of their values are known (also as one integer per part, a bit per row, for the greedy
    choice of :func:`_chosen`), and each centred with a missing value taken as its mean, for
    the correlations."""

    def __init__(self, parts: np.ndarray, names: np.ndarray) -> None:
        varied = _varied(parts)
        self.names, self.parts = names[varied], parts[:, varied]
        self.known = ~np.isnan(self.parts)
        packed = np.ascontiguousarray(np.packbits(self.known, axis=0, bitorder="little").T)
        self.bits = [int.from_bytes(column.tobytes(), "little") for column in packed]
        self.twentieths = np.floor(20 * self.known.mean(axis=0))
        x = self.parts - np.nanmean(self.parts, axis=0)
        x[np.isnan(x)] = 0.0
        self.centred, self.squares = x, (x * x).sum(axis=0)

    def correlations(self, y: np.ndarray) -> np.ndarray:
        """The absolute correlation of ``y`` with each part, a missing value taken as its
        part's mean (which lowers the correlation of a part missing on many rows); 0 for a part
        constant on the rows."""
        centred = y - y.mean()
        spread = np.sqrt(self.squares * (centred @ centred))
        return np.abs(centred @ self.centred) / np.where(spread > 0, spread, np.inf)


def _distinct(rows: np.ndarray) -> int:
    """How many distinct rows ``rows`` holds, counted by one projection of each row: a sum
    weighted by numbers drawn once (always the same), so that two rows that differ project
    apart but for a coincidence of rounding; several times faster than sorting the rows."""
    weights = np.random.default_rng(0).uniform(1.0, 2.0, rows.shape[1])
    return len(np.unique(rows @ weights))


def _chosen(y: np.ndarray, candidates: _Candidates) -> tuple[list[int], np.ndarray]:
    """The candidates to fit (indices of its parts, in order) and the rows where all of them
    are known (a boolean mask): at most :data:`MAX_PARTS`, taken those known on the most rows
    first (by twentieths of the rows), the most correlated with ``y`` first among those, each
    that leaves enough rows (:func:`_needed`) where all taken are known; the last taken given
    back while too few of those rows are distinct."""
    known, parts = candidates.known, candidates.parts
    taken: list[int] = []
    rows = (1 << len(y)) - 1  # (a bit per row: those where every part taken is known)
    for j in np.lexsort((-candidates.correlations(y), -candidates.twentieths)).tolist():
        if len(taken) == MAX_PARTS:
            break
        with_it = rows & candidates.bits[j]
        if with_it.bit_count() >= _needed(len(taken) + 2):
            taken.append(j)
            rows = with_it
    while taken:
        rows_known = known[:, taken].all(axis=1)
        distinct = _distinct(np.column_stack([y[rows_known], parts[np.ix_(rows_known, taken)]]))
        if distinct >= _needed(len(taken) + 1):
            break
        taken.pop()
    return sorted(taken), known[:, taken].all(axis=1)


@dataclass(frozen=True)
class _Fit:
    """A least-squares fit with an intercept: the intercept and coefficients in the columns'
    own units, the coefficients per standard deviation of their column, the largest absolute
    residual."""

    intercept: float
    coefficients: np.ndarray
    standardized: np.ndarray
    worst: float


class _Fits:
    """Least-squares fits of ``y`` on an intercept and any columns of ``parts`` (none constant),
    the parts centred and scaled for the conditioning. The products of the design with itself
    and with ``y`` are made once: a fit solves a system of its columns only (no large
    decomposition per fit) and measures its residuals on the rows."""

    def __init__(self, y: np.ndarray, parts: np.ndarray) -> None:
        self.y = y
        self.mean, self.scale = parts.mean(axis=0), parts.std(axis=0)
        self.design = np.column_stack([np.ones(len(y)), (parts - self.mean) / self.scale])
        self.gram = self.design.T @ self.design
        self.moment = self.design.T @ y

    def fit(self, columns: Sequence[int]) -> _Fit:
        """The fit on ``columns`` (indices of ``parts``)."""
        at = [0, *(c + 1 for c in columns)]
        beta = np.linalg.lstsq(self.gram[np.ix_(at, at)], self.moment[at], rcond=_RCOND)[0]
        worst = float(np.abs(self.y - self.design[:, at] @ beta).max())
        coefficients = beta[1:] / self.scale[list(columns)]
        intercept = float(beta[0] - coefficients @ self.mean[list(columns)])
        return _Fit(intercept, coefficients, beta[1:], worst)


def _fewest(fits: _Fits, tol: float) -> list[int]:
    """The fewest columns of ``fits`` (indices, in order) whose combination gives its ``y``
    within ``tol`` (none: not even all of them): those with a negligible coefficient dropped
    at once, then each whose removal keeps the fit exact, the smallest coefficients first."""
    every = list(range(len(fits.scale)))
    full = fits.fit(every)
    if full.worst > tol:
        return []
    size = np.abs(full.standardized)
    kept = [j for j in every if size[j] > _NEGLIGIBLE * fits.y.std()]
    if not kept or fits.fit(kept).worst > tol:
        kept = every
    for j in sorted(kept, key=lambda j: size[j]):
        rest = [i for i in kept if i != j]
        if rest and fits.fit(rest).worst <= tol:
            kept = rest
    return kept


def _simplest(
    fit: _Fit, y: np.ndarray, parts: np.ndarray, tol: float
) -> tuple[float, tuple[float, ...]]:
    """The intercept and coefficients of ``fit``, each replaced by the nearest fraction of
    denominator at most :data:`_DENOMINATOR` within a thousandth of it (or of 1, for a value
    below 1: ``1/3`` for a mean of three parts, ``0`` for an intercept of rounding), when the
    combination so written still gives ``y`` within ``tol``; else as fitted."""
    fitted = (fit.intercept, *map(float, fit.coefficients))
    simple = tuple(_fraction(v) for v in fitted)
    if float(np.abs(y - simple[0] - parts @ np.array(simple[1:])).max()) <= tol:
        return simple[0], simple[1:]
    return fitted[0], fitted[1:]


def _fraction(value: float) -> float:
    """The nearest fraction to ``value`` of denominator at most :data:`_DENOMINATOR`, if it is
    within a thousandth of ``value`` (of 1, for a value below 1); else ``value``."""
    near = float(Fraction(value).limit_denominator(_DENOMINATOR))
    return near if abs(near - value) <= 1e-3 * max(abs(value), 1.0) else value


def _holds(
    data: pd.DataFrame, column: str, parts: Sequence[str], found: tuple[float, tuple[float, ...]]
) -> tuple[int, float]:
    """The rows of ``data`` where ``column`` and ``parts`` are known, and the largest difference
    there between ``column`` and the combination ``found`` (intercept, coefficients) of
    ``parts``. One column at a time, so that the memory is that of a few columns."""
    residual = _numbers(data[column]) - found[0]
    for part, coefficient in zip(parts, found[1], strict=True):
        residual -= coefficient * _numbers(data[part])
    known = ~np.isnan(residual)
    return int(known.sum()), float(np.abs(residual[known]).max(initial=0.0))


def exact_combinations(
    data: pd.DataFrame, columns: Sequence[str], candidates: Sequence[str]
) -> list[Combination]:
    """Each of ``columns`` that is an exact linear combination of two or more of
    ``candidates``.

    Parameters
    ----------
    data : DataFrame
    columns : sequence of str
        Numeric columns (a value that is not a finite number counts as missing).
    candidates : sequence of str
        Numeric columns, none of ``columns`` among them.

    Returns
    -------
    list of Combination
        For each column that is one, in order, the combination of the fewest candidates (see
        the module docstring for the search and its bounds), checked on every row where they
        and the column are known. A column that is none, or of too few rows to tell, has none.
    """
    if len(candidates) < 2 or not columns:
        return []
    sample = data.iloc[_spread(np.arange(len(data)), SAMPLE_ROWS)]
    parts = np.column_stack([_numbers(sample[c]) for c in candidates])
    names = np.array(candidates, dtype=object)
    # the candidates on the rows where a column is known, prepared once for the columns known
    # on the same rows (a survey's items miss the same answers)
    prepared: dict[bytes, _Candidates] = {}

    def on_rows(known: np.ndarray) -> _Candidates:
        key = np.packbits(known).tobytes()
        if key not in prepared:
            prepared[key] = _Candidates(parts[known], names)
        return prepared[key]

    found = (_combination(data, c, _numbers(sample[c]), on_rows) for c in columns)
    return [c for c in found if c is not None]


def _combination(
    data: pd.DataFrame,
    column: str,
    target: np.ndarray,
    on_rows: Callable[[np.ndarray], _Candidates],
) -> Combination | None:
    """The combination of the fewest candidates that gives ``column`` (values ``target`` on the
    sample's rows; ``on_rows`` gives the candidates on the rows where it is known), checked on
    every row of ``data``; None when there is none of two or more, or too few rows to tell."""
    known = ~np.isnan(target)
    if known.sum() < MIN_ROWS:
        return None
    y, candidates = target[known], on_rows(known)
    columns, fitted = _chosen(y, candidates)
    y = y[fitted]
    parts, names = candidates.parts[np.ix_(fitted, columns)], candidates.names[columns]
    varied = _varied(parts)  # (a column may be constant on the rows where all are known)
    if len(varied) < 2 or np.ptp(y) == 0:
        return None
    names, parts, tol = names[varied], parts[:, varied], tolerance(y)
    fits = _Fits(y, parts)
    kept = _fewest(fits, tol)
    if len(kept) < 2:
        return None
    found = _simplest(fits.fit(kept), y, parts[:, kept], tol)
    held, worst = _holds(data, column, list(names[kept]), found)
    if worst > tol:
        return None
    exact = worst <= _ROUNDING * float(np.abs(y).max())
    intercept, coefficients = found
    residual = 0.0 if exact else worst
    return Combination(column, tuple(names[kept]), coefficients, intercept, held, residual)
