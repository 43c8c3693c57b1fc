"""Bad inputs raise InputError / HierarchyError with messages that say what is wrong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon.core.errors import HierarchyError, InputError
from microanon.core.hierarchy import Hierarchy
from microanon.models import (
    Groups,
    KAnonymity,
    LDiversity,
    TCloseness,
    k_anonymity,
    l_diversity,
    model_from_config,
    profile,
    t_closeness,
)

DF = pd.DataFrame(
    {
        "q": ["a", "a", "b", "b", "b"],
        "z": [1, 1, 1, 2, 2],
        "s": ["x", "y", "x", "y", "z"],
        "n": [3.0, 1.0, 2.0, 2.0, 5.0],
    }
)


@pytest.mark.parametrize(
    ("k", "message"),
    [
        (0, "k must be at least 1, got 0"),
        (-3, "k must be at least 1"),
        (2.5, "k must be an integer, got 2.5"),
        ("3", "k must be an integer, got '3'"),
        (True, "k must be an integer, got True"),
        (6, r"k = 6 exceeds the number of rows \(5\)"),
    ],
)
def test_bad_k(k: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        k_anonymity(DF, "q", k=k)


def test_integral_float_k_is_accepted() -> None:
    assert k_anonymity(DF, "q", k=np.float64(2.0)).parameters["k"] == 2
    assert k_anonymity(DF, "q", k=np.int32(5)).parameters["k"] == 5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"l": 0.5, "form": "entropy"}, "l must be at least 1, got 0.5"),
        ({"l": 0}, "l must be at least 1, got 0"),
        ({"l": 2.5}, "l must be an integer, got 2.5"),
        ({"l": float("nan"), "form": "frequency"}, "l must be a finite number"),
        ({"l": 4}, "l = 4 is impossible: column 's' has only 3 distinct value"),
        ({"l": 3.5, "form": "entropy"}, "l = 3.5 is impossible"),
        ({"l": 2, "form": "shannon"}, "unknown form 'shannon'; choose one of frequency, "),
        ({"l": 2, "form": "recursive"}, "c: the recursive"),
        ({"l": 2, "form": "recursive", "c": 0}, "c must be positive, got 0"),
        ({"l": 2, "form": "recursive", "c": -1.5}, "c must be positive"),
        ({"l": 2, "form": "recursive", "c": "2"}, "c must be a finite number"),
        ({"l": 2, "c": 2}, "c is only used by the recursive form"),
    ],
)
def test_bad_l_diversity_parameters(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        l_diversity(DF, "q", "s", **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"t": 1.5}, r"t must lie in \[0, 1\]"),
        ({"t": -0.1}, r"t must lie in \[0, 1\]"),
        ({"t": None, "distance": "manhattan"}, "unknown distance 'manhattan'; choose one of equal"),
        ({"distance": "hierarchical"}, "hierarchy: the hierarchical distance needs a Hierarchy"),
        ({"distance": "ordered"}, "column 's' is not numeric: give the model an order"),
        ({"order": ["x", "y"]}, r"column 's': 1 value\(s\) not in the given order: 'z'"),
        ({"order": ["x", "y", "x"]}, "order lists the value 'x' more than once"),
        ({"order": "xyz"}, "order must be a list"),
        ({"order": ["x", "y", "z"], "distance": "equal"}, "order is only used by the ordered"),
        ({"hierarchy": {"*": ["x"]}}, "hierarchy must be a microanon Hierarchy, not dict"),
    ],
)
def test_bad_t_closeness_parameters(kwargs: dict, message: str) -> None:
    error = HierarchyError if "given order:" in message else InputError
    with pytest.raises(error, match=message):
        t_closeness(DF, "q", "s", **kwargs)


def test_hierarchy_errors() -> None:
    h = Hierarchy.from_nested({"*": {"xy": ["x", "y"]}})
    with pytest.raises(HierarchyError, match=r"column 's': 1 value\(s\) not in its hierarchy: 'z'"):
        t_closeness(DF, "q", "s", hierarchy=h)
    with pytest.raises(InputError, match="hierarchy is only used by the hierarchical distance"):
        t_closeness(DF, "q", "s", distance="equal", hierarchy=h)
    with pytest.raises(InputError, match="give either order .* or hierarchy"):
        t_closeness(DF, "q", "s", order=["x", "y", "z"], hierarchy=h)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: k_anonymity(DF, ["q", "age"]), r"column 'age' is not in the table; available "
         r"columns: \['q', 'z', 's', 'n'\]"),
        (lambda: l_diversity(DF, "q", "salary"), "column 'salary' is not in the table"),
        (lambda: k_anonymity(DF, []), "quasi: name at least one quasi-identifier column"),
        (lambda: k_anonymity(DF, ["q", "q"]), r"column\(s\) 'q' listed more than once"),
        (lambda: k_anonymity(DF, None), "quasi: name the quasi-identifier columns"),
        (lambda: l_diversity(DF, "q", None), "sensitive: name the sensitive column"),
        (lambda: l_diversity(DF, ["q", "s"], "s"), "sensitive column 's' is also listed as a "
         "quasi-identifier"),
        (lambda: t_closeness(DF.iloc[:0], "q", "s"), "the table is empty"),
        (lambda: l_diversity(DF, "q", ["s"]), r"sensitive must be one column name, got \['s'\]"),
        (lambda: k_anonymity(DF.to_dict(), "q"), "data must be a pandas DataFrame, an "
         "Arrow-compatible table or a Groups object, not dict"),
        (lambda: k_anonymity(DF.set_axis(["q", "q", "s", "n"], axis=1), "q"),
         "the table has several columns named 'q'"),
    ],
)  # fmt: skip
def test_bad_columns_and_tables(call, message: str) -> None:
    with pytest.raises(InputError, match=message):
        call()


def test_duplicated_unused_columns_are_tolerated() -> None:
    df = DF.set_axis(["q", "z", "s", "z"], axis=1)
    with pytest.raises(InputError, match="several columns named 'z'"):
        k_anonymity(df, ["q", "z"])
    assert k_anonymity(df, "q").value == 2


def test_mismatched_groups() -> None:
    groups = Groups.from_frame(DF, ["q"], "s")
    with pytest.raises(InputError, match=r"quasi \['z'\] differs from the columns these Groups"):
        k_anonymity(groups, "z")
    with pytest.raises(InputError, match="sensitive 'n' differs from the column these Groups"):
        l_diversity(groups, None, "n")
    bare = Groups.from_frame(DF, ["q"])
    with pytest.raises(InputError, match="these Groups were built without a sensitive column"):
        t_closeness(bare, None, None)
    assert k_anonymity(bare, None).value == 2


def test_model_classes_validate_at_construction() -> None:
    with pytest.raises(InputError, match="k must be at least 1"):
        KAnonymity(0)
    with pytest.raises(InputError, match="c: the recursive"):
        LDiversity(3, form="recursive")
    with pytest.raises(InputError, match="l must be an integer"):
        LDiversity(2.5)
    with pytest.raises(InputError, match=r"t must lie in \[0, 1\]"):
        TCloseness(2)
    with pytest.raises(InputError, match="hierarchy: the hierarchical distance"):
        TCloseness(0.2, distance="hierarchical")
    with pytest.raises(InputError, match="l: a configured l-diversity model needs a value"):
        LDiversity(None)
    with pytest.raises(InputError, match="t: a configured t-closeness model needs a value"):
        TCloseness(None)
    # data-dependent checks happen at check time
    with pytest.raises(InputError, match="l = 4 is impossible"):
        LDiversity(4).check(DF, "q", "s")
    with pytest.raises(InputError, match="k = 9 exceeds the number of rows"):
        KAnonymity(9).check(DF, "q")


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("k_anon", {"k": 2}, "unknown privacy model 'k_anon'; choose one of k_anonymity, "),
        ("k_anonymity", {}, "k_anonymity: missing parameter\\(s\\) 'k'"),
        ("k_anonymity", {"k": 2, "l": 3}, "k_anonymity: unknown parameter\\(s\\) 'l'; accepted: k"),
        ("l_diversity", {"l": 2, "form": "recursive"}, "c: the recursive"),
        ("t_closeness", [("t", 0.2)], "parameters of t_closeness must be a mapping"),
    ],
)
def test_bad_configs(name: str, params: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        model_from_config(name, params)


def test_profile_rejects_bad_c() -> None:
    with pytest.raises(InputError, match="c must be positive"):
        profile(DF, "q", "s", c=0)
