"""Out of core, the written rows put in an order that says nothing about the input's.

The out-of-core writers write one Parquet file per partition of the input, and a partition is
a stretch of the input file: the file a published row is in would tell which stretch of the
input it comes from. On an input sorted by a column, each file would hold the records of one
range of it, and the rows of an equivalence class would be told apart by their file (a class
of five records split over five files is five single records to anyone who knows where in the
input each person is). :func:`order_parts` therefore rewrites the files before they are
verified:

1. every row of every file is sent to an output file drawn uniformly at random, independently
   of every other row (each file of the input splits into one piece per output file);
2. each output file is merged from its pieces and its rows sorted by their values (column
   after column, a missing value after every other value of its column), as
   :mod:`microanon.core.record_order` sorts a table in memory.

Which file a row lands in is random and its place in the file is a function of the values
alone, so neither depends on where the record was in the input. The randomness comes from the
operating system's entropy and is not recorded. Each pass reads and writes every row once, a
file (or a piece) at a time on each worker.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ..core.progress import ProgressLike
from ..core.record_order import order_of_ranks, value_ranks
from .client import wait_stage
from .read import read_text_coded
from .release_files import part_files, write_part

__all__ = ["ORDER_STAGES", "ORDER_WORK", "order_parts", "sorted_by_values"]

#: The stages :func:`order_parts` reports.
ORDER_STAGES = ("rows to files drawn at random", "each file sorted by value")
#: The temporary folder of the pieces, inside the release being built (removed at the end).
ORDER_WORK = ".order"


def _ranks(column: pa.ChunkedArray) -> tuple[np.ndarray, int]:
    """Per row, the rank of its value among the column's distinct values (a missing value
    after every value): from its dictionary's codes, the dictionary put in order."""
    if pa.types.is_null(column.type):  # (nothing but missing values)
        return np.zeros(len(column), dtype=np.intp), 1
    coded = column if pa.types.is_dictionary(column.type) else column.dictionary_encode()
    coded = coded.unify_dictionaries() if coded.num_chunks > 1 else coded
    chunks = coded.chunks or [pa.array([], coded.type)]
    codes = np.concatenate(
        [c.indices.fill_null(-1).to_numpy(zero_copy_only=False) for c in chunks]
    ).astype(np.intp, copy=False)
    uniques = chunks[0].dictionary.to_numpy(zero_copy_only=False)
    return value_ranks(codes, uniques)


def sorted_by_values(table: pa.Table) -> pa.Table:
    """``table``'s rows sorted by their values: by the first column, then the second, ...; a
    missing value after every other value of its column (as
    :func:`~microanon.core.record_order.value_order` sorts a table in memory, from each
    column's dictionary codes)."""
    order = order_of_ranks(table.num_rows, (_ranks(c) for c in table.columns))
    return table if order is None else table.take(pa.array(order))


def _split(path: str, seed: np.random.SeedSequence, parts: int, prefix: str) -> list[int]:
    """Send each row of the file at ``path`` to one of ``parts`` pieces at random; write the
    non-empty pieces (``prefix.B.arrow``, Arrow files: read once, soon) and remove the file
    (one part: the file is the piece, moved). Returns each piece's rows."""
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    if parts == 1:
        rows = pq.ParquetFile(path).metadata.num_rows
        Path(path).rename(f"{prefix}.0.parquet")
        return [rows]
    table = read_text_coded(path)
    target = np.random.default_rng(seed).integers(0, parts, size=table.num_rows)
    small = target.astype(np.uint16) if parts <= 1 << 16 else target  # (a radix sort)
    by_target = np.argsort(small, kind="stable")
    sizes = np.bincount(target, minlength=parts)
    start = 0
    for b, size in enumerate(sizes.tolist()):
        if size:
            piece = table.take(pa.array(by_target[start : start + size]))
            feather.write_feather(piece, f"{prefix}.{b}.arrow", compression="uncompressed")
        start += size
    Path(path).unlink()
    return sizes.tolist()


def _read_piece(path: Path) -> pa.Table:
    import pyarrow.feather as feather

    if path.suffix == ".parquet":
        return read_text_coded(path)
    return feather.read_table(path, memory_map=False)


def _merge(pieces: list[str], path: str, schema: pa.Schema) -> int:
    """Write the rows of ``pieces`` to ``path``, sorted by their values; remove the pieces.
    Returns the rows written."""

    tables = [_read_piece(Path(p)) for p in pieces]
    table = pa.concat_tables(tables) if tables else schema.empty_table()
    # the schema the writers wrote (text read as dictionaries here reads back as plain columns)
    write_part(sorted_by_values(table), path, schema)
    for p in pieces:
        Path(p).unlink()
    return table.num_rows


def order_parts(run: Any, root: Path, progress: ProgressLike) -> list[int]:
    """Rewrite the ``part.N.parquet`` files of the dataset at ``root`` as the module says.

    Parameters
    ----------
    run : distributed.Client
    root : Path
        The written dataset (one file per partition) at ``public/data.parquet`` of the release
        being built; the files keep their names and number. The pieces go to
        :data:`ORDER_WORK` beside ``public/``, removed at the end.
    progress : Progress, bool, str or None
        As for :func:`~microanon.scale.client.wait_stage`.

    Returns
    -------
    list of int
        The rows of each file, in file order.
    """
    import pyarrow.parquet as pq

    files = part_files(root)
    if not files:
        return []
    n = len(files)
    schema = pq.read_schema(files[0])
    work = root.parent.parent / ORDER_WORK
    work.mkdir()
    seeds = np.random.SeedSequence().spawn(n)  # (operating-system entropy, never recorded)
    splits = [
        run.submit(_split, str(f), s, n, str(work / str(i)), pure=False)
        for i, (f, s) in enumerate(zip(files, seeds, strict=True))
    ]
    merges = []
    with_sizes = wait_stage(run, ORDER_STAGES[0], splits, progress)
    suffix = ".parquet" if n == 1 else ".arrow"
    for b in range(n):
        pieces = [str(work / f"{i}.{b}{suffix}") for i in range(n) if with_sizes[i][b]]
        merges.append(
            run.submit(_merge, pieces, str(root / f"part.{b}.parquet"), schema, pure=False)
        )
    rows = wait_stage(run, ORDER_STAGES[1], merges, progress)
    shutil.rmtree(work)
    return [int(r) for r in rows]
