"""Cold-start wall times of the command line, each in a fresh process, best of N.

Run: .venv/bin/python benchmarks/coldstart.py [--repeat 5] [--src DIR]

Times ``import microanon``, ``microanon --help`` and ``microanon check`` on a 1,000-row CSV
(the first 1,000 records of the bundled Adult, written to a temporary directory), each as a new
Python process started the way the ``microanon`` console script starts (``from
microanon.apps.cli import main``). ``--src`` puts another source tree first on ``PYTHONPATH``
(e.g. a checkout of an earlier version, to compare). ``import pandas`` is timed as well: the
check reads the CSV with pandas, so pandas's own import is its floor. To see where the time
goes, run ``python -X importtime -c "import microanon"``.

The package is first compiled to bytecode (``compileall``), as ``pip install`` compiles it and as
Python caches it on a first import: otherwise, with ``PYTHONDONTWRITEBYTECODE`` set (as on some
CI machines), every run would recompile microanon's sources, about 0.1 s that no installed copy
pays.
"""

from __future__ import annotations

import argparse
import compileall
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import microanon
from microanon.datasets import load_dataset

ROWS = 1_000
QUASI = "age,sex,race,marital_status"
SENSITIVE = "occupation"
CLI = "import sys; from microanon.apps.cli import main; sys.exit(main())"


def best_wall(argv: list[str], env: dict[str, str], repeat: int) -> float:
    """Smallest wall time of ``repeat`` runs of ``argv`` (exit status 0 or 1 accepted)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        took = time.perf_counter() - started
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()[-500:]}")
        best = min(best, took)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (best is kept)")
    parser.add_argument("--src", type=Path, default=None, help="source tree to put first")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.src is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(args.src.resolve()), env.get("PYTHONPATH")) if p
        )
    package = Path(microanon.__file__).parent if args.src is None else args.src / "microanon"
    compileall.compile_dir(package, quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "adult1000.csv"
        load_dataset("adult").head(ROWS).to_csv(data, index=False)
        py = [sys.executable, "-c"]
        cases = {
            "python -c pass (interpreter)": [*py, "pass"],
            "import pandas (what check needs)": [*py, "import pandas"],
            "import microanon": [*py, "import microanon"],
            "microanon --help": [*py, CLI, "--help"],
            f"microanon check ({ROWS:,} rows, k=5)": [
                *py,
                CLI,
                "check",
                str(data),
                "--quasi",
                QUASI,
                "--sensitive",
                SENSITIVE,
                "--k",
                "5",
                "--quiet",
            ],
        }
        print(f"best of {args.repeat} runs, wall seconds ({sys.executable})")
        for name, argv in cases.items():
            print(f"  {name:<36} {best_wall(argv, env, args.repeat):6.3f}")


if __name__ == "__main__":
    main()
