"""Exception hierarchy of microanon.

Every error raised on purpose by the package is a :class:`MicroanonError`. Messages name the
column, value or parameter at fault and say what to do about it.
"""

from __future__ import annotations

__all__ = [
    "MicroanonError",
    "InputError",
    "SchemaError",
    "HierarchyError",
    "InfeasibleError",
    "DataIntegrityError",
    "VerificationError",
]


class MicroanonError(Exception):
    """Base class of every error microanon raises deliberately."""


class InputError(MicroanonError, ValueError):
    """Bad data or a bad parameter: missing column, wrong type, out-of-range value, empty table."""


class SchemaError(InputError):
    """A schema that is malformed or does not fit the data it is applied to."""


class HierarchyError(InputError):
    """A hierarchy that is not a tree, or a value that is missing from its hierarchy."""


class InfeasibleError(MicroanonError):
    """No release can satisfy the requested privacy model with the given data and parameters."""


class VerificationError(MicroanonError):
    """A written release fails a claimed model or leaks in its public part; it was removed."""


class DataIntegrityError(MicroanonError):
    """A bundled data file is missing, unreadable, or its content does not match its checksum."""
