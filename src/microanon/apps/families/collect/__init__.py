"""The collection family in the applications: the demo's collection over the real service
(:mod:`microanon.methods.collect`). It writes no release: its product is the collected set (the
service is :mod:`microanon.apps.server`). Zhang & Zhang's experiments (DaWaK 2008) are reproduced
in :mod:`microanon.reproductions.collection`."""

from ..family import Family

FAMILY = Family(
    name="collect",
    title="respondent-side generalization for data collection (GTR)",
    demo=True,
)
