"""The distribution-based family in the applications: report and demo sections of
distribution-based releases (:mod:`microanon.methods.distribution`). Koudas et al.'s experiments
(PVLDB 2009) are reproduced in :mod:`microanon.reproductions.distribution`."""

from ..family import Family

FAMILY = Family(
    name="distribution",
    title="distribution-based anonymization of the sensitive attribute",
    kinds=("distribution",),
    demo=True,
)
