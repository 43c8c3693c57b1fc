"""β-likeness: a bound on the relative gain of confidence in each sensitive value.

Cao & Karras, *Publishing Microdata with a Robust Privacy Guarantee*, PVLDB 5(11), 2012.

t-closeness bounds an average distance between distributions, so a rare sensitive value can
still become much more likely inside a class. β-likeness bounds every value on its own, relative
to its overall share: for a value with share ``p`` in the whole table and share ``q`` in a class,
the gain ``(q - p) / p`` may not exceed β where ``q > p`` (a loss of confidence is harmless).

- ``basic``: ``(q - p) / p <= β`` for every value of every class;
- ``enhanced``: ``(q - p) / p <= min(β, -ln p)``, which also keeps a frequent value's share
  below 1 (``q <= p (1 - ln p) < 1``): with ``basic`` and β >= 1 a value held by half the table
  may fill a whole class, with ``enhanced`` its share stays at most ``0.5 (1 + ln 2) ≈ 0.85``.

The overall shares are those of the whole checked table (a :class:`Groups` may carry another
reference, e.g. the original table's counts during a search). A class's own value is its largest
gain; under ``enhanced``, a class with a gain above ``-ln p`` satisfies no β and has value ∞. The
verdict's value is the largest over classes: the smallest β that holds. ARX implements both
forms (``BasicBLikeness``, ``EnhancedBLikeness``) the same way.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from microanon.core.constraints import Choice, Param, Real
from microanon.core.errors import InputError

from .base import BOUND_SLACK, ClassBounds, PrivacyModel
from .groups import Columns, Groups, groups_of, on_known, spread
from .params import TOL, choice, real
from .verdict import Verdict, build_verdict

__all__ = ["beta_likeness", "BetaLikeness", "LIKENESS_FORMS", "pair_ratios"]

#: The β-likeness forms.
LIKENESS_FORMS = ("basic", "enhanced")


def _check_beta(beta: Any, form: str) -> float | None:
    """Validate β (> 0) and the form."""
    choice("form", form, LIKENESS_FORMS)
    if beta is None:
        return None
    beta = real("beta", beta)
    if beta <= 0:
        raise InputError(f"beta must be positive, got {beta!r}")
    return beta


def pair_ratios(groups: Groups) -> tuple[np.ndarray, np.ndarray]:
    """``q / p`` of every (group, sensitive value) pair, and ``p`` of its value.

    ``q`` is the value's share in the group, ``p`` its share in the reference
    (``groups.value_counts``). The ratio is computed from counts in one division,
    ``count · N / (size · N_value)``; a value absent from the reference has ratio ∞.
    """
    total = float(groups.value_counts.sum())
    ref = groups.value_counts[groups.pair_value].astype(np.float64)
    num = groups.pair_count.astype(np.float64) * total
    den = groups.sizes[groups.pair_group].astype(np.float64) * ref
    with np.errstate(divide="ignore"):
        ratio = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.inf)
    return ratio, ref / total


def _own(groups: Groups, form: str, beta: float | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Each group's own value, and (with β) whether it passes."""
    ratio, p = pair_ratios(groups)
    gain = ratio - 1.0
    own = np.maximum(np.maximum.reduceat(gain, groups.starts), 0.0)
    if form == "enhanced":
        with np.errstate(divide="ignore"):
            cap = -np.log(p)
        beyond = np.logical_or.reduceat(gain > cap + TOL, groups.starts)
        own = np.where(beyond, np.inf, own)
    if beta is None:
        return own, None
    return own, own <= beta + TOL


def beta_likeness(
    data: pd.DataFrame | Groups,
    quasi: Columns | None,
    sensitive: Hashable | None,
    beta: float | None = None,
    form: str = "basic",
) -> Verdict:
    """Check basic or enhanced β-likeness.

    Parameters
    ----------
    data : DataFrame or Groups
        The table, or its prebuilt groups (built with the sensitive column).
    quasi : column name or sequence of names, or None
        Quasi-identifier columns (``None`` with prebuilt groups).
    sensitive : column name or None
        Sensitive column (``None`` with prebuilt groups).
    beta : float, optional
        Largest allowed relative gain, > 0. Without it the verdict only reports the achieved
        value.
    form : {"basic", "enhanced"}, default "basic"

    Returns
    -------
    Verdict
        ``value`` is the largest relative gain ``(q - p) / p`` over classes and values (∞ when,
        under ``enhanced``, some gain exceeds ``-ln p``): the smallest β that holds. The model
        holds iff every gain is at most the bound plus 1e-12.

    Raises
    ------
    InputError
        If ``beta <= 0``, the form is unknown or the columns are unusable.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"zip": ["a", "a", "b", "b"], "disease": ["flu", "hiv", "flu", "flu"]})
    >>> beta_likeness(df, "zip", "disease", beta=1.0).value  # hiv: q = 1/2, p = 1/4
    1.0
    """
    beta = _check_beta(beta, form)
    groups = groups_of(data, quasi, sensitive, need_sensitive=True)
    view, positions = groups.known_view()
    own, ok = _own(view, form, beta)
    own, ok = spread(groups, positions, own, 0.0), spread(groups, positions, ok, True)
    return build_verdict(
        f"{form} beta-likeness",
        {"beta": beta, "form": form},
        groups,
        own,
        float(own.max()),
        None if ok is None else ~ok,
        worst_is_high=True,
    )


