"""microanon: privacy-preserving microdata publishing with verified guarantees.

The core types are re-exported here: :class:`Schema`, :class:`Hierarchy`, :class:`Table`,
:class:`Release` and the errors, and :class:`Anonymizer` (a recoding fitted on one table and
applied to the next; imported on first use). Privacy-model checks live in
:mod:`microanon.models`, measures in :mod:`microanon.measures`, bundled data in
:mod:`microanon.datasets`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.extensions import EXTENSIONS as _EXTENSIONS
from .core.lazy import lazy_exports

if TYPE_CHECKING:  # imported on first use (microanon.core.lazy): see __getattr__
    from .core import (
        Attribute,
        DataIntegrityError,
        Hierarchy,
        HierarchyError,
        InfeasibleError,
        InputError,
        Kind,
        LintReport,
        MicroanonError,
        Release,
        Role,
        Schema,
        SchemaError,
        Table,
        lint_schema,
        make_rng,
    )
    from .methods.generalize.anonymizer import Anonymizer

from .core.version import __version__


def _verdict_rows(release: Release) -> list[tuple[str, bool | None, str]]:
    """The claimed models of ``release`` re-checked: (model, holds, achieved) per model."""
    from .models import check_release

    return [(v.model, v.holds, v.achieved) for v in check_release(release)]


def _release_report(release: Release) -> Any:
    """The public report of ``release`` (:meth:`Release.report`)."""
    from .apps.release_report import release_report

    return release_report(release)


# The release's notebook view and report need models and apps, which core does not import.
_EXTENSIONS.update(verdicts=_verdict_rows, report=_release_report)


def publish(*args: Any, **kwargs: Any) -> Any:
    """Write a release verified from disk, with its public and internal reports.

    See :func:`microanon.apps.publish.publish` (imported on first use: it needs the reports).
    """
    from .apps.publish import publish as _publish

    return _publish(*args, **kwargs)


#: Exported name -> the module that defines it (imported on first use: ``import microanon``
#: loads neither pandas nor the methods).
_WHERE = {
    **dict.fromkeys(
        [
            "Attribute",
            "DataIntegrityError",
            "Hierarchy",
            "HierarchyError",
            "InfeasibleError",
            "InputError",
            "Kind",
            "LintReport",
            "MicroanonError",
            "Release",
            "Role",
            "Schema",
            "SchemaError",
            "Table",
            "lint_schema",
            "make_rng",
        ],
        "core",
    ),
    "Anonymizer": "methods.generalize.anonymizer",
}

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)


__all__ = [
    "Anonymizer",
    "Attribute",
    "DataIntegrityError",
    "Hierarchy",
    "HierarchyError",
    "InfeasibleError",
    "InputError",
    "Kind",
    "LintReport",
    "MicroanonError",
    "Release",
    "Role",
    "Schema",
    "SchemaError",
    "Table",
    "__version__",
    "lint_schema",
    "make_rng",
    "publish",
]
