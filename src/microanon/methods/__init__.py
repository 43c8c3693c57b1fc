"""Anonymization methods: each turns an original table into a :class:`~microanon.Release`.

Generalization baselines (:mod:`.generalize`): :func:`full_domain`, :func:`mondrian`,
:func:`local_recoding`; bucketization: :func:`anatomy`; distribution-based
(:mod:`.distribution`): :func:`distribution_anonymize`; SDC masking (:mod:`.sdc`): :func:`sample`,
:func:`global_recode`, :func:`top_bottom_code`, :func:`local_suppression`, :func:`add_noise`,
:func:`rank_swap`, :func:`microaggregation`.
"""

from .anatomy import anatomy
from .distribution import distribution_anonymize
from .generalize import full_domain, local_recoding, mondrian
from .sdc import (
    add_noise,
    global_recode,
    local_suppression,
    microaggregation,
    rank_swap,
    sample,
    top_bottom_code,
)

__all__ = [
    "add_noise",
    "anatomy",
    "distribution_anonymize",
    "full_domain",
    "global_recode",
    "local_recoding",
    "local_suppression",
    "microaggregation",
    "mondrian",
    "rank_swap",
    "sample",
    "top_bottom_code",
]
