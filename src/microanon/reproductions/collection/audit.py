"""Two audits of a GTR collection: greedy against exact mode, and protection at the end.

Zhang & Zhang (DaWaK 2008) describe GTR's subroutines findOptimalQIValue and specializeQI only by
name (Fig. 4) and check a respondent's protection when the tuple is submitted (Definition 1).
Both audits replay the service's log, in acceptance order:

- :func:`greedy_gap` runs :func:`~microanon.methods.collect.gtr` in both modes for sampled
  respondents against the set as it was at their acceptance (what their client computed
  against), and compares the losses;
- :func:`final_protection` is the distribution attack (eqs. 1–3) on every accepted respondent
  against the final collected set, which later submissions may have changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from microanon.methods.collect import CollectedSet, Survey, gtr, pv_all

__all__ = ["final_protection", "greedy_gap"]


def greedy_gap(
    survey: Survey,
    respondents: Sequence[Sequence[Any]],
    submitted: Sequence[Sequence[int]],
    chosen: set[int],
    tau: Fraction,
) -> dict[str, Any]:
    """Greedy GTR's loss against exact GTR's for the ``chosen`` positions of the log.

    Parameters
    ----------
    survey : Survey
        The collection's survey.
    respondents : sequence of tuples
        The accepted respondents' base tuples (labels), in acceptance order.
    submitted : sequence of code tuples
        What each of them submitted, in the same order (replayed to rebuild the set).
    chosen : set of int
        Positions audited; each is answered against the first ``position`` submissions.
    tau : Fraction
        The collection's τ.

    Returns
    -------
    dict
        ``audited``; ``optimal`` (greedy's loss equals exact mode's); ``mean_gap`` and
        ``max_gap`` (greedy's loss minus the optimum, over the audited answers both modes gave);
        ``greedy_abstained`` (greedy abstained, exact did not); ``exact_abstained``.
    """
    prefix = CollectedSet(survey)
    gaps: list[Fraction] = []
    greedy_abstained = exact_abstained = 0
    for k, (o, codes) in enumerate(zip(respondents, submitted, strict=True)):
        if k in chosen:
            exact = gtr(o, prefix, survey, tau)
            greedy = gtr(o, prefix, survey, tau, mode="greedy")
            if exact is None:
                exact_abstained += 1
            elif greedy is None:
                greedy_abstained += 1
            else:
                gaps.append(greedy.loss - exact.loss)
        prefix.add_codes(codes)
    return {
        "audited": len(chosen),
        "optimal": sum(g == 0 for g in gaps),
        "mean_gap": float(sum(gaps, Fraction(0)) / len(gaps)) if gaps else 0.0,
        "max_gap": float(max(gaps, default=Fraction(0))),
        "greedy_abstained": greedy_abstained,
        "exact_abstained": exact_abstained,
    }


def final_protection(
    survey: Survey, base: np.ndarray, submitted: np.ndarray, tau: Fraction
) -> dict[str, Any]:
    """The accepted respondents' protection against the final collected set.

    Parameters
    ----------
    survey : Survey
        The collection's survey.
    base : ndarray of int
        The accepted respondents' base tuples as codes, one row each.
    submitted : ndarray of int
        Every accepted submission as codes (the final set).
    tau : Fraction
        The collection's τ.

    Returns
    -------
    dict
        ``accepted``; ``protected`` (``Pv ≥ τ`` against the final set); ``share``; ``min_pv``.
    """
    final = CollectedSet(survey)
    if len(submitted):
        final.extend_codes(submitted)
    pv = pv_all(survey, final, base) if len(base) else np.ones(0)
    protected = int(np.sum(pv >= float(tau) - 1e-12))
    return {
        "accepted": len(base),
        "protected": protected,
        "share": protected / len(base) if len(base) else 1.0,
        "min_pv": float(pv.min()) if len(base) else 1.0,
    }
