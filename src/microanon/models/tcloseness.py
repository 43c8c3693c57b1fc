"""t-closeness.

Li, Li & Venkatasubramanian, *t-Closeness: Privacy Beyond k-Anonymity and ℓ-Diversity*, ICDE 2007.

Every group's sensitive distribution must lie within Earth Mover's Distance t of the whole
table's. Ground distances: ``equal`` (categorical), ``ordered`` (numeric values in numeric order,
or an explicit ``order``) and ``hierarchical`` (a :class:`~microanon.core.hierarchy.Hierarchy` of
the sensitive values). Without an explicit distance, a ``hierarchy`` selects ``hierarchical``, an
``order`` selects ``ordered``, and otherwise a numeric sensitive column uses ``ordered`` and any
other column ``equal`` — the same default as pycanon.

The ordered domain is the given ``order`` (values it lists but the table lacks still count
towards m and the positions), or else the distinct values of the column. The hierarchical domain
is the hierarchy's leaves.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from microanon.core.constraints import Anything, Choice, Param, Real
from microanon.core.data_order import data_order
from microanon.core.errors import HierarchyError, InputError
from microanon.core.hierarchy import Hierarchy, value_key
from microanon.core.missing import MISSING_LABEL

from .base import BOUND_SLACK, ClassBounds, PrivacyModel
from .emd import emd_equal, emd_hierarchical, emd_ordered
from .groups import Columns, Groups, groups_of, on_known, spread
from .params import TOL, choice, real
from .verdict import Verdict, build_verdict

__all__ = ["t_closeness", "TCloseness", "DISTANCES", "group_emd"]

#: Ground distances of the EMD.
DISTANCES = ("equal", "ordered", "hierarchical")


def _check_parameters(
    t: float | None,
    distance: str | None,
    order: Sequence[Any] | None,
    hierarchy: Hierarchy | None,
) -> tuple[float | None, str | None, tuple[Any, ...] | None]:
    """Validate t and the distance settings; infer the distance from order / hierarchy."""
    if t is not None:
        t = real("t", t)
        if not 0.0 <= t <= 1.0:
            raise InputError(f"t must lie in [0, 1] (an EMD never exceeds 1), got {t!r}")
    if distance is not None:
        choice("distance", distance, DISTANCES)
    if hierarchy is not None and not isinstance(hierarchy, Hierarchy):
        raise InputError(
            f"hierarchy must be a microanon Hierarchy, not {type(hierarchy).__name__}; build one "
            "with Hierarchy.from_nested(...) or Hierarchy.from_arx_csv(...)"
        )
    if order is not None:
        if isinstance(order, (str, bytes)) or not isinstance(
            order, (Sequence, np.ndarray, pd.Index, pd.Series)
        ):
            raise InputError("order must be a list of the sensitive values, lowest first")
        order = tuple(order)
        keys = [value_key(v) for v in order]
        if len(set(keys)) < len(keys):
            twice = next(v for v, k in zip(order, keys, strict=True) if keys.count(k) > 1)
            raise InputError(f"order lists the value {twice!r} more than once")
    if order is not None and hierarchy is not None:
        raise InputError(
            "give either order (ordered distance) or hierarchy (hierarchical distance), not both"
        )
    if distance is None and hierarchy is not None:
        distance = "hierarchical"
    elif distance is None and order is not None:
        distance = "ordered"
    if distance == "hierarchical" and hierarchy is None:
        raise InputError(
            "hierarchy: the hierarchical distance needs a Hierarchy of the sensitive values"
        )
    if hierarchy is not None and distance != "hierarchical":
        raise InputError(f"hierarchy is only used by the hierarchical distance, not {distance!r}")
    if order is not None and distance != "ordered":
        raise InputError(f"order is only used by the ordered distance, not {distance!r}")
    return t, distance, order


def _order_positions(groups: Groups, order: tuple[Any, ...]) -> np.ndarray:
    """Position of each sensitive code in an explicit order (matched by :func:`value_key`)."""
    index = {value_key(v): i for i, v in enumerate(order)}
    position = np.array([index.get(value_key(v), -1) for v in groups.values], dtype=np.int64)
    if np.any(position < 0):
        missing = [groups.values[i] for i in np.flatnonzero(position < 0)]
        marked = any(value_key(v) == MISSING_LABEL for v in missing)
        raise HierarchyError(
            f"column {groups.sensitive!r}: {len(missing)} value(s) not in the given order: "
            + ", ".join(repr(v) for v in missing[:5])
            + (" ..." if len(missing) > 5 else "")
            + (
                f" ({MISSING_LABEL}: a missing answer, missing: value; list it in the column's "
                "order where it belongs, or give the column missing: keep, an unknown value "
                "counting toward no model)"
                if marked
                else ""
            )
        )
    return position


def group_emd(
    groups: Groups,
    distance: str | None = None,
    order: tuple[Any, ...] | None = None,
    hierarchy: Hierarchy | None = None,
) -> tuple[np.ndarray, str]:
    """Each group's EMD to the table, and the distance used (``None`` picks the default).

    Raises
    ------
    InputError
        For the ordered distance on a non-numeric column without ``order``.
    HierarchyError
        If a sensitive value is missing from ``order`` or ``hierarchy``.
    """
    if distance is None:
        distance = "ordered" if groups.numeric else "equal"
    if distance == "equal":
        return emd_equal(groups), distance
    if distance == "hierarchical":
        position = hierarchy.leaf_index(list(groups.values), column=str(groups.sensitive))
        return emd_hierarchical(groups, position, hierarchy), distance
    if order is not None:
        return emd_ordered(groups, _order_positions(groups, order), len(order)), distance
    if not groups.numeric:
        raise InputError(
            f"the ordered distance needs numeric values or an order; column "
            f"{groups.sensitive!r} is not numeric: give the model an order listing its values "
            "from lowest to highest, or declare the column kind ordinal with its order in the "
            "schema"
        )
    position = np.empty(groups.n_values, dtype=np.int64)
    position[groups.values.argsort()] = np.arange(groups.n_values)
    return emd_ordered(groups, position, groups.n_values), distance


def t_closeness(
    data: pd.DataFrame | Groups,
    quasi: Columns | None,
    sensitive: Hashable | None,
    t: float | None = None,
    distance: str | None = None,
    order: Sequence[Any] | None = None,
    hierarchy: Hierarchy | None = None,
) -> Verdict:
    """Check t-closeness.

    Parameters
    ----------
    data : DataFrame or Groups
        The table, or its prebuilt groups (built with the sensitive column).
    quasi : column name or sequence of names, or None
        Quasi-identifier columns (``None`` with prebuilt groups).
    sensitive : column name or None
        Sensitive column (``None`` with prebuilt groups).
    t : float, optional
        Largest allowed EMD, in ``[0, 1]``. Without it the verdict only reports the achieved
        value.
    distance : {"equal", "ordered", "hierarchical"}, optional
        Ground distance. Default: ``hierarchical`` with a ``hierarchy``, ``ordered`` with an
        ``order`` or a numeric sensitive column, ``equal`` otherwise (as pycanon).
    order : sequence, optional
        The sensitive domain from lowest to highest, for the ordered distance; for the ordered
        distance without one, an ordered categorical sensitive column's categories
        (:func:`~microanon.core.data_order.data_order`).
    hierarchy : Hierarchy, optional
        Tree over the sensitive values, for the hierarchical distance.

    Returns
    -------
    Verdict
        ``value`` is the largest EMD over groups (the smallest t that holds); the model holds iff
        it is at most ``t + 1e-12``.

    Raises
    ------
    InputError
        On t outside [0, 1], an unknown distance, a hierarchical distance without hierarchy, an
        ordered distance on a non-numeric column without order, or unusable columns.
    HierarchyError
        If a sensitive value is missing from ``order`` or ``hierarchy``.
    """
    t, distance, order = _check_parameters(t, distance, order, hierarchy)
    if distance == "ordered" and order is None and isinstance(data, pd.DataFrame):
        if sensitive in data.columns:  # (an ordered categorical declares its order)
            order = data_order(data[sensitive])
    groups = groups_of(data, quasi, sensitive, need_sensitive=True)
    view, positions = groups.known_view()
    emd, distance = group_emd(view, distance, order, hierarchy)
    emd = spread(groups, positions, emd, 0.0)
    parameters: dict[str, Any] = {"t": t, "distance": distance}
    if order is not None:
        parameters["order"] = list(order)
    if hierarchy is not None:
        parameters["hierarchy"] = hierarchy
    offending = None if t is None else emd > t + TOL
    return build_verdict(
        "t-closeness", parameters, groups, emd, float(emd.max()), offending, worst_is_high=True
    )


def _min_total_variation(reference: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Smallest total-variation distance to ``reference`` of an ``n``-record distribution."""
    q = reference / reference.sum()
    target = sizes[:, None] * q[None, :]
    base = np.floor(target)
    frac = target - base
    short = (sizes - base.sum(axis=1)).astype(np.int64)
    order = np.argsort(-frac, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(q.size)[None, :], axis=1)
    counts = base + (ranks < short[:, None])
    return 0.5 * np.abs(counts / sizes[:, None] - q[None, :]).sum(axis=1)


