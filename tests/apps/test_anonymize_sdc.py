"""`microanon anonymize` with SDC masking: the report's numbers of masked releases."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import microanon
from microanon import Release
from microanon.apps.anonymize import run_anonymize
from microanon.apps.config import load_config, parse_config
from microanon.apps.families.sdc import report as report_module
from microanon.core.factorize import shared_codes
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


def _starred_cell_by_cell(release: Release) -> Release:
    """The suppressed cells written ``"*"`` as the report did it before working on codes: every
    cell compared with missing, the column made objects, then the release built anew."""
    quasi = [q for q in release.metadata.get("quasi") or [] if q in release.data.columns]
    data = release.data.copy()
    for q in quasi:
        if data[q].isna().any():
            data[q] = data[q].astype(object).where(data[q].notna(), "*")
    return Release(release.kind, {**release.tables, "data": data}, release.metadata)


def _same_release(got: Release, want: Release) -> None:
    """The same tables (values, types of the cells, dtypes), metadata and public keys."""
    assert got.kind == want.kind and got.tables.keys() == want.tables.keys()
    for name, table in want.tables.items():
        pd.testing.assert_frame_equal(got.tables[name], table)
        for c in table.columns:
            kinds = [type(v) for v in got.tables[name][c]]
            assert kinds == [type(v) for v in table[c]], c
    assert got.metadata == want.metadata and got.public_keys == want.public_keys


_KEY_CELLS = {
    "number": st.one_of(st.floats(-5, 5, allow_nan=False), st.sampled_from([0.0, -0.0, 1e300])),
    "whole": st.integers(-3, 3),
    "text": st.sampled_from(["a", "b", "*", "1", ""]),
    "truth": st.booleans(),
    "day": st.sampled_from([pd.Timestamp("2020-01-02"), pd.Timestamp("2021-03-04 05:06")]),
}


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(_KEY_CELLS)), min_size=1, max_size=4),
    st.sampled_from(["plain", "nullable", "categorical"]),
    st.integers(1, 30),
    st.data(),
)
def test_suppressed_cells_as_star_from_codes_are_those_cell_by_cell(kinds, storage, n, data):
    """The report's starred table from each column's codes and distinct values is the one made
    cell by cell: numbers (0.0 beside -0.0), whole numbers, text (a value ``*`` of its own, the
    text ``1``), truth values and dates, missing or not, stored plain, nullable or categorical,
    as keys and as a column that is not one."""
    frame = {}
    for i, kind in enumerate(kinds):
        cells = data.draw(st.lists(st.one_of(_KEY_CELLS[kind], st.none()), min_size=n, max_size=n))
        column = pd.Series(cells, dtype=object)
        if storage == "categorical":
            column = column.astype("category")
        elif storage == "nullable":
            column = column.convert_dtypes()
        elif kind in ("number", "whole"):
            column = pd.to_numeric(column)
        frame[f"k{i}"] = column
    frame["other"] = pd.Series(
        data.draw(st.lists(st.none() | st.just("x"), min_size=n, max_size=n))
    )
    quasi = [f"k{i}" for i in range(len(kinds))]
    release = Release("masked", {"data": pd.DataFrame(frame)}, {"quasi": quasi})
    _same_release(report_module._suppressed_as_star(release), _starred_cell_by_cell(release))
    with shared_codes():  # (the codes of the run's columns, shared)
        _same_release(report_module._suppressed_as_star(release), _starred_cell_by_cell(release))


def test_suppressed_cells_as_star_of_a_local_suppression_of_a_real_survey():
    """ANES 2008 (state, education, race and age the keys, k = 5, a missing age dropped): the
    starred table of the release local suppression made, from codes, is the one made cell by
    cell, and the report gives its columns' codes to the measures."""
    from real_surveys import survey

    from microanon.core.factorize import coded
    from microanon.methods.sdc import local_suppression

    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["stateabb", "educat", "race4", "age", "pid7"]]
    schema = {
        "stateabb": {"role": "quasi"},
        "educat": {"role": "quasi", "kind": "categorical"},
        "race4": {"role": "quasi", "kind": "categorical"},
        "age": {"role": "quasi", "kind": "numeric", "missing": "drop"},
        "pid7": {"role": "sensitive", "kind": "categorical", "missing": "keep"},
    }
    keys = ["stateabb", "educat", "race4", "age"]
    release = local_suppression(anes.reset_index(drop=True), schema, k=5, columns=keys)
    assert release.data[["stateabb", "age"]].isna().any().all()
    with shared_codes():
        starred = report_module._suppressed_as_star(release)
        _same_release(starred, _starred_cell_by_cell(release))
        assert coded(starred.data["age"]) is not None
