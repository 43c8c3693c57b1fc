"""Missing-value markers of single columns: ``column_na_values`` in a config and
``--column-na-values COLUMN=V1,V2`` on the command line. A survey writes its codes for an
unknown answer (98, 99) in some columns, where a number of the same value is an answer in
others: ``na_values``, which marks every column, erased those answers in silence.

The Panel Study of Income Dynamics' cross-section of 1993 (Ecdat's ``PSID``) holds 98 and 99 in
the highest grade completed and the number of children, for an unknown answer, and one person
who worked 98 hours in the year. Marked per column, the codes are missing values and the 98
hours are published as they are.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from cli_results import one_error_line, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.config import load_config, parse_config
from microanon.apps.io import read_table
from microanon.core.errors import InputError
from microanon.core.reading import (
    ReadOptions,
    column_na_values,
    csv_na_values,
    markers_of,
)
from microanon.scale.read import read_dataset, read_parquet_file


# ------------------------------------------------------------------------------ parsing
def test_the_markers_of_single_columns_are_texts_in_the_order_given():
    assert column_na_values({"kids": [98, 99], "educatn": "99", 0: ["NA", "NA"]}) == {
        "kids": ("98", "99"),
        "educatn": ("99",),
        "0": ("NA",),
    }
    assert column_na_values(None) == {} and column_na_values([("a", ["x"])]) == {"a": ("x",)}
    read = ReadOptions(na_values=["NA"], column_na_values={"kids": ["98", "99"], "age": []})
    assert read.column_na_values == (("kids", ("98", "99")),)  # (no marker: left out)
    assert read.by_column == {"kids": ("98", "99")}
    assert hash(read) == hash(ReadOptions(na_values=["NA"], column_na_values={"kids": [98, 99]}))
    assert markers_of("kids", read.na_values, read.by_column) == ["NA", "98", "99"]
    assert markers_of("hours", read.na_values, read.by_column) == ["NA"]
    assert markers_of(0, ["NA"], {"0": ["-9"]}) == ["NA", "-9"]  # (a file without a header)
    assert csv_na_values(["a", "kids"], ["", "NA"], {}) == ["", "NA"]
    assert csv_na_values(["a", "kids"], ["", "NA"], read.by_column) == {
        "a": ["", "NA"],
        "kids": ["", "NA", "98", "99"],
    }


def test_the_flags_replace_the_config_s_entry_for_their_column_only():
    config = ReadOptions(column_na_values={"kids": ["98", "99"], "educatn": ["99"]})
    flags = {"column_na_values": {"educatn": ["98", "99"], "hours": []}}
    read = ReadOptions.from_mapping(flags, "--", base=config)
    assert read.by_column == {"kids": ("98", "99"), "educatn": ("98", "99")}
    cleared = ReadOptions.from_mapping({"column_na_values": {"kids": []}}, "--", base=config)
    assert cleared.by_column == {"educatn": ("99",)}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (["98", "99"], "column_na_values: give a mapping of column to missing-value markers"),
        ("educatn=98", "column_na_values: give a mapping of column to missing-value markers"),
        ({"educatn": {"codes": [98]}}, "column_na_values: educatn: give a list of missing-value"),
        ({"kids": [[98, 99]]}, "column_na_values: kids: give a list of missing-value markers"),
        ({"kids": None}, "column_na_values: kids: give a list of missing-value markers"),
        ({None: ["98"]}, "column_na_values: None is not a column name"),
        ({"": ["98"]}, "column_na_values: '' is not a column name"),
    ],
)
def test_bad_markers_name_the_key_and_the_column(value, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")) as info:
        ReadOptions(column_na_values=value)
    assert "\n" not in str(info.value)
    with pytest.raises(InputError) as flagged:
        ReadOptions.from_mapping({"column_na_values": value}, "--")
    assert str(flagged.value) == "--column-na-values" + str(info.value)[len("column_na_values") :]


def _doc(data: Path, **extra: object) -> dict:
    return {
        "data": str(data),
        "schema": {"kids": {"role": "quasi", "kind": "numeric"}, "hours": "insensitive"},
        "method": "microaggregation",
        "params": {"k": 2},
        **extra,
    }


@pytest.fixture()
def small(tmp_path: Path) -> Path:
    """Children (98 and 99 for an unknown number) and hours worked (one 98)."""
    path = tmp_path / "small.csv"
    path.write_text("kids,hours\n2,40\n98,98\n0,35\n99,20\n1,98\n", "utf-8")
    return path


def test_a_config_s_column_na_values_marks_its_columns_alone(small, tmp_path):
    cfg = parse_config(_doc(small, column_na_values={"kids": [98, "99"]}), tmp_path)
    assert cfg.read.by_column == {"kids": ("98", "99")}
    frame = cfg.read_data()
    assert frame["kids"].astype(object).where(frame["kids"].notna(), None).tolist() == [
        2,
        None,
        0,
        None,
        1,
    ]
    assert str(frame["kids"].dtype) == "Int64"
    assert frame["hours"].tolist() == [40, 98, 35, 20, 98]
    both = parse_config(_doc(small, na_values=["?"], column_na_values={"kids": ["98"]}), tmp_path)
    assert (both.read.na_values, both.read.by_column) == (("?",), {"kids": ("98",)})
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(_doc(small, column_na_values={"kids": ["98"]})), "utf-8")
    flagged = load_config(config, read={"column_na_values": {"hours": ["98"]}}).read_data()
    assert flagged["kids"].isna().sum() == 1 and flagged["hours"].isna().sum() == 2


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"column_na_values": ["98"]}, "column_na_values: give a mapping of column"),
        ({"column_na_values": {"kids": {"a": 1}}}, "column_na_values: kids: give a list"),
        (
            {"read": {"column_na_values": {"kids": ["98"]}}},
            "read: unknown key(s) column_na_values; known: sep, encoding, decimal, quotechar, "
            "sheet; column_na_values is a top-level key",
        ),
    ],
)
def test_bad_config_keys_are_one_line_naming_the_key(small, tmp_path, extra, message):
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(_doc(small, **extra)), "utf-8")
    line = one_error_line(run_cli("anonymize", "--config", config, "--out", tmp_path / "o"))
    assert message in line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".dta"])
def test_a_column_the_data_lack_is_one_line_naming_it(small, tmp_path, suffix):
    path = small if suffix == ".csv" else tmp_path / f"small{suffix}"
    if suffix == ".parquet":
        pd.read_csv(small).to_parquet(path)
    elif suffix == ".dta":
        pd.read_csv(small).to_stata(path, write_index=False)
    with pytest.raises(InputError) as info:
        read_table(path, options=ReadOptions(column_na_values={"kid": ["98"]}))
    assert str(info.value) == (
        f"column_na_values (--column-na-values): {path} has no column 'kid' (its columns: kids, "
        "hours)"
    )
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(_doc(path, column_na_values={"kid": ["98"]})), "utf-8")
    line = one_error_line(run_cli("anonymize", "--config", config, "--out", tmp_path / "o"))
    assert line == f"Error: {info.value}"
    check = run_cli("check", path, "--quasi", "kids", "--column-na-values", "kid=98")
    assert one_error_line(check) == f"Error: {info.value}"


@pytest.mark.parametrize("flag", ["kids", "=98", "kids:98"])
def test_a_flag_without_a_column_is_one_line(small, flag):
    line = one_error_line(run_cli("check", small, "--quasi", "kids", "--column-na-values", flag))
    assert line == (
        f"Error: --column-na-values: give COLUMN=V1,V2 (e.g. educatn=98,99), got {flag!r}"
    )


def test_check_reads_the_flags_markers_in_their_column(small):
    args = ["--quasi", "kids", "--sensitive", "hours", "--json"]
    marked = json.loads(run_cli("check", small, *args, "--column-na-values", "kids=98,99").stdout)
    rewritten = small.with_name("rewritten.csv")
    rewritten.write_text("kids,hours\n2,40\n,98\n0,35\n,20\n1,98\n", "utf-8")
    assert marked == json.loads(run_cli("check", rewritten, *args).stdout)


def test_a_population_file_is_marked_in_the_columns_it_has(small, tmp_path):
    """A population file holds the quasi-identifiers alone: the markers of another column
    name no column it lacks, and its own columns are marked as the data's."""
    population = tmp_path / "population.csv"
    population.write_text("kids,town\n2,a\n98,b\n0,a\n99,b\n1,a\n2,b\n0,a\n", "utf-8")
    args = ["--quasi", "kids", "--sensitive", "hours", "--json", "--population-file"]
    flags = ["--column-na-values", "kids=98,99", "--column-na-values", "hours=98"]
    marked = run_cli("check", small, *args, population, *flags)
    assert marked.exit_code == 0, marked.output
    blank_data, blank_population = tmp_path / "d.csv", tmp_path / "p.csv"
    blank_data.write_text("kids,hours\n2,40\n,\n0,35\n,20\n1,\n", "utf-8")
    blank_population.write_text("kids,town\n2,a\n,b\n0,a\n,b\n1,a\n2,b\n0,a\n", "utf-8")
    rewritten = run_cli("check", blank_data, *args, blank_population)
    assert json.loads(marked.stdout)["delta_presence_min"] == 0.5
    assert json.loads(marked.stdout) == json.loads(rewritten.stdout)


