"""The multiple-sensitive-attribute family in the applications: report and demo sections of
mixed-model and Rating releases (:mod:`microanon.methods.multisa`). Yi & Shi's experiments
(Mathematical Problems in Engineering 2015) are reproduced in
:mod:`microanon.reproductions.multisa`."""

from ..family import Family

FAMILY = Family(
    name="multisa",
    title="multiple sensitive attributes with strong association rules",
    kinds=("multi-sa",),
    demo=True,
)
