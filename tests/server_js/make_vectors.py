"""Write ``gtr_vectors.json``: GTR test vectors from the Python implementation.

Each vector is a collected set (the bytes of ``CollectedSet.to_bytes``, base64), a respondent's
base tuple, τ and the loss variant, with the answer of :func:`microanon.methods.collect.gtr`
in the vector's ``mode`` (``"exact"``, then a second series in ``"greedy"``): the anonymous tuple
(codes, labels, exact loss) or ``null`` (abstention). ``ties`` is the number of candidates passed
to the exact tie-break (exact mode: the feasible ones sharing the least loss and the largest float
``φ_QI``; greedy mode: the feasible answers of the sensitive values, more than 1 when several
compete); more than 1 means the tie-breaking decided. The surveys are the bundled Adult example
(``examples/collect/survey.yaml``, with occupation weights), the Adult and Nursery surveys of
``microanon reproduce collection`` and random small taxonomies (random weights, numeric labels).
A last greedy series (``"fallback": true``) holds vectors on which the greedy subroutines find
nothing, so that gtr's complete search decides: its answers and its abstentions.

Run from the repository root (deterministic)::

    python tests/server_js/make_vectors.py
"""

from __future__ import annotations

import base64
import importlib
import json
import os
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import microanon
from microanon.apps.server.config import load_service_config
from microanon.core.hierarchy import Hierarchy
from microanon.datasets.hierarchies import adult_hierarchies
from microanon.methods.collect import CollectedSet, Survey, gtr
from microanon.reproductions.collection.setup import NURSERY_TREES, _tree

HERE = Path(__file__).resolve().parent
EXAMPLES = Path(microanon.__file__).resolve().parent / "examples"
OUT = HERE / "gtr_vectors.json"
#: The module (the package re-exports the function under the same name).
gtr_module = importlib.import_module("microanon.methods.collect.gtr")


