"""Generalization hierarchies for every column of the Adult data.

Nine come from ARX's Adult configuration (``adult_hierarchy_<attribute>.csv``). The others are
built here, on the full domain of the train and test splits (all 48,842 records, missing values
aside), so that every value of ``load_adult("all")`` is a leaf of its column's hierarchy.
"""

from __future__ import annotations

import io
from functools import lru_cache
from typing import Any

import numpy as np

from ..core.hierarchy import SUPPRESSED, Hierarchy
from ..core.range_bounds import range_labels
from ._files import read_text
from .adult import ADULT_COLUMNS, load_adult

__all__ = [
    "ADULT_ARX_HIERARCHY_FILES",
    "CAPITAL_BINS",
    "FNLWGT_BINS",
    "HOURS_WIDTHS",
    "adult_hierarchies",
]

#: Column of :func:`~microanon.datasets.load_adult` -> ARX hierarchy file.
ADULT_ARX_HIERARCHY_FILES: dict[str, str] = {
    "age": "arx-adult/adult_hierarchy_age.csv",
    "workclass": "arx-adult/adult_hierarchy_workclass.csv",
    "education": "arx-adult/adult_hierarchy_education.csv",
    "marital_status": "arx-adult/adult_hierarchy_marital-status.csv",
    "occupation": "arx-adult/adult_hierarchy_occupation.csv",
    "race": "arx-adult/adult_hierarchy_race.csv",
    "sex": "arx-adult/adult_hierarchy_sex.csv",
    "native_country": "arx-adult/adult_hierarchy_native-country.csv",
    "income": "arx-adult/adult_hierarchy_salary-class.csv",
}

#: Interval widths of ``hours_per_week`` (finest first); intervals start at 0 and cover 1..99.
HOURS_WIDTHS: tuple[int, ...] = (5, 10, 20, 40)
#: Quantile bins (finest first) over the *positive* values of capital_gain / capital_loss.
CAPITAL_BINS: tuple[int, ...] = (16, 4, 2)
#: Quantile bins (finest first) of ``fnlwgt``.
FNLWGT_BINS: tuple[int, ...] = (64, 16, 4)


@lru_cache(maxsize=1)
def _arx_hierarchies() -> dict[str, Hierarchy]:
    out = {}
    for col, rel in ADULT_ARX_HIERARCHY_FILES.items():
        h = Hierarchy.from_arx_csv(io.StringIO(read_text(rel)), sep=";", name=col)
        if col == "age":
            # Integer leaves, matching the int64 column (the labels above the leaves are ARX's).
            h = Hierarchy.from_paths([[*p[:-1], int(p[-1])] for p in h.paths()], name=col)
        out[col] = h
    return out


def _zero_and_quantiles(values: np.ndarray, bins: tuple[int, ...], name: str) -> Hierarchy:
    """``0`` as a leaf right under the root; positive values in a quantile tree beside it."""
    positive = values[values > 0]
    inner = Hierarchy.quantiles(positive, bins, name=name)
    # the range of the positive values, with the quantile labels' outer ends
    (top,) = range_labels(np.unique(positive).astype(float), [np.array([], dtype=np.int64)])[0]
    paths: list[list[Any]] = [[SUPPRESSED, 0]]
    for p in inner.paths():
        below = p[1:] if p[1] != top else p[2:]
        paths.append([SUPPRESSED, top, *below])
    return Hierarchy.from_paths(paths, name=name)


@lru_cache(maxsize=1)
def _built_hierarchies() -> dict[str, Hierarchy]:
    df = load_adult("all", dropna=False)
    relationship = sorted(df["relationship"].dropna().unique())
    return {
        "fnlwgt": Hierarchy.quantiles(df["fnlwgt"].to_numpy(), FNLWGT_BINS, name="fnlwgt"),
        "education_num": Hierarchy.balanced(range(1, 17), fanout=2, name="education_num"),
        "relationship": Hierarchy.from_paths(
            [[SUPPRESSED, v] for v in relationship], name="relationship"
        ),
        "capital_gain": _zero_and_quantiles(
            df["capital_gain"].to_numpy(), CAPITAL_BINS, "capital_gain"
        ),
        "capital_loss": _zero_and_quantiles(
            df["capital_loss"].to_numpy(), CAPITAL_BINS, "capital_loss"
        ),
        "hours_per_week": Hierarchy.intervals(
            range(1, 100), HOURS_WIDTHS, start=0, name="hours_per_week"
        ),
    }


def adult_hierarchies() -> dict[str, Hierarchy]:
    """Generalization hierarchies for all 15 columns of :func:`load_adult`.

    * ``age, workclass, education, marital_status, occupation, race, sex, native_country,
      income``: ARX's Adult hierarchies, read with :meth:`Hierarchy.from_arx_csv` (``income`` is
      ARX's ``salary-class``). ``age`` gets integer leaves 1..100; its inner labels are ARX's,
      which are off by one (age 20 is in ``"15-19"``): treat them as group names.
    * ``education_num``: balanced binary tree over 1..16 (``[1, 2]``, ``[1, 4]``, ``[1, 8]``,
      ``*``).
    * ``hours_per_week``: half-open intervals of width 5, 10, 20 and 40 starting at 0 over the
      leaves 1..99, then ``*``.
    * ``capital_gain``, ``capital_loss``: over 91% (gain) and 95% (loss) of the records are 0, so
      quantiles over all records would put every cut at 0. The value 0 is therefore a leaf
      directly below the root (it stays ``0`` until full suppression); the positive values form
      a subtree (``[100, 100000)`` for gains of 114 to 99,999) split into about 2, 4 and 16
      quantile intervals (:data:`CAPITAL_BINS`) counted over the records with a
      positive value. Ties can merge quantile cut points, giving fewer intervals.
    * ``fnlwgt``: about 4, 16 and 64 record-quantile intervals (:data:`FNLWGT_BINS`).
    * ``relationship``: flat: each of the 6 values, then ``*``.

    Quantiles are taken over the 48,842 records of ``load_adult("all", dropna=False)``.

    Returns
    -------
    dict of str to Hierarchy
        A new dict keyed by column name, in :data:`ADULT_COLUMNS` order. The hierarchies are
        built once per process and shared between calls; they are not modified by the library.
    """
    hs = {**_arx_hierarchies(), **_built_hierarchies()}
    return {c: hs[c] for c in ADULT_COLUMNS}
