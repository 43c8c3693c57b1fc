"""Privacy-preserving data collection: respondent-side generalization (GTR).

L. Zhang & W. Zhang, *Generalization-Based Privacy-Preserving Data Collection*, DaWaK 2008.
Equation, definition, theorem and figure numbers below are theirs.

Respondents submit generalized tuples one at a time; each computes, from the tuples collected so
far, the least-loss generalization that keeps the distribution attack's estimate of their
sensitive value uncertain enough (``Pv ≥ τ``), or abstains.

* :class:`Survey` — the attributes and their taxonomies (leaf weights, codes, loss);
  :class:`Taxonomy` — one attribute's tables.
* :class:`CollectedSet` — the collected multiset as incremental tuple–count pairs, with the index
  and bit-packed encodings (:meth:`CollectedSet.to_bytes`).
* :func:`gtr` — the respondent's algorithm (exact or greedy), returning a :class:`Submission` or
  None.
* The distribution attack: :func:`attack`, :func:`pv`, :func:`anonymous_group`, :func:`phi_qi`,
  :func:`phi_sa`, :func:`margins`, :func:`sa_coefficients`, :func:`phi_bounds`,
  :func:`can_protect` (Corollary 1) and :func:`protects` (Definition 1, exactly).
* What the collector can verify without seeing the respondent: :func:`check_submission`
  (whether a submitted tuple protects any base tuple it generalizes, exactly).
* Evaluation: :func:`pv_all` (every respondent's ``Pv`` against a set), :func:`average_loss`,
  :func:`encode_frame`, :func:`sample_base`.
"""

from .attack import (
    AttackEstimate,
    anonymous_group,
    as_tau,
    attack,
    can_protect,
    margins,
    phi_bounds,
    phi_qi,
    phi_sa,
    protects,
    pv,
    sa_coefficients,
)
from .compress import ENCODINGS, CollectedSet, decode_index, encode_index, pack_bits, unpack_bits
from .evaluate import average_loss, encode_frame, pv_all, sample_base
from .gtr import EXACT_LIMIT, GTR_MODES, Submission, gtr
from .taxonomy import LOSS_VARIANTS, Survey, Taxonomy
from .verify import CELL_LIMIT, SubmissionCheck, check_submission, check_submission_codes

__all__ = [
    "CELL_LIMIT",
    "ENCODINGS",
    "EXACT_LIMIT",
    "GTR_MODES",
    "LOSS_VARIANTS",
    "AttackEstimate",
    "CollectedSet",
    "Submission",
    "SubmissionCheck",
    "Survey",
    "Taxonomy",
    "anonymous_group",
    "as_tau",
    "attack",
    "average_loss",
    "can_protect",
    "check_submission",
    "check_submission_codes",
    "decode_index",
    "encode_frame",
    "encode_index",
    "gtr",
    "margins",
    "pack_bits",
    "phi_bounds",
    "phi_qi",
    "phi_sa",
    "protects",
    "pv",
    "pv_all",
    "sa_coefficients",
    "sample_base",
    "unpack_bits",
]
