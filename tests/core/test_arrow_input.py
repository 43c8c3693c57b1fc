"""Arrow-compatible tables (pyarrow, anything with the Arrow PyCapsule interface) as input of the
public functions: the same results as the pandas DataFrame they hold."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from oracles import require_module

import microanon as ma
from microanon.core import Hierarchy, InputError, Release, Table
from microanon.core.frames import as_pandas, is_arrow_table, pandas_if_arrow
from microanon.measures import (
    aecs,
    attacker_risks,
    equivalence_classes,
    il1s,
    individual_risk,
    information_loss,
    loglinear_risk,
    loss_metric,
    minimal_uniques,
    non_uniform_entropy,
    population_uniqueness,
    precision,
    reidentification_risk,
    relative_accuracy,
    sample_uniques,
    suda2,
)
from microanon.methods.generalize import anatomy, full_domain, local_recoding, mondrian, safepub
from microanon.methods.multisa import rating, strong_rules
from microanon.methods.randomize import epr, mrr, pram, randomized_response
from microanon.methods.sdc import (
    add_noise,
    global_recode,
    local_suppression,
    microaggregation,
    rank_swap,
    sample,
    top_bottom_code,
)
from microanon.models import (
    KAnonymity,
    delta_presence,
    k_anonymity,
    k_map,
    l_diversity,
    profile,
    t_closeness,
)


class ArrowStream:
    """A table known only through ``__arrow_c_stream__``, as a polars DataFrame exports one."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._table.__arrow_c_stream__(requested_schema)


