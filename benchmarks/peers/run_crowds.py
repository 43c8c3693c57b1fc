"""crowds' OLA (El Emam et al. 2009: optimal lattice anonymization) on one benchmark job.

See _job.py. crowds searches the full-domain lattice for the k-minimal nodes by binary search
along generalization strategies, then picks the one of least loss (its default ``prec_loss``:
the sum of level / height over the quasi-identifiers); it suppresses the classes below k, up to
``max_sup`` percent of the records. k-anonymity only. A ``GenRule`` gets one function per level
above the leaves; crowds adds a last level of its own that publishes ``None``, used here as the
ARX hierarchies' top level ``*`` (so the lattice is the same as microanon's) and written as
``*``.
"""

from __future__ import annotations

from _job import (
    load_job,
    read_data,
    read_hierarchy,
    report,
    timed,
    unsupported,
    version,
    write_output,
)
from crowds.kanonymity import ola
from crowds.kanonymity.generalizations import GenRule


def _rule(path: str) -> GenRule:
    h = read_hierarchy(path)
    levels = [dict(zip(h[0], h[i], strict=True)).get for i in range(1, h.shape[1] - 1)]
    return GenRule(levels)


def main() -> None:
    job = load_job()
    if job["model"] != "k":
        unsupported("crowds", "k-anonymity only")
    quasi, sens = job["quasi"], job["sensitive"]
    data = read_data(job)[[*quasi, sens]]
    rules = {q: _rule(job["hierarchies"][q]) for q in quasi}
    checks = 0
    check = ola._check_kanonymity

    def counted(*args):  # count the nodes whose k-anonymity crowds evaluates
        nonlocal checks
        checks += 1
        return check(*args)

    ola._check_kanonymity = counted
    result, wall, cpu = timed(
        lambda: ola.anonymize(data, rules, k=job["k"], max_sup=100.0 * job["suppression"])
    )
    if result is None:
        write_output(job, data.iloc[:0], [*quasi, sens])
        report(peer="crowds", version=version("crowds"), wall=wall, cpu=cpu, rows_out=0)
        return
    out, state = result
    out = out.fillna("*")
    write_output(job, out, [*quasi, sens])
    report(
        peer="crowds",
        version=version("crowds"),
        algorithm="OLA, loss prec_loss",
        wall=wall,
        cpu=cpu,
        rows_out=len(out),
        levels="".join(str(state[q]) for q in quasi),
        nodes=checks,
    )


if __name__ == "__main__":
    main()
