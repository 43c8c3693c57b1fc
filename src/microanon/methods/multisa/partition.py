"""The SAC/IR partition of the mixed model.

Algorithm 7 of Yi & Shi, *Privacy Protection Method for Multiple Sensitive Attributes Based on
Strong Rule*, Mathematical Problems in Engineering 2015, Art. ID 464731.

``S_k`` is the sensitive attribute with the most distinct *strong values* (values on either side of
a strong rule; ties: the first attribute, our choice). SAC holds the records with a strong value in
any *other* sensitive attribute; IR the rest. An IR record can hold strong values of ``S_k`` only,
so no IR record contains a whole strong rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["Partition", "sac_partition"]


class Partition(NamedTuple):
    """Result of Algorithm 7.

    Attributes
    ----------
    pivot : int
        Index of ``S_k``.
    strong_counts : int64 array
        Distinct strong values of every attribute.
    sac : bool array
        Membership of every record in SAC.
    """

    pivot: int
    strong_counts: np.ndarray
    sac: np.ndarray


def sac_partition(codes: Sequence[np.ndarray], strong: Sequence[np.ndarray]) -> Partition:
    """Split the records into SAC and IR.

    Parameters
    ----------
    codes : sequence of int arrays
        Code column of every sensitive attribute.
    strong : sequence of bool arrays
        Per attribute, which codes are strong values
        (:meth:`~microanon.methods.multisa.rules.RuleCodes.strong_values`).

    Returns
    -------
    Partition
    """
    counts = np.asarray([int(np.count_nonzero(s)) for s in strong], dtype=np.int64)
    pivot = int(np.argmax(counts))  # first maximum: ties go to the lowest index
    sac = np.zeros(len(codes[0]), dtype=bool)
    for j, (c, s) in enumerate(zip(codes, strong, strict=True)):
        if j != pivot:
            sac |= s[c]
    return Partition(pivot, counts, sac)
