"""Generalization baselines: optimal full-domain recoding, Mondrian, local recoding."""
