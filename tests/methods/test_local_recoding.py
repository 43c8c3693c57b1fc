"""Local recoding: small examples worked by hand, release contents and bad input.

Costs below are NCP: numeric ``(hi - lo) / (max - min of the table)``, categorical
``(covered leaves - 1) / (domain size - 1)``, averaged over the quasi-identifiers.
"""

from __future__ import annotations

import importlib

import pandas as pd
import pytest

from microanon.core import Hierarchy, InfeasibleError, InputError, Release, SchemaError
from microanon.methods.generalize.local_recoding import HEURISTIC, local_recoding
from microanon.models import KAnonymity, LDiversity, t_closeness

# the package re-exports the function under the module's name, so fetch the module itself
lr = importlib.import_module("microanon.methods.generalize.local_recoding")

NUMERIC = {"role": "quasi", "kind": "numeric"}
COUNTRY = Hierarchy.from_nested(
    {"World": {"Europe": ["FR", "ES", "IT", "DE"], "Asia": ["JP", "CN"]}}, name="country"
)


def test_two_clusters():
    # Centre: the ⌈6/2⌉ = 3rd smallest value, 22. The farthest value from it, 42, seeds a group
    # that takes its nearest values 41 and 40 (box [40, 42]); the next seed is the remaining
    # value farthest from 42, i.e. 20, which takes 21 and 22.
    df = pd.DataFrame({"age": [20, 21, 22, 40, 41, 42]})
    rel = local_recoding(df, {"age": NUMERIC}, k=3)
    assert isinstance(rel, Release) and rel.kind == "generalized"
    assert list(rel.data["age"]) == ["[20, 22]"] * 3 + ["[40, 42]"] * 3
    meta = rel.metadata
    assert meta["method"] == "local_recoding" and meta["groups"] == 2
    assert meta["heuristic"] == HEURISTIC and meta["suppressed"] == 0
    assert meta["parameters"] == {"k": 3} and meta["models"] == [{"k_anonymity": {"k": 3}}]
    assert meta["rows_in"] == meta["rows_out"] == 6


def test_leftover_joins_the_group_that_grows_least():
    # Centre 10 (4th of 7 values); seed 1 (farthest) takes 2 and 3; seed 13 (farthest from 1)
    # takes 12 and 11. The leftover 10 (one record < k) then costs, with table range 12:
    #   join [1, 3]:   4 · (10 - 1)/12 - 3 · 2/12 = 30/12
    #   join [11, 13]: 4 · (13 - 10)/12 - 3 · 2/12 = 6/12   <- least
    df = pd.DataFrame({"age": [1, 2, 3, 10, 11, 12, 13]})
    rel = local_recoding(df, {"age": NUMERIC}, k=3)
    assert list(rel.data["age"]) == ["[1, 3]"] * 3 + ["[10, 13]"] * 4
    assert rel.metadata["groups"] == 2


def test_categorical_and_frequent_combinations():
    # Domain FR ES IT DE JP CN (6 leaves): Europe costs (4-1)/5 = 3/5, Asia 1/5, the root 1.
    # FR occurs 3 >= k times: a group of its own. Centre: the most frequent leaf, FR; the
    # remaining values farthest from it are JP and CN (root, cost 1); JP (first in leaf order,
    # 2 records) seeds a group and takes CN (Asia, 1/5). ES and IT are left over:
    #   ES: FR group 4 · 3/5 - 3 · 0 = 2.4, Asia group 4 · 1 - 3 · 1/5 = 3.4   -> FR group
    #   IT: now Europe, 5 · 3/5 - 4 · 3/5 = 0.6, Asia group 3.4                 -> Europe
    df = pd.DataFrame({"country": ["FR", "JP", "ES", "FR", "CN", "IT", "JP", "FR"]})
    rel = local_recoding(df, {"country": {"role": "quasi", "hierarchy": COUNTRY}}, k=3)
    assert list(rel.data["country"]) == [
        "Europe", "Asia", "Europe", "Europe", "Asia", "Europe", "Asia", "Europe",
    ]  # fmt: skip
    assert rel.metadata["groups"] == 2
    # a whole-domain box is published as "*", not as the root's label
    everything = local_recoding(df, {"country": {"role": "quasi", "hierarchy": COUNTRY}}, k=8)
    assert set(everything.data["country"]) == {"*"}


def test_l_diversity_grows_the_group():
    # k = 2 alone: seed 6 takes 5; seed 1 takes 2; 4 takes 3 -> [5, 6] [1, 2] [3, 4].
    # With distinct 2-diversity, [5, 6] holds c, c only, so it grows by the cheapest candidate
    # that brings it closer (4, disease b): [4, 6]; likewise [1, 2] (a, a) takes 3 (b).
    df = pd.DataFrame({"age": [1, 2, 3, 4, 5, 6], "disease": ["a", "a", "b", "b", "c", "c"]})
    schema = {"age": NUMERIC, "disease": "sensitive"}
    plain = local_recoding(df, schema, k=2)
    assert list(plain.data["age"]) == ["[1, 2]"] * 2 + ["[3, 4]"] * 2 + ["[5, 6]"] * 2
    diverse = local_recoding(df, schema, k=2, models={"l_diversity": {"l": 2}})
    assert list(diverse.data["age"]) == ["[1, 3]"] * 3 + ["[4, 6]"] * 3
    assert diverse.metadata["models"] == [
        {"k_anonymity": {"k": 2}},
        {"l_diversity": {"l": 2, "form": "distinct"}},
    ]


