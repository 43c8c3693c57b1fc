"""Deprecated: use :mod:`microanon.methods.distribution`.

``microanon.distribution.X`` still works for this release and warns; ``anonymize`` is
:func:`microanon.methods.distribution.distribution_anonymize`.
"""

from typing import Any

from .core.deprecation import forward
from .methods import distribution as _new

_RENAMED = {"anonymize": "distribution_anonymize"}


#: Star imports still see every name (and warn for each).
__all__ = [*_new.__all__, "anonymize"]  # noqa: F822 (served by __getattr__)


def __getattr__(name: str) -> Any:
    return forward(__name__, "microanon.methods.distribution", name, _RENAMED)
