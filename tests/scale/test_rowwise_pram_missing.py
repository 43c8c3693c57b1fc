"""PRAM out of core publishes missing answers as they were, as in memory: the same public
domains and matrices (the known values'), the same missing counts, every record written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from real_surveys import survey

from microanon.core.release import Release
from microanon.methods.randomize import pram
from microanon.scale import pram_dask, write_rowwise

SCHEMA = {
    "Marital": "quasi",  # missing: value, the value ?
    "Home": "quasi",
    "Age": {"role": "quasi", "kind": "numeric"},
    "Job": {"role": "sensitive", "missing": "keep"},  # an empty cell
    "Status": "insensitive",
}
KEEP = {"Marital": 0.8, "Home": 0.8, "Job": 0.8}


@pytest.fixture(scope="module")
def credit(tmp_path_factory) -> tuple[pd.DataFrame, Path]:
    """modeldata's credit_data (4,454 applicants; Marital, Home and Job missing for 1, 6 and 2)
    in three Parquet files."""
    data = survey("credit_data")[list(SCHEMA)]
    root = tmp_path_factory.mktemp("credit") / "parts"
    root.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(data)), 3)):
        data.iloc[rows].to_parquet(root / f"part-{i}.parquet", index=False)
    return data, root


@pytest.mark.parametrize("invariant", [False, True])
def test_pram_missing_answers(client, credit, tmp_path, invariant):
    data, root = credit
    rel = pram_dask(
        root, SCHEMA, keep=KEEP, invariant=invariant, rng=4, client=client, progress=False
    )
    memory = pram(data, SCHEMA, keep=KEEP, invariant=invariant, rng=4)
    assert rel.metadata["randomized"] == memory.metadata["randomized"]
    for column in KEEP:
        known = sorted(data[column].dropna().unique())
        assert rel.metadata["randomized"][column]["domain"] == known
    if invariant:
        for column in KEEP:
            np.testing.assert_allclose(
                rel.metadata["applied_matrices"][column],
                memory.metadata["applied_matrices"][column],
                rtol=0,
                atol=1e-12,
            )
    written = write_rowwise(rel, tmp_path / "out", client=client, progress=False)
    assert written.rows_out == len(data) == 4454
    published = pd.read_parquet(written.data)
    assert (published["Marital"] == "?").sum() == 1 and (published["Home"] == "?").sum() == 6
    assert published["Job"].isna().sum() == 2 and not (published["Job"] == "?").any()
    for column in KEEP:
        known = published[column].dropna()
        assert set(known[known != "?"]) <= set(data[column].dropna())


def test_whole_numbers_beside_empty_cells_stay_whole(client, tmp_path):
    """A numeric column of whole numbers whose missing cells are kept empty (the number of
    children, unknown for some): PRAM publishes it as nullable integers out of core as in
    memory (0 .. 3 and empty cells, not 0.0 .. 3.0)."""
    gen = np.random.default_rng(0)
    kids = np.where(gen.random(3000) < 0.05, None, gen.integers(0, 4, 3000))
    data = pd.DataFrame({"q": gen.choice(["a", "b"], 3000), "kids": pd.array(kids, "Int64")})
    data.to_parquet(tmp_path / "kids.parquet", index=False)
    schema = {"q": "quasi", "kids": {"role": "sensitive", "kind": "numeric", "missing": "keep"}}
    memory = pram(data, schema, keep={"kids": 0.8}, rng=0).data["kids"]
    rel = pram_dask(
        tmp_path / "kids.parquet", schema, keep={"kids": 0.8}, rng=0, client=client, progress=False
    )
    written = write_rowwise(rel, tmp_path / "out", client=client, progress=False)
    published = Release.load(written.path / "public").data["kids"]
    assert memory.dtype == published.dtype == "Int64"
    assert memory.isna().sum() == published.isna().sum() == data["kids"].isna().sum()
    assert set(published.dropna()) <= {0, 1, 2, 3}
