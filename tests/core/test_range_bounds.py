"""The bounds of data-built ranges lie between the data's values: the roundest number of each gap.

A quantile or numeric balanced range had been labelled by the smallest and largest values inside
it, so a label published those values exactly: AER's CreditCard, cut in quantiles of age, showed
``[31.25, 83.5]``, and 83.5 is one applicant's age, whose record the release had suppressed.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import rdataset

from microanon.core.hierarchy import Hierarchy
from microanon.core.range_bounds import range_labels, roundest_in


def _reference(low: Decimal, high: Decimal, largest: bool = False) -> Decimal:
    """The plain definition over hundredths: in ``(low, high]``, the number whose last non-zero
    digit stands at the highest place (0 above all), the smallest of those (or the largest)."""
    candidates = [Decimal(i).scaleb(-2) for i in range(int(low * 100) + 1, int(high * 100) + 1)]

    def place(c: Decimal) -> float:
        return float("inf") if c == 0 else c.normalize().as_tuple().exponent

    best = max(place(c) for c in candidates)
    return (max if largest else min)(c for c in candidates if place(c) == best)


@settings(max_examples=300, deadline=None)
@given(st.integers(-30_000, 30_000), st.integers(1, 30_000))
def test_the_cut_is_the_roundest_number_of_its_gap(low, gap):
    a, b = Decimal(low).scaleb(-2), Decimal(low + gap).scaleb(-2)
    assert roundest_in(a, b) == _reference(a, b)


@settings(max_examples=300, deadline=None)
@given(st.integers(-30_000, 30_000), st.integers(1, 30_000))
def test_the_lower_outer_end_is_the_roundest_number_nearest_the_values(low, gap):
    a, b = Decimal(low).scaleb(-2), Decimal(low + gap).scaleb(-2)
    assert roundest_in(a, b, largest=True) == _reference(a, b, largest=True)


def test_the_ranges_of_years_of_experience_start_near_the_values():
    """AER's CPS1988: potential experience runs from -4 to 63 years. The first range had
    started at -70 (the smallest of the roundest numbers within the span below -4), which
    reads as decades of negative experience; it starts at -10."""
    experience = rdataset("AER", "CPS1988")["experience"]
    h = Hierarchy.quantiles(experience, [4])
    assert h.level_labels(1)[0].startswith("[-10, ")
    assert h.level_labels(1)[-1].endswith(", 100)")


def test_a_cut_between_neighbouring_floats_reads_back_above_the_lower():
    """0.10000000000000001 lies above 0.1 as a decimal but reads back as 0.1: the cut is the
    upper value's own text."""
    below = 0.1
    above = float(np.nextafter(below, 1))
    (labels,) = range_labels(np.array([below, above, 0.3]), [np.array([1, 2])])
    assert labels == ["[0.1, 0.10000000000000002)", "[0.10000000000000002, 0.2)", "[0.2, 0.4)"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.floats(-1e7, 1e7, allow_nan=False, allow_infinity=False) | st.integers(-100, 100),
        min_size=2,
        max_size=80,
    ),
    st.lists(st.integers(2, 12), min_size=1, max_size=3).map(lambda b: sorted(b, reverse=True)),
)
def test_quantile_bounds_separate_the_values_and_are_the_roundest_between_them(values, bins):
    """Each label ``[from, to)`` holds exactly its leaves once read back as numbers; ``from`` is
    the roundest number between the leaf below and its first leaf, and the outer ends are at or
    below the smallest value and above the largest, on their side of 0."""
    h = Hierarchy.quantiles(values, bins)
    leaves = np.array(sorted({float(v) for v in values}))
    for level in range(1, h.height):
        labels = np.array(h.generalize(sorted(set(values), key=float), level), dtype=object)
        for label in dict.fromkeys(labels):
            text_low, text_high = label.strip("[)").split(", ")
            low, high = float(text_low), float(text_high)
            held = leaves[labels == label]
            assert set(held) == {v for v in leaves if low <= v < high}, label
            first = int(np.searchsorted(leaves, held[0]))
            if first == 0:
                assert low <= leaves[0] and (low > 0 or leaves[0] <= 0)
            else:
                gap = (Decimal(repr(float(leaves[first - 1]))), Decimal(repr(float(held[0]))))
                assert Decimal(text_low) == roundest_in(*gap, floor=leaves[first - 1])
            if held[-1] == leaves[-1]:
                assert high > leaves[-1] and (high <= 0 or leaves[-1] >= 0)


def test_creditcard_ages_publish_no_applicant_s_age_at_the_ends():
    """AER's CreditCard: 1,319 applicants aged 0.17 to 83.5 (418 ages). The coarsest level had
    been ``[0.1666667, 31.16667]`` and ``[31.25, 83.5]``; now no label shows the youngest or the
    oldest age, and a bound is an age only where no rounder number lies between two ages."""
    age = rdataset("AER", "CreditCard")["age"]
    h = Hierarchy.quantiles(age, [16, 4, 2])
    assert h.level_labels(h.height - 1) == ["[0.1, 31.2)", "[31.2, 100)"]
    assert h.level_labels(h.height - 2) == [
        "[0.1, 25.4)",
        "[25.4, 31.2)",
        "[31.2, 39.4)",
        "[39.4, 100)",
    ]
    bounds = {
        float(x)
        for level in range(1, h.height)
        for label in h.level_labels(level)
        for x in label.strip("[)").split(",")
    }
    assert bounds & set(age) == {24.5}  # between 24.41667 and 24.5 nothing is rounder


def test_balanced_ranges_of_numbers_lie_between_them():
    """A balanced tree over numbers: the same bounds as quantiles; over text in a declared order,
    the closed ranges of its values."""
    h = Hierarchy.balanced([1, 2, 3, 4, 5, 6, 7, 8, 9])
    assert h.level_labels(1) == ["[1, 3)", "[3, 5)", "[5, 7)", "[7, 9)", "[9, 10)"]
    assert h.level_labels(2) == ["[1, 5)", "[5, 9)", "[9, 10)"]
    grades = Hierarchy.balanced(["low", "mid", "high"], order=["low", "mid", "high"])
    assert grades.level_labels(1) == ["[low, mid]", "[high, high]"]