@dataclass(frozen=True)
class TCloseness(PrivacyModel):
    """t-closeness with fixed parameters (see :func:`t_closeness` for the default distance)."""

    PROMISE: ClassVar[str] = (
        "In every group, the sensitive values are distributed almost as in the whole table (at "
        "distance at most t), so a group reveals little more than the table does."
    )
    PARAMETERS: ClassVar[tuple[Param, ...]] = (
        Param(
            "t",
            "How far a group's sensitive values may be distributed from the whole table's, from "
            "0 (identical) to 1 (anything); 0.2 is a common choice.",
            (Real(0, 1),),
        ),
        Param(
            "distance",
            "How differences between sensitive values are measured: equal (any two values "
            "differ alike), ordered (by their order), hierarchical (by their hierarchy).",
            (Choice(("equal", "ordered", "hierarchical")),),
        ),
        Param(
            "order",
            "The sensitive values from lowest to highest, for the ordered distance.",
            (Anything("a list of values"),),
        ),
        Param(
            "hierarchy",
            "A tree over the sensitive values, for the hierarchical distance.",
            (Anything("a hierarchy"),),
        ),
    )

    t: float
    distance: str | None = None
    order: Sequence[Any] | None = None
    hierarchy: Hierarchy | None = None

    def __post_init__(self) -> None:
        t, distance, order = _check_parameters(self.t, self.distance, self.order, self.hierarchy)
        if t is None:
            raise InputError("t: a configured t-closeness model needs a value of t")
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "distance", distance)
        object.__setattr__(self, "order", order)

    @property
    def name(self) -> str:
        """``"t-closeness"``."""
        return "t-closeness"

    def check(
        self,
        data: pd.DataFrame | Groups,
        quasi: Columns | None = None,
        sensitive: Hashable | None = None,
    ) -> Verdict:
        """Check the model on a table or prebuilt groups."""
        return t_closeness(
            data, quasi, sensitive, self.t, self.distance, self.order, self.hierarchy
        )

    def group_ok(self, groups: Groups) -> np.ndarray:
        """Groups whose EMD to the reference distribution is at most t."""
        view, positions = groups.known_view()
        emd, _ = group_emd(view, self.distance, self.order, self.hierarchy)
        return spread(groups, positions, emd <= self.t + TOL, True)

    def shortfall(self, groups: Groups) -> np.ndarray:
        """``EMD - t`` on each group's known values (0 for a group without one)."""
        view, positions = groups.known_view()  # unknown sensitive values count toward neither
        emd, _ = group_emd(view, self.distance, self.order, self.hierarchy)
        return spread(groups, positions, emd - self.t, 0.0)

    def reads_sensitive_values(self, numeric: bool) -> bool:
        """Only the ordered and hierarchical distances read the values; the equal distance
        (the default on values that are not numbers) compares codes."""
        return self.distance not in (None, "equal") or (self.distance is None and numeric)

    @property
    def monotone(self) -> bool:
        """The EMD to a fixed distribution is convex in the class distribution."""
        return True

    @property
    def compares_with_reference(self) -> bool:
        """Each class is compared with the whole table's sensitive distribution."""
        return True

    def class_bounds(self, reference: np.ndarray | None, numeric: bool) -> ClassBounds:
        """Smallest class size, and share of the reference its values must cover, to be
        within t: with the equal ground distance a class of ``n`` records is at least the
        total variation between the reference and its best ``n``-record rounding away, and at
        least the reference's mass outside its values; the ordered and hierarchical distances
        are at least the total variation divided by ``m - 1`` and by the tree's height."""
        if reference is None:
            return ClassBounds()
        ref = reference[reference > 0].astype(np.float64)
        factor = self._emd_factor(len(ref), numeric)
        if factor == 0.0 or len(ref) <= 1:
            return ClassBounds()
        t = self.t + TOL + BOUND_SLACK
        n_total = int(ref.sum())
        start, size = 1, n_total
        while start <= n_total:
            sizes = np.arange(start, min(start + 512, n_total + 1), dtype=np.float64)
            ok = _min_total_variation(ref, sizes) * factor <= t
            if ok.any():
                size = int(sizes[np.argmax(ok)])
                break
            start += 512
        return ClassBounds(min_size=size, min_coverage=1.0 - t / factor)

    def _emd_factor(self, m: int, numeric: bool) -> float:
        """A factor ``f`` with ``EMD >= f · total variation`` under the ground distance."""
        distance = self.distance or ("ordered" if numeric else "equal")
        if distance == "equal":
            return 1.0
        if distance == "ordered":
            width = len(self.order) if self.order is not None else m
            return 1.0 / (width - 1) if width > 1 else 0.0
        height = self.hierarchy.height
        return 1.0 / height if height > 0 else 0.0

    def deficits(self, groups: Groups, people: np.ndarray | None) -> np.ndarray:
        """On each group's known values: ``EMD <= (1 - F) t + F`` for a share ``F`` of its
        records in failing parts (an EMD never exceeds 1), so ``F >= (EMD - t) / (1 - t)``."""
        t = self.t + TOL + BOUND_SLACK
        if t >= 1.0:
            return np.zeros(groups.n_groups)

        def known(view: Groups) -> np.ndarray:
            emd, _ = group_emd(view, self.distance, self.order, self.hierarchy)
            return view.sizes.astype(np.float64) * np.maximum(emd - t, 0.0) / (1.0 - t)

        return on_known(groups, known)

    def to_config(self) -> dict[str, dict[str, Any]]:
        """``{"t_closeness": {"t": ..., ["distance"|"order"|"hierarchy": ...]}}``.

        A hierarchy is written as :meth:`Hierarchy.to_dict`.
        """
        params: dict[str, Any] = {"t": self.t}
        if self.distance is not None:
            params["distance"] = self.distance
        if self.order is not None:
            params["order"] = list(self.order)
        if self.hierarchy is not None:
            params["hierarchy"] = self.hierarchy.to_dict()
        return {"t_closeness": params}
