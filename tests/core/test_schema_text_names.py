"""A table whose column names are not text (``pd.read_csv(header=None)`` numbers them 0, 1,
...) meets a schema, which names every column by its text, with one line saying so: infer
failed with pandas' ``KeyError: '0'``, and the methods said ``column(s) '0', '1' not found;
available: 0, 1`` without saying why."""

from __future__ import annotations

import pytest
from real_surveys import survey

from microanon.core import InputError, Schema
from microanon.methods.generalize import mondrian
from microanon.models import k_anonymity

HINT = r"column name\(s\) {} are int, not text: .*df\.columns = df\.columns\.astype\(str\)\)$"


@pytest.fixture(scope="module")
def numbered():
    data = survey("ces11")[["gender", "education", "abortion"]]
    return data.set_axis(range(3), axis=1)


def test_infer_refuses_column_names_that_are_not_text(numbered):
    with pytest.raises(InputError, match=r"^Schema\.infer: a schema names every column by its"):
        Schema.infer(numbered, quasi=[0, 1])
    with pytest.raises(InputError, match=HINT.format("0, 1, 2")):
        Schema.infer(numbered)


def test_a_method_names_why_the_columns_are_not_found(numbered):
    spec = {0: {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}}, 2: "sensitive"}
    with pytest.raises(InputError, match=r"column\(s\) '0', '2' not found; available: 0, 1, 2 "):
        mondrian(numbered, spec, models={"k_anonymity": {"k": 5}})
    with pytest.raises(InputError, match=HINT.format("0, 2")):
        mondrian(numbered, spec, models={"k_anonymity": {"k": 5}})


def test_the_models_take_the_names_as_they_are(numbered):
    named = numbered.set_axis(["gender", "education", "abortion"], axis=1)
    assert k_anonymity(numbered, [0, 1]).value == k_anonymity(named, ["gender", "education"]).value
