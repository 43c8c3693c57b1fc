"""An ordered t-closeness claim on an integer sensitive column declared without a kind.

The method, the report's re-check and the verification of the written files must agree on what
the column's values are (numbers, in numeric order), whichever generalization method ran.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from microanon import Release
from microanon.apps.cli import main

CONFIG = """\
data: {data}
schema:
  sex:   {{role: quasi, hierarchy: {{builder: masking}}}}
  zip:   {{role: quasi, hierarchy: {{builder: masking}}}}
  hours: {{role: sensitive}}
method: {method}
models:
  - t_closeness: {{t: 0.5{distance}}}
"""


def _config(folder, method: str, distance: str):
    rng = np.random.default_rng(3)
    n = 400
    data = folder / "data.csv"
    pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["1301", "1302", "1401", "1402"], n),
            "hours": rng.integers(10, 60, n),
        }
    ).to_csv(data, index=False)
    config = folder / "config.yaml"
    config.write_text(CONFIG.format(data=data, method=method, distance=distance))
    return config


@pytest.mark.parametrize("method", ["full_domain", "mondrian"])
@pytest.mark.parametrize("distance", [", distance: ordered", ""])
def test_integer_sensitive_without_kind_is_checked_in_numeric_order(tmp_path, method, distance):
    config = _config(tmp_path, method, distance)
    out = tmp_path / "out"
    args = ["anonymize", "--config", str(config), "--out", str(out), "--json", "-q"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["verified"] is True
    published = Release.load(out / "public")
    assert published.data["hours"].dtype == np.int64
    # The internal report re-checks the release in memory: with the same distance, the same t.
    report = (out / "internal" / "report.html").read_text("utf-8")
    assert "distance=ordered" in report and "distance=equal" not in report


def test_integer_sensitive_without_kind_on_the_dask_engine(tmp_path, scheduler):
    config = _config(tmp_path, "full_domain", ", distance: ordered")
    out = tmp_path / "out"
    args = ["anonymize", "--config", str(config), "--out", str(out), "--json", "-q"]
    result = CliRunner().invoke(main, [*args, "--engine", "dask", "--scheduler", scheduler])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["verified"] is True


def _ordered_emd(counts: pd.Series, whole: pd.Series, order: list[str]) -> float:
    """The ordered EMD of a class's value counts to the table's, by its definition: the sum of
    the cumulative differences over the order, divided by the number of steps."""
    p = counts.reindex(order, fill_value=0) / counts.sum()
    q = whole.reindex(order, fill_value=0) / whole.sum()
    return float(np.abs(np.cumsum((p - q).to_numpy())[:-1]).sum() / (len(order) - 1))


def test_an_ordinal_sensitive_column_gives_the_ordered_distance_its_order(tmp_path):
    """carData's Chile survey, education (P < S < PS) declared ordinal in the schema: a
    t-closeness model with the ordered distance and no order of its own measures by the
    schema's order, and the written files hold it by the definition (before, the run was
    refused, asking for the order again)."""
    from real_surveys import survey

    data = tmp_path / "chile.csv"
    survey("chile").to_csv(data, index=False)
    config = tmp_path / "config.yaml"
    config.write_text(
        f"data: {data}\n"
        "schema:\n"
        "  region: {role: quasi, hierarchy: {builder: masking}}\n"
        "  sex: {role: quasi, hierarchy: {builder: masking}}\n"
        "  age: {role: quasi, missing: drop, hierarchy: {builder: intervals, widths: [10, 20]}}\n"
        "  education: {role: sensitive, kind: ordinal, order: [P, S, PS], missing: drop}\n"
        "  population: {role: insensitive}\n"
        "  income: {role: insensitive}\n"
        "  statusquo: {role: identifier}\n"
        "  vote: {role: insensitive}\n"
        "method: full_domain\n"
        "params: {suppression: 0.05}\n"
        "models:\n"
        "  - t_closeness: {t: 0.1, distance: ordered}\n"
    )
    out = tmp_path / "out"
    args = ["anonymize", "--config", str(config), "--out", str(out), "--json", "-q"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["verified"] is True
    manifest = json.loads((out / "public" / "release.json").read_text("utf-8"))
    claimed = manifest["metadata"]["models"]
    assert claimed == [
        {"t_closeness": {"t": 0.1, "distance": "ordered", "order": ["P", "S", "PS"]}}
    ]
    published = pd.read_csv(out / "public" / "data.csv", dtype=str, keep_default_na=False)
    whole = published["education"].value_counts()
    worst = max(
        _ordered_emd(group["education"].value_counts(), whole, ["P", "S", "PS"])
        for _, group in published.groupby(["region", "sex", "age"])
    )
    assert worst <= 0.1 + 1e-12
