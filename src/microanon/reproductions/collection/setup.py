"""What the data-collection reproduction runs on: data, surveys, run plans.

The experiments of Zhang & Zhang, *Generalization-Based Privacy-Preserving Data Collection*,
DaWaK 2008. The paper does not name its attributes or taxonomies, so these are our choices:

- **Adult**: the training split without missing values (30,162 records); quasi-identifiers
  ``age, workclass, education, marital_status, race, sex, native_country``, sensitive
  ``occupation``, class ``income``; ARX's Adult hierarchies as taxonomies (age in 5-, 10-, 20-year
  bands), uniform leaf weights.
- **Nursery**: 12,960 records; the first seven attributes are quasi-identifiers, ``health`` is
  sensitive, ``class`` the class; taxonomies built here (:data:`NURSERY_TREES`: related values
  grouped, then the root), uniform weights.
- The class attribute is not part of the survey: it plays no role in the distribution attack,
  and the simulated respondent hands it over with the generalized tuple (the service stores
  the survey attributes; the experiment keeps each respondent's class next to its submission).
- Respondents arrive in a random order; each plan fixes how many take part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from microanon.core.hierarchy import Hierarchy
from microanon.datasets import load_adult, load_dataset
from microanon.datasets.hierarchies import adult_hierarchies
from microanon.measures.classification import ID3
from microanon.methods.collect import Survey, encode_frame

__all__ = ["DATASETS", "FULL", "NURSERY_TREES", "QUICK", "Dataset", "Plan", "Sample", "load"]

#: Nursery's taxonomies (ours): ordered values grouped, then the root.
NURSERY_TREES: dict[str, dict] = {
    "parents": {"*": {"usual-pretentious": ["usual", "pretentious"], "great_pret": None}},
    "has_nurs": {
        "*": {
            "proper-less": ["proper", "less_proper"],
            "improper-": ["improper", "critical", "very_crit"],
        }
    },
    "form": {
        "*": {
            "complete-d": ["complete", "completed"],
            "incomplete-foster": ["incomplete", "foster"],
        }
    },
    "children": {"*": {"1-2": ["1", "2"], "3-more": ["3", "more"]}},
    "housing": {"*": ["convenient", "less_conv", "critical"]},
    "finance": {"*": ["convenient", "inconv"]},
    "social": {"*": ["nonprob", "slightly_prob", "problematic"]},
    "health": {"*": {"recommended-priority": ["recommended", "priority"], "not_recom": None}},
}


@dataclass(frozen=True)
class Dataset:
    """One data set of the reproduction: records, survey and class attribute."""

    name: str
    data: pd.DataFrame
    survey: Survey
    target: str

    @property
    def features(self) -> list[str]:
        """The attributes ID3 learns from: the survey's (quasi-identifiers and sensitive)."""
        return self.survey.attributes


def _tree(spec: dict, name: str) -> Hierarchy:
    """A taxonomy from a nested spec where ``None`` marks a leaf directly under its parent."""
    paths: list[list[str]] = []

    def walk(node: object, path: list[str]) -> None:
        if node is None:
            paths.append(path)
        elif isinstance(node, list):
            paths.extend([*path, v] for v in node)
        else:
            for k, v in node.items():  # type: ignore[union-attr]
                walk(v, [*path, k])

    walk(spec, [])
    return Hierarchy.from_paths(paths, name=name)


@lru_cache(maxsize=2)
def load(name: str) -> Dataset:
    """The data set ``"adult"`` or ``"nursery"`` with its survey."""
    if name == "adult":
        data = load_adult("train").reset_index(drop=True)
        hs = adult_hierarchies()
        quasi = ["age", "workclass", "education", "marital_status", "race", "sex",
                 "native_country"]  # fmt: skip
        survey = Survey({a: hs[a] for a in [*quasi, "occupation"]}, quasi, "occupation")
        cols = [*quasi, "occupation", "income"]
        return Dataset("adult", data[cols].copy(), survey, "income")
    if name == "nursery":
        data = load_dataset("nursery").reset_index(drop=True)
        hs = {a: _tree(t, a) for a, t in NURSERY_TREES.items()}
        quasi = list(NURSERY_TREES)[:-1]
        survey = Survey(hs, quasi, "health")
        return Dataset("nursery", data[[*quasi, "health", "class"]].copy(), survey, "class")
    raise ValueError(f"unknown data set {name!r}")


