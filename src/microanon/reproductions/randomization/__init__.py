"""Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based Microdata Release*
(Journal of Computing Science and Engineering 5(3), 2011): experiments E0.1–E0.7 on two variants
of UCI Adult (``microanon reproduce randomization``; docs/reproduce-randomization.md)."""

from microanon.reproductions.paper import Paper

PAPER = Paper(
    command="randomization",
    summary="Guo, Ying & Wu's randomized-response experiments E0.1-E0.7 on UCI Adult.",
    quick="Reduced grid (R = 1, fewer l and sizes): under a minute.",
)
