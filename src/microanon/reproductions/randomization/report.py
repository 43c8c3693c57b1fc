"""The HTML report of the randomization reproduction: Tables 3–5, Figs. 3–7 and the checks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from microanon.apps.report import Report, new_figure
from microanon.reproductions.findings import add_findings
from microanon.reproductions.randomization.checks import LABELS
from microanon.reproductions.randomization.experiments import METHODS
from microanon.reproductions.randomization.measure import DISTANCES, QUERIES
from microanon.reproductions.randomization.setup import SETTINGS, VARIANTS, Plan

__all__ = ["PAPER", "build_report"]

#: The paper, as the findings table cites it.
PAPER = (
    "Guo, Ying & Wu, Limiting Attribute Disclosure in Randomization Based Microdata Release "
    "(JCSE 2011)"
)

_STYLE = {"adult_45222": "-", "adult_30162": "--"}
_COLOR = {
    "RR-S": "#888888",
    "RR-QI": "#1f77b4",
    "RR-Both": "#2ca02c",
    "Anatomy": "#ff7f0e",
    "l-diversity": "#d62728",
}
_NAME = {"l-diversity": "entropy ℓ-diversity"}


def _feasible(rows: dict[str, Any]) -> list[str]:
    return sorted((k for k, v in rows.items() if "infeasible" not in v), key=float)


def _variant_label(variant: str) -> str:
    return f"{int(variant.split('_')[1]):,} rows"


# ---------------------------------------------------------------------------------- sections
def _overview(report: Report, results: dict[str, Any], plan: Plan) -> None:
    meta = results["meta"]
    sec = report.section(
        "Setup",
        "Guo, Ying & Wu, Limiting Attribute Disclosure in Randomization Based Microdata Release "
        "(Journal of Computing Science and Engineering 5(3), 2011), Tables 3–5 and Figs. 3–7. UCI "
        "Adult without missing values in two variants: "
        + "; ".join(
            f"{k} ({v['rows']:,} rows, load_adult('{v['split']}'))"
            for k, v in meta["variants"].items()
        )
        + ". EMGRW: quasi-identifiers education, marital_status, sex, race; sensitive "
        "workclass. ESGRO: education, income (the paper's Salary), sex, race; sensitive "
        "occupation. τ = 1/ℓ.",
    )
    sec.metrics(
        {
            "run": "quick (reduced grid)" if plan.quick else "full",
            "replications R per point": plan.replications,
            "computation time (s)": meta["runtime_seconds"],
            "randomness": meta["rng"],
            "microanon": meta["microanon_version"],
        }
    )
    sec.paragraph(
        "Measures (the paper's; the details are ours): KL(π ‖ π̂) with π̂ clipped at 0, "
        "renormalized and floored at 1e-12; χ² with the original in the denominator; squared "
        "Euclidean distance on the raw "
        "(unbiased) reconstruction; mean relative error of COUNT queries over non-empty cells, "
        "base group-by and CUBE (all 2^5 group-bys pooled). Randomized-response and Anatomy "
        "numbers are means over R independent randomizations / partitions; ℓ = 1 means no "
        "protection (the original, all errors 0). Entropy ℓ-diversity: full-domain "
        "generalization with ARX's Adult hierarchies and no suppression; among Incognito's "
        "minimal nodes the one of least total height, then least discernibility, is published."
    )


def _table3(report: Report, results: dict[str, Any]) -> None:
    sec = report.section(
        "E0.1 — Table 3: optimal keep probabilities",
        "Keep probability p of every attribute (1 = not randomized) minimizing E‖π̂ − π‖² "
        "subject to Pr(S_r | QI_r) ≤ 1/ℓ for every record (the paper's Problem 1), with the "
        "achieved maximum risk and the expected squared error trace(Σ).",
    )
    for variant in VARIANTS:
        for setting, scenarios in results["E0.1"][variant].items():
            attrs = [*SETTINGS[setting].quasi, SETTINGS[setting].sensitive]
            rows, reasons = [], []
            for scenario, entries in scenarios.items():
                bad = [k for k, v in entries.items() if "infeasible" in v]
                for k in _feasible(entries):
                    e = entries[k]
                    rows.append(
                        {"scenario": scenario, "ℓ": k}
                        | {a: e["keep"][a] for a in attrs}
                        | {"max risk": e["max_risk"], "E‖π̂−π‖²": e["expected_squared_error"]}
                    )
                if bad:
                    rows.append(
                        {"scenario": scenario, "ℓ": ", ".join(bad)}
                        | {a: "infeasible" for a in attrs}
                        | {"max risk": np.nan, "E‖π̂−π‖²": np.nan}
                    )
                    first = entries[bad[0]]
                    reasons.append(f"{scenario}: {first.get('why', first['infeasible'])}.")
            sec.table(
                pd.DataFrame(rows),
                caption=f"{setting} on {variant} ({_variant_label(variant)}). " + " ".join(reasons),
            )


def _lines(ax, xs, ys, label, color, style, marker="o") -> None:
    ax.plot(xs, ys, style, color=color, marker=marker, markersize=4, label=label)
    if all(float(x).is_integer() for x in xs):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _fig3(report: Report, results: dict[str, Any]) -> None:
    fig = new_figure(10.5, 3.4)
    axes = fig.subplots(1, 3)
    rows = []
    for variant in VARIANTS:
        for scenario, entries in results["E0.2"][variant].items():
            levels = _feasible(entries)
            if not levels:
                continue
            xs = [int(k) for k in levels]
            for ax, m in zip(axes, DISTANCES, strict=True):
                _lines(
                    ax,
                    xs,
                    [entries[k][m] for k in levels],
                    f"{scenario}, {_variant_label(variant)}",
                    _COLOR[scenario],
                    _STYLE[variant],
                )
            axes[2].plot(
                xs,
                [entries[k]["expected_squared_error"] for k in levels],
                ":",
                color=_COLOR[scenario],
            )
            for k in levels:
                e = entries[k]
                rows.append(
                    {"variant": variant, "scenario": scenario, "ℓ": int(k)}
                    | {LABELS[m]: e[m] for m in DISTANCES}
                    | {"E‖π̂−π‖² (theory)": e["expected_squared_error"]}
                )
    for ax, m in zip(axes, DISTANCES, strict=True):
        ax.set_xlabel("ℓ")
        ax.set_title(LABELS[m], fontsize=10)
    axes[0].legend(fontsize=7)
    sec = report.section(
        "E0.2 — Fig. 3: distance of π̂ from π vs ℓ (EMGRW)",
        "Reconstruction from one randomized release with the optimal parameters, averaged over "
        "R releases. RR-S is infeasible (Table 3), so only RR-QI and RR-Both appear. Dotted: "
        "the expected squared error trace(Σ) the optimization minimizes.",
    )
    sec.figure(fig, "Fig. 3: KL, χ² and squared Euclidean distance vs ℓ.")
    sec.table(pd.DataFrame(rows), caption="The numbers of Fig. 3.")


def _fig4(report: Report, results: dict[str, Any], plan: Plan) -> None:
    fig = new_figure(10.5, 3.4)
    axes = fig.subplots(1, 3)
    rows = []
    for variant in VARIANTS:
        for scenario, entries in results["E0.3"][variant].items():
            sizes = _feasible(entries)
            if not sizes:
                continue
            xs = [float(r) for r in sizes]
            for ax, m in zip(axes, DISTANCES, strict=True):
                _lines(
                    ax,
                    xs,
                    [entries[r][m] for r in sizes],
                    f"{scenario}, {_variant_label(variant)}",
                    _COLOR[scenario],
                    _STYLE[variant],
                )
            for r in sizes:
                e = entries[r]
                rows.append(
                    {"variant": variant, "scenario": scenario, "r": float(r), "N": e["n"]}
                    | {LABELS[m]: e[m] for m in DISTANCES}
                    | {"E‖π̂−π‖² (theory)": e["expected_squared_error"]}
                )
    for ax, m in zip(axes, DISTANCES, strict=True):
        ax.set_xlabel("r (records = r·N)")
        ax.set_title(LABELS[m], fontsize=10)
    axes[0].legend(fontsize=7)
    sec = report.section(
        "E0.3 — Fig. 4: distances vs data size (EMGRW)",
        f"EMGRW resampled to r·N records, i.i.d. from its empirical cell distribution (one data "
        f"set per r, also for r = 1), ℓ = {plan.size_l}; optimal parameters recomputed on each "
        "data set, distances to that data set's own π.",
    )
    sec.figure(fig, "Fig. 4: KL, χ² and squared Euclidean distance vs data size.")
    sec.table(pd.DataFrame(rows), caption="The numbers of Fig. 4.")


def _compare_rows(results: dict[str, Any], variant: str) -> list[dict[str, Any]]:
    rows = []
    for method in METHODS:
        for k, e in results["E0.4"][variant][method].items():
            q = results["E0.5"][variant][method][k]
            note = ""
            if "levels" in e:
                note = "levels " + ", ".join(f"{a}={v}" for a, v in e["levels"].items())
            elif "keep" in e:
                note = "p " + ", ".join(f"{a}={v:.3f}" for a, v in e["keep"].items() if v < 1)
            rows.append(
                {"method": _NAME.get(method, method), "ℓ": int(k)}
                | {LABELS[m]: e[m] for m in DISTANCES}
                | {LABELS[m]: q[m] for m in QUERIES}
                | {"published": note}
            )
    return rows


def _fig5(report: Report, results: dict[str, Any]) -> None:
    fig = new_figure(10.5, 6.2)
    axes = fig.subplots(2, 3)
    for row, variant in zip(axes, VARIANTS, strict=True):
        for method in METHODS:
            entries = results["E0.4"][variant][method]
            levels = [k for k in _feasible(entries) if int(k) > 1]
            for ax, m in zip(row, DISTANCES, strict=True):
                _lines(
                    ax,
                    [int(k) for k in levels],
                    [entries[k][m] for k in levels],
                    _NAME.get(method, method),
                    _COLOR[method],
                    "-",
                )
        for ax, m in zip(row, DISTANCES, strict=True):
            ax.set_yscale("log")
            ax.set_xlabel("ℓ")
            ax.set_title(f"{LABELS[m]} — {_variant_label(variant)}", fontsize=9)
    axes[0][0].legend(fontsize=7)
    sec = report.section(
        "E0.4 — Fig. 5: RR-QI vs entropy ℓ-diversity vs Anatomy (ESGRO), distances",
        "Distances of each method's estimate of π from π (log scale; ℓ = 1 is the original, "
        "distance 0, not drawn). The estimators (ours where the paper gives none): RR reconstructs "
        "π̂ = P⁻¹λ̂, "
        "ℓ-diversity spreads each generalized group uniformly over the original values it "
        "covers, Anatomy spreads each group's sensitive counts over its tuples.",
    )
    sec.figure(fig, "Fig. 5: KL, χ² and squared Euclidean distance vs ℓ, per data variant.")
    for variant in VARIANTS:
        sec.table(
            pd.DataFrame(_compare_rows(results, variant)),
            caption=f"E0.4/E0.5 on {variant}: the numbers of Figs. 5 and 6.",
        )


def _fig6(report: Report, results: dict[str, Any]) -> None:
    fig = new_figure(8.0, 6.0)
    axes = fig.subplots(2, 2)
    for row, variant in zip(axes, VARIANTS, strict=True):
        for method in METHODS:
            entries = results["E0.5"][variant][method]
            levels = _feasible(entries)
            for ax, m in zip(row, QUERIES, strict=True):
                _lines(
                    ax,
                    [int(k) for k in levels],
                    [entries[k][m] for k in levels],
                    _NAME.get(method, method),
                    _COLOR[method],
                    "-",
                )
        for ax, m, tag in zip(row, QUERIES, ("6a", "6b"), strict=True):
            ax.set_xlabel("ℓ")
            ax.set_title(f"Fig. {tag}: {LABELS[m]} — {_variant_label(variant)}", fontsize=9)
    axes[0][0].legend(fontsize=7)
    sec = report.section(
        "E0.5 — Fig. 6: relative error of count queries (ESGRO)",
        "Mean |act − est| / act over the non-empty cells of the base group-by "
        "(education, income, sex, race, occupation) and of all 32 group-bys of its CUBE.",
    )
    sec.figure(fig, "Fig. 6a (base group-by) and 6b (CUBE) vs ℓ; numbers in the E0.4 tables.")
    rows = []
    for variant in VARIANTS:
        for method in METHODS:
            for k, e in results["E0.5"][variant][method].items():
                if int(k) > 1:
                    rows.append(
                        {"variant": variant, "method": _NAME.get(method, method), "ℓ": int(k)}
                        | {f"cells of {b} records": v for b, v in e["base_by_cell_size"].items()}
                    )
    sec.paragraph(
        "The mean over all cells weighs every non-empty cell equally, and most cells of ESGRO "
        "hold a handful of records, where the unbiased reconstruction's noise is large relative "
        "to the count while Anatomy's and ℓ-diversity's smoothed estimates stay within about "
        "one count. The same base group-by error per band of original cell count:"
    )
    sec.table(pd.DataFrame(rows), caption="Mean relative error of the base group-by by cell size.")


def _u_table(results: dict[str, Any], variant: str, part: str, levels) -> pd.DataFrame:
    e06 = results["E0.6"][variant]
    keys = list(e06["original"][part])
    data: dict[str, Any] = {
        "U": [f"U({k})" for k in keys]
        if part == "qi_qi"
        else [f"U(occupation | {k})" for k in keys]
    }
    data["original"] = [e06["original"][part][k] for k in keys]
    for method in METHODS:
        for lv in levels:
            entry = e06[method].get(str(lv))
            if entry is not None:
                data[f"{_NAME.get(method, method)} ℓ={lv}"] = [entry[part][k] for k in keys]
    return pd.DataFrame(data)


def _tables45(report: Report, results: dict[str, Any], plan: Plan) -> None:
    sec = report.section(
        "E0.6 — Tables 4–5: uncertainty coefficients (ESGRO)",
        "U(B | A) = I(A; B) / H(B), the share of the response B's entropy explained by A "
        "(as in the paper). RR-QI and Anatomy: on the estimated joint distribution (RR: "
        "clip-renormalized reconstruction, mean over R). ℓ-diversity: on the published "
        "generalized values, so an attribute generalized to one value gives U = 0. The paper's "
        "pair (income, occupation): original 2.74e-2; RR-QI 2.41/2.27/2.17e-2; Anatomy "
        "0.20/0.12/0.05e-2; ℓ-diversity 0 (ℓ = 3, 5) and 2.74e-2 (ℓ = 4).",
    )
    for variant in VARIANTS:
        sec.table(
            _u_table(results, variant, "sa_qi", plan.table_l),
            digits=3,
            caption=f"Table 4 ({variant}): U(occupation | QI).",
        )
        sec.table(
            _u_table(results, variant, "qi_qi", plan.table_l),
            digits=3,
            caption=f"Table 5 ({variant}): U(B | A) between quasi-identifiers.",
        )
    rows = []
    for variant in VARIANTS:
        for k, e in results["E0.6"][variant]["l-diversity"].items():
            est = e["estimated_joint"]
            rows.append(
                {
                    "variant": variant,
                    "ℓ": int(k),
                    "levels": ", ".join(f"{a}={v}" for a, v in e["levels"].items()),
                    "U(occ | income) published": e["sa_qi"]["income"],
                    "U(occ | income) estimated joint": est["sa_qi"]["income"],
                    "mean U among QIs, published": e["u_qi_qi"],
                    "mean U among QIs, estimated joint": est["u_qi_qi"],
                }
            )
    sec.paragraph(
        "ℓ-diversity: U on the published values (used above, as the paper's Tables 4–5 imply) vs "
        "on the uniform-spread "
        "estimate over the original domain. Both give 0 for an attribute generalized to one "
        "value; they differ when a response attribute is partly generalized (the spread "
        "estimate has the original's larger entropy in the denominator)."
    )
    sec.table(pd.DataFrame(rows), digits=3)


def _fig7(report: Report, results: dict[str, Any]) -> None:
    fig = new_figure(8.0, 6.0)
    axes = fig.subplots(2, 2)
    parts = (("u_sa_qi", "7a: mean U(SA | QI)"), ("u_qi_qi", "7b: mean U among QIs"))
    rows = []
    for row, variant in zip(axes, VARIANTS, strict=True):
        e07 = results["E0.7"][variant]
        for method in ("RR-Both", "Anatomy", "l-diversity"):
            levels = _feasible(e07[method])
            for ax, (m, _) in zip(row, parts, strict=True):
                _lines(
                    ax,
                    [int(k) for k in levels],
                    [e07[method][k][m] for k in levels],
                    _NAME.get(method, method),
                    _COLOR[method],
                    "-",
                )
            for k in levels:
                rows.append(
                    {
                        "variant": variant,
                        "method": _NAME.get(method, method),
                        "ℓ": int(k),
                        "mean U(SA | QI)": e07[method][k]["u_sa_qi"],
                        "mean U among QIs": e07[method][k]["u_qi_qi"],
                    }
                )
        for ax, (m, title) in zip(row, parts, strict=True):
            ax.axhline(e07["original"][m], color="black", linestyle=":", label="original")
            ax.set_xlabel("ℓ")
            ax.set_title(f"Fig. {title} — {_variant_label(variant)}", fontsize=9)
    axes[0][0].legend(fontsize=7)
    keeps = [
        f"ℓ={k}: " + ", ".join(f"{a} {v:.3f}" for a, v in e["keep"].items())
        for k, e in results["E0.7"]["adult_45222"]["RR-Both"].items()
        if "keep" in e
    ]
    sec = report.section(
        "E0.7 — Fig. 7: uncertainty coefficients under RR-Both (ESGRO)",
        "Mean U between the sensitive attribute and the quasi-identifiers (response: the "
        "sensitive attribute) and among the quasi-identifiers (all ordered pairs), RR-Both vs "
        "Anatomy vs entropy ℓ-diversity. RR-Both keep probabilities on adult_45222: "
        + "; ".join(keeps)
        + ".",
    )
    sec.figure(fig, "Fig. 7: dotted line = the original table.")
    sec.table(pd.DataFrame(rows), digits=3, caption="The numbers of Fig. 7.")


def build_report(results: dict[str, Any], plan: Plan) -> Report:
    """The report of one run, from its results (including ``checks`` and ``meta``)."""
    report = Report(
        "Reproduction: randomized response against attribute disclosure",
        "Guo, Ying & Wu (2011), experiments E0.1–E0.7 on UCI Adult"
        + (" — quick run (reduced grid)" if plan.quick else ""),
    )
    _overview(report, results, plan)
    add_findings(report, results["checks"], PAPER)
    _table3(report, results)
    _fig3(report, results)
    _fig4(report, results, plan)
    _fig5(report, results)
    _fig6(report, results)
    _tables45(report, results, plan)
    _fig7(report, results)
    return report
