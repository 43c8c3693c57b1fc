"""One GTR in two languages: the committed vectors through Python ``gtr`` and the page's gtr.js.

``gtr_vectors.json`` is written by ``make_vectors.py`` from the Python implementation (collected
sets as the service's compressed bytes, respondents' tuples, τ, loss, mode → anonymous tuple or
abstention), in exact mode and in greedy mode (with a series on which greedy's subroutines find
nothing and its complete search decides). The Python half checks the file still matches the
library; the JavaScript half runs
``src/microanon/apps/server/static/gtr.js`` — the file the survey page loads — under node and
skips, saying so, when node is not installed.
"""

from __future__ import annotations

import base64
import json
import subprocess
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from oracles import require_program

from microanon.methods.collect import CollectedSet, Survey, gtr

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "gtr_vectors.json"
RUNNER = HERE / "run_vectors.js"


def _gtr_js() -> Path:
    return Path(str(resources.files("microanon.apps.server") / "static" / "gtr.js"))


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return json.loads(VECTORS.read_text(encoding="utf-8"))


def test_vectors_cover_the_cases(doc: dict[str, Any]) -> None:
    for mode, least in (("exact", 300), ("greedy", 200)):
        vectors = [v for v in doc["vectors"] if v["mode"] == mode]
        names = {v["survey"] for v in vectors}
        assert len(vectors) >= least
        assert {"adult-example", "adult", "nursery"} <= names
        assert sum(n.startswith("random-") for n in names) >= 10
        assert sum(v["expected"] is None for v in vectors) >= 50  # abstentions
        assert sum(v["ties"] > 1 for v in vectors) >= 20  # decided by the exact tie-break
        assert {v["loss"] for v in vectors} == {"paper", "normalized"}
        assert {v["encoding"] for v in vectors} == {"bits", "index"}
    # Greedy vectors decided by the complete search (the greedy subroutines found nothing).
    fallback = [v for v in doc["vectors"] if v.get("fallback")]
    assert {v["mode"] for v in fallback} == {"greedy"}
    assert sum(v["expected"] is not None for v in fallback) >= 20
    assert sum(v["expected"] is None for v in fallback) >= 5


def test_python_gtr_gives_the_vectors(doc: dict[str, Any]) -> None:
    surveys = {n: Survey.from_dict(d) for n, d in doc["surveys"].items()}
    sets: dict[tuple[str, str], CollectedSet] = {}
    wrong = []
    for i, v in enumerate(doc["vectors"]):
        survey = surveys[v["survey"]]
        key = (v["survey"], v["collected"])
        if key not in sets:
            sets[key] = CollectedSet.from_bytes(survey, base64.b64decode(v["collected"]))
        t = gtr(v["o"], sets[key], survey, Fraction(v["tau"]), mode=v["mode"], loss=v["loss"])
        got = None if t is None else [int(c) for c in t.codes]
        want = None if v["expected"] is None else v["expected"]["codes"]
        if got != want:
            wrong.append((i, want, got))
    assert not wrong, f"{len(wrong)} vectors disagree with the Python gtr, first: {wrong[:3]}"


def test_javascript_gtr_gives_the_vectors(doc: dict[str, Any]) -> None:
    node = require_program(
        "node", "nodejs", package="nodejs", why="the survey page's JavaScript GTR runs under node"
    )
    out = subprocess.run(
        [node, str(RUNNER), str(_gtr_js()), str(VECTORS)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["total"] == len(doc["vectors"])
    assert result["agree"] == result["total"], result["disagreements"]
