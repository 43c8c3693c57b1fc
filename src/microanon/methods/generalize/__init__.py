"""The syntactic baselines: k-anonymity, ℓ-diversity and t-closeness by generalization and
suppression, and bucketization; and differential privacy by sampling and generalization.

* :func:`full_domain` — optimal full-domain generalization with suppression (the lattice search
  of :func:`search`, returning a :class:`SearchResult`).
* :func:`mondrian` — multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan, ICDE 2006).
* :func:`local_recoding` — cell-level generalization of each class on its own.
* :func:`safepub` — SafePub (Bild, Kuhn & Prasser, PoPETs 2018): (ε, δ)-differential privacy by
  sampling, a full-domain generalization chosen with the exponential mechanism, and suppression
  of the classes of fewer than k records; :func:`dp_parameters` derives k and the sampling
  probability from (ε, δ).
* :func:`anatomy` — Anatomy's bucketization (Xiao & Tao, VLDB 2006): exact quasi-identifiers
  and sensitive values in separate tables, linked by group (release kind ``anatomized``).
* :class:`Anonymizer` — a full-domain generalization (or a fixed SDC recoding) fitted on one
  table and applied, with the same models and suppression rule, to the next; saved to and loaded
  from a JSON file.

The generalizing methods write releases of kind ``generalized``; every claimed model is
re-checked on the published table.
"""

from .anatomy import anatomy
from .anonymizer import Anonymizer
from .dp_sampling import dp_parameters, safepub
from .full_domain import SearchResult, full_domain, search
from .local_recoding import local_recoding
from .mondrian import mondrian

__all__ = [
    "Anonymizer",
    "SearchResult",
    "anatomy",
    "dp_parameters",
    "full_domain",
    "local_recoding",
    "mondrian",
    "safepub",
    "search",
]
