"""An SPSS, Stata or SAS file's variable labels (its columns' descriptions) in an SPSS or Stata
release: each column published under its input name carries its label, verified as read back;
the label of a column not published is written nowhere; a file without labels (CSV) gives none.
On pyreadstat's sample files as SPSS 25 and Stata 13 wrote them (tests/data/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from oracles import require_module

from microanon import publish
from microanon.apps.cli import main
from microanon.apps.io import read_labelled
from microanon.methods.generalize import anatomy
from microanon.models import verify_written

pyreadstat = require_module("pyreadstat", "SPSS and Stata files are read and written with it")

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLES = {"sav": DATA / "spss_sample.sav", "dta": DATA / "stata_sample.dta"}
#: The sample files' variable labels, as SPSS and Stata wrote them.
LABELS = {
    "mychar": "character",
    "mynum": "numeric",
    "mydate": "date",
    "dtime": "datetime",
    "mylabl": "labeled",
    "myord": "ordinal",
    "mytime": "time",
}
#: Labels no other text of a release holds (``character`` is in every Stata file, ``date`` and
#: ``time`` in the reports): ``dtime``'s, an identifier in every run, and those of columns a run
#: leaves out.
DISTINCT = ("dtime", "mylabl", "myord")
ACCEPT = {
    "mynum": ["near_unique"],
    "myord": ["near_unique", "no_role"],
    "mychar": ["no_role"],
    "mydate": ["no_role"],
    "mytime": ["no_role"],
}
MASKING = {"builder": "masking"}
#: One run of each family of methods on the five records (``dtime``: an identifier; the columns
#: a run names no role for are left out).
RUNS = {
    "generalized": {
        "schema": {"mylabl": {"role": "quasi", "hierarchy": MASKING}, "myord": "sensitive"},
        "method": "full_domain",
        "params": {"suppression": 0},
        "models": [{"k_anonymity": {"k": 2}}],
    },
    "anatomized": {
        "schema": {"mylabl": "quasi", "mynum": "sensitive"},
        "method": "anatomy",
        "params": {"l": 2},
    },
    "randomized": {
        "schema": {
            "mylabl": "quasi",
            "myord": {"role": "sensitive", "categories": ["low", "medium", "high"]},
        },
        "method": "pram",
        "params": {"keep": {"myord": 0.8}},
    },
    "masked (steps)": {
        "schema": {"mylabl": "quasi"},
        "steps": [{"method": "local_suppression", "params": {"k": 2}}],
    },
    "distribution": {
        "schema": {"mylabl": {"role": "quasi", "hierarchy": MASKING}, "myord": "sensitive"},
        "method": "distribution",
        "params": {},
    },
    "multi-sa": {
        "schema": {"mylabl": "quasi", "myord": "sensitive", "mynum": "sensitive"},
        "method": "rating",
        "params": {"l": 2},
    },
}


def _anonymize(tmp_path: Path, data: Path, run: dict, fmt: str, name: str = "out"):
    """``anonymize`` of ``run`` on ``data`` (``dtime`` an identifier, ``mynum`` insensitive
    unless ``run`` gives it a role) written as ``fmt``: the release directory and the
    command's output."""
    schema = {"dtime": "identifier", "mynum": "insensitive", **run["schema"]}
    doc = {**run, "data": str(data), "schema": schema, "output": {"format": fmt}}
    doc["lint"] = {"accept": ACCEPT}
    config = tmp_path / f"{name}.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / name
    result = CliRunner().invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, result.output


def _labels(path: Path) -> dict[str, str]:
    """The variable labels of an SPSS or Stata file, as pyreadstat reads them."""
    reader = pyreadstat.read_sav if path.suffix == ".sav" else pyreadstat.read_dta
    _, meta = reader(str(path), metadataonly=True)
    return {c: label for c, label in meta.column_names_to_labels.items() if label}


def _tables(out: Path, fmt: str) -> list[Path]:
    tables = sorted((out / "public").glob(f"*.{fmt}"))
    assert tables
    return tables


def _holding(out: Path, texts: tuple[bytes, ...]) -> list[str]:
    """The files of the release directory ``out`` whose bytes hold one of ``texts``."""
    return [
        str(f.relative_to(out))
        for f in sorted(out.rglob("*"))
        if f.is_file() and any(t in f.read_bytes() for t in texts)
    ]


def test_the_sample_files_labels_are_read_beside_the_table():
    """Both files hold the seven columns' labels; the table carries none of them (its pandas
    attributes would travel into the release's Parquet files)."""
    for path in SAMPLES.values():
        frame, labels = read_labelled(path)
        assert labels == LABELS
        assert frame.attrs == {}
    assert read_labelled(DATA / "spss_sample.por").labels == {
        c.upper(): label for c, label in LABELS.items()
    }


@pytest.mark.parametrize("fmt", ["sav", "dta"])
@pytest.mark.parametrize("family", RUNS)
def test_each_published_column_carries_its_input_label(tmp_path, family, fmt):
    """Each family's tables, written as SPSS and as Stata files from the other package's file:
    a column published under its input name carries the input's label, a column the method
    made (a group number, a count) none; the labels of the identifier and of the columns left
    out are in no file of the release, public or internal."""
    source = SAMPLES["dta" if fmt == "sav" else "sav"]
    run = RUNS[family]
    out, _ = _anonymize(tmp_path, source, run, fmt)
    published = {"mynum", *run["schema"]}
    for table in _tables(out, fmt):
        reader = pyreadstat.read_sav if fmt == "sav" else pyreadstat.read_dta
        names = reader(str(table), metadataonly=True)[1].column_names
        assert set(names) & set(LABELS) <= published, table.name
        assert _labels(table) == {c: LABELS[c] for c in names if c in LABELS}, table.name
    hidden = [LABELS[c].encode() for c in DISTINCT if c not in published]
    assert _holding(out, tuple(hidden)) == []


