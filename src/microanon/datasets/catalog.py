"""The catalog of bundled data sets, for ``microanon datasets list`` / ``describe``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from ..core.errors import InputError
from .adult import ADULT_COLUMNS, load_adult, load_arx_adult
from .nursery import NURSERY_COLUMNS, load_nursery

__all__ = ["describe", "list_datasets", "load_dataset"]

_UCI_ADULT_CITATION = (
    "Becker, B. & Kohavi, R. (1996). Adult [Dataset]. UCI Machine Learning Repository. "
    "https://doi.org/10.24432/C5XW20"
)
_ARX_COLUMNS = (
    "sex",
    "age",
    "race",
    "marital_status",
    "education",
    "native_country",
    "workclass",
    "occupation",
    "salary_class",
)

_CATALOG: dict[str, dict[str, Any]] = {
    "adult": {
        "loader": "load_adult()",
        "rows": 30_162,
        "column_names": list(ADULT_COLUMNS),
        "description": (
            "UCI Adult census income, training split without missing values (30,162 of 32,561 "
            "records); load_adult(split='test'|'all', dropna=False) gives the test split "
            "(16,281), both (48,842) and the records with '?'"
        ),
        "source": "UCI Machine Learning Repository, https://archive.ics.uci.edu/dataset/2/adult",
        "citation": _UCI_ADULT_CITATION,
        "license": "CC BY 4.0",
    },
    "arx_adult": {
        "loader": "load_arx_adult()",
        "rows": 30_162,
        "column_names": list(_ARX_COLUMNS),
        "description": (
            "ARX's Adult extract: the complete training records of UCI Adult, same order, "
            "9 attributes; hierarchies in adult_hierarchies()"
        ),
        "source": "ARX Data Anonymization Tool, https://github.com/arx-deidentifier/arx (data/)",
        "citation": _UCI_ADULT_CITATION + " (records); ARX Data Anonymization Tool (extract)",
        "license": "Apache-2.0 (ARX files); CC BY 4.0 (UCI Adult records)",
    },
    "nursery": {
        "loader": "load_nursery()",
        "rows": 12_960,
        "column_names": list(NURSERY_COLUMNS),
        "description": (
            "UCI Nursery: all 12,960 combinations of 8 categorical attributes of nursery-school "
            "applications (Ljubljana, 1980s) with the expert model's class (5 values)"
        ),
        "source": "UCI Machine Learning Repository, https://archive.ics.uci.edu/dataset/76/nursery",
        "citation": (
            "Rajkovic, V. (1989). Nursery [Dataset]. UCI Machine Learning Repository. "
            "https://doi.org/10.24432/C5P88W"
        ),
        "license": "CC BY 4.0",
    },
}

_LOADERS: dict[str, Callable[..., pd.DataFrame]] = {
    "adult": load_adult,
    "arx_adult": load_arx_adult,
    "nursery": load_nursery,
}


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or name not in _CATALOG:
        raise InputError(f"unknown data set {name!r}; bundled data sets: {', '.join(_CATALOG)}")
    return name


def list_datasets() -> list[dict[str, Any]]:
    """Describe the bundled data sets.

    Returns
    -------
    list of dict
        One dict per data set with keys ``name``, ``loader`` (the call that loads it),
        ``rows`` and ``columns`` (size of the table that call returns), ``column_names``,
        ``description``, ``source``, ``citation`` and ``license``. Fresh objects on every call.
    """
    return [
        {
            "name": name,
            "loader": e["loader"],
            "rows": e["rows"],
            "columns": len(e["column_names"]),
            "column_names": list(e["column_names"]),
            "description": e["description"],
            "source": e["source"],
            "citation": e["citation"],
            "license": e["license"],
        }
        for name, e in _CATALOG.items()
    ]


def load_dataset(name: str, **kwargs: Any) -> pd.DataFrame:
    """Load a bundled data set by catalog name.

    Parameters
    ----------
    name : {"adult", "arx_adult", "nursery"}
    **kwargs
        Passed to the loader (e.g. ``split="all", dropna=False`` for ``adult``).

    Raises
    ------
    InputError
        If ``name`` is unknown (listing the valid names) or the loader rejects ``kwargs``.
    """
    loader = _LOADERS[_check_name(name)]
    try:
        return loader(**kwargs)
    except TypeError as exc:
        raise InputError(f"load_dataset('{name}'): {exc}") from None


def describe(name: str, **kwargs: Any) -> pd.DataFrame:
    """Per-column summary of a bundled data set.

    Parameters
    ----------
    name : {"adult", "arx_adult", "nursery"}
    **kwargs
        Passed to the loader, as in :func:`load_dataset` (default: the loader's defaults, the
        table that :func:`list_datasets` counts).

    Returns
    -------
    pandas.DataFrame
        One row per column, indexed by column name, with ``dtype``, ``distinct`` (number of
        distinct non-missing values), ``missing`` (count), ``min`` and ``max`` (integer columns;
        missing otherwise) and ``examples`` (up to five most frequent values, comma-separated).

    Raises
    ------
    InputError
        If ``name`` is unknown; the message lists the valid names.
    """
    df = load_dataset(name, **kwargs)
    rows = []
    for col in df.columns:
        s = df[col]
        numeric = pd.api.types.is_integer_dtype(s)
        top = s.value_counts(dropna=True).index[:5]
        rows.append(
            {
                "column": col,
                "dtype": str(s.dtype),
                "distinct": int(s.nunique(dropna=True)),
                "missing": int(s.isna().sum()),
                "min": int(s.min()) if numeric else None,
                "max": int(s.max()) if numeric else None,
                "examples": ", ".join(str(v) for v in top),
            }
        )
    out = pd.DataFrame(rows).set_index("column")
    out["min"] = out["min"].astype("Int64")
    out["max"] = out["max"].astype("Int64")
    return out