#: Data sets of the reproduction, in report order.
DATASETS = ("adult", "nursery")


@dataclass(frozen=True)
class Plan:
    """The grid of one run.

    Attributes
    ----------
    quick : bool
    respondents : dict
        Number of respondents per data set (a random subset; None: all records).
    taus : tuple of float
        τ of E1.1–E1.3.
    clients : int
        Concurrent simulated clients submitting to the service.
    theta : tuple of float
        MRR's retention probabilities θ.
    epr_k : tuple of int
        EPR's numbers of eigenvectors k*.
    lrka_k : tuple of int
        k of local-recoding k-anonymity (LRKA).
    ld_l : tuple of int
        ℓ of local-recoding ℓ-diversity (LD, with k = ℓ).
    folds : int
        Cross-validation folds of the relative ID3 accuracy.
    draws : int
        Base tuples drawn inside each generalized tuple to train ID3.
    """

    quick: bool
    respondents: dict[str, int | None] = field(default_factory=dict)
    taus: tuple[float, ...] = ()
    clients: int = 4
    theta: tuple[float, ...] = ()
    epr_k: tuple[int, ...] = ()
    lrka_k: tuple[int, ...] = ()
    ld_l: tuple[int, ...] = ()
    folds: int = 10
    draws: int = 3

    def describe(self) -> dict[str, object]:
        """The plan as JSON-ready parameters."""
        return {
            "respondents": dict(self.respondents),
            "tau": list(self.taus),
            "clients": self.clients,
            "mrr_theta": list(self.theta),
            "epr_k": list(self.epr_k),
            "lrka_k": list(self.lrka_k),
            "ld_l": list(self.ld_l),
            "folds": self.folds,
            "draws": self.draws,
        }


FULL = Plan(
    quick=False,
    respondents={"adult": 5_000, "nursery": 5_000},
    taus=(0.1, 0.2, 0.3, 0.36, 0.4, 0.5),
    clients=4,
    theta=(0.6, 0.7, 0.8, 0.9, 0.95),
    epr_k=(1, 5, 10, 20, 31),
    lrka_k=(2, 5, 10, 25, 50, 100),
    ld_l=(2, 3, 4),
    folds=10,
    draws=3,
)

QUICK = Plan(
    quick=True,
    respondents={"adult": 800, "nursery": 800},
    taus=(0.2, 0.4),
    clients=4,
    theta=(0.7, 0.9),
    epr_k=(1, 10, 31),
    lrka_k=(2, 10),
    ld_l=(2, 3),
    folds=5,
    draws=2,
)


class Sample:
    """The respondents of one data set in this run: records, codes, folds."""

    def __init__(self, ds: Dataset, size: int | None, rng: np.random.Generator, folds: int):
        n = len(ds.data) if size is None else min(size, len(ds.data))
        order = rng.permutation(len(ds.data))[:n]  # arrival order
        self.ds = ds
        self.frame = ds.data.iloc[order].reset_index(drop=True)
        self.codes = encode_frame(ds.survey, self.frame, base=True)
        self.fold = rng.permutation(n) % folds
        self.folds = folds
        self.y = self.frame[ds.target].to_numpy(dtype=object)
        #: Each respondent's answers to the survey's attributes, in arrival order.
        self.answers = self.frame[ds.survey.attributes].to_numpy(dtype=object).tolist()

    @property
    def n(self) -> int:
        return len(self.frame)

    def cv_accuracy(self, train: Callable[[np.ndarray], ID3]) -> float:
        """Share of records predicted right, each by a tree trained without its fold."""
        right = 0
        features = self.ds.features
        for f in range(self.folds):
            test = self.fold == f
            tree = train(~test)
            right += int((tree.predict(self.frame.loc[test, features]) == self.y[test]).sum())
        return right / self.n
