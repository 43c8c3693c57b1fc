"""Time microanon's privacy-model checks against pycanon on UCI Adult and print a table.

Run: .venv/bin/python benchmarks/checks.py [--quick]

Each check is timed from the DataFrame (grouping included), as pycanon's are.

pycanon is the independent checker of the test suite (installed with --no-deps by `make`); its
t-closeness takes about 40 s on the full table, so --quick uses a 3,000-row sample for pycanon's t.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import pandas as pd

from microanon.datasets import load_arx_adult
from microanon.models import Groups, k_anonymity, l_diversity, profile, t_closeness

QI = [
    "sex",
    "age",
    "race",
    "marital_status",
    "education",
    "native_country",
    "workclass",
    "salary_class",
]
SA = "occupation"


def timed(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Best wall time of ``repeat`` runs and the last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sample 3,000 rows for pycanon's t")
    args = parser.parse_args()
    data = load_arx_adult()
    rows = []

    g_time, groups = timed(lambda: Groups.from_frame(data, QI, SA))
    rows.append(("grouping alone (Groups.from_frame)", g_time, None, f"{groups.n_groups} classes"))
    for name, fn in [
        ("k-anonymity", lambda: k_anonymity(data, QI).value),
        ("distinct l-diversity", lambda: l_diversity(data, QI, SA).value),
        ("entropy l-diversity", lambda: l_diversity(data, QI, SA, form="entropy").value),
        ("t-closeness (equal)", lambda: t_closeness(data, QI, SA).value),
        ("profile: all of the above from a DataFrame", lambda: profile(data, QI, SA)["k"]),
    ]:
        ours, value = timed(fn)
        rows.append((name, ours, None, f"{value}"))

    try:
        from pycanon import anonymity
    except ImportError:
        anonymity = None
    if anonymity is not None:
        df = data.reset_index(drop=True)
        t_df = df.sample(3000, random_state=0).reset_index(drop=True) if args.quick else df
        peers = {
            "k-anonymity": lambda: anonymity.k_anonymity(df, QI),
            "distinct l-diversity": lambda: anonymity.l_diversity(df, QI, [SA]),
            "t-closeness (equal)": lambda: anonymity.t_closeness(t_df, QI, [SA]),
        }
        for i, (name, ours, _, value) in enumerate(rows):
            if name in peers:
                peer, peer_value = timed(peers[name], repeat=1)
                note = f"{value} (pycanon {peer_value:.6g}" + (
                    ", 3,000-row sample)" if args.quick and name.startswith("t-") else ")"
                )
                rows[i] = (name, ours, peer, note)

    table = pd.DataFrame(rows, columns=["check", "microanon s", "pycanon s", "value"])
    table["speed-up"] = table["pycanon s"] / table["microanon s"]
    print(
        f"UCI Adult (ARX extract): {len(data):,} rows, {len(QI)} QIs, sensitive {SA}, "
        f"{groups.n_groups:,} classes"
    )
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
