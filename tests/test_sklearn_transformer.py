"""microanon.sklearn.AnonymizingTransformer under scikit-learn: Pipeline, clone, set_output."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from oracles import require_module

import microanon
from microanon import InputError
from microanon.datasets import adult_schema, load_adult
from microanon.sklearn import AnonymizingTransformer

sklearn = require_module("sklearn", "the transformer is tested under scikit-learn's Pipeline")
from sklearn.base import clone  # noqa: E402
from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402
from sklearn.utils import get_tags  # noqa: E402

EXAMPLE = Path(microanon.__file__).resolve().parent / "examples" / "sklearn_pipeline.py"
MODELS = [{"k_anonymity": {"k": 5}}]


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, pd.Series, pd.DataFrame, pd.Series]:
    adult = load_adult().iloc[:8000]
    X, y = adult.drop(columns="income"), adult["income"]
    return X.iloc[::2], y.iloc[::2], X.iloc[1::2], y.iloc[1::2]


@pytest.fixture(scope="module")
def schema():
    adult = load_adult()
    return adult_schema(sensitive=None).select([c for c in adult.columns if c != "income"])


def _transformer(schema, **params) -> AnonymizingTransformer:
    return AnonymizingTransformer(schema, MODELS, params={"suppression": 0.05, **params})


def test_pipeline_with_one_hot_encoder(data, schema) -> None:
    X, y, X_test, y_test = data
    anonymize = _transformer(schema).set_output(transform="pandas")
    encode = ColumnTransformer(
        [("quasi", OneHotEncoder(handle_unknown="ignore"), schema.quasi)], remainder="drop"
    )
    pipe = Pipeline(
        [
            ("anonymize", anonymize),
            ("encode", encode),
            ("tree", DecisionTreeClassifier(max_depth=5)),
        ]
    )
    pipe.fit(X, y)
    assert 0.7 < pipe.score(X_test, y_test) <= 1.0
    fitted = pipe.named_steps["anonymize"]
    levels = fitted.anonymizer_.recoding["levels"]
    # The encoder saw the generalized labels only: the fitted levels' labels and "*".
    for q, categories in zip(
        schema.quasi, pipe.named_steps["encode"].transformers_[0][1].categories_, strict=True
    ):
        h = fitted.anonymizer_.fitted_schema.hierarchy(q)
        allowed = {str(v) for v in h.level_labels(levels[q])} | {"*"}
        assert set(map(str, categories)) <= allowed, q
    assert list(pipe[:-1].get_feature_names_out())[0].startswith("quasi__")


def test_suppressed_records_stay_as_star_rows_aligned_with_y(data, schema) -> None:
    X, y, X_test, _ = data
    t = _transformer(schema).set_output(transform="pandas")
    out = t.fit_transform(X, y)
    assert len(out) == len(X) and out.index.equals(X.index)
    starred = (out[schema.quasi] == "*").all(axis=1)
    suppressed = int(starred.sum())
    assert 0 < suppressed <= 0.05 * len(X)
    assert out["hours_per_week"].equals(X["hours_per_week"])
    test_out = t.transform(X_test)
    assert test_out.index.equals(X_test.index)
    with pytest.raises(InputError, match="cannot drop rows"):
        _transformer(schema, suppressed_rows="remove").fit(X)


def test_get_feature_names_out_and_set_output(data, schema) -> None:
    X, _, X_test, _ = data
    t = _transformer(schema)
    array = t.fit(X).transform(X_test)
    assert isinstance(array, np.ndarray) and array.shape == (len(X_test), len(schema.published))
    names = t.get_feature_names_out()
    assert list(names) == schema.published
    assert "fnlwgt" not in names  # an identifier: never published
    frame = t.set_output(transform="pandas").transform(X_test)
    assert list(frame.columns) == list(names)
    assert np.array_equal(frame.to_numpy(dtype=object), array)
    assert isinstance(t.set_output(transform="default").transform(X_test), np.ndarray)
    assert t.set_output(transform=None) is t
    with pytest.raises(InputError, match="transform must be one of"):
        t.set_output(transform="polars")
    assert list(t.get_feature_names_out(X.columns)) == list(names)
    with pytest.raises(InputError, match="input_features"):
        t.get_feature_names_out(["a", "b"])
    assert t.n_features_in_ == X.shape[1]


def test_clone_get_params_and_set_params(data, schema) -> None:
    X, _, _, _ = data
    t = _transformer(schema).set_output(transform="pandas")
    t.fit(X)
    copy = clone(t)
    assert not hasattr(copy, "anonymizer_")
    assert set(copy.get_params()) == {"schema", "models", "method", "params"}
    assert copy.get_params()["params"] == t.get_params()["params"]
    assert copy.get_params()["schema"] == schema
    assert isinstance(copy.fit(X).transform(X), pd.DataFrame)  # set_output survives clone
    assert copy.set_params(params={"suppression": 0.1}) is copy
    assert copy.params == {"suppression": 0.1}
    with pytest.raises(InputError, match="no parameter 'k'"):
        copy.set_params(k=3)
    with pytest.raises(ValueError):  # what scikit-learn expects of set_params
        copy.set_params(k=3)
    assert "AnonymizingTransformer(" in repr(copy)


def test_bad_use_is_refused(data, schema) -> None:
    X, _, _, _ = data
    with pytest.raises(InputError, match="not fitted"):
        _transformer(schema).transform(X)
    with pytest.raises(InputError, match="not fitted"):
        _transformer(schema).get_feature_names_out()
    with pytest.raises(InputError, match="needs a schema"):
        AnonymizingTransformer().fit(X)
    with pytest.raises(InputError, match="DataFrame"):
        _transformer(schema).fit(X.to_numpy())
    with pytest.raises(InputError, match="params must be a mapping"):
        AnonymizingTransformer(schema, MODELS, params=[("suppression", 0.1)]).fit(X)


def test_tags_for_scikit_learn(schema) -> None:
    tags = get_tags(_transformer(schema))
    assert tags.input_tags.string and tags.requires_fit


def test_microanon_imports_without_scikit_learn() -> None:
    code = (
        "import sys; sys.modules['sklearn'] = None\n"
        "import microanon, microanon.sklearn\n"
        "from microanon.sklearn import AnonymizingTransformer\n"
        "print(microanon.Anonymizer.__name__, AnonymizingTransformer().get_params()['method'])\n"
    )
    src = Path(__file__).resolve().parents[1] / "src"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(src), "PATH": ""},
    )
    assert out.stdout.split() == ["Anonymizer", "full_domain"]


def test_example_runs_and_reports_both_accuracies(capsys) -> None:
    result = runpy.run_path(str(EXAMPLE))["main"]()
    assert 0.75 < result["accuracy_anonymized"] <= result["accuracy_original"] + 0.02
    assert result["accuracy_original"] > 0.8
    assert 0 < result["suppressed_test_share"] <= 0.05
    out = capsys.readouterr().out
    assert "accuracy_anonymized" in out and "accuracy_original" in out