# ------------------------------------------------------------------------------ every format
def _write(frame: pd.DataFrame, path: Path) -> None:
    suffix = path.suffix
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix == ".parquet":
        frame.to_parquet(path, index=False)
    elif suffix == ".feather":
        frame.to_feather(path)
    elif suffix == ".dta":
        frame.to_stata(path, write_index=False)
    elif suffix == ".sav":
        import pyreadstat

        pyreadstat.write_sav(frame, str(path))
    else:
        frame.to_excel(path, index=False)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".feather", ".dta", ".sav", ".xlsx"])
def test_every_format_marks_the_named_column_alone(tmp_path, suffix):
    """kids' 98 and 99 are missing, hours' 98 and 99 are not, and a text 99 is not marked by a
    number's column: in every format the in-memory reader reads."""
    frame = pd.DataFrame(
        {
            "kids": [1, 98, 2, 99, 0],
            "hours": [40, 98, 35, 99, 0],
            "text": ["a", "99", "b", "98", "c"],
        }
    )
    path = tmp_path / f"people{suffix}"
    _write(frame, path)
    plain = read_table(path)
    marked = read_table(path, options=ReadOptions(column_na_values={"kids": ["98", "99"]}))
    globally = read_table(path, options=ReadOptions(na_values=("98", "99")))
    assert marked["kids"].astype(object).where(marked["kids"].notna(), None).tolist() == [
        1,
        None,
        2,
        None,
        0,
    ]
    assert str(marked["kids"].dtype) == "Int64"
    pd.testing.assert_series_equal(marked["kids"], globally["kids"])
    pd.testing.assert_frame_equal(marked[["hours", "text"]], plain[["hours", "text"]])
    assert globally["hours"].isna().sum() == 2  # (what na_values did to the hours)


