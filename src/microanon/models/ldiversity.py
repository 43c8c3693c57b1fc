"""The ℓ-diversity family.

Machanavajjhala, Gehrke, Kifer & Venkitasubramaniam, *ℓ-Diversity: Privacy Beyond k-Anonymity*,
ICDE 2006.

Forms, for a group with sensitive-value counts ``r_1 >= r_2 >= ... >= r_m`` and size ``n``:

- ``frequency``: ``r_1 <= n / ℓ``; a group's own ℓ is ``n / r_1``;
- ``distinct``: ``m >= ℓ``; a group's own ℓ is ``m``;
- ``entropy``: ``H = -Σ (r_i/n) log(r_i/n) >= log ℓ`` (natural log); a group's own ℓ is ``exp(H)``;
- ``recursive`` (c, ℓ): ``r_1 < c (r_ℓ + ... + r_m)``; a group's own ℓ is the largest ℓ it
  satisfies for the given c (0 when even ℓ = 1 fails, i.e. ``c <= 1`` and ``m = 1``).

The table's achieved ℓ is the minimum over groups. A missing sensitive value is unknown and
counts toward nothing: a group is ℓ-diverse on its known values (``n`` counts those), and a group
whose every value is unknown discloses none and passes (:meth:`Groups.known_view`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from microanon.core.constraints import Choice, Param, Real
from microanon.core.errors import InputError

from .base import BOUND_SLACK, ClassBounds, PrivacyModel
from .groups import Columns, Groups, groups_of, on_known, spread
from .params import TOL, choice, integer, real
from .verdict import Verdict, build_verdict

__all__ = ["l_diversity", "LDiversity", "FORMS", "group_diversity"]

#: The ℓ-diversity forms, in the order reports list them.
FORMS = ("frequency", "distinct", "entropy", "recursive")

_NAMES = {
    "frequency": "frequency l-diversity",
    "distinct": "distinct l-diversity",
    "entropy": "entropy l-diversity",
    "recursive": "recursive (c,l)-diversity",
}


#: A group's own ℓ where no sensitive value is known (it discloses none).
_UNBOUNDED = {
    "frequency": math.inf,
    "distinct": np.iinfo(np.int64).max,
    "entropy": math.inf,
    "recursive": np.iinfo(np.int64).max,
}


def _check_parameters(
    ell: int | float | None, form: str, c: float | None
) -> tuple[int | float | None, float | None]:
    """Validate ℓ, the form and c; return ℓ (an int for the counting forms) and c."""
    choice("form", form, FORMS)
    if form == "recursive":
        if c is None:
            raise InputError("c: the recursive (c,l) form needs a constant c > 0, e.g. c=2")
        c = real("c", c)
        if c <= 0:
            raise InputError(f"c must be positive, got {c!r}")
    elif c is not None:
        raise InputError(f"c is only used by the recursive form, not by form={form!r}")
    if ell is not None:
        if form in ("distinct", "recursive"):
            ell = integer("l", ell)
        else:
            ell = real("l", ell)
            if ell < 1:
                raise InputError(f"l must be at least 1, got {ell!r}")
    return ell, c


def _entropy(groups: Groups) -> np.ndarray:
    """Entropy (natural log) of each group's sensitive distribution."""
    p = groups.pair_count / groups.sizes[groups.pair_group]
    return -np.add.reduceat(p * np.log(p), groups.starts)


def _recursive(groups: Groups, c: float) -> np.ndarray:
    """Largest ℓ with ``r_1 < c (r_ℓ + ... + r_m)`` in each group (0 if none)."""
    g = groups.pair_group
    counts = groups.pair_count[np.lexsort((-groups.pair_count, g))]  # per group, descending
    before = np.cumsum(counts) - counts
    tail = groups.sizes[g] - (before - before[groups.starts][g])  # r_i + ... + r_m, >= 1
    # r_1 < c * tail, compared as r_1 / tail < c so that a decimal c is not inflated by rounding.
    ok = groups.max_count[g] / tail < c
    return np.add.reduceat(ok.astype(np.int64), groups.starts)


def group_diversity(groups: Groups, form: str, c: float | None = None) -> np.ndarray:
    """Each group's own ℓ under ``form`` (see the module docstring).

    Parameters
    ----------
    groups : Groups
        Groups built with a sensitive column.
    form : {"frequency", "distinct", "entropy", "recursive"}
    c : float, optional
        The recursive form's constant.

    Returns
    -------
    (n_groups,) array
        float for ``frequency`` and ``entropy``, int64 for ``distinct`` and ``recursive``.
    """
    if form == "frequency":
        return groups.sizes / groups.max_count
    if form == "distinct":
        return groups.n_distinct
    if form == "entropy":
        return np.exp(_entropy(groups))
    return _recursive(groups, c)


