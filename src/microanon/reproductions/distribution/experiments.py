"""Experiments E4.1–E4.12 of Koudas et al. (PVLDB 2009, Figs. 5–13): what each one runs.

A :class:`Plan` fixes the grid (query widths, synthetic size, fake shares, target parameters,
table sizes of the timing); :data:`FULL` is the reproduction, :data:`QUICK` a reduced grid for
the test suite. :class:`Runner` holds the data sets and query workloads (drawn once per data set,
so every method of an experiment answers the same queries) and has one method per figure.

A *line* (one curve of a figure) is the dict of :func:`~.measure.measure` (``error`` per
query width, ``used``, ``mean_error``, ``violations``) merged with
:func:`~.measure.release_stats` (``groups``, ``entries``, ``fakes``, ``sum_of_ranges``,
``mean_range``, ``root_share``, ``domain_values``, ``p_private``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from microanon.core.release import Release
from microanon.methods.distribution import distribution_anonymize, sensitive_domain
from microanon.reproductions.distribution.data import (
    SYNTHETIC_DOMAIN,
    DataSet,
    adult_capital_loss,
    age_groups,
    remove_share,
    synthetic,
)
from microanon.reproductions.distribution.measure import (
    ENCODINGS,
    LITERAL,
    Target,
    Workload,
    anonymize,
    bound_tables,
    measure,
    release_stats,
)

__all__ = ["FULL", "PARTITIONS", "QUICK", "SOURCE_SETS", "Plan", "Runner", "pct"]

#: Report name -> ``partition`` of the release builder.
PARTITIONS = {"SA-only": "sa_only", "QI-SA": "qi_sa"}
#: The three data sets of Figs. 5 and 6 (E4.1–E4.5), in panel order.
SOURCE_SETS = ("real", "uncorrelated", "correlated")


def pct(share: float) -> str:
    """A fake share as the percent key of the results (``0.05`` -> ``"5"``)."""
    return f"{100 * share:g}"


@dataclass(frozen=True)
class Plan:
    """The grid of one run.

    Attributes
    ----------
    quick : bool
    widths : tuple of int
        Query widths ``R`` (ages ``X .. X + R``).
    queries : int
        Random queries per width.
    synthetic_rows : int
        Records of every synthetic table (E4.2–E4.11).
    domain : (int, int)
        Inclusive integer domain of the synthetic sensitive attribute.
    fakes : tuple of float
        Fake shares of E4.4 and E4.5 (per published group).
    removed : float
        Share of the source removed in E4.5.
    normal_r : tuple of float
        E4.6: target Normal(centre, range(D) / r).
    focus_width : int
        The width E4.6–E4.8 are plotted at (the paper's width-50 queries).
    zipf_s : tuple of float
        E4.7 / E4.8: target Zipf exponents (the data's is 0.1).
    groups : tuple of int
        E4.10 / E4.11: numbers of age groups (1 = one group).
    sizes : tuple of int
        E4.12: table sizes.
    repeats : int
        E4.12: the best of this many runs is reported.
    """

    quick: bool
    widths: tuple[int, ...]
    queries: int
    synthetic_rows: int
    domain: tuple[int, int]
    fakes: tuple[float, ...]
    removed: float
    normal_r: tuple[float, ...]
    focus_width: int
    zipf_s: tuple[float, ...]
    groups: tuple[int, ...]
    sizes: tuple[int, ...]
    repeats: int

    def describe(self) -> dict[str, Any]:
        """The plan as JSON-ready parameters."""
        return {
            "widths": list(self.widths),
            "queries_per_width": self.queries,
            "synthetic_rows": self.synthetic_rows,
            "synthetic_domain": list(self.domain),
            "fakes_percent": [pct(f) for f in self.fakes],
            "removed_share": self.removed,
            "normal_r": list(self.normal_r),
            "focus_width": self.focus_width,
            "zipf_s": list(self.zipf_s),
            "groups": list(self.groups),
            "sizes": list(self.sizes),
            "repeats": self.repeats,
        }


#: The reproduction's grid (about a minute and a half on two cores).
FULL = Plan(
    quick=False,
    widths=(0, 2, 5, 10, 15, 20, 30, 40, 50, 60),
    queries=100,
    synthetic_rows=10_000,
    domain=SYNTHETIC_DOMAIN,
    fakes=(0.05, 0.10, 0.20),
    removed=0.10,
    normal_r=tuple(4.0**k for k in range(-5, 2)),
    focus_width=50,
    zipf_s=(0.0, 0.1, 0.3, 0.5, 0.8),
    groups=(1, 2, 10),
    sizes=(10_000, 30_000, 100_000, 300_000, 1_000_000),
    repeats=3,
)

#: Reduced grid for the test suite: 2,000 synthetic records on 64 values (minSORFake's cost
#: grows with the hierarchy), five widths, two fake shares, three values of r and s, timings
#: up to 3·10⁵ rows.
QUICK = Plan(
    quick=True,
    widths=(0, 10, 30, 50, 60),
    queries=100,
    synthetic_rows=2_000,
    domain=(1024, 1087),
    fakes=(0.05, 0.20),
    removed=0.10,
    normal_r=(4.0**-5, 4.0**-2, 4.0),
    focus_width=50,
    zipf_s=(0.0, 0.1, 0.5),
    groups=(1, 2, 10),
    sizes=(1_000, 30_000, 300_000),
    repeats=1,
)


class Runner:
    """Runs the experiments of one plan with one generator, in a fixed order."""

    def __init__(self, plan: Plan, rng: np.random.Generator) -> None:
        self.plan = plan
        self.rng = rng
        self._data: dict[str, DataSet] = {}
        self._work: dict[str, Workload] = {}

    # ------------------------------------------------------------------ data and lines
    def data(self, name: str) -> DataSet:
        """A data set, built on first use."""
        if name not in self._data:
            self._data[name] = (
                adult_capital_loss()
                if name == "real"
                else synthetic(name, self.plan.synthetic_rows, self.rng, self.plan.domain)
            )
        return self._data[name]

    def workload(self, key: str, data: DataSet) -> Workload:
        """The queries on a data set, drawn on first use."""
        if key not in self._work:
            self._work[key] = Workload.draw(data, self.plan.widths, self.plan.queries, self.rng)
        return self._work[key]

    def _line(self, releases: list[Release], work: Workload) -> dict[str, Any]:
        return measure(bound_tables(releases), work) | release_stats(releases)

    def line(
        self, data: DataSet, work: Workload, target: Target, method: str, **options: Any
    ) -> dict[str, Any]:
        """Anonymize ``data`` (``method``: ``"SA-only"`` or ``"QI-SA"``) and measure it."""
        releases = anonymize(data, target, partition=PARTITIONS[method], rng=self.rng, **options)
        return self._line(releases, work)

    def sizes(self) -> dict[str, int]:
        """Records of every data set used so far."""
        return {k: len(v.frame) for k, v in self._data.items()}

    # ------------------------------------------------------------------ experiments
    def e41_e44(self) -> dict[str, Any]:
        """Fig. 5: SA-only vs QI-SA (E4.1–E4.3) and QI-SA with fakes (E4.4), target = source."""
        out: dict[str, Any] = {}
        fakes: dict[str, Any] = {"fakes_percent": ["0", *map(pct, self.plan.fakes)]}
        for exp, name in zip(("E4.1", "E4.2", "E4.3"), SOURCE_SETS, strict=True):
            data = self.data(name)
            work = self.workload(name, data)
            values = data.values
            entry: dict[str, Any] = {
                "data": name,
                "rows": len(values),
                "distinct_values": len(np.unique(values)),
                "min": values.min(),
                "max": values.max(),
            }
            fakes[name] = {}
            for enc in ENCODINGS:
                target = Target("source", enc)
                lines = {m: self.line(data, work, target, m) for m in PARTITIONS}
                entry[enc] = lines
                fakes[name][enc] = {"0": lines["QI-SA"]} | {
                    pct(f): self.line(data, work, target, "QI-SA", fakes=f) for f in self.plan.fakes
                }
            out[exp] = entry
        out["E4.4"] = fakes
        return out

    def e45(self) -> dict[str, Any]:
        """Fig. 6: SA-only with fakes when the target is the source before removing 10%."""
        out: dict[str, Any] = {
            "removed_share": self.plan.removed,
            "fakes_percent": ["0", *map(pct, self.plan.fakes)],
        }
        for name in SOURCE_SETS:
            source = self.data(name)
            sample = remove_share(source, self.plan.removed, self.rng)
            work = self.workload(f"{name}-sample", sample)
            entry: dict[str, Any] = {"rows": len(sample.frame), "source_rows": len(source.frame)}
            for enc in ENCODINGS:
                target = Target("source", enc, reference=source.values)
                entry[enc] = {
                    pct(f): self.line(sample, work, target, "SA-only", fakes=f)
                    for f in (0.0, *self.plan.fakes)
                }
            out[name] = entry
        return out

    def e46(self) -> dict[str, Any]:
        """Fig. 7: uniform data, target Normal(centre, range(D) / r)."""
        data = self.data("uniform")
        work = self.workload("uniform", data)
        low, high = self.plan.domain
        variances = [(high - low) / r for r in self.plan.normal_r]
        targets = [
            Target("normal", params={"mean": (low + high) / 2, "variance": v}) for v in variances
        ]
        return {
            "data": "uniform",
            "r": list(self.plan.normal_r),
            "variance": variances,
        } | {m: [self.line(data, work, t, m) for t in targets] for m in PARTITIONS}

    def _zipf(self, name: str) -> dict[str, Any]:
        data = self.data(name)
        work = self.workload(name, data)
        targets = [Target("zipf", params={"s": s}) for s in self.plan.zipf_s]
        return {"data": name, "source_s": 0.1, "s": list(self.plan.zipf_s)} | {
            m: [self.line(data, work, t, m) for t in targets] for m in PARTITIONS
        }

    def e47(self) -> dict[str, Any]:
        """Fig. 8: Zipf(0.1) data, target Zipf(s)."""
        return self._zipf("zipf")

    def e48(self) -> dict[str, Any]:
        """Fig. 9: as E4.7 with age correlated with the value."""
        return self._zipf("zipf_correlated")

    def e49(self) -> dict[str, Any]:
        """Fig. 10: uniform data and target, balanced binary vs ternary hierarchy."""
        data = self.data("uniform")
        work = self.workload("uniform", data)
        target = Target("uniform")
        return {"data": "uniform"} | {
            shape: {m: self.line(data, work, target, m, arity=arity) for m in PARTITIONS}
            for shape, arity in (("binary", 2), ("ternary", 3))
        }

    def _grouped(self, data: DataSet, work: Workload, target: Target, domain: Any) -> dict:
        lines: dict[str, list[dict[str, Any]]] = {m: [] for m in PARTITIONS}
        for k in self.plan.groups:
            labels = age_groups(data.ages, k)
            for m in PARTITIONS:
                lines[m].append(self.line(data, work, target, m, groups=labels, domain=domain))
        return lines

    def e410(self) -> dict[str, Any]:
        """Fig. 11: Adult split into age groups, each with its own source distribution."""
        data = self.data("real")
        work = self.workload("real", data)
        return {"data": "real", "groups": list(self.plan.groups)} | {
            enc: self._grouped(data, work, Target("source", enc), "data") for enc in ENCODINGS
        }

    def e411(self) -> dict[str, Any]:
        """Fig. 12: correlated data split by age, target uniform over each group's range."""
        data = self.data("correlated")
        work = self.workload("correlated", data)
        return {"data": "correlated", "groups": list(self.plan.groups)} | self._grouped(
            data, work, Target("uniform"), "integer"
        )

    def literal(self) -> dict[str, Any]:
        """The paper-literal target encoding beside the rounded one, on E4.6's and E4.7's data.

        The rounded lines are E4.6's and E4.7's own (same data and queries); this adds the
        literal lines and, per target, how far each encoding lies from the target (``gap``).
        """
        low, high = self.plan.domain
        cases = {
            "normal": (
                "uniform",
                [
                    Target(
                        "normal",
                        LITERAL,
                        params={"mean": (low + high) / 2, "variance": (high - low) / r},
                    )
                    for r in self.plan.normal_r
                ],
            ),
            "zipf": (
                "zipf",
                [Target("zipf", LITERAL, params={"s": s}) for s in self.plan.zipf_s],
            ),
        }
        out: dict[str, Any] = {}
        for key, (name, targets) in cases.items():
            data = self.data(name)
            work = self.workload(name, data)
            dom = sensitive_domain(data.values, data.domain)
            gaps = {
                enc: [
                    Target(t.kind, enc, params=t.params).gap(dom, data.values, 2) for t in targets
                ]
                for enc in ("rounded", LITERAL)
            }
            out[key] = {"data": name, "gap": gaps} | {
                m: [self.line(data, work, t, m) for t in targets] for m in PARTITIONS
            }
        return out

    def e412(self) -> dict[str, Any]:
        """Fig. 13: run time of the release builder vs table size (best of ``repeats``).

        In CPU seconds of this process, so that other work on the machine (a parallel test run)
        does not distort the growth with the table size.
        """
        seconds: dict[str, list[float]] = {m: [] for m in PARTITIONS}
        for n in self.plan.sizes:
            data = synthetic("uncorrelated", n, self.rng, self.plan.domain)
            dom = sensitive_domain(data.values, data.domain)
            target = {"pmf": Target("source").pmf(dom, data.values, 2)}
            for m, partition in PARTITIONS.items():
                best = np.inf
                for _ in range(self.plan.repeats):
                    start = time.process_time()
                    distribution_anonymize(
                        data.frame,
                        data.schema,
                        target=target,
                        partition=partition,
                        subgroup_by=["age"],
                        domain=data.domain,
                        rng=self.rng,
                    )
                    best = min(best, time.process_time() - start)
                seconds[m].append(best)
        return {
            "data": "uncorrelated",
            "sizes": list(self.plan.sizes),
            "repeats": self.plan.repeats,
        } | {m: {"seconds": s} for m, s in seconds.items()}
