from __future__ import annotations

import pandas as pd
import pytest

from microanon import InputError
from microanon.apps.io import detect_delimiter, read_table
from microanon.apps.report import Report, new_figure


def test_report_sections_tables_and_figures(tmp_path):
    report = Report("Title <b>", "sub")
    sec = report.section("One", "intro & more")
    sec.table(pd.DataFrame({"a": [1, 2], "b": [0.123456, float("nan")]}), caption="cap")
    sec.metrics({"k": 5})
    fig = new_figure()
    fig.add_subplot().plot([1, 2, 3])
    sec.figure(fig, "a figure")
    report.section("Two").paragraph("text")
    html = report.write(tmp_path / "r.html").read_text()
    assert "Title &lt;b&gt;" in html and "intro &amp; more" in html  # escaped
    assert "0.1235" in html and "–" in html
    assert html.count("<section") == 2 and "data:image/png;base64," in html


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_delimiters_are_detected(tmp_path, sep):
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["x y", "z", "w"]})
    df.to_csv(tmp_path / "t.csv", sep=sep, index=False)
    assert detect_delimiter((tmp_path / "t.csv").read_text()) == sep
    assert read_table(tmp_path / "t.csv").equals(df)


def test_parquet_and_na_markers(tmp_path):
    df = pd.DataFrame({"a": [1, 2], "b": ["?", "z"]})
    df.to_csv(tmp_path / "t.csv", index=False)
    assert read_table(tmp_path / "t.csv", na_values=["?"])["b"].isna().sum() == 1
    df.to_parquet(tmp_path / "t.parquet")
    assert read_table(tmp_path / "t.parquet").equals(df)


def test_unreadable_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_table(tmp_path / "missing.csv")
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="cannot read"):
        read_table(tmp_path / "bad.parquet")