@pytest.mark.parametrize("fmt", ["sav", "dta"])
def test_a_csv_file_gives_no_label(tmp_path, fmt):
    """The same records as a CSV file (no variable labels): the release's tables carry none."""
    frame = read_labelled(SAMPLES["sav"]).frame
    data = tmp_path / "sample.csv"
    frame.to_csv(data, index=False)
    out, _ = _anonymize(tmp_path, data, RUNS["generalized"], fmt)
    for table in _tables(out, fmt):
        assert _labels(table) == {}


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_csv_and_parquet_releases_carry_no_label(tmp_path, fmt):
    """From the SPSS file, a CSV or Parquet release holds no variable label: not even a
    published column's (a Parquet file's metadata could hold them)."""
    out, _ = _anonymize(tmp_path, SAMPLES["sav"], RUNS["generalized"], fmt)
    assert _holding(out, tuple(LABELS[c].encode() for c in DISTINCT)) == []


def _relabelled(tmp_path: Path, labels: dict[str, str]) -> Path:
    """The SPSS sample with some labels replaced (as a codebook's longer descriptions)."""
    codes, meta = pyreadstat.read_sav(str(SAMPLES["sav"]))
    path = tmp_path / "relabelled.sav"
    pyreadstat.write_sav(
        codes,
        str(path),
        column_labels={**LABELS, **labels},
        variable_value_labels=meta.variable_value_labels,
    )
    return path


def test_a_label_longer_than_stata_holds_is_cut_with_a_warning(tmp_path):
    """A Stata variable label holds 80 characters (pyreadstat refuses a longer one): written
    cut to its first 80, with a warning naming the columns; SPSS keeps them whole."""
    long = "Amount paid for the item in the last twelve months, in euros, before taxes (reported)"
    accents = "é" * 100  # 200 bytes of UTF-8
    data = _relabelled(tmp_path, {"mynum": long, "myord": accents})
    out, said = _anonymize(tmp_path, data, RUNS["generalized"], "dta", "stata")
    (table,) = _tables(out, "dta")
    assert _labels(table)["mynum"] == long[:80].rstrip() and _labels(table)["myord"] == "é" * 80
    assert (
        "output format dta: the variable labels of columns 'mynum', 'myord' are longer than a "
        "Stata file holds (80 characters), written cut short"
    ) in " ".join(said.split())
    out, said = _anonymize(tmp_path, data, RUNS["generalized"], "sav", "spss")
    (table,) = _tables(out, "sav")
    assert _labels(table)["mynum"] == long and _labels(table)["myord"] == accents
    assert "written cut short" not in said


def test_a_label_longer_than_spss_holds_is_cut_on_a_character(tmp_path):
    """An SPSS variable label holds 256 bytes (pyreadstat cuts a longer one silently): a label
    given to :func:`microanon.publish` (an SPSS file holds none that long, a SAS file may) is
    cut to its first 128 two-byte characters, never inside one, with a warning; the label of a
    column the schema does not publish is not written."""
    original = read_labelled(SAMPLES["sav"]).frame[["dtime", "mylabl", "mynum"]]
    schema = {"dtime": "identifier", "mylabl": "quasi", "mynum": "sensitive"}
    release = anatomy(original, schema, l=2)
    labels = {"dtime": LABELS["dtime"], "mynum": "é" * 200}
    out, numbers = publish(release, tmp_path / "r", original, schema, format="sav", labels=labels)
    assert {t.name: _labels(t) for t in _tables(out, "sav")} == {
        "qit.sav": {},
        "st.sav": {"mynum": "é" * 128},
    }
    assert numbers["verification"]["ok"]
    assert (
        "output format sav: the variable label of column 'mynum' is longer than an SPSS file "
        "holds (256 bytes of UTF-8), written cut short"
    ) in numbers["warnings"]
    assert _holding(out, (b"datetime",)) == []


def test_the_verification_catches_a_label_the_file_does_not_carry(tmp_path):
    """The labels read back are compared with those meant: a file whose ``mylabl`` carries the
    identifier's label and whose ``myord`` carries none fails, one line per column."""
    out, _ = _anonymize(tmp_path, SAMPLES["sav"], RUNS["generalized"], "sav")
    original = read_labelled(SAMPLES["sav"]).frame
    meant = {c: LABELS[c] for c in ("mylabl", "myord", "mynum")}
    assert verify_written(out, original, labels=meant).ok
    (path,) = _tables(out, "sav")
    codes, meta = pyreadstat.read_sav(str(path))
    swapped = {**meant, "mylabl": LABELS["dtime"]}
    del swapped["myord"]
    pyreadstat.write_sav(
        codes,
        str(path),
        column_labels=swapped,
        variable_value_labels=meta.variable_value_labels,
    )
    check = verify_written(out, original, labels=meant)
    assert not check.ok
    assert check.failures() == [
        "public table data: column 'mylabl' carries the variable label 'datetime' as read back "
        "from its file, where the variable label 'labeled' was meant",
        "public table data: column 'myord' carries no variable label as read back from its "
        "file, where the variable label 'ordinal' was meant",
    ]
