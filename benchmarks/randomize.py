"""Time randomized response, reconstruction and PRAM and print a table.

Run: .venv/bin/python benchmarks/randomize.py [--quick] [--repeat 3]

Rows (issue 4):

- randomizing 10⁷ records × 5 attributes (domains 2, 7, 16, 14, 41, like Adult's sex, marital
  status, education, occupation, native country) with the vectorized kernel on integer codes
  generated with numpy: uniform retention (keep 0.7) and general matrices (inverse-CDF sampling);
  target ≤ 2 s for uniform retention;
- reconstructing 10⁶-cell tables (π̂, then the variances, then one count query) from 10⁶ records
  with :func:`reconstruct` on a DataFrame, uniform retention on some axes and general matrices on
  the others; target ≤ 1 s. A general ``d × d`` matrix costs O(d³) to validate (its condition
  number) and invert: about 1 s at d = 1000, whatever the number of cells;
- :func:`pram` on a 100,000-row DataFrame (invariant PRAM, keep 0.8, alpha 0.5, one and three
  columns), the whole public call (encoding, randomizing, decoding, release); target < 0.1 s.
  sdcMicro's published figure is 1.3 s per 100,000 records.

Times are wall-clock seconds (``time.perf_counter``), best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from microanon import Release
from microanon.methods.randomize.matrices import uniform_retention
from microanon.methods.randomize.pram import pram
from microanon.methods.randomize.reconstruct import reconstruct
from microanon.methods.randomize.sampling import randomize_codes

DOMAINS = (2, 7, 16, 14, 41)
#: Table shapes and which axes get a general matrix (the others uniform retention).
CELL_SHAPES = (
    ((10, 10, 10, 10, 10, 10), (1, 3, 5)),
    ((100, 100, 100), (1,)),
    ((1000, 1000), ()),
    ((1000, 1000), (1,)),
    ((16, 7, 2, 14, 41, 8), (1, 3, 5)),
)


def best(fn: Callable[[], object], repeat: int) -> float:
    """Best wall-clock time of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _general(d: int, rng: np.random.Generator) -> np.ndarray:
    m = rng.random((d, d)) + np.eye(d) * d
    return m / m.sum(axis=0)


def bench_randomize(n: int, repeat: int) -> list[tuple[str, float, str]]:
    rng = np.random.default_rng(0)
    codes = [rng.integers(0, d, n).astype(np.int8) for d in DOMAINS]
    mats = [_general(d, rng) for d in DOMAINS]

    def uniform() -> None:
        for c, d in zip(codes, DOMAINS, strict=True):
            randomize_codes(c, d, rng, keep=0.7)

    def general() -> None:
        for c, d, m in zip(codes, DOMAINS, mats, strict=True):
            randomize_codes(c, d, rng, matrix=m)

    label = f"randomize {n:,} records × {len(DOMAINS)} attributes"
    return [
        (f"{label}, uniform retention", best(uniform, repeat), "≤ 2 s" if n == 10**7 else ""),
        (f"{label}, general matrices", best(general, repeat), ""),
    ]


def bench_reconstruct(n: int, repeat: int) -> list[tuple[str, float, str]]:
    rows = []
    rng = np.random.default_rng(1)
    query = {"c0": [0, 1], "c1": 0}
    for shape, general in CELL_SHAPES:
        frame = pd.DataFrame({f"c{i}": rng.integers(0, d, n) for i, d in enumerate(shape)})
        specs = {
            f"c{i}": (
                {"domain": list(range(d)), "matrix": uniform_retention(d, 0.8), "keep": 0.8}
                if i not in general
                else {"domain": list(range(d)), "matrix": _general(d, rng)}
            )
            for i, d in enumerate(shape)
        }
        cells = int(np.prod(shape))
        label = f"reconstruct {cells:,} cells {shape} from {n:,} records, {len(general)} general"
        rows.append(
            (
                f"{label}: π̂",
                best(lambda f=frame, s=specs: reconstruct(f, matrices=s), repeat),
                "≤ 1 s",
            )
        )
        rec = reconstruct(frame, matrices=specs)
        rows.append(("    + variance()", best(rec.variance, repeat), ""))
        rows.append(
            (
                "    + count(query) with its standard error",
                best(lambda r=rec: r.count(query), repeat),
                "",
            )
        )
    return rows


def bench_pram(n: int, repeat: int) -> list[tuple[str, float, str]]:
    rng = np.random.default_rng(2)
    df = pd.DataFrame(
        {
            "roof": rng.choice(["tin", "tile", "straw", "concrete", "other"], n),
            "walls": rng.choice(["brick", "wood", "mud"], n),
            "water": rng.choice(["tap", "well", "river", "truck"], n),
        }
    )
    schema = {"roof": "quasi", "walls": "quasi", "water": "sensitive"}
    rows = []
    for cols in (["roof"], ["roof", "walls", "water"]):
        keep = dict.fromkeys(cols, 0.8)

        def run(keep=keep) -> Release:
            return pram(df, schema, keep=keep, invariant=True, rng=rng)

        rows.append(
            (
                f"pram (invariant) {n:,} records, {len(cols)} of 3 columns randomized",
                best(run, repeat),
                "< 0.1 s (sdcMicro 1.3 s)",
            )
        )
    published = run().data
    rows.append(
        (
            "    of which Release() text conversion of the 3 columns (core)",
            best(lambda: Release("randomized", {"data": published}), repeat),
            "",
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10× smaller inputs")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    rows = [
        *bench_randomize(10**7 // scale, args.repeat),
        *bench_reconstruct(10**6 // scale, args.repeat),
        *bench_pram(100_000 // scale, args.repeat),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'task':<{width}}  {'seconds':>8}  target")
    for label, seconds, target in rows:
        print(f"{label:<{width}}  {seconds:8.3f}  {target}")


if __name__ == "__main__":
    main()
