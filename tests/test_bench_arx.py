"""benchmarks/arx.py's pure helpers, without ARX: node scoring, job lines, tables, the build's
jar list and its refusal of a tree that is not ARX's."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _module(name: str) -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def arx() -> ModuleType:
    return _module("arx")


def test_node_lm_scores_a_node_as_full_domain_publishes_it(arx: ModuleType) -> None:
    from microanon.methods.generalize import full_domain

    config = arx.k_config("adult", 5, 0.05)
    release = full_domain(
        arx.frame(config),
        arx.schema_spec(config),
        models=config.model_spec(),
        suppression=0.05,
    )
    levels = [release.metadata["levels"][q] for q in config.quasi]
    assert arx.node_lm(config, levels) == pytest.approx(arx.published_lm(release, config))
    top = [h.height for h in (arx.schema_spec(config)[q]["hierarchy"] for q in config.quasi)]
    assert arx.node_lm(config, top) == pytest.approx(1.0)
    assert arx.node_lm(arx.k_config("adult", 100, 0.0), [0] * 8) is None  # needs suppression
    assert arx.node_lm(config, None) is None


def test_job_lines_name_the_model_and_its_parameter() -> None:
    jvm = _module("arx_jvm")
    quasi = ("sex", "age")
    line = jvm.job_line([{"k_anonymity": {"k": 5}}], 0.05, "loss", quasi, "salary_class")
    assert line == "k 5 0.05 loss sex,age salary_class -"
    line = jvm.job_line(
        [{"l_diversity": {"l": 3, "form": "entropy"}}],
        0,
        "loss-mean",
        quasi,
        "occupation",
        Path("o"),
    )
    assert line == "l-entropy 3 0.0 loss-mean sex,age occupation o"
    assert jvm.job_line([{"t_closeness": {"t": 0.2}}], 0, "loss", quasi, "x").startswith("t 0.2 ")
    with pytest.raises(ValueError, match="metric 'lm'"):
        jvm.job_line([{"k_anonymity": {"k": 5}}], 0, "lm", quasi, "x")
    run = jvm.ArxRun.from_json(
        '{"cpu_ms": 1.5, "process_cpu_ms": 2, "wall_ms": 3, "levels": [0,4], "found": true, '
        '"suppressed": 7, "rows": 10, "checked": 9, "search_ms": 1, "cells": 4}'
    )
    assert (run.cpu_ms, run.levels, run.suppressed) == (1.5, (0, 4), 7)
    with pytest.raises(jvm.DriverError, match="bad job"):
        jvm.ArxRun.from_json('{"error": "bad job"}')


def test_warm_table_cells_ratio_and_targets(arx: ModuleType) -> None:
    k2 = arx.Row(arx.k_config("adult", 2, 0.0), 100.0, 80.0, 40.0, (0, 1), (0, 1), 0.5, 0.5, 150.0)
    k5 = arx.Row(arx.k_config("adult", 5, 0.05), 200.0, 150.0, 90.0, None, (1, 1), None, 0.25, 1.0)
    cells = arx.warm_cells(k2)
    assert cells[:5] == ["k=2, 0%", "100 ms", "80 ms", "0.80", "40 ms"]
    assert cells[5:10] == ["01", "01", "0.5000", "0.5000", "yes"]
    assert arx.warm_cells(k5)[5:10] == ["none", "11", "n/a", "0.2500", "no"]
    tie = arx.Row(k2.config, 1.0, 1.0, 1.0, (0, 1), (1, 0), 0.5, 0.5, 1.0)
    assert arx.warm_cells(tie)[9] == "no (LM tie)"
    counted = arx.Row(k2.config, 1.0, 1.0, 1.0, None, (1, 0), None, 0.5, 1.0, "", 142, 111)
    assert arx.warm_cells(counted)[-1] == "142/111"
    assert arx.WARM_HEADER[-1] == "nodes checked (ARX/ours)"
    table = arx.format_table(arx.WARM_HEADER, [cells, arx.warm_cells(k5)]).splitlines()
    assert len(table) == 4 and len({len(line) for line in table}) == 1
    assert table[0].startswith("| config ") and set(table[1]) <= {"|", "-", " "}
    share, met, half = arx.targets([k2, k5])
    assert share.startswith("microanon <= 0.7 of ARX")
    assert share.endswith("NOT met (k=2, 0%; k=5, 5%)")
    assert met.endswith(": met") and half.endswith("NOT met (k=5, 5%)")


def test_configurations_quick_and_full(arx: ModuleType) -> None:
    assert [arx.label(c) for c in arx.configurations(quick=True)] == [
        "k=2, 0%", "k=100, 0%", "k=2, 5%", "k=100, 5%"
    ]  # fmt: skip
    assert len(arx.configurations()) == 16
    code = arx.cold_code(arx.t_config("adult", 0.05), "lm")
    compile(code, "cold", "exec")
    assert "'t_closeness'" in code and "suppression=0.05" in code


def test_fresh_strings_is_an_option_that_defaults_to_the_same_strings(arx: ModuleType) -> None:
    assert not arx.parse_args(["--arx-src", "x"]).fresh_strings
    assert arx.parse_args(["--arx-src", "x", "--fresh-strings"]).fresh_strings


def test_build_reads_the_core_jars_and_refuses_other_trees(tmp_path: Path) -> None:
    build = _module("arx_build")
    xml = """<project><fileset id="lib.jars" dir="lib/ant"><or>
        <filename name="**/colt-1.2.0.jar" /><filename name="**/hppc-0.6.0.jar" />
        </or></fileset><fileset id="gui.jars" dir="lib/ant">
        <filename name="**/swt.jar" /></fileset></project>"""
    assert build.core_jars(xml) == ["colt-1.2.0.jar", "hppc-0.6.0.jar"]
    (tmp_path / "mine.txt").write_text("not ARX", encoding="utf-8")
    with pytest.raises(build.BuildError, match="ARXAnonymizer.java"):
        build.build(tmp_path, tmp_path / "cache")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]  # nothing written
