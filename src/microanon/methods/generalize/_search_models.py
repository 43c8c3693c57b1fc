"""Which classes of a node the privacy models reject, and what stays valid for pruning.

Every model here is a per-class condition (:meth:`PrivacyModel.group_ok`); the records of a
class that fails any model are suppressed. Three facts drive the pruning of the search:

* **Monotone under merging without suppression.** If two classes satisfy k-anonymity, any
  ℓ-diversity form or t-closeness (against a fixed reference distribution), so does their union:
  sizes and distinct counts add up, entropy and the EMD to a fixed distribution are concave /
  convex in the class distribution, the largest count of a union is at most the sum of the
  parts' largest counts and the tail ``r_ℓ + ... + r_m`` at least the sum of theirs. So "every
  class passes" holds at every generalization of a node where it holds.
* **Monotone under suppression.** For k-anonymity and distinct ℓ-diversity, a class that fails
  at a node is made of parts that all fail below it (a union smaller than k, or with fewer than
  ℓ values, has only such parts), so the suppressed records can only shrink up the lattice. The
  other forms and t-closeness lack this: a passing class merged with a failing one can fail.
* **Deficits.** Still, a failing class of those models keeps part of its records suppressed in
  every refinement (:func:`_deficits`), which bounds the suppression of every node below.

Every model contributes a necessary condition of the monotone kind, the *filter*: a class
smaller than ``min_size``, with fewer than ``min_distinct`` sensitive values or whose values
cover less than ``min_coverage`` of the reference distribution fails some model. k-anonymity
gives ``min_size = k`` and distinct ℓ-diversity ``min_distinct = ℓ``, exactly (the filter is then
the whole verdict); the other ℓ-diversity forms imply distinct ℓ-diversity (``exp(H) <= m``;
``r_1 <= n/ℓ`` needs ``m >= ℓ`` values; the recursive form needs ``r_ℓ``), so they give
``min_distinct = ⌈ℓ⌉`` (with the checks' 1e-12 tolerance). For t-closeness, with the equal ground
distance a class of ``n`` records is at least the total-variation distance between the reference
and its best ``n``-record rounding (largest remainders) away, and at least the reference's mass
outside its values; the ordered and hierarchical distances are at least the total variation
divided by ``m - 1`` and by the tree height. That gives ``min_size`` and ``min_coverage``. The
records of classes failing the filter are suppressed, and they only shrink up the lattice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...models import Groups, KAnonymity, LDiversity, PrivacyModel, TCloseness
from ...models.ldiversity import group_diversity
from ...models.tcloseness import group_emd
from ._lattice_frequencies import FrequencySet

__all__ = ["ModelSet"]

_TOL = 1e-12
#: Slack of the implied bounds, so that rounding never makes them reject a passing class.
_SLACK = 1e-9
_KNOWN = (KAnonymity, LDiversity, TCloseness)


def _implied_distinct(model: LDiversity) -> int:
    """Fewest distinct sensitive values a class needs to satisfy an ℓ-diversity form."""
    ell = float(model.l)
    if model.form in ("distinct", "recursive"):
        return int(math.ceil(ell))
    if model.form == "entropy":  # pass: log(exp H) >= log ℓ - tol and exp H <= m
        bound = ell * math.exp(-_TOL)
    else:  # frequency: r_1 / n <= 1/ℓ + tol and n <= m r_1
        bound = 1.0 / (1.0 / ell + _TOL)
    return max(1, int(math.ceil(bound - _SLACK)))


def _min_total_variation(reference: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Smallest total-variation distance to ``reference`` of an ``n``-record distribution."""
    q = reference / reference.sum()
    target = sizes[:, None] * q[None, :]
    base = np.floor(target)
    frac = target - base
    short = (sizes - base.sum(axis=1)).astype(np.int64)
    order = np.argsort(-frac, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(q.size)[None, :], axis=1)
    counts = base + (ranks < short[:, None])
    return 0.5 * np.abs(counts / sizes[:, None] - q[None, :]).sum(axis=1)


