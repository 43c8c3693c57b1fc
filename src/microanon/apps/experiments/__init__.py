"""Reproductions of the source papers' experiments (``microanon reproduce ...``).

:func:`run_randomization` reproduces Guo, Ying & Wu's randomized-response experiments
(papers.md §1.11) and writes an HTML report with the paper's tables and figures and a JSON file
with every number.
"""

from .randomization import run_randomization

__all__ = ["run_randomization"]
