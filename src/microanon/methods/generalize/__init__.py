"""Generalization baselines: optimal full-domain recoding, Mondrian, local recoding."""

from .local_recoding import local_recoding
from .mondrian import mondrian

__all__ = ["local_recoding", "mondrian"]
