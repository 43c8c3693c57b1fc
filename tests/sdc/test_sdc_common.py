"""What the SDC methods share: one input path, one error style, one release builder."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pandas as pd
import pytest

from microanon.core.errors import InfeasibleError, InputError, SchemaError
from microanon.methods import sdc
from microanon.methods.sdc.common import check_flag, check_k, check_number

NUMERIC = {"role": "quasi", "kind": "numeric"}
SCHEMA = {"x": NUMERIC, "y": NUMERIC, "g": "quasi", "id": "identifier"}


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "x": rng.normal(size=40),
            "y": rng.integers(0, 50, 40),
            "g": rng.choice(["a", "b"], 40),
            "id": range(40),
        },
        index=np.arange(100, 140),
    )


CALLS = {
    "add_noise": lambda df, s: sdc.add_noise(df, s, noise=0.1, rng=0),
    "rank_swap": lambda df, s: sdc.rank_swap(df, s, p=10, rng=0),
    "microaggregation": lambda df, s: sdc.microaggregation(df, s, k=3),
    "local_suppression": lambda df, s: sdc.local_suppression(df, s, k=3),
    "top_bottom_code": lambda df, s: sdc.top_bottom_code(df, s, column="x", top=1.0),
    "global_recode": lambda df, s: sdc.global_recode(df, s, maps={"g": {"a": "b"}}),
    "sample": lambda df, s: sdc.sample(df, s, fraction=0.5, rng=0),
}


@pytest.mark.parametrize("name", CALLS)
def test_every_method_publishes_the_same_columns_with_the_common_metadata(name, frame):
    rel = CALLS[name](frame, SCHEMA)
    assert rel.kind == "masked" and list(rel.data.columns) == ["x", "y", "g"]  # id dropped
    meta = rel.metadata
    assert meta["method"] == name and meta["rows_in"] == 40
    assert meta["rows_out"] == len(rel.data) == (20 if name == "sample" else 40)
    assert meta["quasi"] == ["x", "y", "g"] and "parameters" in meta and "models" in meta
    if name != "sample":  # same rows, same order; untouched columns unchanged
        untouched = [c for c in ("x", "y", "g") if c not in meta.get("masked_numeric", [])]
        for c in untouched:
            if name not in ("local_suppression", "global_recode") or c != "g":
                assert rel.data[c].tolist() == frame[c].tolist()


@pytest.mark.parametrize("name", CALLS)
def test_every_method_refuses_bad_data_the_same_way(name, frame):
    with pytest.raises(InputError, match="'x' has 1 missing value"):
        CALLS[name](frame.assign(x=[np.nan] + [0.0] * 39), SCHEMA)
    with pytest.raises(InputError, match="empty"):
        CALLS[name](frame.iloc[:0], SCHEMA)
    with pytest.raises(SchemaError, match="unknown role"):
        CALLS[name](frame, {**SCHEMA, "g": "boss"})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: check_number(True, "p", 0, 100), r"p: expected a number in \[0, 100\], got True"),
        (lambda: check_number(0, "f", 0, 1, low_open=True), r"f: expected a number in \(0, 1\]"),
        (lambda: check_number(float("nan"), "noise", 0), "noise: expected a finite number >= 0"),
        (lambda: check_number("1", "top"), "top: expected a finite number, got '1'"),
        (lambda: check_flag(1, "wildcard"), "wildcard: expected True or False, got 1"),
        (lambda: check_k(0), "k: expected an integer >= 1, got 0"),
        (lambda: check_k(2.0), "k: expected an integer >= 1, got 2.0"),
    ],
)
def test_parameter_messages(call, message):
    with pytest.raises(InputError, match=message):
        call()


def test_k_above_n_is_infeasible_everywhere(frame):
    with pytest.raises(InfeasibleError, match=r"k = 41 exceeds the number of records \(40\)"):
        check_k(41, 40)
    for call in (sdc.microaggregation, sdc.local_suppression):
        with pytest.raises(InfeasibleError, match="k = 41"):
            call(frame, SCHEMA, k=41)


def test_docstring_examples():
    module = importlib.import_module("microanon.methods.sdc.common")
    assert doctest.testmod(module).failed == 0