def _plain(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x


def adult_example() -> Survey:
    """The survey of the package's ``examples/collect/survey.yaml`` (4 QIs, weighted SA)."""
    os.environ.setdefault("MICROANON_EXPORT_TOKEN", "vectors-only-0123456789")
    return load_service_config(EXAMPLES / "collect" / "survey.yaml").survey


def adult_reproduce() -> Survey:
    """The Adult survey of the collection reproduction (7 quasi-identifiers, ARX taxonomies)."""
    hs = adult_hierarchies()
    quasi = ["age", "workclass", "education", "marital_status", "race", "sex", "native_country"]
    return Survey({a: hs[a] for a in [*quasi, "occupation"]}, quasi, "occupation")


def nursery() -> Survey:
    """The Nursery survey of the collection reproduction."""
    hs = {a: _tree(t, a) for a, t in NURSERY_TREES.items()}
    return Survey(hs, list(NURSERY_TREES)[:-1], "health")


def random_tree(rng: random.Random, name: str, numeric: bool) -> Hierarchy:
    """A random taxonomy: 2–7 leaves, depth 1–3, random positive weights."""
    counter = iter(range(10**6))

    def label() -> Any:
        i = next(counter)
        return 10 + i if numeric else f"{name}{i}"

    def grow(depth: int) -> Any:
        if depth == 0 or rng.random() < 0.3:
            return [label() for _ in range(rng.randint(1, 3))]
        return {f"{name}-g{next(counter)}": grow(depth - 1) for _ in range(rng.randint(1, 3))}

    tree = {"*": grow(rng.randint(1, 3))}
    h = Hierarchy.from_nested(tree)
    if h.n_leaves < 2:
        return random_tree(rng, name, numeric)
    choice = rng.random()
    if choice < 0.4:
        return h
    if choice < 0.7:
        w = [rng.randint(1, 9) for _ in range(h.n_leaves)]
    else:
        w = [rng.choice([0.1, 0.25, 0.3, 1.5, 2.0, 1 / 3, 7.0]) for _ in range(h.n_leaves)]
    return h.with_weights(w)


def random_survey(rng: random.Random, i: int) -> Survey:
    m = rng.randint(1, 3)
    names = [f"q{k}" for k in range(m)]
    hs = {n: random_tree(rng, n, numeric=rng.random() < 0.3) for n in names}
    hs["s"] = random_tree(rng, "s", numeric=False)
    return Survey(hs, names, "s")


def random_leaf_tuple(rng: random.Random, survey: Survey) -> list[Any]:
    return [_plain(tx.label(int(rng.choice(tx.leaf_node)))) for tx in survey.taxonomies]


def grow_collected(
    rng: random.Random, survey: Survey, tau: str, n: int, noise: int
) -> CollectedSet:
    """A collected set as the service would hold it: GTR answers of random respondents, plus
    ``noise`` random generalized tuples (so groups vary)."""
    g = CollectedSet(survey)
    for _ in range(n):
        t = gtr(random_leaf_tuple(rng, survey), g, survey, Fraction(tau))
        if t is not None:
            g.add_codes(t.codes)
    for _ in range(noise):
        codes = []
        for tx in survey.taxonomies:
            chain = tx.chain(int(rng.choice(tx.leaf_node)))
            codes.append(int(chain[rng.randrange(len(chain))]))
        g.add_codes(codes, count=rng.randint(1, 3))
    return g


class _TieCounter:
    """Counts the candidates passed to the exact tie-break of gtr (1 when it is not called)."""

    def __init__(self) -> None:
        self.last = 1
        self._orig = gtr_module._Problem.best

    def __enter__(self) -> _TieCounter:
        counter = self

        def best(p: Any, cands: list) -> Any:
            counter.last = len(cands)
            return counter._orig(p, cands)

        gtr_module._Problem.best = best  # type: ignore[method-assign]
        return self

    def __exit__(self, *_: Any) -> None:
        gtr_module._Problem.best = self._orig  # type: ignore[method-assign]


TAUS = ["1/10", "3/10", "1/2", "7/10", "9/10", "1"]


def _series(
    vectors: list[dict[str, Any]],
    ties: _TieCounter,
    rng: random.Random,
    name: str,
    survey: Survey,
    mode: str,
    sets: int,
    per: int,
    subs: int,
    noise: int,
) -> None:
    """Append ``sets × per`` vectors of one survey in one mode."""
    for k in range(sets):
        tau = rng.choice(TAUS)
        loss = rng.choice(["paper", "paper", "normalized"])
        g = grow_collected(rng, survey, tau, subs, noise)
        encoding = "bits" if k % 2 == 0 else "index"
        blob = base64.b64encode(g.to_bytes(encoding)).decode("ascii")
        for _ in range(per):
            o = random_leaf_tuple(rng, survey)
            v_tau = rng.choice([tau, *TAUS])
            ties.last = 1
            t = gtr(o, g, survey, Fraction(v_tau), mode=mode, loss=loss)
            vectors.append(_vector(name, blob, encoding, o, v_tau, loss, mode, t, ties))


def _vector(
    name: str,
    blob: str,
    encoding: str,
    o: list[Any],
    tau: str,
    loss: str,
    mode: str,
    t: Any,
    ties: _TieCounter,
) -> dict[str, Any]:
    """One vector: the inputs and gtr's answer ``t`` (None: abstention)."""
    expected = None
    if t is not None:
        expected = {
            "codes": list(t.codes),
            "labels": [_plain(x) for x in t.labels],
            "loss": str(t.loss),
        }
    return {
        "survey": name,
        "collected": blob,
        "encoding": encoding,
        "o": o,
        "tau": tau,
        "loss": loss,
        "mode": mode,
        "expected": expected,
        "ties": ties.last if t is not None else 0,
    }


class _SearchCounter:
    """Records whether gtr's complete search ran (the greedy subroutines found nothing) and
    whether it found an answer."""

    def __init__(self) -> None:
        self.ran = self.found = False
        self._orig = gtr_module._search

    def __enter__(self) -> _SearchCounter:
        counter = self

        def search(p: Any) -> Any:
            out = counter._orig(p)
            counter.ran, counter.found = True, out is not None
            return out

        gtr_module._search = search
        return self

    def __exit__(self, *_: Any) -> None:
        gtr_module._search = self._orig


#: Vectors of the fallback series: answers found by the complete search, and abstentions.
FALLBACK_FOUND, FALLBACK_NONE = 24, 8


def _fallback_series(vectors: list[dict[str, Any]], ties: _TieCounter) -> None:
    """Greedy vectors on which the greedy subroutines find nothing: fresh random surveys and
    sets (one in a few hundred respondents), kept until the complete search has given
    ``FALLBACK_FOUND`` answers and ``FALLBACK_NONE`` abstentions."""
    rng = random.Random(2020)
    taus = [*TAUS, "1/4", "1/3", "2/5", "3/5"]
    found = none = 0
    with _SearchCounter() as search:
        for i in range(2_000):
            if found >= FALLBACK_FOUND and none >= FALLBACK_NONE:
                return
            name = f"fallback-{i}"
            survey = random_survey(rng, i)
            tau = rng.choice(taus)
            loss = rng.choice(["paper", "normalized"])
            g = grow_collected(rng, survey, tau, rng.randint(0, 12), rng.randint(0, 6))
            blob = base64.b64encode(g.to_bytes("bits")).decode("ascii")
            kept = False
            for _ in range(30):
                o = random_leaf_tuple(rng, survey)
                v_tau = rng.choice([tau, *taus])
                search.ran = False
                ties.last = 1
                t = gtr(o, g, survey, Fraction(v_tau), mode="greedy", loss=loss)
                if not search.ran or (t is None and none >= FALLBACK_NONE):
                    continue
                if t is not None and found >= FALLBACK_FOUND:
                    continue
                found, none = found + (t is not None), none + (t is None)
                kept = True
                vectors.append(_vector(name, blob, "bits", o, v_tau, loss, "greedy", t, ties))
                vectors[-1]["fallback"] = True
            if kept:
                _FALLBACK_SURVEYS[name] = survey
    raise RuntimeError("the fallback series found too few vectors")


_FALLBACK_SURVEYS: dict[str, Survey] = {}


def main() -> None:
    rng = random.Random(18)
    surveys: dict[str, Survey] = {
        "adult-example": adult_example(),
        "adult": adult_reproduce(),
        "nursery": nursery(),
    }
    for i in range(12):
        surveys[f"random-{i}"] = random_survey(rng, i)
    plan = {  # survey -> (collected sets, respondents per set, submissions, noise)
        "adult-example": (4, 20, 60, 10),
        "adult": (3, 15, 40, 10),
        "nursery": (4, 20, 60, 10),
    }
    vectors: list[dict[str, Any]] = []
    with _TieCounter() as ties:
        for name, survey in surveys.items():
            sets, per, subs, noise = plan.get(name, (3, 8, rng.randint(0, 12), rng.randint(0, 4)))
            _series(vectors, ties, rng, name, survey, "exact", sets, per, subs, noise)
        # Greedy mode: its own generator, so the exact series above stays as it was.
        grng = random.Random(1808)
        gplan = {
            "adult-example": (3, 15, 60, 10),
            "adult": (3, 12, 40, 10),
            "nursery": (3, 15, 60, 10),
        }
        for name, survey in surveys.items():
            sets, per, subs, noise = gplan.get(
                name, (3, 6, grng.randint(0, 12), grng.randint(0, 4))
            )
            _series(vectors, ties, grng, name, survey, "greedy", sets, per, subs, noise)
        _fallback_series(vectors, ties)
    surveys.update(_FALLBACK_SURVEYS)
    doc = {
        "about": "GTR test vectors written by tests/server_js/make_vectors.py from the Python gtr",
        "surveys": {n: s.to_dict() for n, s in surveys.items()},
        "vectors": vectors,
    }
    OUT.write_text(json.dumps(doc, default=_plain, separators=(",", ":")) + "\n", encoding="utf-8")
    for mode in ("exact", "greedy"):
        vs = [v for v in vectors if v["mode"] == mode]
        abst = sum(v["expected"] is None for v in vs)
        tie = sum(v["ties"] > 1 for v in vs)
        print(f"{OUT}: {mode}: {len(vs)} vectors, {abst} abstentions, {tie} decided by ties")
    fb = [v for v in vectors if v.get("fallback")]
    found = sum(v["expected"] is not None for v in fb)
    print(f"{OUT}: greedy, complete search: {len(fb)} vectors, {found} answers")


if __name__ == "__main__":
    main()
