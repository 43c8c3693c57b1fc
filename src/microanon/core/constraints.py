"""Declared constraints on parameters: what values a parameter takes, checked and described.

A method declares each parameter's constraints once, beside its code
(:mod:`microanon.methods.registry`), in the spirit of scikit-learn's ``_parameter_constraints``:
the configuration's validation, the command line's help, the workbench's forms, the
``microanon methods`` listing and the generated bad-parameter tests all read them. Each
constraint knows

- whether a value satisfies it (:meth:`Constraint.holds`),
- how to say what it wants in a few words (:meth:`Constraint.describe`),
- the form a user fills it in (:attr:`Constraint.form`: ``int``, ``float``, ``bool``, ``str``,
  ``list`` or ``any``) and its bounds or choices (:meth:`Constraint.public`),
- values that break it (:meth:`Constraint.violations`), for tests.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InputError

__all__ = [
    "Anything",
    "Boolean",
    "Choice",
    "ColumnNames",
    "Constraint",
    "Integer",
    "ListOf",
    "PerColumn",
    "Param",
    "REQUIRED",
    "SMALLEST_GROUP",
    "Real",
    "Text",
    "plain_value",
]


def plain_value(value: Any) -> str:
    """A value as a user wrote it: ``98`` rather than ``np.int64(98)``, strings quoted."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if value is None:
        return "null"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


class Constraint:
    """What a parameter's value must be (subclasses say what)."""

    #: The form a user fills the value in: int, float, bool, str, list or any.
    form = "any"

    def holds(self, value: Any) -> bool:  # pragma: no cover - every subclass overrides it
        """Whether ``value`` satisfies the constraint."""
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - every subclass overrides it
        """What the constraint wants, in a few words (``"an integer >= 2"``)."""
        raise NotImplementedError

    def public(self) -> dict[str, Any]:
        """Bounds or choices for a form or a listing (empty when there are none)."""
        return {}

    def violations(self) -> list[Any]:
        """Values that break the constraint (for generated tests)."""
        return [object()]


