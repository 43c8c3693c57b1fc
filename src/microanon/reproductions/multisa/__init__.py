"""Yi & Shi, *Privacy Protection Method for Multiple Sensitive Attributes Based on Strong Rule*
(Mathematical Problems in Engineering, 2015): experiments E2.1–E2.8 on UCI Adult
(``microanon reproduce multisa``; docs/reproduce-multisa.md)."""

from microanon.reproductions.paper import Paper

PAPER = Paper(
    command="multisa",
    summary="Yi & Shi's multiple-sensitive-attribute experiments E2.1-E2.8 on UCI Adult.",
    quick="Reduced grid (4 sensitive attributes, l = 2, 3): seconds.",
)
