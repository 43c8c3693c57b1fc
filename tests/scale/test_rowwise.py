"""Row-wise methods partition by partition (scale.rowwise) and MDAV within blocks (scale.blocks)."""

from __future__ import annotations

import json
from pathlib import Path

import dask
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from microanon.core import InfeasibleError, InputError
from microanon.core.output import MARKER
from microanon.core.release import Release
from microanon.methods.randomize import (
    mrr,
    optimal_parameters,
    pram,
    randomize,
    randomized_response,
    reconstruct,
    uniform_retention,
)
from microanon.methods.sdc import microaggregation
from microanon.scale import (
    WHOLE_TABLE_METHODS,
    add_noise_dask,
    column_moments,
    microaggregate_blocks,
    mrr_dask,
    partition_streams,
    pram_dask,
    randomize_dask,
    randomized_response_dask,
    read_dataset,
    require_in_memory,
    write_rowwise,
)

N = 200_000
PI = [0.4, 0.3, 0.15, 0.1, 0.05]
SCHEMA = {
    "id": "identifier",
    "sex": "quasi",
    "region": "quasi",
    "disease": "sensitive",
    "income": {"role": "insensitive", "kind": "numeric"},
    "age": {"role": "quasi", "kind": "numeric"},
}
CUTS = [0, 30_000, 110_000, 111_000, N]  # four partitions of unequal sizes
SMALL = [0, 6_000, 22_000, 22_200, 40_000]


@pytest.fixture(scope="module")
def original() -> pd.DataFrame:
    rng = np.random.default_rng(2024)
    return pd.DataFrame(
        {
            "id": np.arange(N),
            "sex": rng.choice(["F", "M"], N, p=[0.55, 0.45]),
            "region": rng.choice(["c", "e", "n", "s"], N),
            "disease": rng.choice(list("abcde"), N, p=PI),
            "income": rng.gamma(4.0, 10.0, N).round(2),
            "age": rng.integers(18, 90, N),
        }
    )


def _write(frame: pd.DataFrame, cuts: list[int], root: Path) -> Path:
    root.mkdir()
    for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
        frame.iloc[a:b].to_parquet(root / f"part-{i}.parquet", index=False)
    return root


@pytest.fixture(scope="module")
def parquet(original, tmp_path_factory) -> Path:
    """The 200,000 records in four files of unequal sizes."""
    return _write(original, CUTS, tmp_path_factory.mktemp("rowwise") / "parts")


@pytest.fixture(scope="module")
def small(original, tmp_path_factory) -> Path:
    """The first 40,000 records in four files of unequal sizes."""
    return _write(original.iloc[: SMALL[-1]], SMALL, tmp_path_factory.mktemp("small") / "parts")


def _parts(original: pd.DataFrame) -> list[pd.DataFrame]:
    cuts = zip(SMALL[:-1], SMALL[1:], strict=True)
    return [original.iloc[a:b].reset_index(drop=True) for a, b in cuts]


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """Values as Python objects, for comparisons across dtypes (strings, numbers)."""
    return frame.reset_index(drop=True).astype(object)


# ---------------------------------------------------------------------- random streams
def test_same_generator_same_output_whatever_the_scheduler(client, small):
    rel = randomize_dask(
        small,
        SCHEMA,
        keep={"disease": 0.7, "sex": 0.8},
        rng=np.random.default_rng(7),
        client=client,
        progress=False,
    )
    on_cluster = client.compute(rel.data).result()
    synchronous = dask.compute(rel.data, scheduler="sync")[0]
    backwards = [
        client.compute(rel.data.partitions[i]).result() for i in reversed(range(len(SMALL) - 1))
    ]
    pd.testing.assert_frame_equal(on_cluster, synchronous)
    pd.testing.assert_frame_equal(
        _plain(on_cluster), _plain(pd.concat(backwards[::-1], ignore_index=True))
    )
    again = randomize_dask(
        small,
        SCHEMA,
        keep={"disease": 0.7, "sex": 0.8},
        rng=np.random.default_rng(7),
        client=client,
        progress=False,
    )
    pd.testing.assert_frame_equal(_plain(client.compute(again.data).result()), _plain(on_cluster))
    other = randomize_dask(
        small,
        SCHEMA,
        keep={"disease": 0.7, "sex": 0.8},
        rng=np.random.default_rng(8),
        client=client,
        progress=False,
    )
    assert not client.compute(other.data).result()["disease"].equals(on_cluster["disease"])


