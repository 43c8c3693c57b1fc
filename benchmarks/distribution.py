"""Time distribution-based anonymization (issue 5) and print a table.

Run: .venv/bin/python benchmarks/distribution.py [--quick] [--repeat 3]

Rows and targets:

- MinSumOfRange with materialization and the random permutation, one group of n tuples whose
  sensitive value is drawn from 1,000 integer values (normal-shaped), uniform target over a
  balanced binary hierarchy: allocation (:func:`allocate`), the bijection of Definition 3.1
  (:func:`materialize`) and the random pairing of entries with tuples (:func:`assign`).
  Target: linear, at least 10⁶ tuples/s on one core;
- minSORFake on Adult's 1,427 capital-loss tuples (89 distinct values), t = 20 % (285 fakes):
  uniform target (the case where fakes matter) and the empirical one. Target: under 1 s;
- the whole release (:func:`distribution_anonymize` from a DataFrame: encoding, grouping,
  hierarchy, allocation, tables) of a 10⁷-row table (age, a group column with 1,000 groups,
  an integer sensitive value with 1,000 values). Target: under 30 s;
- a bounded AVG query with an age-range condition on the 1,427-tuple SA-only and QI-SA
  releases: building the auxiliary tables once, then one query from them. Target: under 10 ms.

Times are wall-clock seconds (``time.perf_counter``), best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from microanon.datasets import load_adult
from microanon.methods.distribution import (
    AnnotatedHierarchy,
    Generalization,
    allocate,
    assign,
    distribution_anonymize,
    materialize,
    min_sor_fake,
)


def best(fn: Callable[[], object], repeat: int) -> float:
    """Best wall-clock time of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _normal_ints(n: int, domain: int, rng: np.random.Generator) -> np.ndarray:
    return np.clip(np.rint(rng.normal(domain / 2, domain / 6, n)), 0, domain - 1).astype(np.int64)


def min_sum_of_range_rows(sizes: list[int], repeat: int) -> list[dict]:
    rng = np.random.default_rng(1)
    h = AnnotatedHierarchy.balanced(np.arange(1000), target="uniform")
    rows = []
    for n in sizes:
        values = _normal_ints(n, 1000, rng)

        def run(values: np.ndarray = values, n: int = n) -> None:
            counts = np.bincount(values, minlength=1000)
            gen = Generalization(h, allocate(h, counts)[0], np.empty(0, np.int64))
            materialize(values, gen, rng)
            assign(gen.copies, n, rng)

        t = best(run, repeat)
        rows.append(
            {
                "case": f"MinSumOfRange + materialize + permute, n = {n:,}",
                "seconds": t,
                "tuples/s": n / t,
                "target": "≥ 1e6 tuples/s",
            }
        )
    return rows


def capital_loss() -> np.ndarray:
    adult = load_adult()
    return adult.loc[adult["capital_loss"] > 0, "capital_loss"].to_numpy()


def fake_rows(repeat: int) -> list[dict]:
    values = capital_loss()
    rows = []
    for target in ("uniform", "empirical"):
        h = AnnotatedHierarchy.balanced(np.unique(values), target=target, data=values)
        result = min_sor_fake(values, h, 0.2)
        t = best(lambda h=h: min_sor_fake(values, h, 0.2), repeat)
        rows.append(
            {
                "case": f"minSORFake |g| = {len(values):,}, |D| = {len(h.values)}, t = 20 %, "
                f"{target} target (SOR {result.sor_by_fakes[0]:,.0f} → "
                f"{result.sum_of_ranges:,.0f} with {len(result.fakes)} fakes)",
                "seconds": t,
                "tuples/s": len(values) / t,
                "target": "< 1 s",
            }
        )
    return rows


def release_rows(n: int, repeat: int) -> list[dict]:
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(
        {
            "age": rng.integers(17, 80, n),
            "region": rng.integers(0, 1000, n),
            "income": _normal_ints(n, 1000, rng),
        }
    )
    schema = {"age": "quasi", "region": "quasi", "income": "sensitive"}
    t = best(
        lambda: distribution_anonymize(frame, schema, target="uniform", groups="region", rng=rng),
        repeat,
    )
    return [
        {
            "case": f"release of {n:,} rows in 1,000 groups (SA-only, uniform, binary)",
            "seconds": t,
            "tuples/s": n / t,
            "target": "< 30 s" if n >= 10**7 else "",
        }
    ]


def query_rows(repeat: int) -> list[dict]:
    from microanon.query import BoundTables, query

    adult = load_adult()
    data = adult.loc[adult["capital_loss"] > 0]
    schema = {q: "quasi" for q in ("age", "sex", "race")} | {"capital_loss": "sensitive"}
    sql = "SELECT AVG(capital_loss) FROM release WHERE age BETWEEN 30 AND 40"
    rows = []
    for partition in ("sa_only", "qi_sa"):
        kwargs = {"subgroup_by": ["age"]} if partition == "qi_sa" else {}
        release = distribution_anonymize(
            data[[*schema]], schema, target="empirical", partition=partition, rng=3, **kwargs
        )
        n_groups = int(release.metadata["distribution"]["groups"])
        build = best(lambda release=release: BoundTables.from_release(release), repeat)
        tables = BoundTables.from_release(release)
        mask = release.tables["qit"]["age"].between(30, 40).to_numpy()
        one = best(lambda t=tables, m=mask: t.bounds("avg", t.counts(m)), max(repeat, 20))
        sql_time = best(lambda t=tables: query(t, sql), max(repeat, 20))
        label = f"{partition}, {n_groups} groups"
        rows += [
            {"case": f"auxiliary bound tables of the 1,427-tuple release ({label})",
             "seconds": build, "tuples/s": len(mask) / build, "target": ""},
            {"case": f"  … one bounded AVG, age 30–40, from the tables ({label})",
             "seconds": one, "tuples/s": len(mask) / one, "target": "< 0.01 s"},
            {"case": f"  … the same through SQL (DuckDB parse + where) ({label})",
             "seconds": sql_time, "tuples/s": len(mask) / sql_time, "target": ""},
        ]  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [10**5, 10**6] if args.quick else [10**5, 10**6, 10**7]
    rows = min_sum_of_range_rows(sizes, args.repeat)
    rows += fake_rows(args.repeat)
    rows += release_rows(10**6 if args.quick else 10**7, 1)
    rows += query_rows(args.repeat)
    table = pd.DataFrame(rows)
    with pd.option_context("display.max_colwidth", 120, "display.width", 200):
        print(table.to_string(index=False, float_format=lambda x: f"{x:,.4g}"))


if __name__ == "__main__":
    main()
