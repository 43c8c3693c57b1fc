"""Old import paths kept working for one release, with a :class:`DeprecationWarning`."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping
from typing import Any

__all__ = ["forward"]


def forward(old: str, new: str, name: str, renamed: Mapping[str, str] | None = None) -> Any:
    """``new.name`` (or its new name in ``renamed``), warning that ``old.name`` is deprecated.

    Parameters
    ----------
    old : str
        The deprecated module.
    new : str
        The module that holds the name now.
    name : str
        The attribute asked for.
    renamed : mapping, optional
        Old attribute names whose new name differs.

    Raises
    ------
    AttributeError
        When ``new`` has no such name (so ``hasattr`` and submodule imports behave as usual).
    """
    if name.startswith("__"):
        raise AttributeError(f"module {old!r} has no attribute {name!r}")
    target = (renamed or {}).get(name, name)
    module = importlib.import_module(new)
    try:
        value = getattr(module, target)
    except AttributeError:
        raise AttributeError(f"module {old!r} has no attribute {name!r}") from None
    warnings.warn(
        f"{old}.{name} is deprecated and will be removed in the next release; use {new}.{target}",
        DeprecationWarning,
        stacklevel=3,
    )
    return value