def _people(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    return pd.DataFrame(
        {
            "age": rng.choice([23, 27, 34, 38, 45, 49], n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["13053", "13068", "14850", "14853"], n),
            "disease": rng.choice(["flu", "cold", "cancer", "hiv"], n),
            "drug": rng.choice(["a", "b", "c"], n),
            "income": rng.normal(40_000, 8_000, n).round(2),
            "weight": rng.uniform(5, 50, n).round(1),
        }
    )


DATA = _people()
HIERARCHIES = {
    "age": Hierarchy.intervals(sorted(DATA["age"].unique()), [10, 20]),
    "sex": Hierarchy.from_paths([["*", "F"], ["*", "M"]]),
    "zip": Hierarchy.masking(sorted(DATA["zip"].unique())),
}
SCHEMA = {
    "age": {"role": "quasi", "kind": "numeric", "hierarchy": HIERARCHIES["age"]},
    "sex": {"role": "quasi", "hierarchy": HIERARCHIES["sex"]},
    "zip": {"role": "quasi", "hierarchy": HIERARCHIES["zip"]},
    "disease": "sensitive",
    "drug": "insensitive",
    "income": "insensitive",
    "weight": "insensitive",
}
NUMERIC = {
    "age": "quasi",
    "income": {"role": "quasi", "kind": "numeric"},
    "sex": "insensitive",
    "zip": "insensitive",
    "disease": "sensitive",
    "drug": "insensitive",
    "weight": "insensitive",
}
QI = ["age", "sex", "zip"]
POPULATION = pd.concat([DATA[QI]] * 3, ignore_index=True)
PRESENCE = {"delta_min": 0.0, "delta_max": 0.9}
MULTI = {**SCHEMA, "drug": "sensitive"}
QUASI = {q: SCHEMA[q] for q in QI}
LARGE = pd.concat([DATA[QI]] * 20, ignore_index=True)  # SafePub draws classes of k = 33

#: Public entry point -> a call on a table, given as ``c(frame)`` (c converts to the tested kind).
CALLS: dict[str, Callable[[Callable[[pd.DataFrame], Any]], Any]] = {
    "full_domain": lambda c: full_domain(c(DATA), SCHEMA, models={"k_anonymity": {"k": 3}}),
    "full_domain, delta-presence population": lambda c: full_domain(
        DATA, SCHEMA, models=[{"delta_presence": {**PRESENCE, "population": c(POPULATION)}}]
    ),
    "mondrian": lambda c: mondrian(c(DATA), SCHEMA, models={"k_anonymity": {"k": 4}}),
    "local_recoding": lambda c: local_recoding(c(DATA), SCHEMA, k=3),
    "safepub": lambda c: safepub(c(LARGE), QUASI, epsilon=1.0, delta=1e-3, rng=1),
    "rating": lambda c: rating(c(DATA), MULTI, l=2, rng=1),
    "randomized_response": lambda c: randomized_response(c(DATA), SCHEMA, l=2, rng=1),
    "anatomy": lambda c: anatomy(c(DATA), SCHEMA, l=2, rng=1),
    "pram": lambda c: pram(c(DATA), SCHEMA, keep={"sex": 0.8}, rng=1),
    "epr": lambda c: epr(c(DATA), ["sex", "disease"], 4, rng=1),
    "mrr": lambda c: mrr(c(DATA), ["sex", "disease"], 0.7, rng=1),
    "strong_rules": lambda c: strong_rules(c(DATA), ["disease", "drug"], 0.3),
    "add_noise": lambda c: add_noise(c(DATA), NUMERIC, noise=0.1, rng=1),
    "microaggregation": lambda c: microaggregation(c(DATA), NUMERIC, k=3),
    "local_suppression": lambda c: local_suppression(c(DATA), SCHEMA, k=2),
    "sample": lambda c: sample(c(DATA), SCHEMA, fraction=0.5, strata="sex", rng=1),
    "top_bottom_code": lambda c: top_bottom_code(c(DATA), NUMERIC, column="income", top=45_000),
    "rank_swap": lambda c: rank_swap(c(DATA), NUMERIC, p=10, rng=1),
    "global_recode": lambda c: global_recode(c(DATA), SCHEMA, levels=1),
    "Table.from_frame": lambda c: Table.from_frame(c(DATA), SCHEMA).to_frame(),
    "lint_schema": lambda c: ma.lint_schema(c(DATA), SCHEMA).to_dict(),
    "k_anonymity": lambda c: k_anonymity(c(DATA), QI),
    "KAnonymity.check": lambda c: KAnonymity(2).check(c(DATA), QI),
    "l_diversity": lambda c: l_diversity(c(DATA), QI, "disease"),
    "t_closeness": lambda c: t_closeness(c(DATA), QI, "disease"),
    "profile": lambda c: profile(c(DATA), QI, "disease"),
    "delta_presence": lambda c: delta_presence(c(DATA), QI, c(POPULATION), 0.1, 0.9),
    "k_map": lambda c: k_map(c(DATA), QI, 2, population=c(POPULATION)),
    "reidentification_risk": lambda c: reidentification_risk(c(DATA), QI),
    "attacker_risks": lambda c: attacker_risks(c(DATA), QI, population=c(POPULATION)),
    "sample_uniques": lambda c: sample_uniques(c(DATA), QI),
    "population_uniqueness": lambda c: population_uniqueness(c(DATA), QI, fraction=0.1),
    "suda2": lambda c: suda2(c(DATA), QI),
    "individual_risk": lambda c: individual_risk(c(DATA), QI, "weight"),
    "equivalence_classes": lambda c: equivalence_classes(c(DATA), QI),
    "aecs": lambda c: aecs(c(DATA), QI, 2),
    "minimal_uniques": lambda c: minimal_uniques(c(DATA), QI),
    "loglinear_risk": lambda c: loglinear_risk(c(DATA), ["sex", "zip"], "weight"),
    "precision": lambda c: precision(c(DATA), {"sex": HIERARCHIES["sex"]}, ["sex"]),
    "relative_accuracy": lambda c: relative_accuracy(
        c(DATA), c(DATA), ["sex", "zip"], "disease", rng=1
    ),
    "loss_metric": lambda c: loss_metric(c(DATA), {"sex": HIERARCHIES["sex"]}, ["sex"]),
    "non_uniform_entropy": lambda c: non_uniform_entropy(c(DATA), c(DATA), ["sex", "zip"]),
    "il1s": lambda c: il1s(c(DATA[["income", "weight"]]), c(DATA[["weight", "income"]])),
    "information_loss": lambda c: information_loss(c(DATA), c(DATA), ["income", "weight"]),
    "Schema.infer": lambda c: ma.Schema.infer(c(DATA), quasi=QI).to_dict(),
}


def _table(frame: pd.DataFrame) -> pa.Table:
    return pa.Table.from_pandas(frame, preserve_index=False)


#: The kinds of Arrow input: a pyarrow Table, a RecordBatch, a capsule-only object (as polars).
KINDS: dict[str, Callable[[pd.DataFrame], Any]] = {
    "pyarrow Table": _table,
    "RecordBatch": lambda f: _table(f).combine_chunks().to_batches()[0],
    "capsule": lambda f: ArrowStream(_table(f)),
}


def _same(a: Any, b: Any) -> None:
    """Assert two results are equal: releases, frames, verdicts, dataclasses, numbers."""
    if isinstance(a, Release):
        assert a.kind == b.kind and a.tables.keys() == b.tables.keys()
        for name in a.tables:
            pd.testing.assert_frame_equal(a.tables[name], b.tables[name])
        _same(a.metadata, b.metadata)
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name))
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            if not str(key).endswith("seconds"):  # run times
                _same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b


