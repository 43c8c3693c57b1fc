"""What the multi-SA reproduction runs on: data, attribute sets, run plans.

The experimental setup of Yi & Shi, *Privacy Protection Method for Multiple Sensitive Attributes
Based on Strong Rule*, Mathematical Problems in Engineering 2015, Art. ID 464731.

- Data: UCI Adult's training split without the 1,843 rows of unknown occupation — the paper's
  30,718 records. The 556 unknown native countries of these rows stay, as the category ``?``
  (their workclass is known).
- Quasi-identifiers (our choice: the paper does not name them): the remaining demographic attributes
  ``sex``, ``race``, ``marital_status``, ``native_country``, ``workclass``. Left out:
  ``education_num`` (a recoding of ``education``, which would publish the sensitive value),
  ``fnlwgt`` (a sampling weight), ``capital_gain``, ``capital_loss``, ``hours_per_week`` and
  ``income`` (not demographic).
- Sensitive attribute sets of size 2, 3, 4: ``education, occupation`` (+ ``age``)
  (+ ``relationship``).
- A :class:`Plan` fixes the grids; :data:`FULL` is the paper's range, :data:`QUICK` a reduced
  one for the test suite.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from microanon.core.errors import DataIntegrityError
from microanon.datasets import load_adult

__all__ = ["FULL", "QUICK", "QUASI", "RECORDS", "SA_SETS", "Plan", "load_data", "schema_of"]

#: Records of the paper's data set (verified on the public UCI file).
RECORDS = 30_718
#: Quasi-identifiers (our choice).
QUASI: tuple[str, ...] = ("sex", "race", "marital_status", "native_country", "workclass")
#: Sensitive attribute sets by size (the paper's).
SA_SETS: dict[str, tuple[str, ...]] = {
    "2": ("education", "occupation"),
    "3": ("education", "occupation", "age"),
    "4": ("education", "occupation", "age", "relationship"),
}


@dataclass(frozen=True)
class Plan:
    """The grid of one run.

    Attributes
    ----------
    quick : bool
    l_grid : tuple of int
        ``l`` of E2.3 (Fig. 3) and E2.6 (Figs. 6–7).
    fixed_l : int
        ``l`` wherever it is not varied (E2.1, E2.2, E2.4, E2.5, E2.7).
    sizes : tuple of int
        Numbers of records of E2.1 (Fig. 1) and E2.7 (Figs. 8–9); random subsets, the largest
        being the whole data.
    confidences : tuple of float
        ``min_confidence`` of E2.4 (Fig. 4).
    min_confidence : float
        The default (80 %).
    repeats : int
        Timings of E2.1–E2.2: the fastest of up to this many runs (fewer once 0.5 s are spent).
    ail_sets : tuple of str
        Sensitive attribute sets of E2.3 (one panel each).
    rule_sets : tuple of str
        Sets of E2.6 / E2.7 (the paper's Figs. 6 / 8 and 7 / 9) and E2.4.
    disclosure_l : tuple of int
        ``l`` of Figs. 10 and 11 (1/3 and 1/2 in the paper).
    disclosure_set : str
        Set of E2.8.
    timing_set : str
        Set of E2.1.
    """

    quick: bool
    l_grid: tuple[int, ...]
    fixed_l: int
    sizes: tuple[int, ...]
    confidences: tuple[float, ...]
    min_confidence: float
    repeats: int
    ail_sets: tuple[str, ...]
    rule_sets: tuple[str, ...]
    disclosure_l: tuple[int, ...]
    disclosure_set: str
    timing_set: str

    def describe(self) -> dict[str, object]:
        """The plan as JSON-ready parameters per experiment."""
        sets = {k: list(v) for k, v in SA_SETS.items()}
        return {
            "E2.1": {
                "records": list(self.sizes),
                "l": self.fixed_l,
                "sensitive": sets[self.timing_set],
                "repeats": self.repeats,
            },
            "E2.2": {"sensitive": sets, "l": self.fixed_l, "repeats": self.repeats},
            "E2.3": {"l": list(self.l_grid), "sets": list(self.ail_sets)},
            "E2.4": {
                "min_confidence": list(self.confidences),
                "l": self.fixed_l,
                "sets": list(self.rule_sets),
            },
            "E2.5": {"sets": list(SA_SETS), "l": self.fixed_l},
            "E2.6": {"l": list(self.l_grid), "sets": list(self.rule_sets)},
            "E2.7": {"records": list(self.sizes), "l": self.fixed_l, "sets": list(self.rule_sets)},
            "E2.8": {"l": list(self.disclosure_l), "set": self.disclosure_set},
            "min_confidence": self.min_confidence,
        }


#: The paper's ranges (the values of l are not recoverable; 2..6 brackets Figs. 10-11's 1/2, 1/3
#: and E2.6's l = 6).
FULL = Plan(
    quick=False,
    l_grid=(2, 3, 4, 5, 6),
    fixed_l=3,
    sizes=(5_000, 10_000, 15_000, 20_000, 25_000, RECORDS),
    confidences=(0.6, 0.7, 0.8, 0.9, 1.0),
    min_confidence=0.8,
    repeats=5,
    ail_sets=("2", "3", "4"),
    rule_sets=("3", "4"),
    disclosure_l=(3, 2),
    disclosure_set="4",
    timing_set="4",
)

#: Reduced grid for the test suite: the four-attribute set only (E2.5 keeps all three), l = 2, 3.
QUICK = Plan(
    quick=True,
    l_grid=(2, 3),
    fixed_l=3,
    sizes=(10_000, RECORDS),
    confidences=(0.7, 0.8, 0.9),
    min_confidence=0.8,
    repeats=3,
    ail_sets=("4",),
    rule_sets=("4",),
    disclosure_l=(3, 2),
    disclosure_set="4",
    timing_set="4",
)


def load_data() -> pd.DataFrame:
    """Adult's 30,718 records with the quasi-identifiers and the four sensitive attributes.

    Raises
    ------
    DataIntegrityError
        If the bundled training split does not give 30,718 records of known occupation.
    """
    adult = load_adult("train", dropna=False)
    data = adult[adult["occupation"].notna()].reset_index(drop=True)
    if len(data) != RECORDS:
        raise DataIntegrityError(
            f"Adult's training split has {len(data):,} records of known occupation, expected "
            f"{RECORDS:,}"
        )
    data = data[[*QUASI, *SA_SETS["4"]]].copy()
    data["native_country"] = data["native_country"].fillna("?")
    if data.isna().any().any():
        raise DataIntegrityError("unexpected missing values in Adult's 30,718 records")
    return data


def schema_of(sa_set: str) -> dict[str, str]:
    """Schema mapping of a sensitive attribute set: the quasi-identifiers, then the set."""
    return {**dict.fromkeys(QUASI, "quasi"), **dict.fromkeys(SA_SETS[sa_set], "sensitive")}
