"""``microanon reproduce randomization --quick`` through the CLI, and the run's invariants."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from reproduce_helpers import all_keys, check_expected_deviations, check_findings_table, run_quick

from microanon.apps.cli import main
from microanon.datasets import load_adult
from microanon.reproductions.randomization.measure import randomized_point
from microanon.reproductions.randomization.setup import SETTINGS, SettingData

EXPERIMENTS = [f"E0.{i}" for i in range(1, 10)]  # E0.8, E0.9: our extensions
VARIANTS = {"adult_45222", "adult_30162"}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    return run_quick(tmp_path_factory, "randomization", "20110")


def test_findings_table_has_one_row_per_check_with_reasons(quick_run):
    check_findings_table(quick_run)


def test_fails_only_as_expected_deviations_and_prints_json(quick_run, monkeypatch):
    check_expected_deviations(monkeypatch, "randomization", quick_run)


def test_writes_a_self_contained_report_and_the_results(quick_run):
    out, output, _ = quick_run
    assert sorted(p.name for p in out.iterdir()) == [
        ".microanon-output",
        "report.html",
        "results.json",
    ]
    html = (out / "report.html").read_text(encoding="utf-8")
    for part in (
        "Table 3",
        "Table 4",
        "Table 5",
        "Fig. 3",
        "Fig. 4",
        "Fig. 5",
        "Fig. 6a",
        "Fig. 7",
    ):
        assert part in html
    assert html.count("data:image/png;base64,") == 5
    assert 'src="http' not in html
    assert "PASS" in output and "checks pass" in output


def test_results_are_keyed_by_experiment_and_variant(quick_run):
    _, _, results = quick_run
    assert set(results) == {*EXPERIMENTS, "checks", "meta"}
    for exp in EXPERIMENTS:
        assert set(results[exp]) == VARIANTS
    assert set(results["E0.4"]["adult_45222"]) == {"RR-QI", "Anatomy", "l-diversity"}
    assert set(results["E0.7"]["adult_30162"]) == {"original", "RR-Both", "Anatomy", "l-diversity"}
    meta = results["meta"]
    assert meta["quick"] is True and meta["replications"] == 1
    assert meta["runtime_seconds"] > 0 and meta["microanon_version"]
    assert "entropy" in meta["rng"]
    assert not any("seed" == str(k).lower() for k in all_keys(results))  # never a seed
    assert "20110" not in (quick_run[0] / "results.json").read_text(encoding="utf-8")


def test_u_occupation_given_income_of_the_original(quick_run):
    _, _, results = quick_run
    u = results["E0.6"]["adult_30162"]["original"]["sa_qi"]["income"]
    assert u == pytest.approx(0.02744, abs=5e-5)
    line = next(
        c for c in results["checks"] if c["id"] == "u_original" and c["variant"] == "adult_30162"
    )
    assert line["passed"] and line["kind"] == "issue"


def test_table3_has_optimal_parameters_and_infeasible_rr_s(quick_run):
    _, _, results = quick_run
    for variant in VARIANTS:
        for setting in ("EMGRW", "ESGRO"):
            scenarios = results["E0.1"][variant][setting]
            for level in ("2", "3", "4", "5"):
                assert "single sensitive value" in scenarios["RR-S"][level]["why"]
                for scenario in ("RR-QI", "RR-Both"):
                    entry = scenarios[scenario][level]
                    assert len(entry["keep"]) == 5
                    assert all(0 < p <= 1 for p in entry["keep"].values())
                    assert min(entry["keep"].values()) < 1
                    assert entry["max_risk"] <= 1 / int(level) + 1e-9
                    assert entry["expected_squared_error"] > 0
                qi = scenarios["RR-QI"][level]["keep"]
                sensitive = list(qi)[-1]
                assert qi[sensitive] == 1.0  # RR-QI leaves the sensitive attribute alone


def test_comparison_points_and_checks(quick_run):
    _, _, results = quick_run
    for method in ("RR-QI", "Anatomy", "l-diversity"):
        original = results["E0.4"]["adult_45222"][method]["1"]
        assert original["kl"] == 0 and original["squared_euclidean"] == 0
        # (the truth's answers summed from its non-empty cells, the estimate's from the dense
        # array: zero to rounding)
        assert results["E0.5"]["adult_45222"][method]["1"]["query_error_cube"] <= 1e-12
        for entry in results["E0.4"]["adult_45222"][method].values():
            assert all(entry[m] >= 0 for m in ("kl", "chi_square", "squared_euclidean"))
    ldiv = results["E0.6"]["adult_45222"]["l-diversity"]["3"]
    assert ldiv["levels"]["income"] == 1 and ldiv["sa_qi"]["income"] == 0.0  # income -> *
    beats = [c for c in results["checks"] if c["id"].startswith("rr_beats_baselines_")]
    assert len(beats) == 2 * 5 and all(isinstance(c["passed"], bool) for c in beats)
    chi = next(
        c
        for c in beats
        if c["variant"] == "adult_45222" and c["values"]["metric"] == "squared_euclidean"
    )
    assert chi["passed"]  # by orders of magnitude on every ℓ


def test_existing_output_is_refused_before_any_work(tmp_path):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = CliRunner().invoke(main, ["reproduce", "randomization", "--quick", "--out", str(out)])
    assert result.exit_code == 2 and "already exists" in result.output
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_a_seed_reproduces_the_randomized_numbers():
    sd = SettingData.build("ESGRO", load_adult("train"), SETTINGS["ESGRO"])
    keep = {"education": 0.7, "income": 0.9, "sex": 0.95, "race": 0.9, "occupation": 1.0}
    first = randomized_point(sd, keep, 2, np.random.default_rng(5))
    second = randomized_point(sd, keep, 2, np.random.default_rng(5))
    assert first["kl"] == second["kl"] and first["sd"] == second["sd"]
    assert first["u"].equals(second["u"])
    other = randomized_point(sd, keep, 2, np.random.default_rng(6))
    assert other["kl"] != first["kl"]
