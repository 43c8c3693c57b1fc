"""anjana (the pycanon team's anonymization library) on one benchmark job; see _job.py.

anjana generalizes greedily with the given hierarchies: while the model fails, it raises by one
level the quasi-identifier with the most distinct values (Datafly's rule), trying to suppress the
failing classes within ``supp_level`` percent first (k-anonymity and distinct ℓ-diversity only).
Models: ``k_anonymity``, ``l_diversity`` (distinct), ``entropy_l_diversity`` and ``t_closeness``
(each of the last three after k-anonymity with ``k = 1`` here).
"""

from __future__ import annotations

from _job import load_job, read_data, read_hierarchy, report, timed, version, write_output
from anjana.anonymity import (
    entropy_l_diversity,
    k_anonymity_inner,
    l_diversity,
    t_closeness,
)
from anjana.anonymity.utils import utils


def main() -> None:
    job = load_job()
    data = read_data(job)
    quasi, sens = job["quasi"], job["sensitive"]
    data = data[[*quasi, sens]]
    hierarchies = {}
    for q in quasi:
        h = read_hierarchy(job["hierarchies"][q])
        hierarchies[q] = {i: h[i].to_numpy() for i in h.columns}
    supp = 100.0 * job["suppression"]  # anjana takes a percentage
    model = job["model"]
    if model == "k":
        (out, _, _), wall, cpu = timed(
            lambda: k_anonymity_inner(data, [], quasi, job["k"], supp, hierarchies)
        )
    else:
        fn = {"l-distinct": l_diversity, "l-entropy": entropy_l_diversity, "t": t_closeness}[model]
        param = job["t"] if model == "t" else job["l"]
        out, wall, cpu = timed(lambda: fn(data, [], quasi, sens, 1, param, supp, hierarchies))
    levels = None
    if len(out):
        levels = "".join(str(v) for v in utils.get_transformation(out, quasi, hierarchies))
    write_output(job, out, [*quasi, sens])
    report(
        peer="anjana",
        version=version("anjana"),
        algorithm="greedy full-domain generalization (hierarchies) + suppression",
        wall=wall,
        cpu=cpu,
        rows_out=len(out),
        levels=levels,
    )


if __name__ == "__main__":
    main()
