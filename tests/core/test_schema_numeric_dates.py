"""A column of dates, durations or periods that the schema declares numeric is refused in one
line naming it: it used to become counts of time units since 1970 and be published so (the
interview dates of ESS9 GB as Mondrian ranges such as ``[1536624000000000, 1541203200000000]``,
their microaggregated means as 1.5e15)."""

from __future__ import annotations

import pandas as pd
import pytest
from real_surveys import survey

from microanon.core import InputError
from microanon.methods.generalize import mondrian
from microanon.methods.sdc import local_suppression, microaggregation


@pytest.fixture(scope="module")
def ess() -> pd.DataFrame:
    data = survey("ess9gb")[["region", "female", "stintrvw"]].dropna()
    return data.assign(stintrvw=pd.to_datetime(data["stintrvw"]))


def _spec(kind_of_dates: str) -> dict:
    return {
        "region": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 3}},
        "female": "insensitive",
        "stintrvw": {"role": "quasi", "kind": kind_of_dates},
    }


def test_dates_declared_numeric_are_refused_by_mondrian(ess):
    with pytest.raises(InputError, match=r"^column 'stintrvw' is numeric in the schema but holds"):
        mondrian(ess, _spec("numeric"), models={"k_anonymity": {"k": 5}})


@pytest.mark.parametrize(
    ("convert", "what"),
    [
        (lambda s: s, r"dates or durations \(datetime64"),
        (lambda s: s - s.min(), r"dates or durations \(timedelta64"),
        (lambda s: s.dt.to_period("M"), r"periods \(period\[M\]\)"),
    ],
)
def test_times_declared_numeric_are_refused_by_microaggregation(ess, convert, what):
    data = ess.assign(stintrvw=convert(ess["stintrvw"]))
    spec = {**_spec("numeric"), "stintrvw": {"role": "insensitive", "kind": "numeric"}}
    with pytest.raises(InputError, match=what):
        microaggregation(data, spec, k=3, columns=["stintrvw"])


def test_dates_declared_categorical_are_published_as_dates(ess):
    spec = {**_spec("categorical"), "stintrvw": "insensitive", "female": "quasi"}
    release = local_suppression(ess, spec, k=3, columns=["region", "female"])
    assert release.data["stintrvw"].tolist() == ess["stintrvw"].dt.strftime("%Y-%m-%d").tolist()
