"""The multiple-sensitive-attribute family in the applications: report and demo sections of
mixed-model and Rating releases and the reproduction of Yi & Shi's experiments
(:mod:`microanon.methods.multisa`)."""

from ..family import Family, Reproduction

FAMILY = Family(
    name="multisa",
    title="multiple sensitive attributes with strong association rules",
    kinds=("multi-sa",),
    demo=True,
    reproduction=Reproduction(
        command="multisa",
        runner="run_multisa",
        summary="Yi & Shi's multiple-sensitive-attribute experiments E2.1-E2.8 on UCI Adult.",
        quick="Reduced grid (4 sensitive attributes, l = 2, 3): seconds.",
    ),
)
