"""A masked column whose original holds no value below 0 but whose masked values do is warned
of, the same sentence in the terminal, ``--json`` and the internal report, in memory and out of
core (carData's Chile: noise on the communities' population and the respondents' income and
age), never in the public part."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main
from microanon.apps.families.sdc.report import negative_alarms
from microanon.measures import MaskedPairs

SCHEMA = {
    "region": {"role": "quasi"},
    "population": {"role": "quasi", "kind": "numeric"},
    "sex": {"role": "quasi"},
    "age": {"role": "quasi", "kind": "numeric", "missing": "drop"},
    "education": {"role": "quasi", "missing": "drop"},
    "income": {"role": "sensitive", "kind": "numeric", "missing": "drop"},
    "statusquo": {"role": "sensitive", "kind": "numeric", "missing": "drop"},
    "vote": {"role": "sensitive", "missing": "keep"},
}


def _anonymize(config: Path, data: Path, out: Path, *engine: str):
    run = CliRunner().invoke(
        main,
        ["anonymize", str(data), "--config", str(config), "--out", str(out), "--seed", "1",
         "--json", *engine],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    return json.loads(run.stdout), run.stderr


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_noise_below_zero_is_warned_of(scheduler, tmp_path, engine):
    chile = survey("chile")
    data = tmp_path / "chile.parquet"
    chile.to_parquet(data, index=False)
    config = tmp_path / "noise.yaml"
    params = {"noise": 0.5, "columns": ["population", "income", "age"]}
    config.write_text(yaml.safe_dump({"schema": SCHEMA, "method": "add_noise", "params": params}))
    out = tmp_path / engine
    extra = ["--engine", engine] + (["--scheduler", scheduler] if engine == "dask" else [])
    got, stderr = _anonymize(config, data, out, *extra)
    published = pd.read_parquet(out / "public" / "data.parquet") if engine == "dask" else None
    if published is None:
        published = pd.read_csv(out / "public" / "data.csv")
    below = [w for w in got["warnings"] if "masked values" in w and "below 0" in w]
    counts = {c: int((published[c] < 0).sum()) for c in params["columns"]}
    assert [w.split(":")[0] for w in below] == [c for c in params["columns"] if counts[c]]
    for warning in below:
        column = warning.split(":")[0]
        assert warning.startswith(f"{column}: {counts[column]:,} of the {len(published):,} masked")
        assert "add less noise, or multiplicative noise" in warning
        assert f"WARNING: {warning}" in stderr
    assert counts["population"] > 100 and (chile["population"] > 0).all()
    internal = (out / "internal" / "report.html").read_text("utf-8")
    assert "masked values are below 0" in internal
    for public in ("report.html", "release.json"):
        assert "below 0" not in (out / "public" / public).read_text("utf-8")


def test_no_warning_where_the_original_goes_below_zero_or_nothing_does():
    original = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [-1.0, 2.0, 3.0], "c": [0.0, 1.0, 2.0]})
    masked = pd.DataFrame({"a": [-0.5, 2.0, 3.0], "b": [-2.0, 2.0, 3.0], "c": [0.0, 1.0, 2.5]})
    (alarm,) = negative_alarms(MaskedPairs(original, masked), "microaggregation")
    assert alarm.startswith("a: 1 of the 3 masked values is below 0, where the original holds")
    assert "add less noise" not in alarm
    assert negative_alarms(MaskedPairs(original[["b", "c"]], masked[["b", "c"]])) == []
