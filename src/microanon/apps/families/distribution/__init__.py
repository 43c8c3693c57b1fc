"""The distribution-based family in the applications: report and demo sections of
distribution-based releases and the reproduction of Koudas et al.'s experiments
(:mod:`microanon.methods.distribution`)."""

from ..family import Family, Reproduction

FAMILY = Family(
    name="distribution",
    title="distribution-based anonymization of the sensitive attribute",
    kinds=("distribution",),
    demo=True,
    reproduction=Reproduction(
        command="distribution",
        runner="run_distribution",
        summary="Koudas et al.'s distribution-based anonymization experiments E4.1-E4.12.",
        quick="Reduced grid (smaller synthetic data, fewer widths and targets): seconds.",
    ),
)
