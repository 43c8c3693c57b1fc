"""Clustering of the sensitive attributes.

Algorithm 10 of Yi & Shi, *Privacy Protection Method for Multiple Sensitive Attributes Based on
Strong Rule*, Mathematical Problems in Engineering 2015, Art. ID 464731.

Two attributes are at distance 0 when some strong rule links a value of one with a value of the
other, else 1 (Definition 8); an attribute's distance to a cluster is its smallest distance to a
member (Definition 9). The first unclustered attribute opens a cluster, and every remaining
attribute at distance 0 from it joins; the scan repeats until nothing joins (our choice), so that
the clusters are the connected components of the "linked" graph and every strong rule lies inside
one cluster (which Lemma 22 needs: a single pass could split a chain ``S_1 – S_3 – S_2``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["cluster_attributes"]


def cluster_attributes(n_attributes: int, linked: np.ndarray) -> list[list[int]]:
    """Clusters of sensitive attributes.

    Parameters
    ----------
    n_attributes : int
    linked : (p, 2) int array
        Pairs of attribute indices joined by a strong rule.

    Returns
    -------
    list of list of int
        Clusters in order of their first attribute, members ascending.

    Examples
    --------
    >>> import numpy as np
    >>> cluster_attributes(3, np.array([[0, 2], [1, 2]]))  # the chain S_1 - S_3 - S_2
    [[0, 1, 2]]
    >>> cluster_attributes(3, np.array([[0, 1]]))
    [[0, 1], [2]]
    """
    near = np.zeros((n_attributes, n_attributes), dtype=bool)
    pairs = np.asarray(linked, dtype=np.int64).reshape(-1, 2)
    near[pairs[:, 0], pairs[:, 1]] = True
    near |= near.T
    unclustered = list(range(n_attributes))
    clusters: list[list[int]] = []
    while unclustered:
        cluster = [unclustered.pop(0)]
        changed = True
        while changed:
            joining = [s for s in unclustered if near[s, cluster].any()]
            changed = bool(joining)
            cluster += joining
            unclustered = [s for s in unclustered if s not in joining]
        clusters.append(sorted(cluster))
    return clusters