def test_every_partition_has_its_own_stream(client):
    seeds = partition_streams(np.random.default_rng(1), 3)
    draws = [np.random.default_rng(s).random(5) for s in seeds]
    assert not np.allclose(draws[0], draws[1]) and not np.allclose(draws[1], draws[2])
    import dask.dataframe as dd

    same = pd.DataFrame({"x": list("abcd") * 250})
    frame = dd.from_pandas(pd.concat([same, same], ignore_index=True), npartitions=2)
    rel = randomize_dask(
        frame, {"x": "sensitive"}, keep={"x": 0.5}, rng=3, client=client, progress=False
    )
    first, second = (client.compute(rel.data.partitions[i]).result() for i in range(2))
    assert not first["x"].equals(second["x"])


def test_partitions_are_the_in_memory_method_with_their_stream(client, small, original):
    """Partition i is exactly the in-memory method on partition i with generator i."""
    keep = {"disease": 0.7, "sex": 0.8}
    rel = randomize_dask(
        small, SCHEMA, keep=keep, rng=np.random.default_rng(11), client=client, progress=False
    )
    seeds = partition_streams(np.random.default_rng(11), len(SMALL) - 1)
    out = client.compute(rel.data).result()
    lo = 0
    for part, seed in zip(_parts(original), seeds, strict=True):
        memory = randomize(part, SCHEMA, keep=keep, rng=np.random.default_rng(seed)).data
        got = out.iloc[lo : lo + len(part)]
        pd.testing.assert_frame_equal(_plain(got[memory.columns]), _plain(memory))
        lo += len(part)
    assert list(out.columns) == ["sex", "region", "disease", "income", "age"]  # no identifier

    cols = ["sex", "disease"]
    rel = mrr_dask(
        small,
        cols,
        0.8,
        clear=["age"],
        rng=np.random.default_rng(12),
        client=client,
        progress=False,
    )
    seeds = partition_streams(np.random.default_rng(12), len(SMALL) - 1)
    out = client.compute(rel.data).result()
    lo = 0
    for part, seed in zip(_parts(original), seeds, strict=True):
        memory = mrr(part, cols, 0.8, clear=["age"], rng=np.random.default_rng(seed))
        got = out.iloc[lo : lo + len(part)]
        pd.testing.assert_frame_equal(_plain(got), _plain(memory.data))
        lo += len(part)
    assert rel.metadata["mrr"] == memory.metadata["mrr"]


# ---------------------------------------------------------------------- randomized response
def test_published_distribution_is_the_distortion_of_the_original(client, parquet, original):
    p = 0.6
    rel = randomize_dask(parquet, SCHEMA, keep={"disease": p}, rng=5, client=client, progress=False)
    published = client.compute(rel.data["disease"]).result()
    domain = list("abcde")
    counts = original["disease"].value_counts().reindex(domain).to_numpy(dtype=float)
    expected = uniform_retention(5, p) @ counts
    observed = published.value_counts().reindex(domain).to_numpy(dtype=float)
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert chi2 < stats.chi2.ppf(0.999, df=4)
    assert rel.metadata["randomized"]["disease"]["domain"] == domain


