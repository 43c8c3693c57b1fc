"""microanon: privacy-preserving microdata publishing with verified guarantees.

The core types are re-exported here: :class:`Schema`, :class:`Hierarchy`, :class:`Table`,
:class:`Release` and the errors. Privacy-model checks live in :mod:`microanon.models`, measures in
:mod:`microanon.measures`, bundled data in :mod:`microanon.datasets`.
"""

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

__version__ = "0.1.0"

__all__ = [
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
]
