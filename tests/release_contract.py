"""The public-part contract over every method a pipeline configuration accepts: the checks.

Used by ``test_release_contract.py`` (random tables) and ``test_release_contract_typical.py``.

For each registered method (:func:`microanon.methods.registry.methods`), on random tables
(hypothesis), the configuration is run as ``microanon anonymize`` runs it (lint, method,
``publish``): either it is refused with a one-line error and nothing is written, or every byte
of ``public/`` (the data files, ``release.json`` and the public report) is scanned for

- a value of an original column that the published tables do not hold (a suppressed person's
  value, a dropped column's, a randomized-away domain value), unless the schema declares it;
- the random generator's seed or state, whatever it is stored under;
- anything computed on columns the release does not publish: changing the identifier column
  (values and their number) changes nothing public.

Values are distinctive tokens (``q1_3fa9c``) and 6-digit numbers, so that a scan by substring
finds them wherever they are written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from microanon.apps.anonymize import run_anonymize
from microanon.core.errors import MicroanonError
from microanon.core.lint import ACCEPTABLE_KINDS
from microanon.core.release import PUBLIC_DIR, Release
from microanon.methods import registry
from microanon.methods.steps import STEPS_METHOD

#: Hierarchies the generalization methods need (built from the data).
HIERARCHIES = {
    "q1": {"hierarchy": {"builder": "balanced", "fanout": 2}},
    "q2": {"hierarchy": {"builder": "balanced", "fanout": 2}},
    "age": {"hierarchy": {"builder": "quantiles", "bins": [4, 2]}},
}
BASE = {
    "pid": {"role": "identifier"},
    "q1": {"role": "quasi"},
    "q2": {"role": "quasi"},
    "age": {"role": "quasi", "kind": "numeric"},
    "s": {"role": "sensitive"},
    "s2": {"role": "identifier"},
    "x": {"role": "insensitive", "kind": "numeric"},
}
K2 = [{"k_anonymity": {"k": 2}}]

#: Method -> (schema changes, params, models): one configuration the method accepts (and
#: ``steps``, several methods in one release).
CASES: dict[str, tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]] = {
    "full_domain": (HIERARCHIES, {"suppression": 0.5}, K2),
    "mondrian": (HIERARCHIES, {}, K2),
    "local_recoding": (HIERARCHIES, {"k": 2}, []),
    "anatomy": ({}, {"l": 2}, []),
    "safepub": (
        {**HIERARCHIES, "s": {"role": "identifier"}, "x": {"role": "identifier"}},
        {"epsilon": 2.0, "delta": 0.01, "steps": 5},
        [],
    ),
    "randomized_response": (
        {"age": {"role": "identifier"}, "q2": {"role": "identifier"}},
        {"scenario": "Both", "l": 2},
        [],
    ),
    "pram": ({}, {"keep": {"s": 0.8, "q2": 0.7}, "invariant": True}, []),
    "distribution": (
        {"x": {"role": "sensitive", "kind": "numeric"}, "s": {"role": "identifier"}},
        {"target": "empirical", "groups": "q1", "partition": "sa_only", "scale": 100},
        [],
    ),
    "mixed_model": ({"s2": {"role": "sensitive"}}, {"l": 2, "min_confidence": 0.6}, []),
    "rating": ({"s2": {"role": "sensitive"}}, {"l": 2}, []),
    "sample": ({}, {"fraction": 0.5}, []),
    "global_recode": (HIERARCHIES, {"levels": {"age": 1, "q1": 1}}, []),
    "top_bottom_code": ({}, {"column": "x", "top": 0.8, "quantiles": True}, []),
    "local_suppression": ({}, {"k": 2}, []),
    "add_noise": ({}, {"method": "additive", "noise": 0.1}, []),
    "rank_swap": ({}, {"p": 5}, []),
    "data_swap": ({}, {"rate": 0.3}, []),
    "microaggregation": ({}, {"k": 3, "method": "mdav"}, []),
    # several methods in one release (microanon.methods.steps): the params are the steps
    "steps": (
        HIERARCHIES,
        {
            "steps": [
                {"method": "global_recode", "params": {"levels": {"age": 1, "q1": 1}}},
                {"method": "local_suppression", "params": {"k": 2}},
                {"method": "pram", "params": {"keep": {"s": 0.8}}},
                {"method": "microaggregation", "params": {"k": 3, "columns": ["x"]}},
            ]
        },
        [],
    ),
}


def _tokens(rng: np.random.Generator, column: str, count: int) -> list[str]:
    # hex tokens with the column's name and an underscore: no base64 run or number holds one
    return [f"{column}_{i}{rng.integers(16**6):06x}" for i in range(count)]


def _table(seed: int, n: int, cards: tuple[int, ...]) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    c1, c2, cs, cs2 = cards
    cols: dict[str, Any] = {"pid": _tokens(rng, "pid", n)}
    for name, card in (("q1", c1), ("q2", c2), ("s", cs), ("s2", cs2)):
        values = _tokens(rng, name, card)
        cols[name] = [values[i] for i in rng.integers(card, size=n)]
    ages = rng.choice(np.arange(100_000, 999_999), size=max(2, n // 3), replace=False)
    cols["age"] = rng.choice(ages, size=n)
    cols["x"] = rng.choice(np.arange(100_000, 999_999), size=n, replace=False)
    return pd.DataFrame(cols)


def _config(tmp: Path, method: str, data: Path, fmt: str) -> Path:
    changes, params, models = CASES[method]
    schema = {c: {**d, **changes.get(c, {})} for c, d in BASE.items()}
    published = [c for c, d in schema.items() if d["role"] != "identifier"]
    run = {"steps": params["steps"]} if method == STEPS_METHOD else {}
    doc = {
        "data": str(data),
        "schema": schema,
        **(run or {"method": method, "params": params, "models": models}),
        "lint": {"accept": {c: list(ACCEPTABLE_KINDS) for c in published}},
        "output": {"format": fmt},
    }
    path = tmp / f"{method}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def _generator(seed: int) -> tuple[np.random.Generator, list[str]]:
    """A generator from a distinctive seed, and the decimal and hex forms of its seed and state."""
    big = 2**100 + seed
    gen = np.random.Generator(np.random.PCG64(big))
    state = gen.bit_generator.state["state"]
    numbers = [big, state["state"], state["inc"]]
    return gen, [str(v) for v in numbers] + [f"{v:x}" for v in numbers]


def _run(tmp: Path, name: str, method: str, table: pd.DataFrame, seed: int, fmt: str):
    """Run the configuration; the published directory, or None when refused cleanly."""
    data = tmp / f"{name}.csv"
    table.to_csv(data, index=False)
    out = tmp / name
    gen, _ = _generator(seed)
    try:
        run_anonymize(_config(tmp, method, data, fmt), out, rng=gen)
    except MicroanonError as exc:
        assert "\n" not in str(exc).strip(), f"{method}: a refusal in more than one line"
        assert not out.exists(), f"{method}: a refused run left {out}"
        return None
    return out / PUBLIC_DIR


def _published_text(public: Path) -> str:
    """Every cell and column name of the published tables, as text, one per line.

    A value written inside a published label (a range ``[291615, 522520]``) is published too.
    """
    release = Release.load(public)
    out: set[str] = set()
    for df in release.tables.values():
        out |= set(map(str, df.columns))
        for c in df.columns:
            for v in pd.unique(df[c]):
                if isinstance(v, (float, np.floating)) and float(v).is_integer():
                    v = int(v)
                out.add(str(v))
    return "\n".join(sorted(out))


def _found(needle: str, text: str) -> bool:
    """Whether ``needle`` occurs in ``text`` (a number only as a whole number)."""
    if needle.isdigit():
        return re.search(rf"(?<![\d.]){needle}(?:\.0+)?(?![\d.])", text) is not None
    return needle in text


def _scan_bytes(public: Path, needles: set[str]) -> list[str]:
    """``needles`` found in any file of ``public``, Parquet's and the report's bytes included."""
    found = []
    for path in sorted(p for p in public.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", errors="replace")
        found += [f"{path.relative_to(public)}: {n}" for n in sorted(needles) if _found(n, text)]
    return found


def check(
    tmp: Path,
    method: str,
    seed: int,
    n: int,
    cards: tuple[int, ...],
    fmt: str = "csv",
    rerun: bool = False,
) -> bool:
    """Run ``method`` on a random table and check its public part; False when it refused.

    ``fmt``: the tables' format (csv or parquet). With ``rerun``, run it again with another
    identifier column and compare the public files byte for byte.
    """
    table = _table(seed, n, cards)
    public = _run(tmp, "a", method, table, seed, fmt)
    if public is None:
        return False
    published = _published_text(public)
    original = {str(v) for c in table.columns for v in pd.unique(table[c])}
    leaks = _scan_bytes(public, {v for v in original if not _found(v, published)})
    assert not leaks, f"{method}: original values absent from the published data: {leaks[:5]}"
    _, state = _generator(seed)
    secrets = _scan_bytes(public, set(state))
    assert not secrets, f"{method}: the random state is public: {secrets}"
    if not rerun:
        return True
    # The same run with another identifier column (other values, another number of them).
    other = table.assign(pid=[f"pid_other{i % 5}" for i in range(n)])
    again = _run(tmp, "b", method, other, seed, fmt)
    assert again is not None, f"{method}: refused once the unpublished identifier changed"
    for name in ("release.json", *(p.name for p in public.iterdir() if p.name.startswith("data"))):
        a, b = public / name, again / name
        if a.is_file():
            assert a.read_bytes() == b.read_bytes(), f"{method}: {name} depends on the identifier"
    kind = "masked" if method == STEPS_METHOD else registry.get(method).kind
    assert json.loads((public / "release.json").read_text())["kind"] == kind
    _round_trip(tmp, public, method)
    return True


def _round_trip(tmp: Path, public: Path, method: str) -> None:
    """The public part read back, saved again and read again is the same release."""
    loaded = Release.load(public)
    loaded.save(tmp / "saved", format="csv")
    again = Release.load(tmp / "saved" / PUBLIC_DIR)
    assert again.equals(loaded), f"{method}: the public part changed in a save/load round trip"