def _emd_factor(model: TCloseness, m: int, numeric: bool) -> float:
    """A factor ``f`` with ``EMD >= f · total variation`` under the model's ground distance."""
    distance = model.distance or ("ordered" if numeric else "equal")
    if distance == "equal":
        return 1.0
    if distance == "ordered":
        width = len(model.order) if model.order is not None else m
        return 1.0 / (width - 1) if width > 1 else 0.0
    height = model.hierarchy.height
    return 1.0 / height if height > 0 else 0.0


def _implied_by_t(model: TCloseness, reference: np.ndarray, numeric: bool) -> tuple[int, float]:
    """Smallest class size, and share of the reference its values must cover, to be within t.

    A class whose values cover a share ``c`` of the reference is at least ``1 - c`` away in
    total variation (the uncovered mass must move), so it needs ``c >= 1 - t / f``.
    """
    ref = reference[reference > 0].astype(np.float64)
    factor = _emd_factor(model, len(ref), numeric)
    if factor == 0.0 or len(ref) <= 1:
        return 1, 0.0
    t = model.t + _TOL + _SLACK
    n_total = int(ref.sum())
    start = 1
    size = n_total
    while start <= n_total:
        sizes = np.arange(start, min(start + 512, n_total + 1), dtype=np.float64)
        ok = _min_total_variation(ref, sizes) * factor <= t
        if ok.any():
            size = int(sizes[np.argmax(ok)])
            break
        start += 512
    return size, 1.0 - t / factor


@dataclass
class ModelSet:
    """The requested models, split into the exact monotone filter and the rest.

    Attributes
    ----------
    models : list of PrivacyModel
    min_size, min_distinct : int
        The filter: a class with fewer records or sensitive values fails some model.
    others : list of PrivacyModel
        Models the filter does not decide exactly, checked with ``group_ok``.
    exact_filter : bool
        Whether the filter is the whole verdict (only k-anonymity and distinct ℓ-diversity):
        then the suppressed records shrink up the lattice.
    monotone : bool
        Whether "every class passes" is monotone up the lattice (true for the built-in
        models; an unknown model disables that pruning).
    """

    models: list[PrivacyModel]
    sensitive: str | None
    values: Sequence | None
    numeric: bool
    reference: np.ndarray | None
    min_size: int = 1
    min_distinct: int = 1
    min_coverage: float = 0.0
    others: list[PrivacyModel] = field(default_factory=list)
    exact_filter: bool = True
    monotone: bool = True

    @classmethod
    def build(
        cls,
        models: Sequence[PrivacyModel],
        sensitive: str | None,
        values: Sequence | None,
        numeric: bool,
        reference: np.ndarray | None,
    ) -> ModelSet:
        """Split ``models``; ``reference`` holds the original table's sensitive counts."""
        out = cls(list(models), sensitive, values, numeric, reference)
        for model in models:
            if isinstance(model, KAnonymity):
                out.min_size = max(out.min_size, int(model.k))
                continue
            if isinstance(model, LDiversity):
                out.min_distinct = max(out.min_distinct, _implied_distinct(model))
                if model.form == "distinct":
                    continue
            elif isinstance(model, TCloseness):
                size, coverage = _implied_by_t(model, reference, numeric)
                out.min_size = max(out.min_size, size)
                out.min_coverage = max(out.min_coverage, coverage)
            out.others.append(model)
            out.exact_filter = False
            if not isinstance(model, _KNOWN):
                out.monotone = False
        return out

    @property
    def needs_sensitive(self) -> bool:
        """Whether the frequency sets must keep the sensitive attribute."""
        return self.sensitive is not None and any(m.needs_sensitive for m in self.models)

    def filter(self, fs: FrequencySet) -> np.ndarray:
        """Classes failing the monotone filter."""
        fail = fs.sizes < self.min_size
        if self.min_distinct > 1:
            fail |= fs.n_distinct < self.min_distinct
        if self.min_coverage > 0.0:
            share = self.reference / self.reference.sum()
            covered = np.bincount(fs.cls, weights=share[fs.sa], minlength=fs.n_classes)
            fail |= covered < self.min_coverage - _SLACK
        return fail

    def groups(
        self, fs: FrequencySet, rows: np.ndarray | slice, cls: np.ndarray, n_classes: int
    ) -> Groups:
        """Frequency-set rows as :class:`Groups`, one group per class (``cls`` per row)."""
        if fs.sa is None or self.sensitive is None:
            return Groups.from_codes(("class",), [cls], [n_classes], weights=fs.counts[rows])
        return Groups.from_codes(
            ("class",),
            [cls],
            [n_classes],
            sensitive=self.sensitive,
            sa_codes=fs.sa[rows],
            values=self.values,
            numeric=self.numeric,
            weights=fs.counts[rows],
            reference=self.reference,
        )

    def failing(self, fs: FrequencySet, fail_filter: np.ndarray) -> tuple[np.ndarray, int]:
        """Classes failing some model, and the suppression every node below must keep.

        Returns
        -------
        fail : bool array over classes
            The filter's failures plus the classes ``group_ok`` rejects.
        deficit : int
            A lower bound of the records suppressed at every node below this one (this one
            included): the whole of each class failing the filter, and :func:`_deficits` of
            the others.
        """
        deficit = int(fs.sizes[fail_filter].sum())
        if not self.others:
            return fail_filter, deficit
        passing = np.flatnonzero(~fail_filter)
        if len(passing) == 0:
            return fail_filter, deficit
        keep = np.flatnonzero(~fail_filter[fs.cls])
        compact = np.cumsum(~fail_filter) - 1  # passing classes numbered 0..len(passing)-1
        groups = self.groups(fs, keep, compact[fs.cls[keep]], len(passing))
        ok = np.ones(groups.n_groups, dtype=bool)
        for model in self.others:
            ok &= model.group_ok(groups)
        fail = fail_filter.copy()
        fail[fs.cls[keep]] |= ~ok[groups.row_group]
        if not ok.all():
            need = np.zeros(groups.n_groups)
            for model in self.others:
                need = np.maximum(need, _deficits(model, groups))
            deficit += int(np.ceil(need[~ok] - _SLACK).clip(min=0).sum())
        return fail, deficit


