"""Text values are read without the spaces around them: from a CSV file by both engines, from
every format in memory (a Parquet file here). The
Minneapolis use-of-force records (openintro's ``mn_police_use_of_force``) write offence codes
padded to a fixed width beside the same codes unpadded (``'WT      '`` and ``'WT'``). Read as
written, the two counted as two sensitive values: 361 records of the offence WT alone were
published as distinct 2-diverse, the verification agreeing, while every record's offence was
WT."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main
from microanon.apps.io import read_table
from microanon.core.reading import unpadded
from microanon.scale import read_dataset


@pytest.fixture(scope="module")
def police(tmp_path_factory) -> tuple[pd.DataFrame, Path]:
    """The records' precinct, race and offence, as a CSV file written by pandas."""
    frame = survey("mn_police")[["precinct", "race", "primary_offense"]]
    path = tmp_path_factory.mktemp("police") / "police.csv"
    frame.to_csv(path, index=False)
    return frame, path


def test_both_engines_read_a_padded_code_as_the_code(police, tmp_path):
    frame, path = police
    written = frame["primary_offense"].dropna()
    assert written.str.endswith(" ").sum() > 7_000
    expected = sorted(written.str.strip().unique())
    memory = read_table(path)["primary_offense"]
    dask = read_dataset(str(path))["primary_offense"].compute()
    assert sorted(memory.dropna().unique()) == sorted(dask.dropna().unique()) == expected
    assert memory.isna().sum() == dask.isna().sum() == frame["primary_offense"].isna().sum()
    # a Parquet file's text alike in memory (out of core it is read as it is)
    parquet = tmp_path / "police.parquet"
    frame.to_parquet(parquet, index=False)
    assert sorted(read_table(parquet)["primary_offense"].dropna().unique()) == expected


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_one_offence_padded_or_not_is_no_two_diverse_class(
    scheduler, police, tmp_path, engine, suffix
):
    frame, _ = police
    wt = frame[frame["primary_offense"].str.strip() == "WT"]
    assert set(wt["primary_offense"]) == {"WT", "WT      "}
    data = tmp_path / f"wt.{suffix}"
    wt.to_csv(data, index=False) if suffix == "csv" else wt.to_parquet(data, index=False)
    doc = {
        "schema": {
            "precinct": {"role": "quasi", "kind": "numeric",
                         "hierarchy": {"builder": "intervals", "widths": [2, 4]}},
            "race": "identifier",
            "primary_offense": "sensitive",
        },
        "method": "full_domain",
        "params": {"suppression": 0.0},
        "models": [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2, "form": "distinct"}}],
    }  # fmt: skip
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "out"
    extra = ["--scheduler", scheduler] if engine == "dask" else []
    run = CliRunner().invoke(
        main, ["anonymize", str(data), "--config", str(config), "--out", str(out),
               "--engine", engine, *extra],
    )  # fmt: skip
    assert run.exit_code == 1 and not out.exists(), run.output
    assert "'primary_offense' has only 1 distinct value(s)" in run.stderr


def test_spaces_around_text_are_dropped_and_blank_text_is_missing():
    """Spaces on either side of a text value go (a tab stays), a text of spaces alone is
    missing; numbers and a text column without spaces around its values are left as they are."""
    frame = pd.DataFrame(
        {
            "code": pd.Series(["WT  ", "WT", " AB", "   ", None, "\tTAB"], dtype=object),
            "n": [1, 2, 3, 4, 5, 6],
            "kept": pd.Series(["x", "y", "x", "y", None, "x"], dtype=object),
        }
    )
    kept = frame["kept"]
    got = unpadded(frame.copy())
    assert got["code"].tolist()[:3] == ["WT", "WT", "AB"] and got["code"].iloc[5] == "\tTAB"
    assert got["code"].isna().tolist() == [False, False, False, True, True, False]
    assert got["n"].tolist() == [1, 2, 3, 4, 5, 6]
    assert got["kept"].equals(kept)


def test_text_read_dictionary_encoded_is_unpadded_too():
    """A categorical column (how the Dask engine reads a Parquet file's text) loses the spaces
    around its categories; two that become one are merged, a blank one is missing."""
    column = pd.Series(pd.Categorical(["WT  ", "WT", "AB", "  ", None, "AB"]), name="code")
    got = unpadded(pd.DataFrame({"code": column}))["code"]
    assert list(got.cat.categories) == ["AB", "WT"] or list(got.cat.categories) == ["WT", "AB"]
    assert got.tolist()[:3] == ["WT", "WT", "AB"] and got.isna().tolist()[3:5] == [True, True]
    kept = pd.Series(pd.Categorical(["a", "b"]), name="k")
    assert unpadded(pd.DataFrame({"k": kept}))["k"].equals(kept)


def test_check_counts_a_padded_code_as_the_code_on_both_engines(scheduler, police, tmp_path):
    """``check`` of the WT records as a Parquet file: ℓ = 1 on both engines (out of core the
    frequency table had counted 'WT      ' and 'WT' apart: distinct ℓ = 2)."""
    frame, _ = police
    data = tmp_path / "wt.parquet"
    frame[frame["primary_offense"].str.strip() == "WT"].to_parquet(data, index=False)
    answers = {}
    for engine in ("memory", "dask"):
        extra = ["--scheduler", scheduler] if engine == "dask" else []
        run = CliRunner().invoke(
            main, ["check", str(data), "--quasi", "precinct", "--sensitive", "primary_offense",
                   "--engine", engine, "--json", *extra],
        )  # fmt: skip
        assert run.exit_code == 0, run.output
        answers[engine] = json.loads(run.stdout)
    assert answers["dask"]["l_distinct"] == answers["memory"]["l_distinct"] == 1
    assert answers["dask"]["rows"] == answers["memory"]["rows"] == 361
