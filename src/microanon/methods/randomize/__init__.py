"""Randomization against attribute disclosure: randomized response, PRAM, Warner, reconstruction.

:func:`optimal_parameters` chooses keep probabilities that minimize the expected squared error of
the reconstruction subject to a bound on every record's attribute-disclosure risk
(:func:`disclosure_risk`); :func:`randomized_response` applies them. Risk and parameters follow
Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based Microdata Release*,
Journal of Computing Science and Engineering 5(3):169–182, 2011 (Definition 1, Result 1,
Problem 1, Result 2).

:func:`randomize` publishes a table whose chosen attributes went through distortion matrices
(uniform retention or general PRAM), together with the matrices; :func:`reconstruct` estimates
the original distribution with standard errors, never forming the Kronecker product.

:func:`mrr` (multivariate randomized response: all of a record's one-hot bits kept or all
flipped) with :class:`MRRData` (estimated counts, conditional distributions, ID3 from estimated
counts) and :func:`epr` (eigenvector-based perturbation of collected records) are the
perturbation baselines of the data-collection comparison (MRR: Du & Zhan, *Using Randomized
Response Techniques for Privacy-Preserving Data Mining*, KDD 2003; EPR: after Zhang, Wang &
Zhao, *A New Scheme on Privacy-Preserving Data Classification*, KDD 2005).
"""

from .epr import epr, epr_decode, epr_vectors
from .matrices import (
    check_distortion,
    inverse_frobenius_sq,
    kron_apply,
    uniform_inverse,
    uniform_retention,
)
from .mrr import MRRData, mrr
from .optimal import OptimalParameters, cell_counts, optimal_parameters, optimal_parameters_from_pi
from .pram import invariant_matrix, pram
from .reconstruct import Reconstruction, reconstruct
from .release import randomize
from .response import randomized_response
from .risk import SCENARIOS, disclosure_risk, property1_minimum, reconstruction_probability
from .warner import warner, warner_estimate, warner_matrix

__all__ = [
    "SCENARIOS",
    "MRRData",
    "OptimalParameters",
    "Reconstruction",
    "cell_counts",
    "disclosure_risk",
    "epr",
    "epr_decode",
    "epr_vectors",
    "mrr",
    "optimal_parameters",
    "optimal_parameters_from_pi",
    "property1_minimum",
    "randomized_response",
    "reconstruction_probability",
    "check_distortion",
    "invariant_matrix",
    "inverse_frobenius_sq",
    "kron_apply",
    "pram",
    "randomize",
    "reconstruct",
    "uniform_inverse",
    "uniform_retention",
    "warner",
    "warner_estimate",
    "warner_matrix",
]
