"""A hierarchy file's leaves are published in the data's text (``core/number_text.py``).

A hierarchy file (ARX's CSV, ``value;level 1;...;*``) holds its leaves as text, matched to the
data by value. A method publishes a leaf at level 0, so the leaf is held in the type the data
column was read in: the file's leaf ``20`` of a column written ``20.0`` is published ``20.0``,
its leaf ``20.0`` of a column written ``20`` is published ``20``; the labels above the leaves
(``20-39``, ``*``) are the file's own text. Before, full-domain generalization, Mondrian, local
recoding, SafePub, anatomy, PRAM, randomized response, the distribution method, the mixed model,
Rating and global recoding published the file's ``20`` for the data's ``20.0``, and every method
refused the data's ``20`` for the file's leaf ``20.0`` ("3 value(s) not in its hierarchy").
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.anonymize import run_anonymize
from microanon.apps.cli import main
from microanon.methods.registry import methods

#: The file's labels above the leaves: published as the file writes them.
BANDS = {20: "20-39", 30: "20-39", 40: "40-59"}
AGES = tuple(BANDS)
SENSITIVE = {"dis": {"role": "sensitive"}, "dis2": {"role": "insensitive"}}
TWO_SENSITIVE = {"dis": {"role": "sensitive"}, "dis2": {"role": "sensitive"}}
OTHERS_LEFT_OUT = {c: {"role": "identifier"} for c in ("dis", "dis2", "inc")}
INCOME = {"inc": {"role": "insensitive", "kind": "numeric"}}
K2 = [{"k_anonymity": {"k": 2}}]

#: Method -> (schema changes, params, models): one configuration each method accepts, ``age``
#: a numeric quasi-identifier with the hierarchy file (data swapping swaps categories: there
#: ``age`` is one without a kind, its numbers read as numbers all the same).
CASES: dict[str, tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]] = {
    "full_domain": ({}, {"suppression": 0}, K2),
    "mondrian": ({}, {}, K2),
    "local_recoding": ({}, {"k": 2}, []),
    "safepub": (OTHERS_LEFT_OUT, {"epsilon": 1, "delta": 1e-4, "levels": {"age": 0, "sex": 0}}, []),
    "anatomy": ({}, {"l": 2}, []),
    "pram": ({}, {"keep": {"age": 0.8}}, []),
    "randomized_response": ({}, {"scenario": "QI", "l": 2}, []),
    "distribution": ({"dis": {"role": "insensitive"}, "inc": {"role": "sensitive"}}, {}, []),
    "mixed_model": (TWO_SENSITIVE, {"l": 2}, []),
    "rating": (TWO_SENSITIVE, {"l": 2}, []),
    "data_swap": ({"age": {"role": "quasi"}}, {"rate": 0.2, "columns": ["age"]}, []),
    "global_recode": ({}, {"levels": {"age": 0, "sex": 1}}, []),
    "sample": ({}, {"fraction": 0.5}, []),
    "local_suppression": ({}, {"k": 2, "columns": ["age", "sex"]}, []),
    "microaggregation": (INCOME, {"k": 3, "columns": ["inc"]}, []),
    "add_noise": (INCOME, {"noise": 0.1, "columns": ["inc"]}, []),
    "rank_swap": (INCOME, {"p": 5, "columns": ["inc"]}, []),
    "top_bottom_code": (INCOME, {"column": "inc", "top": 90000}, []),
}

#: (data written, file's leaves written): each way round.
DIRECTIONS = {"data 20.0, file 20": ("{}.0", "{}"), "data 20, file 20.0": ("{}", "{}.0")}


def test_every_method_has_a_case():
    assert set(CASES) == set(methods())


def _write_case(tmp: Path, method: str, direction: str) -> tuple[Path, set[str]]:
    """The reproduction's files (3,000 records: SafePub's classes need many) and the config
    of ``method``; the data's texts of ``age``."""
    data_text, leaf_text = DIRECTIONS[direction]
    rng = np.random.default_rng(11)
    n = 3000
    frame = pd.DataFrame(
        {
            "age": [data_text.format(a) for a in rng.choice(AGES, n)],
            "sex": rng.choice(["M", "F"], n),
            "dis": rng.choice(["a", "b", "c"], n),
            "dis2": rng.choice(["x", "y", "z"], n),
            "inc": rng.integers(10, 100, n) * 1000,
        }
    )
    frame.to_csv(tmp / "d.csv", index=False)
    rows = [f"{leaf_text.format(a)};{band};*" for a, band in BANDS.items()]
    (tmp / "h_age.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    changes, params, models = CASES[method]
    schema: dict[str, dict[str, Any]] = {
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": "h_age.csv"},
        "sex": {"role": "quasi", "hierarchy": {"builder": "groups", "groups": {"MF": ["M", "F"]}}},
        **SENSITIVE,
        "inc": {"role": "insensitive"},
    }
    for column, entry in changes.items():
        schema[column] = {**entry, "hierarchy": "h_age.csv"} if column == "age" else entry
    doc: dict[str, Any] = {"data": "d.csv", "schema": schema, "method": method, "params": params}
    if models:
        doc["models"] = models
    config = tmp / "config.yaml"
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return config, set(frame["age"])


def _published(public: Path, column: str, labels: set[str]) -> dict[str, int]:
    """The texts of ``column`` in the release's CSV tables but the generalized labels
    (``labels``, ``*``, ranges) and the missing value's (``?``, an empty field), counted."""
    found: dict[str, int] = {}
    for path in sorted(public.glob("*.csv")):
        with path.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        if column not in rows[0]:
            continue
        at = rows[0].index(column)
        for r in rows[1:]:
            text = r[at]
            if text in labels | {"", "?", "*"} or text.startswith("["):
                continue
            found[text] = found.get(text, 0) + 1
    return found


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
@pytest.mark.parametrize("method", sorted(CASES))
def test_a_leaf_of_the_file_is_published_in_the_datas_text(tmp_path, method, direction):
    """The reproduction, every method, each way round: each value of ``age`` a method
    publishes ungeneralized is in the data's text (``20.0`` from data written ``20.0``
    whatever the file's leaf, ``20`` from data written ``20``), and the claimed models
    hold on the files as written."""
    config, data_texts = _write_case(tmp_path, method, direction)
    out = tmp_path / "out"
    _, _, numbers = run_anonymize(config, out, rng=np.random.default_rng(5))
    published = _published(out / "public", "age", set(BANDS.values()))
    assert published, f"{method}: no value of age published ungeneralized"
    assert set(published) <= data_texts, (method, direction, sorted(published))
    assert numbers["verified"] is not False


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_release_and_report_name_the_datas_text(tmp_path, direction):
    """Full-domain generalization at level 0: the public report names the values in the data's
    text, and release.json's metadata says level 0; PRAM's release.json gives the domain it
    randomized in the data's type (numbers 20.0 beside a decimal column, 20 beside a whole
    one), as of a hierarchy built from the data."""
    config, data_texts = _write_case(tmp_path, "full_domain", direction)
    out = tmp_path / "full"
    run_anonymize(config, out)
    release = json.loads((out / "public" / "release.json").read_text("utf-8"))
    assert release["metadata"]["levels"]["age"] == 0
    report = (out / "public" / "report.html").read_text("utf-8")
    shown = ", ".join(sorted(data_texts, key=float))
    assert f"level 0 (e.g. {shown})" in report
    config, _ = _write_case(tmp_path, "pram", direction)
    out = tmp_path / "pram"
    run_anonymize(config, out, rng=np.random.default_rng(5))
    release = json.loads((out / "public" / "release.json").read_text("utf-8"))
    domain = release["metadata"]["randomized"]["age"]["domain"]
    whole = direction.startswith("data 20,")
    assert domain == ([20, 30, 40] if whole else [20.0, 30.0, 40.0])
    assert all(type(v) is (int if whole else float) for v in domain)


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
@pytest.mark.parametrize("method", ["full_domain", "pram"])
def test_dask_publishes_the_datas_text_as_memory_does(tmp_path, scheduler, method, direction):
    """With ``--engine dask``, the same texts as in memory: the Dask encoding took the given
    hierarchy's leaves as they were (full-domain published the file's ``20`` for ``20.0``, PRAM
    too), and refused the data's ``20`` for the file's ``20.0``."""
    import pyarrow.parquet as pq

    config, data_texts = _write_case(tmp_path, method, direction)
    out = tmp_path / "dask"
    args = ["anonymize", "--config", str(config), "--out", str(out), "--engine", "dask"]
    run = CliRunner().invoke(main, [*args, "--seed", "3", "--scheduler", scheduler])
    assert run.exit_code == 0, run.output
    table = pq.read_table(out / "public" / "data.parquet")
    texts = {str(v) for v in table.column("age").to_pylist()}
    assert texts == data_texts, (method, direction, sorted(texts))


# --------------------------------------------------------------------------- GSSvocab

GENDERS = ["female", "male"]


def _gss_hierarchy(path: Path, ages: list[int]) -> None:
    """A hierarchy file over GSSvocab's ages with whole-number leaves (``52;50-59;*``)."""
    rows = [f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*" for a in ages]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def gss_vocab() -> pd.DataFrame:
    frame = survey("gss_vocab")[["year", "gender", "age", "vocab"]]
    assert frame["age"].dtype == np.float64 and frame["age"].isna().sum() == 94
    return frame


@pytest.mark.parametrize("method", ["full_domain", "pram", "anatomy", "randomized_response"])
def test_gss_vocab_ages_are_published_as_r_writes_them(gss_vocab, tmp_path, method):
    """GSSvocab (28,867 respondents) as R writes it (``52.0``, ``NA``), ``age`` a key with a
    hierarchy file whose leaves are whole numbers (``52``) and ``?`` for its 94 missing ages:
    every age published ungeneralized is R's text (``52.0``), as it had been ``52`` for these
    methods."""
    data = tmp_path / "gss.csv"
    gss_vocab.to_csv(data, index=False, na_rep="NA")
    text = pd.read_csv(data, dtype=str, keep_default_na=False)
    r_texts = set(text["age"]) - {"NA"}
    assert "52.0" in r_texts and "52" not in r_texts
    ages = sorted(int(a) for a in gss_vocab["age"].dropna().unique())
    _gss_hierarchy(tmp_path / "h_age.csv", ages)
    schema = {
        "year": {"role": "insensitive"},
        "gender": {"role": "quasi", "hierarchy": {"builder": "groups", "groups": {"any": GENDERS}}},
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": "h_age.csv", "missing": "value"},
        "vocab": {"role": "sensitive", "missing": "drop"},
    }
    params: dict[str, Any] = {
        "full_domain": {"suppression": 0.02},
        "pram": {"keep": {"age": 0.9}},
        "anatomy": {"l": 2},
        "randomized_response": {"scenario": "QI", "l": 2},
    }[method]
    doc: dict[str, Any] = {
        "data": str(data),
        "na_values": ["NA"],
        "schema": schema,
        "method": method,
        "params": params,
    }
    if method == "full_domain":
        doc["models"] = K2
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "out"
    _, _, numbers = run_anonymize(config, out, rng=np.random.default_rng(3))
    bands = {f"{d}-{d + 9}" for d in range(10, 100, 10)}
    published = _published(out / "public", "age", bands)
    assert len(published) > 50, sorted(published)[:5]  # (most of the 72 ages, ungeneralized)
    assert set(published) <= r_texts, sorted(set(published) - r_texts)[:5]
    assert numbers["verified"] is not False
