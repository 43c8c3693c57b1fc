"""Public home of microanon's exceptions (defined in :mod:`microanon.core.errors`)."""

from .core.errors import (
    DataIntegrityError,
    HierarchyError,
    InfeasibleError,
    InputError,
    MicroanonError,
    SchemaError,
)

__all__ = [
    "DataIntegrityError",
    "HierarchyError",
    "InfeasibleError",
    "InputError",
    "MicroanonError",
    "SchemaError",
]
