"""Out-of-core anonymization with Dask: tables far larger than memory.

Full-domain generalization needs only the frequency table of the distinct combinations of the
quasi-identifiers (and the sensitive value): :func:`full_domain_dask` reads a Parquet or CSV
dataset, codes it in one pass, reduces it to that table, runs the exact search of
:func:`microanon.methods.generalize.full_domain` on it, writes the release (``public/`` and
``internal/``, as :meth:`Release.save`) partition by partition from the codes and verifies the
written files. See ``docs/scale.md``.
"""

from .blocks import BLOCK_ROWS, microaggregate_blocks
from .client import SCHEDULER_ENV, dask_client
from .encode import encode_dataset
from .encoding import Encoding
from .frequencies import FrequencyTable, code_frequencies, value_frequencies
from .full_domain import ScaleResult, full_domain_dask
from .read import read_dataset
from .rowwise import (
    ROWWISE_METHODS,
    WHOLE_TABLE_METHODS,
    RowwiseRelease,
    WrittenRelease,
    add_noise_dask,
    column_moments,
    map_partitions_random,
    mrr_dask,
    partition_streams,
    pram_dask,
    randomize_dask,
    randomized_response_dask,
    require_in_memory,
    write_rowwise,
)
from .verify import verify_written

__all__ = [
    "SCHEDULER_ENV",
    "Encoding",
    "FrequencyTable",
    "ScaleResult",
    "code_frequencies",
    "dask_client",
    "encode_dataset",
    "full_domain_dask",
    "read_dataset",
    "value_frequencies",
    "verify_written",
    # row-wise methods partition by partition; microaggregation within blocks
    "BLOCK_ROWS",
    "ROWWISE_METHODS",
    "WHOLE_TABLE_METHODS",
    "RowwiseRelease",
    "WrittenRelease",
    "add_noise_dask",
    "column_moments",
    "map_partitions_random",
    "microaggregate_blocks",
    "mrr_dask",
    "partition_streams",
    "pram_dask",
    "randomize_dask",
    "randomized_response_dask",
    "require_in_memory",
    "write_rowwise",
]
