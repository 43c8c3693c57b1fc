"""``microanon init``: profile, roles with their rule, hierarchies, a config anonymize runs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from microanon import Hierarchy, Release
from microanon.apps.cli import main
from microanon.apps.config import load_config
from microanon.apps.init import dialogue
from microanon.apps.init.hierarchies import plan_hierarchy
from microanon.apps.init.profile import normalized_name, profile_column
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role


@pytest.fixture()
def runner() -> CliRunner:
    return CliRunner()


def _schema(config: Path) -> dict:
    return yaml.safe_load(config.read_text(encoding="utf-8"))["schema"]


def _models(config: Path) -> list:
    return yaml.safe_load(config.read_text(encoding="utf-8"))["models"]


def _one_line_error(result) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.output


def _patients(n: int = 300, seed: int = 7) -> pd.DataFrame:
    """An ID, ZIP codes (some with a leading zero), a numeric column, a diagnosis."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "patient_id": np.arange(5000, 5000 + n),
            "zip": rng.choice(["13053", "13068", "14850", "02139", "02141"], n),
            "weight": rng.normal(75, 12, n).round(1),
            "age": rng.integers(18, 90, n),
            "diagnosis": rng.choice(["flu", "asthma", "diabetes", "hypertension"], n),
        }
    )


def _anonymize(runner: CliRunner, config: Path, out: Path) -> dict:
    args = ["anonymize", "--config", str(config), "--out", str(out), "--json"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_adult_export_init_anonymize_verifies(runner, tmp_path):
    data = tmp_path / "adult.csv"
    assert runner.invoke(main, ["datasets", "export", "arx_adult", str(data)]).exit_code == 0
    config = tmp_path / "cfg" / "adult.yaml"
    result = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    assert "microanon anonymize --config" in result.stdout and str(config) in result.stdout
    schema = _schema(config)
    quasi = [c for c, d in schema.items() if d["role"] == "quasi"]
    assert set(quasi) == {
        "sex", "age", "race", "marital_status", "education", "native_country", "workclass"
    }  # fmt: skip
    assert schema["occupation"]["role"] == "sensitive"
    assert schema["salary_class"]["role"] == "sensitive"  # both are: no l-diversity claimed
    assert schema["age"]["hierarchy"] == {"builder": "intervals", "widths": [5, 10, 20]}
    assert schema["education"]["hierarchy"] == "hierarchies/education.csv"  # the bundled one
    bundled = Hierarchy.from_arx_csv(config.parent / "hierarchies" / "education.csv")
    assert bundled.generalize(["Bachelors"], 1)[0] == "Undergraduate"
    doc = yaml.safe_load(config.read_text(encoding="utf-8"))
    assert doc["data"] == "../adult.csv" and doc["method"] == "full_domain"
    assert doc["models"] == [{"k_anonymity": {"k": 5}}]
    assert "2 sensitive columns (occupation, salary_class)" in result.stderr
    out = tmp_path / "release"
    numbers = _anonymize(runner, config, out)
    assert numbers["verified"] is True
    assert Release.load(out / "public").metadata["method"] == "full_domain"


def test_synthetic_roles_reasons_and_zip_masking(runner, tmp_path):
    data = tmp_path / "patients.csv"
    _patients().to_csv(data, index=False)
    config = tmp_path / "patients.yaml"
    result = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    schema = _schema(config)
    assert {c: d["role"] for c, d in schema.items()} == {
        "patient_id": "identifier",
        "zip": "quasi",
        # 75 kg +- 12 to one decimal: near-unique on 300 rows, but measured, not a code
        "weight": "sensitive",
        "age": "quasi",
        "diagnosis": "sensitive",
    }
    assert schema["age"]["kind"] == "numeric" and schema["age"]["hierarchy"]["builder"] in (
        "intervals",
        "quantiles",
    )
    # Codes some of which start with 0 are read as text (02139, not 2139): every one five
    # digits, masked by the builder from the data.
    assert schema["zip"]["hierarchy"] == {"builder": "masking", "max_masked": 4}
    text = config.read_text(encoding="utf-8")
    assert "name rule: 'patient_id' looks like a record or person identifier" in text
    assert "measurement rule: 209 distinct values on 300 rows, near-unique, but 89% of" in text
    assert "looks like health data" in text and "a guess from the name" in text
    assert "masking of trailing digits" in text
    assert _models(config) == [{"k_anonymity": {"k": 5}}]
    assert "2 sensitive columns (weight, diagnosis)" in result.stderr
    # the body weight stated an identifier: one sensitive column, l-diversity claimed for it
    stated = tmp_path / "stated.yaml"
    args = ["init", str(data), "--out", str(stated), "--yes", "--identifiers", "weight"]
    assert runner.invoke(main, args).exit_code == 0
    assert "every class holds at least 3 distinct known values of it, or none" in (
        stated.read_text(encoding="utf-8")
    )
    assert _models(stated) == [
        {"k_anonymity": {"k": 5}},
        {"l_diversity": {"l": 3, "form": "distinct"}},
    ]
    table = result.stdout.splitlines()
    assert table[0].split()[:2] == ["column", "type"]
    assert any(line.split()[:2] == ["zip", "code"] for line in table)
    assert _anonymize(runner, config, tmp_path / "release")["verified"] is True
    published = pd.read_csv(tmp_path / "release" / "public" / "data.csv", dtype=str)["zip"]
    assert any(z.startswith("0") for z in published)  # 02139's zero kept


def test_fixed_width_codes_dates_and_missing_values(runner, tmp_path):
    rng = np.random.default_rng(3)
    n = 240
    frame = pd.DataFrame(
        {
            "postcode": rng.choice(["75001", "75002", "69001", "13001"], n),
            "admitted": pd.Timestamp("2019-01-01")
            + pd.to_timedelta(rng.integers(0, 900, n), unit="D"),
            "ward": rng.choice(["A", "B", "C", None], n),
            "disease": rng.choice(["x", "y", "z"], n),
        }
    )
    frame["admitted"] = frame["admitted"].dt.strftime("%Y-%m-%d")
    data = tmp_path / "stays.csv"
    frame.to_csv(data, index=False)
    config = tmp_path / "stays.yaml"
    result = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    schema = _schema(config)
    assert schema["postcode"]["hierarchy"] == {"builder": "masking", "max_masked": 4}
    assert schema["admitted"]["role"] == "quasi"  # the dates rule
    dates = Hierarchy.from_arx_csv(tmp_path / schema["admitted"]["hierarchy"])
    day = frame["admitted"].iloc[0]
    assert dates.generalize([day], 1)[0] == day[:7] and dates.generalize([day], 2)[0] == day[:4]
    assert schema["ward"] == {
        "role": "quasi",
        "hierarchy": "hierarchies/ward.csv",
        "missing": "value",
    }
    assert Hierarchy.from_arx_csv(tmp_path / "hierarchies" / "ward.csv").contains("?")
    assert load_config(config).schema.quasi == ["postcode", "admitted", "ward"]
    assert _anonymize(runner, config, tmp_path / "release")["verified"] is True


def test_interactive_roles_can_be_changed(runner, tmp_path, monkeypatch):
    data = tmp_path / "patients.csv"
    _patients(120).to_csv(data, index=False)
    config = tmp_path / "c.yaml"
    monkeypatch.setattr(dialogue, "stdin_is_terminal", lambda: True)
    # Refuse the proposal, then per column: keep, keep, weight -> quasi, keep, keep.
    answers = "n\n\n\nquasi\n\n\n"
    result = runner.invoke(main, ["init", str(data), "--out", str(config)], input=answers)
    assert result.exit_code == 0, result.output
    assert "Use these roles?" in result.output and "role of weight" in result.output
    schema = _schema(config)
    assert schema["weight"]["role"] == "quasi"
    assert schema["weight"]["hierarchy"]["builder"] == "quantiles"  # fractional values
    assert schema["patient_id"]["role"] == "identifier"
    assert "chosen by the user (proposed sensitive: measurement rule" in config.read_text()
    # A role the lint refuses is written as chosen, with a warning and a note saying so.
    other = tmp_path / "d.yaml"
    answers = "n\ninsensitive\n\n\n\n\n"
    result = runner.invoke(main, ["init", str(data), "--out", str(other)], input=answers)
    assert result.exit_code == 0, result.output
    assert "WARNING: schema lint: patient_id: near_unique" in result.stderr
    assert _schema(other)["patient_id"] == {"role": "insensitive", "kind": "numeric"}
    assert "# note: schema lint: near_unique: 120 distinct values" in other.read_text()


def test_interactive_accepting_and_yes_ask_nothing(runner, tmp_path, monkeypatch):
    data = tmp_path / "patients.csv"
    _patients(60).to_csv(data, index=False)
    monkeypatch.setattr(dialogue, "stdin_is_terminal", lambda: True)
    asked = runner.invoke(main, ["init", str(data), "--out", str(tmp_path / "a.yaml")], input="\n")
    assert asked.exit_code == 0 and "Use these roles?" in asked.output
    told = runner.invoke(main, ["init", str(data), "--out", str(tmp_path / "b.yaml"), "--yes"])
    assert told.exit_code == 0 and "Use these roles?" not in told.output
    assert _schema(tmp_path / "a.yaml") == _schema(tmp_path / "b.yaml")
    monkeypatch.setattr(dialogue, "stdin_is_terminal", lambda: False)
    piped = runner.invoke(main, ["init", str(data), "--out", str(tmp_path / "c.yaml")])
    assert piped.exit_code == 0 and "Use these roles?" not in piped.output


def test_refuses_to_overwrite_what_init_did_not_write(runner, tmp_path):
    data = tmp_path / "patients.csv"
    regions = np.resize(["north", "south", "east", "west"], 60)
    _patients(60).assign(region=regions).to_csv(data, index=False)  # a flat hierarchy file
    config = tmp_path / "c.yaml"
    args = ["init", str(data), "--out", str(config), "--yes"]
    assert runner.invoke(main, args).exit_code == 0
    first = config.read_text()
    refused = runner.invoke(main, args)
    _one_line_error(refused)
    assert "already exist" in refused.stderr and "--overwrite" in refused.stderr
    assert runner.invoke(main, [*args, "--overwrite"]).exit_code == 0  # init's own, unchanged
    assert config.read_text() == first
    # An edited hierarchy file, or a config init did not write, is never replaced.
    regions = tmp_path / "hierarchies" / "region.csv"
    regions.write_text(regions.read_text() + "centre;*\n")
    edited = regions.read_text()
    _one_line_error(refused := runner.invoke(main, [*args, "--overwrite"]))
    assert "region.csv was not written by microanon init" in refused.stderr
    assert regions.read_text() == edited and config.read_text() == first
    mine = tmp_path / "mine.yaml"
    mine.write_text("# my own config\n")
    _one_line_error(runner.invoke(main, ["init", str(data), "--out", str(mine), "--overwrite"]))
    assert mine.read_text() == "# my own config\n"
    _one_line_error(runner.invoke(main, ["init", str(data), "--out", str(data), "--overwrite"]))
    assert pd.read_csv(data).shape == (60, 6)


@pytest.mark.parametrize(
    "content",
    [None, "", "a,b\n", "a,b\n1.5,x\ninf,y\n"],
    ids=["missing", "empty", "no-rows", "inf"],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(runner, tmp_path, content):
    data = tmp_path / "data.csv"
    if content is not None:
        data.write_text(content)
    result = runner.invoke(main, ["init", str(data), "--out", str(tmp_path / "c.yaml"), "--yes"])
    _one_line_error(result)
    assert "data.csv" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if content is None else ["data.csv"])


def test_several_sensitive_names_all_stay_sensitive():
    rng = np.random.default_rng(1)
    n = 200
    frame = pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "income": rng.lognormal(10, 1, n).round(-2),
            "diagnosis": rng.choice(["a", "b", "c"], n),
            "religion": rng.choice(["p", "q", "r", "s"], n),
        }
    )
    profiles = [profile_column(frame[c]) for c in frame.columns]
    roles = {p.column: p for p in propose_roles(frame, profiles)}
    for column in ("income", "diagnosis", "religion"):
        assert roles[column].role is Role.SENSITIVE and roles[column].rule == "name"


