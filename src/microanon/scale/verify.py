"""Verify a written release out of core: its frequency table, checked by the models' own code.

The frequency table of the written files is computed on the cluster and handed to
:func:`microanon.models.frequencies.check_frequencies`, the very code that checks a release read
back in memory (:func:`microanon.models.verify_written`): the same classes, values and verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.progress import ProgressLike
from ..measures.weight_classes import weight_classes
from ..models import Frequencies, Groups, PrivacyModel, Verdict, check_frequencies
from .client import wait_stage
from .encode import Encoded, merge_counted, union_codes
from .frequencies import (
    SPLIT_EVERY,
    FrequencyTable,
    count_combinations,
    global_partial,
    tree_reduce,
    unpack_keys,
    value_frequencies,
)
from .read import read_dataset, read_text_coded

__all__ = [
    "count_files",
    "file_counts",
    "groups_of",
    "project_counts",
    "verify_files",
    "verify_written",
]


def groups_of(
    table: FrequencyTable, quasi: Sequence[str], sensitive: str | None, numeric: bool = False
) -> Groups:
    """The equivalence classes of a frequency table of values, weighted by its counts (an
    unknown sensitive value counts toward no sensitive statistic, as in memory)."""
    codes, cards, dictionaries = [], [], []
    for q in quasi:
        c, uniques = pd.factorize(pd.Series(table.codes[q], dtype=object))
        if np.any(c < 0):
            raise InputError(f"column {q!r} of the release has missing values")
        codes.append(c)
        cards.append(len(uniques))
        dictionaries.append(list(uniques))
    if sensitive is None:
        return Groups.from_codes(
            tuple(quasi), codes, cards, weights=table.counts, dictionaries=dictionaries
        )
    # a missing sensitive value (kept empty, missing: keep) is unknown: code -1
    sa, values = pd.factorize(pd.Series(table.codes[sensitive], dtype=object), sort=True)
    return Groups.from_codes(
        tuple(quasi),
        codes,
        cards,
        sensitive=sensitive,
        sa_codes=sa,
        values=list(values),
        numeric=numeric,
        weights=table.counts,
        dictionaries=dictionaries,
    )


def verify_written(
    path: str | Path,
    quasi: Sequence[str],
    sensitive: str | None,
    models: Sequence[PrivacyModel],
    client: Any,
    progress: ProgressLike = None,
) -> tuple[list[Verdict], int]:
    """Check every model on the Parquet dataset at ``path``.

    The dataset is read back, its frequency table over the quasi-identifiers (and the sensitive
    column, when a model needs it) computed with a tree reduction, and every model checked on
    the classes of that table by :func:`~microanon.models.frequencies.check_frequencies`, as
    :func:`microanon.models.check_release` checks a release in memory (records published with
    every quasi-identifier ``"*"`` form one class like any other).

    Returns
    -------
    verdicts : list of Verdict
        One per model, in order.
    rows : int
        Records in the written dataset.

    Raises
    ------
    InputError
        The dataset holds no record, or missing values in a checked column.
    """
    needs = sensitive if any(m.needs_sensitive for m in models) else None
    columns = list(quasi) + ([needs] if needs is not None else [])
    frame = read_dataset(path, columns=columns)
    table = value_frequencies(frame, columns, client, progress)
    dtypes = frame.dtypes
    combinations = pd.DataFrame(
        {c: pd.Series(table.codes[c]).astype(dtypes[c]) for c in columns}, columns=columns
    )
    return _checked(Frequencies(combinations, table.counts), quasi, needs, models)


def _checked(
    frequencies: Frequencies,
    quasi: Sequence[str],
    sensitive: str | None,
    models: Sequence[PrivacyModel],
) -> tuple[list[Verdict], int]:
    """The models checked on the frequency table of a written dataset, and its records."""
    if frequencies.records == 0:
        raise InputError("the release publishes no unsuppressed record")
    return check_frequencies(frequencies, models, quasi, quasi, sensitive), frequencies.records


def file_counts(path: str, columns: Sequence[str], weight: str | None = None) -> Encoded:
    """The local frequency table of ``columns`` in one written Parquet file.

    Text columns are read dictionary-encoded (as the writer stored them), so no value is built
    per record. ``weight``, one of ``columns``, is counted by the class of each record's weight
    with the sums of the usable ones (:mod:`microanon.measures.weight_classes`).
    """
    import pyarrow as pa

    table = read_text_coded(path, columns).unify_dictionaries()
    codes, uniques, cards, sums = [], {}, [], {}
    for c in columns:
        col = table.column(c)
        if c == weight:
            classes, sums = weight_classes(col.to_pandas())
            code, values = pd.factorize(classes)
        elif pa.types.is_dictionary(col.type) and col.null_count == 0:
            # the stored dictionary codes the column already: no value built per record
            col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
            code = col.indices.to_numpy(zero_copy_only=False).astype(np.int64)
            values = col.dictionary.to_numpy(zero_copy_only=False)
        else:
            code, values = pd.factorize(col.to_pandas(), use_na_sentinel=False)
        codes.append(code)
        uniques[c] = np.asarray(values, dtype=object) if values.dtype.kind not in "biuf" else values
        cards.append(len(values))
    combos, counts, rows = count_combinations(codes, cards, inverse=bool(sums))
    summed = {k: np.bincount(rows, weights=v, minlength=len(counts)) for k, v in sums.items()}
    return Encoded(
        table.num_rows, uniques, dict(zip(columns, combos, strict=True)), counts, sums=summed
    )


def count_files(
    paths: Sequence[str | Path],
    columns: Sequence[str],
    client: Any,
    progress: ProgressLike = None,
    weight: str | None = None,
) -> FrequencyTable:
    """The combinations of ``columns`` in written Parquet files, in order of first appearance
    (the files in the order given), with their records.

    Each file is read (those columns only, text as its dictionary codes) and reduced to its
    frequency table where it lies (:func:`file_counts`); the tables are merged in file order
    (:func:`~microanon.scale.encode.merge_counted`): the table of the files read back one after
    the other, as :meth:`microanon.core.release.Release.load` reads them, grouped. ``weight``,
    one of ``columns``, is counted by class with its sums.
    """
    columns = list(columns)
    files = [client.submit(file_counts, str(p), columns, weight, pure=False) for p in paths]
    parts = wait_stage(client, "read back", files, progress)
    return merge_counted(parts, columns)


def project_counts(part: Encoded, columns: Sequence[str]) -> Encoded:
    """A file's (or partition's) frequency table on fewer ``columns``: their combinations,
    counts summed, in order of first appearance."""
    columns = list(columns)
    combos, counts, _ = count_combinations(
        [part.combos[c] for c in columns], [len(part.uniques[c]) for c in columns], part.counts
    )
    return Encoded(
        part.rows,
        {c: part.uniques[c] for c in columns},
        dict(zip(columns, combos, strict=True)),
        counts,
    )


def verify_files(
    paths: Sequence[str],
    quasi: Sequence[str],
    sensitive: str | None,
    models: Sequence[PrivacyModel],
    client: Any,
    progress: ProgressLike = None,
    split_every: int = SPLIT_EVERY,
    counted: Sequence[str] = (),
    weight: str | None = None,
) -> tuple[list[Verdict], int, FrequencyTable | None]:
    """Check every model on written Parquet files, as :func:`verify_written` does.

    Each file is read back (only the checked columns, and ``counted``) and reduced to its
    frequency table on the worker; the tables are merged up a tree on the cluster, in file
    order, so that the combinations stay in the order of their first appearance in the files, as
    :func:`microanon.models.frequencies.frequencies_of` orders those of the table read back in
    memory. ``sensitive`` is the sensitive column when a model needs it.

    Returns
    -------
    verdicts : list of Verdict
    rows : int
        Records in the files.
    table : FrequencyTable or None
        With ``counted``: the files' combinations of those columns (values), in order of first
        appearance (:func:`~microanon.scale.encode.merge_counted`), from the same read; the
        sampling weight ``weight`` among them counted by class, with its sums.
    """
    columns = list(quasi) + ([sensitive] if sensitive is not None else [])
    read = list(dict.fromkeys([*counted, *columns]))
    files = [client.submit(file_counts, str(p), read, weight, pure=False) for p in paths]
    parts = files
    if read != columns:
        parts = [client.submit(project_counts, f, columns, pure=False) for f in files]
    summaries = wait_stage(
        client,
        "read back",
        [client.submit(Encoded.summary, p, pure=False) for p in parts],
        progress,
    )
    values, maps = {}, [{} for _ in summaries]
    for c in columns:
        values[c], positions = union_codes([s.uniques[c] for s in summaries])
        for m, codes in zip(maps, positions, strict=True):
            m[c] = codes
    cards = [len(values[c]) for c in columns]
    partial = [
        client.submit(global_partial, p, m, columns, cards, pure=False)
        for p, m in zip(parts, maps, strict=True)
    ]
    reduced = [tree_reduce(client, partial, cards, split_every)]
    (merged,) = wait_stage(client, "frequency table of the written files", reduced, progress)
    combos, counts = merged
    codes = unpack_keys(combos, cards) if isinstance(combos, np.ndarray) else combos
    combinations = pd.DataFrame(
        {c: values[c][code] for c, code in zip(columns, codes, strict=True)}, columns=columns
    )
    frequencies = Frequencies(combinations, np.asarray(counts, dtype=np.int64))
    verdicts, rows = _checked(frequencies, quasi, sensitive, models)
    table = merge_counted(client.gather(files), read) if counted else None
    return verdicts, rows, table
