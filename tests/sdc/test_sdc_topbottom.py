"""Top/bottom coding: sdcMicro's strict thresholds, quantiles, replacements, types, errors."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pandas as pd
import pytest

from microanon.core.errors import InputError
from microanon.core.release import Release
from microanon.methods.sdc.topbottom import top_bottom_code

SCHEMA = {
    "income": {"role": "quasi", "kind": "numeric"},
    "score": {"role": "quasi", "kind": "numeric"},
    "region": "quasi",
}


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame({
        "income": [5, 10, 20, 30, 40, 1000],
        "score": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5],
        "region": list("nnssew"),
    })  # fmt: skip


def test_threshold_replacement_is_strict_like_sdcmicro(frame):
    rel = top_bottom_code(frame, SCHEMA, column="income", top=30, bottom=10)
    # Values equal to a threshold are kept (sdcMicro: x > value, x < value).
    assert rel.data["income"].tolist() == [10, 10, 20, 30, 30, 30]
    assert pd.api.types.is_integer_dtype(rel.data["income"])
    m = rel.metadata
    assert m["coded"] == {"top": 2, "bottom": 1}
    assert m["thresholds"] == {"top": 30.0, "bottom": 10.0}
    assert m["replaced_by"] == {"top": 30, "bottom": 10}
    assert rel.data["score"].tolist() == frame["score"].tolist()
    assert rel.data["region"].tolist() == frame["region"].tolist()


def test_mean_replacement_preserves_the_total(frame):
    rel = top_bottom_code(frame, SCHEMA, column="income", top=30, replacement="mean")
    assert rel.data["income"].tolist() == [5, 10, 20, 30, 520, 520]
    assert rel.data["income"].sum() == frame["income"].sum()
    bottom = top_bottom_code(frame, SCHEMA, column="score", bottom=2, replacement="mean")
    assert bottom.data["score"].tolist() == [1.0, 1.0, 2.5, 3.5, 4.5, 5.5]
    assert bottom.metadata["replaced_by"] == {"bottom": 1.0}


def test_number_replacement_as_sdcmicro(frame):
    rel = top_bottom_code(frame, SCHEMA, column="income", top=40, replacement=41)
    assert rel.data["income"].tolist() == [5, 10, 20, 30, 40, 41]
    flt = top_bottom_code(frame, SCHEMA, column="income", top=40, replacement=40.5)
    assert pd.api.types.is_float_dtype(flt.data["income"])


def test_label_makes_the_column_text(frame, tmp_path):
    rel = top_bottom_code(
        frame, SCHEMA, column="income", top=30, bottom=10,
        replacement={"top": "> 30", "bottom": "< 10"},
    )  # fmt: skip
    assert rel.data["income"].tolist() == ["< 10", "10", "20", "30", "> 30", "> 30"]
    back = Release.load(rel.save(tmp_path / "rel"))
    written = rel.in_written_order().data  # (the rows sorted by their values)
    assert back.data["income"].tolist() == written["income"].tolist()
    one = top_bottom_code(frame, SCHEMA, column="score", top=4, replacement="high")
    assert one.data["score"].tolist() == ["0.5", "1.5", "2.5", "3.5", "high", "high"]


def test_quantile_thresholds(frame):
    rel = top_bottom_code(frame, SCHEMA, column="income", top=0.8, bottom=0.2, quantiles=True)
    top, bottom = np.quantile(frame["income"], [0.8, 0.2])
    assert rel.metadata["thresholds"] == {"top": top, "bottom": bottom}
    expected = np.clip(frame["income"].to_numpy(float), bottom, top)
    np.testing.assert_allclose(rel.data["income"].to_numpy(float), expected)
    assert rel.metadata["parameters"]["quantiles"] is True


def test_nothing_beyond_the_threshold(frame):
    rel = top_bottom_code(frame, SCHEMA, column="income", top=5000, replacement="mean")
    assert rel.metadata["coded"] == {"top": 0}
    assert rel.data["income"].tolist() == frame["income"].tolist()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "top or a bottom"),
        ({"top": 10, "bottom": 20}, "bottom: expected a value not above top"),
        ({"top": "10"}, "top"),
        ({"top": float("inf")}, "top"),
        ({"bottom": 1.5, "quantiles": True}, r"probability\): expected a number in \[0, 1\]"),
        ({"top": 0.5, "quantiles": "yes"}, "quantiles"),
        ({"top": 10, "replacement": ""}, "empty label"),
        ({"top": 10, "replacement": None}, "replacement"),
        ({"top": 10, "replacement": {"bottom": 1}}, "exactly the keys"),
        ({"top": 10, "column": "region"}, "'region' is categorical"),
        ({"top": 10, "column": "nope"}, "'nope'"),
        ({"top": 10, "column": ["income"]}, "column must be a text"),
    ],
)
def test_errors(frame, kwargs, match):
    kwargs = {"column": "income", **kwargs}
    with pytest.raises(InputError, match=match):
        top_bottom_code(frame, SCHEMA, **kwargs)


def test_docstring_examples():
    module = importlib.import_module("microanon.methods.sdc.topbottom")
    assert doctest.testmod(module).failed == 0


def test_the_metadata_is_written_in_one_order_whatever_the_hash_seed(tmp_path):
    """The sides of a two-sided coding were kept in a set: ``replaced_by`` came out in the
    order of the interpreter's string hashing, so two runs wrote two internal.json files. They
    now come in one order, top then bottom, under any ``PYTHONHASHSEED``."""
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json, pandas as pd\n"
        "from microanon.methods.sdc.topbottom import top_bottom_code\n"
        "f = pd.DataFrame({'income': [5, 10, 20, 30, 40, 1000], 'region': list('nnssew')})\n"
        "r = top_bottom_code(f, {'income': {'role': 'quasi', 'kind': 'numeric'}, "
        "'region': 'quasi'}, column='income', top=30, bottom=10, replacement='mean')\n"
        "print(json.dumps(list(r.metadata['replaced_by'])))\n"
    )
    orders = set()
    for seed in ("0", "1", "2", "3", "4", "5"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        orders.add(tuple(json.loads(out.stdout)))
    assert orders == {("top", "bottom")}
