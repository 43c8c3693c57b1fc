"""ARX's Loss metric (``metric="loss"``) in the full-domain search.

A hand-worked table, the search against brute force on random small lattices (the reference
computes Loss from its definition on the generalized DataFrame), and on ARX's Adult the
arithmetic-mean Loss picking the loss-metric (LM) optimum.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_full_domain_properties import brute_force, optimum, problems

from microanon.core import Hierarchy, InfeasibleError, InputError, Schema, Table
from microanon.datasets import adult_hierarchies, load_arx_adult
from microanon.methods.generalize import Anonymizer
from microanon.methods.generalize._levels import evaluate_levels
from microanon.methods.generalize._metrics import canonical_metric
from microanon.methods.generalize._search import _Engine, _model_set
from microanon.methods.generalize.full_domain import full_domain, search
from microanon.models import as_models

K2 = {"k_anonymity": {"k": 2}}


# ---------------------------------------------------------------------------- worked example
@pytest.fixture()
def six() -> Table:
    """Six people: sex {M, F} -> *; age a1..a4 -> A = {a1, a2}, B = {a3, a4} -> *."""
    df = pd.DataFrame(
        {
            "sex": ["M", "M", "F", "F", "F", "M"],
            "age": ["a1", "a2", "a1", "a3", "a4", "a3"],
            "disease": ["flu", "cold", "flu", "flu", "cold", "flu"],
        }
    )
    age = Hierarchy.from_nested({"*": {"A": ["a1", "a2"], "B": ["a3", "a4"]}})
    schema = Schema.from_dict(
        {
            "sex": {"role": "quasi", "hierarchy": Hierarchy.from_nested({"*": ["M", "F"]})},
            "age": {"role": "quasi", "hierarchy": age},
            "disease": {"role": "sensitive"},
        }
    )
    return Table.from_frame(df, schema)


def _loss(table: Table, levels: tuple[int, int], metric, suppression: float = 0.5) -> float:
    node = dict(zip(["sex", "age"], levels, strict=True))
    return evaluate_levels(table, K2, node, suppression, metric).metric_value


def test_hand_worked_loss_values(six: Table) -> None:
    # N = 6; sex has d = 2 leaves, age d = 4. Default gsFactor 1/2: g = t = 1, a kept cell costs
    # its share s = leaves / d, a suppressed cell 1; attribute loss (Σ cost - N/d) / (N - N/d).
    #
    # Bottom (0, 0): every share is 1/d, so both losses are 0 (classes of one: k = 1 here).
    assert evaluate_levels(six, {"k_anonymity": {"k": 1}}, {"sex": 0, "age": 0}).metric_value == 0
    # (1, 1): sex "*" (s = 1): (6 - 3) / (6 - 3) = 1; age A/B (s = 1/2): (3 - 1.5) / 4.5 = 1/3.
    # Geometric: sqrt((1 + 1)(1 + 1/3)) - 1 = sqrt(8/3) - 1; arithmetic (1 + 1/3) / 2 = 2/3.
    assert _loss(six, (1, 1), "loss") == pytest.approx(math.sqrt(8 / 3) - 1, rel=1e-12)
    arithmetic = {"name": "loss", "aggregate": "arithmetic"}
    assert _loss(six, (1, 1), arithmetic) == pytest.approx(2 / 3, rel=1e-12)
    # (0, 1): classes (M,A) 2, (F,A) 1, (F,B) 2, (M,B) 1: k = 2 suppresses records 3 and 6.
    # sex: 4 kept at s = 1/2 (2) + 2 suppressed at 1 (2) = 4: (4 - 3) / 3 = 1/3.
    # age: 4 kept at s = 1/2 (2) + 2 suppressed (2) = 4: (4 - 1.5) / 4.5 = 5/9.
    # Geometric sqrt((4/3)(14/9)) - 1 = sqrt(56/27) - 1; arithmetic (1/3 + 5/9) / 2 = 4/9, which
    # is the loss metric: (sex 0·4 + 2; age 4·(2-1)/3 + 2) / 12 cells = 4/9.
    assert _loss(six, (0, 1), "loss") == pytest.approx(math.sqrt(56 / 27) - 1, rel=1e-12)
    assert _loss(six, (0, 1), arithmetic) == pytest.approx(4 / 9, rel=1e-12)
    assert _loss(six, (0, 1), "lm") == pytest.approx(4 / 9, rel=1e-12)
    # gsFactor 1/4: t = 1/2, g = 1; a suppressed cell costs s + (1 - s)/2 = 3/4 (s = 1/2 both).
    # sex: 2 + 1.5 = 3.5: 0.5 / 3 = 1/6; age: 2 + 1.5 = 3.5: 2 / 4.5 = 4/9; mean 11/36.
    quarter = {"name": "loss", "aggregate": "arithmetic", "gs_factor": 0.25}
    assert _loss(six, (0, 1), quarter) == pytest.approx(11 / 36, rel=1e-12)
    # gsFactor 3/4: t = 1, g = 1/2: kept cells cost s/2, suppressed 1; the bottom costs g·N/d.
    # sex: 4·1/4 + 2 = 3: (3 - 1.5) / 4.5 = 1/3; age: 1 + 2 = 3: (3 - 0.75) / 5.25 = 3/7.
    three_quarters = {"name": "loss", "aggregate": "arithmetic", "gs_factor": 0.75}
    assert _loss(six, (0, 1), three_quarters) == pytest.approx(8 / 21, rel=1e-12)
    # Top (1, 2): every cell "*": both losses 1, whatever the aggregate.
    assert _loss(six, (1, 2), "loss") == pytest.approx(1.0, rel=1e-12)


def test_search_on_the_hand_worked_table(six: Table) -> None:
    # Without suppression k = 2 needs (1, 1) (loss sqrt(8/3) - 1 = 0.633) or (0, 2): sex kept
    # (0), age "*" (6 - 1.5) / 4.5 = 1: geometric sqrt(2) - 1 = 0.414, the optimum.
    result = search(six, K2, 0.0, "loss")
    assert result.levels == {"sex": 0, "age": 2}
    assert result.metric_value == pytest.approx(math.sqrt(2) - 1, rel=1e-12)
    # Arithmetic: (0, 2) costs 1/2 and (1, 1) 2/3; (0, 1) with 2 suppressed costs 4/9.
    result = search(six, K2, 1 / 3, {"name": "loss", "aggregate": "arithmetic"})
    assert result.levels == {"sex": 0, "age": 1}
    assert result.suppressed == 2
    assert result.metric == "loss(aggregate=arithmetic, gs_factor=0.5)"


# ---------------------------------------------------------------------------- names, options
@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("loss", "loss"),
        ({"name": "loss"}, "loss"),
        ({"name": "loss", "aggregate": "geometric", "gs_factor": 0.5}, "loss"),
        ({"name": "loss", "gs_factor": 1}, "loss(aggregate=geometric, gs_factor=1.0)"),
        ("loss(aggregate=arithmetic, gs_factor=0.3)", "loss(aggregate=arithmetic, gs_factor=0.3)"),
        ("loss(gs_factor=0.5)", "loss"),
        ("lm", "lm"),
        ({"name": "entropy"}, "entropy"),
    ],
)
def test_canonical_names(spec, name: str) -> None:
    assert canonical_metric(spec) == name
    assert canonical_metric(name) == name


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("arx", "metric must be one of"),
        ({"name": "lm", "aggregate": "geometric"}, "takes no options"),
        ({"aggregate": "geometric"}, "must be 'loss'"),
        ({"name": "loss", "weights": 1}, "unknown option"),
        ({"name": "loss", "aggregate": "max"}, "aggregate must be one of"),
        ({"name": "loss", "gs_factor": 1.5}, r"gs_factor must be in \[0, 1\]"),
        ({"name": "loss", "gs_factor": "half"}, "gs_factor must be a number"),
        ("loss(aggregate)", "not key=value"),
    ],
)
def test_bad_metric_specifications(spec, message: str) -> None:
    with pytest.raises(InputError, match=message):
        canonical_metric(spec)


def test_release_records_the_canonical_name_and_the_recoding_reuses_it(tmp_path) -> None:
    df = pd.DataFrame({"q": ["a", "b", "a", "b", "c"], "s": ["x", "y", "x", "y", "x"]})
    schema = {
        "q": {"role": "quasi", "hierarchy": Hierarchy.from_nested({"*": ["a", "b", "c"]})},
        "s": {"role": "sensitive"},
    }
    # The YAML form of the option mapping, as a pipeline's config gives it.
    metric = yaml.safe_load("{name: loss, aggregate: arithmetic, gs_factor: 0.25}")
    release = full_domain(df, schema, models=K2, suppression=0.2, metric=metric)
    name = "loss(aggregate=arithmetic, gs_factor=0.25)"
    assert release.metadata["parameters"]["metric"] == name
    assert release.metadata["metric"]["name"] == name
    fitted = Anonymizer(schema, K2, suppression=0.2, metric=metric).fit(df)
    again = Anonymizer.load(fitted.save(tmp_path / "recoding.json")).transform(df)
    assert again.metadata["metric"] == release.metadata["metric"]
    assert again.tables["data"].equals(release.tables["data"])


# ---------------------------------------------------------------------------- brute force
def _reference_loss(p: dict, node: dict, aggregate: str, gs: float) -> float:
    """Loss from its definition on the generalized DataFrame (``node["mask"]``: suppressed)."""
    df, hs = p["df"], p["hierarchies"]
    n = len(df)
    t = 2 * gs if gs < 0.5 else 1.0
    g = 1.0 if gs <= 0.5 else 2 - 2 * gs
    mask = node["mask"]
    losses = []
    for q, level in node["levels"].items():
        h = hs[q]
        labels = [str(x) for x in h.generalize(df[q], level)]
        share = h.leaf_count(h.node_of(labels)) / h.n_leaves
        cost = np.where(mask, share + t * (1 - share), g * share).sum()
        low = g * n / h.n_leaves
        losses.append(0.0 if n - low <= 1e-12 * n else max((cost - low) / (n - low), 0.0))
    losses = np.asarray(losses)
    if aggregate == "geometric":
        return float(np.prod(1 + losses) ** (1 / len(losses)) - 1)
    return float(losses.mean())


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    problems(),
    st.sampled_from(["geometric", "arithmetic"]),
    st.sampled_from([0.5, 0.0, 0.2, 0.8, 1.0]),
)
def test_optimum_equals_brute_force(p: dict, aggregate: str, gs: float) -> None:
    nodes = brute_force(p, with_metrics=False)
    table = Table.from_frame(p["df"], p["schema"])
    metric = {"name": "loss", "aggregate": aggregate, "gs_factor": gs}
    if not nodes:
        with pytest.raises(InfeasibleError):
            search(table, p["models"], p["suppression"], metric)
        return
    for node in nodes:
        node["loss"] = _reference_loss(p, node, aggregate, gs)
    want = optimum(nodes, "loss")
    result = search(table, p["models"], p["suppression"], metric)
    assert result.levels == want["levels"]
    assert result.suppressed == want["suppressed"]
    assert result.metric_value == pytest.approx(want["loss"], rel=1e-9, abs=1e-12)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    problems(),
    st.sampled_from(["geometric", "arithmetic"]),
    st.sampled_from([0.5, 0.0, 0.3, 0.9]),
)
def test_bounds_never_exceed_a_feasible_value(p: dict, aggregate: str, gs: float) -> None:
    # Every node evaluated from the top down, so each bound has been raised by the evaluations
    # of the nodes above it (refine) before the node's own value is known.
    table = Table.from_frame(p["df"], p["schema"])
    limit = math.floor(p["suppression"] * table.n_records + 1e-9)
    models = _model_set(table, as_models(p["models"]), "remove")
    metric = canonical_metric({"name": "loss", "aggregate": aggregate, "gs_factor": gs})
    engine = _Engine(table, models, limit, metric, all_minimal=True)
    for node in np.argsort(-engine.lattice.total, kind="stable"):
        bound = float(engine.lb[node])
        res = engine.evaluate(int(node), full=True)
        if res.feasible:
            assert bound <= res.value + 1e-12 * max(1.0, res.value), (node, bound, res.value)


# ---------------------------------------------------------------------------- ARX's Adult
ARX_K_QI = [
    "sex", "age", "race", "marital_status", "education", "native_country", "workclass",
    "occupation",
]  # fmt: skip


@pytest.fixture(scope="module")
def adult_table() -> Table:
    hs = adult_hierarchies()
    hs["salary_class"] = hs["income"]
    spec = {c: {"role": "quasi", "kind": "categorical", "hierarchy": hs[c]} for c in ARX_K_QI}
    spec["salary_class"] = {"role": "sensitive", "kind": "categorical"}
    return Table.from_frame(load_arx_adult(), Schema.from_dict(spec))


@pytest.mark.parametrize("suppression", [0.0, 0.05])
def test_adult_arithmetic_loss_is_the_loss_metric(adult_table: Table, suppression: float) -> None:
    k5 = {"k_anonymity": {"k": 5}}
    lm = search(adult_table, k5, suppression, "lm")
    loss = search(adult_table, k5, suppression, {"name": "loss", "aggregate": "arithmetic"})
    assert loss.levels == lm.levels
    assert loss.metric_value == pytest.approx(lm.metric_value, rel=0, abs=1e-10)


def test_adult_geometric_loss_node(adult_table: Table) -> None:
    # k = 5 without suppression: the geometric mean picks the LM node too (with 5 %
    # suppression it does not: (0, 3, 0, 0, 1, 1, 1, 2) against LM's (0, 3, 0, 1, 2, 1, 1, 1)).
    result = search(adult_table, {"k_anonymity": {"k": 5}}, 0.0, "loss")
    assert tuple(result.levels.values()) == (0, 4, 0, 2, 3, 2, 2, 1)
    assert result.metric_value == pytest.approx(0.5915849773290229, rel=1e-9)
    result = search(adult_table, {"k_anonymity": {"k": 5}}, 0.05, "loss")
    assert tuple(result.levels.values()) == (0, 3, 0, 0, 1, 1, 1, 2)
