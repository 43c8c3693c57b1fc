"""Model classes, configuration entries and the all-in-one profile."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from microanon.core.hierarchy import Hierarchy
from microanon.models import (
    MODELS,
    Groups,
    KAnonymity,
    LDiversity,
    PrivacyModel,
    TCloseness,
    k_anonymity,
    l_diversity,
    model_from_config,
    profile,
    t_closeness,
)

DF = pd.DataFrame(
    {
        "q": list("aaaabbbbbb"),
        "s": ["x", "y", "y", "z", "x", "x", "x", "y", "z", "w"],
        "n": [1, 2, 3, 4, 1, 1, 2, 2, 3, 4],
    }
)
TREE = {"*": {"xy": ["x", "y"], "zw": ["z", "w"]}}


def test_classes_match_functions() -> None:
    assert KAnonymity(4).check(DF, "q").to_dict() == k_anonymity(DF, "q", 4).to_dict()
    for form, c in [("frequency", None), ("distinct", None), ("entropy", None), ("recursive", 2)]:
        model = LDiversity(2, form=form, c=c)
        expected = l_diversity(DF, "q", "s", 2, form, c)
        assert model.check(DF, "q", "s").to_dict() == expected.to_dict()
        assert model.name == expected.model
    assert LDiversity(2, form="entropy").name == "entropy l-diversity"
    assert KAnonymity(2).name == "k-anonymity" and TCloseness(0.1).name == "t-closeness"
    # the default distance follows the data, as in t_closeness
    assert TCloseness(0.3).check(DF, "q", "n").parameters["distance"] == "ordered"
    assert TCloseness(0.3).check(DF, "q", "s").parameters["distance"] == "equal"
    h = Hierarchy.from_nested(TREE)
    v = TCloseness(0.3, hierarchy=h).check(DF, "q", "s")
    assert v.to_dict() == t_closeness(DF, "q", "s", 0.3, hierarchy=h).to_dict()


def test_parameters_are_normalized() -> None:
    assert LDiversity(3.0).l == 3 and isinstance(LDiversity(3.0).l, int)
    assert LDiversity(2, form="entropy").l == 2.0
    assert TCloseness(0, order=("x", "y")).order == ("x", "y")
    assert TCloseness(0, order=["x", "y"]).distance == "ordered"
    assert KAnonymity(2) == KAnonymity(2.0)


@pytest.mark.parametrize(
    "model",
    [
        KAnonymity(3),
        LDiversity(2),
        LDiversity(1.5, form="frequency"),
        LDiversity(2, form="recursive", c=1.5),
        TCloseness(0.25),
        TCloseness(0.25, distance="equal"),
        TCloseness(0.5, order=["w", "x", "y", "z"]),
        TCloseness(0.5, hierarchy=Hierarchy.from_nested(TREE)),
    ],
)
def test_config_round_trip(model: PrivacyModel) -> None:
    config = json.loads(json.dumps(model.to_config()))  # survives JSON (and YAML)
    ((name, params),) = config.items()
    rebuilt = model_from_config(name, params)
    assert type(rebuilt) is type(model) and rebuilt == model
    assert rebuilt.check(DF, "q", "s").to_dict() == model.check(DF, "q", "s").to_dict()


def test_model_from_config() -> None:
    assert set(MODELS) == {
        "k_anonymity",
        "l_diversity",
        "t_closeness",
        "p_privacy",
        "beta_likeness",
        "delta_disclosure",
        "delta_presence",
        "k_map",
    }
    assert model_from_config("k_anonymity", {"k": 5}) == KAnonymity(5)
    m = model_from_config("l_diversity", {"l": 3, "form": "entropy"})
    assert m == LDiversity(3, form="entropy") and m.name == "entropy l-diversity"
    m = model_from_config("t_closeness", {"t": 0.2, "hierarchy": TREE})  # nested mapping
    assert m.distance == "hierarchical" and m.hierarchy == Hierarchy.from_nested(TREE)
    assert model_from_config("t_closeness", {"t": 0.2}).distance is None


def test_profile_matches_individual_checks() -> None:
    for data in (DF, Groups.from_frame(DF, "q", "s")):
        quasi, sensitive = (None, None) if isinstance(data, Groups) else ("q", "s")
        p = profile(data, quasi, sensitive, c=3)
        assert p == {
            "rows": 10,
            "classes": 2,
            "k": k_anonymity(DF, "q").value,
            "l_frequency": l_diversity(DF, "q", "s", form="frequency").value,
            "l_distinct": l_diversity(DF, "q", "s").value,
            "l_entropy": l_diversity(DF, "q", "s", form="entropy").value,
            "l_recursive": l_diversity(DF, "q", "s", form="recursive", c=3).value,
            "t_closeness": t_closeness(DF, "q", "s").value,
            "t_distance": "equal",
            "unknown_sensitive": 0,
        }
    assert profile(DF, "q", "n")["t_distance"] == "ordered"
    # group a: x y y z (size 4); group b: x x x y z w (size 6)
    p = profile(DF, "q", "s")
    assert (p["k"], p["l_frequency"], p["l_distinct"]) == (4, 2.0, 3)
    assert json.dumps(p)


def test_whether_configured_models_read_a_sensitive_column_is_told_by_their_names():
    """A release's ``models`` metadata names its models: k-anonymity and the population models
    read no sensitive column, ℓ-diversity and the others do; every model class declares it, and
    an instance says the same as its class."""
    from microanon.models.config import MODELS, reads_sensitive

    keys_only = {"k_anonymity", "delta_presence", "k_map"}
    for name in MODELS:
        assert reads_sensitive([{name: {}}]) == (name not in keys_only), name
    assert not reads_sensitive([{"k_anonymity": {"k": 5}}, {"k_map": {"k": 2}}])
    assert reads_sensitive([{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2}}])
    assert reads_sensitive({"k_anonymity": {"k": 5}, "t_closeness": {"t": 0.2}})
    assert not reads_sensitive(model_from_config("k_anonymity", {"k": 3}))
    assert reads_sensitive([model_from_config("l_diversity", {"l": 3})])
    assert not reads_sensitive([])
