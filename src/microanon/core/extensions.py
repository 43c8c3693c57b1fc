"""What ``core`` needs from the layers above it, filled in by the ``microanon`` package.

A release's notebook view and :meth:`~microanon.core.release.Release.report` need the models and
the reports, which ``core`` does not import. This module (which imports nothing, so that the
package can fill it without loading pandas) holds :data:`EXTENSIONS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["EXTENSIONS"]

#: Functions of a :class:`~microanon.core.release.Release`: ``"verdicts"`` (a release -> one
#: ``(model, holds, achieved)`` per claimed model, re-checked on the published tables by
#: :mod:`microanon.models`) and ``"report"`` (a release -> its public report, built by
#: :mod:`microanon.apps`). The ``microanon`` package fills it on import; each
#: function imports its layer when first called.
EXTENSIONS: dict[str, Callable[[Any], Any]] = {}