def test_the_lint_turns_a_column_that_restores_a_quasi_identifier_into_one():
    rng = np.random.default_rng(2)
    n = 400
    education = rng.choice(["primary", "secondary", "tertiary", "doctorate"], n)
    frame = pd.DataFrame(
        {
            "education": education,
            # 80 labels, each naming one education level: not near-unique, too many values for
            # the moderate rule, but it gives education away.
            "track": [f"{e}-{i % 20}" for i, e in enumerate(education)],
        }
    )
    profiles = [profile_column(frame[c]) for c in frame.columns]
    roles = {p.column: p for p in propose_roles(frame, profiles)}
    assert roles["education"].role is Role.QUASI and roles["education"].rule == "name"
    assert roles["track"].role is Role.QUASI and roles["track"].rule == "lint:determines_quasi"
    assert "first proposed insensitive" in roles["track"].reason


def test_profiles():
    assert normalized_name("PatientID") == "_patient_id_"
    assert normalized_name("native-country") == "_native_country_"
    numbers = profile_column(pd.Series([1, 2, 2, 3, None], name="n"))
    assert (numbers.type, numbers.distinct, numbers.integer) == ("numeric", 3, True)
    assert numbers.unique_share == pytest.approx(0.4) and numbers.missing_share == 0.2
    assert profile_column(pd.Series(["007", "012", "123"], name="c")).type == "code"
    assert profile_column(pd.Series([1234, 567], name="zipcode")).width == 4
    assert profile_column(pd.Series([1234, 567], name="count")).type == "numeric"
    iso = profile_column(pd.Series(["2020-01-31", "2021-12-01"], name="d"))
    assert (iso.type, iso.date_format) == ("date", "ISO8601")
    either = profile_column(pd.Series(["01/02/2020", "03/04/2021"], name="d"))
    assert either.date_format == "%d/%m/%Y|%m/%d/%Y"  # the month is unknown
    dayfirst = profile_column(pd.Series(["31/01/2020", "03/04/2021"], name="d"))
    assert dayfirst.date_format == "%d/%m/%Y"
    assert profile_column(pd.Series(["a", "b"], name="x")).type == "categorical"


