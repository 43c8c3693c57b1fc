"""Multidimensional k-anonymity by local recoding (after Du, Xia, Tao, Zhang & Zhu, ICDE 2007).

The paper: *On Multidimensional k-Anonymity with Local Recoding Generalization*, ICDE 2007, the LRKA
baseline of Zhang & Zhang (DaWaK 2008). We do not follow the paper's exact algorithm, which we could
not establish; this is a documented greedy clustering heuristic in the spirit of k-member clustering
(Byun et al., 2007): records are put into groups of at least ``k`` and every group publishes the
smallest generalization covering its records — the closed range ``"[lo, hi]"`` of a numeric
quasi-identifier's values (the value itself when ``lo == hi``), the lowest common ancestor of a
categorical quasi-identifier's values in its hierarchy (the root as ``"*"``). Equal original values
may be published differently in different groups: that is local recoding.

Cost. The NCP of a group's box, averaged over the quasi-identifiers: numeric
``(hi - lo) / (max - min of the table's values)``, categorical
``(covered leaves - 1) / (domain size - 1)``; a group of ``s`` records costs ``s · NCP``.

Heuristic. The units are the distinct quasi-identifier combinations with their counts (records
with equal quasi-identifiers always stay together):

1. A combination with at least ``k`` records (that also satisfies the extra models) is a group
   of its own, at zero cost.
2. While at least ``k`` records remain: the seed is the remaining combination farthest (pair NCP)
   from the previous seed — at first, from a central record (median of each numeric
   quasi-identifier, most frequent leaf of each categorical one). The group grows from the seed
   by repeatedly adding the candidate whose addition gives the smallest box NCP (ties: more
   records, then lexicographic order) until it holds ``k`` records. Candidates are the
   ``max(4k, 64)`` remaining combinations nearest the seed, refreshed with those nearest the
   current box when exhausted.
   While an extra model then fails, only candidates that reduce the group's *shortfall* are
   eligible (the cheapest of them is added): ``(ℓ - own ℓ) / ℓ`` for ℓ-diversity, ``EMD - t``
   for t-closeness, summed over the failing models. If no remaining combination reduces it,
   the group is abandoned and everything left goes to step 3.
3. Leftovers (fewer than ``k`` records, or a remainder that cannot satisfy the extra models) join,
   one combination at a time, the group whose cost ``s · NCP`` grows least among the groups
   that still satisfy every model with it. If no group can take it, the combination and all
   other leftovers join the cheapest group, which then absorbs the groups cheapest to merge until
   it satisfies the models (at worst the whole table, which satisfies them).

Extra models (ℓ-diversity, t-closeness against the whole table's sensitive distribution) are thus
enforced by growing a group until it satisfies them; every group is checked with
:meth:`PrivacyModel.group_ok`. Every step is vectorized over the remaining combinations (or over
the groups); the Python loop runs once per group and once per combination added to a group. The
cost is bounded by one vectorized scan of the remaining combinations per group, ``O(G · m · d)``
for ``G`` groups, ``m`` distinct combinations and ``d`` quasi-identifiers (about ``n² d / k`` in
the worst case), plus, with extra models, one evaluation of the candidate pool per combination
added after the group reached ``k`` records.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import SMALLEST_GROUP
from ...core.progress import Count, as_progress
from ...core.release import Release
from ...core.schema import Schema
from ...models import KAnonymity, as_models
from ...models.params import integer
from ..registry import method
from ..release import generalized_release, prepare
from ._recode import (
    CategoricalDim,
    Dim,
    Encoded,
    GroupCheck,
    NumericDim,
    box_labels,
    encode,
    group_bounds,
    publish,
    quasi_dims,
)

__all__ = ["local_recoding", "HEURISTIC"]

#: One-line description of the heuristic, stored in the release metadata.
HEURISTIC = (
    "greedy k-member clustering of distinct quasi-identifier combinations: each group starts at "
    "the combination farthest from the previous group's start and grows by least box NCP until "
    "it holds k records and the models hold; leftovers join the group whose size x NCP grows "
    "least"
)


Box = tuple[np.ndarray, np.ndarray, np.ndarray]


class _Combos:
    """The distinct quasi-identifier combinations, their frequency rows and box costs.

    A box is ``(lo, hi, nodes)``: lowest and highest value of every numeric quasi-identifier
    and the hierarchy node of every categorical one; the last axis indexes the dimensions and a
    leading axis, if any, indexes boxes.
    """

    def __init__(self, dims: list[Dim], enc: Encoded) -> None:
        codes = enc.codes
        first = np.r_[True, np.any(codes[:, 1:] != codes[:, :-1], axis=0)]
        self.starts = np.flatnonzero(first)  # the rows of a combination are contiguous
        self.ends = np.r_[self.starts[1:], len(first)]
        self.of_row = np.cumsum(first) - 1
        self.row_counts = enc.counts
        self.sa = enc.sa
        self.counts = np.add.reduceat(enc.counts, self.starts)
        self.codes = codes[:, self.starts]
        self.numeric = [j for j, d in enumerate(dims) if isinstance(d, NumericDim)]
        self.categorical = [j for j, d in enumerate(dims) if isinstance(d, CategoricalDim)]
        self.rank_values = [dims[j].values for j in self.numeric]
        self.values = np.array(
            [v[self.codes[j]] for v, j in zip(self.rank_values, self.numeric, strict=True)]
        ).reshape(len(self.numeric), len(self.counts))
        spans = np.array([dims[j].span for j in self.numeric])
        self.inv_span = np.divide(1.0, spans, out=np.zeros(len(spans)), where=spans > 0)
        self.trees = [dims[j].tree for j in self.categorical]
        self.leaves = self.codes[self.categorical]
        self.n_dims = len(dims)

    def __len__(self) -> int:
        return len(self.counts)

    def rows(self, combos: np.ndarray) -> np.ndarray:
        """Frequency rows of the given combinations, combination after combination."""
        starts = self.starts[combos]
        lengths = self.ends[combos] - starts
        return np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())

    def box(self, combo: int) -> Box:
        """The box of one combination."""
        v = self.values[:, combo]
        nodes = [t.leaf_nodes[x] for t, x in zip(self.trees, self.leaves[:, combo], strict=True)]
        return v.copy(), v.copy(), np.array(nodes, dtype=np.int64)

    def extend(self, box: Box, combo: int) -> Box:
        """A box (or boxes) grown to cover one more combination."""
        lo, hi, nodes = box
        v = self.values[:, combo]
        joined = [
            t.join(nodes[..., i], x)
            for i, (t, x) in enumerate(zip(self.trees, self.leaves[:, combo], strict=True))
        ]
        new_nodes = np.stack(joined, axis=-1).astype(np.int64) if joined else nodes.copy()
        return np.minimum(lo, v), np.maximum(hi, v), new_nodes

    def cost(self, box: Box, combos: np.ndarray | int) -> np.ndarray:
        """Mean NCP of boxes grown by combinations (one box and many combinations, or many
        boxes and one combination)."""
        lo, hi, nodes = box
        total: Any = 0.0
        for i in range(len(self.numeric)):
            v = self.values[i, combos]
            total = (
                total + (np.maximum(hi[..., i], v) - np.minimum(lo[..., i], v)) * self.inv_span[i]
            )
        for i, t in enumerate(self.trees):
            total = total + t.cost[t.join(nodes[..., i], self.leaves[i, combos])]
        return np.asarray(total) / self.n_dims

    def own_cost(self, box: Box) -> np.ndarray:
        """Mean NCP of boxes."""
        lo, hi, nodes = box
        total = ((hi - lo) * self.inv_span).sum(axis=-1)
        for i, t in enumerate(self.trees):
            total = total + t.cost[nodes[..., i]]
        return total / self.n_dims

    def center(self) -> Box:
        """A central point: weighted median numeric values, most frequent categorical leaves."""
        mid = np.empty(len(self.numeric))
        for i, v in enumerate(self.values):
            order = np.argsort(v, kind="stable")
            cum = np.cumsum(self.counts[order])
            mid[i] = v[order[np.searchsorted(cum, (cum[-1] + 1) // 2)]]
        nodes = [
            t.leaf_nodes[np.argmax(np.bincount(x, weights=self.counts, minlength=t.n_leaves))]
            for t, x in zip(self.trees, self.leaves, strict=True)
        ]
        return mid, mid.copy(), np.array(nodes, dtype=np.int64)

    def boxes(self, group: np.ndarray, n: int) -> tuple[Box, np.ndarray]:
        """Box and number of records of every group id ``0..n-1``.

        Combinations with group -1 are ignored; a group id without combinations (merged away)
        gets size 0 and the box of the first combination.
        """
        placed = np.flatnonzero(group >= 0)
        ids, dense = np.unique(group[placed], return_inverse=True)
        lo_c, hi_c = group_bounds(self.codes, placed, dense, len(ids))
        full_lo = np.zeros((self.n_dims, n), dtype=np.int64)
        full_hi = np.zeros((self.n_dims, n), dtype=np.int64)
        full_lo[:, ids], full_hi[:, ids] = lo_c, hi_c
        lo = np.array([v[full_lo[j]] for v, j in zip(self.rank_values, self.numeric, strict=True)])
        hi = np.array([v[full_hi[j]] for v, j in zip(self.rank_values, self.numeric, strict=True)])
        nodes = np.array(
            [
                t.lca(full_lo[j], full_hi[j])
                for t, j in zip(self.trees, self.categorical, strict=True)
            ]
        )
        size = np.bincount(group[placed], weights=self.counts[placed], minlength=n)
        box = (
            lo.reshape(len(self.numeric), n).T,
            hi.reshape(len(self.numeric), n).T,
            nodes.reshape(len(self.trees), n).T.astype(np.int64),
        )
        return box, size


class _Clustering:
    """Greedy clustering of the combinations: ``group[i]`` is the group of combination i."""

    def __init__(self, combos: _Combos, check: GroupCheck, placed: Count) -> None:
        self.c = combos
        self.check = check
        self.placed = placed
        self.group = np.full(len(combos), -1, dtype=np.int64)
        self.n_groups = 0
        self.pool_size = max(4 * check.k, 64)

    # ------------------------------------------------------------------ model checks
    def _entries(self, combos: np.ndarray, group: np.ndarray) -> tuple:
        """Weighted entries (group, weights, sensitive codes) of groups of combinations."""
        rows = self.c.rows(combos)
        lengths = self.c.ends[combos] - self.c.starts[combos]
        sa = None if self.c.sa is None else self.c.sa[rows]
        return np.repeat(group, lengths), self.c.row_counts[rows], sa

    def _ok(self, combos: np.ndarray, group: np.ndarray, n: int) -> np.ndarray:
        """Whether each group of combinations (dense ids ``group``) satisfies every model."""
        g, w, sa = self._entries(combos, group)
        return self.check.ok(g, w, n, sa)

    def _shortfall_with(self, base: np.ndarray, size: int, cands: np.ndarray) -> np.ndarray:
        """Shortfall of the group (sensitive histogram ``base``, ``size`` records) grown by each
        candidate combination on its own."""
        n = len(cands)
        if n == 0:
            return np.zeros(0)
        g, w, sa = self._entries(cands, np.arange(n))
        if self.c.sa is None:
            base_codes, base_w = np.zeros(1, dtype=np.int64), np.array([size])
        else:
            base_codes = np.flatnonzero(base)
            base_w = base[base_codes]
            sa = np.r_[np.tile(base_codes, n), sa]
        g = np.r_[np.repeat(np.arange(n), len(base_codes)), g]
        w = np.r_[np.tile(base_w, n), w]
        return self.check.shortfall(g, w, n, sa)

    def _own_shortfall(self, hist: np.ndarray, size: int) -> float:
        """Shortfall of one group given by its sensitive histogram and size."""
        if self.c.sa is None:
            return float(self.check.shortfall(np.zeros(1, np.int64), np.array([size]), 1)[0])
        codes = np.flatnonzero(hist)
        group = np.zeros(len(codes), dtype=np.int64)
        return float(self.check.shortfall(group, hist[codes], 1, codes)[0])

    def _histogram(self, combo: int) -> np.ndarray:
        """Records per sensitive code of one combination (empty without a sensitive model)."""
        if self.c.sa is None:
            return np.zeros(0, dtype=np.int64)
        rows = self.c.rows(np.array([combo]))
        return np.bincount(
            self.c.sa[rows], weights=self.c.row_counts[rows], minlength=self.check.n_values
        ).astype(np.int64)

    def _add_groups(self, members: np.ndarray, group: np.ndarray, n: int) -> None:
        self.group[members] = group + self.n_groups
        self.n_groups += n
        self.placed.advance(int(self.c.counts[members].sum()))

    # ------------------------------------------------------------------ steps
    def singles(self) -> None:
        """Step 1: every combination of at least k records that satisfies the models alone."""
        big = np.flatnonzero(self.c.counts >= self.check.k)
        if len(big) and self.check.others:
            big = big[self._ok(big, np.arange(len(big)), len(big))]
        self._add_groups(big, np.arange(len(big)), len(big))

    def _chunks(self, box: Box, rem: np.ndarray, taken: np.ndarray) -> Iterator[np.ndarray]:
        """Positions (in ``rem``) of the free combinations nearest the box first, in chunks."""
        free = np.flatnonzero(~taken)
        order = free[np.argsort(self.c.cost(box, rem[free]), kind="stable")]
        for start in range(0, len(order), self.pool_size):
            yield order[start : start + self.pool_size]

    def _grow(self, seed: int, rem: np.ndarray, near: np.ndarray) -> np.ndarray | None:
        """Grow a group from a seed; None if the remaining combinations cannot complete it.

        Candidates come from a pool of the combinations nearest the seed (refilled with those
        nearest the current box). Until the group holds k records the candidate of least box NCP
        is added. While an extra model then fails, only candidates that reduce the group's
        shortfall are eligible and the cheapest is added; if no remaining combination reduces
        it, the group cannot be completed.
        """
        c, k = self.c, self.check.k
        members = [seed]
        size = int(c.counts[seed])
        box = c.box(seed)
        hist = self._histogram(seed)
        taken = rem == seed
        free = np.flatnonzero(~taken)
        n = min(self.pool_size, len(free))
        pool = free[np.argpartition(near[free], n - 1)[:n]] if n < len(free) else free
        short: float | None = None
        while size < k or self.check.others:
            if size >= k:
                short = self._own_shortfall(hist, size) if short is None else short
                if short == 0:
                    break
                gap = self._shortfall_with(hist, size, rem[pool])
                if not (gap < short).any():
                    for chunk in self._chunks(box, rem, taken):
                        gap = self._shortfall_with(hist, size, rem[chunk])
                        if (gap < short).any():
                            pool = chunk
                            break
                    else:
                        return None
                usable = np.flatnonzero(gap < short)
            else:
                if len(pool) == 0:
                    pool = next(self._chunks(box, rem, taken), pool)
                    if len(pool) == 0:
                        return None
                usable = np.arange(len(pool))
            cand = rem[pool[usable]]
            where = usable[np.lexsort((cand, -c.counts[cand], c.cost(box, cand)))[0]]
            if size >= k:
                short = float(gap[where])
            pick = int(rem[pool[where]])
            taken[pool[where]] = True
            pool = np.delete(pool, where)
            members.append(pick)
            size += int(c.counts[pick])
            box = c.extend(box, pick)
            if self.c.sa is not None:
                hist = hist + self._histogram(pick)
        return np.array(members, dtype=np.int64)

    def greedy(self) -> None:
        """Step 2: seeded greedy groups while k records remain and a group can be completed."""
        c, k = self.c, self.check.k
        rem = np.flatnonzero(self.group < 0)
        left = int(c.counts[rem].sum())
        far = c.cost(c.center(), rem)
        while left >= k:
            seed = int(rem[np.argmax(far)])
            near = c.cost(c.box(seed), rem)
            members = self._grow(seed, rem, near)
            if members is None:
                return
            self._add_groups(members, np.zeros(len(members), dtype=np.int64), 1)
            left -= int(c.counts[members].sum())
            keep = self.group[rem] < 0
            rem, far = rem[keep], near[keep]

    def leftovers(self) -> None:
        """Step 3: each remaining combination joins the group whose s·NCP grows least."""
        c = self.c
        rem = np.flatnonzero(self.group < 0)
        if len(rem) and self.n_groups == 0:
            self._add_groups(rem, np.zeros(len(rem), dtype=np.int64), 1)
            return
        box, size = c.boxes(self.group, self.n_groups)
        for pos, x in enumerate(rem):
            grown = (size + c.counts[x]) * c.cost(box, x) - size * c.own_cost(box)
            ok = self._ok_with(x) if self.check.others else np.ones(self.n_groups, dtype=bool)
            if not ok.any():
                self._absorb(rem[pos:], int(np.argmin(grown)))
                return
            g = int(np.flatnonzero(ok)[np.argmin(grown[ok])])
            self.group[x] = g
            self.placed.advance(int(c.counts[x]))
            grown_box = c.extend(tuple(b[g] for b in box), int(x))
            for b, new in zip(box, grown_box, strict=True):
                b[g] = new
            size[g] += c.counts[x]

    def _ok_with(self, x: int) -> np.ndarray:
        """Whether every group would still satisfy the models with combination ``x`` added."""
        placed = np.flatnonzero(self.group >= 0)
        n = self.n_groups
        members = np.r_[placed, np.full(n, x)]
        return self._ok(members, np.r_[self.group[placed], np.arange(n)], n)

    def _absorb(self, rest: np.ndarray, g: int) -> None:
        """Put ``rest`` into group ``g``, then merge the cheapest groups into it until it passes."""
        c = self.c
        self.group[rest] = g
        self.placed.advance(int(c.counts[rest].sum()))
        while True:
            members = np.flatnonzero(self.group == g)
            if self._ok(members, np.zeros(len(members), dtype=np.int64), 1)[0]:
                return
            box, size = c.boxes(self.group, self.n_groups)
            lo, hi, nodes = box
            joined = [t.join_nodes(nodes[:, i], nodes[g, i]) for i, t in enumerate(c.trees)]
            merged_nodes = np.stack(joined, axis=-1) if joined else nodes
            merged = (np.minimum(lo, lo[g]), np.maximum(hi, hi[g]), merged_nodes)
            own = size * c.own_cost(box)
            delta = (size + size[g]) * c.own_cost(merged) - own - own[g]
            delta[g] = np.inf
            delta[size == 0] = np.inf
            self.group[self.group == int(np.argmin(delta))] = g

    def result(self) -> tuple[np.ndarray, int]:
        """Dense group ids of the combinations and the number of groups."""
        ids, group = np.unique(self.group, return_inverse=True)
        return group, len(ids)


@method(
    "local_recoding",
    kind="generalized",
    ranges=True,
    publishes="Groups of at least k records with their common generalization. Claims k-anonymity "
    "and the optional l-diversity or t-closeness given.",
    help="Forms groups of at least k similar records and generalizes each group only as much "
    "as it needs, so different records may get different levels.",
    params=(SMALLEST_GROUP,),
    in_memory_because="it clusters records, and each cluster's recoding depends on its records",
)
def local_recoding(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    k: int,
    models: Any = None,
    progress: bool = False,
) -> Release:
    """Anonymize a table by local recoding: greedy groups of at least k records.

    See the module docstring for the heuristic.

    Parameters
    ----------
    data : DataFrame
        The original table.
    schema : Schema or mapping
        At least one quasi-identifier. Numeric quasi-identifiers need no hierarchy; categorical
        and ordinal ones need one. Extra models on a sensitive attribute need exactly one
        sensitive column.
    k : int
        Smallest number of records per group (``>= 1``).
    models : model specification, optional
        Extra privacy models (anything :func:`microanon.models.as_models` reads), e.g.
        ``{"l_diversity": {"l": 3}}``; each group grows until it satisfies them. A
        k-anonymity model here with a larger k raises the group size.
    progress : bool, default False
        Show a progress bar (records placed in groups).

    Returns
    -------
    Release
        Kind ``"generalized"``: table ``data`` with the published columns in schema order and
        the original row order; numeric quasi-identifiers as text ``"[lo, hi]"`` (or the value
        when ``lo == hi``), categorical ones as hierarchy labels (the root as ``"*"``), other
        columns unchanged. Metadata: the standard keys plus ``groups`` (number of groups),
        ``heuristic`` (:data:`HEURISTIC`) and ``suppressed`` (always 0). The claimed models are
        k-anonymity with ``k`` and the extra models.

    Raises
    ------
    InputError
        ``k`` not an integer ``>= 1``; bad data (see :meth:`microanon.Table.from_frame`) or
        models.
    SchemaError
        No quasi-identifier; a non-numeric quasi-identifier without hierarchy; a sensitive
        model without exactly one sensitive column.
    InfeasibleError
        A model fails on the whole table (``k`` above the number of records, ℓ above the number
        of distinct sensitive values, ...).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [20, 21, 22, 40, 41, 42]})
    >>> rel = local_recoding(df, {"age": {"role": "quasi", "kind": "numeric"}}, k=3)
    >>> list(rel.data["age"]), rel.metadata["groups"]
    (['[20, 22]', '[20, 22]', '[20, 22]', '[40, 42]', '[40, 42]', '[40, 42]'], 2)
    """
    k = integer("k", k)
    given = [] if models is None else as_models(models)
    resolved = [KAnonymity(k), *(m for m in given if m != KAnonymity(k))]  # (claimed once)
    table, resolved = prepare(
        data, schema, resolved, need_hierarchies=False, unknown_sensitive=True
    )
    dims = quasi_dims(table, "local recoding")
    sensitive = table.schema.sensitive[0] if any(m.needs_sensitive for m in resolved) else None
    enc = encode(table, dims, sensitive)
    check = GroupCheck(resolved, table, enc)
    check.require_feasible(enc)
    combos = _Combos(dims, enc)
    with as_progress(bool(progress)).count("local recoding", table.n_rows, unit="rec") as placed:
        clustering = _Clustering(combos, check, placed)
        clustering.singles()
        clustering.greedy()
        clustering.leftovers()
    group, n_groups = clustering.result()
    order = np.arange(len(combos))
    lo, hi = group_bounds(combos.codes, order, group, n_groups)
    group_of_row = group[combos.of_row[enc.inverse]]
    published = publish(table, dims, box_labels(dims, lo, hi), group_of_row)
    return generalized_release(
        "local_recoding",
        published,
        table,
        {"k": k},
        resolved,
        public=("groups", "heuristic"),
        text=True,
        groups=n_groups,
        heuristic=HEURISTIC,
        suppressed=0,
    )
