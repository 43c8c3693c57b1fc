"""The layers of the package and what may import what (docs/architecture.md), enforced.

Every import counts: at module level, inside functions and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import sys
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


#: Private names (or private modules) imported from another package, each with its reason. Keep it
#: empty or tiny: a kernel two packages share gets a public name instead (docs/architecture.md).
PRIVATE_ACROSS_PACKAGES: dict[str, str] = {}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_imports() -> list[str]:
    """Every import of a private name or module by a module outside the package that holds it.

    A private name (``_x``, not a dunder) belongs to the package of the module that defines it, a
    private module (``_x.py``) to its package; both may be imported by that package and its
    subpackages. Returns ``"importer -> imported"`` lines: ``from m import _x``, ``import
    p._m``, ``from p._m import x``, and ``m._x`` on a module imported as ``m``.
    """
    modules = _modules()

    def package_of(module: str) -> str:
        return module if modules[module].name == "__init__.py" else module.rsplit(".", 1)[0]

    def outside(importer: str, owner: str) -> bool:
        here = package_of(importer)
        return not (here == owner or here.startswith(owner + "."))

    found = []
    for name, path in modules.items():
        here = package_of(name)
        aliases: dict[str, str] = {}
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            imported: list[tuple[str, str | None]] = []
            if isinstance(node, ast.ImportFrom):
                base = here.split(".")
                if node.level:
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                imported = [(f"{target}.{a.name}", a.asname or a.name) for a in node.names]
            elif isinstance(node, ast.Import):
                imported = [(a.name, a.asname) for a in node.names]
            for full, alias in imported:
                if not full.startswith("microanon."):
                    continue
                if full in modules and alias:
                    aliases[alias] = full
                parts = full.split(".")
                first = next((i for i, part in enumerate(parts) if _private(part)), None)
                if first is None:
                    continue
                owner = ".".join(parts[:first])
                owner = package_of(owner) if owner in modules else owner
                if outside(name, owner):
                    found.append(f"{name} -> {'.'.join(parts[: first + 1])}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _private(node.attr)
                and outside(name, package_of(aliases[node.value.id]))
            ):
                found.append(f"{name} -> {aliases[node.value.id]}.{node.attr}")
    return sorted(set(found))


def test_private_names_stay_in_their_package():
    """A name or module with a leading underscore is imported only within its package (its
    subpackages included); what two packages share has a public name. Exceptions are listed,
    with their reason, in :data:`PRIVATE_ACROSS_PACKAGES`."""
    found = _private_imports()
    assert [f for f in found if f not in PRIVATE_ACROSS_PACKAGES] == []
    assert set(PRIVATE_ACROSS_PACKAGES) <= set(found), "an allowed import no longer happens"


def test_the_private_import_check_sees_every_form(tmp_path, monkeypatch):
    """The check catches the forms it names, and leaves a package's own imports alone."""
    package = tmp_path / "microanon"
    for folder in ("a", "a/sub", "b"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "a" / "_hidden.py").write_text("x = 1\n")
    (package / "a" / "kernel.py").write_text("_k = 1\n")
    (package / "a" / "sub" / "user.py").write_text(
        "from .._hidden import x\nfrom ..kernel import _k\n"
    )
    (package / "b" / "user.py").write_text(
        "from ..a._hidden import x\n"
        "from ..a.kernel import _k\n"
        "from ..a import _hidden\n"
        "from ..a import kernel\n"
        "kernel._k\n"
        "kernel.__name__\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    assert _private_imports() == [
        "microanon.b.user -> microanon.a._hidden",
        "microanon.b.user -> microanon.a.kernel._k",
    ]


def test_the_generalizing_methods_ask_the_models_not_their_types():
    """The full-domain search's modules and the recoding shared by Mondrian and local recoding
    never switch on a model's class: each model declares what they need (monotone, class
    bounds, deficits, reference, population; recoding size, shortfall, whether it reads the
    sensitive values) beside its code."""
    import microanon.models as models

    names = set(models.__all__)
    search = PACKAGE / "methods" / "generalize"
    modules = ["_search.py", "_search_models.py", "_heuristic.py", "_genetic.py", "searches.py"]
    found = []
    for module in [*modules, "full_domain.py", "_recode.py", "mondrian.py", "local_recoding.py"]:
        tree = ast.parse((search / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
                kinds = node.args[1]
                elts = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
                found += [f"{module}: {e.id}" for e in elts if getattr(e, "id", None) in names]
    assert found == []


def test_no_column_of_the_data_is_set_through_keyword_arguments():
    """``DataFrame.assign(**{name: ...})`` takes a column named ``self`` (COUNT's rwm5yr has
    one: self-employed) as its own argument and fails: a column the user named is set by item,
    and ``assign(**...)`` keeps to the package's own column names (a tracer, a row number)."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "assign"):
                continue
            for keyword in node.keywords:
                value = keyword.value
                own = isinstance(value, ast.Dict) and all(
                    isinstance(k, ast.Name) and k.id.lstrip("_").isupper() for k in value.keys
                )
                if keyword.arg is None and not own:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []
