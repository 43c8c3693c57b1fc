"""A CSV line cut short (:func:`microanon.core.csv_lines.short_line`): against Python's own CSV
reader on random files (hypothesis), quoted or not, compressed or not, and the readers' refusal
of COUNT's ``medpar`` (1,495 Medicare stays) cut in the middle of its last line."""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import rdataset

from microanon.apps.cli import main
from microanon.apps.io import read_table
from microanon.core.csv_lines import short_line
from microanon.core.errors import InputError

_FIELD = st.text(alphabet='ab1 ,"\n', max_size=4)


def _plain(text: str, columns: int) -> tuple[int, int, int] | None:
    """The first record of fewer than ``columns`` fields by Python's CSV reader (blank lines
    skipped), its line, its row among the records that are not blank, and its fields; or
    None."""
    rows = [r for r in enumerate(csv.reader(io.StringIO(text, newline="")), start=1) if r[1]]
    for row, (line, fields) in enumerate(rows, start=1):
        if len(fields) < columns:
            return line, row, len(fields)
    return None


def _line(fields: list[str]) -> str:
    return ",".join('"' + f.replace('"', '""') + '"' if set(f) & set(',"\n') else f for f in fields)


@st.composite
def files(draw: st.DrawFn) -> tuple[str, int]:
    columns = draw(st.integers(2, 5))
    rows = draw(st.lists(st.lists(_FIELD, min_size=1, max_size=columns), max_size=12))
    lines = [_line([f"c{i}" for i in range(columns)])]
    for row in rows:  # (one field of spaces alone, unquoted, is a blank line: skipped)
        lines.append("" if len(row) == 1 and set(row[0]) <= {" "} else _line(row))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"])), columns


@settings(max_examples=150, deadline=None)
@given(files(), st.booleans())
def test_the_first_short_record_is_python_s(tmp_path_factory, made, compressed):
    text, columns = made
    folder = tmp_path_factory.mktemp("csv")
    path = folder / ("f.csv.gz" if compressed else "f.csv")
    path.write_bytes(gzip.compress(text.encode()) if compressed else text.encode())
    found = short_line(path, columns, ",")
    plain = _plain(text, columns)
    assert (found is None) == (plain is None)
    if found is not None:
        line, row, fields = plain
        assert found.fields == fields and found.expected == columns
        if '"' not in text and not compressed:  # (the file's lines: its records)
            assert found.unit == "line" and found.number == line
        else:
            assert found.unit == "row" and found.number == row


def test_an_encoding_of_two_bytes_a_character_is_not_looked_at(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_bytes("a,b\n1\n".encode("utf-16"))
    assert short_line(path, 2, ",", encoding="utf-16") is None


@pytest.fixture(scope="module")
def medpar_cut(tmp_path_factory) -> Path:
    """medpar's first 50 stays, then a line of three fields: a file copied in part."""
    path = tmp_path_factory.mktemp("medpar") / "medpar.csv"
    text = rdataset("COUNT", "medpar").head(50).to_csv(index=False)
    path.write_text(text + "1,2,3\n", encoding="utf-8")
    return path


MESSAGE = (
    "line 52 holds 3 field(s) where its lines hold 10, so it would be read as a record with "
    "missing values; it may be a line cut short (a file copied or written in part): complete "
    "it or remove it"
)


def test_both_readers_refuse_a_line_cut_short(medpar_cut):
    with pytest.raises(InputError) as memory:
        read_table(medpar_cut)
    assert str(memory.value) == f"cannot read {medpar_cut}: {MESSAGE}"
    from microanon.scale.read import read_dataset

    with pytest.raises(InputError) as dask:
        read_dataset(medpar_cut)
    assert str(dask.value) == str(memory.value)


def test_init_and_anonymize_exit_with_one_line_and_write_nothing(medpar_cut, tmp_path):
    runner = CliRunner()
    config = tmp_path / "config.yaml"
    made = runner.invoke(main, ["init", str(medpar_cut), "--out", str(config), "--yes"])
    assert made.exit_code == 2 and not config.exists()
    assert made.stderr.strip().splitlines() == [f"Error: cannot read {medpar_cut}: {MESSAGE}"]
    config.write_text(
        f"data: {medpar_cut}\nschema: {{age: quasi}}\nmethod: mondrian\n"
        "models: [{k_anonymity: {k: 5}}]\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    run = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert run.exit_code == 2 and not out.exists()
    assert run.stderr.strip().splitlines()[-1] == f"Error: cannot read {medpar_cut}: {MESSAGE}"
