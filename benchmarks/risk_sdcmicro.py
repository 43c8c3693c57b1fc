"""Time microanon's survey risk measures beside sdcMicro's, on the same data in the same run.

Run: PYTHONPATH=src python benchmarks/risk_sdcmicro.py [--rows 100000] [--repeat 3]
     [--r-lib DIR] [--no-peer]

Data: the synthetic household survey of ``benchmarks/peers/survey_data.py`` (microanon's own
generator; 1% of three keys missing, some records with several keys missing) at ``--rows``
records. Tasks, each with microanon's call and sdcMicro's:

- individual and household risk, 7 keys, sampling weights, household ids, missing keys counted
  as freqCalc: ``individual_risk(..., missing="match")`` / ``measure_risk(df, keyVars, w, hid)``;
- log-linear model risk, main effects of 7 keys (as factors), records with a missing key left
  out: ``loglinear_risk(..., missing="drop")`` / ``modRisk(method = "default")``;
- SUDA2 on 8 keys: the 7 and ``hhcivil`` (few distinct combinations), then the 7 and ``age``
  (most records unique): ``suda2(..., missing="ignore")`` / ``suda2(df, variables)``.

sdcMicro runs through ``Rscript`` when R and sdcMicro are installed (``--r-lib`` or the
``SDCMICRO_R_LIB`` environment variable name the R library holding it; see benchmarks/README.md
for how the peer environment was built); otherwise its column says it is absent. Times are
wall-clock seconds of the call alone (reading the CSV not included), best of ``--repeat``;
sdcMicro's are measured inside R with ``system.time``. The last column is the largest relative
difference between the two results (per-record risks, household risks, τ's, SUDA and DIS-SUDA
scores).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent / "peers"))
from survey_data import KEYS, make_survey  # noqa: E402

from microanon.measures import individual_risk, loglinear_risk, suda2  # noqa: E402

SUDA_SETS = {"suda2 8 keys (+hhcivil)": [*KEYS, "hhcivil"], "suda2 8 keys (+age)": [*KEYS, "age"]}

R_SCRIPT = r"""
suppressPackageStartupMessages(library(sdcMicro))
args <- commandArgs(trailingOnly = TRUE)
df <- read.csv(args[1]); out <- args[2]; rep <- as.integer(args[3])
keys <- lapply(args[4:6], function(a) strsplit(a, ",")[[1]])
k7 <- keys[[1]]; s1 <- keys[[2]]; s2 <- keys[[3]]
best <- function(expr) {
  e <- substitute(expr); t <- Inf
  for (i in seq_len(rep)) { t <- min(t, system.time(res <- eval(e, parent.frame()))[["elapsed"]]) }
  list(res = res, t = t)
}
m <- best(measure_risk(df, keyVars = k7, w = "weight", hid = "hid"))
dff <- df; for (v in k7) dff[[v]] <- factor(dff[[v]])
form <- as.formula(paste("~", paste(k7, collapse = " + ")))
l <- best(modRisk(dff, method = "default", formulaM = form, weights = "weight"))
a <- best(suda2(df, variables = s1))
b <- best(suda2(df, variables = s2))
times <- data.frame(task = c("risk", "loglinear", "suda1", "suda2"),
                    seconds = c(m$t, l$t, a$t, b$t))
write.csv(times, paste0(out, "/times.csv"), row.names = FALSE)
rec <- data.frame(risk = m$res$Res[, "risk"], hier = m$res$Res[, "hier_risk"],
                  s1 = a$res$score, d1 = a$res$disScore, s2 = b$res$score, d2 = b$res$disScore)
