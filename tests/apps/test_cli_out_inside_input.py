"""``anonymize --out`` never inside a directory the input reads data files from.

A release written into the input's directory would mix with the originals, and a later run on
that directory (or glob) would read the release's files as data. A single file reads no
directory: its release may go beside it, but never into the folder that holds it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from microanon.apps.cli import main

CONFIG = {
    "schema": {
        "sex": {"role": "quasi", "hierarchy": {"builder": "masking"}},
        "zip": {"role": "quasi", "hierarchy": {"builder": "masking"}},
        "hours": {"role": "insensitive"},
    },
    "method": "full_domain",
    "models": [{"k_anonymity": {"k": 2}}],
}


@pytest.fixture()
def inputs(tmp_path):
    """A config beside a folder ``records`` of two Parquet files and one CSV file."""
    rng = np.random.default_rng(5)
    records = tmp_path / "records"
    records.mkdir()
    for i in range(2):
        pd.DataFrame(
            {
                "sex": rng.choice(["F", "M"], 200),
                "zip": rng.choice(["1301", "1302", "1401"], 200),
                "hours": rng.integers(10, 60, 200),
            }
        ).to_parquet(records / f"part-{i}.parquet", index=False)
    pd.read_parquet(records / "part-0.parquet").to_csv(records / "one.csv", index=False)
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    return tmp_path


def _anonymize(data, out, config, *engine):
    args = ["anonymize", str(data), "--config", str(config), "--out", str(out), "-q", *engine]
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize(
    ("data", "out"),
    [
        ("records", "records/release"),
        ("records", "records"),
        ("records/*.parquet", "records/release"),
        ("records/*.parquet", "records/deeper/release"),
        ("records/**/*.parquet", "records/release"),
    ],
)
def test_dask_refuses_out_inside_the_input_directory(inputs, scheduler, data, out):
    before = sorted(p.name for p in (inputs / "records").iterdir())
    result = _anonymize(
        inputs / data, inputs / out, inputs / "config.yaml", "--engine", "dask",
        "--scheduler", scheduler,
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1
    assert f"inside {inputs / 'records'}" in result.stderr and "--out" in result.stderr
    assert sorted(p.name for p in (inputs / "records").iterdir()) == before


def test_dask_writes_out_beside_the_input_directory(inputs, scheduler):
    result = _anonymize(
        inputs / "records" / "*.parquet", inputs / "release", inputs / "config.yaml",
        "--engine", "dask", "--scheduler", scheduler,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (inputs / "release" / "public" / "release.json").is_file()


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_a_single_file_may_have_its_release_beside_it_not_in_its_folder(inputs, scheduler, engine):
    flags = ["--engine", engine] + (["--scheduler", scheduler] if engine == "dask" else [])
    data, config = inputs / "records" / "one.csv", inputs / "config.yaml"
    beside = _anonymize(data, inputs / "records" / "release", config, *flags)
    assert beside.exit_code == 0, beside.output
    holding = _anonymize(data, inputs / "records", config, *flags, "--overwrite")
    assert holding.exit_code == 2 and "would contain the input" in holding.stderr
