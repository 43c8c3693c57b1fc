"""What the tests of the ``microanon reproduce`` commands share: one quick run through the CLI,
and every key of a results document."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from microanon.apps.cli import main


def run_quick(tmp_path_factory: Any, name: str, seed: str) -> tuple[Path, str, dict[str, Any]]:
    """``microanon reproduce NAME --quick --seed SEED`` into a fresh directory: the directory,
    the command's output and the parsed ``results.json``."""
    out = tmp_path_factory.mktemp("reproduce") / name
    result = CliRunner().invoke(
        main, ["reproduce", name, "--quick", "--out", str(out), "--seed", seed]
    )
    assert result.exit_code == 0, result.output
    return out, result.output, json.loads((out / "results.json").read_text(encoding="utf-8"))


def all_keys(obj: Any) -> Iterator[Any]:
    """Every mapping key anywhere in a JSON-like document."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from all_keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from all_keys(v)
