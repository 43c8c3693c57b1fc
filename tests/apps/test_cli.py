from __future__ import annotations

import json
import os

import pandas as pd
import pytest
from click.testing import CliRunner

from microanon import __version__
from microanon.apps.cli import main

ADULT_QI = "sex,age,race,marital-status,education,native-country,workclass,salary-class"


@pytest.fixture()
def runner() -> CliRunner:
    return CliRunner()


def test_version(runner):
    result = runner.invoke(main, ["--version"])
    assert result.exit_code == 0 and __version__ in result.output


def test_datasets_list_and_describe(runner):
    listed = runner.invoke(main, ["datasets", "list"])
    assert listed.exit_code == 0
    assert "adult" in listed.output and "nursery" in listed.output
    described = runner.invoke(main, ["datasets", "describe", "nursery"])
    assert described.exit_code == 0 and "has_nurs" in described.output
    bad = runner.invoke(main, ["datasets", "describe", "census"])
    assert bad.exit_code == 2 and "census" in bad.output


def test_microanon_errors_exit_2_with_one_line_on_stderr(runner):
    """Bad input is exit status 2 (1 is for privacy requirements), one line, no traceback."""
    result = runner.invoke(main, ["datasets", "describe", "census"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1
    assert "census" in result.stderr and "Traceback" not in result.output


def test_os_errors_on_user_paths_exit_2(runner, tmp_path, monkeypatch):
    """An OSError escaping a command (here: permission denied) is one line and exit status 2."""
    import microanon.datasets as datasets

    def refuse(name):
        raise PermissionError(13, "Permission denied", str(tmp_path / "locked"))

    monkeypatch.setattr(datasets, "describe", refuse)
    result = runner.invoke(main, ["datasets", "describe", "adult"])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"Error: {tmp_path / 'locked'}: Permission denied\n"


def test_check_json_on_arx_adult(runner, reference_data):
    path = reference_data / "arx-adult" / "adult.csv"  # ';'-separated: the delimiter is detected
    result = runner.invoke(
        main, ["check", str(path), "--quasi", ADULT_QI, "--sensitive", "occupation", "--json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    for key in (
        "rows",
        "classes",
        "k",
        "l_distinct",
        "l_entropy",
        "t_closeness",
        "uniques",
        "risk_max",
        "risk_avg",
    ):
        assert key in out
    assert out["rows"] == 30162 and out["classes"] == 12458 and out["k"] == 1
    assert out["uniques"] == 8841 and out["risk_max"] == 1.0
    assert out["risk_avg"] == pytest.approx(12458 / 30162)


def test_check_table_output(runner, tmp_path):
    df = pd.DataFrame(
        {"age": [30, 30, 40, 40], "zip": ["a", "a", "b", "b"], "d": ["x", "y", "x", "y"]}
    )
    df.to_csv(tmp_path / "t.tsv", sep="\t", index=False)
    result = runner.invoke(
        main, ["check", str(tmp_path / "t.tsv"), "--quasi", "age,zip", "--sensitive", "d"]
    )
    assert result.exit_code == 0, result.output
    assert "k = 2" in result.output and "distinct l-diversity" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--quasi", "age,nope", "--sensitive", "d"], "'nope' not found"),
        (["--quasi", "age", "--sensitive", "d,zip"], "exactly one sensitive"),
        (["--quasi", "zip", "--sensitive", "d"], "column 'zip' has 1 missing"),
    ],
)
def test_check_bad_input(runner, tmp_path, args, message):
    pd.DataFrame({"age": [1, 2], "zip": ["a", None], "d": ["x", "y"]}).to_csv(
        tmp_path / "t.csv", index=False
    )
    result = runner.invoke(main, ["check", str(tmp_path / "t.csv"), *args])
    assert result.exit_code != 0
    assert message in result.output


def test_check_unreadable_and_empty_files(runner, tmp_path):
    missing = runner.invoke(
        main, ["check", str(tmp_path / "none.csv"), "--quasi", "a", "--sensitive", "b"]
    )
    assert missing.exit_code != 0 and "no such file" in missing.output
    (tmp_path / "empty.csv").write_text("")
    empty = runner.invoke(
        main, ["check", str(tmp_path / "empty.csv"), "--quasi", "a", "--sensitive", "b"]
    )
    assert empty.exit_code != 0 and "empty" in empty.output
    (tmp_path / "bin.csv").write_bytes(b"\xff\xfe\x00\x01garbage")
    binary = runner.invoke(
        main, ["check", str(tmp_path / "bin.csv"), "--quasi", "a", "--sensitive", "b"]
    )
    assert binary.exit_code != 0 and "cannot read" in binary.output


def test_demo_writes_a_self_contained_report(runner, tmp_path):
    out = tmp_path / "demo"
    result = runner.invoke(main, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = (out / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "data:image/png;base64," in html
    assert "privacy profile" in html and "Equivalence-class sizes" in html
    assert 'src="http' not in html and 'href="http' not in html  # nothing external
    assert sorted(p.name for p in out.iterdir()) == ["report.html"]


def test_datasets_export_writes_atomically(runner, tmp_path, monkeypatch):
    out = tmp_path / "adult.csv"
    result = runner.invoke(main, ["datasets", "export", "nursery", str(out)])
    assert result.exit_code == 0, result.output
    assert [p.name for p in tmp_path.iterdir()] == ["adult.csv"]  # no temporary left behind
    again = runner.invoke(main, ["datasets", "export", "nursery", str(out)])
    assert again.exit_code == 2 and "already exists" in again.stderr

    def half_then_fail(self, path, **kwargs):  # a write that dies halfway
        with open(path, "w") as fh:
            fh.write("parents,has_nurs\nusual,pro")
        raise RuntimeError("killed while writing")

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_fail)
    failed = runner.invoke(main, ["datasets", "export", "nursery", str(tmp_path / "n.csv")])
    assert isinstance(failed.exception, RuntimeError)
    assert [p.name for p in tmp_path.iterdir()] == ["adult.csv"]  # no partial file, no temporary


def test_datasets_export_killed_leaves_no_file_under_the_final_name(tmp_path):
    """A process killed mid-write (no cleanup runs) leaves no truncated OUT."""
    import subprocess
    import sys

    script = (
        "import os, sys, pandas as pd\n"
        "from microanon.apps.cli import main\n"
        "def half_then_die(self, path, **kwargs):\n"
        "    with open(path, 'w') as fh:\n"
        "        fh.write('parents,has_nurs\\nusual,pro')\n"
        "    os._exit(9)\n"
        "pd.DataFrame.to_csv = half_then_die\n"
        "main(['datasets', 'export', 'nursery', sys.argv[1]])\n"
    )
    out = tmp_path / "nursery.csv"
    done = subprocess.run([sys.executable, "-c", script, str(out)], timeout=120)
    assert done.returncode == 9
    assert not out.exists()


@pytest.mark.parametrize("where", ["somefile.txt/x.csv", "somefile.txt/deeper/x.parquet"])
def test_datasets_export_under_a_regular_file(runner, tmp_path, where):
    (tmp_path / "somefile.txt").write_text("mine")
    result = runner.invoke(main, ["datasets", "export", "nursery", str(tmp_path / where)])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert result.stderr.splitlines() == [
        f"Error: cannot write {tmp_path / where}: {tmp_path / 'somefile.txt'} is not a directory"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["somefile.txt"]
    assert (tmp_path / "somefile.txt").read_text() == "mine"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_datasets_export_into_a_read_only_directory(runner, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = runner.invoke(main, ["datasets", "export", "nursery", str(locked / "x.csv")])
    finally:
        locked.chmod(0o700)
    assert result.exit_code == 2 and "Permission denied" in result.stderr
    assert len(result.stderr.splitlines()) == 1 and list(locked.iterdir()) == []
