"""Time the multiple-sensitive-attribute methods (issue 7) and print tables.

Run: .venv/bin/python benchmarks/multisa.py [--quick] [--repeat 3]

Data: Adult's 30,718 records (the training split without the 1,843 records of unknown occupation;
the data set of Yi & Shi, Mathematical Problems in Engineering 2015). Sensitive attribute sets
{education, occupation}, {+ age}, {+ relationship}; quasi-identifiers age (when not sensitive),
workclass, marital_status, race, sex and native_country (its 556 unknown values kept as ``?``).

Rows and targets:

- SID creation (E2.1/E2.2): Rating's SIDs for every record, per attribute from its bucket sizes
  (:func:`create_sids`), the improved version (dangerous buckets, Algorithm 13's re-sort,
  Algorithm 19) against the original stable bubble sort after every SID; time summed over the
  attributes of a set; both must give the same SIDs. Target: at least 10× faster with 4 SAs;
- the whole mixed-model release (:func:`mixed_model` from the DataFrame: rules, partition,
  clustering, grouping, permutation, improved Rating, tables), min_confidence 0.8, every set and
  l. Target: at most 2 s;
- growth: Adult ×1, ×2, ×5, ×10 (records drawn with replacement, fixed seeds), 4 SAs: the
  mixed-model release and the improved SID creation. Target: linear (time per record flat).

Times are wall-clock seconds (``time.perf_counter``), best of ``--repeat`` runs (a configuration
stops repeating after a run of more than 5 s).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd

from microanon.datasets import load_adult
from microanon.methods.multisa import create_sids, mixed_model

SETS = [
    ["education", "occupation"],
    ["education", "occupation", "age"],
    ["education", "occupation", "age", "relationship"],
]
QUASI = ["age", "workclass", "marital_status", "race", "sex", "native_country"]


def best(fn: Callable[[], object], repeat: int) -> float:
    """Best wall-clock time of up to ``repeat`` calls (one more only while a call takes < 5 s)."""
    times: list[float] = []
    while len(times) < repeat:
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        if times[-1] > 5:
            break
    return min(times)


def adult_30718() -> pd.DataFrame:
    """Adult's training split minus the records of unknown occupation."""
    df = load_adult(split="train", dropna=False)
    out = df[df["occupation"].notna()].reset_index(drop=True)
    assert len(out) == 30_718, len(out)
    return out


def schema(sensitive: list[str]) -> dict:
    quasi = {q: {"role": "quasi", "missing": "category"} for q in QUASI if q not in sensitive}
    return quasi | {s: "sensitive" for s in sensitive}


def bucket_sizes(df: pd.DataFrame, column: str) -> np.ndarray:
    """Occurrences of each value, values in order of first appearance (as Rating numbers them)."""
    codes, _ = pd.factorize(df[column])
    return np.bincount(codes)


def _fmt(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def sid_rows(df: pd.DataFrame, ells: list[int], repeat: int) -> list[str]:
    sizes = {c: bucket_sizes(df, c) for c in SETS[-1]}
    rows = [
        "| SAs | l | SIDs | suppressed | improved | bubble sort | speed-up |",
        "|---|---|---|---|---|---|---|",
    ]
    for sensitive in SETS:
        for ell in ells:
            fast = {c: create_sids(sizes[c], ell) for c in sensitive}
            slow = {c: create_sids(sizes[c], ell, improved=False) for c in sensitive}
            for c in sensitive:  # same SIDs, or the comparison means nothing
                assert fast[c].sid.tolist() == slow[c].sid.tolist(), c
                assert fast[c].bucket.tolist() == slow[c].bucket.tolist(), c
            t_fast = sum(best(partial(create_sids, sizes[c], ell), repeat) for c in sensitive)
            t_slow = sum(
                best(partial(create_sids, sizes[c], ell, improved=False), repeat) for c in sensitive
            )
            n_sids = sum(s.n_sids for s in fast.values())
            lost = sum(int(s.suppressed.sum()) for s in fast.values())
            rows.append(
                f"| {len(sensitive)} | {ell} | {n_sids:,} | {lost:,} | {_fmt(t_fast)} | "
                f"{_fmt(t_slow)} | {t_slow / t_fast:.0f}× |"
            )
    return rows


def mixed_rows(df: pd.DataFrame, ells: list[int], repeat: int) -> list[str]:
    rows = [
        "| SAs | l | time | rules | SAC~ rows | borrowed | deleted | suppressed in AT |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for sensitive in SETS:
        for ell in ells:
            sch = schema(sensitive)
            rel = mixed_model(df, sch, l=ell, min_confidence=0.8, rng=0)
            seconds = best(partial(mixed_model, df, sch, l=ell, min_confidence=0.8), repeat)
            meta = rel.metadata["multisa"]
            rows.append(
                f"| {len(sensitive)} | {ell} | {_fmt(seconds)} | {meta['strong_rules']} | "
                f"{len(rel.tables['sac']):,} | {meta['borrowed']:,} | {meta['deleted']:,} | "
                f"{sum(meta['suppressed'].values()):,} |"
            )
    return rows


def growth_rows(df: pd.DataFrame, factors: list[int], ells: list[int], repeat: int) -> list[str]:
    sensitive = SETS[-1]
    sch = schema(sensitive)
    rows = [
        "| data | records | l | mixed model | µs/record | SAC~ rows | deleted | "
        "improved SIDs | µs/record |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for factor in factors:
        data = (
            df
            if factor == 1
            else df.sample(len(df) * factor, replace=True, random_state=factor).reset_index(
                drop=True
            )
        )
        sizes = {c: bucket_sizes(data, c) for c in sensitive}
        for ell in ells:
            rel = mixed_model(data, sch, l=ell, rng=0)
            t_mixed = best(partial(mixed_model, data, sch, l=ell), repeat)
            t_sids = sum(best(partial(create_sids, sizes[c], ell), repeat) for c in sensitive)
            n = len(data)
            meta = rel.metadata["multisa"]
            rows.append(
                f"| adult ×{factor} | {n:,} | {ell} | {_fmt(t_mixed)} | {t_mixed / n * 1e6:.1f} | "
                f"{len(rel.tables['sac']):,} | {meta['deleted']:,} | {_fmt(t_sids)} | "
                f"{t_sids / n * 1e6:.2f} |"
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="l = 2, 4 only; growth up to ×2")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ells = [2, 4] if args.quick else [2, 3, 4, 5, 6]
    factors = [1, 2] if args.quick else [1, 2, 5, 10]
    df = adult_30718()
    print("## SID creation, Rating on Adult (30,718 records)\n")
    print("\n".join(sid_rows(df, ells, args.repeat)))
    print("\n## Mixed-model release on Adult, min_confidence 0.8\n")
    print("\n".join(mixed_rows(df, ells, args.repeat)))
    print("\n## Growth, 4 SAs\n")
    print("\n".join(growth_rows(df, factors, [2, 4], args.repeat)))


if __name__ == "__main__":
    main()
