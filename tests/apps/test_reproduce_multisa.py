"""``microanon reproduce multisa --quick`` through the CLI, and the run's invariants."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from reproduce_helpers import all_keys, check_expected_deviations, check_findings_table, run_quick

from microanon.apps.cli import main

EXPERIMENTS = [f"E2.{i}" for i in range(1, 9)] + ["E2.3u"]
SEED = "20150464"


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    return run_quick(tmp_path_factory, "multisa", SEED)


def test_findings_table_has_one_row_per_check_with_reasons(quick_run):
    check_findings_table(quick_run)


def test_fails_only_as_expected_deviations_and_prints_json(quick_run, monkeypatch):
    check_expected_deviations(monkeypatch, "multisa", quick_run)


def test_writes_a_self_contained_report_and_the_results(quick_run):
    out, output, _ = quick_run
    assert sorted(p.name for p in out.iterdir()) == [
        ".microanon-output",
        "report.html",
        "results.json",
    ]
    html = (out / "report.html").read_text(encoding="utf-8")
    for part in ("Fig. 1", "Fig. 2", "Fig. 3", "Fig. 4", "Fig. 5", "Figs. 6–7", "Figs. 8–9"):
        assert part in html
    assert "Figs. 10–11" in html and "30,718" in html
    assert html.count("data:image/png;base64,") == 9  # Figs. 1-11 and the deletions
    assert 'src="http' not in html
    assert "PASS" in output and "the paper's findings hold in" in output


def test_results_layout_and_no_seed(quick_run):
    out, _, results = quick_run
    assert set(results) == {*EXPERIMENTS, "checks", "meta"}
    meta = results["meta"]
    assert meta["quick"] is True and meta["records"] == 30_718
    assert meta["runtime_seconds"] > 0 and meta["microanon_version"]
    assert "entropy" in meta["rng"]
    assert not any(str(k).lower() == "seed" for k in all_keys(results))
    assert SEED not in (out / "results.json").read_text(encoding="utf-8")
    assert set(results["E2.3"]["4"]) == {"mixed", "rating"}
    assert set(results["E2.5"]["mixed"]) == {"2", "3", "4"}
    unstable = results["E2.3u"]["4"]["3"]
    assert len(unstable["unstable"]) == results["E2.3u"]["runs"]
    assert all(u == pytest.approx(unstable["stable"]) for u in unstable["unstable"])
    deletion = results["E2.6"]["4"]["3"]["deletion"]
    assert sum(deletion["deleted_by"].values()) == deletion["deleted"]
    assert 0 <= deletion["forced"] <= deletion["deleted"] <= deletion["sac"]
    point = results["E2.3"]["4"]["mixed"]["2"]
    parts = point["ail_enlarged"] + point["ail_suppressed"] + point["ail_deleted"]
    assert point["ail"] == pytest.approx(parts)
    assert 0 <= point["rce_mean"] < 1


def test_issue_checks_pass(quick_run):
    _, _, results = quick_run
    issue = [c for c in results["checks"] if c["kind"] == "issue"]
    assert {c["id"] for c in issue} >= {
        "records",
        "mixed_bound_l2",
        "mixed_bound_l3",
        "rating_above_08_l2",
        "lemma22",
    }
    # (an issue's check listed as an expected deviation may go either way: Rating's certainty
    # at l = 3 depends on the random assignment of occurrences to SIDs)
    failed = [c for c in issue if not c["passed"] and not c["expected"]]
    assert not failed, failed


def test_disclosure_numbers(quick_run):
    _, _, results = quick_run
    for lv in ("2", "3"):
        entry = results["E2.8"][lv]
        mixed, rat = entry["mixed"], entry["rating"]
        assert mixed["holders"] == rat["holders"] == len(mixed["probability"]) > 1000
        assert max(mixed["probability"]) <= 1 / int(lv) + 1e-12
        assert all(p in (0.0, 1 / int(lv)) for p in mixed["probability"])
        assert rat["max"] > 1 / int(lv)
        assert [r["rule"] for r in mixed["rules"]] == [r["rule"] for r in rat["rules"]]


def test_run_times_are_measured_not_checked(quick_run):
    """E2.1's and E2.2's speed comparisons are reported but never checked: the machine's load is
    no property of the reproduction (they never fail the run; this test does not assert them)."""
    _, _, results = quick_run
    assert {c["id"] for c in results["checks"] if c["timing"]} == {"e21_faster", "e22_age"}
    assert set(results["E2.1"]) >= {"bubble", "improved"}


def test_refuses_to_overwrite(quick_run):
    out, _, _ = quick_run
    result = CliRunner().invoke(main, ["reproduce", "multisa", "--quick", "--out", str(out)])
    assert result.exit_code == 2 and "already exists" in result.output
