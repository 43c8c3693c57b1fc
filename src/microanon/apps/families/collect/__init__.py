"""The collection family in the applications: the demo's collection over the real service and
the reproduction of Zhang & Zhang's experiments (:mod:`microanon.methods.collect`). It writes no
release: its product is the collected set (the service is :mod:`microanon.apps.server`)."""

from ..family import Family, Reproduction

FAMILY = Family(
    name="collect",
    title="respondent-side generalization for data collection (GTR)",
    demo=True,
    reproduction=Reproduction(
        command="collection",
        runner="run_collection",
        summary="Zhang & Zhang's data-collection experiments E1.1-E1.3 on Adult and Nursery (GTR "
        "through the real service over HTTP, MRR, EPR, LRKA, LD).",
        quick="Reduced plan (800 respondents per data set, two tau, fewer baseline parameters): "
        "~1 min.",
    ),
)
