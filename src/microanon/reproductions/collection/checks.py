"""Pass/fail lines of the data-collection reproduction, and the matching of E1.2 / E1.3.

Two kinds: ``issue`` — what the reproduction must show (every re-checked GTR submission
protects its respondent against the set at its acceptance; the service lost and duplicated
nothing) — and ``paper`` — the paper's findings (Figs. 5–6), reported whether or not our
numbers bear them out.
"""

from __future__ import annotations

from typing import Any

from microanon.reproductions.collection.setup import Plan
from microanon.reproductions.expected import FULL_ONLY, Deviation
from microanon.reproductions.outputs import check_line as _line

__all__ = ["BASELINES", "EXPECTED_DEVIATIONS", "matched", "run_checks"]

#: Baselines by family: result part, key, parameter name.
BASELINES = {
    "lrka": ("local_recoding", "k"),
    "ld": ("local_recoding", "ℓ"),
    "mrr": ("perturbation", "θ"),
    "epr": ("perturbation", "k*"),
}
_TOL = 1e-9

_ATTACKER = (
    "MRR and EPR leave the attacker little evidence about most respondents: with seven "
    "quasi-identifiers (age exact) most combinations are rare, MRR's estimates for them drown "
    "in the noise of the complemented records and EPR's decoded records seldom reproduce them, "
    "so the attacker falls back on occupation's marginal (largest share ≈ 13 %, Pv ≈ 0.87); the "
    "paper does not say how its attacker estimates the distribution"
)

_FINAL = (
    "GTR checks Pv when a tuple is submitted (Definition 1, the paper's model): a later tuple "
    "whose quasi-identifiers cover an earlier respondent's cell and whose sensitive value "
    "points at that respondent's value lowers the earlier Pv, sometimes below τ"
)

#: Checks that fail for a known reason (docs/reproduce-collection.md, "Results of a full run
#: against the paper"); the τ = 0.3 checks of E1.1 exist only in the full run.
EXPECTED_DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "gtr_protects_all_final_nursery",
        _FINAL + " (Nursery's few quasi-identifier cells each collect many tuples: 97.8-99.9 % "
        "still protected in our runs)",
    ),
    Deviation(
        "gtr_protects_all_final_adult",
        _FINAL + " (on Adult's 5,000 respondents 99.7-99.9 % still protected at τ ≥ 0.36)",
        modes=FULL_ONLY,
    ),
    Deviation(
        "lrka_meets_no_tau_adult",
        "our local-recoding k-anonymity (the paper's LRKA algorithm is not recoverable) "
        "generalizes the quasi-identifiers enough at k ≥ 10 that every group mixes occupations, "
        "so it meets τ",
    ),
    Deviation(
        "gtr_best_nursery",
        "Nursery's class depends on the sensitive attribute itself (health = not_recom decides "
        "class = not_recom); GTR may generalize the sensitive value, which ID3 then sees only "
        "through randomly drawn base values, while LD keeps every sensitive value exact",
    ),
    Deviation(
        "gtr_best_adult",
        "on Adult GTR, LD and LRKA all reach relative accuracies near 1: with 5,000 respondents "
        "GTR and LD differ by less than the sampling noise of the accuracy (≈ 0.007; GTR "
        "0.996 vs LD 0.999 in one full run, 0.996-1.000 vs 0.989 in another), and on the quick "
        "plan's 800 respondents ID3 trained on the original records overfits, so the coarser "
        "data of LD and LRKA (average loss about 3 to 9 times GTR's) reach 0.99-1.05 and beat "
        "GTR, which generalizes least",
    ),
    Deviation("epr_protects_few", _ATTACKER + " (at k* = 1 EPR protects < 1 %)", modes=FULL_ONLY),
    Deviation("mrr_protects_40_60", _ATTACKER, modes=FULL_ONLY),
    Deviation(
        "gtr_least_loss_nursery",
        "GTR's loss on Nursery grows with τ (0.30 at τ = 0.1 to 0.35 at τ = 0.36) while LD's best "
        "parameter meeting τ (ℓ = 2, min Pv 0.5) stays at 0.31: the two are about equal, and LD "
        "loses less at the largest τ (on the quick plan's 800 respondents LD's loss is about "
        "2.5 times GTR's)",
        modes=FULL_ONLY,
    ),
)


