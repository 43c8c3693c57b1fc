"""Row-wise methods on a dataset larger than memory: partition by partition, one stream each.

A row-wise method changes each record with a draw that depends only on that record and on
parameters of the whole table (a distortion matrix, the noise's scale). Those parameters are
computed out of core first — from frequency tables (the optimal keep probabilities of
randomized response, the value counts of invariant PRAM, MRR's domains) or from one pass of
moments (the covariance of Gaussian noise) — and the in-memory methods' per-record kernels then
run on every partition with :meth:`dask.dataframe.DataFrame.to_delayed` partitions, each with
its own random generator.

Random streams: :func:`partition_streams` draws a root :class:`numpy.random.SeedSequence` from
the caller's generator and spawns one child per partition; partition ``i`` always uses child
``i``. The result therefore depends only on the data, its partitioning and the generator, not on
the scheduler, the workers or the order in which partitions run. The streams live in the task
graph only: no seed or random state is ever written (:func:`write_rowwise` writes the data and
the public and internal metadata).

Methods that need the whole table are refused by :func:`require_in_memory` with the way out;
microaggregation has one out of core: :func:`microanon.scale.microaggregate_blocks`.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask import compute, delayed

from ..core.errors import InputError, SchemaError, VerificationError
from ..core.output import atomic_directory, check_output_target
from ..core.progress import ProgressLike, as_progress
from ..core.random import RandomLike, make_rng
from ..core.reading import MarkerColumn
from ..core.release import ALWAYS_PUBLIC, PUBLIC_DIR, plain_metadata
from ..core.repetition import Repetition
from ..core.schema import Kind, Schema
from ..core.secret_scan import texts_in_files
from ..core.table import Table, whole_with_unknown
from ..measures.perturbative import MaskedPairs
from ..methods.randomize.domains import check_domains, check_drawable
from ..methods.randomize.mrr import check_theta, flip_records
from ..methods.randomize.onehot import OneHotLayout
from ..methods.randomize.optimal import (
    MAX_JOINT_CELLS,
    check_tau,
    optimal_parameters_from_pi,
)
from ..methods.randomize.pram import (
    DEFAULT_ALPHA,
    check_alpha,
    invariant_spec,
)
from ..methods.randomize.risk import check_scenario
from ..methods.randomize.sampling import (
    ColumnSpec,
    check_domain_size,
    draw_column,
    randomized_metadata,
    resolve_specs,
)
from ..methods.registry import get as method_spec
from ..methods.registry import methods, twin
from ..methods.release import require_quasi
from ..methods.sdc.common import (
    check_number,
    numeric_matrix,
    refuse_marked,
    refuse_non_finite,
    select_columns,
)
from ..methods.sdc.noise import (
    NOISE_METHODS,
    add_correlated,
    add_independent,
    check_noise_parameters,
    check_per_column,
    geometric_noise,
    laplace_noise,
    sqrt_psd,
)
from ..models import Verdict, as_models
from .client import dask_client, run_stage
from .encode import encode_dataset, run_row_counts
from .encoding import Encoding
from .frequencies import SPLIT_EVERY, FrequencyTable, code_frequencies
from .read import read_dataset
from .record_order import order_parts
from .release_files import DATA, part_files, table_info, write_manifests
from .verify import count_files, verify_files

__all__ = [
    "ROWWISE_METHODS",
    "WHOLE_TABLE_METHODS",
    "Counted",
    "RowwiseRelease",
    "WrittenRelease",
    "add_noise_dask",
    "column_moments",
    "map_partitions_random",
    "mrr_dask",
    "original_names",
    "partition_streams",
    "pram_dask",
    "randomize_dask",
    "randomized_response_dask",
    "report_columns",
    "require_in_memory",
    "write_rowwise",
]

#: Row-wise functions that are not methods of a configuration, and the function of
#: :mod:`microanon.scale` that runs each partition by partition.
_OTHER_ROWWISE = {"randomize": "randomize_dask", "mrr": "mrr_dask"}

#: Variants and relatives of the configuration's methods that need the whole table, and why.
_OTHER_WHOLE_TABLE = {
    "kim": "Kim's noise is conditioned on the whole sample (exact means and covariance)",
    "multiplicative": "its log-noise is scaled by the standard deviation of each column's "
    "logarithm, computed over the whole table in memory",
    "multisa": "its groupings of several sensitive attributes are built record by record",
    "epr": "each respondent's vector depends on the vectors submitted before it",
    "gtr": "each respondent generalizes against the tuples collected before it",
}

#: Methods that run partition by partition, and the function of :mod:`microanon.scale` that
#: runs each: the registered methods that declare a row-wise kernel
#: (:attr:`microanon.methods.registry.Method.out_of_core`) and :data:`_OTHER_ROWWISE`.
ROWWISE_METHODS: dict[str, str] = {
    **{
        f"{m.name} ({m.out_of_core.variants})" if m.out_of_core.variants else m.name: (
            m.out_of_core.function
        )
        for m in methods().values()
        if m.out_of_core is not None and m.out_of_core.rowwise
    },
    **_OTHER_ROWWISE,
}

#: Methods that need the whole table in memory, and why: the registered methods that say so
#: (:attr:`microanon.methods.registry.Method.in_memory_because`) and :data:`_OTHER_WHOLE_TABLE`.
WHOLE_TABLE_METHODS: dict[str, str] = {
    **{m.name: m.in_memory_because for m in methods().values() if m.in_memory_because},
    **_OTHER_WHOLE_TABLE,
}

#: Block microaggregation, the standard way out for microaggregation out of core.
_WAY_OUT = {
    "microaggregation": "microaggregate within the blocks of a blocking variable with "
    "microanon.scale.microaggregate_blocks(data, columns, k, by=...), each block in memory",
}

#: dtype of published text columns (one Parquet type in every partition, empty ones included).
_TEXT = pd.StringDtype("pyarrow")


def require_in_memory(method: str) -> NoReturn:
    """Refuse to run ``method`` out of core, saying why and what to do instead.

    Parameters
    ----------
    method : str
        A method's name (``"microaggregation"``, ``"mondrian"``, ``"rank_swap"``, ...).

    Raises
    ------
    InputError
        Always. For a method of :data:`WHOLE_TABLE_METHODS`: it names the method, why it needs
        the whole table, the in-memory limit and the way out (for microaggregation:
        :func:`microanon.scale.microaggregate_blocks`). For a row-wise method: the function
        of :mod:`microanon.scale` that runs it partition by partition. Otherwise: that the
        method is unknown.
    """
    name = str(method)
    if name in WHOLE_TABLE_METHODS:
        way_out = _WAY_OUT.get(
            name, "read a sample or a subset that fits with read_dataset(...).compute()"
        )
        raise InputError(
            f"{name} needs the whole table in memory ({WHOLE_TABLE_METHODS[name]}), so it cannot "
            "run partition by partition: the table and the method's working arrays must fit in "
            f"the memory of one process; run it in memory if they do, or {way_out}"
        )
    for listed, function in ROWWISE_METHODS.items():
        if name == listed.split(" ")[0]:
            raise InputError(
                f"{name} is row-wise: it runs partition by partition with "
                f"microanon.scale.{function}"
            )
    known = sorted({*WHOLE_TABLE_METHODS, *(m.split(" ")[0] for m in ROWWISE_METHODS)})
    raise InputError(f"unknown method {name!r}; known: {', '.join(known)}")


# ---------------------------------------------------------------------- random streams
def partition_streams(rng: RandomLike, n: int) -> list[np.random.SeedSequence]:
    """One independent seed sequence per partition, drawn from the caller's generator.

    A root :class:`numpy.random.SeedSequence` gets 256 bits of entropy drawn from ``rng`` and
    spawns ``n`` children (NumPy's way of making independent streams); partition ``i`` uses
    ``numpy.random.default_rng(children[i])``. The same generator state gives the same
    children; drawing them advances ``rng``.

    Parameters
    ----------
    rng : numpy.random.Generator, int or None
        As everywhere in microanon (``None``: operating-system entropy). Never recorded.
    n : int
        Number of partitions.

    Returns
    -------
    list of numpy.random.SeedSequence
    """
    gen = make_rng(rng)
    entropy = [int(v) for v in gen.integers(0, 2**64, size=4, dtype=np.uint64)]
    return np.random.SeedSequence(entropy).spawn(int(n))


def _call(func: Callable, part: pd.DataFrame, seed: np.random.SeedSequence, *args: Any):
    return func(part, np.random.default_rng(seed), *args)


def map_partitions_random(
    frame: dd.DataFrame, func: Callable[..., pd.DataFrame], rng: RandomLike, *args: Any
) -> dd.DataFrame:
    """Apply ``func(partition, generator, *args)`` to every partition, each with its own stream.

    Partition ``i`` gets ``numpy.random.default_rng(partition_streams(rng, n)[i])``, where the
    partitions are those of ``frame``'s optimized graph (Dask may fuse small files read with
    few columns into one partition; ``n`` is their number). The child is
    bound to the partition in the task graph, so the output does not depend on the scheduler,
    on the workers or on which partitions are computed (``result.partitions[i]`` is the same
    alone or with the others). ``args`` are shared by all tasks (put in the graph once).

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
    func : callable
        ``func(part, generator, *args) -> pandas.DataFrame``; it must accept an empty
        partition (the output's metadata is ``func`` applied to ``frame``'s empty metadata).
    rng : numpy.random.Generator, int or None
    *args
        Further arguments of ``func``.

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy, one partition per input partition (unknown divisions).
    """
    meta = func(frame._meta, np.random.default_rng(0), *args)
    parts = frame.to_delayed(optimize_graph=True)  # the partitions as they will be computed
    streams = partition_streams(rng, len(parts))
    shared = [delayed(a, traverse=False) for a in args]
    tasks = [
        delayed(_call)(func, part, seed, *shared) for part, seed in zip(parts, streams, strict=True)
    ]
    return dd.from_delayed(tasks, meta=meta, verify_meta=True)


# ---------------------------------------------------------------------- releases
@dataclass(frozen=True)
class Counted:
    """What the reports of a row-wise release need of its original, counted out of core.

    Attributes
    ----------
    original : FrequencyTable
        The combinations of :attr:`columns` in the records that entered the method
        (missing-value policies applied), in order of first appearance, with their records (the
        sampling weight by class with its sums): :attr:`microanon.scale.Encoding.combinations`.
    markers : dict of str to MarkerColumn
        The published columns of the input that hold a text other software writes for a
        missing value (:attr:`microanon.scale.Encoding.markers`).
    schema : Schema
        The schema with the hierarchies built from the whole table (identifiers included).
    columns : list of str
        The columns counted: the quasi-identifiers, the first sensitive column and the
        sampling weight, those the schema has (:func:`report_columns`).
    """

    original: FrequencyTable
    markers: dict[str, MarkerColumn]
    schema: Schema
    columns: list[str]


def report_columns(schema: Schema) -> list[str]:
    """The columns whose combinations the reports of a release measure, in this order: the
    quasi-identifiers, the first sensitive column, the sampling weight (those ``schema`` has)."""
    weight = [schema.weight] if schema.weight is not None else []
    return list(dict.fromkeys([*schema.quasi, *schema.sensitive[:1], *weight]))


def _counted(encoding: Encoding, columns: list[str]) -> Counted | None:
    """The :class:`Counted` of an encoding pass run with ``reported=columns`` (None without)."""
    if not columns or encoding.combinations is None:
        return None
    return Counted(encoding.combinations, dict(encoding.markers or {}), encoding.source, columns)


@dataclass(frozen=True)
class RowwiseRelease:
    """A release computed partition by partition: the lazy published table and its metadata.

    Attributes
    ----------
    data : dask.dataframe.DataFrame
        The published table, lazily: computing it (or :func:`write_rowwise`) runs the method.
        The random streams are bound in its task graph: it gives the same rows every time.
    metadata : dict
        As the in-memory method's release records it (``method``, ``parameters``, ``models``,
        ``quasi``, ``sensitive`` and the method's own keys), without row counts (written by
        :func:`write_rowwise`) and without any seed.
    public : tuple of str
        The keys of ``metadata`` that are published (those of
        :data:`microanon.core.release.ALWAYS_PUBLIC` and the method's own, as in memory).
    kind : str
        The release kind, as in memory: ``"randomized"`` or ``"masked"``.
    domains : dict
        Column -> the public domain the metadata names for it (a randomized column's):
        :func:`write_rowwise` refuses the release if one names a value that the written column
        does not hold and ``declared`` does not list
        (:func:`microanon.methods.randomize.domains.check_domains`).
    declared : dict
        Column -> the values the data owner declared (:meth:`Schema.declared`).
    kinds : dict
        Column -> the kind of each column of ``domains`` (what a refusal says declares its
        values).
    rows : dict
        The rows before the method (:attr:`Encoding.rows`): :func:`write_rowwise` adds those
        published and keeps them in the internal metadata (``row_counts``), as in memory.
    counted : Counted or None
        Asked for with ``reports=True``: what the reports need of the original, counted in the
        pass that read it; :func:`write_rowwise` counts the published table's combinations of
        the same columns in the read of the written files.
    repeated : dict of str to Repetition
        Asked for with ``person_ids``: each one's distinct values, the rows read and the rows
        alone with their value (:class:`~microanon.core.repetition.Repetition`), counted in
        the pass that read the data (:attr:`~microanon.scale.Encoding.repeated`). Never
        written.
    paired : dask.dataframe.DataFrame or None
        A masking method's, with ``reports=True``: each record's original values of the masked
        columns (named by :func:`original_names`), then its masked ones, lazily, the records
        whose values are all known; computed by :func:`write_rowwise` with the published
        table (each partition's task once), gathered for the reports. Never written.
    positioned : bool
        Whether :attr:`paired`'s index is the records' positions in the input (their order,
        restored when they are gathered); else its partitions hold the records in their
        order.
    columns : tuple of str
        The columns the release publishes, in order (the schema's published columns):
        :func:`write_rowwise` refuses written files that hold any other. Empty: those of
        :attr:`data`.
    """

    data: dd.DataFrame
    metadata: dict[str, Any]
    public: tuple[str, ...] = field(default=ALWAYS_PUBLIC)
    kind: str = "randomized"
    domains: dict[str, list[Any]] = field(default_factory=dict)
    declared: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    kinds: dict[str, Kind] = field(default_factory=dict)
    rows: dict[str, Any] = field(default_factory=dict)
    counted: Counted | None = field(default=None, repr=False, compare=False)
    repeated: dict[str, Repetition] = field(default_factory=dict, repr=False, compare=False)
    paired: dd.DataFrame | None = field(default=None, repr=False, compare=False)
    positioned: bool = False
    columns: tuple[str, ...] = ()

    @classmethod
    def masked(
        cls,
        full: dd.DataFrame,
        metadata: dict[str, Any],
        encoding: Encoding,
        reported: list[str],
        originals: Sequence[str] = (),
        positioned: bool = False,
    ) -> RowwiseRelease:
        """A masking method's release (kind ``masked``, ``masked_numeric`` public besides
        :data:`~microanon.core.release.ALWAYS_PUBLIC`), with the rows and the person ids'
        repetition its ``encoding`` (:class:`~microanon.scale.Encoding`) counted.

        ``full``: the published columns and ``originals``, each masked column's original values
        (named by :func:`original_names`), which the partitions' tasks carry for the reports:
        the release's :attr:`data` leaves them out, and, when the encoding pass counted what
        the reports need (``reported``: the columns it counted), :attr:`paired` keeps them
        beside the masked columns (``positioned`` as the attribute).
        """
        public = (*ALWAYS_PUBLIC, "masked_numeric")
        masked = list(metadata["masked_numeric"])
        counted = _counted(encoding, reported)
        hidden = set(originals)
        data = full[[c for c in full.columns if c not in hidden]] if hidden else full
        paired = None
        if counted is not None and originals:
            both = full[[*originals, *masked]]
            paired = both.map_partitions(_known_rows, meta=both._meta)
        return cls(
            data,
            metadata,
            public,
            "masked",
            rows=encoding.rows,
            counted=counted,
            repeated=encoding.repeated,
            paired=paired,
            positioned=positioned,
            columns=tuple(encoding.schema.columns),
        )

    @property
    def public_metadata(self) -> dict[str, Any]:
        """The metadata a data user gets (written to ``public/release.json``)."""
        return {k: v for k, v in self.metadata.items() if k in self.public}

    @property
    def internal_metadata(self) -> dict[str, Any]:
        """The metadata the data owner keeps (written to ``internal/internal.json``)."""
        return {k: v for k, v in self.metadata.items() if k not in self.public}


def original_names(masked: Sequence[str], published: Sequence[str]) -> list[str]:
    """The names of the columns that carry each of the ``masked`` columns' original values
    beside the ``published`` ones through a partition's task (``"<column> (original)"``, primed
    until it is no published column's name); never written."""
    names: list[str] = []
    for c in masked:
        name = f"{c} (original)"
        while name in published or name in names:
            name += "'"
        names.append(name)
    return names


def _known_rows(part: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``part`` whose every value is known."""
    return part.loc[part.notna().all(axis=1).to_numpy()]


@dataclass(frozen=True)
class WrittenRelease:
    """Where :func:`write_rowwise` wrote a release.

    Attributes
    ----------
    path : pathlib.Path
        The output directory (``public/`` and ``internal/``, as :meth:`Release.save`).
    data : pathlib.Path
        The published table, one Parquet file per partition
        (``path / "public" / "data.parquet"``).
    metadata : dict
        The public metadata written to ``path / "public" / "release.json"`` (with
        ``rows_out``).
    rows_out : int
        Records written (read back from the files' footers).
    kind : str
        The release kind.
    internal : dict
        The internal metadata written to ``path / "internal" / "internal.json"``.
    columns : list of str
        The written files' columns, in their order.
    counted : Counted or None
        What the release counted of its original for the reports (``reports=True``).
    published : FrequencyTable or None
        With ``counted``: the written files' combinations of the columns counted in the
        original and of the randomized ones, in order of first appearance (the files in
        partition order), counted in the read that checks their domains. In memory, never
        written.
    seconds : dict of str to float
        Wall time of :func:`write_rowwise`'s stages: ``write`` (the files written and put in
        order), ``verify`` (read back), ``reports`` (when written).
    reported : dict
        The numbers of the release's reports, when its caller wrote them
        (:func:`microanon.apps.scale_reports.write_rowwise_reports`); empty otherwise.
    repeated : dict of str to Repetition
        :attr:`RowwiseRelease.repeated` (in memory, never written).
    masked : MaskedPairs or None
        A masking method's, with :attr:`RowwiseRelease.paired`: the records' masked values
        beside their original ones, gathered in the input's order from the pass that wrote
        the files. In memory, never written.
    """

    path: Path
    data: Path
    metadata: dict[str, Any]
    rows_out: int
    kind: str = "randomized"
    internal: dict[str, Any] = field(default_factory=dict)
    columns: list[str] = field(default_factory=list)
    counted: Counted | None = field(default=None, repr=False, compare=False)
    published: FrequencyTable | None = field(default=None, repr=False, compare=False)
    seconds: dict[str, float] = field(default_factory=dict)
    reported: dict[str, Any] = field(default_factory=dict)
    repeated: dict[str, Repetition] = field(default_factory=dict, repr=False, compare=False)
    masked: MaskedPairs | None = field(default=None, repr=False, compare=False)
    verdicts: list[Verdict] = field(default_factory=list, repr=False, compare=False)


def write_rowwise(
    release: RowwiseRelease,
    out_dir: str | os.PathLike[str],
    *,
    client: Any = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    overwrite: bool = False,
    protect: Sequence[str | os.PathLike[str]] = (),
    secrets: Sequence[str] = (),
    reports: Callable[[WrittenRelease, Any], dict[str, Any]] | None = None,
) -> WrittenRelease:
    """Compute a row-wise release and write it as :meth:`Release.save` lays a release out.

    The directory is built in a hidden sibling and renamed at the end (as
    :func:`microanon.scale.full_domain_dask` does); if anything fails only that sibling is
    removed, and nothing that microanon did not write is replaced or deleted. It holds
    ``public/release.json`` (the manifest, the public keys and the public metadata with
    ``rows_out``; never a seed), ``public/data.parquet/`` (one ``part.N.parquet`` file per
    partition), ``internal/internal.json`` (the metadata the method keeps internal) and the
    marker listing the files: :meth:`Release.load` and :func:`microanon.models.verify_written`
    read it as a release saved in memory.

    Parameters
    ----------
    release : RowwiseRelease
    out_dir : path
        Must not exist or be empty (unless ``overwrite``).
    client, scheduler, progress
        As for :func:`microanon.scale.full_domain_dask`.
    overwrite : bool
        Replace ``out_dir`` if it holds a previous microanon output and nothing else.
    protect : sequence of path
        Files the output must never contain (the input data, the config).
    secrets : sequence of str
        Texts no public file may hold: the fingerprints of the generator the release draws from
        (:func:`microanon.core.random.state_fingerprints`).
    reports : callable, optional
        ``reports(written, client)``, for a release that counted its original
        (:attr:`RowwiseRelease.counted`): called with the release written (at the hidden
        sibling, with :attr:`WrittenRelease.published` counted from the files as they are read
        back) before the directory is moved: what it writes there is part of the output
        (``microanon anonymize`` writes the reports,
        :func:`microanon.apps.scale_reports.write_rowwise_reports`), and is scanned for
        ``secrets`` too; what it returns is :attr:`WrittenRelease.reported`.

    Returns
    -------
    WrittenRelease

    Raises
    ------
    InputError
        ``out_dir`` exists and is not empty, or cannot be written; an unreachable scheduler;
        bad data met while writing (e.g. a non-finite value to perturb).
    """
    target = Path(out_dir)
    check_output_target(target, overwrite, protect)
    seconds: dict[str, float] = {}
    with (
        dask_client(client, scheduler) as run,
        atomic_directory(target, overwrite, protect) as tmp,
    ):
        mark = time.perf_counter()
        root = tmp / PUBLIC_DIR / DATA
        root.mkdir(parents=True)
        write = release.data.to_parquet(
            str(root),
            write_index=False,
            compute=False,
            write_metadata_file=False,
            name_function=_part_name,
        )
        # (a masking method's pairs for the reports: from the same tasks, each run once)
        paired = [] if release.paired is None else [release.paired]
        done = run_stage(run, "write", [write, *paired], progress)
        masked = _gathered_pairs(release, done[1]) if paired else None
        # (each file is a stretch of the input: the rows are sent to files at random, then sorted)
        order_parts(run, root, progress)
        seconds["write"] = time.perf_counter() - mark
        mark = time.perf_counter()
        info = table_info(root)
        _refuse_unpublished(release, list(info["columns"]))
        published = _read_back(run, root, release, info["columns"], progress)
        verdicts = _verified(run, root, release, progress)
        public = {**release.public_metadata, "rows_out": info["rows"]}
        internal = {**release.internal_metadata, "row_counts": _row_counts(release, info["rows"])}
        write_manifests(tmp, release.kind, public, internal, release.public, {"data": info})
        seconds["verify"] = time.perf_counter() - mark
        written = WrittenRelease(
            tmp,
            tmp / PUBLIC_DIR / DATA,
            plain_metadata(public),
            info["rows"],
            release.kind,
            plain_metadata(internal),
            list(info["columns"]),
            release.counted,
            published,
            seconds,
            repeated=release.repeated,
            masked=masked,
            verdicts=verdicts,
        )
        if reports is not None and release.counted is not None:
            mark = time.perf_counter()
            with as_progress(progress).stage("reports"):
                written = replace(written, reported=reports(written, run))
            seconds["reports"] = time.perf_counter() - mark
        exposed = texts_in_files(tmp / PUBLIC_DIR, secrets)
        if exposed:
            raise VerificationError("nothing was written: " + "; ".join(exposed))
    return replace(written, path=target, data=target / PUBLIC_DIR / DATA)


def _refuse_unpublished(release: RowwiseRelease, written: list[str]) -> None:
    """Refuse written files holding a column the release does not publish.

    Raises
    ------
    VerificationError
        Naming the columns; nothing is written.
    """
    expected = list(release.columns) or list(release.data.columns)
    extra = [c for c in written if c not in expected]
    if extra:
        raise VerificationError(
            f"nothing was written: the files hold column(s) {', '.join(map(repr, extra))}, "
            "which the release does not publish"
        )


def _gathered_pairs(release: RowwiseRelease, frame: pd.DataFrame) -> MaskedPairs:
    """The :class:`MaskedPairs` of :attr:`RowwiseRelease.paired` computed (``frame``, its
    partitions in order), the records in the input's order."""
    if release.positioned:
        frame = frame.sort_index(kind="stable")
    masked = list(release.metadata["masked_numeric"])
    original = frame.iloc[:, : len(masked)].set_axis(masked, axis=1).reset_index(drop=True)
    return MaskedPairs(
        original,
        frame.loc[:, masked].reset_index(drop=True),
        int(release.rows["entering"]) - len(frame),
    )


def _read_back(
    run: Any, root: Path, release: RowwiseRelease, columns: list[str], progress: ProgressLike
) -> FrequencyTable | None:
    """Read the written files back: check the randomized columns' public domains against the
    values they hold (:func:`~microanon.methods.randomize.domains.check_domains`) and, for a
    release that counted its original, count the files' combinations of the same columns and
    of the randomized ones (their domains' values read from them)."""
    counted = release.counted
    published = None
    if counted is not None:
        measured = [c for c in columns if c in {*counted.columns, *release.domains}]
        weight = counted.schema.weight if counted.schema.weight in measured else None
        published = count_files(part_files(root), measured, run, progress, weight)
        distinct = {
            c: list(pd.Series(published.codes[c], dtype=object).drop_duplicates())
            for c in release.domains
        }
    elif release.domains:
        distinct = _distinct(root, list(release.domains))
    if release.domains:
        check_domains(release.domains, distinct, release.declared, release.kinds)
    return published


def _verified(
    run: Any, root: Path, release: RowwiseRelease, progress: ProgressLike
) -> list[Verdict]:
    """The models the release claims (a microaggregation whose groups cover every
    quasi-identifier claims k-anonymity) checked on the written files by their definition, as
    :func:`~microanon.models.verify_written` checks them in memory.

    Raises
    ------
    VerificationError
        A claimed model fails on the files (nothing is kept).
    """
    claimed = release.metadata.get("models") or []
    if not claimed:
        return []
    models = as_models(claimed)
    sensitive = release.metadata.get("sensitive") or []
    needed = any(m.needs_sensitive for m in models) and len(sensitive) == 1
    verdicts, _, _ = verify_files(
        part_files(root),
        release.metadata["quasi"],
        sensitive[0] if needed else None,
        models,
        run,
        progress,
    )
    failed = [str(v) for v in verdicts if v.holds is False]
    if failed:
        raise VerificationError(
            "nothing was written: the written release fails " + "; ".join(failed)
        )
    return verdicts


def _row_counts(release: RowwiseRelease, published: int) -> dict[str, Any]:
    """The run's row counts (the keys of :meth:`microanon.core.row_counts.RowCounts.to_dict`):
    every record that entered is published, one row each, or nothing is written."""
    rows = release.rows
    if published != rows["entering"]:
        raise VerificationError(
            f"nothing was written: the method received {rows['entering']:,} rows, but "
            f"{published:,} were written"
        )
    return run_row_counts(rows, 0, published)


def _distinct(root: Path, columns: list[str]) -> dict[str, list[Any]]:
    """The distinct values of ``columns`` in the Parquet dataset written at ``root``."""
    frame = read_dataset(str(root), columns=columns)
    found = compute(*(frame[c].drop_duplicates() for c in columns))
    return {c: list(values) for c, values in zip(columns, found, strict=True)}


def _part_name(i: int) -> str:
    """The file of partition ``i`` (as :func:`microanon.scale.full_domain_dask` names it)."""
    return f"part.{i}.parquet"


# ---------------------------------------------------------------------- shared helpers
def _as_schema(schema: Schema | Mapping[str, Any]) -> Schema:
    return schema if isinstance(schema, Schema) else Schema.from_dict(schema)


def _source(source: Any, columns: Sequence[str], read_options: Mapping[str, Any] | None):
    """A dask DataFrame of ``source`` (a path, a glob or a dask DataFrame)."""
    if isinstance(source, (str, os.PathLike)):
        return read_dataset(source, columns=list(columns), **dict(read_options or {}))
    if not isinstance(source, dd.DataFrame):
        raise InputError(
            f"source: expected a path, a glob or a dask DataFrame, got {type(source).__name__} "
            "(a pandas DataFrame runs with the in-memory methods)"
        )
    absent = [c for c in columns if c not in source.columns]
    if absent:
        raise InputError(
            f"table: column(s) {', '.join(map(repr, absent))} not found; available: "
            + ", ".join(map(str, source.columns))
        )
    return source


def _text(series: pd.Series) -> pd.Series:
    """A column of strings as one string dtype (Parquet needs one type in every partition)."""
    if series.dtype == object and pd.api.types.infer_dtype(series) in ("string", "empty"):
        return series.astype(_TEXT)
    return series


def _domain_table(encoding: Encoding, columns: Sequence[str]) -> Table:
    """A table without rows over ``columns`` with their global dictionaries (for validation)."""
    columns = [c for c in encoding.schema.columns if c in set(columns)]
    return Table.from_codes(
        {c: np.zeros(0, dtype=np.int64) for c in columns},
        {c: encoding.dictionaries[c] for c in columns},
        encoding.schema.select(columns),
    )


def _named(keep: Any, matrices: Any, published: Sequence[str]) -> list[str]:
    """The columns ``keep`` and ``matrices`` name, checked against the published columns."""
    for name, arg in (("keep", keep), ("matrices", matrices)):
        if arg is not None and not isinstance(arg, Mapping):
            raise InputError(f"{name} must be a mapping of column name to parameter")
    named = [*dict(keep or {}), *dict(matrices or {})]
    if not named:
        raise InputError(
            "name the columns to randomize in keep (probabilities) or matrices (in a config: "
            "params: {keep: {column: probability}})"
        )
    unknown = [c for c in named if c not in published]
    if unknown:
        raise InputError(
            f"column(s) {', '.join(map(repr, unknown))} are not published columns of the table; "
            f"it has {', '.join(published)}"
        )
    return [c for c in published if c in set(named)]


# ---------------------------------------------------------------------- randomized response, PRAM
@dataclass(frozen=True)
class _Randomization:
    """What every partition of a randomized release needs."""

    encoding: Encoding
    columns: list[str]
    specs: dict[str, ColumnSpec]
    values: dict[str, pd.Index]


def _randomize_partition(
    part: pd.DataFrame, gen: np.random.Generator, plan: _Randomization
) -> pd.DataFrame:
    """One partition through the in-memory release procedure (``sampling.publish``).

    Each randomized column's codes go through :func:`draw_column` (in schema order, as in
    memory), then the partition's rows are put in random order.
    """
    codes = plan.encoding.codes(part)
    for column, spec in plan.specs.items():
        codes[column] = draw_column(codes[column], len(plan.values[column]), spec, gen)
    order = gen.permutation(len(part))
    data = {}
    for c in plan.columns:
        if c in plan.specs:
            data[c] = pd.Series(plan.values[c].take(codes[c][order]))
        else:
            data[c] = _text(part[c].iloc[order].reset_index(drop=True))
    return pd.DataFrame(data, index=pd.RangeIndex(len(part)))


def _randomized_release(
    cleaned: dd.DataFrame,
    encoding: Encoding,
    specs: dict[str, ColumnSpec],
    counts: Mapping[str, np.ndarray],
    method: str,
    parameters: Mapping[str, Any],
    rng: RandomLike,
    extra: Mapping[str, Any] | None = None,
    public: Sequence[str] = (),
    counted: Counted | None = None,
) -> RowwiseRelease:
    """The release of ``specs`` drawn partition by partition, ``counts`` (the records per code
    of each randomized column) checked before the draw as in memory
    (:func:`~microanon.methods.randomize.domains.check_drawable`); ``counted``: what the
    reports need of the original (:attr:`RowwiseRelease.counted`)."""
    declared = encoding.schema.declared()
    kinds = {c: encoding.schema[c].kind for c in specs}
    for column, spec in specs.items():
        check_drawable(
            column, spec.matrix, spec.over(counts[column]),
            spec.over(encoding.dictionaries[column]), declared.get(column), kinds[column],
        )  # fmt: skip
    values = {c: _decoding(encoding.dictionaries[c]) for c in specs}
    # (what the reports counted stays here: the partitions' tasks carry the dictionaries only)
    coding = replace(encoding, combinations=None, markers=None)
    plan = _Randomization(coding, list(encoding.schema.columns), dict(specs), values)
    data = map_partitions_random(cleaned, _randomize_partition, rng, plan)
    schema = encoding.schema
    metadata = {
        "method": method,
        "parameters": dict(parameters),
        "models": [],
        "quasi": list(schema.quasi),
        "sensitive": list(schema.sensitive),
        **randomized_metadata({c: encoding.dictionaries[c] for c in specs}, specs),
        **dict(extra or {}),
    }
    domains = {c: metadata["randomized"][c]["domain"] for c in specs}
    return RowwiseRelease(
        data,
        metadata,
        (*ALWAYS_PUBLIC, "randomized", *public),
        domains=domains,
        declared=declared,
        kinds=kinds,
        rows=encoding.rows,
        counted=counted,
        repeated=encoding.repeated,
        columns=tuple(schema.columns),
    )


def _decoding(dictionary: np.ndarray) -> pd.Index:
    """The values a randomized column's codes are published as: text as one string dtype,
    whole numbers beside an empty cell (PRAM's ``missing: keep``) as nullable integers (3, not
    3.0, as in memory), other numbers as they are."""
    index = pd.Index(list(dictionary))
    if index.dtype == object:
        return index.astype(_TEXT)
    if index.dtype.kind == "f" and whole_with_unknown(
        np.asarray(dictionary, dtype=object), index.to_numpy()
    ):
        return index.astype("Int64")
    return index


def randomize_dask(
    source: Any,
    schema: Schema | Mapping[str, Any],
    *,
    keep: Mapping[str, float] | None = None,
    matrices: Mapping[str, Any] | None = None,
    rng: RandomLike = None,
    client: Any = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    read_options: Mapping[str, Any] | None = None,
    reports: bool = False,
    person_ids: Sequence[str] = (),
) -> RowwiseRelease:
    """Randomized response / PRAM with given matrices on a dataset larger than memory.

    :func:`microanon.methods.randomize.randomize` partition by partition: one pass builds each
    randomized column's domain over the whole dataset (as :meth:`Table.from_frame` builds it:
    hierarchy leaves, declared order or sorted values), the parameters are validated as in
    memory, and every partition's records are randomized with the same per-record draw, each
    partition with its own random stream (:func:`partition_streams`).

    Parameters
    ----------
    source : path, glob or dask DataFrame
        Anything :func:`microanon.scale.read_dataset` reads, or a dask DataFrame.
    schema : Schema or mapping
    keep, matrices
        As for :func:`~microanon.methods.randomize.randomize` (per column: keep probability in
        ``(1/d, 1]``, or a ``d × d`` distortion matrix in domain order).
    rng : numpy.random.Generator, int or None
        Source of the partitions' streams; never recorded.
    client, scheduler, progress
        Where the pass over the data runs (see :func:`microanon.scale.dask_client`).
    read_options : mapping, optional
        Passed to :func:`microanon.scale.read_dataset`.
    reports : bool
        Count, in the pass that reads the data, what the reports need of the original
        (:attr:`RowwiseRelease.counted`: the combinations of :func:`report_columns` and the
        published columns' missing-value markers), for :func:`write_rowwise` to write them.
    person_ids : sequence of str, optional
        Identifier columns of the schema that may number people (``microanon anonymize``:
        :func:`microanon.apps.init.people.person_ids`), whose values the pass that reads the
        data also counts over every row (:attr:`RowwiseRelease.repeated`).

    Returns
    -------
    RowwiseRelease
        The published columns in schema order, randomized ones decoded, the rows of every
        partition in random order (a partition's records stay in its output partition).
        Metadata as in memory: ``method`` = ``"randomized_response"``, ``parameters``,
        ``randomized`` (column → ``domain``, ``matrix``, ``keep``; public).

    Raises
    ------
    InputError, SchemaError
        As :func:`~microanon.methods.randomize.randomize`.
    """
    schema = _as_schema(schema)
    named = _named(keep, matrices, schema.published)
    reported = report_columns(schema) if reports else []
    with dask_client(client, scheduler) as run:
        frame = _source(source, schema.columns, read_options)
        encoding, cleaned = encode_dataset(
            frame, schema, named, run, progress, counted=named, reported=reported, ids=person_ids
        )
    encoding.refuse_unknown(named, "randomization")
    specs = resolve_specs(_domain_table(encoding, named), keep, matrices)
    counts = encoding.value_counts
    parameters = {"keep": dict(keep or {}), "matrices": list(matrices or {})}
    return _randomized_release(
        cleaned,
        encoding,
        specs,
        counts,
        "randomized_response",
        parameters,
        rng,
        counted=_counted(encoding, reported),
    )


@twin("randomized_response")
def randomized_response_dask(
    source: Any,
    schema: Schema | Mapping[str, Any],
    *,
    scenario: str = "Both",
    l: float | None = None,  # noqa: E741 - ℓ-diversity's name for the parameter
    tau: float | None = None,
    rng: RandomLike = None,
    client: Any = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    read_options: Mapping[str, Any] | None = None,
    reports: bool = False,
    person_ids: Sequence[str] = (),
) -> RowwiseRelease:
    """RR-S, RR-QI or RR-Both with the optimal keep probabilities, on a dataset larger than memory.

    :func:`microanon.methods.randomize.randomized_response` out of core: the cell counts of the
    quasi-identifiers and the sensitive column come from the frequency table of the whole
    dataset (:func:`microanon.scale.code_frequencies`), the keep probabilities from the same
    search (:func:`~microanon.methods.randomize.optimal_parameters_from_pi`), and the records
    are randomized partition by partition as :func:`randomize_dask` does.

    Parameters
    ----------
    source, schema
        As for :func:`randomize_dask`; at least one quasi-identifier and exactly one sensitive
        column.
    scenario : {"S", "QI", "Both"}
    l, tau
        Give exactly one: ``τ = 1/ℓ`` bounds every record's ``Pr(S_r | QI_r)``.
    rng, client, scheduler, progress, read_options, reports, person_ids
        As for :func:`randomize_dask`.

    Returns
    -------
    RowwiseRelease
        Metadata as in memory: ``parameters`` (``scenario``, ``l``, ``tau``), ``scenario``,
        ``tau``, ``risk_bound`` and ``randomized`` (public), ``optimal`` (``keep``,
        ``max_risk``, ``objective``, ``expected_squared_error``; internal).

    Raises
    ------
    InputError, SchemaError, InfeasibleError
        As :func:`~microanon.methods.randomize.randomized_response`.
    """
    bound = check_tau(l, tau)
    scenario = check_scenario(scenario)
    schema = _as_schema(schema)
    require_quasi(schema)
    if len(schema.sensitive) != 1:
        raise SchemaError(
            "randomized response bounds the disclosure of one sensitive column: the schema has "
            f"{len(schema.sensitive)} ({', '.join(schema.sensitive) or 'none'})"
        )
    columns = [*schema.quasi, schema.sensitive[0]]
    reported = report_columns(schema) if reports else []
    with dask_client(client, scheduler) as run:
        frame = _source(source, schema.columns, read_options)
        encoding, cleaned = encode_dataset(
            frame, schema, columns, run, progress, reported=reported, ids=person_ids
        )
        encoding.refuse_unknown(schema.sensitive, "this method")
        shape = tuple(encoding.cardinality(c) for c in columns)
        for c, d in zip(columns, shape, strict=True):  # each one's matrix is published
            check_domain_size(c, d)
        if math.prod(shape) > MAX_JOINT_CELLS:
            raise InputError(
                f"the joint domain of {', '.join(columns)} has {math.prod(shape):,} cells "
                f"(sizes {shape}); at most {MAX_JOINT_CELLS:,} are supported: use fewer or coarser "
                "quasi-identifiers"
            )
        freq = code_frequencies(cleaned, encoding, columns, run, progress)
    counts = np.zeros(shape)
    counts[tuple(freq.codes[c] for c in columns)] = freq.counts
    best = optimal_parameters_from_pi(
        counts,
        freq.records,
        scenario,
        bound,
        columns=columns,
        values=[encoding.dictionaries[c] for c in columns],
    )
    specs = resolve_specs(_domain_table(encoding, columns), best.keep, None)
    marginals = {
        c: counts.sum(axis=tuple(j for j in range(len(columns)) if j != i)).astype(np.int64)
        for i, c in enumerate(columns)
    }
    extra = {
        "scenario": best.scenario,
        "tau": best.tau,
        "risk_bound": best.tau,
        "optimal": {
            "keep": best.keep,
            "max_risk": best.max_risk,
            "objective": best.objective,
            "expected_squared_error": best.expected_squared_error,
        },
    }
    # (the in-memory method's per-record τ and its constraint, at their defaults: what this
    # search solves, recorded as memory records them)
    memory = method_spec("randomized_response")
    parameters = {
        "scenario": best.scenario,
        "l": l,
        "tau": tau,
        "tau_column": memory.param("tau_column").default,
        "constraint": memory.param("constraint").default,
    }
    return _randomized_release(
        cleaned,
        encoding,
        specs,
        {c: marginals[c] for c in specs},
        "randomized_response",
        parameters,
        rng,
        extra,
        ("scenario", "tau", "risk_bound"),
        _counted(encoding, reported),
    )


@twin("pram")
def pram_dask(
    source: Any,
    schema: Schema | Mapping[str, Any],
    *,
    matrices: Mapping[str, Any] | None = None,
    keep: Mapping[str, float] | None = None,
    invariant: bool = False,
    alpha: float | None = None,
    rng: RandomLike = None,
    client: Any = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    read_options: Mapping[str, Any] | None = None,
    reports: bool = False,
    person_ids: Sequence[str] = (),
) -> RowwiseRelease:
    """PRAM (optionally invariant) on a dataset larger than memory.

    :func:`microanon.methods.randomize.pram` out of core. The invariant matrix needs each
    column's value counts over the whole dataset: the pass that builds the domains counts them,
    and the matrix is built from them as in memory; the records are then post-randomized
    partition by partition. As in memory, the matrices are over each column's known values: a
    missing answer (``?``, an empty cell) is published as it is, in its record.

    Parameters
    ----------
    source, schema, matrices, keep, invariant, alpha
        As for :func:`~microanon.methods.randomize.pram`.
    rng, client, scheduler, progress, read_options, reports, person_ids
        As for :func:`randomize_dask`.

    Returns
    -------
    RowwiseRelease
        ``method`` = ``"pram"``, parameters ``keep``, ``matrices``, ``invariant``, ``alpha``;
        ``randomized`` holds the known values' domains and the matrices applied (the invariant
        ones, internal, when ``invariant``).

    Raises
    ------
    InputError
        As :func:`~microanon.methods.randomize.pram`.
    """
    if not isinstance(invariant, (bool, np.bool_)):
        raise InputError(f"invariant must be True or False, got {invariant!r}")
    if alpha is not None and not invariant:
        raise InputError("alpha mixes the invariant PRAM matrix; it needs invariant=True")
    a = check_alpha(DEFAULT_ALPHA if alpha is None else alpha) if invariant else None
    schema = _as_schema(schema)
    named = _named(keep, matrices, schema.published)
    reported = report_columns(schema) if reports else []
    with dask_client(client, scheduler) as run:
        frame = _source(source, schema.columns, read_options)
        encoding, cleaned = encode_dataset(
            frame, schema, named, run, progress, counted=named, reported=reported, ids=person_ids
        )
        specs = resolve_specs(_domain_table(encoding, named), keep, matrices, known_only=True)
        counts = encoding.value_counts
        if invariant:
            for column, spec in list(specs.items()):
                specs[column] = invariant_spec(
                    column, spec, counts[column], encoding.dictionaries[column], a
                )
    parameters = {
        "keep": dict(keep or {}),
        "matrices": list(matrices or {}),
        "invariant": bool(invariant),
        "alpha": a,
    }
    counted = _counted(encoding, reported)
    return _randomized_release(
        cleaned, encoding, specs, counts, "pram", parameters, rng, counted=counted
    )


# ---------------------------------------------------------------------- noise
@dataclass(frozen=True)
class _Noise:
    """What every partition of a noise release needs."""

    method: str
    published: list[str]
    columns: list[str]
    sigma: np.ndarray | None = None
    root: np.ndarray | None = None
    epsilon: float | None = None
    sensitivity: np.ndarray | None = None
    originals: tuple[str, ...] = ()


def _noise_partition(part: pd.DataFrame, gen: np.random.Generator, plan: _Noise) -> pd.DataFrame:
    """One partition with the noise of :func:`microanon.methods.sdc.add_noise` added (and, for
    the reports, the perturbed columns' original values: ``plan.originals``)."""
    # (numbered afresh: the rows missing: drop left out leave gaps in the partition's index,
    # and the noise is added by position)
    part = part.reset_index(drop=True)
    out = pd.DataFrame({c: _text(part[c]) for c in plan.published}, index=part.index)
    kind = np.int64 if plan.method == "geometric" else np.float64
    if len(part) == 0:
        for c in plan.columns:
            out[c] = out[c].astype(kind)
        for h in plan.originals:
            out[h] = np.zeros(0)
        return out
    x = numeric_matrix(part, plan.columns, "add_noise")
    if plan.method in ("additive", "correlated"):
        xt = np.ascontiguousarray(x.T)
        if plan.method == "additive":
            yt = add_independent(xt, plan.sigma, gen)
        else:
            yt = add_correlated(xt, plan.root, gen)
        y = yt.T
    elif plan.method == "laplace":
        y = laplace_noise(x, plan.epsilon, plan.sensitivity, gen)
    else:
        bad = [
            c for j, c in enumerate(plan.columns) if not np.array_equal(x[:, j], np.round(x[:, j]))
        ]
        if bad:
            raise InputError(
                f"add_noise: method 'geometric' needs integer columns; '{bad[0]}' holds "
                "non-integer values (use method 'laplace')"
            )
        y = geometric_noise(x, plan.epsilon, plan.sensitivity, gen)
    for j, c in enumerate(plan.columns):
        out[c] = np.asarray(y[:, j], dtype=kind)
    for j, h in enumerate(plan.originals):
        out[h] = x[:, j]
    return out


def _chunk_moments(part: pd.DataFrame, columns: list[str]) -> tuple:
    """Records, means, centred cross-products and counts of missing and infinite values
    (a 2 × p array) of one partition."""
    x = part.loc[:, columns].to_numpy(dtype=np.float64)
    bad = np.stack([np.isnan(x).sum(axis=0), np.isinf(x).sum(axis=0)])
    n = len(x)
    if n == 0 or bad.any():
        return n, np.zeros(len(columns)), np.zeros((len(columns), len(columns))), bad
    mean = x.mean(axis=0)
    xc = x - mean
    return n, mean, xc.T @ xc, bad


def _merge_moments(*chunks: tuple) -> tuple:
    """Moments of the union of partitions (Chan, Golub & LeVeque's pairwise update)."""
    n, mean, m2, bad = chunks[0]
    for nb, meanb, m2b, badb in chunks[1:]:
        bad = bad + badb
        if nb == 0:
            continue
        if n == 0:
            n, mean, m2 = nb, meanb, m2b
            continue
        total = n + nb
        delta = meanb - mean
        mean = mean + delta * (nb / total)
        m2 = m2 + m2b + np.outer(delta, delta) * (n * nb / total)
        n = total
    return n, mean, m2, bad


def column_moments(
    frame: dd.DataFrame,
    columns: Sequence[str],
    client: Any,
    progress: ProgressLike = None,
    split_every: int = SPLIT_EVERY,
) -> tuple[int, np.ndarray, np.ndarray]:
    """Records, means and sample covariance (ddof 1) of numeric columns, in one pass.

    Each partition's count, means and centred cross-products are merged pairwise up a fixed
    tree (Chan, Golub & LeVeque's update: stable, and the same result whatever the scheduling).

    Raises
    ------
    InputError
        A column holds non-finite values (NaN or inf), as the in-memory methods refuse them.
    """
    columns = list(columns)
    level = [delayed(_chunk_moments)(p, columns) for p in frame[columns].to_delayed()]
    while len(level) > 1:
        level = [
            delayed(_merge_moments)(*level[i : i + split_every])
            for i in range(0, len(level), split_every)
        ]
    ((n, mean, m2, bad),) = run_stage(client, "moments", level, progress)
    for j, column in enumerate(columns):  # as numeric_matrix refuses them in memory
        refuse_non_finite("add_noise", column, int(bad[0, j]), int(bad[1, j]))
    cov = m2 / (n - 1) if n > 1 else np.full_like(m2, np.nan)
    return int(n), mean, cov


@twin("add_noise")
def add_noise_dask(
    source: Any,
    schema: Schema | Mapping[str, Any],
    *,
    method: str = "additive",
    noise: float | None = None,
    epsilon: float | None = None,
    sensitivity: float | Mapping[str, float] | None = None,
    columns: Sequence[str] | None = None,
    rng: RandomLike = None,
    client: Any = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    read_options: Mapping[str, Any] | None = None,
    reports: bool = False,
    person_ids: Sequence[str] = (),
) -> RowwiseRelease:
    """Noise addition on a dataset larger than memory (sdcMicro's ``addNoise``, row-wise ones).

    :func:`microanon.methods.sdc.add_noise` out of core for the methods whose noise is drawn
    record by record: ``additive`` (standard deviations ``α·sd_j``) and ``correlated``
    (covariance ``α·Σ``) — ``sd`` and ``Σ`` of the whole dataset from one pass of moments
    (:func:`column_moments`) — and ``laplace`` and ``geometric`` (no statistic needed). Each
    partition then gets the in-memory per-record draw with its own random stream. ``kim``
    conditions the noise on the whole sample and ``multiplicative`` scales it by the whole
    table's log standard deviations: both are refused (:func:`require_in_memory`).

    Parameters
    ----------
    source, schema
        As for :func:`randomize_dask`.
    method, noise, epsilon, sensitivity, columns
        As for :func:`~microanon.methods.sdc.add_noise`.
    rng, client, scheduler, progress, read_options, person_ids
        As for :func:`randomize_dask`.
    reports : bool
        As for :func:`randomize_dask`; and keep each record's original values of the perturbed
        columns beside the noisy ones (:attr:`RowwiseRelease.paired`), which the reports
        compare record by record.

    Returns
    -------
    RowwiseRelease
        Same rows and order as the cleaned input (no shuffling, as in memory), the published
        columns in schema order, the perturbed ones float (int64 for ``geometric``). Metadata
        as in memory: ``method`` = ``"add_noise"``, ``parameters``, ``masked_numeric``
        (public) and ``noise_scale`` (``additive``, ``laplace``, ``geometric``; internal).

    Raises
    ------
    InputError
        As :func:`~microanon.methods.sdc.add_noise`; ``kim`` and ``multiplicative``, which need
        the whole table.
    """
    if method in ("kim", "multiplicative"):
        require_in_memory(method)
    if method not in NOISE_METHODS:
        raise InputError(f"method: expected one of {', '.join(NOISE_METHODS)}, got {method!r}")
    gaussian = check_noise_parameters(method, noise, epsilon, sensitivity)
    if gaussian:
        alpha = check_number(noise, "noise", 0)
    else:
        eps = check_number(epsilon, "epsilon", 0, low_open=True)
    schema = _as_schema(schema)
    reported = report_columns(schema) if reports else []
    with dask_client(client, scheduler) as run:
        frame = _source(source, schema.columns, read_options)
        encoding, cleaned = encode_dataset(
            frame, schema, [], run, progress, reported=reported, ids=person_ids
        )
        published = encoding.schema
        cols = select_columns(published, columns, (Kind.NUMERIC,), "add_noise")
        originals = tuple(original_names(cols, published.columns)) if reports else ()
        # (as numeric_matrix refuses them in memory, counted over the dataset)
        refuse_marked("add_noise", {c: encoding.marked.get(c, 0) for c in cols})
        plan: _Noise
        scale: dict[str, float] = {}
        if gaussian:
            n, _, cov = column_moments(cleaned, cols, run, progress)
            if n < 2:
                raise InputError(f"{method} noise needs at least 2 rows, got {n}")
            if method == "additive":
                sigma = alpha * np.sqrt(np.diag(cov))
                plan = _Noise(method, published.columns, cols, sigma=sigma, originals=originals)
                scale = dict(zip(cols, sigma.tolist(), strict=True))
            else:
                root = sqrt_psd(alpha * cov)
                plan = _Noise(method, published.columns, cols, root=root, originals=originals)
        else:
            if isinstance(sensitivity, Mapping):
                unknown = sorted(set(map(str, sensitivity)) - set(cols))
                absent = [c for c in cols if c not in sensitivity]
                if unknown or absent:
                    raise InputError(
                        "sensitivity: give one value per perturbed column "
                        + (
                            f"(unknown: {', '.join(unknown)})"
                            if unknown
                            else f"(missing: {absent[0]})"
                        )
                    )
                sens: Any = [sensitivity[c] for c in cols]
            else:
                sens = sensitivity
            delta = check_per_column(sens, len(cols), "sensitivity")
            plan = _Noise(
                method, published.columns, cols, epsilon=eps, sensitivity=delta, originals=originals
            )
            factor = np.exp(-eps / delta) if method == "geometric" else delta / eps
            scale = dict(zip(cols, factor.tolist(), strict=True))
    data = map_partitions_random(cleaned, _noise_partition, rng, plan)
    metadata = {
        "method": "add_noise",
        "parameters": {
            "method": method,
            "noise": noise,
            "epsilon": epsilon,
            "sensitivity": dict(sensitivity) if isinstance(sensitivity, Mapping) else sensitivity,
            "columns": cols,
        },
        "models": [],
        "quasi": list(published.quasi),
        "sensitive": list(published.sensitive),
        "masked_numeric": cols,
        **({"noise_scale": scale} if scale else {}),
    }
    return RowwiseRelease.masked(data, metadata, encoding, reported, originals)


# ---------------------------------------------------------------------- MRR
@dataclass(frozen=True)
class _MRR:
    layout: OneHotLayout
    theta: float
    clear: list[Hashable]


def _mrr_partition(part: pd.DataFrame, gen: np.random.Generator, plan: _MRR) -> pd.DataFrame:
    """One partition through MRR: one-hot bits, one coin per record, rows in random order."""
    names = plan.layout.bit_names()
    if len(part) == 0:
        out = pd.DataFrame({b: np.zeros(0, dtype=np.uint8) for b in names})
    else:
        bits = plan.layout.encode(part)
        order = flip_records(bits, plan.theta, gen)
        out = pd.DataFrame(bits[order].astype(np.uint8), columns=names)
        part = part.iloc[order]
    for c in plan.clear:
        out[c] = _text(part[c].reset_index(drop=True))
    return out


def mrr_dask(
    source: Any,
    columns: Sequence[Hashable],
    theta: float,
    *,
    clear: Sequence[Hashable] = (),
    rng: RandomLike = None,
    client: Any = None,
    scheduler: str | None = None,
    progress: ProgressLike = None,
    read_options: Mapping[str, Any] | None = None,
) -> RowwiseRelease:
    """Multivariate randomized response (MRR, a GTR baseline) on a dataset larger than memory.

    :func:`microanon.methods.randomize.mrr` out of core: one pass finds each column's domain
    (its sorted distinct values, as in memory) and refuses missing values; then every
    partition's records are one-hot encoded, kept or complemented as a whole with one coin per
    record, and put in random order, each partition with its own stream. Of the other baselines
    of the data-collection comparison, EPR and GTR depend on the records submitted before
    (refused: :func:`require_in_memory`) and LRKA and LD are local recoding.

    Parameters
    ----------
    source : path, glob or dask DataFrame
    columns, theta, clear
        As for :func:`~microanon.methods.randomize.mrr`.
    rng, client, scheduler, progress, read_options
        As for :func:`randomize_dask`.

    Returns
    -------
    RowwiseRelease
        The bit columns (``"column=value"``, 0/1) then the clear columns. Metadata as in memory:
        ``method`` = ``"mrr"``, ``parameters`` (θ, columns, clear) and ``mrr`` (θ and the
        domains; public).

    Raises
    ------
    InputError
        As :func:`~microanon.methods.randomize.mrr`.
    """
    theta = check_theta(theta)
    cols = [columns] if isinstance(columns, str) else list(columns)
    clear_cols = [clear] if isinstance(clear, str) else list(clear)
    if not cols:
        raise InputError("mrr: name at least one column to randomize")
    if len(set(cols)) != len(cols):
        raise InputError(f"mrr: a column is named twice in {cols}")
    both = [c for c in clear_cols if c in cols]
    if both:
        raise InputError(f"mrr: column(s) {both} are both randomized and in the clear")
    with dask_client(client, scheduler) as run:
        frame = _source(source, [*cols, *clear_cols], read_options)
        wanted = [frame[c].dropna().drop_duplicates(split_out=1) for c in cols]
        wanted += [frame[c].isna().sum() for c in cols] + [frame.map_partitions(len).sum()]
        found = run_stage(run, "domains", wanted, progress)
    if int(found[-1]) == 0:
        raise InputError("mrr is empty: there are no rows to work on")
    domains = []
    for c, values, missing in zip(cols, found[: len(cols)], found[len(cols) : -1], strict=True):
        if int(missing):
            raise InputError(
                f"column {c!r} has {int(missing)} missing value(s); fill them with an explicit "
                "value (a suppressed cell is '*') or drop those rows first"
            )
        one = pd.DataFrame({c: pd.Series(values).to_numpy()})
        domains.append(OneHotLayout.from_frame(one, [c], "mrr").domains[0])
    layout = OneHotLayout(tuple(cols), tuple(domains))
    plan = _MRR(layout, theta, clear_cols)
    data = map_partitions_random(frame[[*cols, *clear_cols]], _mrr_partition, rng, plan)
    metadata = {
        "method": "mrr",
        "parameters": {"theta": theta, "columns": cols, "clear": clear_cols},
        "models": [],
        "mrr": {"theta": theta, "domains": layout.to_metadata()},
    }
    rows = int(found[-1])  # (a missing value is refused: every row enters)
    counted = {"in_file": rows, "left_out": {}, "entering": rows, "unknown_sensitive": {}}
    return RowwiseRelease(data, metadata, (*ALWAYS_PUBLIC, "mrr"), rows=counted)
