"""Time microanon.scale's full_domain_dask against the I/O floor and in-memory full_domain.

Run: .venv/bin/python benchmarks/scale.py [--sizes 1e6,1e7] [--huge] [--dir DIR]

Data (generated, never committed; into ``--dir`` or a temporary directory removed at the end):

- ``adult``: ARX's Adult extract (30,162 rows) resampled with replacement to the size asked
  (fixed seed): Adult's combinations, each about N / 30,162 times;
- ``synthetic``: every column drawn on its own from Adult's marginals (fixed seed): the same
  domains without their correlations, far more distinct combinations.

Each as a partitioned Parquet dataset of ``--rows-per-file`` rows per file. Configuration:
ARX's 8 quasi-identifiers with ``salary_class`` instead of ``occupation`` (sensitive), k = 5
and distinct ℓ = 3, 5% suppression, loss metric; ``suppressed_rows="remove"``.

Per dataset and size, in one run on one local cluster (``--workers`` processes of one thread):

- ``floor``: reading the same files' schema columns and counting the rows
  (``dd.read_parquet(files, columns=...).map_partitions(len).sum()``): the I/O floor;
- ``full_domain_dask`` end to end (read, encode, frequency table, search, write, verify), its
  own seconds per stage;
- in-memory ``full_domain`` (``pd.read_parquet`` of the same files, the search, the release
  saved as Parquet) up to ``--memory-max`` rows.

Peak memory: the resident memory of this process (client, scheduler, in-memory runs) plus the
worker processes, sampled every 0.1 s (psutil), the highest sum during each run.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from microanon.core import Schema
from microanon.datasets import adult_hierarchies, load_arx_adult
from microanon.methods.generalize import full_domain
from microanon.scale import full_domain_dask

QUASI = [
    "sex", "age", "race", "marital_status", "education", "native_country", "workclass",
    "salary_class",
]  # fmt: skip
SENSITIVE = "occupation"
MODELS = [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 3}}]
SUPPRESSION = 0.05


def schema() -> Schema:
    hs = adult_hierarchies()
    hs["salary_class"] = hs["income"]
    spec: dict[str, Any] = {
        c: {"role": "quasi", "kind": "categorical", "hierarchy": hs[c]} for c in QUASI
    }
    spec[SENSITIVE] = {"role": "sensitive", "kind": "categorical"}
    return Schema.from_dict(spec)


def generate(kind: str, rows: int, per_file: int, root: Path, seed: int = 0) -> Path:
    """Write ``rows`` rows of ``kind`` as ``root/kind-rows/part-NNNNN.parquet``."""
    adult = load_arx_adult()
    out = root / f"{kind}-{rows}"
    out.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    done, i = 0, 0
    while done < rows:
        n = min(per_file, rows - done)
        if kind == "adult":
            part = adult.iloc[rng.integers(0, len(adult), n)].reset_index(drop=True)
        else:
            part = pd.DataFrame(
                {c: adult[c].to_numpy()[rng.integers(0, len(adult), n)] for c in adult.columns}
            )
        part.to_parquet(out / f"part-{i:05d}.parquet", index=False)
        done += n
        i += 1
    return out


class Peak:
    """The highest resident memory of this process and its children while the block runs."""

    def __init__(self, interval: float = 0.1) -> None:
        import psutil

        self.process = psutil.Process()
        self.interval = interval
        self.peak = 0

    def _sample(self) -> int:
        total = 0
        for p in [self.process, *self.process.children(recursive=True)]:
            try:
                total += p.memory_info().rss
            except Exception:  # noqa: BLE001  a child that just exited
                pass
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            self._stop.wait(self.interval)

    def __enter__(self) -> Peak:
        self.peak = self._sample()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._sample())


def measure(fn: Callable[[], Any]) -> tuple[float, int, Any]:
    """Wall seconds, peak memory (bytes) and result of ``fn()``."""
    with Peak() as peak:
        start = time.perf_counter()
        out = fn()
        seconds = time.perf_counter() - start
    return seconds, peak.peak, out


def floor(client: Any, files: list[str]) -> int:
    import dask.dataframe as dd

    frame = dd.read_parquet(files, columns=[*QUASI, SENSITIVE])
    return int(client.compute(frame.map_partitions(len).sum()).result())


def in_memory(path: Path, out: Path) -> Any:
    data = pd.read_parquet(path)
    release = full_domain(
        data, schema(), models=MODELS, suppression=SUPPRESSION, metric="lm",
        suppressed_rows="remove",
    )  # fmt: skip
    release.save(out, format="parquet")
    return release


def gb(n: int) -> str:
    return f"{n / 1e9:.1f} GB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e6,1e7", help="row counts (default 1e6,1e7)")
    parser.add_argument("--huge", action="store_true", help="also 10^8 rows (long; ~5 GB disk)")
    parser.add_argument("--data", default="adult,synthetic", help="adult, synthetic or both")
    parser.add_argument("--dir", type=Path, help="where to generate the data (default: a temp dir)")
    parser.add_argument("--rows-per-file", type=int, default=250_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="4GB", help="per worker (default 4GB)")
    parser.add_argument("--memory-max", type=float, default=1e7, help="largest in-memory run")
    args = parser.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")] + ([10**8] if args.huge else [])
    kinds = args.data.split(",")

    from distributed import Client

    from microanon.scale.client import local_cluster

    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="microanon-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    rows_out = []
    try:
        with (
            local_cluster(  # the cluster microanon starts when given no scheduler
                n_workers=args.workers, threads_per_worker=1, processes=True,
                memory_limit=args.memory_limit,
            ) as cluster,
            Client(cluster) as client,
        ):  # fmt: skip
            for n in sizes:
                for kind in kinds:
                    path = generate(kind, n, args.rows_per_file, root)
                    files = sorted(str(f) for f in path.glob("*.parquet"))
                    if not rows_out:  # warm-up, untimed: imports and first reads on the workers
                        floor(client, files[:2])
                        warm = root / "warm-up"
                        full_domain_dask(
                            str(path / "part-0000[01].parquet"), schema(), models=MODELS,
                            suppression=SUPPRESSION,
                            out_dir=warm, client=client, progress=False,
                        )  # fmt: skip
                        shutil.rmtree(warm)
                    t_floor, m_floor, count = measure(lambda files=files: floor(client, files))
                    assert count == n
                    out = root / f"out-{kind}-{n}"
                    t_dask, m_dask, got = measure(
                        lambda path=path, out=out: full_domain_dask(
                            str(path), schema(), models=MODELS, suppression=SUPPRESSION,
                            metric="lm", suppressed_rows="remove", out_dir=out, client=client,
                            progress=False,
                        )
                    )  # fmt: skip
                    shutil.rmtree(out)
                    mem = "—"
                    if n <= args.memory_max:
                        mem_out = root / f"mem-{kind}-{n}"
                        t_mem, m_mem, release = measure(
                            lambda path=path, mem_out=mem_out: in_memory(path, mem_out)
                        )
                        shutil.rmtree(mem_out)
                        assert release.metadata["levels"] == got.levels
                        assert release.metadata["rows_out"] == got.rows_out
                        mem = f"{t_mem:.1f} s, {gb(m_mem)}"
                        del release
                    s = got.seconds
                    row = (
                        f"| {kind} | {n:,} | {len(files)} | {got.combinations:,} | "
                        f"{t_floor:.1f} | {s['encode']:.1f} | {s['frequencies']:.1f} | "
                        f"{s['search']:.1f} | {s['write']:.1f} | {s['verify']:.1f} | "
                        f"{t_dask:.1f} | {t_dask / t_floor:.1f}× | {gb(m_dask)} | {mem} |"
                    )
                    rows_out.append(row)
                    print(row, flush=True)
                    shutil.rmtree(path)
    finally:
        if not args.dir:
            shutil.rmtree(root, ignore_errors=True)
    print()
    print(
        "| data | rows | files | combinations | floor s | encode | frequencies | search | "
        "write | verify | total s | × floor | peak memory | in memory |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows_out:
        print(row)


if __name__ == "__main__":
    main()