def test_numeric_hierarchies():
    ages = pd.Series(np.arange(17, 91).repeat(3), name="age")
    plan = plan_hierarchy(ages, profile_column(ages), missing_leaf=False)
    assert plan.spec == {"builder": "intervals", "widths": [5, 10, 20]}
    skewed = pd.Series(np.r_[np.zeros(300), np.arange(1, 200) ** 3], name="gain")
    assert plan_hierarchy(skewed, profile_column(skewed), False).spec["builder"] == "quantiles"
    few = pd.Series([1, 2, 3, 1, 2], name="children")
    assert plan_hierarchy(few, profile_column(few), False).spec == {
        "builder": "balanced",
        "fanout": 2,
    }


def test_a_latin1_semicolon_file_is_read_as_told_and_the_config_says_how(runner, tmp_path):
    """--sep, --encoding and --decimal reach init's reading, and its config repeats them in a
    read: block, so that anonymize reads the file the same way."""
    frame = _patients().assign(
        diagnosis=lambda d: d["diagnosis"].where(d.index % 7 != 0, "Gastroentérite")
    )
    data = tmp_path / "patients.csv"
    frame.to_csv(data, index=False, sep=";", decimal=",", encoding="latin-1")
    config = tmp_path / "patients.yaml"
    args = ["init", str(data), "--out", str(config), "--yes", "--sep", ";"]
    result = runner.invoke(main, [*args, "--encoding", "latin-1", "--decimal", ","])
    assert result.exit_code == 0, result.output
    loaded = yaml.safe_load(config.read_text(encoding="utf-8"))
    assert loaded["read"] == {"sep": ";", "encoding": "latin-1", "decimal": ","}
    assert _schema(config)["age"]["kind"] == "numeric"
    assert _anonymize(runner, config, tmp_path / "release")["verified"] is True
    refused = runner.invoke(main, ["init", str(data), "--out", str(tmp_path / "u.yaml"), "--yes"])
    assert refused.exit_code == 2 and "latin-1" in refused.output


