"""The record that describes one method family to the applications."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = ["Family"]


@dataclass(frozen=True)
class Family:
    """One method family, as the applications see it.

    The family's code lives in two parallel folders with the same name:
    ``microanon/methods/<name>/`` (its methods and releases) and
    ``microanon/apps/families/<name>/`` (its report sections in ``report.py``, its demo sections
    in ``demo.py``). Those modules are imported when first used, so that listing the families
    stays cheap. A paper's reproduction is not a family's: it lives in
    :mod:`microanon.reproductions`.

    Attributes
    ----------
    name : str
        The folder name, the same under ``methods`` and ``apps/families``.
    title : str
        What the family does, in a few words.
    kinds : tuple of str
        The :attr:`~microanon.Release.kind` of every release its methods write (empty when it
        writes none, like the collection family, whose product is a collected set).
    demo : bool
        Whether ``demo.py`` adds sections to ``microanon demo``.
    """

    name: str
    title: str
    kinds: tuple[str, ...] = ()
    demo: bool = False

    def module(self, part: str) -> ModuleType:
        """The family's module ``part`` (``"report"`` or ``"demo"``)."""
        return importlib.import_module(f"microanon.apps.families.{self.name}.{part}")

    def add_sections(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Add the report sections of one of the family's releases; return the numbers shown.

        The arguments are those of every family's ``report.add_sections``: ``report``,
        ``original``, ``release``, ``title``, ``schema``, ``verdicts`` and ``tables``.
        """
        result: dict[str, Any] = self.module("report").add_sections(*args, **kwargs)
        return result

    def describe_column(self, release: Any, column: str) -> str | None:
        """What the method did to ``column`` of one of the family's releases, from its public part.

        None when the column was published unchanged (and for families without releases).
        """
        if not self.kinds:
            return None
        described: str | None = self.module("report").describe_column(release, column)
        return described

    def warnings(self, release: Any) -> list[str]:
        """The family's own alarms about one of its releases, from its public part (its
        ``report.warnings``, when it has one)."""
        if not self.kinds:
            return []
        own = getattr(self.module("report"), "warnings", None)
        return list(own(release)) if own is not None else []

    def demo_sections(self) -> list[Any]:
        """The sections the family adds to ``microanon demo`` (none when ``demo`` is False)."""
        return list(self.module("demo").SECTIONS) if self.demo else []
