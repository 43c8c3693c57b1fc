"""The version of this microanon, in one place: the package, the releases' provenance, the
reports and the command line read it here (importing it from the top-level package would make
every importer depend on everything the package re-exports)."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
"""The version of this microanon (the wheel's, as ``pyproject.toml`` declares it)."""
