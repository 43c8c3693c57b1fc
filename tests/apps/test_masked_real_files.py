"""What the summary and reports of masked releases (SDC) say on real survey files: the columns
a method covers, the risk after each step, the cells suppressed or missing before."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main


def _anonymize(tmp_path: Path, doc: dict, *options: str, name: str = "out") -> tuple[str, Path]:
    """``anonymize`` of the config ``doc`` (written as ``c.yaml``) into ``tmp_path / name``:
    its standard output and the release directory, the run having succeeded."""
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / name
    args = ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(out), *options]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    return run.stdout, out


def _hi_strata(tmp_path: Path, steps: bool) -> dict:
    """Ecdat's HI as a CSV file and an MDAV config at k = 4 within the four regions: hours,
    experience and the husband's income microaggregated, the region the fourth key; as one
    method or as the one step of several."""
    frame = survey("hi")[["whrswk", "experience", "husby", "region", "hhi", "wght"]]
    frame.to_csv(tmp_path / "hi.csv", index=False)
    numeric = {"role": "quasi", "kind": "numeric"}
    schema = {
        "whrswk": numeric,
        "experience": numeric,
        "husby": numeric,
        "region": "quasi",
        "hhi": "sensitive",
        "wght": "weight",
    }
    masking = {"method": "microaggregation", "params": {"k": 4, "strata": ["region"]}}
    how = {"steps": [masking]} if steps else masking
    return {"data": str(tmp_path / "hi.csv"), "schema": schema, **how}


@pytest.mark.parametrize("steps", [False, True], ids=["method", "steps"])
def test_a_microaggregation_s_strata_column_is_covered_not_left_unprotected(tmp_path, steps):
    """HI's 22,272 wives, MDAV at k = 4 within region: the claim covers region and holds on the
    file; no warning calls region published unchanged, and the column table says what it is."""
    answer = json.loads(_anonymize(tmp_path, _hi_strata(tmp_path, steps), "--json")[0])
    assert answer["verification"]["verdicts"] == [
        {"model": "k-anonymity", "holds": True, "value": 4}
    ]
    assert not [w for w in answer["warnings"] if "published unchanged" in w]
    published = pd.read_csv(tmp_path / "out" / "public" / "data.csv")
    keys = ["whrswk", "experience", "husby", "region"]
    assert published.groupby(keys).size().min() == 4
    stratum = "stratum of the microaggregation (mdav, k = 4): every group within one of its values"
    for part in ("public", "internal"):
        assert stratum in (tmp_path / "out" / part / "report.html").read_text("utf-8")
    stdout = _anonymize(tmp_path, _hi_strata(tmp_path, steps), name="text")[0]
    (line,) = [x for x in stdout.splitlines() if x.split()[:1] == ["region"]]
    assert line.split(maxsplit=2)[2] == f"{stratum}; no value changed"