def _deficits(model: PrivacyModel, groups: Groups) -> np.ndarray:
    """Records of each group that stay suppressed in every refinement of it.

    If the parts of a group are split into passing and failing ones, with a share ``F`` of the
    records in failing parts, then (concavity of entropy, convexity of the EMD to a fixed
    distribution, subadditivity of the largest count and superadditivity of the tail):

    - entropy ℓ: ``H >= (1 - F) log ℓ``, so ``F >= 1 - H / log ℓ``;
    - t-closeness: ``EMD <= (1 - F) t + F`` (an EMD never exceeds 1), so
      ``F >= (EMD - t) / (1 - t)``;
    - frequency ℓ: ``r_1 <= (n - s)/ℓ + s`` for ``s`` failing records, so
      ``s >= (r_1 - n/ℓ) / (1 - 1/ℓ)``;
    - recursive (c, ℓ): ``r_1 <= c·tail + s``, so ``s >= r_1 - c·tail``

    (thresholds widened by the checks' tolerance and a slack). Other models give 0.
    """
    sizes = groups.sizes.astype(np.float64)
    zero = np.zeros(groups.n_groups)
    if isinstance(model, TCloseness):
        t = model.t + _TOL + _SLACK
        if t >= 1.0:
            return zero
        emd, _ = group_emd(groups, model.distance, model.order, model.hierarchy)
        return sizes * np.maximum(emd - t, 0.0) / (1.0 - t)
    if not isinstance(model, LDiversity) or model.l <= 1:
        return zero
    if model.form == "entropy":
        log_l = math.log(model.l) - _TOL - _SLACK
        if log_l <= 0:
            return zero
        entropy = np.log(group_diversity(groups, "entropy"))
        return sizes * np.maximum(1.0 - entropy / log_l, 0.0)
    top = groups.max_count.astype(np.float64)
    if model.form == "frequency":
        share = 1.0 / model.l + _TOL + _SLACK
        return np.maximum(top - sizes * share, 0.0) / (1.0 - share)
    if model.form == "recursive":
        g = groups.pair_group
        order = np.lexsort((-groups.pair_count, g))
        counts = groups.pair_count[order].astype(np.float64)
        rank = np.arange(len(counts)) - groups.starts[g[order]]
        head = np.bincount(g[order], weights=counts * (rank < model.l - 1), minlength=len(sizes))
        return np.maximum(top - model.c * (sizes - head) - _SLACK, 0.0)
    return zero