def test_optimal_rr_reconstructs_the_original_from_the_written_files(
    client, parquet, original, tmp_path
):
    schema = {"sex": "quasi", "region": "quasi", "disease": "sensitive"}
    rel = randomized_response_dask(
        parquet,
        schema,
        scenario="Both",
        l=3,
        rng=np.random.default_rng(21),
        client=client,
        progress=False,
    )
    memory = optimal_parameters(original, schema, "Both", l=3)
    assert rel.metadata["optimal"]["keep"] == pytest.approx(memory.keep, abs=1e-9)
    assert rel.metadata["risk_bound"] == pytest.approx(1 / 3)
    # the parameters recorded as memory records them (tau_column and constraint had been left
    # out of the public release.json)
    in_memory = randomized_response(original, schema, scenario="Both", l=3, rng=0)
    assert rel.metadata["parameters"] == in_memory.metadata["parameters"]

    written = write_rowwise(rel, tmp_path / "out", client=client, progress=False)
    assert written.rows_out == N
    manifest = json.loads((written.path / "public" / "release.json").read_text("utf-8"))
    public = manifest["metadata"]
    assert "optimal" not in public and set(public) >= {"randomized", "tau", "rows_out"}
    assert public == written.metadata and manifest["kind"] == "randomized"
    assert (written.path / MARKER).is_file()
    loaded = Release.load(written.path)
    assert loaded.metadata["optimal"]["keep"] == pytest.approx(memory.keep, abs=1e-9)
    assert len(loaded.data) == N and loaded.public_metadata == public
    entropy = np.random.default_rng(21).integers(0, 2**64, size=4, dtype=np.uint64)
    for f in written.path.rglob("*"):
        if f.is_file():
            content = f.read_bytes()
            for word in entropy:
                assert str(int(word)).encode() not in content
                assert int(word).to_bytes(8, "little") not in content

    frame = pd.read_parquet(written.data)
    rec = reconstruct(frame, ["sex", "region", "disease"], matrices=public["randomized"])
    truth = original.groupby(["sex", "region", "disease"]).size().to_numpy().reshape(rec.shape) / N
    assert np.abs(rec.estimate - truth).max() < 5 * rec.standard_errors().max()
    assert np.abs(rec.estimate - truth).max() < 0.01


def test_invariant_pram_matrix_is_the_in_memory_one(client, small, original):
    rel = pram_dask(
        small,
        SCHEMA,
        keep={"disease": 0.7, "region": 0.8},
        invariant=True,
        rng=1,
        client=client,
        progress=False,
    )
    memory = pram(
        original.iloc[: SMALL[-1]],
        SCHEMA,
        keep={"disease": 0.7, "region": 0.8},
        invariant=True,
        rng=1,
    )
    for c in ("disease", "region"):
        assert rel.metadata["randomized"][c]["matrix"] is None  # built from counts: internal
        assert "applied_matrices" not in rel.public_metadata
        np.testing.assert_allclose(
            rel.metadata["applied_matrices"][c],
            memory.metadata["applied_matrices"][c],
            rtol=0,
            atol=1e-12,
        )
    assert rel.metadata["parameters"] == memory.metadata["parameters"]
    published = client.compute(rel.data["disease"]).result()
    share = published.value_counts(normalize=True).reindex(list("abcde")).to_numpy()
    np.testing.assert_allclose(share, PI, atol=0.01)  # invariant: frequencies kept


def test_randomize_validates_as_in_memory(client, small):
    with pytest.raises(InputError, match="not published columns"):
        randomize_dask(small, SCHEMA, keep={"id": 0.8}, client=client, progress=False)
    with pytest.raises(InputError, match="outside"):
        randomize_dask(small, SCHEMA, keep={"sex": 0.2}, client=client, progress=False)
    with pytest.raises(InputError, match="shape"):
        randomize_dask(small, SCHEMA, matrices={"sex": np.eye(3)}, client=client, progress=False)


