"""The workbench on real surveys, against the command line on the same file and roles: a date
column as a quasi-identifier from every file format (the European Social Survey's interview
dates), and a survey's sampling weight and household id (the US crash sample's case weights and
vehicles) in the risk of the original and in a run."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pandas as pd
import pyreadstat
import pytest
from click.testing import CliRunner
from real_surveys import survey
from starlette.testclient import TestClient
from test_workbench_api import _wait

from microanon.apps.cli import main
from microanon.apps.workbench import create_app

LOCAL = "http://127.0.0.1:8765"
#: A full-domain run with k = 5 and 5 % suppression.
K5 = {
    "method": "full_domain",
    "params": {"suppression": 0.05},
    "models": [{"k_anonymity": {"k": 5}}],
}


@pytest.fixture()
def client(tmp_path: Path):
    (tmp_path / "app").mkdir()
    with TestClient(create_app(tmp_path / "app"), base_url=LOCAL) as c:
        yield c


def _upload(client, path: Path) -> dict:
    r = client.post("/api/datasets", files={"file": (path.name, path.read_bytes())})
    assert r.status_code == 201, r.text
    return r.json()


def _set(client, ds_id: str, columns: dict) -> dict:
    r = client.put(f"/api/datasets/{ds_id}/schema", json={"columns": columns})
    assert r.status_code == 200, r.text
    return r.json()


def _k5(client, ds_id: str) -> dict:
    r = client.post(f"/api/datasets/{ds_id}/runs", json=K5)
    assert r.status_code == 202, r.text
    run = _wait(client, r.json()["id"])
    assert run["status"] == "done", run["error"]
    return run


def _config_beside(client, run_id: str, data: Path, where: Path) -> Path:
    """The run's config.zip unpacked into ``where``, the data file beside it: config.yaml."""
    archive = zipfile.ZipFile(io.BytesIO(client.get(f"/api/runs/{run_id}/config.zip").content))
    archive.extractall(where)
    (where / data.name).write_bytes(data.read_bytes())
    return where / "config.yaml"


def _cli(*args: str) -> dict:
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# ----------------------------------------------------------------------------- dates


@pytest.fixture(scope="module")
def ess_dated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """ESS round 10, Norway (1,411 respondents): region, age, sex, EU vote and the day of the
    interview (247 days), as CSV, Parquet, Excel, Stata and SPSS files. All but the CSV file
    hold the day as a date (pandas' datetime64), as the command line reads them."""
    ess = survey("ess10no")
    day = pd.to_datetime(ess["inwds"]).dt.tz_localize(None).dt.normalize()
    frame = ess[["region", "agea", "female", "eu_vote"]].assign(interview_date=day)
    where = tmp_path_factory.mktemp("ess")
    paths = {ext: where / f"ess.{ext}" for ext in ("csv", "parquet", "xlsx", "dta", "sav")}
    frame.to_csv(paths["csv"], index=False)
    frame.to_parquet(paths["parquet"], index=False)
    frame.to_excel(paths["xlsx"], index=False)
    pyreadstat.write_dta(frame, paths["dta"])
    pyreadstat.write_sav(frame, paths["sav"])
    return paths


ESS_ROLES = {
    "region": {"role": "quasi"},
    "agea": {"role": "quasi", "hierarchy": {"type": "intervals", "widths": [10, 20, 40]}},
    "female": {"role": "quasi"},
    "interview_date": {"role": "quasi", "hierarchy": {"type": "dates"}},
    "eu_vote": {"role": "sensitive"},
}


