"""Zhang & Zhang, *Generalization-Based Privacy-Preserving Data Collection* (DaWaK 2008):
experiments E1.1–E1.3 on Adult and Nursery, GTR run through the real collection service
(``microanon reproduce collection``; docs/reproduce-collection.md)."""

from microanon.reproductions.paper import Paper

PAPER = Paper(
    command="collection",
    summary="Zhang & Zhang's data-collection experiments E1.1-E1.3 on Adult and Nursery (GTR "
    "through the real service over HTTP, MRR, EPR, LRKA, LD).",
    quick="Reduced plan (800 respondents per data set, two tau, fewer baseline parameters): "
    "~1 min.",
)
