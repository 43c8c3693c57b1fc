"""The constraints of the parameter search of :mod:`.optimal`, normalized to "value ≤ 1".

- :class:`ScaledRisk` (the paper's constraint, Problem 1 of Guo, Ying & Wu, JCSE 2011, with a
  bound per cell): ``Pr(S_r | QI_r) / τ_c ≤ 1`` for every constrained cell ``c``, where ``τ_c``
  is the least threshold of the records in the cell (one threshold ``τ`` for all in the paper);
- :class:`AverageRisk` (ours, not the paper's): ``Σ_c π_c Pr(S_r | QI_r) / τ ≤ 1``, the
  attacker's success averaged over the records.

Both wrap a :class:`~._opt_risk.CellRisk` and offer its interface (``value``,
``value_and_jac``, ``subset``), so the search treats them alike.
"""

from __future__ import annotations

import numpy as np

from ._opt_risk import CellRisk

__all__ = ["AverageRisk", "ScaledRisk"]


class ScaledRisk:
    """Risk of each constrained cell divided by its bound."""

    def __init__(self, risks: CellRisk, bound: np.ndarray) -> None:
        self.risks, self.bound = risks, bound

    def value(self, x: np.ndarray) -> np.ndarray:
        return self.risks.value(x) / self.bound

    def value_and_jac(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        risk, jac = self.risks.value_and_jac(x)
        return risk / self.bound, jac / self.bound[:, None]

    def subset(self, mask: np.ndarray) -> ScaledRisk:
        return ScaledRisk(self.risks.subset(mask), self.bound[mask])


class AverageRisk:
    """The records' mean risk divided by τ: a single constraint."""

    def __init__(self, risks: CellRisk, weights: np.ndarray) -> None:
        self.risks, self.weights = risks, weights

    def value(self, x: np.ndarray) -> np.ndarray:
        return np.array([self.weights @ self.risks.value(x)])

    def value_and_jac(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        risk, jac = self.risks.value_and_jac(x)
        return np.array([self.weights @ risk]), (self.weights @ jac)[None, :]

    def subset(self, mask: np.ndarray) -> AverageRisk:  # noqa: ARG002 - one constraint, always kept
        return self
