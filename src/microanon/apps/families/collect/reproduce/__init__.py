"""The reproduction of the family paper's experiments; see :func:`run_collection`."""

from .run import run_collection

__all__ = ["run_collection"]