def matched(results: dict[str, Any], plan: Plan, measure: str) -> dict[str, Any]:
    """Per data set and τ, each method's best ``measure`` among its parameters meeting τ.

    GTR meets every τ (each respondent is protected when submitting, or abstains). A baseline
    parameter meets τ when its achieved privacy ``min_o Pv`` is at least τ; the best is the
    largest accuracy or the smallest loss; None when no parameter meets τ (or the method has no
    such measure).
    """
    out: dict[str, Any] = {}
    for name, by_tau in results["gtr"].items():
        out[name] = {}
        for tau in plan.taus:
            key = str(tau)
            row: dict[str, Any] = {"gtr": {measure: by_tau[key][measure], "parameter": key}}
            for method, (part, _) in BASELINES.items():
                points = results[part][name][method]
                ok = [
                    (p, pt)
                    for p, pt in points.items()
                    if pt is not None
                    and pt["privacy"] >= tau - _TOL
                    and pt.get(measure) is not None
                ]
                if not ok:
                    row[method] = None
                    continue
                pick = max if measure == "accuracy" else min
                p, pt = pick(ok, key=lambda x: x[1][measure])
                row[method] = {measure: pt[measure], "parameter": p}
            out[name][key] = row
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.3g}%"


def run_checks(results: dict[str, Any], plan: Plan) -> list[dict[str, Any]]:
    """Every check line, issue lines first."""
    lines = []
    for name, by_tau in results["gtr"].items():
        respondents = results["meta"]["data"][name]["respondents"]
        for tau, pt in by_tau.items():
            c = pt["checked_at_acceptance"]
            lines.append(
                _line(
                    "issue",
                    f"acceptance_{name}_{tau}",
                    "E1.1",
                    f"{name}, τ = {tau}: every re-checked GTR submission protects its respondent "
                    "against the set at its acceptance (exact arithmetic)",
                    c["protected"] == c["checked"] and c["checked"] > 0,
                    f"{c['protected']} of {c['checked']} re-checked",
                    paper="every submission protected",
                )
            )
            lines.append(
                _line(
                    "issue",
                    f"exactly_once_{name}_{tau}",
                    "E1.1",
                    f"{name}, τ = {tau}: every respondent's submission accepted once or "
                    "abstained; versions 1..N without gaps",
                    pt["published"] + pt["abstained"] == respondents,
                    f"{pt['published']:,} accepted + {pt['abstained']:,} abstained = "
                    f"{respondents:,} respondents; {pt['per_second']} respondents/s",
                    paper="each respondent once",
                    ours=f"{pt['published'] + pt['abstained']:,} of {respondents:,}",
                )
            )
    lines.extend(_audits(results))
    lines.extend(_paper(results, plan))
    return lines