def test_init_lint_and_anonymize_say_when_the_dependency_scan_was_limited(
    runner, tmp_path, monkeypatch
):
    """``track`` (insensitive: 60 labels, no rule fires) is tested by the dependency scan. With
    the scan budget at one row-test nothing is scanned: init keeps track insensitive and says
    so in one line, as lint and anonymize do; nothing is cut short without a word."""
    rng = np.random.default_rng(4)
    n = 300
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    track = [f"t{x}-{i % 30}" for i, x in enumerate(a ^ b)]
    frame = pd.DataFrame({"a": a, "b": b, "track": track, "income": rng.integers(0, 20, n)})
    data = tmp_path / "people.csv"
    frame.to_csv(data, index=False)
    monkeypatch.setattr("microanon.core.lint.DEPENDENCY_SCAN_BUDGET", 1)
    config = tmp_path / "c.yaml"
    result = runner.invoke(main, ["init", str(data), "--yes", "--out", str(config)])
    assert result.exit_code == 0, result.output
    (warning,) = [w for w in result.stderr.splitlines() if "dependency scan" in w]
    assert warning.startswith("WARNING: schema lint: dependency scan skipped: testing 1 ")
    assert "budget of 1 row-tests" in warning
    assert _schema(config)["track"]["role"] == "insensitive"
    args = ["lint", str(data), "--quasi", "a,b", "--sensitive", "income", "--insensitive", "track"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0 and result.stdout.strip() == "no findings"
    assert result.stderr.startswith("WARNING: dependency scan skipped:")
    assert len(result.stderr.splitlines()) == 1
    result = runner.invoke(main, [*args, "--json"])
    assert json.loads(result.stdout)["limited"].startswith("dependency scan skipped:")
    numbers = _anonymize(runner, config, tmp_path / "out")
    assert numbers["lint"]["limited"].startswith("dependency scan skipped:")
    assert any(w.startswith("schema lint: dependency scan skipped:") for w in numbers["warnings"])
    monkeypatch.undo()
    result = runner.invoke(main, ["init", str(data), "--yes", "--out", str(config), "--overwrite"])
    assert result.exit_code == 0 and "dependency scan" not in result.stderr
    assert _schema(config)["track"]["role"] == "insensitive"  # scanned: nothing found
