"""The randomization family in the applications: report and demo sections of randomized
releases (:mod:`microanon.methods.randomize`). Guo, Ying & Wu's experiments (JCSE 2011) are
reproduced in :mod:`microanon.reproductions.randomization`."""

from ..family import Family

FAMILY = Family(
    name="randomize",
    title="randomized response and PRAM against attribute disclosure",
    kinds=("randomized",),
    demo=True,
)
