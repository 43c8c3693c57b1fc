"""Randomized response with optimal parameters under a disclosure bound.

Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based Microdata Release*, Journal
of Computing Science and Engineering 5(3), 2011: the release procedure with the parameters of
its Problem 1.

The method a configuration names: find the keep probabilities that bound every record's
attribute-disclosure risk ``Pr(S_r | QI_r)`` by ``τ = 1/ℓ`` at the least expected reconstruction
error (:func:`~.optimal.optimal_parameters`), then randomize the table with them
(:func:`~.release.randomize`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ...core.constraints import Choice, Param, Real, Text
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import Schema
from ..registry import OutOfCore, method
from .optimal import optimal_parameters
from .release import randomize
from .risk import SCENARIOS

__all__ = ["randomized_response"]


@method(
    "randomized_response",
    step="last",
    kind="randomized",
    publishes="The table with optimally randomized columns and the distortion matrices. The "
    "attacker's success is bounded by tau.",
    help="Replaces values at random with known probabilities, so that nobody's sensitive value "
    "can be guessed with a probability above a bound; analysts can still estimate the original "
    "distribution.",
    params=(
        Param(
            "scenario",
            "Which columns are randomized: the sensitive one (S), the quasi-identifiers (QI) or "
            "both (Both, the default, never less accurate than the other two).",
            (Choice(SCENARIOS, prefix="RR-"),),
        ),
        Param(
            "l",
            "The bound as a diversity level: nobody's sensitive value can be guessed with a "
            "probability above 1/l (give l, tau or tau_column).",
            (Real(1, None),),
        ),
        Param(
            "tau",
            "The bound itself, a probability above 0 and at most 1 (give l, tau or tau_column).",
            (Real(0, 1, closed="right"),),
        ),
        Param(
            "tau_column",
            "A column (not published) with each record's own bound (give l, tau or tau_column).",
            (Text(),),
        ),
        Param(
            "constraint",
            "Bound every record's risk (every, the paper's) or only the records' average risk "
            "(average, an extension).",
            (Choice(("every", "average")),),
        ),
    ),
    out_of_core=OutOfCore("randomized_response_dask"),
)
def randomized_response(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    scenario: str = "Both",
    l: float | None = None,  # noqa: E741 - ℓ-diversity's name for the parameter
    tau: float | None = None,
    tau_column: str | None = None,
    constraint: str = "every",
    rng: RandomLike = None,
) -> Release:
    """Randomize the quasi-identifiers and/or the sensitive column so that no record's sensitive
    value can be predicted with probability above ``τ``.

    Parameters
    ----------
    data : DataFrame
        The original table.
    schema : Schema or mapping
        At least one quasi-identifier and exactly one sensitive column.
    scenario : {"S", "QI", "Both"}
        Randomize the sensitive column (RR-S), the quasi-identifiers (RR-QI) or both (RR-Both,
        the default: it never costs more accuracy than the other two).
    l : float, optional
        Diversity level ``ℓ ≥ 1``; the bound is ``τ = 1/ℓ``.
    tau : float, optional
        The bound itself, in ``(0, 1]``.
    tau_column : str, optional
        A column (outside the schema's roles) with each record's own threshold in ``(0, 1]``;
        it is not published. Give exactly one of ``l``, ``tau`` and ``tau_column``.
    constraint : {"every", "average"}, default "every"
        ``"average"`` (our extension, not the paper's) bounds the records' mean risk instead of
        every record's; see :func:`~microanon.methods.randomize.optimal_parameters`.
    rng : numpy.random.Generator, int or None
        Source of randomness (``None``: OS entropy). Never recorded in the release.

    Returns
    -------
    Release
        Kind ``"randomized"`` (see :func:`~microanon.methods.randomize.randomize`): every
        quasi-identifier and the sensitive column appear in ``randomized`` with their domain and
        matrix (the identity where ``p = 1``), so analysts can reconstruct the cell proportions.
        ``models`` is empty: the guarantee is the risk bound, recorded as ``risk_bound`` (= τ;
        only with ``constraint="every"``, the one that bounds every record).
        Further metadata: ``parameters`` (``scenario``, ``l``, ``tau`` as given), ``scenario``,
        ``tau`` (public, with ``risk_bound``, except with ``tau_column``: it is then the smallest
        threshold of that unpublished column, kept internal), and ``optimal`` with ``keep``,
        ``max_risk``, ``objective`` and ``expected_squared_error`` (the cell attaining the
        maximum is not published: it describes the original data).

    Raises
    ------
    InputError
        Both or neither of ``l`` and ``tau``, ``l < 1``, ``tau`` outside ``(0, 1]``, an unknown
        scenario, bad data.
    SchemaError
        No quasi-identifier, or not exactly one sensitive column.
    InfeasibleError
        If no keep probabilities of the scenario reach the bound; the message names the cell.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["M"] * 60 + ["F"] * 40,
    ...                    "disease": ["cancer"] * 10 + ["flu"] * 30 + ["diabetes"] * 20
    ...                    + ["cancer"] * 12 + ["flu"] * 16 + ["diabetes"] * 12})
    >>> rel = randomized_response(df, {"sex": "quasi", "disease": "sensitive"}, l=3, rng=0)
    >>> {c: round(p, 4) for c, p in rel.metadata["optimal"]["keep"].items()}
    {'sex': 0.8882, 'disease': 0.8438}
    """
    generator = make_rng(rng)
    best = optimal_parameters(
        data, schema, scenario, l=l, tau=tau, tau_column=tau_column, constraint=constraint
    )
    if tau_column is not None:
        data = data.drop(columns=[tau_column])
    release = randomize(data, schema, keep=best.keep, rng=generator)
    metadata = dict(release.metadata)
    metadata.update(
        parameters={
            "scenario": best.scenario,
            "l": l,
            "tau": tau,
            "tau_column": tau_column,
            "constraint": constraint,
        },
        scenario=best.scenario,
        tau=best.tau,
        optimal={
            "keep": best.keep,
            "max_risk": best.max_risk,
            "objective": best.objective,
            "expected_squared_error": best.expected_squared_error,
            "average_risk": best.average_risk,
            "share_above": best.share_above,
        },
    )
    # Every record's risk is bounded only under constraint="every" (under "average" the mean
    # is); with tau_column the bound is the smallest value of that unpublished column, so it
    # stays internal.
    if constraint == "every":
        metadata["risk_bound"] = best.tau
    public = ("scenario",) if tau_column is not None else ("scenario", "tau", "risk_bound")
    return Release(release.kind, release.tables, metadata, public=(*release.public_keys, *public))
