"""Anonymization methods: each turns an original table into a :class:`~microanon.Release`.

Generalization baselines (:mod:`.generalize`): :func:`full_domain`, :func:`mondrian`,
:func:`local_recoding`; bucketization: :func:`anatomy`.
"""

from .anatomy import anatomy
from .generalize import full_domain, local_recoding, mondrian

__all__ = ["anatomy", "full_domain", "local_recoding", "mondrian"]
