"""k-anonymity: every group has at least k rows.

Samarati, *Protecting Respondents' Identities in Microdata Release*, IEEE TKDE 13(6), 2001;
Sweeney, *k-Anonymity: A Model for Protecting Privacy*, IJUFKS 10(5), 2002.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from microanon.core.constraints import SMALLEST_GROUP, Param
from microanon.core.errors import InputError

from .base import ClassBounds, PrivacyModel
from .groups import Columns, Groups, groups_of
from .params import integer
from .verdict import Verdict, build_verdict

__all__ = ["k_anonymity", "KAnonymity"]


def k_anonymity(
    data: pd.DataFrame | Groups, quasi: Columns | None, k: int | None = None
) -> Verdict:
    """Check k-anonymity.

    Parameters
    ----------
    data : DataFrame or Groups
        The table, or its prebuilt groups.
    quasi : column name or sequence of names, or None
        Quasi-identifier columns (``None`` with prebuilt groups).
    k : int, optional
        Required smallest group size, ``1 <= k <= number of rows``. Without it the verdict only
        reports the achieved value.

    Returns
    -------
    Verdict
        ``value`` is the smallest group size (the largest k that holds); each group's own value is
        its size.

    Raises
    ------
    InputError
        If ``k`` is not an integer in ``1..n_rows`` or the columns are unusable.
    """
    if k is not None:
        k = integer("k", k)
    groups = groups_of(data, quasi)
    if k is not None and k > groups.n_rows:
        raise InputError(
            f"k = {k:,} exceeds the number of rows ({groups.n_rows:,}); no table of this size can "
            "be k-anonymous"
        )
    sizes = groups.sizes
    offending = None if k is None else sizes < k
    return build_verdict("k-anonymity", {"k": k}, groups, sizes, int(sizes.min()), offending)


@dataclass(frozen=True)
class KAnonymity(PrivacyModel):
    """k-anonymity with a fixed ``k`` (see :func:`k_anonymity`)."""

    PROMISE: ClassVar[str] = (
        "Every combination of quasi-identifier values that is published is shared by at least k "
        "records, so nobody can be singled out among fewer than k."
    )
    PARAMETERS: ClassVar[tuple[Param, ...]] = (SMALLEST_GROUP,)

    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", integer("k", self.k))

    @property
    def name(self) -> str:
        """``"k-anonymity"``."""
        return "k-anonymity"

    def check(
        self,
        data: pd.DataFrame | Groups,
        quasi: Columns | None = None,
        sensitive: Hashable | None = None,
    ) -> Verdict:
        """Check the model; ``sensitive`` is accepted for a uniform interface and not used."""
        return k_anonymity(data, quasi, self.k)

    #: k-anonymity is about the quasi-identifiers only.
    needs_sensitive: ClassVar[bool] = False

    @property
    def monotone(self) -> bool:
        """A union of classes of at least k records has at least k."""
        return True

    def class_bounds(self, reference: np.ndarray | None, numeric: bool) -> ClassBounds:
        """At least k records: the whole verdict."""
        return ClassBounds(min_size=int(self.k), exact=True)

    @property
    def recoding_size(self) -> int:
        """At least k records: the whole verdict, counted."""
        return int(self.k)

    def group_ok(self, groups: Groups) -> np.ndarray:
        """Groups with at least k records."""
        return groups.sizes >= self.k

    def to_config(self) -> dict[str, dict[str, Any]]:
        """``{"k_anonymity": {"k": k}}``."""
        return {"k_anonymity": {"k": self.k}}
