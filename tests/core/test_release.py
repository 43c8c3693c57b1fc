from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from microanon import Hierarchy, InputError, Release
from microanon.core import RELEASE_KINDS, release_files


def frame(n: int = 5) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": ["[20, 30)", "*", "[30, 40)", "25", "[20, 30)"][:n],
            "count": np.arange(n, dtype=np.int64),
            "share": np.linspace(0, 1, n),
            "flag": [True, False, True, True, False][:n],
            "note": ["a", None, "c", "NA", ""][:n],
        }
    )


@pytest.mark.parametrize("kind", sorted(RELEASE_KINDS))
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_every_kind_round_trips(tmp_path, kind, fmt):
    tables = {name: frame() for name in RELEASE_KINDS[kind]}
    meta = {
        "method": "test",
        "matrix": np.eye(3) * 0.5,
        "levels": {"age": np.int64(2)},
        "hierarchy": Hierarchy.from_nested({"*": ["a", "b"]}),
    }
    rel = Release(kind, tables, meta, public=["levels"])
    out = rel.save(tmp_path / "r", format=fmt)
    files = sorted(p.name for p in (out / "public").iterdir())
    assert files == sorted(["release.json", *(f"{t}.{fmt}" for t in RELEASE_KINDS[kind])])
    assert sorted(p.name for p in (out / "internal").iterdir()) == ["internal.json"]
    back = Release.load(out)
    written = rel.in_written_order()  # a table of records: its rows sorted by their values
    assert back.equals(written) and back.has_internal
    assert back.metadata["matrix"] == (np.eye(3) * 0.5).tolist()
    public = Release.load(out / "public")
    assert not public.has_internal
    assert set(public.metadata) == {"method", "levels"}
    assert all(public.tables[t].equals(written.tables[t]) for t in rel.tables)
    # 'note' has an empty text beside a missing value, both written as an empty field: only a
    # CSV file needs the empty text's row listed, the missing value's is not (Parquet keeps a
    # null, as the Dask engine's release.json shows)
    manifest = json.loads((out / "public" / "release.json").read_text("utf-8"))
    listed = [info.get("empty") for info in manifest["tables"].values()]
    row = [int((written.tables[t]["note"] == "").argmax()) for t in rel.tables]
    assert listed == [{"note": [r]} if fmt == "csv" else None for r in row]
    assert all("missing" not in info for info in manifest["tables"].values())
    assert row == ([3] if RELEASE_KINDS[kind] == ("data",) else [4] * len(row))  # (rows sorted)


def test_single_table_release_is_data_csv(tmp_path):
    Release("generalized", {"data": frame()}).save(tmp_path / "g")
    assert (tmp_path / "g" / "public" / "data.csv").exists()
    manifest = json.loads((tmp_path / "g" / "public" / "release.json").read_text())
    assert manifest["kind"] == "generalized" and manifest["tables"]["data"]["rows"] == 5


def test_seeds_never_enter_a_release():
    with pytest.raises(InputError, match="seed"):
        Release("randomized", {"data": frame()}, {"params": {"p": 0.7, "seed": 42}})


def test_save_refuses_to_clobber_and_leaves_nothing_on_failure(tmp_path):
    rel = Release("masked", {"data": frame()})
    rel.save(tmp_path / "m")
    with pytest.raises(InputError, match="already exists"):
        rel.save(tmp_path / "m")
    rel.save(tmp_path / "m", overwrite=True)
    with pytest.raises(InputError, match="format"):
        rel.save(tmp_path / "x", format="xlsx")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


def test_bad_releases():
    with pytest.raises(InputError, match="unknown release kind"):
        Release("secret", {"data": frame()})
    with pytest.raises(InputError, match="needs table"):
        Release("anatomized", {"qit": frame()})
    with pytest.raises(InputError, match="holds no release"):
        Release.load("/nonexistent/dir")
    with pytest.raises(InputError, match="public must be a list"):
        Release("masked", {"data": frame()}, public="levels")