def _audits(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Greedy against exact GTR, and protection against the final set, per data set."""
    lines = []
    for name, by_tau in results["gtr"].items():
        greedy = {t: pt["greedy"] for t, pt in by_tau.items()}
        lines.append(
            _line(
                "issue",
                f"greedy_abstains_only_with_exact_{name}",
                "E1.3",
                f"{name}: greedy GTR abstains only where exact GTR abstains (sampled accepted "
                "respondents, against the set at their acceptance)",
                all(g["greedy_abstained"] == 0 and g["audited"] > 0 for g in greedy.values()),
                "; ".join(
                    f"τ {t}: greedy abstained {g['greedy_abstained']} of {g['audited']}"
                    for t, g in greedy.items()
                ),
                paper="— (our audit: the paper's Fig. 4 has no greedy fallback to compare)",
            )
        )
        lines.append(
            _line(
                "paper",
                f"greedy_optimal_{name}",
                "E1.3",
                f"{name}: GTR's subroutines (findOptimalQIValue, specializeQI; our greedy mode) "
                "return a least-loss protecting tuple, as Fig. 4's output promises",
                all(g["optimal"] == g["audited"] - g["exact_abstained"] for g in greedy.values()),
                "; ".join(
                    f"τ {t}: optimal {g['optimal']} of {g['audited']}, loss gap mean "
                    f"{g['mean_gap']:.4f} max {g['max_gap']:.4f}"
                    for t, g in greedy.items()
                ),
                paper="a least-loss protecting tuple (Fig. 4's output)",
            )
        )
        final = {t: pt["final_set"] for t, pt in by_tau.items()}
        lines.append(
            _line(
                "paper",
                f"gtr_protects_all_final_{name}",
                "E1.1",
                f"{name}: GTR protects 100% of accepted respondents against the final collected "
                "set too (the paper checks Pv at submission only)",
                all(f["protected"] == f["accepted"] for f in final.values()),
                "; ".join(
                    f"τ {t}: {f['protected']:,} of {f['accepted']:,} ({_pct(f['share'])}), "
                    f"min Pv {f['min_pv']:.3f}"
                    for t, f in final.items()
                ),
                paper="— (the paper checks Pv at submission only)",
            )
        )
    return lines


def _paper(results: dict[str, Any], plan: Plan) -> list[dict[str, Any]]:
    lines = []
    adult = results["perturbation"].get("adult")
    tau = "0.3"
    if adult is not None and any(str(t) == tau for t in plan.taus):
        epr = {k: pt["protected"][tau] for k, pt in adult["epr"].items()}
        top = epr[max(epr, key=int)]
        lines.append(
            _line(
                "paper",
                "epr_protects_few",
                "E1.1",
                "Adult, τ = 0.3: EPR protects at most 39% of respondents (k* = 31)",
                top <= 0.39 + _TOL,
                "protected by k*: " + ", ".join(f"{k}: {_pct(v)}" for k, v in epr.items()),
                paper="≤ 39% (k* = 31)",
                ours=f"{_pct(top)} (k* = {max(epr, key=int)})",
            )
        )
        mrr = {t: pt["protected"][tau] for t, pt in adult["mrr"].items()}
        lines.append(
            _line(
                "paper",
                "mrr_protects_40_60",
                "E1.1",
                "Adult, τ = 0.3: MRR protects 40–60% of respondents",
                all(0.4 - _TOL <= v <= 0.6 + _TOL for v in mrr.values()),
                "protected by θ: " + ", ".join(f"{t}: {_pct(v)}" for t, v in mrr.items()),
                paper="40–60%",
                ours=f"{_pct(min(mrr.values()))}–{_pct(max(mrr.values()))}",
            )
        )
    gtr_all = all(
        pt["checked_at_acceptance"]["protected"] == pt["checked_at_acceptance"]["checked"]
        for by_tau in results["gtr"].values()
        for pt in by_tau.values()
    )
    lines.append(
        _line(
            "paper",
            "gtr_protects_all",
            "E1.1",
            "GTR protects 100% of respondents (it abstains when it cannot protect)",
            gtr_all,
            "every re-checked submission protected at acceptance; abstainers submit nothing",
            paper="100%",
            ours="100%" if gtr_all else "below 100%",
        )
    )
    for name, by_tau in results["E1.2"].items():
        low = [t for t in by_tau if float(t) <= 0.36 + _TOL]
        wins = []
        for t in low:
            row = by_tau[t]
            rivals = [v["accuracy"] for m, v in row.items() if m != "gtr" and v is not None]
            wins.append(all(row["gtr"]["accuracy"] >= r - _TOL for r in rivals))
        if low:
            lines.append(
                _line(
                    "paper",
                    f"gtr_best_{name}",
                    "E1.2",
                    f"{name}: GTR has the best relative ID3 accuracy for τ ≤ 0.36",
                    all(wins),
                    paper="GTR best at every τ ≤ 0.36",
                    ours=f"GTR best at {sum(wins)} of {len(wins)} τ",
                    detail="; ".join(
                        f"τ {t}: "
                        + ", ".join(
                            f"{m} {v['accuracy']:.3f}" if v else f"{m} –"
                            for m, v in by_tau[t].items()
                        )
                        for t in low
                    ),
                )
            )
        meets = {m: sum(by_tau[t][m] is not None for t in by_tau) for m in BASELINES}
        if name == "adult":
            lines.append(
                _line(
                    "paper",
                    "lrka_meets_no_tau_adult",
                    "E1.2",
                    "Adult: LRKA meets no τ",
                    meets["lrka"] == 0,
                    f"LRKA meets {meets['lrka']} of {len(by_tau)} τ",
                    paper="0 τ",
                    ours=f"{meets['lrka']} of {len(by_tau)} τ",
                )
            )
        if name == "nursery":
            lines.append(
                _line(
                    "paper",
                    "perturbation_meets_no_tau_nursery",
                    "E1.2",
                    "Nursery: EPR and MRR meet no τ",
                    meets["epr"] == 0 and meets["mrr"] == 0,
                    f"EPR meets {meets['epr']}, MRR {meets['mrr']} of {len(by_tau)} τ",
                    paper="0 τ each",
                )
            )
    for name, by_tau in results["E1.3"].items():
        low = [t for t in by_tau if float(t) <= 0.36 + _TOL]
        ok = all(
            all(
                by_tau[t]["gtr"]["loss"] <= v["loss"] + _TOL
                for m, v in by_tau[t].items()
                if m in ("lrka", "ld") and v is not None
            )
            for t in low
        )
        if low:
            lines.append(
                _line(
                    "paper",
                    f"gtr_least_loss_{name}",
                    "E1.3",
                    f"{name}: GTR loses the least information among the generalization methods "
                    "for τ ≤ 0.36 (the paper: 'similar' to E1.2)",
                    ok,
                    paper="GTR least at every τ ≤ 0.36 (as E1.2)",
                    detail="; ".join(
                        f"τ {t}: "
                        + ", ".join(
                            f"{m} {v['loss']:.3f}" if v else f"{m} –"
                            for m, v in by_tau[t].items()
                            if m in ("gtr", "lrka", "ld")
                        )
                        for t in low
                    ),
                )
            )
    return lines
