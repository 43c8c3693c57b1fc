"""The whole Dask path equals the in-memory ``full_domain`` on random tables.

Read → encode → frequency table → search → apply → write → verify: on small random tables with
random hierarchies written as 2–3 Parquet files, :func:`microanon.scale.full_domain_dask` gives
exactly the levels, the suppressed records and the published multiset of
:func:`microanon.methods.generalize.full_domain`, in both ``suppressed_rows`` modes, and is
infeasible exactly when it is. The hierarchies come
from tests/lattice_strategies.py, shared with the in-memory tests.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lattice_strategies import hierarchies

from microanon.core import InfeasibleError, Release, Schema
from microanon.methods.generalize import full_domain
from microanon.models import KAnonymity, LDiversity, TCloseness
from microanon.scale import full_domain_dask


@st.composite
def problems(draw: st.DrawFn) -> dict:
    names = [f"q{i}" for i in range(draw(st.integers(2, 3)))]
    hs, doms = {}, {}
    for n in names:
        hs[n], doms[n] = draw(hierarchies(n))
    rows = draw(st.integers(3, 60))
    data = {
        n: draw(st.lists(st.sampled_from(doms[n]), min_size=rows, max_size=rows)) for n in names
    }
    sa_values = draw(st.sampled_from([["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d"]]))
    data["s"] = draw(st.lists(st.sampled_from(sa_values), min_size=rows, max_size=rows))
    model_pool = st.one_of(
        st.builds(KAnonymity, st.integers(1, 4)),
        st.builds(LDiversity, st.integers(1, 3), st.just("distinct")),
        st.builds(LDiversity, st.sampled_from([1, 1.5, 2]), st.just("entropy")),
        st.builds(TCloseness, st.sampled_from([0.2, 0.4, 0.7])),
    )
    spec = {n: {"role": "quasi", "kind": "categorical", "hierarchy": hs[n]} for n in names}
    spec["s"] = {"role": "sensitive", "kind": "categorical"}
    files = draw(st.integers(2, 3))
    cuts = sorted(draw(st.sets(st.integers(1, rows - 1), min_size=files - 1, max_size=files - 1)))
    return {
        "df": pd.DataFrame(data),
        "schema": Schema.from_dict(spec),
        "models": draw(st.lists(model_pool, min_size=1, max_size=2)),
        "suppression": draw(st.sampled_from([0.0, 0.1, 0.25, 0.5])),
        "metric": draw(st.sampled_from(["lm", "discernibility", "entropy"])),
        "mode": draw(st.sampled_from(["remove", "star"])),
        "cuts": [0, *cuts, rows],
    }


def _rows(frame: pd.DataFrame) -> list[tuple]:
    return sorted(map(tuple, frame.astype(str).itertuples(index=False)))


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(problems())
def test_dask_path_equals_in_memory_full_domain(client, p):
    args = {
        "models": p["models"],
        "suppression": p["suppression"],
        "metric": p["metric"],
        "suppressed_rows": p["mode"],
    }
    try:
        expected = full_domain(p["df"], p["schema"], **args)
    except InfeasibleError:
        expected = None
    with tempfile.TemporaryDirectory() as tmp:
        parts = Path(tmp) / "parts"
        parts.mkdir()
        cuts = p["cuts"]
        for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
            p["df"].iloc[a:b].to_parquet(parts / f"part-{i}.parquet", index=False)
        out = Path(tmp) / "release"
        if expected is None:
            with pytest.raises(InfeasibleError):
                full_domain_dask(
                    parts, p["schema"], out_dir=out, client=client, progress=False, **args
                )
            assert not out.exists()
            return
        got = full_domain_dask(
            parts, p["schema"], out_dir=out, client=client, progress=False, **args
        )
        meta = expected.metadata
        assert got.levels == meta["levels"]
        assert got.suppressed == meta["suppressed"]
        assert got.metric_value == meta["metric"]["value"]
        assert (got.rows_in, got.rows_out) == (meta["rows_in"], meta["rows_out"])
        assert all(v.holds for v in got.verdicts)
        written = Release.load(out)
        assert list(written.data.columns) == list(expected.data.columns)
        assert _rows(written.data) == _rows(expected.data)
        assert written.public_metadata == expected.public_metadata
