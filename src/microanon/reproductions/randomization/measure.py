"""One point of the randomization reproduction: publish with a method, measure.

The measures are those of Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based
Microdata Release*, Journal of Computing Science and Engineering 5(3), 2011.

Every point is a mapping of the measures of :func:`~microanon.measures.utility_report` (KL,
χ², squared Euclidean distance, base and CUBE query errors) averaged over the replications,
their standard deviations (``None`` with one replication), the base group-by's mean relative
error per band of original cell count (``base_by_cell_size``), and the uncertainty coefficients
``U(B | A)`` of every ordered pair of attributes (a DataFrame, index = given ``A``, columns =
response ``B``), averaged likewise.

- Randomized response: :func:`~microanon.methods.randomize.randomize` with the optimal keep
  probabilities, then the reconstruction ``π̂ = P⁻¹λ̂`` (raw for the squared Euclidean distance,
  χ² and query errors; clip-renormalized for KL and U).
- Anatomy: :func:`~microanon.methods.generalize.anatomy`; the estimate spreads each group's
  sensitive counts over its tuples' quasi-identifiers.
- Entropy ℓ-diversity: full-domain generalization
  (:func:`~microanon.methods.generalize.full_domain`,
  Incognito's minimal nodes); among the minimal nodes the one of least total height is
  published, ties broken by the discernibility metric, then by the levels in schema order
  (our choice: the paper does not say which of Incognito's solutions it takes). Distances use the
  uniform-spread estimate over the original domain; U is computed on the published (generalized)
  values, as the paper's Tables 4–5 imply, so an attribute generalized
  to a single value gives ``U = 0``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from microanon.core.release import Release
from microanon.measures import (
    estimate_distribution,
    kl_divergence,
    query_errors,
    true_joint,
    uncertainty_coefficients,
    utility_report,
)
from microanon.methods.generalize import anatomy, full_domain
from microanon.methods.randomize import randomize, reconstruct
from microanon.methods.randomize.reconstruct import ESTIMATORS
from microanon.models import l_diversity
from microanon.reproductions.randomization.setup import SettingData

__all__ = [
    "DISTANCES",
    "ESTIMATOR_MEASURES",
    "MEASURES",
    "QUERIES",
    "SIZE_BANDS",
    "anatomy_point",
    "estimator_point",
    "l_diversity_point",
    "original_point",
    "randomized_point",
    "u_summary",
]

#: Distances between the estimated and the true cell distribution (Figs. 3–5).
DISTANCES = ("kl", "chi_square", "squared_euclidean")
#: Mean relative errors of count queries (Fig. 6).
QUERIES = ("query_error_base", "query_error_cube")
MEASURES = DISTANCES + QUERIES
#: Measures of the estimator comparison (ours): they need a distribution, or weigh its negatives.
ESTIMATOR_MEASURES = ("kl", "query_error_base", "query_error_cube")
#: Bands of original cell counts over which the base group-by's relative error is also averaged
#: (the mean over all cells is dominated by the many cells of a few records).
SIZE_BANDS: dict[str, tuple[float, float]] = {"1-5": (1, 5), "6-49": (6, 49), "50+": (50, np.inf)}


def _average(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean (and sample standard deviation) of each measure over replications."""
    out: dict[str, Any] = {}
    for key in MEASURES:
        values = np.array([r[key] for r in reports], dtype=float)
        out[key] = float(values.mean())
    out["sd"] = (
        {k: float(np.std([r[k] for r in reports], ddof=1)) for k in MEASURES}
        if len(reports) > 1
        else None
    )
    out["base_by_cell_size"] = {
        band: float(np.mean([r["base_by_cell_size"][band] for r in reports])) for band in SIZE_BANDS
    }
    frames = [r["uncertainty"] for r in reports]
    out["u"] = pd.DataFrame(
        np.mean([f.to_numpy() for f in frames], axis=0),
        index=frames[0].index,
        columns=frames[0].columns,
    )
    out["replications"] = len(reports)
    return out


def _band_errors(p: np.ndarray, q: np.ndarray, n: int) -> dict[str, float]:
    """Mean relative error of the base group-by's cells, per band of original cell count."""
    act = np.rint(n * p)
    rel = np.abs(n * q - act) / np.where(act > 0, act, 1.0)
    out = {}
    for band, (lo, hi) in SIZE_BANDS.items():
        chosen = rel[(act >= lo) & (act <= hi)]
        out[band] = float(chosen.mean()) if chosen.size else float("nan")
    return out


def _measure(release: Any, table: Any, sd: SettingData) -> dict[str, Any]:
    """:func:`utility_report` of one release plus the base group-by's errors by cell size."""
    report = utility_report(release, table, sd.quasi, sd.sensitive)
    truth = true_joint(table, sd.quasi, sd.sensitive)
    raw = estimate_distribution(release, table, sd.quasi, sd.sensitive, clip_renorm=False)
    report["base_by_cell_size"] = _band_errors(truth, raw, table.n_rows)
    return report


def _repeat(
    publish: Callable[[np.random.Generator], Any], sd: SettingData, table: Any, times: int, rng
) -> dict[str, Any]:
    return _average([_measure(publish(rng), table, sd) for _ in range(times)])


