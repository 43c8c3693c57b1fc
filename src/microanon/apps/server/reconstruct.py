"""The base-value distribution behind published (generalized) answers, with certain bounds.

Every collected tuple publishes, for each attribute, a taxonomy node ``v``: the respondent's base
value is one of the leaves under ``v``. For one attribute and each leaf ``a`` this module gives

* ``low``: the answers published exactly at ``a`` (they certainly have base value ``a``);
* ``high``: the answers whose published node covers ``a`` (only they can have base value ``a``);
* ``estimate``: each answer at ``v`` spread over the leaves under ``v`` in proportion to the leaf
  weights ``l(a) / l(v)`` — the prior of the collection model (Zhang & Zhang, DaWaK 2008: the
  adversary's ``φ(a, v) = l(a) / l(v)``, which GTR protects against). With the default weights
  (all 1) this is the uniform spread.

``low ≤ estimate ≤ high`` for every leaf, ``Σ low ≤ n ≤ Σ high`` and ``Σ estimate = n``, the number
of answers. The bounds are certain (every assignment of base values consistent with the published
answers lies between them), not confidence intervals; the estimate is a model-based point
estimate, exact only if the respondents' values under each published node follow the weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.errors import InputError
from ...methods.collect.taxonomy import Taxonomy

__all__ = ["LeafDistribution", "leaf_distribution"]


@dataclass(frozen=True)
class LeafDistribution:
    """Per-leaf reconstruction of one attribute (arrays by leaf position, depth-first order).

    Attributes
    ----------
    low : ndarray of int64
        Answers published exactly at the leaf (a certain lower bound on its count).
    high : ndarray of int64
        Answers whose published node covers the leaf (a certain upper bound).
    estimate : ndarray of float64
        The weight-proportional spread (uniform when the leaf weights are equal).
    """

    low: np.ndarray
    high: np.ndarray
    estimate: np.ndarray


def leaf_distribution(taxonomy: Taxonomy, counts: np.ndarray) -> LeafDistribution:
    """Bounds and spread estimate of the base-value counts of one attribute.

    Parameters
    ----------
    taxonomy : Taxonomy
        The attribute's taxonomy (pre-order codes, leaf weights ``l(·)``).
    counts : array_like of int, shape (n_nodes,)
        How many collected answers publish each node (by code).

    Returns
    -------
    LeafDistribution
        ``low``, ``high`` and ``estimate`` by leaf position.

    Raises
    ------
    InputError
        When ``counts`` does not have one non-negative entry per node.

    Examples
    --------
    Two answers ``Flu`` and one ``Resp`` (covering Flu and Cold, weights 1 and 3)::

        Flu:  low 2, high 3, estimate 2 + 1/4
        Cold: low 0, high 1, estimate 3/4
    """
    counts = np.asarray(counts)
    if counts.shape != (taxonomy.n_nodes,) or (counts.size and counts.min() < 0):
        raise InputError(
            f"attribute '{taxonomy.name}': counts must be {taxonomy.n_nodes} non-negative numbers"
        )
    counts = counts.astype(np.int64)
    n_leaves = len(taxonomy.leaf_node)
    lo, hi = np.asarray(taxonomy.lo), np.asarray(taxonomy.hi)
    low = np.zeros(n_leaves, dtype=np.int64)
    low[np.arange(n_leaves)] = counts[np.asarray(taxonomy.leaf_node)]
    # Add each node's amount over its leaf range lo..hi-1 with a difference array.
    diff = np.zeros(n_leaves + 1, dtype=np.int64)
    np.add.at(diff, lo, counts)
    np.add.at(diff, hi, -counts)
    high = np.cumsum(diff[:-1])
    density = counts / taxonomy.weight  # answers per unit of weight, spread under each node
    fdiff = np.zeros(n_leaves + 1)
    np.add.at(fdiff, lo, density)
    np.add.at(fdiff, hi, -density)
    estimate = np.cumsum(fdiff[:-1]) * taxonomy.leaf_weight
    # Rounding of the cumulative sums must not leave the certain bounds.
    estimate = np.clip(estimate, low, high)
    return LeafDistribution(low=low, high=high, estimate=estimate)
