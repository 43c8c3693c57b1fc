"""The randomization family in the applications: report and demo sections of randomized
releases and the reproduction of Guo, Ying & Wu's experiments (:mod:`microanon.methods.randomize`).
"""

from ..family import Family, Reproduction

FAMILY = Family(
    name="randomize",
    title="randomized response and PRAM against attribute disclosure",
    kinds=("randomized",),
    demo=True,
    reproduction=Reproduction(
        command="randomization",
        runner="run_randomization",
        summary="Guo, Ying & Wu's randomized-response experiments E0.1-E0.7 on UCI Adult.",
        quick="Reduced grid (R = 1, fewer l and sizes): under a minute.",
    ),
)
