"""Pass/fail lines of the multi-SA reproduction, computed from its results.

Two kinds: ``issue`` — what the reproduction must show (the 30,718 records; the mixed model's
disclosure probability never above 1/l while Rating's exceeds 0.8 for some records; strong-rule
confidences recovered exactly when nothing is deleted) — and ``paper`` — the paper's findings
(Yi & Shi 2015, Figs. 1–11), reported whether or not our numbers bear them out. The two that
compare run times (``e21_faster``, ``e22_age``) are timings: measured and reported, never checked
(:func:`~microanon.reproductions.outputs.check_line`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from microanon.reproductions.expected import BOTH, FULL_ONLY, QUICK_ONLY, Deviation
from microanon.reproductions.multisa.setup import RECORDS, SA_SETS
from microanon.reproductions.outputs import check_line as _line

__all__ = ["EXPECTED_DEVIATIONS", "PAPER_AIL_BOUND", "run_checks"]

#: The paper's bound on AIL in Fig. 3 ("< 0.03%").
PAPER_AIL_BOUND = 3e-4
_TOL = 1e-12

_AIL_AS_SPECIFIED = (
    "AIL as specified counts every suppressed value and every value of a deleted record as 1: "
    "a value holding more than 1/l of IR fills only n/l SIDs and its excess is suppressed "
    "(relationship, about three quarters Husband in IR, loses thousands), and groups that "
    "cannot get l distinct values delete records; priced as the paper's formula (enlarged SIDs "
    "only, e23_enlarged_*) the bound holds"
)
_RATING_ADVERSARY = (
    "our adversary counts as candidates every record whose SIDs may hold both values, and for "
    "the large rules many records do: their certainty is 0.42-0.46 at l = 3, and at l = 2 only "
    "the age 17 / 18 rules come near 0.8 (above it in some runs); certainty 1 needs a rule with "
    "very few holders (the 86-year-old's)"
)

_UNSTABLE_SAME = (
    "any tie order still takes one value from each of the l largest buckets, so the bucket "
    "sizes evolve identically and as many occurrences are left over; AIL counts each leftover "
    "once (in an enlarged SID or suppressed), so it cannot change — a much larger AIL needs a "
    "sort that misorders sizes, not ties"
)

#: Checks that fail for a known reason (docs/reproduce-multisa.md, "Results of a full run
#: against the paper").
EXPECTED_DEVIATIONS: tuple[Deviation, ...] = (
    Deviation(
        "rating_above_08_l3",
        "at l = 3 only the single 86-year-old's rules can exceed 0.8 (the large rules reach "
        "0.42-0.5), and whether the adversary's candidates for that one record narrow to it "
        "depends on the random assignment of occurrences to SIDs: certainty 1 in some runs, at "
        "most 0.5 in others",
    ),
    Deviation("e23_bound_4", _AIL_AS_SPECIFIED),
    Deviation("e23_bound_3", _AIL_AS_SPECIFIED, modes=FULL_ONLY),
    Deviation("e23_bound_2", _AIL_AS_SPECIFIED, modes=FULL_ONLY),
    Deviation(
        "e25",
        "AIL is a share of n·d values: adding age (72 values, almost never suppressed) lowers "
        "the mixed model's AIL from 2 to 3 attributes (1.45 % -> 1.01 %, about 3 % of n values "
        "lost either way), and Rating is not flat: relationship (41 % Husband) loses thousands "
        "of values to suppression at l = 3, so both jump at 4 attributes",
    ),
    Deviation("e28_rating_l2", _RATING_ADVERSARY),
    Deviation("e28_rating_l3", _RATING_ADVERSARY),
    *(
        Deviation(
            f"E2.6_slight_{sa_set}",
            "a SAC group needs l distinct values on every sensitive attribute: at l ≥ 4 with 4 "
            "SAs (relationship has 6 values) and at l = 6 with 3 SAs thousands of SAC records "
            "cannot be grouped and are deleted (2,686 to 15,392), taking rule holders with them, "
            "and the recovered average moves by 0.06-0.43 (only l = 2, 3 run on the quick grid)",
            modes=FULL_ONLY,
        )
        for sa_set in ("3", "4")
    ),
    *(
        Deviation(
            f"e23_unstable_{sa_set}",
            _UNSTABLE_SAME,
            modes=FULL_ONLY if sa_set != "4" else BOTH,
        )
        for sa_set in ("2", "3", "4")
    ),
    Deviation(
        "E2.6_forced_3",
        "without relationship no attribute limits the groups (education's 16 values leave room "
        "for 17,586 records at l = 6, SAC has 7,910): the 2,686 deletions at l = 6 are first-fit "
        "conflicts, no record left that avoids all of a group's values",
        modes=FULL_ONLY,
    ),
    Deviation(
        "E2.6_forced_4",
        "the quick grid stops at l = 3, where relationship's capacity (27,021 records) exceeds "
        "SAC (16,828) and the 165 deletions are first-fit conflicts; capacity forces 44 % of the "
        "deletions at l = 5 and 74 % at l = 6 (full grid)",
        modes=QUICK_ONLY,
    ),
    Deviation(
        "e24_4",
        "quick grid (min_confidence 0.7, 0.8, 0.9): 0.7 and 0.8 give the same 7 rules; at 0.9 "
        "the two education -> Prof-specialty rules drop out and the attribute left out of SAC "
        "changes from education to age: SAC shrinks (16,828 -> 15,307 records) but its groups "
        "borrow more IR records to get l distinct values (6,437 -> 8,288), so SAC~ + deleted "
        "grows while AIL falls (the full grid, 0.6 to 1.0, holds)",
        modes=QUICK_ONLY,
    ),
)


def _fmt(values: Iterable[float | None]) -> str:
    return ", ".join("–" if v is None else f"{v:.4g}" for v in values)


def _pct(values: Iterable[float]) -> str:
    return ", ".join(f"{100 * v:.3g}%" for v in values)


def _non_decreasing(values: Sequence[float]) -> bool:
    return bool(np.all(np.diff(np.asarray(values, dtype=float)) >= -_TOL))


def _issue(results: dict[str, Any]) -> list[dict[str, Any]]:
    lines = []
    rows = results["meta"]["records"]
    lines.append(
        _line(
            "issue",
            "records",
            "data",
            "Adult's training split without unknown occupation has 30,718 records",
            rows == RECORDS,
            f"{rows:,} records",
            paper=f"{RECORDS:,}",
        )
    )
    for lv, entry in results["E2.8"].items():
        if lv == "set":
            continue
        mixed, rat = entry["mixed"], entry["rating"]
        bound = 1 / int(lv)
        lines.append(
            _line(
                "issue",
                f"mixed_bound_l{lv}",
                "E2.8",
                f"l = {lv}: the mixed model's disclosure probability never exceeds 1/l",
                mixed["max"] <= bound + _TOL,
                f"max {mixed['max']:.4g} over {mixed['holders']:,} records holding a strong rule "
                f"({mixed['deleted_holders']:,} of them deleted); 1/l = {bound:.4g}",
                paper=f"≤ 1/l = {bound:.4g}",
                ours=f"max {mixed['max']:.4g}",
            )
        )
        lines.append(
            _line(
                "issue",
                f"rating_above_08_l{lv}",
                "E2.8",
                f"l = {lv}: Rating's disclosure probability exceeds 0.8 for some records",
                rat["above_0_8"] > 0,
                f"{rat['above_0_8']:,} of {rat['holders']:,} records above 0.8, "
                f"{rat['certain']:,} certain (1.0); max {rat['max']:.4g}, mean {rat['mean']:.4g}",
                paper="> 0.8 for some records",
                ours=f"{rat['above_0_8']:,} records above 0.8",
            )
        )
    exact, where = [], []
    for exp in ("E2.6", "E2.7"):
        for s, points in results[exp].items():
            for k, p in points.items():
                if p["deleted"] == 0 and p["rules"]:
                    d = p["mixed_detail"]
                    exact.append(d["support_xy_exact"] and (d["max_deviation_intact"] or 0) < 1e-9)
                    where.append(f"{exp} set {s} {'l' if exp == 'E2.6' else 'n'}={k}")
    lines.append(
        _line(
            "issue",
            "lemma22",
            "E2.6/E2.7",
            "when nothing is deleted, every strong rule's confidence is recovered exactly from "
            "the mixed model's release (Lemma 22)",
            bool(exact) and all(exact),
            f"{sum(exact)} of {len(exact)} releases without deletions: " + "; ".join(where),
            paper="exact (Lemma 22)",
            ours=f"exact in {sum(exact)} of {len(exact)} releases",
        )
    )
    return lines


def _timing(results: dict[str, Any]) -> list[dict[str, Any]]:
    e21, e22 = results["E2.1"], results["E2.2"]
    sizes = list(e21["improved"])
    ratios = [e21["bubble"][n] / e21["improved"][n] for n in sizes]
    grow_b = e22["bubble"]["3"] / e22["bubble"]["2"]
    grow_i = e22["improved"]["3"] / e22["improved"]["2"]
    return [
        _line(
            "paper",
            "e21_faster",
            "E2.1",
            "the heuristic SID creation is much faster than the "
            "stable bubble sort at every number of records",
            min(ratios) > 1,
            "speed-up " + _fmt(ratios) + " at " + ", ".join(sizes) + " records",
            paper="much faster",
            ours=f"{min(ratios):.3g}–{max(ratios):.3g}x faster",
            timing=True,
        ),
        _line(
            "paper",
            "e22_age",
            "E2.2",
            "adding age (72 values) blows up the bubble sort's time more than the heuristic's "
            "(its growth at least 1.5 times the heuristic's: CPU timings of the quick run vary "
            "by about a third on a loaded machine)",
            grow_b > 1.5 * grow_i,
            f"2 -> 3 attributes: bubble sort x{grow_b:.3g}, heuristic x{grow_i:.3g}; with 4: "
            f"{e22['bubble']['4'] / e22['improved']['4']:.3g}x faster",
            paper="bubble sort's time blows up",
            ours=f"x{grow_b:.3g} vs x{grow_i:.3g}",
            timing=True,
        ),
    ]


def _ail(results: dict[str, Any]) -> list[dict[str, Any]]:
    lines = []
    for s, methods in results["E2.3"].items():
        ls = list(methods["mixed"])
        mixed = [methods["mixed"][k]["ail"] for k in ls]
        rat = [methods["rating"][k]["ail"] for k in ls]
        enlarged = [methods[m][k]["ail_enlarged"] for m in methods for k in ls]
        tag = f"{len(SA_SETS[s])} SAs"
        lines += [
            _line(
                "paper",
                f"e23_grow_{s}",
                "E2.3",
                f"{tag}: AIL grows with l for both",
                _non_decreasing(mixed) and _non_decreasing(rat),
                f"l = {', '.join(ls)}: mixed {_pct(mixed)}; Rating {_pct(rat)}",
                paper="grows with l",
            ),
            _line(
                "paper",
                f"e23_order_{s}",
                "E2.3",
                f"{tag}: the mixed model's AIL is (slightly) higher than Rating's",
                all(m >= r - _TOL for m, r in zip(mixed, rat, strict=True)),
                f"mixed − Rating: {_pct(m - r for m, r in zip(mixed, rat, strict=True))}",
                paper="mixed slightly higher",
            ),
            _line(
                "paper",
                f"e23_bound_{s}",
                "E2.3",
                f"{tag}: the mixed model's AIL stays below 0.03%",
                max(mixed) < PAPER_AIL_BOUND,
                f"max {100 * max(mixed):.3g}% (suppressed values and deleted records count 1)",
                paper=f"< {100 * PAPER_AIL_BOUND:g}%",
                ours=f"max {100 * max(mixed):.3g}%",
            ),
            _line(
                "paper",
                f"e23_enlarged_{s}",
                "E2.3",
                f"{tag}: AIL priced as the paper's formula (enlarged SIDs only, no suppression or "
                "deletion) stays below 0.03%",
                max(enlarged) < PAPER_AIL_BOUND,
                f"max over both methods and every l {100 * max(enlarged):.3g}%",
                paper=f"< {100 * PAPER_AIL_BOUND:g}%",
                ours=f"max {100 * max(enlarged):.3g}%",
            ),
        ]
    for s, points in results["E2.4"].items():
        cs = list(points)
        ails = [points[c]["ail"] for c in cs]
        sac = [points[c]["sac_published"] + points[c]["deleted"] for c in cs]
        lines.append(
            _line(
                "paper",
                f"e24_{s}",
                "E2.4",
                f"{len(SA_SETS[s])} SAs: a lower min_confidence "
                "puts more records in SAC and gives more AIL",
                ails[0] >= ails[-1] and sac[0] >= sac[-1],
                f"min_confidence {', '.join(cs)}: AIL {_pct(ails)}; SAC~ + deleted records "
                f"{', '.join(f'{v:,}' for v in sac)}",
                paper="more SAC records and AIL at lower min_confidence",
            )
        )
    runs = results["E2.3u"]["runs"]
    for s, points in results["E2.3u"].items():
        if s == "runs":
            continue
        ls = list(points)
        stable = [points[k]["stable"] for k in ls]
        worst = [max(points[k]["unstable"]) for k in ls]
        lines.append(
            _line(
                "paper",
                f"e23_unstable_{s}",
                "E2.3",
                f"{len(SA_SETS[s])} SAs: with an unstable sort Rating's AIL is much larger "
                "(at least twice the stable sort's at some l)",
                any(w > 2 * st + _TOL for w, st in zip(worst, stable, strict=True)),
                f"l = {', '.join(ls)}: stable {_pct(stable)}; unstable (largest of {runs} random "
                f"tie orders) {_pct(worst)}",
                paper="an unstable sort raises Rating's AIL sharply",
            )
        )
    e25 = results["E2.5"]
    mixed = [e25["mixed"][s]["ail"] for s in SA_SETS]
    rat = [e25["rating"][s]["ail"] for s in SA_SETS]
    lines.append(
        _line(
            "paper",
            "e25",
            "E2.5",
            "AIL vs number of sensitive attributes: Rating flat, the "
            "mixed model grows (and stays acceptable)",
            _non_decreasing(mixed) and np.ptp(rat) <= np.ptp(mixed),
            f"2, 3, 4 attributes: mixed {_pct(mixed)}; Rating {_pct(rat)}",
            paper="Rating flat, mixed grows",
        )
    )
    return lines


def _rules(results: dict[str, Any]) -> list[dict[str, Any]]:
    lines = []
    for exp, axis in (("E2.6", "l"), ("E2.7", "n")):
        for s, points in results[exp].items():
            keys = [k for k, p in points.items() if p["rules"]]
            if not keys:
                continue
            gone = {k: points[k]["deleted"] + points[k]["left_out"] for k in keys}
            kept = [points[k] for k in keys if gone[k] == 0]
            cut = [points[k] for k in keys if gone[k] > 0]
            far = [abs(points[k]["rating"] - points[k]["raw"]) for k in keys]
            dev = [abs((points[k]["mixed"] or 0) - points[k]["raw"]) for k in keys]
            tag = f"{exp} {len(SA_SETS[s])} SAs"
            lines += [
                _line(
                    "paper",
                    f"{exp}_equal_{s}",
                    exp,
                    f"{tag}: the mixed model recovers the "
                    "raw average confidence when no record is deleted or left out",
                    all(abs(p["mixed"] - p["raw"]) < 1e-9 for p in kept),
                    f"{len(kept)} of {len(keys)} points without deletion; deviation "
                    f"{_fmt(dev)} at {axis} = {', '.join(keys)}; deleted or left out "
                    + ", ".join(f"{gone[k]:,}" for k in keys),
                    paper="equal to raw",
                    ours=f"equal at {sum(abs(p['mixed'] - p['raw']) < 1e-9 for p in kept)} of "
                    f"{len(kept)} points without deletion",
                ),
                _line(
                    "paper",
                    f"{exp}_slight_{s}",
                    exp,
                    f"{tag}: deleting the records no group or SID can take makes it deviate "
                    "only slightly",
                    all(abs((p["mixed"] or 0) - p["raw"]) <= 0.05 for p in cut),
                    "deviation where records were deleted: "
                    + (_fmt(abs((p["mixed"] or 0) - p["raw"]) for p in cut) or "none"),
                    paper="slight deviation (≤ 0.05)",
                ),
                _line(
                    "paper",
                    f"{exp}_rating_{s}",
                    exp,
                    f"{tag}: Rating's recovered confidence is far off",
                    min(far) > 0.3,
                    f"|Rating − raw| {_fmt(far)}; raw {_fmt(points[k]['raw'] for k in keys)}",
                    paper="far off (> 0.3)",
                    ours=f"|Rating − raw| ≥ {min(far):.3g}",
                ),
            ]
    return lines


def _deletions(results: dict[str, Any]) -> list[dict[str, Any]]:
    """E2.6's explanation of the deviation at high l, measured: the share of the deletions that
    the scarcest attribute's capacity forces at the largest l."""
    lines = []
    for s, points in results["E2.6"].items():
        ls = list(points)
        top = points[ls[-1]]["deletion"]
        per_l = "; ".join(
            f"l = {k}: {points[k]['deletion']['deleted']:,} of "
            f"{points[k]['deletion']['sac']:,} SAC deleted, {points[k]['deletion']['forced']:,} "
            f"forced by {points[k]['deletion']['limiting']}"
            for k in ls
        )
        lines.append(
            _line(
                "paper",
                f"E2.6_forced_{s}",
                "E2.6",
                f"{len(SA_SETS[s])} SAs: the deletions at the largest l come from an attribute "
                "with too few values (the paper: relationship has 6): its capacity l·g forces "
                "most of them",
                top["deleted"] > 0 and top["forced"] >= top["deleted"] / 2,
                per_l,
                paper="deletions at high l: relationship has only 6 values",
            )
        )
    return lines


def _disclosure(results: dict[str, Any]) -> list[dict[str, Any]]:
    lines = []
    for lv, entry in results["E2.8"].items():
        if lv == "set":
            continue
        rat = entry["rating"]
        lines.append(
            _line(
                "paper",
                f"e28_rating_l{lv}",
                "E2.8",
                f"l = {lv}: Rating's disclosure probability is above 80% (some records 100%)",
                rat["median"] > 0.8 and rat["certain"] > 0,
                f"median {rat['median']:.4g}, mean {rat['mean']:.4g}; {rat['above_0_8']:,} of "
                f"{rat['holders']:,} records above 0.8, {rat['certain']:,} at 1.0",
                paper="> 80% (some 100%)",
                ours=f"median {100 * rat['median']:.3g}% ({rat['certain']:,} at 100%)",
            )
        )
    return lines


def run_checks(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every check of a run, issue checks first."""
    return [
        *_issue(results),
        *_timing(results),
        *_ail(results),
        *_rules(results),
        *_deletions(results),
        *_disclosure(results),
    ]
