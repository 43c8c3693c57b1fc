"""The SDC masking family in the applications: report and demo sections of masked releases
(:mod:`microanon.methods.sdc`)."""

from ..family import Family

FAMILY = Family(
    name="sdc",
    title="statistical disclosure control masking",
    kinds=("masked",),
    demo=True,
)
