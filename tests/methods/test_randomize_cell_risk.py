"""The optimizer's risk function (``CellRisk``) against the plain definition, on random tables.

``CellRisk`` computes ``Pr(S_r | QI_r)`` of chosen cells and its gradient in the keep
probabilities without forming a Kronecker product: from precomputed marginals when they are
small, else axis by axis in place. Both ways must give the risk of
:func:`~microanon.methods.randomize.risk.disclosure_risk` (the matrices formed, eqs. 6–9 of Guo,
Ying & Wu 2011) and a gradient equal to finite differences of it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon.methods.randomize import _opt_risk
from microanon.methods.randomize._opt_risk import CellRisk
from microanon.methods.randomize.risk import disclosure_risk


@st.composite
def problems(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Normalized cell proportions (2–4 quasi-identifiers and a sensitive attribute, each of 2–5
    values, most cells empty) and keep probabilities strictly inside ``(1/d, 1)``."""
    dims = draw(st.lists(st.integers(2, 5), min_size=3, max_size=5))
    size = math.prod(dims)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 20, size=size) * (rng.random(size) < 0.3)
    counts[rng.integers(size)] += 1  # at least one record
    pi = (counts / counts.sum()).reshape(dims)
    keep = np.array([1.0 / d + (1.0 - 1.0 / d) * rng.uniform(0.05, 0.95) for d in dims])
    return pi, keep


@pytest.mark.parametrize("marginals", [True, False], ids=["marginals", "axis by axis"])
@settings(max_examples=60, deadline=None)
@given(problem=problems())
def test_cell_risk_is_the_disclosure_risk_and_its_gradient(marginals, problem):
    pi, keep = problem
    cells = np.flatnonzero(pi.reshape(-1) > 0)
    free = list(range(pi.ndim))
    with pytest.MonkeyPatch.context() as patch:
        if not marginals:
            patch.setattr(_opt_risk, "_MAX_MARGINALS", 0)
        risk = CellRisk(pi, cells, free)
    assert (risk.marginals is not None) == marginals

    def plain(x: np.ndarray) -> np.ndarray:
        return disclosure_risk(pi, x[:-1], x[-1]).reshape(-1)[cells]

    np.testing.assert_allclose(risk.value(keep), plain(keep), rtol=1e-10, atol=1e-14)
    value, jac = risk.value_and_jac(keep)
    np.testing.assert_allclose(value, plain(keep), rtol=1e-10, atol=1e-14)
    step = 1e-6
    for j in range(len(keep)):
        up, down = keep.copy(), keep.copy()
        up[j] += step
        down[j] -= step
        numeric = (plain(up) - plain(down)) / (2 * step)
        np.testing.assert_allclose(jac[:, j], numeric, rtol=1e-5, atol=1e-7)
