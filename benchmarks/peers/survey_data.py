"""A synthetic household survey for the sdcMicro risk anchors and benchmarks (microanon's own data).

Run: python benchmarks/peers/survey_data.py OUT.csv [--rows N] [--seed S]

The layout follows the household surveys sdcMicro's risk functions are made for (and the column
names of its ``testdata``): household-level keys ``urbrur`` (urban/rural), ``roof``, ``walls``,
``water``, ``electcon`` (shared by every member of a household), person-level keys ``relat``
(relation to the head), ``sex``, ``age`` and ``hhcivil`` (civil status), the household id
``hid`` and the sampling weight ``weight`` (one per household, varying by stratum, not all
integers). Some key cells are missing (empty in the CSV): about 1% of ``water``, ``roof`` and
``relat`` each, a few records with two or three missing keys, and two records with every key of
the anchor set missing, so that sdcMicro's counting of missing key values is exercised.

Every value is drawn here with numpy's PCG64 generator from the seed; nothing is taken from any
other data set. ``tests/data/survey_synthetic.csv`` is this script's output with the defaults.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]


def make_survey(rows: int = 4000, seed: int = 20261125) -> pd.DataFrame:
    """The synthetic survey: whole households, trimmed to ``rows`` records."""
    rng = np.random.default_rng(seed)
    n_hh = rows // 3 + 10
    size = np.minimum(1 + rng.poisson(2.6, n_hh), 12)
    urbrur = rng.choice([1, 2], n_hh, p=[0.35, 0.65])
    stratum = rng.integers(0, 6, n_hh)
    base = np.array([40.0, 65.5, 90.0, 120.25, 180.0, 310.0])
    weight = np.round(base[stratum] * rng.uniform(0.85, 1.15, n_hh), 2)
    roof = (
        np.where(
            urbrur == 1, rng.choice(5, n_hh, p=[0.5, 0.2, 0.15, 0.1, 0.05]), rng.choice(5, n_hh)
        )
        + 1
    )
    walls = rng.choice([1, 2, 3], n_hh, p=[0.6, 0.3, 0.1])
    water = rng.choice(8, n_hh, p=[0.3, 0.2, 0.15, 0.1, 0.1, 0.08, 0.05, 0.02]) + 1
    electcon = rng.choice([0, 1, 9], n_hh, p=[0.3, 0.65, 0.05])

    hh = np.repeat(np.arange(n_hh), size)
    first = np.r_[0, np.cumsum(size)[:-1]]
    pos = np.arange(len(hh)) - first[hh]
    relat = np.where(
        pos == 0,
        1,
        np.where(
            pos == 1,
            rng.choice([2, 3], len(hh), p=[0.8, 0.2]),
            rng.choice(np.arange(3, 10), len(hh), p=[0.55, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05]),
        ),
    )
    sex = rng.choice([1, 2], len(hh))
    sex = np.where((relat == 2) & (sex[first[hh]] == sex), 3 - sex, sex)
    age = np.where(relat <= 2, rng.integers(18, 90, len(hh)), rng.integers(0, 70, len(hh)))
    hhcivil = np.where(relat <= 2, 2, np.where(age < 16, 1, rng.choice([1, 2, 3, 4], len(hh))))
    df = pd.DataFrame(
        {
            "hid": hh + 1,
            "urbrur": urbrur[hh],
            "roof": roof[hh],
            "walls": walls[hh],
            "water": water[hh],
            "electcon": electcon[hh],
            "relat": relat,
            "sex": sex,
            "age": age,
            "hhcivil": hhcivil,
            "weight": weight[hh],
        }
    ).iloc[:rows]
    df = df.astype({c: "float64" for c in KEYS})
    n = len(df)
    for col in ("water", "roof", "relat"):
        df.loc[rng.random(n) < 0.01, col] = np.nan
    for _ in range(12):
        r = int(rng.integers(n))
        df.loc[r, list(rng.choice(KEYS, int(rng.integers(2, 4)), replace=False))] = np.nan
    df.loc[[int(n * 0.25), int(n * 0.75)], KEYS] = np.nan
    return df.reset_index(drop=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=20261125)
    a = ap.parse_args()
    make_survey(a.rows, a.seed).to_csv(a.out, index=False, float_format="%.10g")


if __name__ == "__main__":
    main()
