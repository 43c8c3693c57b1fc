"""Names a package exports, imported from their submodule on first use (PEP 562).

A package whose ``__init__`` imported every submodule would make ``import microanon`` (and
``microanon --help``) load pandas, SciPy and the rest before doing anything. Instead the package
lists where each exported name lives and lets :func:`lazy_exports` build its module-level
``__getattr__`` and ``__dir__``; the same names are imported under ``TYPE_CHECKING`` for type
checkers, the documentation and ``tests/test_architecture.py``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, where: Mapping[str, str], submodules: Iterable[str] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package that exports names lazily.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    where : mapping of str to str
        Exported name -> the submodule that defines it, relative to the package (``"schema"``
        for ``package.schema``). A function named like its own submodule cannot be exported
        this way (importing the submodule rebinds the package's attribute to the module): import
        it in the package's ``__init__``.
    submodules : iterable of str, optional
        Submodules exported as themselves (``from . import generalize``).

    Returns
    -------
    (callable, callable)
        ``__getattr__(name)``: imports the submodule, stores the value in the package (later
        lookups do not come back) and returns it; other names raise :class:`AttributeError`.
        ``__dir__()``: the package's attributes and the lazy names.
    """
    own = frozenset(submodules)

    def __getattr__(name: str) -> Any:
        if name in own:
            return importlib.import_module(f"{package}.{name}")
        try:
            submodule = where[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(f"{package}.{submodule}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where) | own)

    return __getattr__, __dir__
