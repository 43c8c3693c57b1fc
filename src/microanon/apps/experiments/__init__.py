"""Reproductions of the source papers' experiments (``microanon reproduce ...``).

:func:`run_randomization` reproduces Guo, Ying & Wu's randomized-response experiments (Tables 3–5,
Figs. 3–7) and writes an HTML report with the paper's tables and figures and a JSON file with every
number; :func:`run_distribution` does the same for the distribution-based anonymization experiments
E4.1–E4.12 of Koudas et al. (PVLDB 2009, Figs. 5–13) and :func:`run_multisa` for Yi & Shi's
multiple-sensitive-attribute experiments E2.1–E2.8 (Mathematical Problems in Engineering 2015, Figs.
1–11); :func:`run_collection` runs Zhang & Zhang's data-collection experiments E1.1–E1.3 (DaWaK
2008, Figs. 5–6) through the real collection service. The experiment labels (E0.1, E1.1, ...) are
ours; the documents docs/reproduce-*.md map each to the paper's tables and figures.
"""

from .collection import run_collection
from .distribution import run_distribution
from .multisa import run_multisa
from .randomization import run_randomization

__all__ = ["run_collection", "run_distribution", "run_multisa", "run_randomization"]
