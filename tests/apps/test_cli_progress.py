"""Progress of the long commands off a terminal (CliRunner's stderr is not one): one line per
stage on stderr, none with --quiet (of the command or of the group), stdout unchanged."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import microanon
from microanon.apps import demo, quiet
from microanon.apps.cli import main

EXAMPLES = Path(microanon.__file__).resolve().parent / "examples" / "adult"
STAGE = re.compile(
    r"^microanon (?P<command>[a-z ]+): \[(?P<i>\d+)/(?P<n>\d+)\] (?P<name>.+)"
    r" \.\.\. done in \d+\.\d s$"
)


@pytest.fixture()
def runner() -> CliRunner:
    return CliRunner()


def _stages(stderr: str, command: str) -> list[str]:
    """The stage names of ``command``'s progress lines, checked to be numbered 1..n of n (the
    run's warnings aside)."""
    lines = [line for line in stderr.splitlines() if not line.startswith("WARNING: ")]
    found = [STAGE.match(line) for line in lines]
    assert all(found), stderr
    assert all(m["command"] == command for m in found), stderr  # type: ignore[index]
    assert [int(m["i"]) for m in found] == list(range(1, len(found) + 1))  # type: ignore[index]
    assert {int(m["n"]) for m in found} <= {len(found)}  # type: ignore[index]
    return [m["name"] for m in found]  # type: ignore[index]


def test_demo_prints_one_line_per_section(runner, tmp_path, monkeypatch):
    monkeypatch.setattr(demo, "DEMO_SECTIONS", demo.DEMO_SECTIONS[:2])  # the two fast ones
    out = tmp_path / "demo"
    result = runner.invoke(main, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"wrote {out / 'report.html'}\n"
    names = _stages(result.stderr, "demo")
    assert names == ["Adult as collected: privacy profile", "Equivalence-class sizes"]


@pytest.mark.parametrize(
    "args", [["demo", "--quiet"], ["demo", "-q"], ["--quiet", "demo"], ["-q", "demo"]]
)
def test_demo_quiet(runner, tmp_path, monkeypatch, args):
    monkeypatch.setattr(demo, "DEMO_SECTIONS", demo.DEMO_SECTIONS[:1])
    out = tmp_path / "demo"
    result = runner.invoke(main, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr == "" and result.stdout == f"wrote {out / 'report.html'}\n"


def _small_config(tmp_path: Path) -> Path:
    """Full-domain generalization of 1,500 records of ARX's Adult on three quasi-identifiers."""
    from microanon.datasets import load_arx_adult

    columns = ["sex", "age", "race", "occupation"]
    load_arx_adult()[columns].sample(1500, random_state=5).to_csv(
        tmp_path / "sample.csv", index=False
    )
    (tmp_path / "hierarchies").symlink_to(EXAMPLES / "hierarchies")
    doc = yaml.safe_load((EXAMPLES / "full_domain.yaml").read_text())
    doc.update(
        data="sample.csv",
        schema={c: doc["schema"][c] for c in columns},
        models=[{"k_anonymity": {"k": 5}}],
    )
    path = tmp_path / "small.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_anonymize_reports_its_stages_and_keeps_stdout_json(runner, tmp_path):
    config = _small_config(tmp_path)
    args = ["anonymize", "--config", str(config), "--json"]
    result = runner.invoke(main, [*args, "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["verified"] is True
    names = _stages(result.stderr, "anonymize")
    assert names == [
        "read 1,500 records",
        "method full_domain",
        "schema lint (beside the method)",
        "write the release",
        "verify the written files",
        "reports",
    ]
    quiet_run = runner.invoke(main, [*args, "--out", str(tmp_path / "q"), "--quiet"])
    assert quiet_run.exit_code == 0, quiet_run.output
    quiet = quiet_run.stderr.splitlines()  # (no progress: the run's warnings only)
    assert all(line.startswith("WARNING: ") for line in quiet), quiet_run.stderr
    assert json.loads(quiet_run.stdout)["verified"] is True
    for run in (result, quiet_run):  # each stage's seconds, with or without progress lines
        seconds = json.loads(run.stdout)["seconds"]
        assert list(seconds) == ["read", "method", "lint", "write", "verify", "reports"]
        assert all(s >= 0 for s in seconds.values())


def test_anonymize_on_dask_reports_every_stage(runner, tmp_path, scheduler):
    # The search, the lint on a sample and the reports are most of a Dask run's time on a
    # survey file: each has its line, as the in-memory run's stages have.
    config = _small_config(tmp_path)
    args = ["anonymize", "--config", str(config), "--engine", "dask", "--scheduler", scheduler]
    result = runner.invoke(main, [*args, "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    line = re.compile(r"^microanon anonymize: (?P<name>.+) \.\.\. done in \d+\.\d s$")
    names = [m["name"] for m in map(line.match, result.stderr.splitlines()) if m]
    assert names == [
        "schema lint (on a sample)",
        "encode",
        "frequency table",
        "search",
        "write",
        "rows to files drawn at random",
        "each file sorted by value",
        "read back",
        "frequency table of the written files",
        "reports",
    ], result.stderr


def test_check_and_risk_report_their_stages_on_big_tables(runner, tmp_path, monkeypatch):
    from microanon.datasets import load_arx_adult

    path = tmp_path / "adult.csv"
    load_arx_adult().head(2000).to_csv(path, index=False)
    check = ["check", str(path), "--quasi", "sex,age", "--sensitive", "occupation", "--json"]
    risk = ["risk", str(path), "--quasi", "sex,age", "--no-suda", "--json"]
    small = runner.invoke(main, check)  # below BIG_TABLE_BYTES: quick, so no progress
    assert small.exit_code == 0 and small.stderr == "", small.output
    monkeypatch.setattr(quiet, "BIG_TABLE_BYTES", 0)  # every file is big
    for args, command, computed in (
        (check, "check", "privacy profile"),
        (risk, "risk", "risk profile"),
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        assert _stages(result.stderr, command) == ["read adult.csv", computed]
        assert json.loads(result.stdout)  # stdout is the JSON alone
        silent = runner.invoke(main, [*args, "-q"])
        assert silent.exit_code == 0 and silent.stderr == "", silent.output
        assert json.loads(silent.stdout) == json.loads(result.stdout)


def test_check_error_on_a_big_table_is_one_line(runner, tmp_path, monkeypatch):
    """A stage that fails prints no progress line: the error is the only line."""
    from microanon.datasets import load_arx_adult

    path = tmp_path / "adult.csv"
    load_arx_adult().head(50).to_csv(path, index=False)
    monkeypatch.setattr(quiet, "BIG_TABLE_BYTES", 0)
    result = runner.invoke(main, ["check", str(path), "--quasi", "nope", "--sensitive", "sex"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [result.stderr.strip()]
    assert result.stderr.startswith("Error: ") and "'nope'" in result.stderr
