"""Pass/fail lines of the distribution reproduction, computed from its results.

Two kinds, as in the randomization reproduction: ``issue`` — what the reproduction itself must show
(the 1,427-record data set, every bound containing the true answer, every release P-private) — and
``paper`` — the paper's finding of each experiment (Koudas et al. 2009, Figs. 5–13), tested on our
numbers with the criterion written in the claim, reported whether or not it holds. Findings about
target distributions given by the source are tested once per target encoding (``variant`` =
``exact`` or ``rounded``). E4.12's ``linear_time`` compares run times: a timing, measured and
reported, never checked (:func:`~microanon.reproductions.outputs.check_line`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from microanon.reproductions.distribution.experiments import PARTITIONS, SOURCE_SETS
from microanon.reproductions.distribution.measure import ENCODINGS
from microanon.reproductions.expected import BOTH, FULL_ONLY, QUICK_ONLY, Deviation
from microanon.reproductions.outputs import variant_line as _line

__all__ = ["ADULT_FACTS", "EXPECTED_DEVIATIONS", "run_checks"]

#: The real data set as counted on the public UCI file (the paper gives 1,427 records).
ADULT_FACTS = {"rows": 1427, "distinct_values": 89, "min": 155, "max": 4356}

#: Relative slack for "non-decreasing" trends (query sampling noise).
_SLACK = 0.02
#: Experiment of each source data set in Fig. 5.
_SOURCE_EXPS = dict(zip(("E4.1", "E4.2", "E4.3"), SOURCE_SETS, strict=True))

_EXACT = (
    "exact source counts: Σw' is in the hundreds or thousands near the root, far more than a "
    "QI-SA subgroup (one age) holds, so (nearly) all of QI-SA's subgroups stay at the root"
)
_EXACT_FAKES = (
    "exact source counts: QI-SA's subgroups (nearly) all stay at the root and no fake budget up "
    "to 20 % changes its error"
)
_EXACT_SAMPLE = (
    "exact source counts: with the 10 % sample nothing leaves the root until the fake budget "
    "exceeds every value's deficit (only the largest budget helps, and then the release is the "
    "source's multiset)"
)
_NOISE = (
    "within noise: the errors compared differ by about as much as the query sample and the "
    "random data vary, so the check passes in some runs and fails in others"
)


def _deviation(
    check: str, exp: str, variant: str | None, reason: str, modes: frozenset[str] = BOTH
) -> Deviation:
    """An expected deviation of one check line (``id``, experiment, variant)."""
    return Deviation(check, reason, experiment=exp, variant=variant, modes=modes)


#: Checks that fail for a known reason (docs/reproduce-distribution.md, "Where our results
#: agree with the paper, and where not"); the last three in one mode only.
EXPECTED_DEVIATIONS: tuple[Deviation, ...] = (
    _deviation("qi_sa_accurate", "E4.2", "exact", _EXACT),
    _deviation("qi_sa_poor", "E4.3", "exact", _EXACT + " on correlated and uncorrelated data"),
    *(
        _deviation(
            "sa_only_consistently",
            "E4.3",
            enc,
            "at the narrowest widths both methods' bounds are about as wide as the answer "
            "(errors near the whole domain's) and the order is decided by noise (R ≤ 5 in the "
            "full run, up to R = 10 on the quick grid)",
        )
        for enc in ENCODINGS
    ),
    *(_deviation("fakes", "E4.4", f"{name}, exact", _EXACT_FAKES) for name in SOURCE_SETS),
    _deviation(
        "fakes",
        "E4.4",
        "real, rounded",
        "fakes keep helping on Adult up to 20 % (the paper: 20 % hurts): minSORFake never adds "
        "a fake that raises the sum of ranges, and the tighter entries outweigh the extra fake "
        "entries in the bounds",
    ),
    _deviation(
        "fakes",
        "E4.4",
        "uncorrelated, rounded",
        "on uncorrelated data larger budgets are as good as 5 % or better (the paper: more than "
        "5 % hurts): minSORFake never adds a fake that raises the sum of ranges",
    ),
    *(_deviation("fakes", "E4.5", f"{name}, exact", _EXACT_SAMPLE) for name in SOURCE_SETS),
    _deviation(
        "fakes",
        "E4.5",
        "real, rounded",
        _NOISE + " (the larger budgets' errors are within about 1 % of each other; minSORFake "
        "may leave the largest budget unused)",
    ),
    _deviation("fakes", "E4.5", "uncorrelated, rounded", _NOISE + " (5 %, 10 % and 20 % fakes)"),
    _deviation(
        "fakes",
        "E4.5",
        "correlated, rounded",
        "5 % fakes help slightly and more hurt — the uncorrelated pattern, not 'more fakes keep "
        "helping'",
    ),
    _deviation(
        "zipf_best_at_source",
        "E4.7",
        "QI-SA",
        "QI-SA is lowest at s = 0, not 0.1: the source's 9 : 7 rounded splits let an age subgroup "
        "send values down only in blocks of 16, against blocks of 2 for the uniform 8 : 8, so "
        "for small groups a coarser target beats the true one",
    ),
    _deviation(
        "zipf_best_at_source",
        "E4.7",
        "SA-only",
        _NOISE + " (s = 0 and 0.1 round to splits about equally far from the data's)",
    ),
    _deviation("more_groups", "E4.10", "QI-SA, rounded", _NOISE + " (k = 1 and 2 are level)"),
    _deviation("more_groups", "E4.11", "SA-only", _NOISE + " (k = 1 and 2)"),
    _deviation(
        "binary_better",
        "E4.9",
        "SA-only",
        _NOISE + " (full run: SA-only's binary and ternary errors within about 2 % of each "
        "other, 0.632 vs 0.647 and 0.642 vs 0.641 in two runs; the quick grid separates them)",
        FULL_ONLY,
    ),
    _deviation(
        "qi_sa_poor",
        "E4.3",
        "rounded",
        "quick grid: on its 64-value synthetic domain every relative error is capped near 0.06; "
        "correlated QI-SA sits near the cap and uncorrelated QI-SA at about half of it, so the "
        "ratio hovers around 2 (full run: 0.96 vs 0.20)",
        QUICK_ONLY,
    ),
    _deviation(
        "normal_departure",
        "E4.6",
        "QI-SA",
        "quick grid: on its 64-value domain the narrowest target (r = 4) rounds to 0 : 16 splits "
        "below the root, leaving half of the values without weight; QI-SA's releases then have "
        "a smaller sum of ranges than at r = 1/16 and its error falls at the last step instead "
        "of levelling off as in the full run",
        QUICK_ONLY,
    ),
)


def _fmt(values: Sequence[float]) -> str:
    return ", ".join(f"{v:.3g}" for v in values)


def _non_decreasing(values: Sequence[float]) -> bool:
    v = np.asarray(values, dtype=float)
    return bool(np.all(v[1:] >= v[:-1] * (1 - _SLACK)))


def _lines(results: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every measured line of the results (dicts with ``error``)."""
    stack: list[Any] = [v for k, v in results.items() if k.startswith("E4.")]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "error" in node and "violations" in node:
                yield node
            else:
                stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


