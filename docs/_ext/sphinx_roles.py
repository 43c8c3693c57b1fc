"""A Griffe extension for the API reference: Sphinx roles in docstrings become cross-references.

The docstrings name other objects the Sphinx way (:func:`gtr`, :class:`~microanon.Release`,
:mod:`.risk`), which Markdown would print verbatim. Each role becomes an *optional* autorefs
cross-reference: a link when the object is rendered somewhere in the reference, plain code
otherwise (never a warning). ``~a.b.c`` shows ``c``; other names are shown as written.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj):`(?P<target>[^`]+)`")


def _identifier(obj: griffe.Object, target: str) -> str:
    """The full path that ``target``, as written in ``obj``'s docstring, names (best effort)."""
    if target.startswith("."):  # relative, as in an import: from the module's package
        module = obj.module
        package = module if module.is_init_module or module.parent is None else module.parent
        return package.path + target
    head, _, rest = target.partition(".")
    try:
        path = obj.resolve(head)
    except (griffe.NameResolutionError, ValueError, KeyError, AttributeError):
        return target
    # A function exported under its own submodule's name (``from .gtr import gtr``): Griffe
    # resolves the name to the submodule, the docstring means the function.
    if not rest:
        try:
            found = obj.modules_collection[path]
        except (KeyError, ValueError, AttributeError):
            found = None
        if found is not None and found.is_module and head in found.members:
            path = f"{path}.{head}"
    return f"{path}.{rest}" if rest else path


def _replace(obj: griffe.Object, match: re.Match[str]) -> str:
    target = match["target"].strip()
    if "<" in target and target.endswith(">"):  # :role:`title <target>`
        title, target = target[:-1].split("<", 1)
        title, target = title.strip(), target.strip()
    else:
        title = target.removeprefix("~").rsplit(".", 1)[-1] if target.startswith("~") else target
        target = target.removeprefix("~")
    ident = html.escape(_identifier(obj, target), quote=True)
    return f'<autoref identifier="{ident}" optional>`{title}`</autoref>'


def _rewrite(obj: griffe.Object) -> None:
    if obj.docstring is not None and ":" in obj.docstring.value:
        obj.docstring.value = _ROLE.sub(lambda m: _replace(obj, m), obj.docstring.value)
    for member in obj.members.values():
        if not member.is_alias:  # an alias's target is rewritten where it is defined
            _rewrite(member)


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles in every docstring of a loaded package, before any is parsed."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _rewrite(pkg)

    def on_package_loaded(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _rewrite(pkg)  # the same event under its Griffe 1.x name
