"""What the audit found: releases that undo their own protection, and a tool that said yes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

import microanon
from microanon import Release
from microanon.apps.cli import main
from microanon.core.errors import InfeasibleError
from microanon.core.hierarchy import Hierarchy
from microanon.methods.generalize import full_domain
from microanon.models import check_release, public_leaks

# The example pipelines that ship in the package (`microanon examples` writes them out).
EXAMPLES = Path(microanon.__file__).resolve().parent / "examples" / "adult"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def _adult_config(tmp_path: Path, **changes) -> Path:
    """The tour's full-domain pipeline on UCI Adult (which has education_num and fnlwgt)."""
    from microanon.datasets import load_adult

    data = tmp_path / "adult.csv"
    load_adult("train").head(3000).to_csv(data, index=False)
    hs = yaml.safe_load((EXAMPLES / "full_domain.yaml").read_text())["schema"]
    schema = {
        "age": {**hs["age"], "hierarchy": str(EXAMPLES / hs["age"]["hierarchy"])},
        "sex": {**hs["sex"], "hierarchy": str(EXAMPLES / hs["sex"]["hierarchy"])},
        "education": {**hs["education"], "hierarchy": str(EXAMPLES / hs["education"]["hierarchy"])},
        "occupation": {"role": "sensitive"},
        "education_num": {"role": "insensitive"},
    }
    others = [
        "workclass",
        "fnlwgt",
        "marital_status",
        "relationship",
        "race",
        "capital_gain",
        "capital_loss",
        "hours_per_week",
        "native_country",
        "income",
    ]
    schema.update({c: "identifier" for c in others})
    doc = {
        "data": str(data),
        "schema": schema,
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
        **changes,
    }
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_a_code_of_a_quasi_identifier_is_refused_before_anything_runs(tmp_path):
    cfg = _adult_config(tmp_path)
    result = run("anonymize", "--config", str(cfg), "--out", str(tmp_path / "o"))
    assert result.exit_code == 2
    assert "education_num" in result.output and "determines_quasi" in result.output
    assert not (tmp_path / "o").exists()


def test_accepting_it_is_refused_before_the_search(tmp_path):
    """A code of a quasi-identifier cannot be accepted: one line naming it and what to do."""
    cfg = _adult_config(tmp_path, lint={"accept": {"education_num": ["determines_quasi"]}})
    result = run("anonymize", "--config", str(cfg), "--out", str(tmp_path / "o"))
    assert result.exit_code == 2, result.output
    (error,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert "education_num: determines_quasi cannot be accepted" in error
    assert "role quasi" in error and "method" not in result.output.split("Error:")[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adult.csv", "cfg.yaml"]
    lint = run("lint", "--config", str(cfg))
    assert lint.exit_code == 2 and "cannot be accepted" in lint.output


def test_full_domain_publishes_no_hierarchy_leaf(tmp_path):
    """The data-built hierarchy lists every age that occurs; the public part must not."""
    result = run(
        "anonymize", "--config", str(EXAMPLES / "full_domain.yaml"), "--out", str(tmp_path / "o")
    )
    assert result.exit_code == 0, result.output
    public = (tmp_path / "o" / "public" / "release.json").read_text()
    assert '"39"' not in public and "Holand-Netherlands" not in public
    internal = json.loads((tmp_path / "o" / "internal" / "internal.json").read_text())
    assert "age" in internal["metadata"]["hierarchies"]


def test_the_leak_scan_catches_an_undeclared_hierarchy():
    original = pd.DataFrame({"age": [17, 39, 90], "s": ["a", "b", "c"]})
    published = pd.DataFrame({"age": ["*", "*", "*"], "s": ["a", "b", "c"]})
    leaky = Release(
        "generalized", {"data": published}, {"tree": ["17", "39", "*"]}, public=["tree"]
    )
    assert len(public_leaks(leaky, original)) == 2
    safe = Release("generalized", {"data": published}, {"tree": ["17", "39", "*"]})
    assert public_leaks(safe, original) == []


def _star_case():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.integers(0, 4, 60).astype(str), "s": rng.integers(0, 3, 60)})
    df["s"] = df["s"].astype(str)
    df.loc[0, "a"] = "9"  # one record that only suppression can protect
    h = Hierarchy.from_nested({"*": ["0", "1", "2", "3", "9"]})
    return df, {"a": {"role": "quasi", "hierarchy": h}, "s": {"role": "sensitive"}}