@pytest.mark.parametrize("ext", ["csv", "parquet", "xlsx", "dta", "sav"])
def test_a_date_column_is_a_quasi_identifier_from_every_format(client, ess_dated, ext):
    """The interview day is a quasi-identifier with the dates hierarchy from every format (read
    as a date, every leaf had been called missing: '2021-09-20T00:00:00.000000 (and 246
    more)'); its preview misses nothing and a run publishes it by month."""
    ds = _upload(client, ess_dated[ext])
    url = f"/api/datasets/{ds['id']}/hierarchy-preview"
    preview = client.post(url, json={"column": "interview_date", "hierarchy": {"type": "dates"}})
    assert preview.status_code == 200, preview.text
    assert preview.json()["missing"] == [] and preview.json()["count_per_level"][0] == 247
    _set(client, ds["id"], ESS_ROLES)
    run = _k5(client, ds["id"])
    assert run["result"]["verified"] is True and run["result"]["records"] > 1_300


def test_a_date_quasi_identifier_run_is_anonymize_on_its_config(client, ess_dated, tmp_path):
    """On the Parquet file, the run's config reproduces its public part with ``anonymize``, row
    counts included."""
    data = ess_dated["parquet"]
    ds = _upload(client, data)
    _set(client, ds["id"], ESS_ROLES)
    run = _k5(client, ds["id"])
    config = _config_beside(client, run["id"], data, tmp_path / "cfg")
    out = tmp_path / "out"
    numbers = _cli("anonymize", "--config", str(config), "--out", str(out), "-q")
    assert numbers["rows"] == run["result"]["rows"]
    public = zipfile.ZipFile(io.BytesIO(client.get(f"/api/runs/{run['id']}/public.zip").content))
    assert public.read("data.csv") == (out / "public" / "data.csv").read_bytes()


def test_dates_in_nanoseconds_show_as_dates(client, ess_dated, tmp_path):
    """A Parquet file whose dates are in nanoseconds (as pandas and Spark may write them): the
    column's examples are its dates, as the values list shows them and a release writes them
    (they had been integers, 1632096000000000000 for 2021-09-20), and the dates hierarchy
    covers them."""
    frame = pd.read_parquet(ess_dated["parquet"])
    frame["interview_date"] = frame["interview_date"].astype("datetime64[ns]")
    path = tmp_path / "ess_ns.parquet"
    frame.to_parquet(path, index=False)
    ds = _upload(client, path)
    column = next(c for c in ds["columns"] if c["name"] == "interview_date")
    first = str(frame["interview_date"].iloc[0])[:10]  # 2021-09-20
    assert column["type"] == "date" and column["examples"][0] == first
    _set(client, ds["id"], {"interview_date": ESS_ROLES["interview_date"]})


def test_a_hierarchy_missing_a_date_names_it_as_the_hierarchy_writes_it(client, ess_dated):
    """An uploaded ARX hierarchy without the first interview day is refused naming that day as
    the hierarchy's leaves are written (it had printed numpy's 2021-09-08T00:00:00.000000)."""
    ds = _upload(client, ess_dated["parquet"])
    days = sorted(pd.read_parquet(ess_dated["parquet"])["interview_date"].unique())
    text = "".join(f"{d};{str(d)[:7]};*\n" for d in days[1:])  # str: '2021-09-09 00:00:00'
    first = str(days[0])[:10]  # as a release writes the date: 2021-09-08
    upload = client.post("/api/hierarchies", files={"file": ("days.csv", text.encode())})
    assert upload.status_code == 201, upload.text
    spec = {"type": "arx_csv", "upload": upload.json()["upload"]}
    r = client.put(
        f"/api/datasets/{ds['id']}/schema",
        json={"columns": {"interview_date": {"role": "quasi", "hierarchy": spec}}},
    )
    assert r.status_code == 400, r.text
    assert r.json() == {
        "error": f"hierarchy of 'interview_date' misses value {first}",
        "field": "interview_date",
    }
    url = f"/api/datasets/{ds['id']}/hierarchy-preview"
    preview = client.post(url, json={"column": "interview_date", "hierarchy": spec}).json()
    assert preview["missing"] == [first]


# ----------------------------------------------------------------------------- weights