# ------------------------------------------------------------------------------ property
#: Cells of the drawn tables: whole numbers (codes among them), decimals and text.
_WHOLE = st.one_of(st.none(), st.sampled_from([0, 1, 2, 17, 98, 99, -9, -8]))
_DECIMAL = st.one_of(st.none(), st.sampled_from([0.5, 2.25, 98.0, 99.0, -9.0, 12.0]))
_TEXT = st.one_of(st.none(), st.sampled_from(["a", "b c", "NA", "99", "98", ".", "-9", "x"]))
#: Codes written as text beside other software's markers (R's NA, Stata's .): numbers once the
#: markers are read as missing.
_CODED = st.one_of(st.none(), st.sampled_from(["1", "2", "17", "98", "99", "NA", "."]))
#: Markers drawn: codes, texts other software writes, a code written as a decimal.
_MARKERS = st.lists(st.sampled_from(["98", "99", "-9", "NA", ".", "99.0", "x"]), max_size=3)


@st.composite
def _tables(draw: st.DrawFn) -> pd.DataFrame:
    rows = draw(st.integers(1, 8))
    kinds = ["whole", "decimal", "text", "coded"]
    drawn = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=4))
    columns = {}
    for i, kind in enumerate(drawn):
        cells = {"whole": _WHOLE, "decimal": _DECIMAL, "text": _TEXT, "coded": _CODED}[kind]
        values = draw(st.lists(cells, min_size=rows, max_size=rows))
        dtype = {"whole": "Int64", "decimal": "float64"}.get(kind, object)
        columns[f"{kind}{i}"] = pd.Series(values, dtype=dtype)
    return pd.DataFrame(columns)