# ---------------------------------------------------------------------------------- issue
def _issue(results: dict[str, Any]) -> list[dict[str, Any]]:
    facts = {k: results["E4.1"][k] for k in ADULT_FACTS}
    lines = list(_lines(results))
    queries = sum(sum(x["used"]) for x in lines)
    violations = sum(x["violations"] for x in lines)
    private = [x["p_private"] for x in lines]
    return [
        _line(
            "issue",
            "adult_set",
            "E4.1",
            "real",
            "Adult's capital-loss set: 1,427 records, 89 distinct values, 155–4356",
            facts == ADULT_FACTS,
            ", ".join(f"{k} {v}" for k, v in facts.items()),
            facts,
            paper="1,427 records (the paper's count)",
        ),
        _line(
            "issue",
            "bounds_contain",
            "all",
            None,
            "every AVG bound contains the true answer",
            violations == 0,
            f"{violations} violations in {queries:,} answered queries over {len(lines)} releases",
            {"violations": violations, "queries": queries, "releases": len(lines)},
            paper="0 violations",
            ours=f"{violations} violations",
        ),
        _line(
            "issue",
            "p_private",
            "all",
            None,
            "every release is P-private (exact check of Def. 3.2)",
            all(private),
            f"{sum(private)} of {len(private)} releases checked P-private",
            {"private": sum(private), "releases": len(private)},
            paper="every release",
            ours=f"{sum(private)} of {len(private)} releases",
        ),
    ]