@pytest.fixture(scope="module")
def crashes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The US crash sample's (NASS CDS) occupants of 2002 with a national case weight of at
    least 1 (4,756 of 4,764), as a CSV file: occupant's age, sex and seat, seat belt, airbag,
    whether they died, injury severity (missing for some) and the vehicle (``caseid``; 994
    vehicles with two occupants)."""
    cds = survey("nass_cds")
    cds = cds[(cds["yearacc"] == 2002) & (cds["weight"] >= 1)]
    columns = ["ageOFocc", "sex", "occRole", "seatbelt", "airbag", "dead", "injSeverity"]
    path = tmp_path_factory.mktemp("cds") / "cds2002.csv"
    cds[[*columns, "caseid", "weight"]].to_csv(path, index=False)
    return path


CDS_ROLES = {
    "ageOFocc": {"role": "quasi", "hierarchy": {"type": "intervals", "widths": [5, 10, 20]}},
    "sex": {"role": "quasi"},
    "occRole": {"role": "quasi"},
    "seatbelt": {"role": "quasi"},
    "airbag": {"role": "insensitive"},
    "dead": {"role": "sensitive"},
    "injSeverity": {"role": "sensitive", "missing": "drop"},
    "caseid": {"role": "household"},
    "weight": {"role": "weight"},
}


def test_the_risk_of_the_original_takes_the_weight_and_household(client, crashes, tmp_path):
    """With a weight and a household id, the risk of the original holds the individual,
    household and log-linear risks of ``microanon risk --config`` on the workbench's own
    config, exactly (they had been None)."""
    ds = _upload(client, crashes)
    _set(client, ds["id"], CDS_ROLES)
    risk = client.get(f"/api/datasets/{ds['id']}/risk").json()
    numbers = risk["numbers"]
    assert risk["note"] is None and numbers["rows_left_out"] > 0
    run = _k5(client, ds["id"])
    config = _config_beside(client, run["id"], crashes, tmp_path / "cfg")
    cli = _cli("risk", "--config", str(config), "--no-suda")
    individual = numbers["individual_risk"]
    assert individual is not None and individual["household_global_risk"] is not None
    assert individual == cli["individual_risk"] and numbers["loglinear"] == cli["loglinear"]
    assert numbers["attackers"] == cli["attackers"] and numbers["rows"] == cli["rows"]


def test_a_weight_below_1_is_left_out_of_the_risk_as_risk_says(client, crashes, tmp_path):
    """Weights of 0 (the crash sample has 8 in 2002) cannot be inverse inclusion
    probabilities: the risk leaves the survey measures out and says why, in ``risk``'s words."""
    cds = survey("nass_cds")
    path = tmp_path / "cds_zero.csv"
    cds[cds["yearacc"] == 2002][pd.read_csv(crashes, nrows=0).columns].to_csv(path, index=False)
    ds = _upload(client, path)
    _set(client, ds["id"], CDS_ROLES)
    risk = client.get(f"/api/datasets/{ds['id']}/risk").json()
    assert risk["numbers"]["individual_risk"] is None and risk["numbers"]["loglinear"] is None
    assert risk["note"].startswith("the schema's weight weight is not used"), risk["note"]
    assert "zero" in risk["note"]


def test_a_run_publishes_the_weight_and_counts_rows_as_anonymize(client, crashes, tmp_path):
    """The run publishes the weight unchanged, never the household id, and its rows (in the
    file, left out, suppressed, published) are those of ``anonymize`` on its config."""
    ds = _upload(client, crashes)
    _set(client, ds["id"], CDS_ROLES)
    run = _k5(client, ds["id"])
    config = _config_beside(client, run["id"], crashes, tmp_path / "cfg")
    out = tmp_path / "out"
    numbers = _cli("anonymize", "--config", str(config), "--out", str(out), "-q")
    rows = run["result"]["rows"]
    assert rows == numbers["rows"] and rows["in_file"] == 4_756 and rows["left_out_total"] > 0
    public = zipfile.ZipFile(io.BytesIO(client.get(f"/api/runs/{run['id']}/public.zip").content))
    published = pd.read_csv(public.open("data.csv"))
    assert "weight" in published.columns and "caseid" not in published.columns
    assert len(published) == rows["published"]
    original = pd.read_csv(crashes)["weight"]
    assert set(published["weight"]) <= set(original)


