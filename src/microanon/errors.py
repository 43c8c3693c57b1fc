"""Public home of microanon's exceptions (defined in :mod:`microanon.core.errors`)."""

from .core.errors import HierarchyError, InfeasibleError, InputError, MicroanonError, SchemaError

__all__ = ["HierarchyError", "InfeasibleError", "InputError", "MicroanonError", "SchemaError"]
