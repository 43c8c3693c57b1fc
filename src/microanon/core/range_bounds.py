"""The bounds of the ranges a hierarchy cuts from the data: boundaries, not the data's values.

A range a builder takes from the records (a quantile, say) could be labelled by the smallest and
largest values inside it, ``[31.25, 83.5]``; but then the label publishes values exactly, the
extremes first (the oldest applicant's age), and a value whose records were all suppressed is
still read in the labels of the records published beside it. So the cut between two
neighbouring values ``a < b`` is written as the number with the fewest significant digits in
``(a, b]`` (``31.2`` between 31.1667 and 31.25, ``30`` between 28 and 31, ``31`` between 30
and 31), the ranges are half-open, ``[31.2, 100)``, and the outer ends are the roundest numbers
at or below the smallest value and above the largest, within the values' span of them and on
their side of 0, the nearest the values of those (ages 17 to 90 are cut into ``[10, 26)``,
..., ``[82, 100)``; years of experience from -4 to 70 start at ``-10``, not ``-70``).
A bound is a value of the column only where no rounder number separates the two values
(whole numbers next to each other).
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from decimal import ROUND_FLOOR, Decimal

import numpy as np

__all__ = ["range_labels", "recut_labels", "roundest_in"]

#: Digits of the decimal arithmetic: a float's shortest text has at most 17.
_PRECISION = 40


def _decimal(x: float) -> Decimal:
    """``x`` as the decimal its shortest text writes."""
    return Decimal(repr(float(x)))


def roundest_in(
    low: Decimal, high: Decimal, floor: float | None = None, largest: bool = False
) -> Decimal:
    """The number with the fewest significant digits in ``(low, high]`` (the smallest such, or
    with ``largest`` the largest).

    Parameters
    ----------
    low, high : Decimal
        The window, ``low < high``.
    floor : float, optional
        A float the result must exceed once read back as a float: where ``low`` is a float's
        text, a decimal just above it may read back as that float. Not with ``largest``.
    largest : bool, default False
        The largest of the roundest numbers (nearest ``high``), not the smallest.

    Returns
    -------
    Decimal
        A multiple of the largest power of ten that has one in the window.
    """
    if largest and floor is not None:
        raise ValueError("roundest_in: floor bounds the smallest of the roundest numbers only")
    with decimal.localcontext() as context:
        context.prec = _PRECISION
        top = max(abs(low), abs(high))
        exponent = top.adjusted() + 1 if top else 0
        while True:
            step = Decimal(1).scaleb(exponent)
            if largest:
                cut = (high / step).to_integral_value(rounding=ROUND_FLOOR) * step
            else:
                cut = ((low / step).to_integral_value(rounding=ROUND_FLOOR) + 1) * step
            while floor is not None and float(cut) <= floor:
                cut += step
            if low < cut <= high:  # (the smallest: above low, and above floor by the loop)
                return cut + 0  # (+ 0 drops a negative zero's sign)
            exponent -= 1


def _text(x: Decimal) -> str:
    """``x`` as a label writes it: plainly, or in powers of ten far from 1 (``1.5e+300``)."""
    x = x.normalize()
    return format(x, "f") if -7 < x.adjusted() < 16 else format(x, "e")


def range_labels(domain: np.ndarray, starts: list[np.ndarray]) -> list[list[str]]:
    """Labels of ranges of sorted distinct numbers, level by level.

    Parameters
    ----------
    domain : (d,) float array
        The distinct values, increasing (at least one).
    starts : list of int arrays
        Per level, the positions in ``domain`` where its ranges after the first begin
        (increasing, each at least 1); the first level's ranges are the narrowest.

    Returns
    -------
    list of list of str
        Per level, one label ``[from, to)`` per range in order: ``from`` and ``to`` are the
        roundest numbers between the neighbouring values at its ends (the module's notes), the
        outer ends the same at every level.
    """
    # (only the values beside a cut and at the ends are made decimals: a quantile hierarchy
    # of a measurement has a leaf per distinct value, and a few cuts)

    def cut(i: int) -> Decimal:
        return roundest_in(_decimal(domain[i - 1]), _decimal(domain[i]), floor=float(domain[i - 1]))

    cuts = {int(i): cut(int(i)) for level in starts for i in level}
    with decimal.localcontext() as context:
        context.prec = _PRECISION
        smallest, largest = _decimal(domain[0]), _decimal(domain[-1])
        span = (largest - smallest) or abs(largest) or Decimal(1)  # (one value: its size)
        # the outer ends keep the values' sign: positive values start above 0
        below = max(smallest - span, Decimal(0)) if smallest > 0 else smallest - span
        above = min(largest + span, Decimal(0)) if largest < 0 else largest + span
        first = roundest_in(below, smallest, largest=True)  # (nearest the values)
        last = roundest_in(largest, above, floor=float(domain[-1]))
    labels = []
    for level in starts:
        bounds = [first, *(cuts[int(i)] for i in level), last]
        pairs = zip(bounds, bounds[1:], strict=False)
        labels.append([f"[{_text(a)}, {_text(b)})" for a, b in pairs])
    return labels


def recut_labels(
    labels: Sequence[str], values: np.ndarray, codes: np.ndarray, held: np.ndarray
) -> list[str] | None:
    """A level's labels with its ranges cut again on the values that are published.

    A range cut from the data is bounded by the values on both sides of it, the records of
    which a release may have suppressed: ``[88, 90)`` tells that the next age, 90, is held,
    though the only person of 90 was suppressed. The ranges that hold a published value are
    labelled by :func:`range_labels` over the published values alone, so every bound lies
    between published values, or beyond them.

    Parameters
    ----------
    labels : sequence of str
        The level's labels, by level code.
    values : (d,) float array
        The hierarchy's leaves as numbers, increasing.
    codes : (d,) int array
        Each leaf's level code (non-decreasing).
    held : (d,) bool array
        Whether a published record holds the leaf.

    Returns
    -------
    list of str or None
        The labels, those of the ranges without a published value unchanged; None when the
        level's labels are not the ranges :func:`range_labels` cuts from ``values`` (an
        owner's intervals, groups), which are not cut again.
    """
    starts = np.flatnonzero(np.diff(codes)) + 1
    if len(values) < 2 or range_labels(values, [starts])[0] != list(labels):
        return None
    out = list(labels)
    kept = np.flatnonzero(held)
    if len(kept) == 0:
        return out
    kept_codes = codes[kept]
    first = np.flatnonzero(np.diff(kept_codes)) + 1
    (new,) = range_labels(values[kept], [first])
    for code, label in zip(kept_codes[np.r_[0, first]].tolist(), new, strict=True):
        out[code] = label
    return out
