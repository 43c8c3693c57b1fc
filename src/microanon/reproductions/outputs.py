"""What every reproduction writes besides its report: ``results.json`` in plain JSON types, and
the randomness policy it records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from microanon.apps.io import json_plain

__all__ = ["RNG_POLICY", "check_line", "json_plain", "variant_line", "write_results"]

#: How a reproduction uses randomness (recorded in ``results.json``; never the seed itself).
RNG_POLICY = (
    "one numpy Generator for the whole run, used in a fixed order: from --seed when given "
    "(reproducible research), otherwise from operating-system entropy; the seed is never "
    "recorded"
)


def write_results(directory: Path, results: dict[str, Any]) -> None:
    """Write ``directory/results.json`` (already plain; NaN refused)."""
    (directory / "results.json").write_text(
        json.dumps(results, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
        encoding="utf-8",
    )


def check_line(
    kind: str,
    check: str,
    experiment: str,
    claim: str,
    passed: bool,
    detail: str,
    *,
    paper: str | None = None,
    ours: str | None = None,
    timing: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    """One pass/fail line of a reproduction: ``kind`` (``issue`` or ``paper``), its ``id``, the
    experiment, the claim checked, whether it passed, the numbers behind it, the paper's number or
    finding (``paper``) and ours (``ours``) as shown in the findings table, whether it compares
    run times (``timing``) and any ``extra`` fields (e.g. ``variant``, ``values``).

    A ``timing`` line is a measurement of this machine, reported with whether the paper's speed
    claim held in this run but never checked: it does not set the exit status of ``microanon
    reproduce`` (a loaded machine is no fault of the reproduction) and the test suite does not
    assert it (:func:`~microanon.reproductions.expected.unexpected_failures`).
    """
    return {
        "kind": kind,
        "id": check,
        "experiment": experiment,
        "claim": claim,
        "passed": bool(passed),
        "detail": detail,
        "paper": paper,
        "ours": ours,
        "timing": bool(timing),
        **extra,
    }


def variant_line(
    kind: str,
    check: str,
    experiment: str,
    variant: str | None,
    claim: str,
    passed: bool,
    detail: str,
    values: Any = None,
    *,
    paper: str,
    ours: str | None = None,
    timing: bool = False,
) -> dict[str, Any]:
    """:func:`check_line` with the ``variant`` and ``values`` fields taken by position, as the
    distribution and randomize reproductions write their lines."""
    return check_line(
        kind,
        check,
        experiment,
        claim,
        passed,
        detail,
        paper=paper,
        ours=ours,
        timing=timing,
        variant=variant,
        values=values,
    )
