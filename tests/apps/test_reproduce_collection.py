"""``microanon reproduce collection --quick`` through the CLI, and the run's invariants."""

from __future__ import annotations

import pytest
from reproduce_helpers import all_keys, check_expected_deviations, check_findings_table, run_quick

SEED = "20080901"


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    return run_quick(tmp_path_factory, "collection", SEED)


def test_findings_table_has_one_row_per_check_with_reasons(quick_run):
    check_findings_table(quick_run)


def test_fails_only_as_expected_deviations_and_prints_json(quick_run, monkeypatch):
    check_expected_deviations(monkeypatch, "collection", quick_run)


def test_writes_a_self_contained_report_and_the_results(quick_run):
    out, output, _ = quick_run
    assert sorted(p.name for p in out.iterdir()) == [
        ".microanon-output",
        "report.html",
        "results.json",
    ]
    html = (out / "report.html").read_text(encoding="utf-8")
    for part in ("E1.1", "Fig. 5", "E1.2", "Fig. 6", "E1.3", "nursery", "adult"):
        assert part in html
    assert html.count("data:image/png;base64,") == 3
    assert 'src="http' not in html
    assert "PASS" in output and "the paper's findings hold in" in output


def test_results_layout_and_no_seed(quick_run):
    out, _, results = quick_run
    assert set(results) == {
        "gtr", "local_recoding", "perturbation", "original_accuracy", "E1.2", "E1.3", "checks",
        "meta",
    }  # fmt: skip
    meta = results["meta"]
    assert meta["quick"] is True and meta["data"]["adult"]["records"] == 30_162
    assert meta["data"]["nursery"]["records"] == 12_960
    assert not any(str(k).lower() == "seed" for k in all_keys(results))
    assert SEED not in (out / "results.json").read_text(encoding="utf-8")
    for name in ("adult", "nursery"):
        for tau, point in results["gtr"][name].items():
            assert point["published"] + point["abstained"] == meta["data"][name]["respondents"]
            assert 0 <= point["loss"] <= 2 and 0 < point["accuracy"] < 2
            assert point["protected"][tau] <= 1
            greedy, final = point["greedy"], point["final_set"]
            assert 0 < greedy["audited"] <= 300 and greedy["greedy_abstained"] == 0
            assert greedy["optimal"] <= greedy["audited"] and greedy["max_gap"] >= 0
            assert final["accepted"] == point["published"]
            assert 0 <= final["protected"] <= final["accepted"]
        assert set(results["perturbation"][name]) == {"mrr", "epr"}
        assert set(results["local_recoding"][name]) == {"lrka", "ld"}


def test_issue_checks_pass(quick_run):
    _, _, results = quick_run
    issue = [c for c in results["checks"] if c["kind"] == "issue"]
    # two data sets: two τ with two checks each, and greedy never abstaining wrongly
    assert len(issue) == 2 * (2 * 2 + 1)
    failed = [c for c in issue if not c["passed"]]
    assert not failed, failed
