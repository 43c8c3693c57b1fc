"""Train a classifier on what would be published: microanon inside a scikit-learn Pipeline.

UCI Adult is split in two halves. The pipeline fits a 5-anonymous full-domain generalization
(at most 5 % of the records suppressed, published as ``*``) on the training half, one-hot encodes
the generalized columns and trains a logistic regression to predict ``income``. The test half is
published with the same recoding — the same levels, the models enforced on it too — before the
classifier sees it. The same classifier trained on the original training half is the baseline.

Run it with ``python examples/sklearn_pipeline.py`` after ``microanon examples`` has copied the
examples (scikit-learn must be installed).
"""

from __future__ import annotations

import pandas as pd
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from microanon.datasets import load_adult
from microanon.datasets.schemas import adult_schema
from microanon.sklearn import AnonymizingTransformer

TARGET = "income"
MODELS = [{"k_anonymity": {"k": 5}}]
PARAMS = {"suppression": 0.05, "metric": "lm"}


def classifier() -> Pipeline:
    """One-hot encoding of the text columns, scaled numbers, a logistic regression."""
    text = make_column_selector(dtype_exclude="number")
    numbers = make_column_selector(dtype_include="number")
    encode = ColumnTransformer(
        [
            ("text", OneHotEncoder(handle_unknown="ignore"), text),
            ("numbers", StandardScaler(), numbers),
        ]
    )
    return make_pipeline(encode, LogisticRegression(solver="liblinear"))


def main() -> dict[str, float]:
    """Fit both pipelines, print and return their accuracies on the test half."""
    adult = load_adult()
    X, y = adult.drop(columns=TARGET), adult[TARGET]
    train, test = slice(0, None, 2), slice(1, None, 2)
    # The label is not a column of X: the schema covers X's columns only.
    schema = adult_schema(sensitive=None).select(list(X.columns))

    anonymize = AnonymizingTransformer(schema, MODELS, params=PARAMS).set_output(transform="pandas")
    private = Pipeline([("anonymize", anonymize), ("classify", classifier())])
    private.fit(X.iloc[train], y.iloc[train])
    baseline = classifier().fit(X.iloc[train], y.iloc[train])

    fitted = private.named_steps["anonymize"].anonymizer_
    published = anonymize.transform(X.iloc[test])
    starred = (published[schema.quasi] == "*").all(axis=1)
    result = {
        "accuracy_anonymized": float(private.score(X.iloc[test], y.iloc[test])),
        "accuracy_original": float(baseline.score(X.iloc[test], y.iloc[test])),
        "suppressed_test_share": float(starred.mean()),
    }
    print("levels:", fitted.recoding["levels"])
    print("published columns:", list(anonymize.get_feature_names_out()))
    print(pd.Series(result).to_string(float_format="{:.4f}".format))
    return result


if __name__ == "__main__":
    main()
