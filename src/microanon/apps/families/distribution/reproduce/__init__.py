"""The reproduction of the family paper's experiments; see :func:`run_distribution`."""

from .run import run_distribution

__all__ = ["run_distribution"]
