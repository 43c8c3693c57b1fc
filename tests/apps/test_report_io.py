from __future__ import annotations

import pandas as pd
import pytest

from microanon import InputError
from microanon.apps.io import detect_delimiter, read_table
from microanon.apps.report import Report, count_axis, new_figure


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


def test_a_count_axis_is_labelled_in_short_plain_numbers():
    """Log axes of counts: 1, 2, 5 of each power of ten as 2k, 1M (no mathtext, no minor
    ticks), inside a fixed-margin figure."""
    fig = new_figure(6.4, 3.0, fixed=True)
    ax = fig.add_subplot()
    ax.plot([1, 3_000_000], [0.5, 2_000])
    count_axis(ax, "x")
    count_axis(ax, "y")
    fig.canvas.draw()
    xs = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    ys = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert {"1", "100", "2k", "50k", "1M", "2M"} <= set(xs)
    assert {"0.5", "1", "2", "5", "1k", "2k"} <= set(ys)
    assert not any("$" in t for t in xs + ys)
    assert ax.xaxis.get_minorticklocs().size == 0


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


@pytest.mark.parametrize(
    "header, named",
    [
        ("zip,age,zip", "'zip' (columns 1, 3)"),
        ("zip, zip,d", "'zip' (columns 1, 2)"),  # spaces after the delimiter are skipped
        ('"zip";age;"zip";age', "'zip' (columns 1, 3); 'age' (columns 2, 4)"),
        ("zip,zip.1,zip", "'zip' (columns 1, 3)"),  # pandas would have made zip, zip.1, zip.2
    ],
)
def test_repeated_csv_header_names_are_refused(tmp_path, header, named):
    sep = ";" if ";" in header else ","
    n = header.count(sep) + 1
    (tmp_path / "t.csv").write_text(header + "\n" + sep.join(["1"] * n) + "\n")
    with pytest.raises(InputError, match="appear more than once") as caught:
        read_table(tmp_path / "t.csv")
    assert named in str(caught.value)


def test_repeated_names_only_matter_in_a_header(tmp_path):
    (tmp_path / "t.csv").write_text("a,a,b\n1,2,3\n")
    assert read_table(tmp_path / "t.csv", header=False).shape == (2, 3)  # a,a,b is a data row
    (tmp_path / "u.csv").write_text(",a,\n1,2,3\n")  # two unnamed columns: not a repeat
    assert read_table(tmp_path / "u.csv").shape == (1, 3)


def test_repeated_parquet_column_names_are_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays(
        [pa.array([1, 2]), pa.array([3, 4]), pa.array(["x", "y"])], names=["zip", "zip", "d"]
    )
    pq.write_table(table, tmp_path / "t.parquet")  # pyarrow writes repeated names
    with pytest.raises(InputError, match=r"'zip' \(columns 1, 2\) appear more than once"):
        read_table(tmp_path / "t.parquet")
