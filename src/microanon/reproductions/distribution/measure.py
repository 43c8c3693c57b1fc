"""Targets, releases, the query workload and its measure for the distribution reproduction.

- **Targets**: the privacy-annotated hierarchy of Koudas et al. (PVLDB 2009) needs integer weights;
  how to scale non-integer targets is our choice (the paper does not say).
  ``exact`` uses the source counts themselves (only for the source distribution); ``rounded``
  rounds the target's split at every inner node of the balanced hierarchy to a ratio of whole
  numbers summing to :func:`split_denominator` (16 for binary, 15 for ternary hierarchies), by
  largest remainders. A leaf's weight is then the product of its path's numerators, times
  ``q^(D - depth)`` so that every sibling ratio is exactly the rounded split. ``literal`` is the
  paper's own suggestion for parametric targets: every leaf probability times 10⁶, rounded
  (:data:`~microanon.methods.distribution.hierarchy.DEFAULT_SCALE`), so the release is P-private
  for the target itself up to about 10⁻⁶. All are handed to
  :func:`~microanon.methods.distribution.distribution_anonymize` as an integer ``pmf`` target;
  :meth:`Target.gap` measures how far an encoding lies from the target it encodes.
- **Releases**: :func:`anonymize` runs the release builder once per owner's group (per-group
  targets need their own pmf) and :func:`bound_tables` joins the parts for the query layer.
- **Workload** (the paper's): ``SELECT AVG(sa) WHERE age BETWEEN X AND X + R``, ``X`` uniform over
  the ages where the range fits; :func:`measure` answers every query from
  :class:`~microanon.query.BoundTables` and returns the mean relative error ``(u − l) / r`` per
  width (queries with an empty selection or ``r = 0`` are skipped and counted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from microanon.core.release import Release
from microanon.methods.distribution import (
    AnnotatedHierarchy,
    distribution_anonymize,
    sensitive_domain,
    target_weights,
)
from microanon.methods.distribution.hierarchy import DEFAULT_SCALE, rounded_weights
from microanon.models import p_privacy
from microanon.query import BoundTables
from microanon.reproductions.distribution.data import DataSet

__all__ = [
    "ENCODINGS",
    "LITERAL",
    "Target",
    "Workload",
    "anonymize",
    "bound_tables",
    "measure",
    "release_stats",
    "rounded_weights",
    "split_denominator",
]

#: Integer encodings of a target (see the module docstring).
ENCODINGS = ("exact", "rounded")
#: The paper-literal encoding of a parametric target (probabilities × 10⁶, rounded).
LITERAL = "literal"

#: Resolution of the split rounding; the denominator is the largest multiple of the arity below.
_SPLIT_RESOLUTION = 16
#: Scale of the library's target weights fed to the split rounding (probabilities × 2⁴⁰).
_PROBABILITY_SCALE = 1 << 40


def split_denominator(arity: int) -> int:
    """``q``: the largest multiple of ``arity`` not above 16 (an even split is then exact)."""
    return _SPLIT_RESOLUTION - _SPLIT_RESOLUTION % arity


@dataclass(frozen=True)
class Target:
    """A target distribution and its integer encoding.

    Attributes
    ----------
    kind : {"source", "uniform", "normal", "zipf"}
        ``source``: the distribution of ``reference`` values (or of the data the hierarchy
        serves); the others as :func:`~microanon.methods.distribution.target_weights`.
    encoding : {"exact", "rounded", "literal"}
        ``exact`` only for ``source`` (the counts are the weights); ``literal`` only for the
        parametric targets.
    params : dict
        ``{"mean", "variance"}`` for normal, ``{"s"}`` for Zipf.
    reference : array, optional
        For ``source``: the values whose distribution is the target (E4.5: the whole source).
    """

    kind: str
    encoding: str = "rounded"
    params: dict[str, Any] | None = None
    reference: np.ndarray | None = None

    def __post_init__(self) -> None:
        known = (*ENCODINGS, LITERAL)
        if (
            self.encoding not in known
            or (self.encoding == "exact" and self.kind != "source")
            or (self.encoding == LITERAL and self.kind == "source")
        ):
            raise ValueError(f"encoding {self.encoding!r} does not apply to target {self.kind!r}")

    def pmf(self, domain: np.ndarray, values: np.ndarray, arity: int) -> dict[float, int]:
        """The integer pmf target over ``domain`` for a group with sensitive ``values``."""
        weights = self.weights(domain, values, arity)
        keep = weights > 0
        return dict(zip(domain[keep].tolist(), weights[keep].tolist(), strict=True))

    def gap(self, domain: np.ndarray, values: np.ndarray, arity: int) -> dict[str, float]:
        """How far the encoded target lies from the target itself (the privacy given up).

        ``tv``: total variation distance ``½ Σ |P̃(v) − P(v)|``; ``max_relative``: the largest
        ``|P̃(v) / P(v) − 1|`` over values with ``P(v) > 0`` (1 where ``P̃`` drops a value).
        """
        mass = self._mass(domain, values).astype(float)
        p = mass / mass.sum()
        w = self.weights(domain, values, arity).astype(float)
        q = w / w.sum()
        pos = p > 0
        return {
            "tv": float(0.5 * np.abs(q - p).sum()),
            "max_relative": float(np.max(np.abs(q[pos] / p[pos] - 1))),
        }

    def _mass(self, domain: np.ndarray, values: np.ndarray) -> np.ndarray:
        if self.kind == "source":
            ref = values if self.reference is None else self.reference
            ref = ref[np.isin(ref, domain)]  # a sample's domain may lack removed values
            mass = np.bincount(np.searchsorted(domain, ref), minlength=len(domain))
        else:
            spec = self.kind if not self.params else {self.kind: self.params}
            mass = target_weights(domain, spec, scale=_PROBABILITY_SCALE)[0]
        return mass

    def weights(self, domain: np.ndarray, values: np.ndarray, arity: int) -> np.ndarray:
        """The integer leaf weights of the encoded target over ``domain``."""
        if self.encoding == LITERAL:
            spec = self.kind if not self.params else {self.kind: self.params}
            return target_weights(domain, spec, scale=DEFAULT_SCALE)[0]
        mass = self._mass(domain, values)
        if self.encoding == "exact":
            return mass.astype(np.int64)
        tree = AnnotatedHierarchy.balanced(domain, arity=arity, target="uniform")
        return rounded_weights(tree, mass, split_denominator(arity))


def anonymize(
    data: DataSet,
    target: Target,
    *,
    partition: str,
    rng: np.random.Generator,
    fakes: float = 0.0,
    arity: int = 2,
    groups: np.ndarray | None = None,
    domain: Any = "data",
) -> list[Release]:
    """Distribution releases of ``data``: one per owner's group (one without ``groups``).

    ``partition`` is ``"sa_only"`` or ``"qi_sa"`` (subgroups of equal age); ``domain`` is the
    release builder's ``domain`` (``"data"``: the data set's own). Each owner's group gets the
    target computed over its own domain and values.
    """
    parts = [np.arange(len(data.frame))] if groups is None else _group_rows(groups)
    out = []
    for rows in parts:
        part = data if groups is None else data.subset(rows)
        dom_spec = data.domain if domain == "data" else domain
        dom = sensitive_domain(part.values, dom_spec)
        out.append(
            distribution_anonymize(
                part.frame,
                part.schema,
                target={"pmf": target.pmf(dom, part.values, arity)},
                partition=partition,
                subgroup_by=["age"],
                fakes=fakes,
                arity=arity,
                domain=dom_spec,
                rng=rng,
            )
        )
    return out


def _group_rows(groups: np.ndarray) -> list[np.ndarray]:
    order = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[order], np.unique(groups))
    return np.split(order, bounds[1:])


def bound_tables(releases: Sequence[Release]) -> BoundTables:
    """The bound tables of several releases published side by side (group ids offset)."""
    if len(releases) == 1:
        return BoundTables.from_release(releases[0])
    qits, sts, offset = [], [], 0
    for rel in releases:
        qit, st = rel.tables["qit"].copy(), rel.tables["st"].copy()
        qit["group"] += offset
        st["group"] += offset
        offset += int(rel.metadata["distribution"]["groups"])
        qits.append(qit)
        sts.append(st)
    qit = pd.concat(qits, ignore_index=True)
    return BoundTables.from_entries(pd.concat(sts, ignore_index=True), qit["group"].to_numpy(), qit)


def release_stats(releases: Sequence[Release], verify: bool = True) -> dict[str, Any]:
    """Size and shape of the published entries, and (``verify``) the exact P-privacy check.

    ``root_share``: share of the entries that are their hierarchy's whole domain;
    ``mean_range``: sum of ranges per entry; ``domain_values``: mean number of values of the
    hierarchies.
    """
    entries = fakes = root = groups = 0
    sor = 0.0
    private = True
    sizes: list[int] = []
    for rel in releases:
        dist = rel.metadata["distribution"]
        st = rel.tables["st"]
        hier = dist["hierarchies"]
        sizes.extend(len(h["values"]) for h in hier)
        gh = np.asarray(dist["group_hierarchy"])
        first = np.array([h["values"][0] for h in hier])[gh]
        last = np.array([h["values"][-1] for h in hier])[gh]
        g = st["group"].to_numpy() - 1
        at_root = (st["low"].to_numpy() == first[g]) & (st["high"].to_numpy() == last[g])
        count = st["count"].to_numpy()
        entries += int(count.sum())
        root += int(count[at_root].sum())
        fakes += int(dist["fakes"])
        groups += int(dist["groups"])
        sor += float(dist["sum_of_ranges"])
        if verify:
            private = private and bool(p_privacy(rel).holds)
    return {
        "groups": groups,
        "entries": entries,
        "fakes": fakes,
        "sum_of_ranges": sor,
        "mean_range": sor / entries,
        "root_share": root / entries,
        "domain_values": float(np.mean(sizes)),
        "p_private": private if verify else None,
    }


@dataclass(frozen=True)
class Workload:
    """``n_queries`` random age ranges per width, with the true answers.

    Attributes
    ----------
    widths : tuple of int
        ``R = Y − X``.
    low, high : (n_widths, n_queries) int arrays
        ``X`` and ``Y``.
    count : (n_widths, n_queries) int array
        Records selected.
    truth : (n_widths, n_queries) float array
        True ``AVG`` (NaN for an empty selection).
    """

    widths: tuple[int, ...]
    low: np.ndarray
    high: np.ndarray
    count: np.ndarray
    truth: np.ndarray

    @classmethod
    def draw(
        cls,
        data: DataSet,
        widths: Sequence[int],
        n_queries: int,
        rng: np.random.Generator,
    ) -> Workload:
        """Draw ``X`` uniformly from ``min(age) .. max(age) − R`` for every width ``R``."""
        ages, values = data.ages, data.values.astype(float)
        a0, a1 = int(ages.min()), int(ages.max())
        widths = tuple(int(w) for w in widths)
        if max(widths) > a1 - a0:
            raise ValueError(f"width {max(widths)} exceeds the age span {a0}..{a1}")
        low = np.stack([rng.integers(a0, a1 - w + 1, size=n_queries) for w in widths])
        high = low + np.asarray(widths)[:, None]
        n_age = np.bincount(ages - a0, minlength=a1 - a0 + 1)
        s_age = np.bincount(ages - a0, weights=values, minlength=a1 - a0 + 1)
        cn = np.concatenate([[0], np.cumsum(n_age)])
        cs = np.concatenate([[0.0], np.cumsum(s_age)])
        count = cn[high - a0 + 1] - cn[low - a0]
        total = cs[high - a0 + 1] - cs[low - a0]
        with np.errstate(invalid="ignore", divide="ignore"):
            truth = np.where(count > 0, total / count, np.nan)
        return cls(widths, low, high, count, truth)


def measure(tables: BoundTables, work: Workload) -> dict[str, Any]:
    """Mean relative error ``(u − l) / r`` of the AVG bounds per width, and containment.

    Returns
    -------
    dict
        ``error`` (per width; NaN if no query counts), ``used`` (queries counted per width),
        ``mean_error`` (over the widths), ``violations`` (queries whose true answer falls
        outside the bounds: must be 0).
    """
    shape = work.low.shape
    counts = tables.range_counts("age", work.low.reshape(-1), work.high.reshape(-1))
    bounds = tables.bounds("avg", counts)
    if not np.array_equal(bounds.count, work.count.reshape(-1)):
        raise AssertionError("the release selects other records than the original table")
    lower, upper = bounds.lower.reshape(shape), bounds.upper.reshape(shape)
    truth = work.truth
    used = (work.count > 0) & (truth != 0)
    inside = (lower <= truth) & (truth <= upper)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(used, (upper - lower) / np.abs(truth), 0.0)
    n_used = used.sum(axis=1)
    with np.errstate(invalid="ignore"):
        error = rel.sum(axis=1) / n_used
    error = np.where(n_used > 0, error, np.nan)
    return {
        "error": error.tolist(),
        "used": n_used.tolist(),
        "mean_error": float(np.nanmean(error)),
        "violations": int((used & ~inside).sum()),
    }
