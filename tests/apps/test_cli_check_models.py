"""``microanon check`` with β-likeness, δ-disclosure privacy, δ-presence and k-map (hand-worked)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from microanon.apps.cli import main
from microanon.models import delta_presence


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    # Released: 476** holds flu and cold, 479** one flu; overall flu 2/3, cold 1/3.
    released = pd.DataFrame({"zip": ["476**", "476**", "479**"], "d": ["flu", "cold", "flu"]})
    # The population has 4 people in each class: presence ratios 2/4 and 1/4.
    population = pd.DataFrame({"zip": ["476**", "479**"], "people": [4, 4]})
    released.to_csv(tmp_path / "released.csv", index=False)
    population.to_csv(tmp_path / "population.csv", index=False)
    return {"data": str(tmp_path / "released.csv"), "pop": str(tmp_path / "population.csv")}


def _check(files: dict[str, str], *args: str) -> tuple[int, dict]:
    base = ["check", files["data"], "--quasi", "zip", "--sensitive", "d", "--json"]
    result = CliRunner().invoke(main, [*base, *args])
    return result.exit_code, json.loads(result.stdout) if result.exit_code in (0, 1) else {}


def test_profile_has_every_model_worked_by_hand(files: dict[str, str]) -> None:
    code, p = _check(files, "--population-file", files["pop"], "--population-count", "people")
    assert code == 0
    # β: cold in 476** (1/2 - 1/3) / (1/3) = 0.5, flu in 479** (1 - 2/3) / (2/3) = 0.5.
    assert p["beta_likeness"] == pytest.approx(0.5) and p["beta_form"] == "basic"
    # δ-disclosure: max |ln(q / p)| = ln(1.5) (cold in 476**, flu in 479**).
    assert p["delta_disclosure"] == pytest.approx(math.log(1.5))
    assert p["delta_presence_min"] == pytest.approx(0.25)
    assert p["delta_presence_max"] == pytest.approx(0.5)
    assert p["k_map"] == 4


def test_requirements_hold_or_fail_with_exit_1(files: dict[str, str]) -> None:
    pop = ["--population-file", files["pop"], "--population-count", "people"]
    code, p = _check(files, *pop, "--delta-min", "0.25", "--delta-max", "0.5", "--k-map", "4")
    assert code == 0 and p["holds"] and len(p["requirements"]) == 3
    code, p = _check(files, *pop, "--delta-min", "0.3", "--k-map", "5")
    assert code == 1 and [r["holds"] for r in p["requirements"]] == [False, False]
    code, p = _check(files, "--beta", "0.5", "--delta-disclosure", "0.5")
    assert code == 0 and p["holds"]
    code, p = _check(files, "--beta", "0.4")
    assert code == 1
    # δ-disclosure is strict: |ln(q / p)| < δ fails at δ = ln 1.5 itself.
    code, p = _check(files, "--delta-disclosure", str(math.log(1.5)))
    assert code == 1


def test_enhanced_beta_likeness(files: dict[str, str]) -> None:
    # Enhanced β-likeness caps each gain at min(β, -ln p): flu in 479** gains 0.5 while
    # -ln(2/3) = 0.405, so no β makes it hold.
    code, p = _check(files, "--beta-form", "enhanced", "--beta", "10")
    assert code == 1 and p["beta_form"] == "enhanced"
    assert p["requirements"][0]["holds"] is False


def test_k_map_estimated_from_a_sampling_fraction(files: dict[str, str]) -> None:
    code, p = _check(
        files, "--k-map-estimator", "zero_truncated_poisson", "--sampling-fraction", "0.5"
    )
    assert code == 0 and p["k_map_estimator"] == "zero_truncated_poisson"
    assert isinstance(p["k_map"], int) and p["k_map"] >= 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--delta-max", "0.5"], "--population-file"),
        (["--k-map", "3"], "--population-file or --k-map-estimator"),
        (["--sampling-fraction", "0.5"], "--k-map-estimator"),
        (["--beta", "0"], "--beta must be positive"),
        (["--delta-min", "1.5"], "--delta-min must be in [0, 1]"),
    ],
)
def test_bad_requests_are_one_line_errors(
    files: dict[str, str], args: list[str], words: str
) -> None:
    result = CliRunner().invoke(
        main, ["check", files["data"], "--quasi", "zip", "--sensitive", "d", *args]
    )
    assert result.exit_code == 2
    assert words in result.output and "Traceback" not in result.output


def test_population_and_estimator_together_are_refused(files: dict[str, str]) -> None:
    result = CliRunner().invoke(
        main,
        ["check", files["data"], "--quasi", "zip", "--sensitive", "d"]
        + ["--population-file", files["pop"], "--k-map-estimator", "poisson"]
        + ["--sampling-fraction", "0.5"],
    )
    assert result.exit_code == 2 and "not both" in result.output


def test_population_without_the_quasi_identifier_is_refused(
    files: dict[str, str], tmp_path: Path
) -> None:
    pd.DataFrame({"postcode": ["476**"], "people": [9]}).to_csv(tmp_path / "bad.csv", index=False)
    result = CliRunner().invoke(
        main,
        ["check", files["data"], "--quasi", "zip", "--sensitive", "d"]
        + ["--population-file", str(tmp_path / "bad.csv"), "--population-count", "people"],
    )
    assert result.exit_code == 2 and "zip" in result.output


def test_delta_presence_verdict_reports_the_lowest_ratio() -> None:
    released = pd.DataFrame({"zip": ["476**", "476**", "479**"]})
    public = pd.DataFrame({"zip": ["476**", "479**"], "n": [4, 4]})
    verdict = delta_presence(released, "zip", public, 0.3, 0.5, count="n")
    assert verdict.value == pytest.approx(0.5) and verdict.lowest == pytest.approx(0.25)
    assert not verdict.holds and "lowest 0.25" in str(verdict)
    assert verdict.to_dict()["lowest"] == pytest.approx(0.25)
