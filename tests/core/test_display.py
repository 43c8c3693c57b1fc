"""Notebook views: every ``_repr_html_`` is well-formed HTML, escapes what it shows and carries
its key figure; readable reprs; ``Release.report()`` is the public report and nothing internal."""

from __future__ import annotations

from html.parser import HTMLParser

import pandas as pd
import pytest

from microanon import InputError, Release
from microanon.core import display
from microanon.measures import attacker_risks, reidentification_risk
from microanon.methods.generalize import full_domain
from microanon.models import Profile, k_anonymity, profile

EVIL = "<script>alert(1)</script>"
#: Void elements: no end tag.
VOID = {"meta", "img", "br", "hr", "input", "link", "col", "source", "wbr"}


class _Checker(HTMLParser):
    """Records the tags and text of a document and whether every element is closed in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(f"unexpected </{tag}>")

    def handle_data(self, data):
        self.text.append(data)


def _parse(markup: str) -> _Checker:
    checker = _Checker()
    checker.feed(markup)
    checker.close()
    assert checker.errors == [] and checker.stack == [], (checker.errors, checker.stack)
    assert "script" not in checker.tags
    return checker


def _text(markup: str) -> str:
    return " ".join(_parse(markup).text)


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    """A small table whose values and one column name would be markup if not escaped."""
    return pd.DataFrame(
        {
            "zip": [EVIL, EVIL, EVIL, "130", "130", "130", "148", "148", "148"] * 4,
            "age": [51, 52, 53, 31, 32, 33, 41, 42, 43] * 4,
            "disease": ["flu", "cold", "flu", EVIL, "flu", "cold", "ulcer", "flu", "cold"] * 4,
        }
    )


@pytest.fixture(scope="module")
def release(table: pd.DataFrame) -> Release:
    rel = full_domain(
        table,
        {
            "zip": {"role": "insensitive"},  # published as it is, <script> included
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [10, 20]},
            },
            "disease": {"role": "sensitive"},
        },
        models=[{"k_anonymity": {"k": 3}}, {"l_diversity": {"l": 2}}],
    )
    rel.metadata["owner_note"] = "INTERNAL-ONLY-MARKER"  # internal: not declared public
    return rel


def test_release_view(release):
    markup = release._repr_html_()
    text = _text(markup)
    k = k_anonymity(release.data, ["age"], k=3)
    assert text.count("Release: full_domain (generalized)") == 1
    assert f"k-anonymity ✓ k = {k.value}" in text  # the key figure, first
    assert "distinct l-diversity" in text and EVIL in text  # shown as text ...
    assert "&lt;script&gt;" in markup  # ... because it is escaped
    assert "36 rows published" in text and "First rows of data" in text
    assert repr(release) == "<Release generalized (data: 36 rows)>"


def test_release_view_without_models():
    rel = Release("masked", {"data": pd.DataFrame({"x": [1.5, 2.5]})}, {"method": "noise"})
    text = _text(rel._repr_html_())
    assert "2 rows published" in text and "No model re-checked" in text


def test_verdict_view(table):
    verdict = k_anonymity(table, ["zip", "age"], k=5)
    markup = verdict._repr_html_()
    text = _text(markup)
    assert "✗ fails: achieved k = 4" in text and "&lt;script&gt;" in markup
    assert "The worst offending groups (of 9)" in text and EVIL in text
    assert repr(verdict) == f"<Verdict {verdict}>" and len(repr(verdict)) < 200
    holds = k_anonymity(table, ["zip"], k=12)
    assert "✓ holds: achieved k = 12" in _text(holds._repr_html_())


def test_profile_view(table):
    prof = profile(table, ["zip"], "disease")
    assert isinstance(prof, Profile) and isinstance(prof, dict)  # JSON as before
    text = _text(prof._repr_html_())
    assert "k = 12: the smallest of 3 classes of 36 records" in text
    assert "l_entropy" in text and "t_distance" in text
    evil = Profile({EVIL: 1})
    assert "&lt;script&gt;" in evil._repr_html_() and EVIL in _text(evil._repr_html_())


def test_risk_views(table):
    risk = reidentification_risk(table, ["zip", "age"])
    text = _text(risk._repr_html_())
    assert "highest risk 0.25; 100.0% of the records above 0.2" in text
    assert "\n" not in repr(risk) and repr(risk).startswith("<RiskProfile prosecutor: highest")
    people = pd.DataFrame({"zip": ["130", "148", EVIL], "n": [48, 24, 12]})
    attackers = attacker_risks(table, ["zip"], population=people, count="n")
    text = _text(attackers._repr_html_())
    assert "prosecutor: highest risk 0.08333" in text and "journalist" in text
    assert f"Marketer: {display.number(attackers.marketer)} of the records" in text
    assert repr(attackers).startswith("<AttackerRisks prosecutor highest 0.08333")
    journalist = f"highest risk {display.number(attackers.journalist.highest)}"
    assert journalist in _text(attackers.journalist._repr_html_())
    assert repr(attackers.prosecutor).startswith("<ModelRisk highest 0.08333")


def test_display_builders_escape_everything():
    markup = display.card(EVIL, EVIL, EVIL, display.table([[EVIL, 1234.5678]], header=[EVIL]))
    assert markup.count("&lt;script&gt;") == 5 and "<script>" not in markup
    assert "1,235" not in markup and "1235" in markup  # four significant digits
    assert display.number(1234567) == "1,234,567" and display.number(None) == "–"
    assert display.mark(True) == "✓" and display.mark(False) == "✗" and display.mark(None) == "–"


def test_release_report_is_the_public_report(release, tmp_path):
    report = release.report()
    outer = _parse(report._repr_html_())
    assert outer.tags == ["iframe"]  # the report's own styles stay in its frame
    (inner,) = [value for name, value in outer.attrs if name == "srcdoc"]
    assert inner is not None and inner.startswith("<!DOCTYPE html>")
    text = _text(inner)
    assert "Release: full_domain" in text and report.title == "Release: full_domain"
    assert "What was done" in text and "Guarantees" in text
    assert "k-anonymity" in text and "Disclosure risk of the published table" in text
    for internal in ("internal report", "Disclosure risk of the original", "INTERNAL-ONLY-MARKER"):
        assert internal not in inner and internal not in report.html
    path = report.save(tmp_path / "report.html")
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    mine = tmp_path / "mine.html"
    mine.write_text("my notes")
    with pytest.raises(InputError, match="not a microanon report"):
        report.save(mine)
    assert mine.read_text() == "my notes"
