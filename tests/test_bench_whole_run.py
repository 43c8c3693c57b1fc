"""benchmarks/whole_run.py without ARX: its configuration, the stage lines it reads and one tiny
run of the whole command (2,000 rows, in memory), whose table it prints."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def whole_run() -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("whole_run")


def test_config_and_stage_lines(whole_run: ModuleType, tmp_path: Path) -> None:
    from microanon.apps.config import load_config

    cfg = load_config(whole_run.write_config(tmp_path))
    assert tuple(cfg.schema.quasi) == whole_run.QUASI
    assert cfg.method == "full_domain" and cfg.params["suppression"] == 0.05
    assert sorted(p.name for p in tmp_path.glob("hierarchy_*.csv")) == sorted(
        f"hierarchy_{q}.csv" for q in whole_run.QUASI
    )
    stderr = (
        "microanon anonymize: [1/6] read 100,000 records ... done in 0.6 s\n"
        "microanon anonymize: [2/6] schema lint ... done in 1.6 s\n"
        "microanon anonymize: [3/6] method full_domain ... done in 0.5 s\n"
        "WARNING: something else\n"
        "microanon anonymize: [6/6] reports ... done in 47.1 s\n"
    )
    assert whole_run.stage_seconds(stderr) == {
        "read": 0.6, "lint": 1.6, "method": 0.5, "reports": 47.1
    }  # fmt: skip
    survey = load_config(whole_run.write_config(tmp_path, survey=True))
    assert (survey.schema.weight, survey.schema.household) == ("weight", "household")
    data = whole_run.generate("survey", 3000)
    assert data["weight"].min() >= 1 and data["weight"].nunique() > 2000
    assert data["household"].value_counts().max() == 3
    seconds = {"encode": 1.0, "frequencies": 0.5, "search": 0.25, "write": 2.0, "verify": 3.0}
    assert whole_run.dask_stage_seconds({"seconds": seconds})["method"] == 0.75


def test_the_ratio_of_a_floor_measured_below_the_start_is_infinite(whole_run: ModuleType) -> None:
    """A small file's floor, less the interpreter's start measured apart, can be negative: the
    ratio is then not met (infinite), never a huge or negative number."""
    import math

    assert whole_run.whole_ratio(1.3, 0.4, 0.1, 0.2) == pytest.approx(3.0)
    assert whole_run.whole_ratio(1.25, 0.56, -0.06, 0.01) == math.inf
    assert whole_run.whole_ratio(1.25, 0.56, 0.0, 0.0) == math.inf


def test_a_tiny_run_prints_its_table(
    whole_run: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs.json"
    whole_run.main(
        ["--sizes", "2000", "--engines", "memory", "--no-arx", "--no-workbench", "--json", str(out)]
    )
    printed = capsys.readouterr().out
    assert "| adult | 2,000 | memory |" in printed
    (run,) = json.loads(out.read_text("utf-8"))["runs"]
    assert set(run["stages"]) == set(whole_run.STAGES)
    assert run["rows"] == 2000 and run["engine"] == "memory"
