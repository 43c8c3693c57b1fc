"""δ-disclosure privacy: a two-sided bound on how much a class changes belief in each value.

Brickell & Shmatikov, *The Cost of Privacy: Destruction of Data-Mining Utility in
Anonymized Data Publishing*, KDD 2008.

For a sensitive value with share ``p`` in the whole table and share ``q`` in a class, the class
is δ-disclosure private when ``|ln(q / p)| < δ``: the class may neither raise nor lower the
likelihood of the value by more than a factor ``e^δ``. The bound is strict, as in the paper, and
is applied here with a 1e-12 margin on the safe side (a ratio within 1e-12 of ``e^δ`` fails). As
in ARX, only the values present in a class are constrained; a value absent from a class
(``q = 0``) is not (read literally over every value of the domain, the definition would require
every value in every class).

ARX's ``DDisclosurePrivacy`` takes the logarithm to base 2: its δ is ours divided by ``ln 2``.

A class's own value is its largest ``|ln(q / p)|``; the verdict's value is the largest over
classes (the model holds iff it is below δ). The overall shares are those of the whole checked
table, or the reference a :class:`Groups` carries.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from microanon.core.constraints import Param, Real
from microanon.core.errors import InputError

from .groups import Columns, Groups, groups_of, spread
from .likeness import ShareCapped, pair_ratios
from .params import TOL, real
from .verdict import Verdict, build_verdict

__all__ = ["delta_disclosure", "DeltaDisclosure"]


def _check_delta(delta: Any) -> float | None:
    if delta is None:
        return None
    delta = real("delta", delta)
    if delta <= 0:
        raise InputError(f"delta must be positive, got {delta!r}")
    return delta


def _own(groups: Groups) -> np.ndarray:
    """Each group's largest ``|ln(q / p)|`` over the values it holds."""
    ratio, _ = pair_ratios(groups)
    return np.maximum.reduceat(np.abs(np.log(ratio)), groups.starts)


def delta_disclosure(
    data: pd.DataFrame | Groups,
    quasi: Columns | None,
    sensitive: Hashable | None,
    delta: float | None = None,
) -> Verdict:
    """Check δ-disclosure privacy.

    Parameters
    ----------
    data : DataFrame or Groups
        The table, or its prebuilt groups (built with the sensitive column).
    quasi : column name or sequence of names, or None
        Quasi-identifier columns (``None`` with prebuilt groups).
    sensitive : column name or None
        Sensitive column (``None`` with prebuilt groups).
    delta : float, optional
        Bound of ``|ln(q / p)|``, > 0 (natural logarithm). Without it the verdict only reports
        the achieved value.

    Returns
    -------
    Verdict
        ``value`` is the largest ``|ln(q / p)|`` over classes and the values they hold; the model
        holds iff it is below ``delta - 1e-12``.

    Raises
    ------
    InputError
        If ``delta <= 0`` or the columns are unusable.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"zip": ["a", "a", "b", "b"], "disease": ["flu", "hiv", "flu", "hiv"]})
    >>> delta_disclosure(df, "zip", "disease", delta=0.1).holds  # q = p in every class
    True
    """
    delta = _check_delta(delta)
    groups = groups_of(data, quasi, sensitive, need_sensitive=True)
    view, positions = groups.known_view()
    own = spread(groups, positions, _own(view), 0.0)
    offending = None if delta is None else own >= delta - TOL
    return build_verdict(
        "delta-disclosure privacy",
        {"delta": delta},
        groups,
        own,
        float(own.max()),
        offending,
        worst_is_high=True,
    )


@dataclass(frozen=True)
class DeltaDisclosure(ShareCapped):
    """δ-disclosure privacy with a fixed δ (see :func:`delta_disclosure`).

    Notes
    -----
    Not monotone under merging: a value absent from one class is unconstrained there, and
    merging that class into another dilutes the value's share below ``p e^-δ``. Only the upper
    half of the bound, ``q < p e^δ``, adds up over merged classes.
    """

    PROMISE: ClassVar[str] = (
        "In every group, every sensitive value's frequency stays within a factor e^delta of its "
        "frequency in the whole table."
    )
    PARAMETERS: ClassVar[tuple[Param, ...]] = (
        Param(
            "delta",
            "How far a sensitive value's frequency in a group may be from its frequency in the "
            "table, as a factor e^delta (0.5 = within about 1.65 times).",
            (Real(0, None, closed="neither"),),
        ),
    )

    delta: float

    def __post_init__(self) -> None:
        delta = _check_delta(self.delta)
        if delta is None:
            raise InputError("delta: a configured delta-disclosure model needs a value of delta")
        object.__setattr__(self, "delta", delta)

    @property
    def name(self) -> str:
        """``"delta-disclosure privacy"``."""
        return "delta-disclosure privacy"

    def check(
        self,
        data: pd.DataFrame | Groups,
        quasi: Columns | None = None,
        sensitive: Hashable | None = None,
    ) -> Verdict:
        """Check the model on a table or prebuilt groups."""
        return delta_disclosure(data, quasi, sensitive, self.delta)

    def group_ok(self, groups: Groups) -> np.ndarray:
        """Groups whose every ``|ln(q / p)|`` is below δ."""
        view, positions = groups.known_view()
        return spread(groups, positions, _own(view) < self.delta - TOL, True)

    def bounds(self, reference: np.ndarray) -> np.ndarray:
        """The in-class share each value stays below, ``p e^δ``, for reference counts."""
        return reference / reference.sum() * math.exp(self.delta)

    def to_config(self) -> dict[str, dict[str, Any]]:
        """``{"delta_disclosure": {"delta": ...}}``."""
        return {"delta_disclosure": {"delta": self.delta}}
