"""Anonymization methods: each turns an original table into a :class:`~microanon.Release`.

Generalization baselines (:mod:`.generalize`): :func:`full_domain`, :func:`mondrian`,
:func:`local_recoding`; bucketization: :func:`anatomy`; distribution-based
(:mod:`.distribution`): :func:`distribution_anonymize`.
"""

from .anatomy import anatomy
from .distribution import distribution_anonymize
from .generalize import full_domain, local_recoding, mondrian

__all__ = ["anatomy", "distribution_anonymize", "full_domain", "local_recoding", "mondrian"]
