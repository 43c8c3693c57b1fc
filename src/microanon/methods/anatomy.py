"""Deprecated: Anatomy moved to :mod:`microanon.methods.generalize` (``anatomy``).

``microanon.methods.anatomy.X`` still works for this release and warns.
"""

from typing import Any

from ..core.deprecation import forward


def __getattr__(name: str) -> Any:
    return forward(__name__, "microanon.methods.generalize.anatomy", name)
