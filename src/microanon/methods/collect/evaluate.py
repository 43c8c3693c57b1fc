"""Evaluating a collected (or any generalized) set: every respondent's ``Pv``, the loss, labels.

These serve the experiments of Zhang & Zhang (DaWaK 2008, Figs. 5–6) and the data user:

* :func:`pv_all` — ``Pv(o, G)`` of many respondents against one set ``G`` at once (the end-of-
  collection privacy, or the achieved privacy ``min_o Pv`` of a generalized release, as our
  reproduction rates the baselines);
* :func:`average_loss` — the information loss, ``L(t)`` averaged over the tuples of a set;
* :func:`encode_frame` — a table of (generalized) labels as the survey's codes;
* :func:`sample_base` — base tuples drawn inside generalized ones, for learners that need base
  values (each value drawn from its node's leaves in proportion to the leaf weights, so a
  generalized tuple ``t`` yields ``o`` with probability ``φ_QI(o, t) φ_SA(o[SA], t[SA])``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.random import RandomLike, make_rng
from .compress import CollectedSet
from .taxonomy import Survey

__all__ = ["average_loss", "encode_frame", "pv_all", "sample_base"]


def encode_frame(survey: Survey, frame: pd.DataFrame, *, base: bool = False) -> np.ndarray:
    """Codes (rows × survey attributes) of a table of labels; ``base=True`` requires leaves.

    Raises
    ------
    InputError
        A missing column, or (``base``) a generalized value.
    HierarchyError
        A value outside its attribute's taxonomy (naming attribute and value).
    """
    missing = [a for a in survey.attributes if a not in frame.columns]
    if missing:
        raise InputError(f"table lacks the survey attribute(s) {', '.join(missing)}")
    out = np.empty((len(frame), survey.n_attributes), dtype=np.int64)
    for j, tx in enumerate(survey.taxonomies):
        codes, uniques = pd.factorize(frame[tx.name], use_na_sentinel=True)
        if (codes < 0).any():
            raise InputError(f"attribute '{tx.name}': missing values")
        lookup = np.array(
            [tx.base_code(u) if base else tx.code(u) for u in uniques], dtype=np.int64
        )
        out[:, j] = lookup[codes]
    return out


def pv_all(survey: Survey, collected: CollectedSet, respondents: np.ndarray) -> np.ndarray:
    """``Pv(o, G)`` for every respondent (rows of base codes) against the set ``collected``.

    Work is per distinct quasi-identifier cell (``Pv`` depends on ``o`` only through ``o[QI]``):
    the ``Π_A (height_A + 1)`` generalizations of the cell are looked up among the set's
    distinct quasi-identifier tuples with one sorted search, so a cell costs about the number
    of its generalizations, not the size of the set. Floats (an evaluation, not a decision);
    1 where the anonymous group is empty (our convention: nothing to estimate from).
    """
    respondents = survey.check_codes(respondents, "respondents")
    qtx = survey.quasi_taxonomies
    m = len(qtx)
    if len(respondents) == 0:
        return np.zeros(0)
    cards = [tx.n_nodes for tx in qtx]
    if math.prod(cards) >= 2**62:
        raise InputError("quasi-identifier code space too large for pv_all")
    strides = np.array([math.prod(cards[j + 1 :]) for j in range(m)], dtype=np.int64)
    cols = collected.columns
    keys = strides @ cols[:m] if len(collected) else np.zeros(0, dtype=np.int64)
    uniq, inverse = np.unique(keys, return_inverse=True)
    by_sa = np.zeros((len(uniq), survey.sa.n_nodes))
    np.add.at(by_sa, (inverse.ravel(), cols[-1]), collected.counts)
    share = survey.sa_share
    cells, cell_of = np.unique(respondents[:, :m], axis=0, return_inverse=True)
    pv_cells = np.ones(len(cells))
    for c, cell in enumerate(cells):
        cand_key = np.zeros(1, dtype=np.int64)
        cand_phi = np.ones(1)
        for j, tx in enumerate(qtx):
            chain = tx.chain(int(cell[j]))
            factor = tx.leaf_weight[tx.leaf_position(int(cell[j]))] / tx.weight[chain]
            cand_key = (cand_key[:, None] + chain[None, :] * strides[j]).ravel()
            cand_phi = (cand_phi[:, None] * factor[None, :]).ravel()
        pos = np.searchsorted(uniq, cand_key)
        pos[pos >= len(uniq)] = 0
        found = (uniq[pos] == cand_key) if len(uniq) else np.zeros(len(cand_key), bool)
        if not found.any():
            continue
        by_node = cand_phi[found] @ by_sa[pos[found]]
        total = by_node.sum()
        pv_cells[c] = 1.0 - float((by_node @ share).max()) / total
    return pv_cells[cell_of.ravel()]


def average_loss(survey: Survey, collected: CollectedSet, loss: str = "paper") -> Fraction:
    """``L(t)`` averaged over the tuples of the set (with multiplicity), exactly."""
    if collected.total == 0:
        raise InputError("the collected set is empty: no loss to average")
    tables, scale = survey.loss_table(loss)
    cols = collected.columns
    per_pair = sum(np.asarray(tb)[cols[j]].astype(object) for j, tb in enumerate(tables))
    total = sum(int(x) * int(n) for x, n in zip(per_pair, collected.counts, strict=True))
    return Fraction(total, scale * collected.total)


def sample_base(
    survey: Survey, codes: np.ndarray, draws: int = 1, rng: RandomLike = None
) -> tuple[pd.DataFrame, np.ndarray]:
    """Base tuples drawn inside generalized ones: ``draws`` per row, as labels.

    Returns
    -------
    (DataFrame, ndarray)
        The drawn base tuples (one column per survey attribute) and, for each, the row of
        ``codes`` it was drawn from.
    """
    codes = survey.check_codes(codes, "generalized tuples")
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
        raise InputError(f"draws must be a positive integer, got {draws!r}")
    gen = make_rng(rng)
    rows = np.repeat(np.arange(len(codes)), draws)
    data = {}
    for j, tx in enumerate(survey.taxonomies):
        nodes = codes[rows, j]
        cum = np.concatenate([[0.0], np.cumsum(tx.leaf_weight)])
        lo, hi = tx.lo[nodes], tx.hi[nodes]
        u = cum[lo] + gen.random(len(nodes)) * (cum[hi] - cum[lo])
        leaf = np.clip(np.searchsorted(cum, u, side="right") - 1, lo, hi - 1)
        labels = np.array([tx.label(v) for v in tx.leaf_node], dtype=object)
        data[tx.name] = labels[leaf]
    return pd.DataFrame(data), rows
