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
