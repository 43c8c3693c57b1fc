"""The data of the distribution-based anonymization reproduction.

The data of the experiments of Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata
Anonymization*, PVLDB 2(1), 2009.

- ``real``: UCI Adult's 1,427 records with ``capital_loss > 0`` among the 30,162 complete
  training records (89 distinct values, 155–4356), with the eight quasi-identifiers of the
  earlier anonymization studies; sensitive attribute ``capital_loss``.
- Synthetic tables from :func:`microanon.datasets.synthetic_numeric`: quasi-identifier ``age``
  uniform on 17..79 (or tied to the value when correlated), sensitive attribute ``value`` on the
  integer domain 1024..3071 (2¹¹ values, so balanced binary splits are exact halves):
  ``uncorrelated`` / ``correlated`` normal (E4.2, E4.3), ``uniform`` (E4.6, E4.9), ``zipf`` and
  ``zipf_correlated`` with s = 0.1 (E4.7, E4.8).

Also the helpers of single experiments: removing a random share of the records (E4.5) and
splitting a table into contiguous age groups of about equal size (E4.10, E4.11).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from microanon.datasets import load_adult, synthetic_numeric

__all__ = [
    "ADULT_QUASI",
    "DATASETS",
    "SYNTHETIC_DOMAIN",
    "DataSet",
    "adult_capital_loss",
    "age_groups",
    "remove_share",
    "synthetic",
]

#: The eight quasi-identifiers of the real data set (our reading: the paper does not list them).
ADULT_QUASI = (
    "age",
    "workclass",
    "education",
    "marital_status",
    "occupation",
    "race",
    "sex",
    "native_country",
)

#: Inclusive integer domain of every synthetic sensitive attribute.
SYNTHETIC_DOMAIN = (1024, 3071)

#: Generator arguments of each synthetic set (``synthetic_numeric`` keywords).
_SYNTHETIC: dict[str, dict[str, Any]] = {
    "uncorrelated": {"distribution": "normal", "correlated": False},
    "correlated": {"distribution": "normal", "correlated": True},
    "uniform": {"distribution": "uniform", "correlated": False},
    "zipf": {"distribution": "zipf", "correlated": False, "s": 0.1},
    "zipf_correlated": {"distribution": "zipf", "correlated": True, "s": 0.1},
}

#: Data set key -> label used in the report.
DATASETS = {
    "real": "Adult, 1,427 capital-loss records",
    "uncorrelated": "synthetic, normal, uncorrelated",
    "correlated": "synthetic, normal, correlated with age",
    "uniform": "synthetic, uniform",
    "zipf": "synthetic, Zipf s = 0.1",
    "zipf_correlated": "synthetic, Zipf s = 0.1, correlated with age",
}


@dataclass(frozen=True)
class DataSet:
    """A table of the reproduction.

    Attributes
    ----------
    name : str
        Key of :data:`DATASETS`.
    frame : DataFrame
        The quasi-identifiers and the sensitive column.
    sensitive : str
    domain : tuple of int or None
        The integer domain of the sensitive attribute (``None``: its distinct values).
    """

    name: str
    frame: pd.DataFrame
    sensitive: str
    domain: tuple[int, int] | None

    @property
    def quasi(self) -> list[str]:
        """The published columns."""
        return [c for c in self.frame.columns if c != self.sensitive]

    @property
    def schema(self) -> dict[str, str]:
        """Roles for :func:`~microanon.methods.distribution.distribution_anonymize`."""
        return {c: ("sensitive" if c == self.sensitive else "quasi") for c in self.frame.columns}

    @property
    def ages(self) -> np.ndarray:
        """The ``age`` column (the queries' condition)."""
        return self.frame["age"].to_numpy(np.int64)

    @property
    def values(self) -> np.ndarray:
        """The sensitive values."""
        return self.frame[self.sensitive].to_numpy()

    def subset(self, rows: np.ndarray) -> DataSet:
        """The same data set restricted to ``rows`` (positions or a boolean mask)."""
        return replace(self, frame=self.frame.iloc[rows].reset_index(drop=True))


def adult_capital_loss() -> DataSet:
    """Adult's records with a positive capital loss: 1,427 rows of the 30,162 complete ones."""
    adult = load_adult("train")
    frame = adult.loc[adult["capital_loss"] > 0, [*ADULT_QUASI, "capital_loss"]]
    return DataSet("real", frame.reset_index(drop=True), "capital_loss", None)


def synthetic(
    name: str,
    n: int,
    rng: np.random.Generator,
    domain: tuple[int, int] = SYNTHETIC_DOMAIN,
) -> DataSet:
    """``n`` synthetic records ``(age, value)`` of the named kind (see the module docstring)."""
    low, high = domain
    frame = synthetic_numeric(n, low=low, high=high, rng=rng, **_SYNTHETIC[name])
    return DataSet(name, frame, "value", (low, high))


def remove_share(data: DataSet, share: float, rng: np.random.Generator) -> DataSet:
    """The data set without ``round(share · n)`` records drawn uniformly at random (E4.5)."""
    n = len(data.frame)
    keep = np.sort(rng.permutation(n)[: n - round(share * n)])
    return data.subset(keep)


def age_groups(ages: np.ndarray, k: int) -> np.ndarray:
    """Labels ``0..k-1`` of ``k`` contiguous age ranges holding about ``n / k`` records each.

    An age goes to the group of its records' middle rank: ``⌊k · (below + count / 2) / n⌋``,
    where ``below`` counts the records of smaller ages. Records of one age share a group, so the
    sizes are equal up to the largest age's count.
    """
    ages = np.asarray(ages)
    values, inverse, counts = np.unique(ages, return_inverse=True, return_counts=True)
    below = np.cumsum(counts) - counts
    label = np.minimum((k * (below + counts / 2) / len(ages)).astype(np.int64), k - 1)
    # Compact the labels (a very frequent age can swallow a whole band).
    return np.unique(label, return_inverse=True)[1][inverse].reshape(-1)
