"""The layers of the package and what may import what (docs/architecture.md), enforced.

Every import counts: at module level, inside functions and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "microanon"

#: Layer -> the layers it may import (besides itself). The top-level modules (the package's
#: ``__init__``, ``errors``, the ``distribution`` and ``randomize`` facades) may import anything.
ALLOWED = {
    "core": set(),
    "datasets": {"core"},
    "models": {"core"},
    "measures": {"core", "models", "methods"},
    "methods": {"core", "models", "measures"},
    "query": {"core", "models", "measures", "methods"},
    "scale": {"core", "models", "measures", "methods"},
    "apps": {"core", "datasets", "models", "measures", "methods", "query", "scale"},
    # the papers' experiments, built on the applications (reports, the collection service)
    "reproductions": {
        "core",
        "datasets",
        "models",
        "measures",
        "methods",
        "query",
        "scale",
        "apps",
    },
    # scripts shipped for users to copy and run (`microanon examples`): they use the public API
    "examples": {"core", "datasets", "models", "measures", "methods", "query", "scale", "apps"},
}

#: Module -> the layers above its own it may import: the entry points that list and run what is
#: built on them. The command line registers ``microanon reproduce COMMAND`` from the papers'
#: catalog and runs the one runner; the demo summarizes earlier runs in "The papers, reproduced".
#: Import cycles stay forbidden (:func:`test_no_import_cycles`).
ENTRY_POINTS = {
    "microanon.apps.cli": {"reproductions"},
    "microanon.apps.demo": {"reproductions"},
    "microanon.apps.demo_papers": {"reproductions"},
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                if node.level:
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    full = f"{target}.{alias.name}"
                    targets.append(full if full in modules else target)
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                # Every import counts, a module's own ancestor packages included: importing a
                # package runs its ``__init__`` and whatever that imports.
                if t in modules and t != name:
                    graph[name].add(t)
    return graph


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) < 2 or (PACKAGE / f"{parts[1]}.py").exists():
        return None  # the package itself and its top-level modules
    return parts[1]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_layers_import_only_what_they_may():
    bad = []
    for module, targets in _graph().items():
        a = _layer(module)
        for t in targets:
            b = _layer(t)
            if a is None or b is None or a == b or b in ALLOWED[a]:
                continue
            if b not in ENTRY_POINTS.get(module, set()):
                bad.append(f"{module} -> {t}")
    assert bad == []


def test_every_layer_is_known():
    layers = {_layer(m) for m in _modules()} - {None}
    assert layers == set(ALLOWED)


def test_the_size_table_of_the_architecture_doc_is_current():
    import re

    doc = (SRC.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| ([\d,]+) \|", doc, flags=re.MULTILINE)
    assert {layer for layer, _, _ in rows} == set(ALLOWED) - {"examples"}
    for layer, files, lines in rows:
        paths = list((PACKAGE / layer).rglob("*.py"))
        measured = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in paths)
        assert abs(len(paths) - int(files)) <= 0.2 * len(paths), (layer, len(paths))
        assert abs(measured - int(lines.replace(",", ""))) <= 0.2 * measured, (layer, measured)


def test_the_full_domain_search_asks_the_models_not_their_types():
    """The search's modules never switch on a model's class: each model declares what the
    search needs (monotone, class bounds, deficits, reference, population) beside its code."""
    import microanon.models as models

    names = set(models.__all__)
    search = PACKAGE / "methods" / "generalize"
    modules = ["_search.py", "_search_models.py", "_heuristic.py", "_genetic.py", "_searches.py"]
    found = []
    for module in [*modules, "full_domain.py"]:
        tree = ast.parse((search / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
                kinds = node.args[1]
                elts = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
                found += [f"{module}: {e.id}" for e in elts if getattr(e, "id", None) in names]
    assert found == []
