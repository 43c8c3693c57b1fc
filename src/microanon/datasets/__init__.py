"""Bundled reference data (UCI Adult, ARX's Adult extract and hierarchies, UCI Nursery) and
synthetic generators.

The data files ship gzip-compressed inside the package and are checked against their SHA-256
once per process (:func:`verify_bundle` checks them all on demand). Sources, citations and
licenses: :func:`list_datasets` and ``data/README.txt``.

* :func:`load_adult`, :func:`load_arx_adult`, :func:`load_nursery` — the tables.
* :func:`adult_hierarchies`, :func:`adult_schema` — the usual Adult anonymization setup.
* :func:`list_hierarchies` — the bundled hierarchies of common classifications (US states,
  countries, ISCO-08, ISCED 2011, age bands) with their sources; build one with
  :meth:`Hierarchy.bundled <microanon.core.hierarchy.Hierarchy.bundled>`.
* :func:`synthetic_numeric` — the synthetic tables of Koudas et al.'s experiments (PVLDB 2009).
* :func:`list_datasets`, :func:`describe`, :func:`load_dataset` — the catalog (CLI).
"""

from __future__ import annotations

from ..core.bundled import list_hierarchies
from ._files import DataIntegrityError, verify_bundle
from .adult import (
    ADULT_ARX_COLUMNS,
    ADULT_COLUMNS,
    ADULT_INTEGER_COLUMNS,
    ADULT_SPLITS,
    load_adult,
    load_arx_adult,
)
from .catalog import describe, list_datasets, load_dataset
from .hierarchies import adult_hierarchies
from .nursery import NURSERY_COLUMNS, load_nursery
from .schemas import adult_schema
from .synthetic import SYNTHETIC_DISTRIBUTIONS, synthetic_numeric, zipf_probabilities

__all__ = [
    "ADULT_ARX_COLUMNS",
    "ADULT_COLUMNS",
    "ADULT_INTEGER_COLUMNS",
    "ADULT_SPLITS",
    "NURSERY_COLUMNS",
    "SYNTHETIC_DISTRIBUTIONS",
    "DataIntegrityError",
    "adult_hierarchies",
    "adult_schema",
    "describe",
    "list_datasets",
    "list_hierarchies",
    "load_adult",
    "load_arx_adult",
    "load_dataset",
    "load_nursery",
    "synthetic_numeric",
    "verify_bundle",
    "zipf_probabilities",
]
