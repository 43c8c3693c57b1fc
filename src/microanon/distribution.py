"""Public home of distribution-based anonymization: ``microanon.distribution.min_sum_of_range``,
``min_sor_fake``, :class:`AnnotatedHierarchy` and :func:`anonymize`.

The method of Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata Anonymization*, PVLDB
2(1):958–969, 2009.

Everything here is implemented in :mod:`microanon.methods.distribution`.
"""

from .methods.distribution import *  # noqa: F403
from .methods.distribution import __all__ as _methods_all
from .methods.distribution.release import distribution_anonymize as anonymize

__all__ = [*_methods_all, "anonymize"]
