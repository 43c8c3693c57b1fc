"""Pass/fail lines of the randomization reproduction, computed from its results.

Two kinds: ``issue`` — what the reproduction must show (``U(occupation | income)`` of the original;
RR-QI more accurate than entropy ℓ-diversity and Anatomy at equal ℓ) — and ``paper`` — the paper's
qualitative findings (Guo, Ying & Wu, JCSE 2011), reported whether or not our data bear them out. A
check is named by its ``id`` (which carries the metric, setting, scenario or method it tests),
``experiment`` and ``variant``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from microanon.reproductions.expected import Deviation
from microanon.reproductions.outputs import variant_line as _line
from microanon.reproductions.randomization.experiments import METHODS
from microanon.reproductions.randomization.measure import DISTANCES, QUERIES
from microanon.reproductions.randomization.setup import SETTINGS, VARIANTS

__all__ = ["EXPECTED_DEVIATIONS", "PAPER_U", "U_EXPECTED", "run_checks"]

#: ``U(occupation | income)`` of the original table per variant, computed on the public data (the
#: paper's 2.74e-2 is the 30,162-row value), and tolerance.
U_EXPECTED = {"adult_30162": 0.02744, "adult_45222": 0.0268}
U_TOLERANCE = 5e-5
#: The paper's U(occupation | salary) in Table 4 (×1e-2) at ℓ = 3, 4, 5.
PAPER_U = {
    "original": 2.74e-2,
    "RR-QI": {"3": 2.41e-2, "4": 2.27e-2, "5": 2.17e-2},
    "Anatomy": {"3": 0.20e-2, "4": 0.12e-2, "5": 0.05e-2},
    "l-diversity": {"3": 0.0, "4": 2.74e-2, "5": 0.0},
}
_ANATOMY_GROUPS = (
    "Anatomy's groups are formed deterministically from the bucket sizes, so which occupations "
    "share a group changes with ℓ, and its χ² or squared Euclidean distance dips instead of "
    "growing"
)
_QUERY_CELLS = (
    "the mean relative error weighs every non-empty cell equally, and most of ESGRO's 1,530 "
    "non-empty cells hold at most 5 records, where the unbiased reconstruction's noise is "
    "several records and Anatomy's estimate stays within about one: Anatomy wins from ℓ = 5-7 "
    "on; on cells of at least 50 records RR-QI wins at every ℓ (fig6_large_cells)"
)
_TRADE_OFF = (
    "the optimal keep probabilities trade attributes against each other, so those of the "
    "low-cardinality attributes (sex, race) are not monotone in ℓ"
)

#: Checks that fail for a known reason (docs/reproduce-randomization.md, "Where our results
#: agree with the paper, and where not"), in the quick and the full run alike.
EXPECTED_DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "rr_beats_baselines_kl",
        "KL charges the cells whose reconstruction is negative and clipped to 0 (1-3 % of the "
        "mass) p·log(p·10¹²) through the 1e-12 floor, while Anatomy's smooth estimate never "
        "empties a non-empty cell: RR-QI's KL exceeds Anatomy's from ℓ = 3-4 on (χ² and squared "
        "Euclidean distance favour RR-QI by one to two orders of magnitude)",
        experiment="E0.4",
    ),
    Deviation("rr_beats_baselines_query_error_base", _QUERY_CELLS, experiment="E0.5"),
    Deviation("rr_beats_baselines_query_error_cube", _QUERY_CELLS, experiment="E0.5"),
    Deviation(
        "table3_more_distortion_emgrw",
        _TRADE_OFF + "; the claim holds for education and marital_status, which carry the "
        "distortion",
        experiment="E0.1",
    ),
    Deviation(
        "table3_more_distortion_esgro",
        _TRADE_OFF + ": sex stays within 0.02 of 1 and moves up by less than 0.01; the claim "
        "holds for education, which carries the distortion",
        experiment="E0.1",
    ),
    Deviation(
        "table3_both_closer_to_1_emgrw",
        _TRADE_OFF + ": RR-Both's are not above RR-QI's for every attribute (sex, race; "
        "marital_status by 0.0004 on 30,162 rows)",
        experiment="E0.1",
    ),
    Deviation("fig5_monotone_anatomy", _ANATOMY_GROUPS, experiment="E0.4"),
    Deviation(
        "table4_income_occupation",
        "on 30,162 rows the minimal-height rule keeps income at ℓ = 3 and generalizes it at "
        "ℓ = 4 (U = 2.74e-2, 0, 0), the reverse of the paper's ℓ = 3 / 4; on 45,222 rows the "
        "paper's pattern 0 / original / 0 is reproduced exactly",
        experiment="E0.6",
        variant="adult_30162",
    ),
)

#: Relative slack when comparing two numbers for monotonicity (noise of single randomizations).
_TOL = 1e-9

LABELS = {
    "kl": "KL",
    "chi_square": "χ²",
    "squared_euclidean": "squared Euclidean",
    "query_error_base": "base query error",
    "query_error_cube": "CUBE query error",
}


def _slug(name: str) -> str:
    """``name`` as part of a check id: lower case, ``_`` for anything not alphanumeric."""
    return "".join(ch if ch.isalnum() else "_" for ch in name.lower())


def _levels(entries: dict[str, Any]) -> list[str]:
    """ℓ (or r) keys of feasible entries, in numeric order."""
    return sorted((k for k, v in entries.items() if "infeasible" not in v), key=float)


def _monotone(values: Sequence[float], increasing: bool) -> bool:
    diffs = np.diff(np.asarray(values, dtype=float))
    return bool(np.all(diffs >= -_TOL) if increasing else np.all(diffs <= _TOL))


def _fmt(values: Iterable[float]) -> str:
    return ", ".join(f"{v:.4g}" for v in values)


def _fmt_u(per_l: dict[str, float]) -> str:
    """U per ℓ, e.g. ``ℓ=3: 0, ℓ=4: 0.0274``."""
    return ", ".join(f"ℓ={k}: {per_l[k]:.3g}" for k in sorted(per_l, key=float))


def _u_checks(results: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for variant, expected in U_EXPECTED.items():
        got = results["E0.6"][variant]["original"]["sa_qi"]["income"]
        out.append(
            _line(
                "issue",
                "u_original",
                "E0.6",
                variant,
                f"U(occupation | income) of the original = {expected:g}",
                abs(got - expected) <= U_TOLERANCE,
                f"{got:.6f} (expected {expected:g} ± {U_TOLERANCE:g})",
                {"value": got, "expected": expected, "tolerance": U_TOLERANCE},
                paper=f"{PAPER_U['original']:g} (30,162 rows)",
                ours=f"{got:.5g}",
            )
        )
    return out


def _rr_beats(results: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for variant in VARIANTS:
        for metric in DISTANCES + QUERIES:
            exp = "E0.4" if metric in DISTANCES else "E0.5"
            res = results[exp][variant]
            levels = [k for k in _levels(res["RR-QI"]) if int(k) > 1]
            per_l = {k: {m: res[m][k][metric] for m in METHODS} for k in levels}
            wins = [
                k
                for k in levels
                if per_l[k]["RR-QI"] < min(per_l[k]["Anatomy"], per_l[k]["l-diversity"])
            ]
            losses = [k for k in levels if k not in wins]
            detail = f"RR-QI lowest at ℓ = {', '.join(wins) or 'none'}"
            if losses:
                beaten = [
                    f"ℓ={k}: RR-QI {per_l[k]['RR-QI']:.4g} vs Anatomy "
                    f"{per_l[k]['Anatomy']:.4g}, ℓ-div {per_l[k]['l-diversity']:.4g}"
                    for k in losses
                ]
                detail += "; not at " + "; ".join(beaten)
            out.append(
                _line(
                    "issue",
                    f"rr_beats_baselines_{metric}",
                    exp,
                    variant,
                    f"RR-QI's {LABELS[metric]} below entropy ℓ-diversity's and Anatomy's at "
                    "every ℓ ≥ 2",
                    not losses,
                    detail,
                    {"metric": metric, "per_l": per_l},
                    paper="RR-QI lowest at every ℓ ≥ 2",
                    ours=f"RR-QI lowest at {len(wins)} of {len(levels)} ℓ",
                )
            )
    return out


def _large_cells(results: dict[str, Any]) -> list[dict[str, Any]]:
    """RR-QI vs the baselines on the base group-by's cells of at least 50 records."""
    out = []
    for variant in VARIANTS:
        res = results["E0.5"][variant]
        levels = [k for k in _levels(res["RR-QI"]) if int(k) > 1]
        per_l = {k: {m: res[m][k]["base_by_cell_size"]["50+"] for m in METHODS} for k in levels}
        losses = [
            k
            for k in levels
            if per_l[k]["RR-QI"] >= min(per_l[k]["Anatomy"], per_l[k]["l-diversity"])
        ]
        detail = "; ".join(
            f"ℓ={k}: RR-QI {v['RR-QI']:.3g}, Anatomy {v['Anatomy']:.3g}, ℓ-div "
            f"{v['l-diversity']:.3g}"
            for k, v in per_l.items()
        )
        out.append(
            _line(
                "paper",
                "fig6_large_cells",
                "E0.5",
                variant,
                "RR far more accurate (Fig. 6): RR-QI's relative error on the base group-by's "
                "cells of ≥ 50 records below both baselines at every ℓ ≥ 2",
                not losses,
                detail,
                {"per_l": per_l},
                paper="RR far more accurate at every ℓ",
                ours=f"RR-QI lowest at {len(levels) - len(losses)} of {len(levels)} ℓ",
            )
        )
    return out


