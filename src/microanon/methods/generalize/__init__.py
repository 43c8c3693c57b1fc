"""Generalization baselines: optimal full-domain recoding, Mondrian, local recoding."""

from .full_domain import SearchResult, full_domain, search
from .local_recoding import local_recoding
from .mondrian import mondrian

__all__ = ["SearchResult", "full_domain", "local_recoding", "mondrian", "search"]