@settings(max_examples=120, deadline=None)
@given(table=_tables(), data=st.data())
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_column_s_markers_read_it_as_global_markers_and_leave_the_others(
    tmp_path_factory, suffix, table, data
):
    """Whatever the table and the markers: a column given markers of its own reads as the
    same file read with those markers for every column reads it (values and type), and every
    other column as the file read without markers."""
    column = data.draw(st.sampled_from(list(table.columns)))
    markers = data.draw(_MARKERS)
    path = tmp_path_factory.mktemp("table") / f"t{suffix}"
    _write(table, path)
    own = read_table(path, options=ReadOptions(column_na_values={column: markers}))
    every = read_table(path, options=ReadOptions(na_values=markers))
    plain = read_table(path)
    pd.testing.assert_series_equal(own[column], every[column])
    others = [c for c in table.columns if c != column]
    pd.testing.assert_frame_equal(own[others], plain[others])


# ------------------------------------------------------------------------------ Dask
def test_the_dask_reader_marks_a_parquet_dataset_s_columns_as_memory(tmp_path):
    """A Parquet dataset of two files, read out of core with a column's own markers: each
    partition (the lazy frame's, and the files read directly) is marked as the in-memory
    reader marks the whole table, its integers nullable."""
    frame = pd.DataFrame({"kids": [1, 98, 2, 99, 0, 3], "hours": [40, 98, 35, 99, 0, 98]})
    folder = tmp_path / "parts"
    folder.mkdir()
    frame.iloc[:3].to_parquet(folder / "a.parquet", index=False)
    frame.iloc[3:].to_parquet(folder / "b.parquet", index=False)
    whole = tmp_path / "whole.parquet"
    frame.to_parquet(whole, index=False)
    own = {"kids": ["98", "99"]}
    memory = read_table(whole, options=ReadOptions(column_na_values=own))
    dask = read_dataset(folder, column_na_values=own).compute().reset_index(drop=True)
    pd.testing.assert_frame_equal(dask, memory)
    files = [
        read_parquet_file(str(f), ["kids", "hours"], markers=[], by_column=own)
        for f in sorted(folder.glob("*.parquet"))
    ]
    pd.testing.assert_frame_equal(pd.concat(files, ignore_index=True), memory)
    with pytest.raises(InputError, match="has no column 'kid'"):
        read_dataset(folder, column_na_values={"kid": ["98"]})


def test_the_dask_reader_marks_a_csv_file_s_columns_as_memory(tmp_path):
    """A CSV file read out of core in several blocks with a column's own markers: the blocks
    read each column with its markers, the whole numbers with gaps read as nullable integers,
    as the in-memory reader reads the file."""
    frame = survey("psid")
    path = tmp_path / "psid.csv"
    frame.to_csv(path, index=False)
    own = {"educatn": ["99", "98"], "kids": ["98", "99"]}
    memory = read_table(path, options=ReadOptions(column_na_values=own))
    lazy = read_dataset(path, column_na_values=own, blocksize=40_000)
    assert lazy.npartitions > 1
    dask = lazy.compute().reset_index(drop=True)
    assert str(dask["kids"].dtype) == str(memory["kids"].dtype) == "Int64"
    pd.testing.assert_frame_equal(dask, memory, check_dtype=False)
    numbers = [c for c in memory.columns if c != "married"]  # (text: str beside string)
    assert dask[numbers].dtypes.tolist() == memory[numbers].dtypes.tolist()
    with pytest.raises(InputError, match="has no column 'kid'"):
        read_dataset(path, column_na_values={"kid": ["98"]})