def test_a_failed_save_leaves_nothing_behind(tmp_path, monkeypatch):
    rel = Release("anatomized", {"qit": frame(), "st": frame()})

    def broken(df, types, path, *args, **kwargs):
        if str(path).endswith("st.csv"):
            raise OSError("disk full")
        return original(df, types, path, *args, **kwargs)

    original = release_files.write_csv
    monkeypatch.setattr(release_files, "write_csv", broken)
    with pytest.raises(OSError, match="disk full"):
        rel.save(tmp_path / "a")
    assert list(tmp_path.iterdir()) == []


def test_internal_metadata_never_reaches_the_public_part(tmp_path):
    meta = {"method": "m", "hierarchies": {"age": ["17", "90"]}, "rows_in": 10, "levels": {}}
    Release("generalized", {"data": frame()}, meta, public=["levels"]).save(tmp_path / "r")
    text = (tmp_path / "r" / "public" / "release.json").read_text()
    assert "hierarchies" not in text and "rows_in" not in text and '"90"' not in text
    internal = json.loads((tmp_path / "r" / "internal" / "internal.json").read_text())
    assert internal["metadata"]["hierarchies"] == {"age": ["17", "90"]}


def test_release_written_by_0_1_still_loads(tmp_path):
    d = tmp_path / "old"
    d.mkdir()
    frame().to_csv(d / "data.csv", index=False)
    cols = list(frame().columns)
    types = {"age": "string", "count": "int", "share": "float", "flag": "bool", "note": "string"}
    manifest = {
        "microanon_release": 1,
        "kind": "generalized",
        "format": "csv",
        "tables": {"data": {"file": "data.csv", "rows": 5, "columns": cols, "types": types}},
        "metadata": {"method": "full_domain", "rows_in": 7},
    }
    (d / "release.json").write_text(json.dumps(manifest))
    rel = Release.load(d)
    assert rel.metadata["rows_in"] == 7 and "rows_in" not in rel.public_metadata
    assert len(rel.data) == 5


@pytest.mark.parametrize("name", ["../secret.csv", "/etc/passwd", "sub/data.csv", "..", ""])
def test_load_refuses_table_files_outside_the_release(tmp_path, name):
    Release("generalized", {"data": frame()}).save(tmp_path / "r")
    path = tmp_path / "r" / "public" / "release.json"
    manifest = json.loads(path.read_text())
    manifest["tables"]["data"]["file"] = name
    path.write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="file"):
        Release.load(tmp_path / "r")


@pytest.mark.parametrize(
    "meta",
    [
        {"base_seed": 3},
        {"parameters": {"Seeds": [1, 2]}},
        {"state": np.random.default_rng(1)},
        {"gen": np.random.SeedSequence(5)},
        {"x": {"bit_generator": "PCG64", "state": {"state": 1, "inc": 2}}},
        {"entropy": 12345},
    ],
)
def test_random_state_never_enters_a_release(meta):
    with pytest.raises(InputError, match="seed|random"):
        Release("randomized", {"data": frame()}, meta)


def test_text_release_keeps_text_tables_and_refuses_other_columns():
    from microanon.core.release import canonical_column, text_release

    table = pd.DataFrame(
        {"q": pd.Series(["a", "*"], dtype=object), "n": [1, 2]}, index=pd.Index([5, 9])
    )
    release = text_release("generalized", {"data": table}, {"method": "m"}, public=("x",))
    assert release.equals(Release("generalized", {"data": table}, {"method": "m"}, ["x"]))
    assert release.data.index.equals(pd.RangeIndex(2))
    for other in (table.astype({"q": "category"}), table.astype({"q": "string"})):
        with pytest.raises(InputError, match="^text release: column 'q' is "):
            text_release("generalized", {"data": other})
    with pytest.raises(InputError, match="needs table"):
        text_release("generalized", {"other": table})
    # canonical_column: what Release makes of a column, index kept.
    column = canonical_column(pd.Series(pd.Categorical(["b", "a"]), index=[3, 4]))
    assert column.dtype == object and list(column) == ["b", "a"] and list(column.index) == [3, 4]


