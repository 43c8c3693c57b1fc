"""Core types: schemas, hierarchies, encoded tables, releases, errors and the randomness policy.

The names are imported from their submodule on first use (:mod:`microanon.core.lazy`), so that
importing the package does not load pandas.
"""

from typing import TYPE_CHECKING

from .lazy import lazy_exports

if TYPE_CHECKING:
    from .bundled import list_hierarchies
    from .errors import (
        DataIntegrityError,
        HierarchyError,
        InfeasibleError,
        InputError,
        MicroanonError,
        SchemaError,
    )
    from .frames import as_pandas
    from .hierarchy import SUPPRESSED, Hierarchy, TreeArrays, value_key
    from .lint import Finding, LintReport, lint_schema
    from .random import RandomLike, make_rng
    from .reading import ReadOptions
    from .release import RELEASE_KINDS, Release
    from .schema import Attribute, Kind, Role, Schema, SchemaInferenceWarning, check_frame
    from .table import Frequencies, Table, combine_codes

#: Exported name -> its submodule.
_WHERE = {
    **dict.fromkeys(
        [
            "DataIntegrityError",
            "HierarchyError",
            "InfeasibleError",
            "InputError",
            "MicroanonError",
            "SchemaError",
        ],
        "errors",
    ),
    "as_pandas": "frames",
    "list_hierarchies": "bundled",
    **dict.fromkeys(["SUPPRESSED", "Hierarchy", "TreeArrays", "value_key"], "hierarchy"),
    **dict.fromkeys(["Finding", "LintReport", "lint_schema"], "lint"),
    **dict.fromkeys(["RandomLike", "make_rng"], "random"),
    "ReadOptions": "reading",
    **dict.fromkeys(["RELEASE_KINDS", "Release"], "release"),
    **dict.fromkeys(
        ["Attribute", "Kind", "Role", "Schema", "SchemaInferenceWarning", "check_frame"], "schema"
    ),
    **dict.fromkeys(["Frequencies", "Table", "combine_codes"], "table"),
}

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = [
    "Attribute",
    "DataIntegrityError",
    "Finding",
    "Frequencies",
    "LintReport",
    "lint_schema",
    "list_hierarchies",
    "Hierarchy",
    "HierarchyError",
    "InfeasibleError",
    "InputError",
    "Kind",
    "MicroanonError",
    "RELEASE_KINDS",
    "RandomLike",
    "ReadOptions",
    "Release",
    "Role",
    "SUPPRESSED",
    "Schema",
    "SchemaError",
    "SchemaInferenceWarning",
    "Table",
    "TreeArrays",
    "as_pandas",
    "check_frame",
    "combine_codes",
    "make_rng",
    "value_key",
]
