"""Reproductions of the source papers' experiments (``microanon reproduce ...``).

:func:`run_randomization` reproduces Guo, Ying & Wu's randomized-response experiments
(papers.md §1.11) and writes an HTML report with the paper's tables and figures and a JSON file
with every number; :func:`run_distribution` does the same for the distribution-based
anonymization experiments E4.1–E4.12 (papers.md §5.6) and :func:`run_multisa` for the
multiple-sensitive-attribute experiments E2.1–E2.8 (papers.md §3.8); :func:`run_collection` runs
the data-collection experiments E1.1–E1.3 (papers.md §2.9) through the real collection service.
"""

from .collection import run_collection
from .distribution import run_distribution
from .multisa import run_multisa
from .randomization import run_randomization

__all__ = ["run_collection", "run_distribution", "run_multisa", "run_randomization"]
