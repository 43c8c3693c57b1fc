"""Time the re-identification risk measures on ARX's Adult and print a table.

Run: .venv/bin/python benchmarks/risk.py [--repeat 3]

Data: ARX's Adult extract (30,162 rows) with ARX's 8 quasi-identifiers, three 10× tables
(301,620 rows) and a generalized Adult:

- ``adult x10``: Adult replicated ten times. Every class is then 10 times larger, so there are
  no sample uniques and the uniqueness models have nothing to estimate (they return 0 at once);
- ``resampled x10``: Adult's rows drawn with replacement (fixed seed): a few sample uniques
  remain (a record drawn exactly once in a class of its own);
- ``shuffled x10``: every column of ``adult x10`` permuted on its own (fixed seed): Adult's
  marginals without their correlations, mostly sample uniques, a large class-size histogram;
- ``generalized``: Adult with age in 10-year bands, fewer and larger classes.

Rows: the prosecutor profile of the existing API (``reidentification_risk``), ``attacker_risks``
without a population, with a sampling fraction and with a population table (the table itself
replicated 10×, as one row per class with a count column), and ``population_uniqueness`` for
the US population (Dankar's rule at a small fraction: Pitman) and at a fraction of 0.2 (where
the rule compares Zayatz with SNB). Wall-clock, best of ``--repeat`` runs, from the DataFrame
(grouping included).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from microanon.datasets import load_arx_adult
from microanon.measures import attacker_risks, population_uniqueness, reidentification_risk

QI = [
    "sex",
    "age",
    "race",
    "marital_status",
    "education",
    "native_country",
    "workclass",
    "occupation",
]


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Best wall-clock time of ``repeat`` calls, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def tables() -> dict[str, pd.DataFrame]:
    adult = load_arx_adult()[QI]
    generalized = adult.assign(age=(adult["age"] // 10 * 10).astype(str) + "s")
    rng = np.random.default_rng(0)
    x10 = pd.concat([adult] * 10, ignore_index=True)
    return {
        "adult": adult,
        "adult x10": x10,
        "resampled x10": adult.iloc[rng.integers(0, len(adult), 10 * len(adult))],
        "shuffled x10": pd.DataFrame({c: rng.permutation(x10[c].to_numpy()) for c in QI}),
        "generalized": generalized,
    }


def population_of(data: pd.DataFrame) -> pd.DataFrame:
    """The table's classes, each 10 times as large, one row per class with a count column."""
    counts = data.groupby(QI, sort=False).size().rename("people").reset_index()
    return counts.assign(people=counts["people"] * 10)


def measures(data: pd.DataFrame) -> list[tuple[str, Callable[[], Any]]]:
    people = population_of(data)
    return [
        ("reidentification_risk", lambda: reidentification_risk(data, QI)),
        ("attacker_risks, no population", lambda: attacker_risks(data, QI)),
        ("attacker_risks, fraction 0.1", lambda: attacker_risks(data, QI, fraction=0.1)),
        (
            "attacker_risks, population table",
            lambda: attacker_risks(data, QI, population=people, count="people"),
        ),
        ("population_uniqueness, usa", lambda: population_uniqueness(data, QI, region="usa")),
        (
            "population_uniqueness, fraction 0.2",
            lambda: population_uniqueness(data, QI, fraction=0.2),
        ),
    ]


def describe(result: Any) -> str:
    if hasattr(result, "dankar"):
        shares = [
            f"{e.model} {100 * e.share:.3g}%" if e.valid else f"{e.model} none"
            for e in (result.pitman, result.zayatz, result.snb)
        ]
        return f"{', '.join(shares)}; Dankar: {result.dankar.model}"
    if hasattr(result, "marketer"):
        return f"journalist highest {result.journalist.highest:.3g}, marketer {result.marketer:.3g}"
    return f"average {result.average:.3g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    args = parser.parse_args()
    print("| data | rows | measure | time | result |")
    print("|---|---|---|---|---|")
    for name, data in tables().items():
        for measure, fn in measures(data):
            seconds, result = best(fn, args.repeat)
            print(
                f"| {name} | {len(data):,} | {measure} | {1000 * seconds:.0f} ms | "
                f"{describe(result)} |"
            )


if __name__ == "__main__":
    main()
