"""Validation of model parameters (shared by the functions and the model classes).

Local recoding (:func:`~microanon.methods.generalize.local_recoding`) checks its ``k`` with
:func:`integer` too.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

from microanon.core.errors import InputError

__all__ = ["TOL", "choice", "integer", "real"]

#: Tolerance of every real-valued threshold comparison (absorbs rounding).
TOL = 1e-12


def integer(name: str, value: Any, minimum: int = 1) -> int:
    """An integer parameter ``>= minimum``; integral floats such as ``3.0`` are accepted."""
    ok = isinstance(value, numbers.Integral) or (
        isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer()
    )
    if isinstance(value, bool) or not ok:
        raise InputError(f"{name} must be an integer, got {value!r}")
    if int(value) < minimum:
        raise InputError(f"{name} must be at least {minimum}, got {value!r}")
    return int(value)


def real(name: str, value: Any) -> float:
    """A finite real parameter."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise InputError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def choice(name: str, value: Any, options: Sequence[str]) -> str:
    """One of a fixed set of strings."""
    if value not in options:
        raise InputError(f"unknown {name} {value!r}; choose one of {', '.join(options)}")
    return str(value)