def test_star_mode_never_publishes_a_star_class_below_k():
    df, schema = _star_case()
    models = [{"k_anonymity": {"k": 3}}]
    removed = full_domain(df, schema, models=models, suppression=0.05)
    assert removed.metadata["suppressed"] == 1
    # the one record as a '*' class would fail k = 3: the best node that suppresses none
    star = full_domain(df, schema, models=models, suppression=0.05, suppressed_rows="star")
    assert star.metadata["suppressed"] == 0
    assert star.metadata["search"]["optimal"] is True
    assert all(v.holds for v in check_release(star))


@pytest.mark.parametrize("search", ["heuristic", "genetic"])
def test_a_budget_spent_on_failing_star_classes_says_so(search):
    """A heuristic or genetic search stopped by its budget before any feasible node, having
    checked only nodes whose '*' class fails, names that class in its refusal."""
    df, schema = _star_case()
    models = [{"k_anonymity": {"k": 3}}]
    with pytest.raises(InfeasibleError) as refused:
        full_domain(
            df, schema, models=models, suppression=0.05, suppressed_rows="star",
            search=search, step_limit=1,
        )  # fmt: skip
    assert (
        "(1 node(s) within the limit left a '*' class that fails them, e.g. 1 record(s) "
        "failing k-anonymity (k=3): star mode publishes the suppressed records so; "
        "suppressed_rows: remove leaves them out); raise step_limit"
    ) in str(refused.value)


def test_the_star_class_is_a_class_for_the_checker():
    data = pd.DataFrame({"a": ["x"] * 5 + ["*"], "s": ["p", "q", "r", "p", "q", "r"]})
    rel = Release(
        "generalized",
        {"data": data},
        {"quasi": ["a"], "sensitive": ["s"], "models": [{"k_anonymity": {"k": 2}}]},
    )
    (verdict,) = check_release(rel)
    assert not verdict.holds and verdict.value == 1


@pytest.mark.parametrize(
    "args, code",
    [
        (["--k", "2"], 1),
        (["--k", "1"], 0),
        (["--l", "2"], 1),
        (["--t", "0.01"], 1),
        (["--k", "1", "--t", "1"], 0),
        (["--k", "0"], 2),
        (["--t", "2"], 2),
    ],
)
def test_check_exits_1_when_a_required_model_does_not_hold(tmp_path, args, code):
    path = tmp_path / "t.csv"
    pd.DataFrame({"zip": ["1", "1", "2"], "d": ["a", "b", "a"]}).to_csv(path, index=False)
    result = run("check", str(path), "--quasi", "zip", "--sensitive", "d", *args)
    assert result.exit_code == code, result.output
    as_json = run("check", str(path), "--quasi", "zip", "--sensitive", "d", "--json", *args)
    assert as_json.exit_code == code
    if code != 2:
        doc = json.loads(as_json.output)
        assert doc["holds"] == (code == 0) and doc["k"] == 1


def test_lint_command(tmp_path):
    from microanon.datasets import load_adult

    path = tmp_path / "adult.csv"
    load_adult("train").head(2000).to_csv(path, index=False)
    result = run(
        "lint",
        str(path),
        "--quasi",
        "education,sex",
        "--sensitive",
        "occupation",
        "--insensitive",
        "education_num",
        "--json",
    )
    assert result.exit_code == 1
    doc = json.loads(result.output)
    kinds = {(f["column"], f["kind"]) for f in doc["findings"]}
    assert ("education_num", "determines_quasi") in kinds and ("age", "no_role") in kinds
    ok = run("lint", "--config", str(EXAMPLES / "full_domain.yaml"))
    assert ok.exit_code == 0 and "no findings" in ok.output


