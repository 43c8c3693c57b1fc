"""The outcome of a privacy-model check: :class:`Verdict`."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from microanon.core import display
from microanon.core.hierarchy import Hierarchy

from .groups import Groups

__all__ = ["Verdict", "build_verdict"]

#: Parameters that name a verdict's achieved value, in order of precedence.
_SYMBOLS = ("k", "l", "t", "beta", "delta", "delta_max")


@dataclass(frozen=True, eq=False)
class Verdict:
    """Whether a table satisfies a privacy model, and by how much.

    Attributes
    ----------
    model : str
        Model name, e.g. ``"k-anonymity"`` or ``"entropy l-diversity"``.
    parameters : dict
        Model parameters; the threshold (``k``, ``l``, ``t``, ``beta``, ``delta``, ...) is
        ``None`` when none was given.
    holds : bool or None
        Whether the model holds; ``None`` when no threshold was given.
    value : int or float
        Achieved value: the strongest threshold that holds (largest ``k`` or ``l``, smallest
        ``t``).
    offending : DataFrame
        One row per group that violates the threshold, worst first: its quasi-identifier values,
        ``size`` and its own ``value``. Empty when the model holds or no threshold was given.
    groups : int
        Number of groups (equivalence classes).
    lowest : float or None
        For a model bounded on both sides (δ-presence), the smallest group value: the largest
        lower bound that holds (δ_min), beside ``value``, the smallest upper bound (δ_max).
        ``None`` for the other models.
    """

    model: str
    parameters: dict[str, Any]
    holds: bool | None
    value: int | float
    offending: pd.DataFrame = field(repr=False)
    groups: int
    lowest: float | None = None

    @property
    def achieved(self) -> str:
        """The key figure: ``"k = 5"``, ``"t = 0.1523"``, ``"delta_max = 0.5 (lowest 0.1)"``."""
        symbol = next((s for s in _SYMBOLS if s in self.parameters), "value")
        value = self.value if isinstance(self.value, int) else f"{self.value:.6g}"
        if self.lowest is not None:
            value = f"{value} (lowest {self.lowest:.6g})"
        return f"{symbol} = {value}"

    @property
    def head(self) -> str:
        """The model and its parameters: ``"k-anonymity (k=5)"``."""
        args = ", ".join(
            f"{k}={v}" for k, v in self.parameters.items() if k != "form" and _short(v)
        )
        return f"{self.model} ({args})" if args else self.model

    def __str__(self) -> str:
        head = self.head
        if self.holds is None:
            return f"{head}: achieved {self.achieved} over {self.groups:,} groups"
        if self.holds:
            return f"{head}: holds; achieved {self.achieved} over {self.groups:,} groups"
        return (
            f"{head}: fails; achieved {self.achieved}; {len(self.offending):,} of "
            f"{self.groups:,} groups offend"
        )

    def __repr__(self) -> str:
        return f"<Verdict {self}>"

    def _repr_html_(self) -> str:
        """The verdict in a notebook: holds ✓/✗, the achieved value, the worst groups."""
        state = {None: "no threshold given", True: "holds", False: "fails"}[self.holds]
        figures = {"groups": self.groups, "offending groups": len(self.offending)}
        parts: list[Any] = [display.pairs(figures)]
        if len(self.offending):
            parts.append(
                display.frame_table(
                    self.offending,
                    caption=f"The worst offending groups (of {len(self.offending):,}).",
                )
            )
        key = f"{display.mark(self.holds)} {state}: achieved {self.achieved}"
        return display.card(self.head, key, *parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form: plain Python values, offending groups as a list of records."""
        return {
            "model": self.model,
            "parameters": {k: _plain(v) for k, v in self.parameters.items()},
            "holds": self.holds,
            "value": self.value,
            "groups": self.groups,
            **({} if self.lowest is None else {"lowest": self.lowest}),
            "offending": [
                {str(k): _plain(v) for k, v in rec.items()}
                for rec in self.offending.to_dict(orient="records")
            ],
        }


def _short(value: Any) -> bool:
    """Whether a parameter is set and short enough for the one-line summary."""
    return value is not None and not isinstance(value, (Hierarchy, list, tuple))


def _plain(value: Any) -> Any:
    """Convert a parameter or cell to a JSON-friendly Python value."""
    if isinstance(value, Hierarchy):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (pd.Timestamp, pd.Timedelta)):
        return value.isoformat()
    return value


def _free_name(name: str, taken: tuple[Hashable, ...]) -> str:
    """``name``, with underscores appended while it clashes with a quasi-identifier name."""
    while name in taken:
        name += "_"
    return name


def build_verdict(
    model: str,
    parameters: dict[str, Any],
    groups: Groups,
    group_values: np.ndarray,
    value: int | float,
    offending: np.ndarray | None,
    worst_is_high: bool = False,
    lowest: float | None = None,
) -> Verdict:
    """Assemble a :class:`Verdict` from per-group values.

    Parameters
    ----------
    model, parameters, value
        As in :class:`Verdict`.
    groups : Groups
        The checked groups.
    group_values : (n_groups,) array
        Each group's own value.
    offending : (n_groups,) bool array or None
        Mask of violating groups; ``None`` when no threshold was given.
    worst_is_high : bool
        Whether larger values are worse (t-closeness); offending groups are listed worst first.
    lowest : float, optional
        As in :class:`Verdict`.
    """
    holds = None if offending is None else not bool(offending.any())
    idx = np.flatnonzero(offending) if offending is not None else np.zeros(0, dtype=np.int64)
    score = group_values[idx]
    idx = idx[np.argsort(-score if worst_is_high else score, kind="stable")]
    frame = groups.keys.iloc[idx].reset_index(drop=True)
    frame[_free_name("size", groups.quasi)] = groups.sizes[idx]
    frame[_free_name("value", groups.quasi)] = group_values[idx]
    return Verdict(model, parameters, holds, value, frame, groups.n_groups, lowest)