def _violations(groups: Groups, form: str, values: np.ndarray, ell: int | float) -> np.ndarray:
    """Mask of the groups that break ℓ (real thresholds with tolerance TOL)."""
    if form == "frequency":
        return groups.max_count / groups.sizes > 1.0 / ell + TOL
    if form == "entropy":
        return np.log(values) < math.log(ell) - TOL
    return values < ell


def l_diversity(
    data: pd.DataFrame | Groups,
    quasi: Columns | None,
    sensitive: Hashable | None,
    l: int | float | None = None,  # noqa: E741 - the model's own name for the parameter
    form: str = "distinct",
    c: float | None = None,
) -> Verdict:
    """Check ℓ-diversity in one of its forms.

    Parameters
    ----------
    data : DataFrame or Groups
        The table, or its prebuilt groups (built with the sensitive column).
    quasi : column name or sequence of names, or None
        Quasi-identifier columns (``None`` with prebuilt groups).
    sensitive : column name or None
        Sensitive column (``None`` with prebuilt groups).
    l : int or float, optional
        Required ℓ >= 1 (an integer for ``distinct`` and ``recursive``). It cannot exceed the
        number of distinct sensitive values of the table. Without it the verdict only reports
        the achieved value.
    form : {"distinct", "frequency", "entropy", "recursive"}
        Which ℓ-diversity (see the module docstring).
    c : float, optional
        Constant of the recursive form (required there, rejected elsewhere).

    Returns
    -------
    Verdict
        ``value`` is the largest ℓ that holds: ``min n/r_1`` (float) for ``frequency``, the
        smallest number of distinct values for ``distinct``, ``exp(min H)`` (float) for
        ``entropy`` and the largest ℓ for the given c for ``recursive``.

    Raises
    ------
    InputError
        On an unknown form, ℓ < 1, a non-integer ℓ for a counting form, c <= 0 or a missing c
        for the recursive form, ℓ above the number of distinct sensitive values (impossible),
        or unusable columns.
    """
    ell, c = _check_parameters(l, form, c)
    groups = groups_of(data, quasi, sensitive, need_sensitive=True)
    if ell is not None and 0 < groups.n_values < ell:
        raise InputError(
            f"l = {ell} is impossible: column {groups.sensitive!r} has only {groups.n_values} "
            "distinct value(s), and no group can be more diverse than the whole table"
        )
    view, positions = groups.known_view()
    values = group_diversity(view, form, c)
    if not len(values):  # no known value at all: no group discloses one, every ℓ holds
        achieved: int | float = math.inf
    elif form in ("frequency", "entropy"):
        achieved = float(values.min())
    else:
        achieved = int(values.min())
    parameters: dict[str, Any] = {"l": ell, "form": form}
    if form == "recursive":
        parameters["c"] = c
    offending = None if ell is None else _violations(view, form, values, ell)
    return build_verdict(
        _NAMES[form],
        parameters,
        groups,
        spread(groups, positions, values, _UNBOUNDED[form]),
        achieved,
        spread(groups, positions, offending, False),
    )


