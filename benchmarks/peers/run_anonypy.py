"""anonypy's Mondrian on one benchmark job; see _job.py.

anonypy (``Preserver``) partitions like Mondrian without hierarchies: a numeric column is cut at
its median, a categorical one (pandas ``category``) into the first and second half of its
distinct values in order of appearance; a cut is kept when both halves pass ``k`` (size),
``l`` (distinct sensitive values) and ``p`` (its t-closeness test). It publishes one row per
(partition, sensitive value) with a ``count``: numeric columns as ``"min-max"``, categorical ones
as the comma-joined set of values. The runner expands those rows by their count into the
anonymized table. No record suppression; no entropy ℓ-diversity.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from _job import load_job, read_data, report, timed, unsupported, version, write_output
from anonypy import Preserver
from anonypy.anonypy import anonymize


def main() -> None:
    job = load_job()
    if job["suppression"] > 0:
        unsupported("anonypy", "no record suppression")
    if job["model"] == "l-entropy":
        unsupported("anonypy", "distinct l-diversity only")
    quasi, sens = job["quasi"], job["sensitive"]
    data = read_data(job)[[*quasi, sens]]
    for c in [*quasi, sens]:
        data[c] = data[c].astype(int) if c in job["numeric"] else data[c].astype("category")
    k, ell, p = job.get("k", 1), 0, 0.0
    if job["model"] == "l-distinct":
        ell = job["l"]
    elif job["model"] == "t":
        p = job["t"]

    def run() -> tuple[list, list]:
        mondrian = Preserver(data, quasi, sens).modrian  # (sic)
        partitions = mondrian.partition(k, ell, p)
        return partitions, anonymize(data, partitions, quasi, sens)

    (partitions, rows), wall, cpu = timed(run)
    grouped = pd.DataFrame(rows)
    out = grouped.loc[np.repeat(np.arange(len(grouped)), grouped["count"].to_numpy())]
    write_output(job, out, [*quasi, sens])
    report(
        peer="anonypy",
        version=version("anonypy"),
        algorithm="Mondrian (median / half-of-values cuts, no hierarchies)",
        wall=wall,
        cpu=cpu,
        rows_out=len(out),
        partitions=len(partitions),
    )


if __name__ == "__main__":
    main()