def test_a_table_naming_a_column_twice_is_refused():
    table = pd.DataFrame([["a", 1, "b"]], columns=["x", "n", "x"])
    message = r"^release table 'data' names column\(s\) more than once: x$"
    with pytest.raises(InputError, match=message):
        Release("generalized", {"data": table})


@pytest.mark.parametrize("fmt", ["sav", "dta"])
def test_spss_and_stata_tables_round_trip_with_labels_for_held_values_only(tmp_path, fmt):
    """Text as labelled codes (a label per value held), numbers as numbers, missing values
    missing, truth values as text labels; read back as written."""
    import pyreadstat

    data = pd.DataFrame(
        {
            "age": [30, 41, 41, 52],
            "score": [1.5, None, 2.25, 3.0],
            "city": ["Orléans", None, "Nîmes", "Orléans"],
            "flag": [True, False, True, True],
        }
    )
    release = Release("masked", {"data": data}, {"quasi": ["city"]})
    release.save(tmp_path / "r", format=fmt)
    back = Release.load(tmp_path / "r" / "public")
    pd.testing.assert_frame_equal(back.data, release.in_written_order().data)
    reader = pyreadstat.read_sav if fmt == "sav" else pyreadstat.read_dta
    codes, meta = reader(str(tmp_path / "r" / "public" / f"data.{fmt}"))
    assert meta.variable_value_labels["city"] == {1.0: "Nîmes", 2.0: "Orléans"}
    assert set(meta.variable_value_labels) == {"city", "flag"}
    assert codes["age"].tolist() == [30, 41, 41, 52]


def test_spss_and_stata_refuse_what_they_cannot_hold(tmp_path):
    bad_name = Release("masked", {"data": pd.DataFrame({"salary-class": ["a", "b"]})}, {})
    with pytest.raises(InputError, match="column 'salary-class' cannot be a Stata variable"):
        bad_name.save(tmp_path / "a", format="dta")
    with pytest.raises(InputError, match="column .salary-class. cannot be an SPSS variable"):
        bad_name.save(tmp_path / "b", format="sav")
    big = Release("masked", {"data": pd.DataFrame({"id": [2**60, 1]})}, {})
    with pytest.raises(InputError, match="column 'id' holds whole numbers above 2\\*\\*53"):
        big.save(tmp_path / "c", format="sav")
    assert not any((tmp_path / d).exists() for d in "abc")


@pytest.mark.parametrize("fmt", ["csv", "sav", "dta"])
def test_missing_answers_are_not_listed_and_an_empty_text_is(tmp_path, fmt):
    """AER's STAR: 11,598 pupils, their class type, lunch and teacher items missing for the
    grades a pupil was not in the study (19,609 cells in the columns published here). The
    manifest lists no missing value (it listed each of them, 0.3 MB of row numbers): it lists
    the one empty text added, and every other empty field reads back missing."""
    from real_surveys import rdataset

    data = rdataset("AER", "STAR")[["gender", "ethnicity", "star1", "lunch1", "degree1"]]
    data = data.astype(object).where(data.notna(), None)
    data.loc[7, "degree1"] = ""  # (an empty text, not a missing one)
    release = Release("masked", {"data": data}, {"quasi": ["gender", "ethnicity"]})
    out = release.save(tmp_path / "r", format=fmt)
    manifest = json.loads((out / "public" / "release.json").read_text("utf-8"))
    info = manifest["tables"]["data"]
    written = release.in_written_order().data
    assert "missing" not in info and info["empty"] == {
        "degree1": np.flatnonzero(written["degree1"].eq("")).tolist()
    }
    assert written.isna().sum().sum() > 10_000
    back = Release.load(out / "public").data
    pd.testing.assert_frame_equal(back, written, check_column_type=False)
