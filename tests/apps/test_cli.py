from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from microanon import Release, __version__
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


def test_datasets_list_and_describe_as_json(runner):
    listed = runner.invoke(main, ["datasets", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    names = [d["name"] for d in json.loads(listed.stdout)["datasets"]]
    assert "adult" in names and "nursery" in names
    described = runner.invoke(main, ["datasets", "describe", "adult", "--json"])
    assert described.exit_code == 0, described.output
    doc = json.loads(described.stdout)  # one object: pandas' missing values are null
    age = next(c for c in doc["columns"] if c["column"] == "age")
    assert doc["name"] == "adult" and age["min"] == 17 and age["distinct"] > 50
    assert next(c for c in doc["columns"] if c["column"] == "workclass")["min"] is None


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


def _bad_inputs(d: Path) -> None:
    """The files the bad-input cases read (in ``d``)."""
    pd.DataFrame({"age": [1, 2], "zip": ["a", None], "d": ["x", "y"]}).to_csv(
        d / "t.csv", index=False
    )
    (d / "empty.csv").write_text("")
    (d / "bin.csv").write_bytes(b"\xff\xfe\x00\x01garbage")
    (d / "dup.csv").write_text("zip,age,zip\n1,2,3\n4,5,6\n")
    (d / "dup.tsv").write_text("zip\tage\t d\tage\n1\t2\t3\t4\n")
    salaries = [str(1000 * i) for i in range(19)] + ["?"]
    pd.DataFrame({"age": [30] * 20, "zip": ["a", "b"] * 10, "salary": salaries}).to_csv(
        d / "stray.csv", index=False
    )
    (d / "somefile.txt").write_text("mine")
    (d / "existing.csv").write_text("mine")
    qit = pd.DataFrame({"zipcode": ["a", "b", "c"], "group": [1, 1, 1]})
    st = pd.DataFrame({"group": [1], "low": [10], "high": [20], "count": [3]})
    meta = {"quasi": ["zipcode"], "sensitive": ["salary"]}
    Release("distribution", {"qit": qit, "st": st}, meta).save(d / "rel")
    Release("generalized", {"data": qit}).save(d / "gen")
    (d / "magic.yaml").write_text(
        "data: t.csv\nschema: {age: {role: quasi}, d: {role: sensitive}}\nmethod: magic\n"
    )
    (d / "ok.yaml").write_text(
        "data: t.csv\nschema: {age: {role: quasi}, d: {role: sensitive}}\n"
        "method: anatomy\nparams: {l: 2}\n"
    )
    (d / "dupdata.yaml").write_text(
        "data: dup.csv\nschema: {zip: {role: quasi}, age: {role: sensitive}}\n"
        "method: anatomy\nparams: {l: 2}\n"
    )
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = [pa.array([1, 2]), pa.array([3, 4]), pa.array(["x", "y"])]
    pq.write_table(pa.Table.from_arrays(arrays, names=["zip", "zip", "d"]), d / "dup.parquet")


CHECK = ["check", "{d}/t.csv"]
COUNT = "SELECT COUNT(*) FROM release"
#: Bad command-line input: (arguments, a piece of the message, whether click prints its usage
#: above the error line). ``{d}`` is the directory of the files of :func:`_bad_inputs`. Every
#: case must exit with status 2, print nothing on stdout, exactly one ``Error:`` line (and only
#: that line unless it is a click usage error) and write nothing.
BAD_INPUTS = [
    # check: columns and missing values
    ([*CHECK, "--quasi", "age,nope", "--sensitive", "d"], "'nope' not found", False),
    ([*CHECK, "--quasi", "age", "--sensitive", "d,zip"], "exactly one sensitive", True),
    (
        [*CHECK, "--quasi", "zip", "--sensitive", "d", "--missing", "error"],
        "missing values in column(s) 'zip' (1)",
        False,
    ),
    ([*CHECK, "--quasi", "age", "--sensitive", "d", "--missing", "keep"], "'keep'", True),
    ([*CHECK, "--quasi", "age", "--sensitive", "d", "--distance", "cosine"], "'cosine'", True),
    # check: unreadable files
    (["check", "{d}/none.csv", "--quasi", "a", "--sensitive", "b"], "no such file", False),
    (["check", "{d}/empty.csv", "--quasi", "a", "--sensitive", "b"], "is empty", False),
    (["check", "{d}/bin.csv", "--quasi", "a", "--sensitive", "b"], "not UTF-8", False),
    # check: repeated column names (pandas renamed them zip, zip.1)
    (
        ["check", "{d}/dup.csv", "--quasi", "zip", "--sensitive", "age"],
        "'zip' (columns 1, 3)",
        False,
    ),
    (["check", "{d}/dup.tsv", "--quasi", "zip", "--sensitive", "d"], "'age' (columns 2, 4)", False),
    (
        ["check", "{d}/dup.parquet", "--quasi", "zip", "--sensitive", "d"],
        "'zip' (columns 1, 2)",
        False,
    ),
    # check: a numeric column with a stray string (was silently categorical)
    (["check", "{d}/stray.csv", "--quasi", "age,zip", "--sensitive", "salary"], "e.g. '?'", False),
    # datasets
    (["datasets", "describe", "census"], "unknown data set 'census'", False),
    (["datasets", "export", "census", "{d}/x.csv"], "unknown data set 'census'", False),
    (["datasets", "export", "nursery", "{d}/existing.csv"], "already exists", False),
    (["datasets", "export", "nursery", "{d}/somefile.txt/x.csv"], "is not a directory", False),
    (
        ["datasets", "export", "nursery", "{d}/somefile.txt/a/b.parquet"],
        "is not a directory",
        False,
    ),
    (["datasets", "export", "nursery", "{d}/rel"], "is a directory", True),
    # (it had written CSV under any other name)
    (["datasets", "export", "nursery", "{d}/n.txt"], "name a .csv or .parquet file", True),
    # anonymize
    (
        ["anonymize", "--config", "{d}/magic.yaml", "--out", "{d}/o"],
        "unknown method 'magic'",
        False,
    ),
    (
        ["anonymize", "--config", "{d}/dupdata.yaml", "--out", "{d}/o"],
        "appear more than once",
        False,
    ),
    (["anonymize", "--config", "{d}/none.yaml", "--out", "{d}/o"], "none.yaml", False),
    (["anonymize", "--config", "{d}/ok.yaml", "--out", "{d}/rel"], "already exists", False),
    (["reproduce", "distribution", "--quick", "--out", "{d}/rel"], "already exists", False),
    # query
    (
        ["query", "{d}/rel", "SELECT AVG(salary) FROM release WHERE salary > 1"],
        "sensitive column 'salary'",
        False,
    ),
    (["query", "{d}/rel", "SELEC COUNT(*) FROM release"], "syntax error", False),
    (
        ["query", "{d}/rel", "SELECT zipcode, COUNT(*) FROM release GROUP BY 1"],
        "only list columns",
        False,
    ),
    (["query", "{d}/nothing", COUNT], "no release", False),
    (["query", "{d}/gen", COUNT], "'distribution' release", False),
    (["query", "{d}/rel", COUNT, "--original", "{d}/x.csv"], "no such file", False),
    (["query", "{d}/rel", COUNT, "--original", "{d}/dup.csv"], "appear more than once", False),
    (["query", "{d}/rel", COUNT, "--memory-limit", "lots"], "give a positive size", False),
    (["query", "{d}/rel", COUNT, "--memory-limit", "0GB"], "give a positive size", False),
    (["query", "{d}/rel", COUNT, "--threads", "0"], "--threads", True),
    # collect (refused before any service is contacted)
    (["collect", "submit", "--server", "ftp://x", "age=1"], "http://", False),
    (["collect", "submit", "--server", "http://127.0.0.1:9", "age"], "ATTRIBUTE=VALUE", True),
]


def _files(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


@pytest.mark.parametrize(
    "args, message, usage", BAD_INPUTS, ids=[f"{a[0]}: {m}" for a, m, _ in BAD_INPUTS]
)
def test_bad_input(runner, tmp_path, monkeypatch, args, message, usage):
    """Exit status 2, one clear error line, no traceback, no output file."""
    _bad_inputs(tmp_path)
    monkeypatch.chdir(tmp_path)  # a stray relative write would show up too
    before = _files(tmp_path)
    result = runner.invoke(main, [a.replace("{d}", str(tmp_path)) for a in args])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output
    assert result.stdout == ""
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and message in errors[0], result.stderr
    if not usage:
        assert result.stderr == errors[0] + "\n"
    assert _files(tmp_path) == before


# The whole demo runs once in the suite, from the built wheel: tests/test_wheel.py checks its
# report (every section, nothing external). test_cli_progress.py runs `demo` on a few sections.


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


def test_datasets_export_into_a_read_only_directory(runner, read_only_dir):
    # read_only_dir refuses writes to root too (tests/faults.py): this runs under any user.
    result = runner.invoke(main, ["datasets", "export", "nursery", str(read_only_dir / "x.csv")])
    assert result.exit_code == 2 and "permission denied" in result.stderr.lower()
    assert str(read_only_dir) in result.stderr
    assert len(result.stderr.splitlines()) == 1 and list(read_only_dir.iterdir()) == []


def _salaries(tmp_path, salaries, name="s.csv"):
    n = len(salaries)
    frame = pd.DataFrame(
        {"age": [30 + i % 3 for i in range(n)], "zip": ["a", "b"] * (n // 2), "salary": salaries}
    )
    frame.to_csv(tmp_path / name, index=False)
    return tmp_path / name


def test_check_refuses_a_numeric_column_with_a_stray_string(runner, tmp_path):
    path = _salaries(tmp_path, [str(1000 * i) for i in range(19)] + ["?"])
    args = ["check", str(path), "--quasi", "age,zip", "--sensitive", "salary"]
    result = runner.invoke(main, args)
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1
    message = result.stderr
    assert "column 'salary' is numeric but for 1 of 20 values that are not numbers" in message
    assert "e.g. '?'" in message and "--na-values '?'" in message
    # The two ways out: mark the missing value, or choose the distance (categories) yourself.
    marked = runner.invoke(main, [*args, "--na-values", "?", "--missing", "drop", "--json"])
    assert marked.exit_code == 0, marked.output
    assert json.loads(marked.output)["t_distance"] == "ordered"
    chosen = runner.invoke(main, [*args, "--distance", "equal", "--json"])
    assert chosen.exit_code == 0, chosen.output
    assert json.loads(chosen.output)["t_distance"] == "equal"


def test_check_notes_stray_text_in_a_quasi_identifier(runner, tmp_path):
    """A quasi-identifier's classes are the same read as numbers or as text: a stray string is
    a value of its own, noted on stderr (YRBSS's grade holds 'other' among 9 to 12)."""
    path = _salaries(tmp_path, ["1"] * 20)
    frame = pd.read_csv(path)
    frame["age"] = frame["age"].astype(str)
    frame.loc[[3, 7], "age"] = "unknown"
    frame.to_csv(path, index=False)
    args = ["check", str(path), "--quasi", "age,zip", "--sensitive", "salary", "--json"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert (
        "WARNING: column 'age' is numeric but for 2 of 20 values that are not numbers, e.g. "
        "'unknown': they are read as values of their own" in result.stderr
    )
    assert "--distance" not in result.stderr  # only the sensitive column has a distance
    assert json.loads(result.stdout)["rows"] == 20


def test_check_keeps_text_columns_that_are_not_mostly_numeric(runner, tmp_path):
    """Below 90 % numbers a column is categories (Nursery's children: 1, 2, 3, more)."""
    path = _salaries(tmp_path, [str(i) for i in range(17)] + ["more"] * 3)  # 85 % numbers
    result = runner.invoke(
        main, ["check", str(path), "--quasi", "age,zip", "--sensitive", "salary", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["t_distance"] == "equal"


def test_check_on_bundled_nursery(runner, reference_data):
    """The bundled files still pass: Nursery (no header) has 25 % 'more' among its numbers."""
    path = reference_data / "nursery" / "nursery.data"
    quasi = "parents,has_nurs,form,children"
    args = ["check", str(path), "--quasi", quasi, "--sensitive", "health"]
    headerless = [*args[:2], "--no-header", "--quasi", "0,1,2,3", "--sensitive", "7", "--json"]
    result = runner.invoke(main, headerless)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rows"] == 12960
    # Read with a header, its first record repeats 'convenient': refused, not renamed.
    refused = runner.invoke(main, args)
    assert refused.exit_code == 2 and "'convenient' (columns 5, 6)" in refused.stderr


@pytest.mark.parametrize(
    "values, refused",
    [
        (["1"] * 9 + ["x"], True),  # exactly 90 % numbers
        (["1"] * 8 + ["x", "y"], False),  # 80 %: categories
        ([1.5, "n/a"] + [2] * 18, True),  # Python objects, as from Parquet
        (["1", "2", None, "x"] + ["3"] * 20, True),  # missing values are not counted
        (["a", "b"] * 10, False),
        (["1", "2"] * 10, False),  # all numbers
    ],
)
def test_stray_text_threshold(values, refused):
    """The same share decides whether a sensitive column is refused and a quasi-identifier
    noted."""
    from microanon import InputError
    from microanon.apps.check import stray_text_notes

    data = pd.DataFrame({"v": pd.Series(values, dtype=object)})
    notes = stray_text_notes(data, ["v"])
    assert len(notes) == int(refused)
    if refused:
        assert "column 'v' is numeric but for" in notes[0]
        with pytest.raises(InputError, match="column 'v' is numeric but for"):
            stray_text_notes(data, ["v"], sensitive="v")
    else:
        assert stray_text_notes(data, ["v"], sensitive="v") == []


def test_a_model_of_the_sensitive_column_with_several_says_what_serves_them(tmp_path):
    """ANES 2008 with party id and political interest both sensitive: ℓ-diversity is refused in
    one line naming both columns and the methods made for several sensitive attributes."""
    import yaml
    from real_surveys import survey

    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["stateabb", "educat", "pid7", "polint"]]
    anes.to_csv(tmp_path / "anes.csv", index=False)
    config = {
        "data": "anes.csv",
        "schema": {
            "stateabb": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 4}},
            "educat": {
                "role": "quasi",
                "kind": "categorical",
                "missing": "drop",
                "hierarchy": {"builder": "balanced", "fanout": 2},
            },
            "pid7": {"role": "sensitive", "kind": "categorical", "missing": "keep"},
            "polint": {"role": "sensitive", "kind": "categorical", "missing": "keep"},
        },
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2}}],
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config), "utf-8")
    args = ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out")]
    result = CliRunner().invoke(main, [*args, "-q"])
    assert result.exit_code == 2
    line = result.output.strip()
    assert "\n" not in line and "l-diversity needs exactly one sensitive column" in line
    assert "found 2 (pid7, polint)" in line and "rating or mixed_model" in line
    assert not (tmp_path / "out").exists()
