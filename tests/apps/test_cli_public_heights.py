"""A generalization's hierarchy heights stay internal.

A hierarchy built from the data (intervals, quantiles, balanced, masking) has a height that
depends on the original values (the range of the ages, the length of the postcodes), so no
release publishes the heights; the data owner's report and ``internal.json`` keep them.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from microanon.apps.cli import main

AGES = {"builder": "intervals", "widths": [5, 10, 20]}
SCHEMA = {
    "age": {"role": "quasi", "kind": "numeric", "hierarchy": AGES},
    "zip": {"role": "quasi", "hierarchy": {"builder": "masking"}},
    "sex": {"role": "quasi", "hierarchy": {"builder": "nested", "tree": {"*": ["F", "M"]}}},
}
METHODS = {
    "full_domain": {"models": [{"k_anonymity": {"k": 5}}]},
    "safepub": {"params": {"epsilon": 1.0, "delta": 1.0e-4, "steps": 5}},
}


def _config(folder, method: str):
    rng = np.random.default_rng(9)
    n = 2000
    data = folder / "data.parquet"
    pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "zip": rng.choice(["13053", "13068", "14850", "14853"], n),
            "sex": rng.choice(["F", "M"], n),
        }
    ).to_parquet(data, index=False)
    config = folder / "config.yaml"
    doc = {"data": str(data), "schema": SCHEMA, "method": method, **METHODS[method]}
    config.write_text(yaml.safe_dump(doc))
    return config


def _public_and_internal(out):
    public = json.loads((out / "public" / "release.json").read_text("utf-8"))
    internal = json.loads((out / "internal" / "internal.json").read_text("utf-8"))
    return public, internal["metadata"]


@pytest.mark.parametrize("method", ["full_domain", "safepub"])
def test_heights_are_internal(tmp_path, method):
    out = tmp_path / "out"
    args = ["anonymize", "--config", str(_config(tmp_path, method)), "--out", str(out), "-q"]
    result = CliRunner().invoke(main, [*args, "--seed", "3"])
    assert result.exit_code == 0, result.output
    public, internal = _public_and_internal(out)
    assert "heights" not in public["metadata"] and "heights" not in public["public_keys"]
    assert set(public["metadata"]["levels"]) == {"age", "zip", "sex"}
    assert internal["heights"] == {"age": 4, "zip": 6, "sex": 1}
    # The public report, built from the public part, names the level without the height.
    report = (out / "public" / "report.html").read_text("utf-8")
    assert "generalized to level" in report and " of 4" not in report


def test_heights_are_internal_on_the_dask_engine(tmp_path, scheduler):
    out = tmp_path / "out"
    args = ["anonymize", "--config", str(_config(tmp_path, "full_domain")), "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "-q", "--engine", "dask", "--scheduler", scheduler])
    assert result.exit_code == 0, result.output
    public, internal = _public_and_internal(out)
    assert "heights" not in public["metadata"] and "heights" not in public["public_keys"]
    assert internal["heights"] == {"age": 4, "zip": 6, "sex": 1}
