"""Core types: schemas, hierarchies, encoded tables, releases, errors and the randomness policy."""

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

__all__ = [
    "Attribute",
    "DataIntegrityError",
    "Finding",
    "Frequencies",
    "LintReport",
    "lint_schema",
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
