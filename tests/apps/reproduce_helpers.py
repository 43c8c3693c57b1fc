"""What the tests of the ``microanon reproduce`` commands share: one quick run through the CLI,
every key of a results document, and the exit status and ``--json`` output of a run replayed
through the CLI (without computing it again)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from markupsafe import escape

from microanon.apps.cli import main
from microanon.reproductions import runner
from microanon.reproductions.catalog import PAPERS
from microanon.reproductions.expected import Deviation, check_name, mark_expected
from microanon.reproductions.findings import FINDINGS_COLUMNS, HOLDS, MEASURED

#: Each reproduction's list of expected deviations.
DEVIATIONS: dict[str, tuple[Deviation, ...]] = {
    name: tuple(paper.pieces().deviations) for name, paper in PAPERS.items()
}


def run_quick(tmp_path_factory: Any, name: str, seed: str) -> tuple[Path, str, dict[str, Any]]:
    """``microanon reproduce NAME --quick --seed SEED`` into a fresh directory: the directory,
    the command's output and the parsed ``results.json``."""
    out = tmp_path_factory.mktemp("reproduce") / name
    result = CliRunner().invoke(
        main, ["reproduce", name, "--quick", "--out", str(out), "--seed", seed]
    )
    assert result.exit_code == 0, result.output
    return out, result.output, json.loads((out / "results.json").read_text(encoding="utf-8"))


def all_keys(obj: Any) -> Iterator[Any]:
    """Every mapping key anywhere in a JSON-like document."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from all_keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from all_keys(v)


def replay(monkeypatch: Any, name: str, results: dict[str, Any], *args: str) -> Result:
    """``microanon reproduce NAME --out DIR ARGS`` with the runner replaced by one that returns
    ``results`` at once: the command's output and exit status for given check lines."""
    monkeypatch.setattr(runner, "run", lambda command, out, **_: (Path(out), results))
    return CliRunner().invoke(main, ["reproduce", name, "--out", "unused", *args])


def check_expected_deviations(monkeypatch: Any, name: str, quick_run: Any) -> None:
    """The quick run fails only as expected deviations (with reasons), each quick-mode deviation
    names a check of the run, ``--json`` prints one object, and a failure that is not expected
    (a flipped check, or a deviation taken off the list) exits with status 1 naming the check.

    Lines that compare run times (``timing``) are measurements of the machine, not checks: their
    outcome is never asserted here, and flipping one changes nothing.
    """
    _, _, results = quick_run
    checks = results["checks"]
    names = [(c["id"], c["experiment"], c.get("variant")) for c in checks]
    assert len(set(names)) == len(names)  # every check can be named on its own
    for c in checks:
        assert isinstance(c["expected"], bool) and isinstance(c["timing"], bool)
        assert not (c["timing"] and c["expected"]), check_name(c)  # a timing is no deviation
        assert c["timing"] or c["passed"] or (c["expected"] and c["reason"]), check_name(c)
    for d in DEVIATIONS[name]:
        assert d.reason and d.modes <= {"quick", "full"}
        if "quick" in d.modes:
            assert any(d.matches(c, "quick") for c in checks), d

    shown = replay(monkeypatch, name, results, "--json")
    assert shown.exit_code == 0, shown.output
    doc = json.loads(shown.stdout)
    assert doc["reproduction"] == name and doc["mode"] == "quick" and doc["exit_status"] == 0
    assert [c["id"] for c in doc["checks"]] == [c["id"] for c in checks]
    assert doc["outputs"]["report"].endswith("report.html") and not doc["unexpected_failures"]
    expected = [c for c in doc["checks"] if c["expected"] and not c["passed"]]
    assert doc["summary"]["expected_deviations"] == len(expected)
    assert doc["summary"]["timings"] == sum(c["timing"] for c in checks)

    flipped = copy.deepcopy(results)
    victim = next(
        c for c in flipped["checks"] if c["passed"] and not (c["expected"] or c["timing"])
    )
    victim["passed"] = False
    text = replay(monkeypatch, name, flipped)
    assert text.exit_code == 1
    assert f"check {check_name(victim)} failed and is not an expected deviation" in text.stderr

    slow = copy.deepcopy(results)  # every timing failed (a loaded machine): still exit status 0
    for c in slow["checks"]:
        c["passed"] = c["passed"] and not c["timing"]
    assert replay(monkeypatch, name, slow).exit_code == 0

    failed = next(c for c in checks if c["expected"] and not c["passed"])
    shorter = [d for d in DEVIATIONS[name] if not d.matches(failed, "quick")]
    unlisted = {**results, "checks": mark_expected(checks, shorter, quick=True)}
    shown = replay(monkeypatch, name, unlisted, "--json")
    assert shown.exit_code == 1 and json.loads(shown.stdout)["exit_status"] == 1
    assert check_name(failed) in json.loads(shown.stdout)["unexpected_failures"]
    assert check_name(failed) in shown.stderr


def findings_rows(html: str) -> tuple[list[str], list[list[str]]]:
    """The header and body rows of the findings table in a reproduction's report.html."""
    start = html.index("the paper&#39;s numbers against ours.</caption>")
    table = html[start : html.index("</table>", start)]
    head = re.findall(r"<th>(.*?)</th>", table)
    body = table[table.index("<tbody>") :]
    rows = [re.findall(r"<td>(.*?)</td>", row, re.S) for row in body.split("<tr>")[1:]]
    return head, rows


def check_findings_table(quick_run: Any) -> None:
    """The report's findings table has one row per check, in order, with the paper's number,
    ours and ✓ / ✗ (a timing's marked "measured", whichever it is); every failing check's row
    carries its expected deviation's reason."""
    out, _, results = quick_run
    head, rows = findings_rows((out / "report.html").read_text(encoding="utf-8"))
    assert head == list(FINDINGS_COLUMNS)
    checks = results["checks"]
    assert len(rows) == len(checks)
    for row, c in zip(rows, checks, strict=True):
        cells = dict(zip(head, row, strict=True))
        assert cells["holds"] == (MEASURED if c["timing"] else HOLDS)[c["passed"]]
        assert cells["experiment"].startswith(c["experiment"])
        assert c["paper"] and cells["paper"] == html_escape(c["paper"]), check_name(c)
        assert cells["ours"] == html_escape(c["ours"] or c["detail"])
        if not c["passed"] and not c["timing"]:
            assert cells["reason"] == html_escape(c["reason"])


def html_escape(text: str) -> str:
    """``text`` as the report writes it into a table cell."""
    return str(escape(text))