for (col in names(rec)) rec[[col]] <- sprintf("%.17g", rec[[col]])
write.csv(rec, paste0(out, "/records.csv"), row.names = FALSE, quote = FALSE)
writeLines(sprintf("%.17g", c(l$res$gr1, l$res$gr2)), paste0(out, "/loglinear.txt"))
cat(as.character(packageVersion("sdcMicro")), "\n")
"""


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    """The result of ``fn`` and its best wall time over ``repeat`` runs."""
    best = float("inf")
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return out, best


def rel_diff(ours: Any, theirs: Any) -> float:
    """Largest relative difference (absolute where sdcMicro's value is 0)."""
    a, b = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    return float(np.max(np.abs(a - b) / np.where(b == 0, 1.0, np.abs(b))))


def peer_env(r_lib: str | None) -> dict[str, str] | None:
    """Environment for Rscript with sdcMicro, or None when R or sdcMicro is absent."""
    if shutil.which("Rscript") is None:
        return None
    env = dict(os.environ)
    if r_lib:
        env["R_LIBS"] = r_lib
    probe = subprocess.run(
        ["Rscript", "-e", "suppressMessages(library(sdcMicro))"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return env if probe.returncode == 0 else None


def run_peer(
    env: dict[str, str], csv: Path, work: Path, repeat: int
) -> tuple[str, pd.DataFrame, pd.DataFrame, list[float]]:
    """sdcMicro's version, times, per-record results and log-linear figures."""
    script = work / "peer.R"
    script.write_text(R_SCRIPT)
    cmd = ["Rscript", str(script), str(csv), str(work), str(repeat), ",".join(KEYS)]
    cmd += [",".join(v) for v in SUDA_SETS.values()]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    version = done.stdout.strip().splitlines()[-1]
    times = pd.read_csv(work / "times.csv")
    records = pd.read_csv(work / "records.csv")
    loglin = [float(x) for x in (work / "loglinear.txt").read_text().split()]
    return version, times, records, loglin


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--r-lib", default=os.environ.get("SDCMICRO_R_LIB"))
    ap.add_argument("--no-peer", action="store_true", help="microanon only")
    a = ap.parse_args()

    df = make_survey(a.rows)
    rows = len(df)
    ours: dict[str, tuple[Any, float]] = {
        "risk": best_of(
            lambda: individual_risk(df, KEYS, "weight", household="hid", missing="match"),
            a.repeat,
        ),
        "loglinear": best_of(lambda: loglinear_risk(df, KEYS, "weight", missing="drop"), a.repeat),
    }
    for i, keys in enumerate(SUDA_SETS.values(), 1):
        ours[f"suda{i}"] = best_of(lambda keys=keys: suda2(df, keys, missing="ignore"), a.repeat)

    env = None if a.no_peer else peer_env(a.r_lib)
    theirs: dict[str, float] = {}
    agree: dict[str, float] = {}
    note = (
        "sdcMicro: not run (--no-peer)"
        if a.no_peer
        else "sdcMicro: absent (no Rscript with sdcMicro)"
    )
    if env is not None:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            df.to_csv(work / "data.csv", index=False, float_format="%.10g")
            version, times, rec, loglin = run_peer(env, work / "data.csv", work, a.repeat)
        note = f"sdcMicro {version} through Rscript, same data, same run"
        theirs = dict(zip(times["task"], times["seconds"], strict=True))
        r = ours["risk"][0]
        agree["risk"] = max(
            rel_diff(r.record_risk, rec["risk"]), rel_diff(r.household_risk, rec["hier"])
        )
        ll = ours["loglinear"][0]
        agree["loglinear"] = rel_diff([ll.global_risk1, ll.global_risk2], loglin)
        for i in (1, 2):
            s = ours[f"suda{i}"][0]
            agree[f"suda{i}"] = max(
                rel_diff(s.score, rec[f"s{i}"]), rel_diff(s.dis_score, rec[f"d{i}"])
            )

    labels = {
        "risk": "individual + household risk, 7 keys",
        "loglinear": "log-linear risk, main effects, 7 keys",
        "suda1": list(SUDA_SETS)[0],
        "suda2": list(SUDA_SETS)[1],
    }
    print(f"{rows:,} records; {note}; best of {a.repeat}\n")
    print("| task | microanon s | sdcMicro s | sdcMicro / microanon | max rel. difference |")
    print("|---|---|---|---|---|")
    for task, label in labels.items():
        t_ours = ours[task][1]
        t_theirs = theirs.get(task)
        cells = [
            label,
            f"{t_ours:.3f}",
            "absent" if t_theirs is None else f"{t_theirs:.3f}",
            "" if t_theirs is None else f"{t_theirs / t_ours:.1f}×",
            "" if task not in agree else f"{agree[task]:.1e}",
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