def test_a_quasi_identifier_its_published_items_give_back_blocks_the_runs(client, tmp_path):
    """ESS round 9, Great Britain, as a Stata file: with immigsent a quasi-identifier beside its
    three items published unchanged (insensitive), the lint list names it, offers no acceptance
    but the remedy, and a run is refused naming the column; with the items sensitive, a caution
    says it and the runs go on; published like its items, nothing is said."""
    path = tmp_path / "ess.dta"
    ess = survey("ess9gb")
    pyreadstat.write_dta(
        ess[["region", "agea", "immigsent", "imbgeco", "imueclt", "imwbcnt"]], path
    )
    ds = _upload(client, path)
    items = dict.fromkeys(["imbgeco", "imueclt", "imwbcnt"], {"role": "insensitive"})
    quasi = {"role": "quasi", "kind": "numeric"}
    ds = _set(
        client, ds["id"], {"region": {"role": "quasi"}, "agea": quasi, "immigsent": quasi, **items}
    )
    (finding,) = ds["lint"]
    assert (finding["column"], finding["kind"]) == ("immigsent", "derived_from_published")
    assert finding["severity"] == "blocking" and finding["acceptable"] is False
    assert finding["remedy"].startswith("give imbgeco, imueclt and imwbcnt the role quasi too")
    refused = client.post(f"/api/datasets/{ds['id']}/runs", json=K5)
    assert refused.status_code == 400 and refused.json()["field"] == "immigsent"
    sensitive = dict.fromkeys(["imbgeco", "imueclt", "imwbcnt"], {"role": "sensitive"})
    ds = _set(client, ds["id"], sensitive)
    assert ds["lint"] == []
    assert [c for c in ds["lint_cautions"] if c.startswith("quasi-identifier immigsent is ")]
    ds = _set(client, ds["id"], {"immigsent": {"role": "sensitive"}})
    assert ds["lint"] == [] and ds["lint_cautions"] == []
    assert _k5(client, ds["id"])["result"]["verified"] is True


def test_the_key_ranking_of_init_is_dropped_once_the_keys_change(client, tmp_path):
    """``init``'s reason for a proposed quasi-identifier ends with its key ranking ('key rank 2
    of 6 (... lattice N nodes)'), which describes the proposed keys only: once the data owner
    changes the keys or leaves rows out, the page and the config's comments no longer state it
    (the UK smoking survey: 'key rank 7 of 11 ... lattice 32,000 nodes' stayed in config.yaml
    with 7 keys and a lattice of 320). A change that leaves the keys as they were keeps it
    (Chile's plebiscite survey, 2,700 people)."""
    path = tmp_path / "chile.csv"
    survey("chile").to_csv(path, index=False)
    ds = _upload(client, path)
    ranked = [c for c in ds["columns"] if "key rank" in c["reason"]]
    assert len(ranked) >= 2, [c["reason"] for c in ds["columns"]]
    kept = _set(client, ds["id"], {"vote": {"role": "insensitive"}})  # (not a key)
    assert [c["reason"] for c in kept["columns"] if c["name"] != "vote"] == [
        c["reason"] for c in ds["columns"] if c["name"] != "vote"
    ]
    changed = _set(client, ds["id"], {ranked[0]["name"]: {"role": "insensitive"}})
    assert not [c["reason"] for c in changed["columns"] if "key rank" in c["reason"]]
    config = zipfile.ZipFile(io.BytesIO(client.get(f"/api/runs/{_k5(client, ds['id'])['id']}"
                                                   "/config.zip").content))  # fmt: skip
    assert "key rank" not in config.read("config.yaml").decode()
