"""Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata Anonymization* (PVLDB 2(1),
2009): experiments E4.1–E4.12 on Adult's capital-loss records and synthetic tables
(``microanon reproduce distribution``; docs/reproduce-distribution.md)."""

from microanon.reproductions.paper import Paper

PAPER = Paper(
    command="distribution",
    summary="Koudas et al.'s distribution-based anonymization experiments E4.1-E4.12.",
    quick="Reduced grid (smaller synthetic data, fewer widths and targets): seconds.",
)
