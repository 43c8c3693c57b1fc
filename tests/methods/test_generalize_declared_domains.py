"""``Anonymizer.transform`` over declared domains: a value the fitted table lacks but the
declared domain holds is published; a value outside it is one line naming column and value;
the saved anonymizer carries the whole domain."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon import Anonymizer, InputError, SchemaError

SCHEMA = {
    "state": {"role": "quasi", "hierarchy": {"builder": "bundled", "name": "us-states"}},
    "age": {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [10, 20], "start": 0, "end": 120},
    },
    "job": {
        "role": "quasi",
        "categories": ["clerk", "nurse", "teacher", "pilot"],
        "hierarchy": {
            "builder": "groups",
            "levels": [
                {"office": ["clerk", "teacher"], "care": ["nurse"], "transport": ["pilot"]},
                {"indoor": ["office", "care"], "outdoor": ["transport"]},
            ],
        },
    },
}


def _table(n: int, states, ages, jobs, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "state": rng.choice(states, n),
            "age": rng.choice(ages, n).astype(np.int64),
            "job": rng.choice(jobs, n),
        }
    )


@pytest.fixture
def fitted():
    first = _table(400, ["CA", "OR", "WA"], np.arange(20, 60), ["clerk", "nurse"], seed=1)
    anonymizer = Anonymizer(SCHEMA, [{"k_anonymity": {"k": 3}}], suppression=0.1)
    anonymizer.fit(first)
    return anonymizer


def test_values_inside_the_declared_domains_are_published(fitted):
    # a new state (NV: Mountain, West), ages 60-98 and a new declared job
    later = _table(400, ["CA", "NV"], np.arange(40, 99), ["clerk", "pilot"], seed=2)
    release = fitted.transform(later, suppression=0.5)
    assert release.metadata["levels"] == fitted.recoding["levels"]
    assert len(release.tables["data"]) > 0


@pytest.mark.parametrize(
    ("column", "value", "shown"),
    [("age", np.int64(130), "130"), ("state", "PR", "'PR'")],
)
def test_a_value_outside_the_declared_domain_is_one_line(fitted, column, value, shown):
    later = _table(50, ["CA"], np.arange(20, 60), ["clerk"], seed=3)
    later.loc[0, column] = value
    with pytest.raises(InputError) as info:
        fitted.transform(later)
    message = str(info.value)
    assert message.startswith(f"column '{column}': 1 value(s) not in its hierarchy: {shown} (")
    assert "\n" not in message and "np." not in message


def test_a_job_outside_the_categories_is_one_line(fitted):
    later = _table(50, ["CA"], np.arange(20, 60), ["clerk"], seed=3)
    later.loc[0, "job"] = "astronaut"
    with pytest.raises(
        SchemaError, match=r"^column 'job': value\(s\) astronaut are not in its categories"
    ):
        fitted.transform(later)


def test_the_saved_anonymizer_keeps_the_declared_domains(fitted, tmp_path):
    path = fitted.save(tmp_path / "recoding.json")
    loaded = Anonymizer.load(path)
    hierarchies = loaded.fitted_schema.hierarchies()
    assert hierarchies["state"].n_leaves == 51
    assert hierarchies["age"].n_leaves == 121
    assert set(hierarchies["job"].leaves) == {"clerk", "nurse", "teacher", "pilot"}
    later = _table(400, ["CA", "NV"], np.arange(40, 99), ["clerk", "pilot"], seed=2)
    assert (
        loaded.transform(later, suppression=0.5)
        .tables["data"]
        .equals(fitted.transform(later, suppression=0.5).tables["data"])
    )
