"""The reproduction of the family paper's experiments; see :func:`run_multisa`."""

from .run import run_multisa

__all__ = ["run_multisa"]
