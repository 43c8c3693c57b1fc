"""The README's Python tour runs as written."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_python_tour_runs(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "the README has no Python tour"
    script = tmp_path / "tour.py"
    script.write_text(blocks[0], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(script), run_name="__main__")
    assert "k-anonymity" in capsys.readouterr().out
    assert (tmp_path / "out" / "adult-release" / "public" / "release.json").exists()
    assert (tmp_path / "out" / "adult-release" / "internal" / "internal.json").exists()