def size_under_caps(caps: np.ndarray, n_total: int) -> int:
    """Smallest class size whose records can all fit under per-value share caps.

    A class of ``n`` records holds at most ``⌊a_v n⌋`` records of value ``v`` (and at most
    ``n``); it needs ``Σ_v min(n, ⌊a_v n⌋) >= n``. The caps are widened by the slack.
    """
    caps = caps[caps > 0] * (1.0 + BOUND_SLACK) + BOUND_SLACK
    start = 1
    while start <= n_total:
        sizes = np.arange(start, min(start + 512, n_total + 1), dtype=np.float64)
        fit = np.minimum(np.floor(sizes[:, None] * caps[None, :]), sizes[:, None]).sum(axis=1)
        ok = fit >= sizes
        if ok.any():
            return int(sizes[np.argmax(ok)])
        start += 512
    return n_total


def share_cap_deficits(groups: Groups, caps: np.ndarray) -> np.ndarray:
    """Deficits of per-value share caps ``q_v <= a_v``: ``max_v (c_v - a_v n) / (1 - a_v)``.

    Passing parts hold at most ``a_v`` of their records with value ``v``, failing parts at most
    all of theirs, so ``c_v <= a_v (n - s) + s`` for ``s`` failing records.
    """
    a = caps[groups.pair_value] * (1.0 + BOUND_SLACK) + BOUND_SLACK
    n = groups.sizes[groups.pair_group].astype(np.float64)
    bounded = a < 1.0
    need = np.where(bounded, (groups.pair_count - a * n) / np.where(bounded, 1.0 - a, 1.0), 0.0)
    return np.maximum(np.maximum.reduceat(need, groups.starts), 0.0)


class ShareCapped(PrivacyModel):
    """What β-likeness and δ-disclosure privacy share for the search: each caps every value's
    share in a class at a fixed multiple of its share in the reference (``bounds``)."""

    @abstractmethod
    def bounds(self, reference: np.ndarray) -> np.ndarray:
        """The cap of each value's share in a class, given the reference's counts."""

    @property
    def compares_with_reference(self) -> bool:
        """Each class is compared with the whole table's sensitive distribution."""
        return True

    def class_bounds(self, reference: np.ndarray | None, numeric: bool) -> ClassBounds:
        """The smallest class whose records fit under the caps (:func:`size_under_caps`)."""
        if reference is None:
            return ClassBounds()
        return ClassBounds(min_size=size_under_caps(self.bounds(reference), int(reference.sum())))

    def deficits(self, groups: Groups, people: np.ndarray | None) -> np.ndarray:
        """:func:`share_cap_deficits` on each group's known values."""
        return on_known(
            groups, lambda view: share_cap_deficits(view, self.bounds(view.value_counts))
        )


@dataclass(frozen=True)
class BetaLikeness(ShareCapped):
    """β-likeness with a fixed β and form (see :func:`beta_likeness`).

    Notes
    -----
    Monotone under merging classes (each bound is ``q <= a·p`` with ``a`` fixed per value, and
    such bounds add up), not under suppression (a passing class merged with a failing one may
    fail).
    """

    PROMISE: ClassVar[str] = (
        "In every group, no sensitive value is more frequent than in the whole table by more "
        "than a relative beta (beta = 1: at most twice as frequent)."
    )
    PARAMETERS: ClassVar[tuple[Param, ...]] = (
        Param(
            "beta",
            "How much more frequent a sensitive value may be in a group than in the whole "
            "table, relatively (1 = at most twice as frequent).",
            (Real(0, None, closed="neither"),),
        ),
        Param(
            "form",
            "basic: bounds each value's gain by beta; enhanced: also keeps a value that is "
            "frequent in the table from filling a whole group.",
            (Choice(("basic", "enhanced")),),
        ),
    )

    beta: float
    form: str = "basic"

    def __post_init__(self) -> None:
        beta = _check_beta(self.beta, self.form)
        if beta is None:
            raise InputError("beta: a configured beta-likeness model needs a value of beta")
        object.__setattr__(self, "beta", beta)

    @property
    def name(self) -> str:
        """``"basic beta-likeness"`` or ``"enhanced beta-likeness"``."""
        return f"{self.form} beta-likeness"

    def check(
        self,
        data: pd.DataFrame | Groups,
        quasi: Columns | None = None,
        sensitive: Hashable | None = None,
    ) -> Verdict:
        """Check the model on a table or prebuilt groups."""
        return beta_likeness(data, quasi, sensitive, self.beta, self.form)

    @property
    def monotone(self) -> bool:
        """A share cap that holds in every part holds in their union."""
        return True

    def group_ok(self, groups: Groups) -> np.ndarray:
        """Groups whose every relative gain is within the bound."""
        view, positions = groups.known_view()
        return spread(groups, positions, _own(view, self.form, self.beta)[1], True)

    def bounds(self, reference: np.ndarray) -> np.ndarray:
        """Largest allowed in-class share of each value, ``p (1 + bound)``, for reference counts."""
        p = reference / reference.sum()
        with np.errstate(divide="ignore"):
            bound = np.minimum(self.beta, -np.log(p)) if self.form == "enhanced" else self.beta
        return p * (1.0 + bound + TOL)

    def to_config(self) -> dict[str, dict[str, Any]]:
        """``{"beta_likeness": {"beta": ..., "form": ...}}``."""
        return {"beta_likeness": {"beta": self.beta, "form": self.form}}
