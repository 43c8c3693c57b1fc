"""`microanon anonymize` with SDC masking: the report's numbers of masked releases."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import microanon
from microanon import Release
from microanon.apps.anonymize import run_anonymize
from microanon.apps.config import load_config, parse_config
from microanon.datasets import load_adult
from microanon.datasets.adult import ADULT_COLUMNS
from microanon.measures import risk_summary, utility_summary
from microanon.models import check_release

# The example pipelines that ship in the package (`microanon examples` writes them out).
EXAMPLES = Path(microanon.__file__).resolve().parent / "examples" / "adult"
NUMERIC = ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss", "hours_per_week"]


def left_out_but(spec: dict) -> dict:
    """An Adult schema: the given roles, every other column left out (role identifier)."""
    return {**dict.fromkeys(ADULT_COLUMNS, "identifier"), **spec}


@pytest.fixture(scope="module")
def adult():
    return load_adult()


@pytest.fixture(scope="module")
def mdav_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sdc") / "mdav"
    return run_anonymize(EXAMPLES / "microaggregation.yaml", out)


def test_mdav_report_numbers_are_the_measures_of_the_release(mdav_run, adult):
    path, release, numbers = mdav_run
    # The example claims 3-anonymity (all six quasi-identifiers aggregated) and it holds.
    assert release.metadata["models"] == [{"k_anonymity": {"k": 3}}]
    assert numbers["verified"] is True
    saved = Release.load(path)
    assert all(v.holds for v in check_release(saved))
    # The files hold the release's rows, sorted by their values (in memory: the input's order)
    assert saved.data.equals(release.in_written_order().data)
    # Utility and risk, recomputed against the original columns by position.
    util = utility_summary(adult, release.data, NUMERIC)
    risk = risk_summary(adult, release.data, NUMERIC, p=5, r=5)
    drisk = risk_summary(adult, release.data, NUMERIC, p=5, r=5, outside=1)
    u, r = numbers["utility"], numbers["after"]
    assert u["SSE/SST"] == pytest.approx(util.information_loss.ratio)
    assert u["SSE/SST"] == pytest.approx(release.metadata["information_loss"])  # z-scores both
    assert u["IL1s"] == pytest.approx(util.il1s)
    assert u["mean change (max relative)"] < 1e-12  # group means keep the column means
    assert u["correlation change (max absolute)"] == pytest.approx(util.correlations.max_absolute)
    assert r["record linkage"] == pytest.approx(risk.linkage.share)
    assert r["interval disclosure (±5% sd, every column)"] == pytest.approx(risk.interval.share)
    assert r["interval disclosure (sdcMicro dRisk, k = 0.05)"] == pytest.approx(
        drisk.interval.share
    )
    assert r["rank disclosure (±5% of records)"] == pytest.approx(risk.rank.share)
    # MDAV is deterministic: the numbers of Adult's six numeric columns at k = 3.
    assert u["SSE/SST"] == pytest.approx(0.008823, abs=5e-7)
    assert r["record linkage"] == pytest.approx(0.2792, abs=5e-5)
    assert r["record linkage"] <= 1 / 3  # every masked record is shared by >= 3 records
    assert r["interval disclosure (±5% sd, every column)"] == pytest.approx(0.2922, abs=5e-5)


def test_mdav_report_shows_them(mdav_run):
    path, _, numbers = mdav_run
    html = (path / "internal" / "report.html").read_text()
    for name in ("SSE/SST", "IL1s", "record linkage", "rank disclosure", "holds (re-checked"):
        assert name in html
    shown = re.search(r"<td>SSE/SST</td><td>([0-9.e-]+)</td>", html).group(1)
    assert float(shown) == pytest.approx(numbers["utility"]["SSE/SST"], rel=1e-3)


def test_noise_release_claims_nothing_and_reports_its_risk(tmp_path, adult):
    cfg = load_config(EXAMPLES / "add_noise.yaml")
    _, release, numbers = run_anonymize(cfg, tmp_path / "noise", rng=3)
    assert release.metadata["models"] == [] and numbers["verified"] is None
    assert release.metadata["masked_numeric"] == NUMERIC
    risk = risk_summary(adult, release.data, NUMERIC)
    assert numbers["after"]["record linkage"] == pytest.approx(risk.linkage.share)
    assert 0 < numbers["utility"]["SSE/SST"] < 0.02  # α = 0.1: E[SSE/SST] = α² = 0.01


def test_wildcard_suppression_report_counts_suppressed_cells_as_star(tmp_path):
    keys = ["sex", "race", "marital_status", "education"]
    cfg = parse_config(
        {
            "data": "dataset:adult",
            "schema": left_out_but({**dict.fromkeys(keys, "quasi"), "occupation": "sensitive"}),
            "method": "local_suppression",
            "params": {"k": 5},
        }
    )
    path, release, numbers = run_anonymize(cfg, tmp_path / "supp")
    meta = release.metadata
    assert meta["models"] == [] and numbers["verified"] is None  # wildcard: no claim
    assert release.data[keys].isna().sum().sum() == meta["suppressed_total"] > 0
    assert numbers["utility"]["suppressed cells"] == meta["suppressed_total"]
    # Counted as "*", the classes are those of the starred table (not k-anonymity: no claim).
    starred = release.data[keys].astype(object).fillna("*")
    assert numbers["after"]["k"] == starred.groupby(keys).size().min()
    html = (path / "internal" / "report.html").read_text()
    assert f"{meta['suppressed_total']:,} key cells suppressed" in html


def test_sampling_report(tmp_path, adult):
    cfg = parse_config(
        {
            "data": "dataset:adult",
            "schema": left_out_but({"sex": "quasi", "race": "quasi", "occupation": "sensitive"}),
            "method": "sample",
            "params": {"fraction": 0.1, "strata": ["sex"]},
        }
    )
    _, release, numbers = run_anonymize(cfg, tmp_path / "sample", rng=5)
    assert release.metadata["rows_out"] == round(0.1 * len(adult)) == len(release.data)
    assert numbers["after"]["classes"] <= numbers["before"]["classes"]


def test_demo_section_table_and_plot(adult):
    from microanon.apps.demo import DemoContext
    from microanon.apps.families.sdc.demo import sdc_section
    from microanon.apps.report import Report
    from microanon.datasets import adult_schema

    schema = adult_schema(sensitive="occupation")
    report = Report("demo")
    sdc_section(report, DemoContext(adult, schema, schema.quasi, "occupation"))
    (section,) = report.sections
    html = "".join(section.blocks)
    assert "data:image/png;base64," in html  # the trade-off plot
    rows = re.findall(r"<tr><td>([^<]+)</td><td>([^<]+)</td>((?:<td>[^<]*</td>)+)</tr>", html)
    table = {
        (m, p): [float(v) for v in re.findall(r"<td>([^<]*)</td>", rest)] for m, p, rest in rows
    }
    assert set(table) == {
        ("MDAV", "k = 3"), ("MDAV", "k = 5"), ("additive noise", "α = 0.1"),
        ("additive noise", "α = 0.5"), ("Kim", "α = 0.5"), ("rank swapping", "p = 5"),
        ("rank swapping", "p = 15"),
    }  # fmt: skip
    # columns: seconds, SSE/SST, IL1s, max correlation change, linkage, interval, rank
    for k in (3, 5):
        assert table[("MDAV", f"k = {k}")][4] <= 1 / k
    assert table[("MDAV", "k = 3")][1] == pytest.approx(0.008823, abs=5e-6)
    assert table[("Kim", "α = 0.5")][3] < 1e-6  # correlations kept exactly
    noise = table[("additive noise", "α = 0.1")], table[("additive noise", "α = 0.5")]
    assert noise[0][1] < noise[1][1] and noise[0][4] > noise[1][4]  # more noise: loss up, risk down
