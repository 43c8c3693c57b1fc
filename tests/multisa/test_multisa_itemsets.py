"""Strong rules with several values on a side (mlxtend) against brute-force enumeration, and the
mixed model that protects them."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import require_module

from microanon.core.errors import InputError
from microanon.measures.multisa import disclosure_probabilities
from microanon.methods.multisa import (
    itemset_rules,
    mixed_model,
    strong_rules,
)

require_module("mlxtend", "itemset_rules mines multi-item rules with mlxtend (microanon[rules])")


def _table(rng: np.random.Generator, n: int, d: int, k: int) -> pd.DataFrame:
    """A record id and ``d`` sensitive columns over ``k`` values, skewed so rules appear."""
    base = rng.integers(0, k, size=n)
    data: dict[str, object] = {"rid": np.arange(n)}
    for j in range(d):
        noise = rng.random(n) < 0.35
        col = np.where(noise, rng.integers(0, k, size=n), (base + j) % k)
        data[f"s{j}"] = [f"v{x}" for x in col]
    return pd.DataFrame(data)


def _brute(
    df: pd.DataFrame, sensitive: list[str], conf: float, min_support: int, max_items: int | None
) -> set[tuple]:
    """Every rule X → Y by enumerating attribute subsets, their value combinations and splits."""
    rows = df[sensitive].values.tolist()
    d = len(sensitive)
    top = d if max_items is None else min(d, max_items)
    out = set()
    for size in range(2, top + 1):
        for attrs in itertools.combinations(range(d), size):
            for values in {tuple(r[a] for a in attrs) for r in rows}:
                items = tuple(zip((sensitive[a] for a in attrs), values, strict=True))
                sxy = sum(all(r[a] == v for a, v in zip(attrs, values, strict=True)) for r in rows)
                if sxy < min_support:
                    continue
                for m in range(1, size):
                    for xs in itertools.combinations(range(size), m):
                        x = tuple(items[i] for i in xs)
                        y = tuple(items[i] for i in range(size) if i not in xs)
                        sx = sum(all(r[sensitive.index(a)] == v for a, v in x) for r in rows)
                        if sxy / sx >= conf - 1e-12:
                            out.add((x, y, sx, sxy))
    return out


def _mined(rules: pd.DataFrame) -> set[tuple]:
    return {
        (r.antecedent, r.consequent, int(r.support_x), int(r.support_xy))
        for r in rules.itertuples()
    }


@pytest.mark.parametrize("seed", range(12))
def test_itemset_rules_equal_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 5))
    df = _table(rng, int(rng.integers(5, 40)), d, int(rng.integers(2, 5)))
    sensitive = [f"s{j}" for j in range(d)]
    conf = float(rng.choice([0.5, 0.6, 0.75, 0.8, 1.0]))
    support = int(rng.integers(1, 4))
    limit = [None, 2, 3][seed % 3]
    got = itemset_rules(df, sensitive, conf, min_support=support, max_items=limit)
    assert _mined(got) == _brute(df, sensitive, conf, support, limit)
    assert (got["items"] == got["antecedent"].map(len) + got["consequent"].map(len)).all()


def test_two_items_equal_strong_rules() -> None:
    df = _table(np.random.default_rng(5), 60, 3, 4)
    sensitive = ["s0", "s1", "s2"]
    pairs = strong_rules(df, sensitive, 0.6)
    mined = itemset_rules(df, sensitive, 0.6, max_items=2)
    assert {
        (((r.antecedent_attribute, r.antecedent),), ((r.consequent_attribute, r.consequent),))
        for r in pairs.itertuples()
    } == {(r.antecedent, r.consequent) for r in mined.itertuples()}


def test_bad_parameters_name_themselves() -> None:
    df = _table(np.random.default_rng(0), 10, 2, 2)
    with pytest.raises(InputError, match="min_support"):
        itemset_rules(df, ["s0", "s1"], min_support=0)
    with pytest.raises(InputError, match="max_items"):
        itemset_rules(df, ["s0", "s1"], max_items=1)
    with pytest.raises(InputError, match="max_items"):
        mixed_model(df, {"rid": "quasi", "s0": "sensitive", "s1": "sensitive"}, l=2, max_items=1)


def _holds(frame: pd.DataFrame, items: tuple) -> np.ndarray:
    mask = np.ones(len(frame), dtype=bool)
    for a, v in items:
        mask &= frame[a].astype(str).to_numpy() == str(v)
    return mask


@pytest.mark.parametrize("seed", range(6))
def test_mixed_model_protects_multi_item_rules(seed: int) -> None:
    """Every record with a whole rule is in SAC~ (or deleted), each rule lies in one cluster,
    its confidence is recovered exactly when nothing is deleted (Lemma 22 extended), and the
    disclosure probability of its holders is at most 1/l (Lemma 12)."""
    rng = np.random.default_rng(100 + seed)
    df = _table(rng, 80, 4, 5)
    sensitive = ["s0", "s1", "s2", "s3"]
    schema = {"rid": "quasi", **dict.fromkeys(sensitive, "sensitive")}
    ell = 2
    rules = itemset_rules(df, sensitive, 0.7, min_support=3, max_items=None)
    assert (rules["items"] > 2).any()
    rel = mixed_model(df, schema, l=ell, min_confidence=0.7, min_support=3, max_items=None, rng=1)
    meta = rel.metadata["multisa"]
    assert meta["strong_rules"] == len(rules) and meta["max_items"] is None
    sac, at, idt = rel.tables["sac"], rel.tables["at"], rel.tables["idt"]
    cluster_of = {a: k for k, c in enumerate(meta["clusters"]) for a in c}
    for r in rules.itertuples():
        whole = r.antecedent + r.consequent
        assert len({cluster_of[a] for a, _ in whole}) == 1
        assert not _holds(df[df["rid"].isin(at["rid"])], whole).any()
        if meta["deleted"] == 0:
            sxy = int(_holds(sac, whole).sum())
            sx = int(_holds(sac, r.antecedent).sum())
            if len(r.antecedent) == 1:
                ((a, v),) = r.antecedent
                sx += int(((idt["attribute"] == a) & (idt["value"] == str(v))).sum())
            assert (sx, sxy) == (r.support_x, r.support_xy)
    # Lemma 12 over the pair rules the measure knows (the single-value rules among them).
    pairs = strong_rules(df, sensitive, 0.7)
    pairs = pairs[pairs["support_xy"] >= 3]
    probs = disclosure_probabilities(rel, df, pairs)
    assert (probs["probability"] <= 1 / ell + 1e-12).all()
