"""``microanon init`` warns of a survey's code for a block of questions not asked: the largest
value of at least three columns of few whole numbers, on the very same rows (causaldata's
``nhefs_complete``: 2 beside the 0 and 1 of five health items, on 769 of 1,566 rows), and
gives the markers of single columns that read it as a missing value there alone. Checked
against a plain definition on random tables, and on the real file: with the markers, the five
items are proposed sensitive by their names, as the lint had made them quasi-identifiers of
one another through the code."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import yaml
from cli_results import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import rdataset

from microanon.apps.init.blocks import (
    BLOCK_COLUMNS,
    BLOCK_ROWS,
    BLOCK_VALUES,
    block_code_warnings,
    block_codes,
)

NHEFS_BLOCK = ["hbp", "diabetes", "pica", "hbpmed", "boweltrouble"]


def _plain(frame: pd.DataFrame) -> set[tuple[float, int, tuple[str, ...]]]:
    """The blocks by their definition, column pair by column pair."""
    tops = {}
    for name in frame.columns:
        known = frame[name].dropna()
        if len(known) and (known == known.round()).all():
            if BLOCK_VALUES[0] <= known.nunique() <= BLOCK_VALUES[1]:
                rows = frozenset(np.flatnonzero((frame[name] == known.max()).to_numpy()))
                if len(rows) >= BLOCK_ROWS:
                    tops[name] = (float(known.max()), rows)
    blocks = set()
    for name, top in tops.items():
        same = tuple(c for c in frame.columns if c in tops and tops[c] == top)
        if len(same) >= BLOCK_COLUMNS and same[0] == name:
            blocks.add((top[0], len(top[1]), same))
    return blocks


@settings(max_examples=120, deadline=None)
@given(
    st.integers(40, 200),
    st.integers(0, 6),
    st.integers(1, 4),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_the_blocks_are_those_of_the_definition(rows, planted, answers, seed, gaps):
    """Random items of ``answers + 1`` values; ``planted`` of them hold the code ``answers +
    1`` on one set of rows (a block when three or more), some cells missing."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {f"q{i}": rng.integers(0, answers + 1, rows).astype(float) for i in range(6)}
    )
    skipped = rng.random(rows) < 0.3
    for i in range(planted):
        frame.loc[skipped, f"q{i}"] = answers + 1
    if gaps:
        frame = frame.mask(rng.random(frame.shape) < 0.05)
    found = {(b.value, b.rows, b.columns) for b in block_codes(frame)}
    assert found == _plain(frame)
    if planted >= BLOCK_COLUMNS and not gaps and answers + 2 >= BLOCK_VALUES[0]:
        if skipped.sum() >= BLOCK_ROWS:
            block = tuple(f"q{i}" for i in range(planted))
            assert (answers + 1.0, int(skipped.sum()), block) in found


def test_items_that_only_share_answers_are_no_block():
    """Three yes/no items whose largest answer falls on different rows, a text column and a
    column of decimals: nothing."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            **{f"item{i}": rng.integers(0, 3, 300) for i in range(3)},
            "place": rng.choice(["a", "b", "c"], 300),
            "score": rng.normal(size=300),
        }
    )
    assert block_codes(frame) == [] and block_code_warnings(frame) == []


def test_nhefs_block_is_named_and_its_markers_read_it_as_missing(tmp_path):
    frame = rdataset("causaldata", "nhefs_complete")
    skipped = frame["hbp"] == 2
    assert int(skipped.sum()) == 769
    assert all(((frame[c] == 2) == skipped).all() for c in NHEFS_BLOCK)
    (block,) = block_codes(frame)
    assert (block.text, block.rows, list(block.columns)) == ("2", 769, NHEFS_BLOCK)
    data = tmp_path / "nhefs.csv"
    frame.to_csv(data, index=False)
    run = run_cli("init", data, "--out", tmp_path / "c.yaml", "--yes")
    assert run.exit_code == 0, run.output
    (said,) = [w for w in run.stderr.splitlines() if "block of questions" in w]
    options = " ".join(f"--column-na-values {c}=2" for c in NHEFS_BLOCK)
    assert "on the same 769 rows" in said and options in said
    again = ["init", data, "--out", tmp_path / "c2.yaml", "--yes"]
    again += list(
        itertools.chain.from_iterable(("--column-na-values", f"{c}=2") for c in NHEFS_BLOCK)
    )
    run = run_cli(*again)
    assert run.exit_code == 0, run.output
    assert "block of questions" not in run.stderr
    doc = yaml.safe_load((tmp_path / "c2.yaml").read_text("utf-8"))
    assert doc["column_na_values"] == {c: ["2"] for c in NHEFS_BLOCK}
    assert all(doc["schema"][c]["role"] == "sensitive" for c in NHEFS_BLOCK)
    before = yaml.safe_load((tmp_path / "c.yaml").read_text("utf-8"))["schema"]
    assert all(before[c]["role"] == "quasi" for c in NHEFS_BLOCK)