# ------------------------------------------------------------------------------ PSID
def _codes_warning(column: str, rows: int, highest: int, codes: str) -> str:
    listed = codes.split(",")
    return (
        f"WARNING: column '{column}' ({rows} rows; its other values up to {highest}) holds "
        f"{', '.join(listed)}, codes above every other value, as surveys write a missing answer "
        "(refused, don't know, not asked): init read them as numbers, which a hierarchy puts in "
        "an interval and a release publishes; if they mark missing values, run init again with "
        f"--column-na-values {column}={codes} (in the config: column_na_values: {{{column}: "
        f"[{', '.join(repr(c) for c in listed)}]}})"
    )


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_psid_s_codes_are_marked_in_their_columns_and_the_98_hours_kept(tmp_path, engine):
    """init names the codes of educatn and kids and proposes them as markers of those columns;
    init with them profiles the two without the codes and writes column_na_values into its
    config; anonymize with that config publishes the 98 hours one person worked (na_values:
    ['99', '98'], which init had proposed, erased them, and two interview numbers) and no
    code 98 or 99 in educatn or kids, in memory and out of core."""
    frame = survey("psid")
    data = tmp_path / "psid.csv"
    frame.to_csv(data, index=False)
    # the file itself, read without microanon: one person worked 98 hours
    raw = pd.read_csv(data, dtype=str, keep_default_na=False)
    worked = raw[raw["hours"] == "98"]
    assert worked[["intnum", "earnings"]].values.tolist() == [["1258", "380"]]
    assert raw["educatn"].isin(["98.0", "99.0"]).sum() == 225
    assert raw["kids"].isin(["98", "99"]).sum() == 118
    first = run_cli("init", data, "--yes", "--out", tmp_path / "a.yaml")
    assert first.exit_code == 0, first.output
    said = " ".join(first.output.split())
    assert _codes_warning("educatn", 225, 17, "99,98") in said
    assert _codes_warning("kids", 118, 10, "98,99") in said
    assert "--na-values" not in said
    flags = ["--column-na-values", "educatn=99,98", "--column-na-values", "kids=98,99"]
    again = run_cli("init", data, "--yes", "--out", tmp_path / "b.yaml", *flags)
    assert again.exit_code == 0, again.output
    assert "codes above every other value" not in again.output
    text = (tmp_path / "b.yaml").read_text("utf-8")
    assert "column_na_values: {educatn: ['99', '98'], kids: ['98', '99']}" in text
    assert "na_values: [" not in text.replace("column_na_values", "")
    joined = " ".join(text.split())
    assert "# educatn: numeric (integers 0 to 17)" in joined
    assert "# kids: numeric (integers 0 to 10)" in joined
    out = tmp_path / "release"
    run = run_cli(
        "anonymize", "--config", tmp_path / "b.yaml", "--out", out, "--json", "--engine", engine
    )
    assert run.exit_code == 0, run.output
    answer = json.loads(run.stdout)
    assert answer["rows"]["in_file"] == len(raw)
    assert not [w for w in answer["warnings"] if "codes above" in w]
    written = next((out / "public").glob("data.*"))
    published = (pd.read_parquet if written.suffix == ".parquet" else pd.read_csv)(written)
    published = published.astype(str)
    assert published.loc[published["hours"] == "98", "earnings"].tolist() == ["380"]
    for column in ("educatn", "kids"):
        assert not published[column].str.contains("98|99").any(), column
    # what the markers of every column did: the 98 hours and two interview numbers erased
    everywhere = read_table(data, options=ReadOptions(na_values=("99", "98")))
    assert everywhere["hours"].isna().sum() == 1 and everywhere["intnum"].isna().sum() == 2