def original_point(sd: SettingData) -> dict[str, Any]:
    """ℓ = 1, no protection: the original table is published (every distance is 0)."""
    return _repeat(lambda _: sd.frame, sd, sd.table, 1, None)


def randomized_point(
    sd: SettingData, keep: Mapping[str, float], times: int, rng: np.random.Generator
) -> dict[str, Any]:
    """Randomize ``times`` times with keep probabilities ``keep`` and average the measures."""

    def publish(generator: np.random.Generator) -> Release:
        return randomize(sd.frame, sd.schema, keep=dict(keep), rng=generator)

    return _repeat(publish, sd, sd.table, times, rng)


def estimator_point(
    sd: SettingData, keep: Mapping[str, float], rng: np.random.Generator
) -> dict[str, dict[str, float]]:
    """One randomization, reconstructed by every estimator: KL and query errors of each.

    ``inverse`` is ``π̂ = P⁻¹λ̂`` as in the paper's comparison (clip-renormalized for KL, raw for
    the query errors); ``em`` and ``projection`` are distributions already (our addition).
    """
    release = randomize(sd.frame, sd.schema, keep=dict(keep), rng=rng)
    rec = reconstruct(release, columns=sd.names)
    order = []
    for domain, values in zip(rec.domains, sd.values, strict=True):
        position = {v: i for i, v in enumerate(domain)}
        order.append([position[v] for v in values])
    truth = sd.counts / sd.counts.sum()
    out = {}
    for method in ESTIMATORS:
        q = rec.distribution(False, method=method)[np.ix_(*order)]
        out[method] = {
            "kl": kl_divergence(truth, q),
            "query_error_base": query_errors(truth, q, sd.n).mean,
            "query_error_cube": query_errors(truth, q, sd.n, cube=True).mean,
        }
    return out


def anatomy_point(sd: SettingData, l: int, times: int, rng: np.random.Generator) -> dict[str, Any]:  # noqa: E741
    """Anatomize ``times`` times (random partitions) and average the measures."""
    return _repeat(lambda g: anatomy(sd.frame, sd.schema, l=l, rng=g), sd, sd.table, times, rng)


def _choose_node(sd: SettingData, nodes: list[Mapping[str, int]]) -> dict[str, int]:
    """Least total height, then least discernibility, then the smaller levels (schema order)."""

    def key(node: Mapping[str, int]) -> tuple:
        counts = sd.gtable.recode(node).frequencies(sd.quasi).counts
        return (
            sum(node[q] for q in sd.quasi),
            int(np.dot(counts, counts)),
            [node[q] for q in sd.quasi],
        )

    return {q: int(v) for q, v in min(nodes, key=key).items()}


def _published_u(sd: SettingData, levels: Mapping[str, int]) -> pd.DataFrame:
    """U of every ordered pair on the published (generalized) values (as in the paper's Table 4)."""
    freq = sd.gtable.recode(levels).frequencies(sd.names)
    shape = tuple(len(d) for d in freq.dictionaries)
    joint = np.zeros(shape)
    joint[tuple(freq.combos.T)] = freq.counts
    return uncertainty_coefficients(joint / joint.sum(), sd.names)


def l_diversity_point(sd: SettingData, l: int) -> dict[str, Any]:  # noqa: E741
    """Entropy ℓ-diverse full-domain generalization (no suppression) and its measures.

    Besides the measures: ``levels`` (the published node), ``minimal_nodes`` (Incognito's
    answer), ``u_estimated`` (U on the uniform-spread estimate over the original domain, for
    comparison with the published-value U in ``u``).
    """
    model = [{"l_diversity": {"l": l, "form": "entropy"}}]
    release = full_domain(
        sd.frame,
        sd.gschema,
        models=model,
        suppression=0.0,
        metric="discernibility",
        all_minimal=True,
    )
    nodes = release.metadata["minimal_nodes"]
    levels = _choose_node(sd, nodes)
    published = sd.gtable.recode(levels).to_frame()
    if not l_diversity(published, sd.quasi, sd.sensitive, l=l, form="entropy").holds:
        raise AssertionError(f"the chosen node {levels} is not entropy {l}-diverse")
    point = _average([_measure(published, sd.gtable, sd)])
    point["u_estimated"] = point["u"]
    point["u"] = _published_u(sd, levels)
    point["levels"] = levels
    point["minimal_nodes"] = [{q: int(n[q]) for q in sd.quasi} for n in nodes]
    return point


def u_summary(u: pd.DataFrame, quasi: list[str], sensitive: str) -> dict[str, Any]:
    """JSON form of a U frame: ``U(SA | QI)`` per QI, ``U(B | A)`` per ordered QI pair, means.

    Keys of ``qi_qi`` read ``"B | A"`` (response ``B`` given ``A``).
    """
    sa_qi = {q: float(u.loc[q, sensitive]) for q in quasi}
    qi_qi = {f"{b} | {a}": float(u.loc[a, b]) for a in quasi for b in quasi if a != b}
    return {
        "sa_qi": sa_qi,
        "qi_qi": qi_qi,
        "u_sa_qi": float(np.mean(list(sa_qi.values()))),
        "u_qi_qi": float(np.mean(list(qi_qi.values()))) if qi_qi else None,
    }