@pytest.mark.filterwarnings("ignore::microanon.core.SchemaInferenceWarning")
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("name", list(CALLS))
def test_arrow_input_gives_the_pandas_result(name: str, kind: str) -> None:
    _same(_on_pandas(name), CALLS[name](KINDS[kind]))


@functools.cache
def _on_pandas(name: str) -> Any:
    """The result of a call on the pandas DataFrame (computed once per call)."""
    return CALLS[name](lambda frame: frame)


def test_publish_takes_an_arrow_original(tmp_path) -> None:
    release = full_domain(DATA, SCHEMA, models={"k_anonymity": {"k": 3}})
    accept = {"income": ["near_unique"], "weight": ["near_unique"]}
    _, from_pandas = ma.publish(release, tmp_path / "a", DATA, SCHEMA, accept=accept)
    arrow = ArrowStream(_table(DATA))
    _, from_arrow = ma.publish(release, tmp_path / "b", arrow, SCHEMA, accept=accept)
    for numbers in (from_pandas, from_arrow):  # its cross-validation folds are drawn at random
        del numbers["utility"]["relative ID3 accuracy"]
    _same(from_pandas, from_arrow)


def test_as_pandas() -> None:
    assert as_pandas(DATA) is DATA
    assert is_arrow_table(_table(DATA)) and is_arrow_table(ArrowStream(_table(DATA)))
    assert not is_arrow_table(DATA) and not is_arrow_table(DATA["age"])
    assert pandas_if_arrow([1, 2]) == [1, 2]
    pd.testing.assert_frame_equal(pandas_if_arrow(_table(DATA)), DATA)


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ([[1, 2]], "data: expected a pandas DataFrame or an Arrow-compatible table, got list"),
        (DATA["age"], "data: expected a pandas DataFrame or an Arrow-compatible table, got Series"),
        (pa.array([1, 2]), "data: Int64Array is not an Arrow table"),
        (pa.chunked_array([[1, 2]]), "data: ChunkedArray is not an Arrow table"),
    ],
)
def test_what_is_not_a_table_is_one_clear_error(obj: Any, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        as_pandas(obj, "data")
    assert "\n" not in str(info.value)


def test_methods_name_what_they_expect() -> None:
    with pytest.raises(InputError, match="expected a pandas DataFrame or an Arrow-compatible"):
        full_domain({"age": [1]}, SCHEMA, models={"k_anonymity": {"k": 2}})


def test_polars_frames_are_taken() -> None:
    pl = require_module("polars", "polars frames are an Arrow-compatible input")
    frame = pl.from_pandas(DATA)
    _same(k_anonymity(DATA, QI), k_anonymity(frame, QI))
    _same(CALLS["full_domain"](lambda f: f), CALLS["full_domain"](pl.from_pandas))
