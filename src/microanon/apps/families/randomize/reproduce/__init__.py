"""The reproduction of the family paper's experiments; see :func:`run_randomization`."""

from .run import run_randomization

__all__ = ["run_randomization"]