@dataclass(frozen=True)
class LDiversity(PrivacyModel):
    """ℓ-diversity with fixed parameters (see :func:`l_diversity`)."""

    PROMISE: ClassVar[str] = (
        "Within every group of records that look alike, the sensitive column holds at least l "
        "well-represented values, so knowing someone's group does not reveal theirs."
    )
    PARAMETERS: ClassVar[tuple[Param, ...]] = (
        Param("l", "Number of different sensitive values every group must hold.", (Real(1, None),)),
        Param(
            "form",
            "distinct: l different values; entropy: l values about equally frequent (stronger); "
            "recursive: the most frequent value is not too frequent (with c); frequency: no "
            "value in more than 1/l of a group.",
            (Choice(FORMS),),
        ),
        Param(
            "c",
            "Constant of the recursive form (required there, refused elsewhere).",
            (Real(0, None, closed="neither"),),
        ),
    )

    l: int | float  # noqa: E741
    form: str = "distinct"
    c: float | None = None

    def __post_init__(self) -> None:
        ell, c = _check_parameters(self.l, self.form, self.c)
        if ell is None:
            raise InputError("l: a configured l-diversity model needs a value of l")
        object.__setattr__(self, "l", ell)
        object.__setattr__(self, "c", c)

    @property
    def name(self) -> str:
        """Display name of the form, e.g. ``"entropy l-diversity"``."""
        return _NAMES[self.form]

    def check(
        self,
        data: pd.DataFrame | Groups,
        quasi: Columns | None = None,
        sensitive: Hashable | None = None,
    ) -> Verdict:
        """Check the model on a table or prebuilt groups."""
        return l_diversity(data, quasi, sensitive, self.l, self.form, self.c)

    @property
    def monotone(self) -> bool:
        """Distinct counts add up, entropy is concave, the largest count subadditive and the
        tail superadditive: a union of ℓ-diverse classes is ℓ-diverse, in every form."""
        return True

    def class_bounds(self, reference: np.ndarray | None, numeric: bool) -> ClassBounds:
        """Every form implies distinct ℓ-diversity (``exp(H) <= m``; ``r_1 <= n/ℓ`` needs
        ``m >= ℓ`` values; the recursive form needs ``r_ℓ``): at least ⌈ℓ⌉ distinct values
        (with the checks' tolerance); the whole verdict for the distinct form."""
        ell = float(self.l)
        if self.form in ("distinct", "recursive"):
            least = int(math.ceil(ell))
        else:
            # entropy: log(exp H) >= log ℓ - tol and exp H <= m; frequency: r_1/n <= 1/ℓ + tol
            bound = ell * math.exp(-TOL) if self.form == "entropy" else 1.0 / (1.0 / ell + TOL)
            least = max(1, int(math.ceil(bound - BOUND_SLACK)))
        return ClassBounds(min_distinct=least, exact=self.form == "distinct")

    def deficits(self, groups: Groups, people: np.ndarray | None) -> np.ndarray:
        """Records of each group that stay suppressed in every refinement, on its known
        values: if a share ``F`` of a group's records is in failing parts, entropy ℓ gives
        ``F >= 1 - H / log ℓ``; frequency ℓ ``r_1 <= (n - s)/ℓ + s``, so
        ``s >= (r_1 - n/ℓ) / (1 - 1/ℓ)``; recursive (c, ℓ) ``r_1 <= c·tail + s``."""
        return on_known(groups, self._known_deficits)

    def _known_deficits(self, groups: Groups) -> np.ndarray:
        sizes = groups.sizes.astype(np.float64)
        zero = np.zeros(groups.n_groups)
        if self.l <= 1:
            return zero
        if self.form == "entropy":
            log_l = math.log(self.l) - TOL - BOUND_SLACK
            if log_l <= 0:
                return zero
            entropy = np.log(group_diversity(groups, "entropy"))
            return sizes * np.maximum(1.0 - entropy / log_l, 0.0)
        top = groups.max_count.astype(np.float64)
        if self.form == "frequency":
            share = 1.0 / self.l + TOL + BOUND_SLACK
            return np.maximum(top - sizes * share, 0.0) / (1.0 - share)
        if self.form == "recursive":
            g = groups.pair_group
            order = np.lexsort((-groups.pair_count, g))
            counts = groups.pair_count[order].astype(np.float64)
            rank = np.arange(len(counts)) - groups.starts[g[order]]
            head = np.bincount(g[order], weights=counts * (rank < self.l - 1), minlength=len(sizes))
            return np.maximum(top - self.c * (sizes - head) - BOUND_SLACK, 0.0)
        return zero

    def shortfall(self, groups: Groups) -> np.ndarray:
        """``(ℓ - own ℓ) / ℓ`` on each group's known values (0 for a group without one)."""
        view, positions = groups.known_view()  # unknown sensitive values count toward neither
        own = group_diversity(view, self.form, self.c).astype(float)
        return spread(groups, positions, (self.l - own) / self.l, 0.0)

    def reads_sensitive_values(self, numeric: bool) -> bool:
        """Every form counts records per value: which records share one is all it reads."""
        return False

    def group_ok(self, groups: Groups) -> np.ndarray:
        """Groups that are ℓ-diverse in this form."""
        view, positions = groups.known_view()
        values = group_diversity(view, self.form, self.c)
        return spread(groups, positions, ~_violations(view, self.form, values, self.l), True)

    def to_config(self) -> dict[str, dict[str, Any]]:
        """``{"l_diversity": {"l": ..., "form": ..., ["c": ...]}}``."""
        params: dict[str, Any] = {"l": self.l, "form": self.form}
        if self.c is not None:
            params["c"] = self.c
        return {"l_diversity": params}