def _table3_claims(results: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for variant in VARIANTS:
        for setting, scenarios in results["E0.1"][variant].items():
            rising = []
            for scenario, rows in scenarios.items():
                levels = _levels(rows)
                if len(levels) < 2:
                    continue
                for attr in rows[levels[0]]["keep"]:
                    keeps = [rows[k]["keep"][attr] for k in levels]
                    if min(keeps) < 1 and not _monotone(keeps, increasing=False):
                        rising.append(f"{scenario} {attr} ({_fmt(keeps)})")
            out.append(
                _line(
                    "paper",
                    f"table3_more_distortion_{_slug(setting)}",
                    "E0.1",
                    variant,
                    f"{setting}: keep probabilities fall (move away from 1) as ℓ grows",
                    not rising,
                    "holds" if not rising else "not monotone: " + "; ".join(rising),
                    paper="every keep probability falls as ℓ grows",
                )
            )
            qi_rows, both_rows = scenarios.get("RR-QI", {}), scenarios.get("RR-Both", {})
            common = [k for k in _levels(qi_rows) if k in _levels(both_rows)]
            lower = []
            for k in common:
                for attr, p_qi in qi_rows[k]["keep"].items():
                    if attr == SETTINGS[setting].sensitive:
                        continue
                    p_both = both_rows[k]["keep"][attr]
                    if p_both < p_qi - 1e-6:
                        lower.append(f"ℓ={k} {attr}: {p_both:.4f} < {p_qi:.4f}")
            out.append(
                _line(
                    "paper",
                    f"table3_both_closer_to_1_{_slug(setting)}",
                    "E0.1",
                    variant,
                    f"{setting}: quasi-identifier keep probabilities of RR-Both are at least "
                    "RR-QI's",
                    not lower,
                    "holds" if not lower else "; ".join(lower),
                    paper="RR-Both's ≥ RR-QI's for every quasi-identifier",
                )
            )
    return out


def _monotone_line(
    rows: dict[Any, dict[str, float]],
    increasing: bool,
    claim: str,
    experiment: str,
    variant: str,
    text: str,
    paper: str,
) -> dict[str, Any] | None:
    """A check line saying whether every distance moves one way along ``rows``' keys."""
    keys = _levels(rows)
    if len(keys) < 2:
        return None
    bad = [
        f"{LABELS[m]} ({_fmt(rows[k][m] for k in keys)})"
        for m in DISTANCES
        if not _monotone([rows[k][m] for k in keys], increasing=increasing)
    ]
    detail = "holds" if not bad else "not monotone: " + "; ".join(bad)
    return _line("paper", claim, experiment, variant, text, not bad, detail, paper=paper)


def _trend_claims(results: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for variant in VARIANTS:
        e02 = results["E0.2"][variant]
        for scenario, rows in e02.items():
            line = _monotone_line(
                rows,
                True,
                f"fig3_grows_with_l_{_slug(scenario)}",
                "E0.2",
                variant,
                f"EMGRW {scenario}: every distance grows with ℓ",
                "every distance grows with ℓ",
            )
            if line is not None:
                out.append(line)
        qi, both = e02.get("RR-QI", {}), e02.get("RR-Both", {})
        common = [k for k in _levels(qi) if k in _levels(both)]
        theory = {
            k: (both[k]["expected_squared_error"], qi[k]["expected_squared_error"]) for k in common
        }
        worse = [f"ℓ={k}: {b:.4g} > {q:.4g}" for k, (b, q) in theory.items() if b > q * (1 + _TOL)]
        noisy = [
            f"ℓ={k} {LABELS[m]} {both[k][m]:.4g} > {qi[k][m]:.4g}"
            for k in common
            for m in DISTANCES
            if both[k][m] > qi[k][m] * (1 + _TOL)
        ]
        detail = "holds" if not worse else "; ".join(worse)
        detail += "; measured (random): " + (
            "RR-Both lower everywhere" if not noisy else "RR-Both higher at " + "; ".join(noisy)
        )
        out.append(
            _line(
                "paper",
                "fig3_both_best",
                "E0.2",
                variant,
                "EMGRW: RR-Both's expected squared error at most RR-QI's at every ℓ",
                not worse,
                detail,
                paper="RR-Both's error ≤ RR-QI's at every ℓ",
            )
        )
        for scenario, rows in results["E0.3"][variant].items():
            line = _monotone_line(
                rows,
                False,
                f"fig4_more_data_better_{_slug(scenario)}",
                "E0.3",
                variant,
                f"EMGRW {scenario}: every distance falls as the data grow",
                "every distance falls as the data grow",
            )
            if line is not None:
                out.append(line)
        e04 = results["E0.4"][variant]
        for method in METHODS:
            levels = _levels(e04[method])
            bad = [
                LABELS[m]
                for m in DISTANCES
                if not _monotone([e04[method][k][m] for k in levels], increasing=True)
            ]
            if method == "l-diversity":
                claim, passed = "ESGRO ℓ-diversity: distances are not monotone in ℓ", bool(bad)
                detail = ("non-monotone: " + ", ".join(bad)) if bad else "all monotone"
                paper = "not monotone in ℓ"
            else:
                claim, passed = f"ESGRO {method}: distances grow monotonically with ℓ", not bad
                detail = "holds" if not bad else "not monotone: " + ", ".join(bad)
                paper = "every distance grows with ℓ"
            check = f"fig5_monotone_{_slug(method)}"
            out.append(_line("paper", check, "E0.4", variant, claim, passed, detail, paper=paper))
    return out


def _u_claims(results: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for variant in VARIANTS:
        e06 = results["E0.6"][variant]
        ours = {"original": e06["original"]["sa_qi"]["income"]}
        for method in METHODS:
            ours[method] = {
                k: v["sa_qi"]["income"] for k, v in e06[method].items() if k in PAPER_U[method]
            }
        rows = [f"original {ours['original']:.4g} (paper {PAPER_U['original']:.4g})"]
        for method in METHODS:
            rows.append(
                f"{method} "
                + ", ".join(
                    f"ℓ={k}: {ours[method][k]:.3g} (paper {PAPER_U[method][k]:.3g})"
                    for k in sorted(ours[method])
                )
            )
        ldiv = ours["l-diversity"]
        match = all((abs(ldiv[k]) < 1e-12) == (PAPER_U["l-diversity"][k] == 0) for k in ldiv)
        out.append(
            _line(
                "paper",
                "table4_income_occupation",
                "E0.6",
                variant,
                "U(occupation | income): ℓ-diversity 0 where income is generalized to one value "
                "(paper: ℓ = 3, 5) and the original's where it is kept (paper: ℓ = 4)",
                match,
                "; ".join(rows),
                {"ours": ours, "paper": PAPER_U},
                paper="ℓ-diversity " + _fmt_u(PAPER_U["l-diversity"]),
                ours="ℓ-diversity " + _fmt_u(ldiv),
            )
        )
        e07 = results["E0.7"][variant]
        levels = _levels(e07["RR-Both"])
        orig = e07["original"]
        far = []
        for k in levels:
            gap = {
                m: abs(e07[m][k]["u_sa_qi"] - orig["u_sa_qi"]) for m in METHODS[1:] + ("RR-Both",)
            }
            if gap["RR-Both"] > min(gap["Anatomy"], gap["l-diversity"]):
                far.append(f"ℓ={k}")
        out.append(
            _line(
                "paper",
                "fig7_rr_best_sa_qi",
                "E0.7",
                variant,
                "mean U(SA | QI) of RR-Both closest to the original's at every ℓ",
                not far,
                "holds" if not far else "not at " + ", ".join(far),
                paper="RR-Both closest at every ℓ",
                ours=f"RR-Both closest at {len(levels) - len(far)} of {len(levels)} ℓ",
            )
        )
        best = [
            k
            for k in levels
            if abs(e07["Anatomy"][k]["u_qi_qi"] - orig["u_qi_qi"])
            <= min(abs(e07[m][k]["u_qi_qi"] - orig["u_qi_qi"]) for m in ("RR-Both", "l-diversity"))
        ]
        out.append(
            _line(
                "paper",
                "fig7_anatomy_best_qi",
                "E0.7",
                variant,
                "mean U among quasi-identifiers of Anatomy closest to the original's (QIs exact)",
                len(best) == len(levels),
                "holds" if len(best) == len(levels) else f"only at ℓ = {', '.join(best)}",
                paper="Anatomy closest at every ℓ",
                ours=f"Anatomy closest at {len(best)} of {len(levels)} ℓ",
            )
        )
    return out


def _average_checks(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Ours: RR-S under the average-risk bound (E0.8) where the paper's bound is infeasible."""
    out = []
    for variant in VARIANTS:
        res = results["E0.8"][variant]
        parts = []
        for setting, rows in res.items():
            for k in _levels(rows):
                e = rows[k]
                parts.append(
                    f"{setting} ℓ={k}: keep {SETTINGS[setting].sensitive} "
                    f"{e['keep'][SETTINGS[setting].sensitive]:.4f}, squared Euclidean "
                    f"{e['squared_euclidean']:.3g}, {e['share_above']:.1%} of records above τ"
                )
        feasible = "2" in _levels(res["EMGRW"])
        out.append(
            _line(
                "issue",
                "rr_s_feasible_average",
                "E0.8",
                variant,
                "ours: RR-S, infeasible on EMGRW at every ℓ under the paper's every-record bound, "
                "is feasible at ℓ = 2 when only the records' mean risk is bounded",
                feasible,
                "; ".join(parts) or "infeasible everywhere",
                paper="— (our extension: the paper bounds every record)",
            )
        )
    return out


def _estimator_checks(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Ours: EM's reconstruction in the ESGRO comparison of query errors (E0.9 vs E0.5)."""
    out = []
    for variant in VARIANTS:
        em = results["E0.9"][variant]["ESGRO"]["RR-QI"]
        e05 = results["E0.5"][variant]
        for metric in QUERIES:
            per_l = {
                k: {
                    "inverse": em[k]["inverse"][metric],
                    "em": em[k]["em"][metric],
                    **{m: e05[m][k][metric] for m in METHODS[1:] if k in e05[m]},
                }
                for k in sorted(em, key=float)
            }
            losses = [
                k for k, v in per_l.items() if v["em"] >= min(x for m, x in v.items() if m != "em")
            ]
            out.append(
                _line(
                    "issue",
                    f"em_beats_baselines_{metric}",
                    "E0.9",
                    variant,
                    f"ours: with the EM reconstruction, RR-QI's {LABELS[metric]} is below the "
                    "inverse estimate's, Anatomy's and entropy ℓ-diversity's at every ℓ ≥ 2",
                    not losses,
                    "; ".join(
                        f"ℓ={k}: " + ", ".join(f"{m} {x:.3g}" for m, x in v.items())
                        for k, v in per_l.items()
                    ),
                    {"metric": metric, "per_l": per_l},
                    paper="— (our extension: the paper reconstructs with the inverse)",
                )
            )
    return out


def run_checks(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every check line, the issue's first."""
    return (
        _u_checks(results)
        + _average_checks(results)
        + _estimator_checks(results)
        + _rr_beats(results)
        + _large_cells(results)
        + _table3_claims(results)
        + _trend_claims(results)
        + _u_claims(results)
    )
