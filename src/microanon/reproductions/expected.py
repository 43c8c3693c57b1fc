"""Expected deviations: the checks of a reproduction known to fail, each with its reason.

Every reproduction keeps one reviewed list of :class:`Deviation` next to its checks. After the
checks are computed, :func:`mark_expected` records on every check line whether its failure is
expected (``expected``) and why (``reason``); :func:`unexpected_failures` is what makes
``microanon reproduce`` exit with status 1, :func:`outcome` what it prints with ``--json``, and
:func:`verdict` the result cell of the reports.

A check line that compares run times (``timing``, see
:func:`~microanon.reproductions.outputs.check_line`) is a measurement: reported, with whether
the paper's speed claim held in this run, but neither a check that passes or fails the run nor an
expected deviation. The run times of a loaded machine say nothing about the reproduction, so the
exit status and the test suite ignore them; ``benchmarks/`` is where speed is compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "BOTH",
    "EXPECTED_NOTE",
    "FULL_ONLY",
    "MEASURED_NOTE",
    "QUICK_ONLY",
    "Deviation",
    "check_name",
    "checked",
    "mark_expected",
    "outcome",
    "timings",
    "unexpected_failures",
    "verdict",
]

#: Run modes of a reproduction.
BOTH = frozenset({"quick", "full"})
QUICK_ONLY = frozenset({"quick"})
FULL_ONLY = frozenset({"full"})

#: What the reports say about the result column.
EXPECTED_NOTE = (
    "a failure on the reproduction's reviewed list of expected deviations reads 'expected "
    "deviation: <reason>'; any other failure makes microanon reproduce exit with status 1."
)
#: What the reports say about a check line that compares run times.
MEASURED_NOTE = (
    "a timing on this machine: measured and reported, not checked (it never sets the exit "
    "status, and the test suite does not assert it; benchmarks/ compares speed)"
)


@dataclass(frozen=True)
class Deviation:
    """A check of a reproduction that fails for a known, documented reason.

    Parameters
    ----------
    check : str
        The check's ``id``.
    reason : str
        Why it fails (shown in the report as ``expected deviation: <reason>``).
    experiment : str or None, default None
        The check line's ``experiment``; ``None`` matches any.
    variant : str or None, default None
        The check line's ``variant``; ``None`` matches any.
    modes : frozenset of str, default both
        The run modes (``"quick"``, ``"full"``) in which the failure is expected; in any other
        mode the same failure is unexpected.
    """

    check: str
    reason: str
    experiment: str | None = None
    variant: str | None = None
    modes: frozenset[str] = BOTH

    def matches(self, line: dict[str, Any], mode: str) -> bool:
        """Whether this deviation covers the check ``line`` in run ``mode``."""
        return (
            mode in self.modes
            and line["id"] == self.check
            and self.experiment in (None, line.get("experiment"))
            and self.variant in (None, line.get("variant"))
        )


def _mode(quick: bool) -> str:
    return "quick" if quick else "full"


def mark_expected(
    lines: Iterable[dict[str, Any]], deviations: Sequence[Deviation], quick: bool
) -> list[dict[str, Any]]:
    """The check ``lines`` with ``expected`` (bool) and ``reason`` (str or None) added.

    Parameters
    ----------
    lines : iterable of dict
        Check lines as built by :func:`~.outputs.check_line`.
    deviations : sequence of Deviation
        The reproduction's list of expected deviations.
    quick : bool
        Whether this is a ``--quick`` run.

    Returns
    -------
    list of dict
        New check lines; a line is ``expected`` when a deviation covers it in this mode,
        whether or not it failed (one that passes "now passes").
    """
    mode = _mode(quick)
    out = []
    for line in lines:
        hit = next((d for d in deviations if d.matches(line, mode)), None)
        out.append({**line, "expected": hit is not None, "reason": hit and hit.reason})
    return out


def checked(lines: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The check lines that pass or fail the run: all but the timings (:func:`timings`)."""
    return [c for c in lines if not c.get("timing")]


def timings(lines: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The check lines that compare run times: measured and reported, never checked."""
    return [c for c in lines if c.get("timing")]


def unexpected_failures(lines: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The failed check lines no expected deviation covers (timings are never failures)."""
    return [c for c in checked(lines) if not c["passed"] and not c.get("expected")]


def check_name(line: dict[str, Any]) -> str:
    """``id (experiment, variant)`` of a check line, to name it in messages."""
    where = ", ".join(str(line[k]) for k in ("experiment", "variant") if line.get(k))
    return f"{line['id']} ({where})" if where else line["id"]


def verdict(line: dict[str, Any], passed: str = "PASS", failed: str = "FAIL") -> str:
    """The result cell of a check line in a report.

    Parameters
    ----------
    line : dict
        A check line marked by :func:`mark_expected`.
    passed, failed : str
        The words for a plain pass and an unexpected failure.

    Returns
    -------
    str
        ``passed``; ``failed``; ``"expected deviation: <reason>"``; for an expected
        deviation that passed, ``"<passed>, now passes (expected deviation: <reason>)"``; for a
        timing, ``"measured: <passed or failed> in this run (<MEASURED_NOTE>)"``.
    """
    if line.get("timing"):
        return f"measured: {passed if line['passed'] else failed} in this run ({MEASURED_NOTE})"
    if not line.get("expected"):
        return passed if line["passed"] else failed
    if line["passed"]:
        return f"{passed}, now passes (expected deviation: {line['reason']})"
    return f"expected deviation: {line['reason']}"


#: The fields of a check line in :func:`outcome`.
_OUTCOME_FIELDS = (
    "id",
    "kind",
    "experiment",
    "variant",
    "claim",
    "paper",
    "ours",
    "passed",
    "expected",
    "reason",
    "detail",
    "timing",
)


def outcome(name: str, path: Path, results: dict[str, Any]) -> dict[str, Any]:
    """What ``microanon reproduce NAME --json`` prints: one JSON-ready object.

    Parameters
    ----------
    name : str
        The reproduction (``randomization``, ``distribution``, ``multisa``, ``collection``).
    path : pathlib.Path
        The output directory.
    results : dict
        The run's results, with marked check lines (:func:`mark_expected`) and ``meta``.

    Returns
    -------
    dict
        ``reproduction``, ``mode`` (``quick`` / ``full``), ``exit_status`` (1 when a check failed
        that is not an expected deviation, else 0), ``summary`` (counts of the checks, which
        leave out the timings, and the number of ``timings``), ``unexpected_failures`` (names of
        those checks), ``checks`` (every line, timings too: id, kind, experiment, variant,
        claim, paper, ours, passed, expected, reason, detail, timing), ``runtime_seconds`` and
        ``outputs`` (directory, report, results).
    """
    lines = results["checks"]
    checks = checked(lines)
    failed = unexpected_failures(checks)
    return {
        "reproduction": name,
        "mode": _mode(results["meta"]["quick"]),
        "exit_status": 1 if failed else 0,
        "summary": {
            "checks": len(checks),
            "passed": sum(c["passed"] for c in checks),
            "expected_deviations": sum(c["expected"] and not c["passed"] for c in checks),
            "now_passing": sum(c["expected"] and c["passed"] for c in checks),
            "unexpected_failures": len(failed),
            "timings": len(timings(lines)),
        },
        "unexpected_failures": [check_name(c) for c in failed],
        "checks": [{k: c.get(k) for k in _OUTCOME_FIELDS} for c in lines],
        "runtime_seconds": results["meta"]["runtime_seconds"],
        "outputs": {
            "directory": str(path),
            "report": str(path / "report.html"),
            "results": str(path / "results.json"),
        },
    }