# ---------------------------------------------------------------------- noise
def test_noise_moments(client, parquet, original):
    x = original[["income", "age"]].to_numpy(dtype=float)
    n, mean, cov = column_moments(read_dataset(parquet), ["income", "age"], client, False)
    assert n == N
    np.testing.assert_allclose(mean, x.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(cov, np.cov(x.T), rtol=1e-10)

    rel = add_noise_dask(
        parquet,
        SCHEMA,
        method="additive",
        noise=0.5,
        columns=["income", "age"],
        rng=2,
        client=client,
        progress=False,
    )
    sigma = 0.5 * x.std(axis=0, ddof=1)
    assert list(rel.metadata["noise_scale"].values()) == pytest.approx(sigma, rel=1e-10)
    out = client.compute(rel.data).result()
    e = out[["income", "age"]].to_numpy() - x  # same rows in the same order
    assert np.all(np.abs(e.mean(axis=0)) < 4 * sigma / np.sqrt(N))
    np.testing.assert_allclose(e.std(axis=0), sigma, rtol=0.01)
    assert abs(np.corrcoef(e.T)[0, 1]) < 0.01

    rel = add_noise_dask(
        parquet,
        SCHEMA,
        method="correlated",
        noise=0.5,
        columns=["income", "age"],
        rng=3,
        client=client,
        progress=False,
    )
    out = client.compute(rel.data).result()
    e = out[["income", "age"]].to_numpy() - x
    np.testing.assert_allclose(np.cov(e.T), 0.5 * np.cov(x.T), rtol=0.02, atol=0.02 * sigma[0])
    assert "noise_scale" not in rel.metadata and rel.public_metadata["masked_numeric"]

    rel = add_noise_dask(
        parquet,
        SCHEMA,
        method="geometric",
        epsilon=1.0,
        sensitivity=2.0,
        columns=["age"],
        rng=4,
        client=client,
        progress=False,
    )
    out = client.compute(rel.data).result()
    assert out["age"].dtype == np.int64
    q = np.exp(-0.5)
    assert (out["age"].to_numpy() - original["age"].to_numpy()).var() == pytest.approx(
        2 * q / (1 - q) ** 2, rel=0.02
    )


# ---------------------------------------------------------------------- whole-table methods
@pytest.mark.parametrize("method", sorted(WHOLE_TABLE_METHODS))
def test_whole_table_methods_are_refused_clearly(method):
    with pytest.raises(InputError, match=method) as info:
        require_in_memory(method)
    assert "whole table in memory" in str(info.value) and "memory of one process" in str(info.value)
    if method == "microaggregation":
        assert "microaggregate_blocks" in str(info.value)


def test_refusals_of_kim_row_wise_and_unknown_methods(client, small):
    with pytest.raises(InputError, match="kim"):
        add_noise_dask(small, SCHEMA, method="kim", noise=0.5, client=client, progress=False)
    with pytest.raises(InputError, match="pram_dask"):
        require_in_memory("pram")
    with pytest.raises(InputError, match="unknown method"):
        require_in_memory("shuffle_everything")


@pytest.mark.parametrize("method", ["randomize", "randomized_response"])
def test_unknown_values_refused_as_in_memory(client, original, tmp_path, method):
    """A column randomized over its whole domain (or randomized response's sensitive column)
    with missing cells kept empty is refused out of core with the in-memory error, counted
    after the other columns' missing: drop. (PRAM publishes them as they are:
    ``test_pram_missing_answers``.)"""
    data = original.iloc[:3000].copy()
    data["disease"] = data["disease"].where(np.arange(len(data)) % 100 != 7)  # 30 missing
    data["income"] = data["income"].where(np.arange(len(data)) % 300 != 7)  # 10 of them dropped
    schema = {**SCHEMA, "income": {"role": "insensitive", "kind": "numeric", "missing": "drop"}}
    parts = _write(data, [0, 1000, 2000, 3000], tmp_path / "parts")
    args = {"randomize": {"keep": {"disease": 0.7}}, "pram": {"keep": {"disease": 0.7}}}
    args["randomized_response"] = {"l": 2.0}
    in_memory = {"randomize": randomize, "pram": pram, "randomized_response": randomized_response}
    scaled = {
        "randomize": randomize_dask,
        "pram": pram_dask,
        "randomized_response": randomized_response_dask,
    }
    with pytest.raises(InputError) as expected:
        in_memory[method](data, schema, **args[method])
    assert "'disease' has 20 missing value(s) (missing: keep)" in str(expected.value)
    with pytest.raises(InputError) as got:
        scaled[method](parts, schema, **args[method], client=client, progress=False)
    assert str(got.value) == str(expected.value)


# ---------------------------------------------------------------------- microaggregation in blocks
@pytest.fixture(scope="module")
def blocked(original) -> pd.DataFrame:
    small = original.iloc[:12_000].reset_index(drop=True).copy()
    small["block"] = np.where(small["region"] == "c", "c", small["sex"] + small["region"])
    return small


def test_microaggregation_within_blocks_is_mdav_on_each_block(client, blocked):
    import dask.dataframe as dd

    frame = dd.from_pandas(blocked, npartitions=5)
    schema = {
        "id": "identifier",
        "block": "quasi",
        "income": {"role": "quasi", "kind": "numeric"},
        "age": {"role": "quasi", "kind": "numeric"},
        "sex": "insensitive",
        "region": "insensitive",
        "disease": "sensitive",
    }
    rel = microaggregate_blocks(
        frame,
        ["income", "age"],
        4,
        by="block",
        schema=schema,
        categorical=["sex"],
        client=client,
        progress=False,
    )
    out = client.compute(rel.data).result().sort_index()
    assert list(out.index) == list(range(len(blocked)))
    assert rel.metadata["blocks"] == blocked["block"].nunique() == 7
    for _, block in blocked.groupby("block"):
        memory = microaggregation(
            block.reset_index(drop=True),
            schema,
            k=4,
            columns=["income", "age"],
            categorical=["sex"],
        ).data
        pd.testing.assert_frame_equal(_plain(out.loc[block.index, memory.columns]), _plain(memory))


def test_blocks_are_gathered_by_tasks_not_through_a_local_folder(client, blocked):
    # The run's client is not Dask's default client, and without one Dask shuffles through the
    # files of a local temporary folder, which the workers of a cluster on several machines do
    # not share (and which a run stopped midway leaves behind): the blocks go by tasks.
    import dask.dataframe as dd
    from dask.dataframe.dask_expr._shuffle import DiskShuffle, TaskShuffle

    rel = microaggregate_blocks(
        dd.from_pandas(blocked, npartitions=5),
        ["income"],
        4,
        by="block",
        schema={"block": "quasi", "income": {"role": "quasi", "kind": "numeric"}},
        client=client,
        progress=False,
    )
    steps = list(rel.data.optimize().expr.walk())
    assert any(isinstance(e, TaskShuffle) for e in steps)
    assert not any(isinstance(e, DiskShuffle) for e in steps)


def test_blocks_too_large_or_too_small_are_named(client, blocked):
    import dask.dataframe as dd

    frame = dd.from_pandas(blocked[["block", "income", "age"]], npartitions=3)
    with pytest.raises(InputError, match=r"'c' \(\d[\d,]* records\).*max_rows = 2,000"):
        microaggregate_blocks(
            frame, ["income", "age"], 3, by="block", max_rows=2000, client=client, progress=False
        )
    tiny = blocked.iloc[:200][["block", "income", "age"]].copy()
    tiny.loc[tiny.index[:2], "block"] = "rare"
    with pytest.raises(InfeasibleError, match=r"'rare' \(2 records\).*k = 3"):
        microaggregate_blocks(
            dd.from_pandas(tiny, npartitions=2),
            ["income", "age"],
            3,
            by="block",
            client=client,
            progress=False,
        )
    tiny.loc[tiny.index[:2], "block"] = None  # missing: value, the default: a block of its own
    with pytest.raises(InfeasibleError, match=r"'\?' \(2 records\).*k = 3"):
        microaggregate_blocks(
            dd.from_pandas(tiny, npartitions=2),
            ["income", "age"],
            3,
            by="block",
            client=client,
            progress=False,
        )


# ---------------------------------------------------------------------- writing
def test_write_never_replaces_what_we_did_not_write(client, small, tmp_path):
    target = tmp_path / "taken"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    rel = randomize_dask(small, SCHEMA, keep={"sex": 0.8}, rng=1, client=client, progress=False)
    with pytest.raises(InputError, match="already exists"):
        write_rowwise(rel, target, client=client, progress=False)
    assert (target / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_a_domain_value_randomized_away_is_refused_out_of_core(client, tmp_path):
    """As in memory: a domain that would name a value no written row holds in half the draws
    is refused before the draw, whatever the seed; declared, it is public and drawn."""
    frame = pd.DataFrame({"zip": ["A"] * 19 + ["Z1"], "disease": ["flu", "cold"] * 10})
    frame.to_parquet(tmp_path / "in.parquet")
    schema = {"zip": {"role": "quasi"}, "disease": {"role": "sensitive"}}
    matrix = [[1.0, 0.5], [0.0, 0.5]]  # Z1 (one person's) is published as A half the time
    refusals = set()
    for seed in range(4):
        with pytest.raises(InputError) as refused:
            randomize_dask(
                tmp_path / "in.parquet", schema, matrices={"zip": matrix}, rng=seed,
                client=client, progress=False,
            )  # fmt: skip
        refusals.add(str(refused.value))
    assert len(refusals) == 1 and "column 'zip'" in refusals.pop()
    declared = {**schema, "zip": {"role": "quasi", "categories": ["A", "Z1"]}}
    rel = randomize_dask(
        tmp_path / "in.parquet", declared, matrices={"zip": matrix}, rng=0,
        client=client, progress=False,
    )  # fmt: skip
    written = write_rowwise(rel, tmp_path / "out", client=client, progress=False)
    assert written.metadata["randomized"]["zip"]["domain"] == ["A", "Z1"]


def test_written_files_draw_on_the_whole_input_sorted_by_value(client, original, tmp_path):
    """Noise on records sorted by income, in four files of unequal sizes: each written file
    holds records of every file of the input (a file drawn at random for each row; in the
    input's order each would hold one range of incomes), sorted by their values; the files hold
    the release's rows."""
    import pyarrow.parquet as pq

    from microanon.scale.record_order import sorted_by_values

    ordered = original.iloc[: SMALL[-1]].sort_values("income", kind="stable")
    source = _write(ordered.reset_index(drop=True), SMALL, tmp_path / "parts")
    rel = add_noise_dask(
        source, SCHEMA, method="additive", noise=0.1, columns=["income"], rng=5,
        client=client, progress=False,
    )  # fmt: skip
    computed = client.compute(rel.data).result()
    written = write_rowwise(rel, tmp_path / "out", client=client, progress=False)
    files = sorted(written.data.glob("*.parquet"))
    assert len(files) == len(SMALL) - 1
    low, high = np.quantile(computed["income"], [0.1, 0.9])
    for path in files:
        table = pq.read_table(path)
        assert table.equals(sorted_by_values(table)), path.name
        incomes = table.column("income").to_numpy()
        assert incomes.min() < low and incomes.max() > high, path.name
    back = pd.concat([pd.read_parquet(p) for p in files], ignore_index=True)
    key = list(back.columns)
    pd.testing.assert_frame_equal(
        back.sort_values(key, ignore_index=True),
        _plain(computed)[key].sort_values(key, ignore_index=True),
        check_dtype=False,
    )


@pytest.mark.parametrize(
    ("given", "lacking"), [("epsilon", "sensitivity"), ("sensitivity", "epsilon")]
)
def test_noise_parameters_lacking_are_named_out_of_core(tmp_path, given, lacking):
    """As in memory: the one parameter laplace lacks is named, not both."""
    with pytest.raises(InputError, match=f"^{lacking}: .* and {lacking} is not given$"):
        add_noise_dask(tmp_path / "none.parquet", SCHEMA, method="laplace", **{given: 1.0})


# ---------------------------------------------------------------------- pairs for the reports
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    rows=st.integers(8, 120),
    files=st.integers(1, 4),
    blocks=st.booleans(),
)
def test_the_pairs_gathered_for_the_reports_are_each_record_s_own(
    client, tmp_path_factory, data, rows, files, blocks
):
    """Noise, or MDAV within the blocks of ``g`` (its partitions shuffled by block), with
    ``reports=True`` on random tables in random files: the pairs written with the release are,
    record by record in the input's order, the original values of the masked columns (some
    records left out for a missing value) beside the values published for that record (found
    by ``row``, published unchanged)."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    frame = pd.DataFrame(
        {
            "row": np.arange(rows),
            "g": np.where(np.arange(rows) % 2 == 0, "a", "b"),
            "x": rng.integers(-50, 50, rows),
            "y": rng.normal(10, 3, rows).round(3),
            "s": rng.choice(["p", "q"], rows),
        }
    )
    frame.loc[frame["row"] % 6 == 5, "s"] = None  # (each block keeps two records or more)
    cuts = sorted({0, rows, *data.draw(st.lists(st.integers(1, rows - 1), max_size=files - 1))})
    root = _write(frame, cuts, tmp_path_factory.mktemp("pairs") / "parts")
    schema = {
        "row": {"role": "insensitive", "kind": "numeric"},
        "g": "quasi",
        "x": {"role": "quasi", "kind": "numeric"},
        "y": {"role": "insensitive", "kind": "numeric"},
        "s": {"role": "sensitive", "missing": "drop"},
    }
    run = {"client": client, "progress": False, "reports": True}
    if blocks:
        release = microaggregate_blocks(root, ["x", "y"], 2, by="g", schema=schema, **run)
    else:
        release = add_noise_dask(root, schema, noise=0.5, columns=["x", "y"], rng=1, **run)
    out = tmp_path_factory.mktemp("pairs-out") / "release"
    written = write_rowwise(release, out, client=client, progress=False)
    entering = frame[frame["s"].notna()].reset_index(drop=True)
    published = pd.read_parquet(out / "public" / "data.parquet").sort_values("row")
    pairs = written.masked
    assert pairs.unknown == 0 and list(pairs.original.columns) == ["x", "y"]
    expected = entering[["x", "y"]].astype(float)
    pd.testing.assert_frame_equal(pairs.original, expected, check_dtype=False)
    masked = published[["x", "y"]].reset_index(drop=True).astype(float)
    pd.testing.assert_frame_equal(pairs.masked, masked, check_dtype=False)
    assert list(published.columns) == ["row", "g", "x", "y", "s"]  # the originals not written


def test_the_originals_kept_for_the_reports_are_never_published(client, small, tmp_path):
    """Noise with ``reports=True`` on a schema whose columns the reports count none of (no
    quasi-identifier, no sensitive column): nothing is paired for the reports, and the
    perturbed column's original values, which the partitions' tasks carried, are in no
    written file."""
    schema = {"income": {"role": "insensitive", "kind": "numeric"}, "sex": "insensitive"}
    release = add_noise_dask(
        small, schema, noise=0.5, columns=["income"], rng=3, client=client, progress=False,
        reports=True,
    )  # fmt: skip
    assert release.paired is None and list(release.data.columns) == ["income", "sex"]
    written = write_rowwise(release, tmp_path / "out", client=client, progress=False)
    published = pd.read_parquet(tmp_path / "out" / "public" / "data.parquet")
    assert list(published.columns) == ["income", "sex"] and written.masked is None
    # and a release whose table held them anyway is refused by the writer, nothing written
    import dataclasses

    import dask.dataframe as dd

    from microanon.core.errors import VerificationError

    carried = dd.from_pandas(
        pd.DataFrame({"income": [1.5, 2.5], "sex": ["F", "M"], "income (original)": [1.0, 2.0]}),
        npartitions=1,
    )
    leaking = dataclasses.replace(release, data=carried)
    with pytest.raises(VerificationError, match=r"'income \(original\)', which the release"):
        write_rowwise(leaking, tmp_path / "leak", client=client, progress=False)
    assert not (tmp_path / "leak").exists()