# ---------------------------------------------------------------------------------- E4.1–E4.4
def _fig5(results: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for enc in ENCODINGS:
        sa, qi = (results["E4.1"][enc][m]["error"] for m in PARTITIONS)
        root = results["E4.1"][enc]["QI-SA"]["root_share"]
        out.append(
            _line(
                "paper",
                "sa_only_drops",
                "E4.1",
                enc,
                "SA-only error drops sharply with R (at the widest R below a third of the "
                "narrowest)",
                sa[-1] < sa[0] / 3,
                f"SA-only {sa[0]:.3g} → {sa[-1]:.3g}",
                {"first": sa[0], "last": sa[-1]},
                paper="drops sharply",
            )
        )
        out.append(
            _line(
                "paper",
                "qi_sa_flat",
                "E4.1",
                enc,
                "QI-SA is flat in R (max/min ≤ 1.5) with many entries at the root (≥ 25%)",
                max(qi) <= 1.5 * min(qi) and root >= 0.25,
                f"QI-SA {min(qi):.3g}–{max(qi):.3g}; {100 * root:.0f}% of its entries are the "
                "whole domain",
                {"min": min(qi), "max": max(qi), "root_share": root},
                paper="flat, many entries at the root",
            )
        )
        sa, qi = (results["E4.2"][enc][m]["error"] for m in PARTITIONS)
        out.append(
            _line(
                "paper",
                "qi_sa_accurate",
                "E4.2",
                enc,
                "uncorrelated: QI-SA accurate throughout (flat, max/min ≤ 1.5, and below SA-only "
                "at the narrowest R)",
                max(qi) <= 1.5 * min(qi) and qi[0] < sa[0],
                f"QI-SA {min(qi):.3g}–{max(qi):.3g}; narrowest R: QI-SA {qi[0]:.3g} vs SA-only "
                f"{sa[0]:.3g}",
                {"qi_sa": qi, "sa_only": sa},
                paper="QI-SA accurate throughout",
            )
        )
        out.append(
            _line(
                "paper",
                "sa_only_wins_wide",
                "E4.2",
                enc,
                "uncorrelated: SA-only wins when most records are selected (widest R)",
                sa[-1] < qi[-1],
                f"widest R: SA-only {sa[-1]:.3g} vs QI-SA {qi[-1]:.3g}",
                {"sa_only": sa[-1], "qi_sa": qi[-1]},
                paper="SA-only wins at the widest R",
            )
        )
        sa, qi = (results["E4.3"][enc][m]["error"] for m in PARTITIONS)
        wins = sum(a < b for a, b in zip(sa, qi, strict=True))
        out.append(
            _line(
                "paper",
                "sa_only_consistently",
                "E4.3",
                enc,
                "correlated: SA-only better than QI-SA at every R",
                wins == len(sa),
                f"SA-only lower at {wins} of {len(sa)} widths (SA-only {_fmt(sa)}; QI-SA "
                f"{_fmt(qi)})",
                {"sa_only": sa, "qi_sa": qi},
                paper="SA-only better at every R",
                ours=f"SA-only better at {wins} of {len(sa)} R",
            )
        )
        q_corr = results["E4.3"][enc]["QI-SA"]["mean_error"]
        q_unc = results["E4.2"][enc]["QI-SA"]["mean_error"]
        out.append(
            _line(
                "paper",
                "qi_sa_poor",
                "E4.3",
                enc,
                "correlated: QI-SA poor (mean error at least twice the uncorrelated one)",
                q_corr >= 2 * q_unc,
                f"QI-SA mean error {q_corr:.3g} correlated vs {q_unc:.3g} uncorrelated",
                {"correlated": q_corr, "uncorrelated": q_unc},
                paper="QI-SA poor on correlated data",
                ours=f"{q_corr / q_unc:.3g}x the uncorrelated error",
            )
        )
    out.extend(_fakes_pattern(results, "E4.4", "QI-SA"))
    return out


def _fakes_claim(name: str, m: dict[str, float]) -> tuple[str, bool]:
    """The paper's fake-value pattern for one data set, on mean errors per fake percent."""
    keys = list(m)
    base, shares = m[keys[0]], [m[k] for k in keys[1:]]
    if name == "real":
        few = min(shares[:-1]) if len(shares) > 1 else shares[0]
        return "a few fakes help, the most fakes hurt", few < base and shares[-1] > few
    if name == "uncorrelated":
        return (
            "the fewest fakes help, more hurt",
            shares[0] < base and all(s > shares[0] for s in shares[1:]),
        )
    return "more fakes keep helping", all(
        b < a for a, b in zip([base, *shares], shares, strict=False)
    )


def _fakes_pattern(results: dict[str, Any], exp: str, method: str) -> list[dict[str, Any]]:
    out = []
    for name in SOURCE_SETS:
        for enc in ENCODINGS:
            lines = results[exp][name][enc]
            m = {k: v["mean_error"] for k, v in lines.items()}
            claim, passed = _fakes_claim(name, m)
            out.append(
                _line(
                    "paper",
                    "fakes",
                    exp,
                    f"{name}, {enc}",
                    f"{name}: {claim} ({method}, mean error over R)",
                    passed,
                    "; ".join(f"{k}%: {v:.3g} ({lines[k]['fakes']} fakes)" for k, v in m.items()),
                    m,
                    paper=claim,
                )
            )
    return out


def _fig6(results: dict[str, Any]) -> list[dict[str, Any]]:
    sor = {n: results[e]["exact"]["SA-only"]["sum_of_ranges"] for e, n in _SOURCE_EXPS.items()}
    return [
        _line(
            "paper",
            "no_generalization",
            "E4.5",
            "exact",
            "with target = source, SA-only needs no generalization (sum of ranges 0)",
            all(v == 0 for v in sor.values()),
            "; ".join(f"{n}: {v:g}" for n, v in sor.items()),
            sor,
            paper="sum of ranges 0",
        ),
        *_fakes_pattern(results, "E4.5", "SA-only"),
    ]


# ---------------------------------------------------------------------------------- E4.6–E4.9
def _at(lines: list[dict[str, Any]], index: int) -> list[float]:
    return [x["error"][index] for x in lines]


def _fig7_9(results: dict[str, Any], widths: list[int], focus: int) -> list[dict[str, Any]]:
    i = widths.index(focus)
    out = []
    e46 = results["E4.6"]
    for m in PARTITIONS:
        errs = _at(e46[m], i)
        out.append(
            _line(
                "paper",
                "normal_departure",
                "E4.6",
                m,
                f"{m}: error grows as the normal target departs from the uniform source "
                f"(larger r; R = {focus}, non-decreasing within {100 * _SLACK:g}%)",
                _non_decreasing(errs) and errs[-1] > errs[0],
                f"r = {_fmt(e46['r'])}: {_fmt(errs)}",
                errs,
                paper="error grows with r",
            )
        )
    res = results["E4.7"]
    s, src = res["s"], res["source_s"]
    k = s.index(src)
    for m in PARTITIONS:
        errs = _at(res[m], i)
        passed = (
            int(np.argmin(errs)) == k
            and _non_decreasing(errs[k:])
            and _non_decreasing(errs[: k + 1][::-1])
        )
        out.append(
            _line(
                "paper",
                "zipf_best_at_source",
                "E4.7",
                m,
                f"{m}: error lowest at the source's s = {src:g} and growing away from it "
                f"(R = {focus})",
                passed,
                f"s = {_fmt(s)}: {_fmt(errs)}",
                errs,
                paper=f"lowest at s = {src:g}",
                ours=f"lowest at s = {s[int(np.argmin(errs))]:g}",
            )
        )
    corr = results["E4.8"]
    q, a = _at(corr["QI-SA"], i), _at(corr["SA-only"], i)
    q_unc = _at(results["E4.7"]["QI-SA"], i)
    k = corr["s"].index(corr["source_s"])
    out.append(
        _line(
            "paper",
            "qi_sa_suffers",
            "E4.8",
            None,
            f"correlated Zipf: QI-SA suffers as in E4.3 (worse than SA-only at the source s and "
            f"worse than on uncorrelated data at every s; R = {focus})",
            q[k] > a[k] and all(x > y for x, y in zip(q, q_unc, strict=True)),
            f"QI-SA {_fmt(q)} vs SA-only {_fmt(a)}; QI-SA uncorrelated {_fmt(q_unc)}",
            {"qi_sa": q, "sa_only": a, "qi_sa_uncorrelated": q_unc},
            paper="QI-SA suffers (as E4.3)",
        )
    )
    e49 = results["E4.9"]
    for m in PARTITIONS:
        b, t = e49["binary"][m], e49["ternary"][m]
        out.append(
            _line(
                "paper",
                "binary_better",
                "E4.9",
                m,
                f"{m}: the binary hierarchy gives lower error than the ternary one, with smaller "
                "subdomains (mean error over R, mean entry range)",
                b["mean_error"] < t["mean_error"] and b["mean_range"] < t["mean_range"],
                f"error {b['mean_error']:.3g} vs {t['mean_error']:.3g}; mean range "
                f"{b['mean_range']:.3g} vs {t['mean_range']:.3g}",
                {"binary": b["mean_error"], "ternary": t["mean_error"]},
                paper="binary lower",
            )
        )
    return out


# ---------------------------------------------------------------------------------- E4.10–E4.12
def _groups_line(exp: str, variant: str, m: str, groups: list[int], lines: list[dict]) -> dict:
    errs = [x["mean_error"] for x in lines]
    return _line(
        "paper",
        "more_groups",
        exp,
        variant,
        f"{m}-k: more age groups, lower error (mean over R, k = {', '.join(map(str, groups))})",
        all(b < a for a, b in zip(errs, errs[1:], strict=False)),
        f"k = {', '.join(map(str, groups))}: {_fmt(errs)}",
        errs,
        paper="falls as k grows",
    )


def _fig11_13(results: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    e410, e411 = results["E4.10"], results["E4.11"]
    for enc in ENCODINGS:
        for m in PARTITIONS:
            out.append(_groups_line("E4.10", f"{m}, {enc}", m, e410["groups"], e410[enc][m]))
    for m in PARTITIONS:
        out.append(_groups_line("E4.11", m, m, e411["groups"], e411[m]))
    dom = [x["domain_values"] for x in e411["SA-only"]]
    out.append(
        _line(
            "paper",
            "smaller_hierarchies",
            "E4.11",
            None,
            "more groups, smaller per-group hierarchies (mean number of values)",
            all(b < a for a, b in zip(dom, dom[1:], strict=False)),
            f"k = {', '.join(map(str, e411['groups']))}: {_fmt(dom)} values",
            dom,
            paper="smaller as k grows",
        )
    )
    e412 = results["E4.12"]
    sizes = e412["sizes"]
    for m in PARTITIONS:
        sec = e412[m]["seconds"]
        slope = float(np.log(sec[-1] / sec[-2]) / np.log(sizes[-1] / sizes[-2]))
        out.append(
            _line(
                "paper",
                "linear_time",
                "E4.12",
                m,
                f"{m}: run time grows with the table size, at most linearly (largest above "
                "smallest; log-log slope between the two largest sizes ≤ 1.2)",
                sec[-1] > sec[0] and slope <= 1.2,
                "; ".join(f"{n:,}: {t:.3g} s" for n, t in zip(sizes, sec, strict=True))
                + f"; slope {slope:.2f}",
                {"seconds": sec, "slope": slope},
                paper="linear in the table size",
                ours=f"log-log slope {slope:.2f}",
                timing=True,
            )
        )
    return out


def _literal(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The paper-literal target beside the rounded one: what rounding gives up, what it buys."""
    lit = results.get("E4.literal")
    if not lit:
        return []
    out = []
    for key, exp in (("normal", "E4.6"), ("zipf", "E4.7")):
        gap = lit[key]["gap"]
        tv_lit = max(g["tv"] for g in gap["literal"])
        tv_round = [g["tv"] for g in gap["rounded"]]
        out.append(
            _line(
                "issue",
                "literal_target",
                exp,
                key,
                "the paper-literal encoding (probabilities × 10⁶) is P-private for the target "
                "itself (total variation below 10⁻³, the 10⁶ grid's rounding), the rounded one "
                "only for a nearby target (at least 10 times farther)",
                tv_lit < 1e-3 and max(tv_round) > 10 * tv_lit,
                f"total variation from the target: literal ≤ {tv_lit:.2g}; rounded "
                f"{_fmt(tv_round)}",
                {"literal_tv": tv_lit, "rounded_tv": tv_round},
                paper="the target itself, probabilities × 10⁶ (the paper's encoding)",
            )
        )
        for m in PARTITIONS:
            rounded = [x["mean_error"] for x in results[exp][m]]
            literal = [x["mean_error"] for x in lit[key][m]]
            out.append(
                _line(
                    "issue",
                    "rounding_buys_utility",
                    exp,
                    f"{key}, {m}",
                    "rounding the target buys utility: the mean error with the literal target "
                    "is at least the rounded one's for every target",
                    all(li >= ro * (1 - _SLACK) for li, ro in zip(literal, rounded, strict=True)),
                    f"mean error over widths, rounded {_fmt(rounded)}; literal {_fmt(literal)}",
                    {"rounded": rounded, "literal": literal},
                    paper="— (our comparison: the paper uses its literal encoding only)",
                )
            )
    return out


def run_checks(results: dict[str, Any], widths: list[int], focus: int) -> list[dict[str, Any]]:
    """All check lines, issue checks first."""
    return [
        *_issue(results),
        *_literal(results),
        *_fig5(results),
        *_fig6(results),
        *_fig7_9(results, widths, focus),
        *_fig11_13(results),
    ]