# Tables found by hypothesis where a leftover fits no group under t = 0.2 (the hierarchy of q0
# in the first one lists 0, 2, 1: it only changes the order of ties between candidates). The
# leftover joins the cheapest group with the other leftovers, and groups are merged into it
# until t-closeness holds (in the second table, more than once).
FALLBACK = [
    (
        {
            "q0": [0, 0, 0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1],
            "q1": [2, 2, 0, 1, 0, 0, 0, 2, 1, 0, 0, 0, 1, 1, 2, 0, 1, 0],
            "disease": list("ccdddcaabdccccdaad"),
        },
        Hierarchy.from_paths([["*", "g", 0], ["*", "g", 2], ["*", "g", 1]]),
    ),
    (
        {
            "q0": [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1],
            "q1": [0, 0, 3, 0, 0, 0, 1, 0, 0, 1, 2, 2, 0, 3, 1],
            "disease": list("aaacaaabbaaaaaa"),
        },
        None,
    ),
]


@pytest.mark.parametrize("data, q0", FALLBACK)
def test_fallback_merges_groups_until_the_models_hold(monkeypatch, data, q0):
    absorbed = []
    original = lr._Clustering._absorb

    def spy(self, rest, g):
        absorbed.append(len(rest))
        return original(self, rest, g)

    monkeypatch.setattr(lr._Clustering, "_absorb", spy)
    df = pd.DataFrame(data)
    schema = {"q0": {**NUMERIC, "hierarchy": q0}, "q1": NUMERIC, "disease": "sensitive"}
    rel = local_recoding(df, schema, k=1, models={"t_closeness": {"t": 0.2}})
    assert absorbed
    assert t_closeness(rel.data, ["q0", "q1"], "disease", 0.2).holds
    assert sorted(rel.data["disease"]) == sorted(df["disease"])


def test_larger_k_among_the_models_wins():
    df = pd.DataFrame({"age": [20, 21, 22, 40, 41, 42]})
    rel = local_recoding(df, {"age": NUMERIC}, k=2, models=[KAnonymity(3)])
    assert list(rel.data["age"]) == ["[20, 22]"] * 3 + ["[40, 42]"] * 3


def test_k_given_also_among_the_models_is_claimed_once():
    """k = 5 as the method's parameter and as a model (as a config's models: list repeats it):
    the release claims k-anonymity once, and the check of the release finds it once."""
    from microanon.models import check_release

    df = pd.DataFrame({"age": list(range(20, 30)) + list(range(40, 50))})
    rel = local_recoding(df, {"age": NUMERIC}, k=5, models=[{"k_anonymity": {"k": 5}}])
    assert rel.metadata["models"] == [{"k_anonymity": {"k": 5}}]
    assert [v.model for v in check_release(rel)] == ["k-anonymity"]


def test_k1_publishes_the_original_values():
    df = pd.DataFrame({"age": [3, 1, 2], "sex": ["M", "F", "M"]})
    schema = {"age": NUMERIC, "sex": {"role": "quasi", "hierarchy": {"builder": "balanced"}}}
    rel = local_recoding(df, schema, k=1)
    assert list(rel.data["age"]) == ["3", "1", "2"] and list(rel.data["sex"]) == ["M", "F", "M"]
    assert rel.metadata["groups"] == 3


# ---------------------------------------------------------------------------------- bad input
@pytest.fixture
def small() -> tuple[pd.DataFrame, dict]:
    df = pd.DataFrame(
        {"age": [20, 21, 22, 40], "sex": ["M", "F", "M", "F"], "disease": ["a", "b", "a", "c"]}
    )
    sex = Hierarchy.from_nested({"*": ["M", "F"]})
    return df, {"age": NUMERIC, "sex": {"role": "quasi", "hierarchy": sex}, "disease": "sensitive"}


@pytest.mark.parametrize("k", [0, -1, 1.5, "2", True, None])
def test_bad_k(small, k):
    df, schema = small
    with pytest.raises(InputError, match="k must be"):
        local_recoding(df, schema, k=k)


def test_k_above_the_number_of_records(small):
    df, schema = small
    with pytest.raises(InfeasibleError, match=r"k-anonymity \(k=5\).*4 records"):
        local_recoding(df, schema, k=5)


def test_l_above_the_distinct_values(small):
    df, schema = small
    with pytest.raises(InfeasibleError, match=r"distinct l-diversity \(l=4"):
        local_recoding(df, schema, k=1, models=LDiversity(4))


def test_schema_errors(small):
    df, schema = small
    with pytest.raises(SchemaError, match="no quasi-identifier"):
        local_recoding(df, {"age": "insensitive", "sex": "insensitive"}, k=1)
    with pytest.raises(SchemaError, match="'sex' is categorical and local recoding needs"):
        local_recoding(df, {**schema, "sex": {"role": "quasi"}}, k=1)
    with pytest.raises(SchemaError, match="exactly one sensitive column"):
        local_recoding(df, {**schema, "disease": "insensitive"}, k=1, models=LDiversity(2))


def test_bad_models(small):
    df, schema = small
    with pytest.raises(InputError, match="unknown privacy model"):
        local_recoding(df, schema, k=1, models={"l_div": {"l": 2}})
    with pytest.raises(InputError, match="models"):
        local_recoding(df, schema, k=1, models=[])


def test_empty_table(small):
    df, schema = small
    with pytest.raises(InputError, match="empty"):
        local_recoding(df.iloc[:0], schema, k=1)


def test_progress_bar(small, capsys):
    df, schema = small
    quiet = local_recoding(df, schema, k=2)
    assert capsys.readouterr().err == ""
    shown = local_recoding(df, schema, k=2, progress=True)
    assert "local recoding" in capsys.readouterr().err
    assert shown.equals(quiet)
