"""What the randomization reproduction runs on: data, attribute sets, run plans.

The experimental setup of Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based
Microdata Release*, Journal of Computing Science and Engineering 5(3), 2011.

- Two data variants of UCI Adult without missing values: ``adult_45222`` (training + test split,
  the paper's stated size) and ``adult_30162`` (training split only, on which the paper's
  ``U(occupation | salary) = 2.74e-2`` is reproduced).
- Two attribute sets: EMGRW (quasi-identifiers education, marital_status, sex, race; sensitive
  workclass) and ESGRO (education, income, sex, race; sensitive occupation). ``income`` is the
  paper's Salary and ``sex`` its Gender.
- A :class:`Plan` fixes the diversity levels, data sizes and number of replications; :data:`FULL`
  is the paper's grid, :data:`QUICK` a reduced one for the test suite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from microanon.core.schema import Schema
from microanon.core.table import Table
from microanon.datasets import adult_hierarchies, load_adult
from microanon.methods.randomize import cell_counts

__all__ = ["FULL", "QUICK", "SCENARIOS", "SETTINGS", "VARIANTS", "Plan", "Setting", "SettingData"]

#: Data variant key -> ``load_adult`` split (rows without missing values).
VARIANTS: dict[str, str] = {"adult_45222": "all", "adult_30162": "train"}

#: Scenario name in the report -> ``scenario`` of
#: :func:`~microanon.methods.randomize.optimal_parameters`.
SCENARIOS: dict[str, str] = {"RR-S": "S", "RR-QI": "QI", "RR-Both": "Both"}


@dataclass(frozen=True)
class Setting:
    """An attribute set of the paper: quasi-identifiers (schema order) and the sensitive column."""

    quasi: tuple[str, ...]
    sensitive: str


#: The paper's two attribute sets (D = 7,840 and 4,480 cells).
SETTINGS: dict[str, Setting] = {
    "EMGRW": Setting(("education", "marital_status", "sex", "race"), "workclass"),
    "ESGRO": Setting(("education", "income", "sex", "race"), "occupation"),
}


@dataclass(frozen=True)
class Plan:
    """The grid of one run.

    Attributes
    ----------
    quick : bool
    replications : int
        Independent randomizations (and Anatomy partitions) averaged per point, ``R``.
    table3_l : tuple of int
        Diversity levels of E0.1 (Table 3) and E0.2 (Fig. 3).
    sizes : tuple of float
        Data-size factors ``r`` of E0.3 (Fig. 4).
    size_l : int
        The fixed ℓ of E0.3.
    compare_l : tuple of int
        Diversity levels of E0.4–E0.6 (ℓ = 1 is the unprotected original).
    table_l : tuple of int
        Levels shown in Tables 4–5 (a subset of ``compare_l``).
    both_l : tuple of int
        Levels of E0.7 (a subset of ``compare_l``).
    """

    quick: bool
    replications: int
    table3_l: tuple[int, ...]
    sizes: tuple[float, ...]
    size_l: int
    compare_l: tuple[int, ...]
    table_l: tuple[int, ...]
    both_l: tuple[int, ...]

    def describe(self) -> dict[str, object]:
        """The plan as JSON-ready parameters per experiment."""
        return {
            "E0.1": {"l": list(self.table3_l), "settings": list(SETTINGS)},
            "E0.2": {"l": list(self.table3_l), "setting": "EMGRW"},
            "E0.3": {"l": self.size_l, "r": list(self.sizes), "setting": "EMGRW"},
            "E0.4": {"l": list(self.compare_l), "setting": "ESGRO"},
            "E0.5": {"l": list(self.compare_l), "setting": "ESGRO"},
            "E0.6": {"l": [lv for lv in self.compare_l if lv > 1], "shown": list(self.table_l)},
            "E0.7": {"l": list(self.both_l), "setting": "ESGRO", "scenario": "RR-Both"},
        }


#: The paper's grid, averaged over 10 randomizations per point.
FULL = Plan(
    quick=False,
    replications=10,
    table3_l=(2, 3, 4, 5),
    sizes=(0.5, 1.0, 1.5, 2.0, 2.5),
    size_l=3,
    compare_l=(1, 2, 3, 4, 5, 6, 7),
    table_l=(3, 4, 5),
    both_l=(2, 3, 4, 5, 6, 7),
)

#: Reduced grid for the test suite: one randomization per point, three sizes, ℓ ∈ {1, 3, 4, 5, 7}
#: for the comparison and {3, 5, 7} for E0.7; Table 3 and Tables 4–5 keep their levels.
QUICK = Plan(
    quick=True,
    replications=1,
    table3_l=(2, 3, 4, 5),
    sizes=(0.5, 1.0, 2.5),
    size_l=3,
    compare_l=(1, 3, 4, 5, 7),
    table_l=(3, 4, 5),
    both_l=(3, 5, 7),
)


@dataclass
class SettingData:
    """One attribute set on one data variant, encoded once.

    Attributes
    ----------
    name : str
    quasi : list of str
    sensitive : str
    frame : DataFrame
        The quasi-identifiers and the sensitive column, nothing else.
    schema, table : Schema, Table
        Plain roles (randomization, Anatomy; codes in sorted value order).
    gschema, gtable : Schema, Table
        The same with ARX's Adult hierarchies on the quasi-identifiers (full-domain
        generalization; codes in hierarchy leaf order).
    counts : ndarray
        Cell counts over the full domains, quasi-identifiers first (``cell_counts``).
    columns, values : list
        Axis names and the value of every code of each axis of ``counts``.
    """

    name: str
    quasi: list[str]
    sensitive: str
    frame: pd.DataFrame
    schema: Schema
    table: Table
    gschema: Schema
    gtable: Table
    counts: np.ndarray
    columns: list[str]
    values: list[np.ndarray]

    @property
    def n(self) -> int:
        """Number of records."""
        return len(self.frame)

    @property
    def names(self) -> list[str]:
        """Quasi-identifiers, then the sensitive column."""
        return [*self.quasi, self.sensitive]

    @classmethod
    def build(cls, name: str, frame: pd.DataFrame, setting: Setting) -> SettingData:
        """Encode a frame holding (at least) the setting's columns."""
        quasi, sensitive = list(setting.quasi), setting.sensitive
        frame = frame[[*quasi, sensitive]].reset_index(drop=True)
        schema = Schema.from_dict({**{q: "quasi" for q in quasi}, sensitive: "sensitive"})
        hierarchies = adult_hierarchies()
        gschema = Schema.from_dict(
            {
                **{q: {"role": "quasi", "hierarchy": hierarchies[q]} for q in quasi},
                sensitive: "sensitive",
            }
        )
        counts, _, columns, values = cell_counts(frame, schema)
        return cls(
            name=name,
            quasi=quasi,
            sensitive=sensitive,
            frame=frame,
            schema=schema,
            table=Table.from_frame(frame, schema),
            gschema=gschema,
            gtable=Table.from_frame(frame, gschema),
            counts=counts,
            columns=columns,
            values=values,
        )

    def resample(self, size: int, rng: np.random.Generator) -> SettingData:
        """``size`` records drawn i.i.d. from the empirical cell distribution (our choice: the paper
        does not say how it resizes the data)."""
        flat = self.counts.reshape(-1)
        drawn = rng.multinomial(size, flat / flat.sum())
        cells = np.repeat(np.arange(flat.size), drawn)
        codes = np.unravel_index(cells, self.counts.shape)
        frame = pd.DataFrame(
            {
                c: np.asarray(v, dtype=object)[k]
                for c, v, k in zip(self.columns, self.values, codes, strict=True)
            }
        )
        for c in frame.columns:
            frame[c] = frame[c].astype(self.frame[c].dtype)
        return SettingData.build(self.name, frame, Setting(tuple(self.quasi), self.sensitive))


def load_variant(key: str) -> pd.DataFrame:
    """The Adult rows of a data variant (see :data:`VARIANTS`)."""
    return load_adult(VARIANTS[key])
