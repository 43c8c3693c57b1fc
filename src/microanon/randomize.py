"""Deprecated: use :mod:`microanon.methods.randomize`.

``microanon.randomize.X`` still works for this release and warns.
"""

from typing import Any

from .core.deprecation import forward
from .methods import randomize as _new

#: Star imports still see every name (and warn for each).
__all__ = [*_new.__all__]


def __getattr__(name: str) -> Any:
    return forward(__name__, "microanon.methods.randomize", name)
