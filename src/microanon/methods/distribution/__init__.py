"""Distribution-based anonymization: generalize and permute the sensitive values of each group so
that every tuple's sensitive value appears to follow a target distribution P.

Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata Anonymization*, PVLDB
2(1):958–969, 2009. Algorithm, problem and definition numbers below are theirs.

* :class:`AnnotatedHierarchy` — privacy-annotated hierarchies from a target distribution.
* :func:`min_sum_of_range` — the optimal P-private generalization of a group (Algorithm 1);
  :func:`materialize` and :func:`assign` — its bijection and the random pairing with tuples.
* :func:`min_sor_fake` — the optimal fake values for a budget ``t`` (Problem 5.1).
* :func:`distribution_anonymize` — the release: exact quasi-identifiers plus a P-private multiset
  of sensitive subdomains per group.
"""

from .fakes import FakeGeneralization, fake_budget, min_sor_fake
from .hierarchy import AnnotatedHierarchy, sensitive_domain, target_weights
from .min_sum_of_range import Generalization, allocate, assign, materialize, min_sum_of_range
from .release import distribution_anonymize

__all__ = [
    "AnnotatedHierarchy",
    "FakeGeneralization",
    "Generalization",
    "allocate",
    "assign",
    "distribution_anonymize",
    "fake_budget",
    "materialize",
    "min_sor_fake",
    "min_sum_of_range",
    "sensitive_domain",
    "target_weights",
]
