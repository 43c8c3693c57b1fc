"""The generalization family in the applications: report and demo sections of full-domain
generalization, Mondrian, local recoding, SafePub and Anatomy
(:mod:`microanon.methods.generalize`)."""

from ..family import Family

FAMILY = Family(
    name="generalize",
    title="k-anonymity, ℓ-diversity and t-closeness by generalization and bucketization",
    kinds=("generalized", "anatomized"),
    demo=True,
)