def test_anonymize_json_is_one_object(tmp_path):
    result = run(
        "anonymize",
        "--config",
        str(EXAMPLES / "full_domain.yaml"),
        "--out",
        str(tmp_path / "o"),
        "--json",
    )
    assert result.exit_code == 0
    text = result.stdout if hasattr(result, "stdout") else result.output
    doc = json.loads(text)
    assert doc["verified"] is True and doc["public"].endswith("public")
    assert any("fully generalized" in c["done"] for c in doc["columns"])
    assert any("quasi-identifiers are *" in w for w in doc["warnings"])


def test_anonymize_exits_1_when_the_models_cannot_be_met(tmp_path):
    doc = yaml.safe_load((EXAMPLES / "anatomy.yaml").read_text())
    doc["data"] = "dataset:arx_adult"
    doc["schema"] = {
        k: (
            {**v, "hierarchy": str(EXAMPLES / v["hierarchy"])}
            if isinstance(v, dict) and "hierarchy" in v
            else v
        )
        for k, v in yaml.safe_load((EXAMPLES / "full_domain.yaml").read_text())["schema"].items()
    }
    doc.update(
        method="full_domain",
        params={"suppression": 0.0},
        models=[{"l_diversity": {"l": 40, "form": "distinct"}}],
    )
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(doc))
    result = run("anonymize", "--config", str(cfg), "--out", str(tmp_path / "o"))
    assert result.exit_code == 1, result.output
    assert "l-diversity" in result.output and not (tmp_path / "o").exists()


def test_metadata_added_after_construction_is_still_guarded(tmp_path):
    rel = Release("masked", {"data": pd.DataFrame({"a": [1]})}, {"method": "m"})
    rel.metadata["audit"] = {"rng_seed": 7}
    with pytest.raises(Exception, match="seed"):
        rel.save(tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_a_report_never_replaces_a_file_microanon_did_not_write(tmp_path):
    from microanon.apps.report import Report

    mine = tmp_path / "report.html"
    mine.write_text("<html>my own notes</html>")
    with pytest.raises(Exception, match="not a microanon report"):
        Report("t").write(mine)
    assert mine.read_text() == "<html>my own notes</html>"
    ours = tmp_path / "ours.html"
    Report("first").write(ours)
    Report("second").write(ours)  # its own earlier report is replaced
    assert "second" in ours.read_text()


def test_an_accepted_near_unique_column_is_published_and_the_release_verifies(tmp_path):
    """Accepting near_unique states an attacker does not know the column: the search and the
    verification read the declared quasi-identifiers only, and the release records the statement."""
    from microanon.models import verify_written

    cfg = _adult_config(tmp_path, lint={"accept": {"fnlwgt": ["near_unique"]}})
    doc = yaml.safe_load(cfg.read_text())
    doc["schema"].update(education_num="identifier", fnlwgt="insensitive")
    cfg.write_text(yaml.safe_dump(doc))
    out = tmp_path / "o"
    result = run("anonymize", "--config", str(cfg), "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    numbers = json.loads(result.output[result.output.index("{") :])
    assert numbers["verified"] is True
    assert numbers["verification"]["counted_as_quasi"] == []
    # Read back from disk: the claimed model holds on the declared quasi-identifiers, and the
    # weights are published as they were.
    original = pd.read_csv(tmp_path / "adult.csv")
    again = verify_written(out, original)
    assert again.ok and again.counted_quasi == [], again.failures()
    public = Release.load(out / "public")
    assert sorted(public.metadata["quasi"]) == ["age", "education", "sex"]
    assert set(public.data["fnlwgt"]) <= set(original["fnlwgt"])
    (verdict,) = check_release(public)
    assert verdict.holds and verdict.value >= 5
    statement = "The data owner states that an attacker does not know fnlwgt"
    assert statement in (out / "public" / "report.html").read_text()
    (stated,) = public.metadata["owner_statements"]
    assert stated.startswith(statement)
    assert statement in (out / "internal" / "report.html").read_text()
    audit = json.loads((out / "internal" / "internal.json").read_text())["metadata"]["audit"]
    (finding,) = [f for f in audit["lint"]["findings"] if f["column"] == "fnlwgt"]
    assert finding["kind"] == "near_unique" and finding["accepted"] is True
