"""The findings table of a reproduction: one row per check, the paper's number against ours.

Built from the check lines a reproduction records (:func:`~.outputs.check_line`, marked by
:func:`~.expected.mark_expected`), so it is the same for every reproduction and for every check,
including checks added later: the experiment (and variant), what is compared (the claim), the
paper's number (``paper``), ours (``ours``, else the check's ``detail``), whether it holds, and for
a failing check the one-line reason from the reviewed list of expected deviations. A line that
compares run times (a timing) shows whether the paper's speed claim held in this run, marked
"measured": it is reported, not checked (:data:`~.expected.MEASURED_NOTE`).
:func:`summarize` condenses the same lines to one row per paper (the demo's "The papers,
reproduced").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pandas as pd

from microanon.apps.report import Report
from microanon.reproductions.expected import MEASURED_NOTE, checked, timings

__all__ = [
    "FINDINGS_COLUMNS",
    "HOLDS",
    "MEASURED",
    "NO_REASON",
    "add_findings",
    "findings_table",
    "summarize",
]

#: The columns of the findings table, in order.
FINDINGS_COLUMNS = ("experiment", "compared", "paper", "ours", "holds", "reason")
#: The ``holds`` cell of a passing and of a failing check.
HOLDS = {True: "✓", False: "✗"}
#: The ``holds`` cell of a timing (a line that compares run times) that held and that did not.
MEASURED = {True: "✓ (measured)", False: "✗ (measured)"}
#: The reason cell of a failing check no expected deviation covers (the command exits with 1).
NO_REASON = "not an expected deviation: microanon reproduce exits with status 1"


def _where(line: dict[str, Any]) -> str:
    variant = line.get("variant")
    return f"{line['experiment']} ({variant})" if variant else str(line["experiment"])


def _reason(line: dict[str, Any]) -> str:
    if line.get("timing"):
        return MEASURED_NOTE
    if line["passed"]:
        if line.get("expected"):
            return f"now passes (listed as an expected deviation: {line['reason']})"
        return ""
    return line["reason"] if line.get("expected") else NO_REASON


def findings_table(checks: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """One row per check line: the columns of :data:`FINDINGS_COLUMNS`.

    Parameters
    ----------
    checks : sequence of dict
        Check lines marked by :func:`~microanon.reproductions.expected.mark_expected`.

    Returns
    -------
    pandas.DataFrame
        ``experiment`` (with the variant in parentheses when there is one), ``compared`` (the
        claim), ``paper`` (the paper's number or finding; ``–`` when the check records none),
        ``ours`` (our number; the check's ``detail`` when it records no ``ours``), ``holds``
        (✓ / ✗; for a timing ✓ / ✗ "(measured)") and ``reason`` (for a failing check, its
        expected deviation's reason; for a timing, :data:`~.expected.MEASURED_NOTE`).
    """
    rows = [
        {
            "experiment": _where(c),
            "compared": c["claim"],
            "paper": c.get("paper") or "–",
            "ours": c.get("ours") or c["detail"],
            "holds": (MEASURED if c.get("timing") else HOLDS)[bool(c["passed"])],
            "reason": _reason(c),
        }
        for c in checks
    ]
    return pd.DataFrame(rows, columns=list(FINDINGS_COLUMNS))


def add_findings(report: Report, checks: Sequence[dict[str, Any]], paper: str) -> None:
    """Add the section "Findings: the paper against our run" with :func:`findings_table`.

    Parameters
    ----------
    report : Report
        The reproduction's report.
    checks : sequence of dict
        The run's marked check lines.
    paper : str
        The paper, as cited in the section's introduction.
    """
    counts = summarize(checks)
    sec = report.section(
        "Findings: the paper against our run",
        f"One row per check of {paper}: the issue's checks (what the reproduction must show) "
        "first, then the paper's findings on our data. 'paper' is the paper's number or "
        "finding, 'ours' the same measured in this run; a failing check (✗) carries the reason "
        "from the reproduction's reviewed list of expected deviations. A row marked 'measured' "
        "compares run times on this machine: it shows whether the paper's speed claim held in "
        "this run, but it is a measurement, not a check (it never fails the run).",
    )
    metrics = {
        "checks passing": f"{counts['passed']} of {counts['checks']}",
        "expected deviations": counts["expected_deviations"],
        "unexpected failures": counts["unexpected_failures"],
    }
    if counts["timings"]:
        metrics["timings (measured, not checked)"] = counts["timings"]
    sec.metrics(metrics)
    sec.table(findings_table(checks), caption=f"{paper}: the paper's numbers against ours.")


def summarize(checks: Sequence[dict[str, Any]], top: int = 3) -> dict[str, Any]:
    """Counts of a run's check lines and the most frequent reasons of its deviations.

    Parameters
    ----------
    checks : sequence of dict
        Marked check lines.
    top : int, default 3
        How many reasons to return.

    Returns
    -------
    dict
        ``checks``, ``passed``, ``expected_deviations`` (failing checks with a reason),
        ``unexpected_failures``, ``reasons``: up to ``top`` ``(reason, number of failing
        checks)`` pairs, most frequent first, and ``timings``: the number of lines that compare
        run times, which the other counts leave out (measured, not checked).
    """
    counted = checked(checks)
    failing = [c for c in counted if not c["passed"]]
    reasons = Counter(c["reason"] for c in failing if c.get("expected"))
    return {
        "checks": len(counted),
        "passed": len(counted) - len(failing),
        "expected_deviations": sum(bool(c.get("expected")) for c in failing),
        "unexpected_failures": sum(not c.get("expected") for c in failing),
        "reasons": reasons.most_common(top),
        "timings": len(timings(checks)),
    }
