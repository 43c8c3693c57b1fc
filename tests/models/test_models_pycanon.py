"""Agreement with pycanon (and brute force where pycanon is wrong) on UCI Adult.

pycanon 1.3.6 runs unchanged under pandas 3; ``oracles.pycanon_anonymity`` gives it the columns it
reads, text as objects (which count as a string dtype, so string sensitive columns get the equal
distance and numeric ones the ordered distance, as ours). It needs a default RangeIndex: it
collects group *labels* and reads them back with ``iloc``. Its entropy ℓ is truncated to an int and
its recursive (c, ℓ) sorts counts ascending, so those two are compared with brute force instead.
pycanon's t-closeness loops over groups and values in pandas (about 10 s for all 8 quasi-
identifiers), so t is checked on quasi-identifier subsets and on a sample for all 8, which keeps
this file well under 30 s.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from oracles import pycanon_anonymity

from microanon.models import Groups, k_anonymity, l_diversity, t_closeness

pycanon = pycanon_anonymity()

NAMES = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
    "native-country", "salary",
]  # fmt: skip
QI = ["age", "workclass", "education", "marital-status", "race", "sex", "native-country", "salary"]
FEW = ["race", "sex", "salary"]  # 20 groups, k = 4
SOME = ["workclass", "marital-status", "race", "sex", "salary"]  # 425 groups


@pytest.fixture(scope="module")
def raw_adult(reference_data: Path) -> pd.DataFrame:
    """The UCI Adult training split as published (32,561 rows, '?' for unknown values)."""
    path = reference_data / "adult" / "adult.data"  # always there: unpacked from the bundle
    return pd.read_csv(path, header=None, skipinitialspace=True, names=NAMES)


@pytest.fixture(scope="module")
def adult(raw_adult: pd.DataFrame) -> pd.DataFrame:
    """Adult without rows containing '?' (30,162 rows), with a default index for pycanon."""
    return raw_adult[~(raw_adult == "?").any(axis=1)].reset_index(drop=True)


def test_k_and_distinct_l_on_all_quasi_identifiers(adult: pd.DataFrame) -> None:
    assert len(adult) == 30_162
    groups = Groups.from_frame(adult, QI, "occupation")
    assert k_anonymity(groups, None).value == pycanon.k_anonymity(adult, QI)
    assert l_diversity(groups, None, None).value == pycanon.l_diversity(adult, QI, ["occupation"])


@pytest.mark.parametrize(
    ("quasi", "sensitive", "distance"),
    [
        (FEW, "occupation", "equal"),
        (SOME, "occupation", "equal"),
        (FEW, "education-num", "ordered"),
        (SOME, "education-num", "ordered"),
    ],
)
def test_k_l_t_on_quasi_identifier_subsets(
    adult: pd.DataFrame, quasi: list[str], sensitive: str, distance: str
) -> None:
    groups = Groups.from_frame(adult, quasi, sensitive)
    k = k_anonymity(groups, None).value
    ell = l_diversity(groups, None, None).value
    t = t_closeness(groups, None, None)
    assert t.parameters["distance"] == distance
    assert k == pycanon.k_anonymity(adult, quasi)
    assert ell == pycanon.l_diversity(adult, quasi, [sensitive])
    assert t.value == pytest.approx(pycanon.t_closeness(adult, quasi, [sensitive]), abs=1e-9)
    if quasi == FEW:  # a case where the values are not trivial
        assert (k, ell) == ((4, 3) if sensitive == "occupation" else (4, 4))


def test_t_on_all_quasi_identifiers_of_a_sample(adult: pd.DataFrame) -> None:
    sample = adult.sample(1000, random_state=0)
    ours = t_closeness(sample, QI, "occupation").value  # any index is fine for us
    theirs = pycanon.t_closeness(sample.reset_index(drop=True), QI, ["occupation"])
    assert ours == pytest.approx(theirs, abs=1e-9)


def _brute_force(df: pd.DataFrame, quasi: list[str], sensitive: str) -> list[Counter]:
    groups: dict[tuple, Counter] = {}
    rows = zip(*(df[c].tolist() for c in quasi), strict=True)
    for key, s in zip(rows, df[sensitive].tolist(), strict=True):
        groups.setdefault(key, Counter())[s] += 1
    return list(groups.values())


@pytest.mark.parametrize("quasi", [FEW, SOME, QI])
def test_entropy_and_recursive_l_against_brute_force(adult: pd.DataFrame, quasi: list) -> None:
    counters = _brute_force(adult, quasi, "occupation")
    entropy = min(
        -sum(v / sum(c.values()) * math.log(v / sum(c.values())) for v in c.values())
        for c in counters
    )
    ours = l_diversity(adult, quasi, "occupation", form="entropy").value
    assert ours == pytest.approx(math.exp(entropy), rel=1e-12)
    for c in (0.5, 1, 2, 3, 10):
        levels = []
        for counts in counters:
            r = sorted(counts.values(), reverse=True)
            levels.append(sum(1 for ell in range(1, len(r) + 1) if r[0] < c * sum(r[ell - 1 :])))
        assert l_diversity(adult, quasi, "occupation", form="recursive", c=c).value == min(levels)


def test_pycanon_entropy_l_is_truncated(adult: pd.DataFrame) -> None:
    ours = l_diversity(adult, FEW, "occupation", form="entropy").value
    assert ours == pytest.approx(2 * math.sqrt(2))  # a group of 4 rows over 3 values (2, 1, 1)
    assert pycanon.entropy_l_diversity(adult, FEW, ["occupation"]) == math.floor(ours) == 2