@dataclass(frozen=True)
class _Bounded(Constraint):
    low: float | None = None
    high: float | None = None
    #: ``both``, ``left``, ``right`` or ``neither``: which bounds belong to the range.
    closed: str = "both"

    def _within(self, value: float) -> bool:
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def _range(self) -> str:
        low_in = self.closed in ("both", "left")
        high_in = self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            return (
                f" in {'[' if low_in else '('}{plain_value(self.low)}, "
                f"{plain_value(self.high)}{']' if high_in else ')'}"
            )
        if self.low is not None:
            return f" {'>=' if low_in else '>'} {plain_value(self.low)}"
        if self.high is not None:
            return f" {'<=' if high_in else '<'} {plain_value(self.high)}"
        return ""

    def public(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.low is not None:
            out["minimum" if self.closed in ("both", "left") else "above"] = self.low
        if self.high is not None:
            out["maximum" if self.closed in ("both", "right") else "below"] = self.high
        return out

    def _outside(self) -> list[float]:
        out = []
        if self.low is not None:
            out.append(self.low - 1 if self.closed in ("both", "left") else self.low)
        if self.high is not None:
            out.append(self.high + 1 if self.closed in ("both", "right") else self.high)
        return out


@dataclass(frozen=True)
class Integer(_Bounded):
    """An integer (never a bool), within optional bounds."""

    form = "int"

    def holds(self, value: Any) -> bool:
        return _is_integer(value) and self._within(int(value))

    def describe(self) -> str:
        return "an integer" + self._range()

    def violations(self) -> list[Any]:
        return [*(int(v) for v in self._outside()), "many", True]


@dataclass(frozen=True)
class Real(_Bounded):
    """A finite number (integers included, bools not), within optional bounds."""

    form = "float"

    def holds(self, value: Any) -> bool:
        return _is_real(value) and self._within(float(value))

    def describe(self) -> str:
        return "a number" + self._range()

    def violations(self) -> list[Any]:
        return [*self._outside(), "much", float("nan")]


@dataclass(frozen=True)
class Boolean(Constraint):
    """``true`` or ``false``."""

    form = "bool"

    def holds(self, value: Any) -> bool:
        return isinstance(value, (bool, np.bool_))

    def describe(self) -> str:
        return "true or false"

    def violations(self) -> list[Any]:
        return ["yes", 2]


@dataclass(frozen=True)
class Choice(Constraint):
    """One of a fixed set of strings; with ``prefix``, also any of them in any case after an
    optional prefix (randomized response's ``rr-s`` for ``S``)."""

    options: tuple[str, ...]
    prefix: str = ""
    form = "str"

    def holds(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        if not self.prefix:
            return value in self.options
        name = value.strip().lower().removeprefix(self.prefix.lower())
        return name in {o.lower() for o in self.options}

    def describe(self) -> str:
        lenient = f" (in any case, after an optional {self.prefix})" if self.prefix else ""
        return "one of " + ", ".join(self.options) + lenient

    def public(self) -> dict[str, Any]:
        return {"choices": list(self.options)}

    def violations(self) -> list[Any]:
        return ["no-such-choice", 3]


@dataclass(frozen=True)
class Text(Constraint):
    """Any non-empty string (a column name, a label)."""

    form = "str"

    def holds(self, value: Any) -> bool:
        return isinstance(value, str) and value != ""

    def describe(self) -> str:
        return "a text"

    def violations(self) -> list[Any]:
        return ["", 3]


@dataclass(frozen=True)
class ColumnNames(Constraint):
    """A column name, or a list of column names (the schema decides whether they exist)."""

    form = "list"

    def holds(self, value: Any) -> bool:
        if isinstance(value, str):
            return value != ""
        return (
            isinstance(value, Sequence)
            and len(value) > 0
            and all(isinstance(v, str) and v != "" for v in value)
        )

    def describe(self) -> str:
        return "a column name or a list of column names"

    def violations(self) -> list[Any]:
        return [[], 3, [1, 2]]


@dataclass(frozen=True)
class PerColumn(Constraint):
    """A mapping from column names to values that satisfy ``values`` (any value when None);
    ``keys`` says what its keys are when they name something else (a distribution)."""

    values: Constraint | None = None
    keys: str = "column names"

    def holds(self, value: Any) -> bool:
        return (
            isinstance(value, Mapping)
            and len(value) > 0
            and all(isinstance(k, str) for k in value)
            and (self.values is None or all(self.values.holds(v) for v in value.values()))
        )

    def describe(self) -> str:
        if self.values is None:
            return f"a mapping from {self.keys}"
        return f"a mapping from {self.keys} to {self.values.describe()}"

    def violations(self) -> list[Any]:
        bad = [] if self.values is None else self.values.violations()[:1]
        return [{}, "column", *({"column": v} for v in bad)]


@dataclass(frozen=True)
class ListOf(Constraint):
    """A non-empty list whose items all satisfy ``values`` (one per column, in order)."""

    values: Constraint
    form = "list"

    def holds(self, value: Any) -> bool:
        return (
            isinstance(value, Sequence)
            and not isinstance(value, str)
            and len(value) > 0
            and all(self.values.holds(v) for v in value)
        )

    def describe(self) -> str:
        return f"a list of {self.values.describe()}"

    def violations(self) -> list[Any]:
        return [[], [v for v in self.values.violations()[:1]]]


@dataclass(frozen=True)
class Anything(Constraint):
    """Any value; the method checks it (a structure too rich for a declaration)."""

    #: What the method takes, in words.
    words: str = "a value"

    def holds(self, value: Any) -> bool:
        return True

    def describe(self) -> str:
        return self.words

    def violations(self) -> list[Any]:
        return []


#: A parameter without a default: the caller must give it.
REQUIRED: Any = type("Required", (), {"__repr__": lambda self: "REQUIRED"})()


@dataclass(frozen=True)
class Param:
    """One declared parameter: its name, what it means for a data owner, and its constraints.

    Attributes
    ----------
    name : str
        The keyword the function takes.
    help : str
        What it does, in words for a data owner (the workbench's forms and the listing show it).
    allowed : tuple of Constraint
        The value satisfies at least one of them. ``None`` is allowed when the default is
        ``None`` (it then means "the default behaviour").
    default : object
        The function's default (:data:`REQUIRED` when it has none), filled in from the
        signature by whoever registers the function.
    dask_only : bool
        Taken only out of core (``--engine dask``).
    none_means : str
        What ``None`` means when the default is not ``None`` (e.g. ``"no limit"``); empty when
        ``None`` is refused (unless it is the default).
    """

    name: str
    help: str
    allowed: tuple[Constraint, ...]
    default: Any = REQUIRED
    dask_only: bool = False
    none_means: str = ""

    @property
    def required(self) -> bool:
        """Whether the caller must give the parameter."""
        return self.default is REQUIRED

    def form(self) -> str:
        """The form a user fills the value in (the first constraint's)."""
        return self.allowed[0].form if self.allowed else "any"

    def describe(self) -> str:
        """What the value must be, in a few words."""
        text = " or ".join(c.describe() for c in self.allowed) or "any value"
        if self.none_means:
            return f"{text} (or null: {self.none_means})"
        return text + (" (or null)" if self.default is None else "")

    def holds(self, value: Any) -> bool:
        """Whether ``value`` is allowed."""
        if value is None and (self.default is None or self.none_means):
            return True
        return any(c.holds(value) for c in self.allowed)

    def check(self, owner: str, value: Any) -> None:
        """Raise :class:`~microanon.core.errors.InputError` naming ``owner``, the parameter
        and the value when ``value`` is not allowed."""
        if not self.holds(value):
            raise InputError(
                f"{owner}: {self.name} must be {self.describe()}, got {plain_value(value)}"
            )

    def named_columns(self, value: Any) -> list[str]:
        """The column names ``value`` gives: a :class:`ColumnNames` value, or the keys of a
        :class:`PerColumn` mapping of column names, by the first constraint ``value`` meets;
        none for any other value."""
        for constraint in self.allowed:
            if not constraint.holds(value):
                continue
            if isinstance(constraint, ColumnNames):
                return [value] if isinstance(value, str) else list(value)
            if isinstance(constraint, PerColumn) and constraint.keys == "column names":
                return list(value)
            return []
        return []

    def violations(self) -> list[Any]:
        """Values no constraint of the parameter allows (for generated tests)."""
        candidates = [v for c in self.allowed for v in c.violations()]
        return [v for v in candidates if not self.holds(v)]

    def public(self) -> dict[str, Any]:
        """The declaration as plain JSON: name, type, default, required, help, bounds, choices."""
        out: dict[str, Any] = {
            "name": self.name,
            "type": self.form(),
            "default": None if self.required else _json_default(self.default),
            "required": self.required,
            "help": self.help,
            "accepts": self.describe(),
        }
        for constraint in self.allowed:
            for key, value in constraint.public().items():
                out.setdefault(key, value)
        return out


def _json_default(value: Any) -> Any:
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_json_default(v) for v in value]
    return None


#: The parameter ``k`` of every method and model that makes at least k records look alike.
SMALLEST_GROUP = Param(
    "k",
    "Smallest number of records that must look alike (share their published quasi-identifier "
    "values or group).",
    (Integer(1),),
)
