"""Cold start: ``import microanon`` and ``microanon --help`` load none of the heavy libraries.

Each case runs in a fresh interpreter (this one has imported everything already) and reports
which of the watched top-level packages ended up in ``sys.modules``. Timings are measured by
``benchmarks/coldstart.py``, not here.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: Never needed to start: plotting, SciPy, SQL, the web server, Dask, Arrow files, learning.
HEAVY = (
    "matplotlib",
    "scipy",
    "duckdb",
    "starlette",
    "uvicorn",
    "dask",
    "distributed",
    "sklearn",
    "mlxtend",
    "jinja2",
)

_PROBE = """
import json, sys
{code}
print(json.dumps(sorted({{name.split(".")[0] for name in sys.modules}})))
"""


def _loaded(code: str) -> set[str]:
    """Top-level packages in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(code=code)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_microanon_loads_nothing_heavy_and_not_pandas():
    loaded = _loaded("import microanon")
    assert loaded & {*HEAVY, "pandas", "numpy", "yaml"} == set()


def test_help_loads_nothing_heavy_and_not_pandas():
    code = (
        "from microanon.apps.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit as exc:\n    assert exc.code == 0\n"
    )
    loaded = _loaded(code)
    assert loaded & {*HEAVY, "pandas", "numpy", "yaml"} == set()


@pytest.mark.parametrize(
    "name",
    ["Schema", "Table", "Release", "InputError", "Anonymizer", "make_rng", "publish"],
)
def test_lazy_names_resolve_to_their_defining_objects(name):
    import microanon
    from microanon.core import schema
    from microanon.methods.generalize import anonymizer

    value = getattr(microanon, name)
    assert value is not None
    if name == "Schema":
        assert value is schema.Schema
    if name == "Anonymizer":
        assert value is anonymizer.Anonymizer
    assert name in dir(microanon)


def test_check_on_a_small_csv_loads_nothing_heavy(tmp_path):
    data = tmp_path / "small.csv"
    rows = [f"{20 + i % 30},{'MF'[i % 2]},{'abc'[i % 3]}" for i in range(60)]
    data.write_text("age,sex,disease\n" + "\n".join(rows) + "\n", encoding="utf-8")
    code = (
        "from microanon.apps.cli import main\n"
        f"args = ['check', {str(data)!r}, '--quasi', 'age,sex', '--sensitive', 'disease',"
        " '--k', '2', '--json']\n"
        "try:\n    main(args)\nexcept SystemExit as exc:\n    assert exc.code in (0, 1), exc.code\n"
    )
    loaded = _loaded(code)
    assert loaded & set(HEAVY) == set()
    assert "pandas" in loaded  # the check itself ran


@pytest.mark.parametrize(
    "package", ["microanon", "microanon.core", "microanon.models", "microanon.measures"]
)
def test_lazy_table_matches_the_type_checking_imports(package):
    # The table serves the names at run time, the imports type checkers and the API pages:
    # both must say the same.
    module = importlib.import_module(package)
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom) and stmt.level == 1, ast.unparse(stmt)
                imported.update({alias.name: stmt.module for alias in stmt.names})
    assert imported == module._WHERE
    eager = {name for name in module.__all__ if name in vars(module)}
    assert set(module.__all__) == set(module._WHERE) | eager
