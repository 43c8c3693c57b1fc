"""Information-loss metrics of a full-domain generalization with record suppression.

``N`` is the number of input records, ``q`` the number of quasi-identifiers, a node's
*equivalence classes* are the groups of records with equal level labels, and ``S`` is the number
of suppressed records (those of classes failing some model). Every metric is minimized; each
equals the named measure computed on the published table.

``lm``
    Iyengar's loss metric, :func:`microanon.measures.loss_metric` with ``suppressed=S`` on the
    kept rows (or on the star-published rows): the mean over all ``N·q`` cells of
    ``(|leaves(v)| - 1) / (|domain| - 1)``, a suppressed cell costing the root's loss (1).
``precision``
    Sweeney's precision, :func:`microanon.measures.precision` with ``suppressed=S``: the search
    minimizes ``1 - precision`` (the mean of ``level(v) / height`` over all cells, a suppressed
    cell at full height) and reports the precision.
``discernibility``
    ``Σ_{kept classes} |E|² + S·N``, :func:`microanon.measures.discernibility` of the kept rows
    with ``suppressed=S``.
``aecs``
    ARX's average equivalence-class size, ``N / C`` where ``C`` is the number of classes of the
    star-published table: the kept classes plus one class of the suppressed records (none when
    nothing is suppressed; it merges with a kept class whose labels are all ``*``). This is
    :func:`microanon.measures.aecs` of the star-published table with ``k=1``.
``entropy``
    Non-uniform entropy (De Waal & Willenborg; as in ARX), in bits:
    ``Σ_records Σ_QI -log2 P(original value | published value)`` with
    ``P(v | g) = f(v) / f(g)``, ``f`` the frequencies of the original column (all ``N`` records)
    and ``f(g)`` the total over the leaves below ``g``; a suppressed cell has ``P = f(v) / N``.
``loss``
    ARX's Loss (Prasser & Kohlmayer's ARX; after Iyengar's loss metric), per attribute ``i``:
    a kept cell whose label covers ``m`` of the ``d_i`` leaves has the share ``s = m / d_i`` and
    costs ``g·s``, a suppressed cell costs ``s + t·(1 - s)`` (``s`` of the label it would have
    had); attribute ``i``'s loss is ``(Σ_cells cost - g·N/d_i) / (N - g·N/d_i)`` (0 when that is
    0/0), and the attributes' losses ``L_i`` are aggregated by their geometric mean
    ``Π(1 + L_i)^(1/q) - 1`` (default) or their arithmetic mean. ``g`` and ``t`` come from ARX's
    gsFactor ``γ`` in [0, 1]: ``t = 2γ`` and ``g = 1`` for ``γ < 1/2``, ``t = 1`` and
    ``g = 2 - 2γ`` above; the default ``γ = 1/2`` (``g = t = 1``) makes ``L_i`` attribute ``i``'s
    loss metric with suppressed cells at full loss, so the arithmetic mean is ``lm``. A metric
    given as ``"loss"`` has the defaults; options are given as a mapping
    ``{"name": "loss", "aggregate": "arithmetic", "gs_factor": 0.3}`` or in the canonical name
    ``"loss(aggregate=arithmetic, gs_factor=0.3)"`` (:func:`canonical_metric`).

A cell's node is the one :meth:`Hierarchy.node_of` resolves its published label to, as the
measures do.

Lower bounds (used by the exact search). ``lm``, ``precision`` and ``entropy`` cost
``kept(x) + penalty(suppressed records)``: ``kept(x)`` charges every record as if none were
suppressed and is a sum of one term per attribute and level (so it is computed for every node up
front), and the penalty of a suppressed record is ``cost(root) - cost(its cell)`` per attribute,
never negative (a cell's cost never exceeds the root's; for entropy the penalty of a cell with
label ``g`` is ``log2(N / f(g)) >= 0``). Hence ``kept(x)`` is a lower bound of the node's value,
exact when nothing is suppressed, and it never decreases up the lattice. ``discernibility`` is at
least ``Σ_{all classes} |E|²`` (a suppressed class costs ``|E|·N >= |E|²``), which only grows up
the lattice (merging classes adds ``2|A||B|``), is at least ``N² / #classes`` (Cauchy–Schwarz) and,
when every kept class has at least ``k`` records, at least ``k·N``. ``aecs`` is at least
``N / #classes`` (kept classes plus the suppressed class never exceed the node's classes), and
``#classes`` only shrinks up the lattice; with kept classes of at least ``k`` records it is at
least ``N / (N/k + 1)``. ``loss`` is bounded per attribute like ``lm`` (kept cost ``g·s`` summed
over all records; the penalty of a suppressed cell, ``(1 - g)·s + t·(1 - s)``, is never negative
and never grows with ``s``, since ``g = 1`` or ``t = 1``), and both aggregates grow with every
``L_i``, so the aggregate of the per-attribute bounds is a bound.

Evaluations refine the bounds of the nodes below (:meth:`Metric.refine`): the records that fail
the models' monotone filter at a node ``y`` are suppressed at every ``x <= y``, where each of
their cells costs at most what it costs at ``y`` kept, so their penalty at ``x`` is at least
their penalty at ``y``: ``value(x) >= kept(x) + penalty_y(filtered)`` (for ``loss`` per attribute,
then aggregated); for discernibility
``>= k·N + filtered·(N - k)`` and for aecs ``>= N / ((N - filtered)/k + 1)``. The penalty of a
suppressed record is computed from per-code record counts (exact integers), so a node's value
never depends on the order of rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...core.errors import InputError
from ...core.hierarchy import SUPPRESSED, Hierarchy, value_key
from ._lattice import Lattice
from ._lattice_frequencies import FrequencySet, LevelMaps

__all__ = ["LOSS_AGGREGATES", "METRICS", "Metric", "canonical_metric", "make_metric"]

#: Metric names accepted by the search.
METRICS = ("lm", "discernibility", "aecs", "precision", "entropy", "loss")

#: How ``loss`` aggregates the attributes' losses (the first is the default, as in ARX).
LOSS_AGGREGATES = ("geometric", "arithmetic")

#: ``loss``'s default gsFactor (ARX's): generalization and suppression weigh the same.
_GS_DEFAULT = 0.5

_LOSS_NAME = re.compile(r"loss\((.*)\)", re.DOTALL)

#: Values within this relative distance of the optimum count as ties (floating-point sums).
TIE_RTOL = 1e-10


class Metric:
    """A metric bound to one table: lower bounds for every node and the value of an evaluation."""

    name: str
    #: Whether an evaluation raises the bounds of the nodes above it (from its classes), so
    #: that the search gains from evaluating low nodes it could otherwise tag unevaluated.
    learns_above: bool = False

    def __init__(self, n_records: int) -> None:
        self.n = n_records

    def bounds(self, lattice: Lattice) -> np.ndarray:
        """Lower bound of the value of every node."""
        return self.bound_of(lattice.levels)

    def bound_of(self, levels: np.ndarray) -> np.ndarray:
        """Lower bound of the value of the nodes of a ``(m, q)`` array of level vectors.

        The bound :meth:`bounds` gives every node of a lattice, before any :meth:`refine`; it
        never decreases from a node to its successors, and needs no lattice (the heuristic
        search evaluates it on a few nodes of lattices too big to enumerate).
        """
        raise NotImplementedError

    def value(self, fs: FrequencySet, fail: np.ndarray, suppressed: int) -> float:
        """Value of a node given its frequency set and its failing classes."""
        raise NotImplementedError

    def refine(
        self,
        bounds: np.ndarray,
        lattice: Lattice,
        node: int,
        fs: FrequencySet,
        filtered: int,
        filter_value: float | None,
    ) -> None:
        """Raise bounds after evaluating ``node``.

        ``filtered`` records fail the models' filter at ``node``; they are suppressed at every
        node below it too. ``filter_value`` is the node's value with just those suppressed (a
        lower bound of its value), or None when the filter alone exceeds the limit.
        """

    def report(self, value: float) -> float:
        """The value published in the release metadata."""
        return float(value)

    def tolerance(self, best: float) -> float:
        """Largest difference from the optimum that still counts as a tie."""
        return TIE_RTOL * max(abs(best), 1e-300)


class _Additive(Metric):
    """``norm · Σ_cells cost``: per-attribute kept costs plus a per-code suppression penalty."""

    def __init__(
        self,
        n_records: int,
        maps: LevelMaps,
        kept: list[np.ndarray],
        penalty: list[list[np.ndarray]],
        norm: float,
    ) -> None:
        super().__init__(n_records)
        self.maps = maps
        self.kept = kept  # kept[i][level]: cost of column i when every record is kept
        self.penalty = penalty  # penalty[i][level][code]: extra cost of a suppressed record
        self.norm = norm
        self._bounds: np.ndarray | None = None

    def bounds(self, lattice: Lattice) -> np.ndarray:
        self._bounds = lattice.grid_sum(self.kept) * self.norm  # (as bound_of sums them)
        return self._bounds.copy()

    def bound_of(self, levels: np.ndarray) -> np.ndarray:
        levels = np.asarray(levels).reshape(-1, len(self.kept))
        total = np.zeros(len(levels))
        for i in range(len(self.kept)):
            total += self.kept[i][levels[:, i]]
        return total * self.norm

    def refine(
        self,
        bounds: np.ndarray,
        lattice: Lattice,
        node: int,
        fs: FrequencySet,
        filtered: int,
        filter_value: float | None,
    ) -> None:
        # A record suppressed here is suppressed below, where its cells cost less kept, so its
        # penalty there is at least its penalty here.
        if filter_value is None or filtered == 0:
            return
        penalty = filter_value - float(self._bounds[node])
        if bounds[node] > float(self._bounds[node]) + penalty:
            # A node above lifted this one by a larger penalty, and every node below it with
            # it (rounding is monotone: no bound below would change).
            return
        below = lattice.view_below(bounds, node)
        np.maximum(below, lattice.view_below(self._bounds, node) + penalty, out=below)

    def value(self, fs: FrequencySet, fail: np.ndarray, suppressed: int) -> float:
        base = float(self.bound_of(fs.levels)[0])
        if suppressed == 0:
            return base
        rows = np.flatnonzero(fail[fs.cls])  # (the suppressed rows: found once, often few)
        w = fs.counts.take(rows).astype(np.float64)
        extra = 0.0
        for i, lv in enumerate(fs.levels):
            pen = self.penalty[i][int(lv)]
            per_code = np.bincount(fs.codes[i].take(rows), weights=w, minlength=len(pen))
            extra += float(np.dot(per_code, pen))
        return base + extra * self.norm


def _node_costs(
    h: Hierarchy, level: int, cost: Callable[[Hierarchy, np.ndarray], np.ndarray]
) -> np.ndarray:
    """Cost of each level code, via the node its label resolves to (as the measures do)."""
    return cost(h, h.label_nodes(level))


def _lm_cost(h: Hierarchy, nodes: np.ndarray) -> np.ndarray:
    d = h.n_leaves
    if d <= 1:
        return np.zeros(len(nodes))
    return (h.leaf_count(nodes) - 1) / (d - 1)


def _precision_cost(h: Hierarchy, nodes: np.ndarray) -> np.ndarray:
    if h.height == 0:
        return np.zeros(len(nodes))
    return h.node_level(nodes) / h.height


def _cell_metric(
    name: str,
    hierarchies: Sequence[Hierarchy],
    leaf_counts: Sequence[np.ndarray],
    maps: LevelMaps,
    n: int,
) -> _Additive:
    """LM or 1 - precision: a cost per published label, the root's for a suppressed cell."""
    fn = _lm_cost if name == "lm" else _precision_cost
    kept, penalty = [], []
    for h, f in zip(hierarchies, leaf_counts, strict=True):
        root = float(fn(h, np.zeros(1, dtype=np.int64))[0])
        k_i, p_i = [], []
        for lv in range(h.n_levels):
            cost = _node_costs(h, lv, fn)
            per_code = np.bincount(h.level_codes(lv), weights=f, minlength=len(cost))
            k_i.append(float(np.dot(per_code, cost)))
            p_i.append(root - cost)
        kept.append(np.asarray(k_i))
        penalty.append(p_i)
    cls = _Precision if name == "precision" else _LossMetric
    return cls(n, maps, kept, penalty, 1.0 / (n * len(hierarchies)))


def _entropy_metric(
    hierarchies: Sequence[Hierarchy], leaf_counts: Sequence[np.ndarray], maps: LevelMaps, n: int
) -> _Additive:
    """Non-uniform entropy: ``Σ f(v) log2(f(g)/f(v))`` kept, ``log2(N/f(g))`` per suppression."""
    kept, penalty = [], []
    for h, f in zip(hierarchies, leaf_counts, strict=True):
        f = np.asarray(f, dtype=np.float64)
        present = f > 0
        k_i, p_i = [], []
        for lv in range(h.n_levels):
            codes = h.level_codes(lv)
            fg = np.bincount(codes, weights=f, minlength=len(h.level_labels(lv)))
            ratio = np.ones_like(f)
            ratio[present] = fg[codes[present]] / f[present]
            k_i.append(float(np.dot(f, np.log2(ratio))))
            pen = np.zeros(len(fg))
            pen[fg > 0] = np.log2(n / fg[fg > 0])
            p_i.append(pen)
        kept.append(np.asarray(k_i))
        penalty.append(p_i)
    return _Entropy(n, maps, kept, penalty, 1.0)


class _LossMetric(_Additive):
    name = "lm"


class _Entropy(_Additive):
    name = "entropy"


class _Precision(_Additive):
    """Minimizes ``1 - precision``; reports the precision."""

    name = "precision"

    def report(self, value: float) -> float:
        return 1.0 - float(value)


class _Discernibility(Metric):
    """``Σ kept |E|² + S·N``; bounds from class counts and from evaluated nodes below."""

    name = "discernibility"
    learns_above = True

    def __init__(self, n_records: int, max_classes: _MaxClasses, min_kept: int) -> None:
        super().__init__(n_records)
        self.max_classes = max_classes  # per node: an upper bound of its number of classes
        self.min_kept = min_kept

    def bound_of(self, levels: np.ndarray) -> np.ndarray:
        n = float(self.n)
        classes = self.max_classes(levels)
        return np.maximum(n * n / classes, float(min(self.min_kept, self.n)) * n)

    def value(self, fs: FrequencySet, fail: np.ndarray, suppressed: int) -> float:
        kept = fs.sizes[~fail]
        return float(int(np.dot(kept, kept)) + suppressed * self.n)

    def refine(
        self,
        bounds: np.ndarray,
        lattice: Lattice,
        node: int,
        fs: FrequencySet,
        filtered: int,
        filter_value: float | None,
    ) -> None:
        total = float(int(np.dot(fs.sizes, fs.sizes)))
        n = float(self.n)
        above = lattice.view_above(bounds, node)
        np.maximum(above, max(total, n * n / fs.n_classes), out=above)
        if filter_value is not None and filtered:
            # Below, at least these records are suppressed (N each) and the kept classes have
            # at least k records: k (N - S) + S N >= k N + filtered (N - k).
            k = float(min(self.min_kept, self.n))
            below = lattice.view_below(bounds, node)
            np.maximum(below, k * n + filtered * (n - k), out=below)

    def report(self, value: float) -> int:
        return int(value)

    def tolerance(self, best: float) -> float:
        return 0.0


class _Aecs(Metric):
    """``N / C`` with the suppressed records as one class."""

    name = "aecs"
    learns_above = True

    def __init__(
        self, n_records: int, max_classes: _MaxClasses, star: list[np.ndarray], min_kept: int
    ) -> None:
        super().__init__(n_records)
        self.max_classes = max_classes
        self.star = star  # star[i][level]: the level code labelled "*", or -1
        self.min_kept = min_kept

    def bound_of(self, levels: np.ndarray) -> np.ndarray:
        n = float(self.n)
        k = float(max(min(self.min_kept, self.n), 1))
        return np.maximum(n / self.max_classes(levels), n / (n / k + 1.0))

    def value(self, fs: FrequencySet, fail: np.ndarray, suppressed: int) -> float:
        kept = int(np.count_nonzero(~fail))
        classes = kept
        if suppressed:
            all_star = ~fail[fs.cls]
            for i, lv in enumerate(fs.levels):
                all_star &= fs.codes[i] == self.star[i][int(lv)]
            classes += 0 if all_star.any() else 1
        return self.n / classes

    def refine(
        self,
        bounds: np.ndarray,
        lattice: Lattice,
        node: int,
        fs: FrequencySet,
        filtered: int,
        filter_value: float | None,
    ) -> None:
        above = lattice.view_above(bounds, node)
        np.maximum(above, self.n / fs.n_classes, out=above)
        if filter_value is not None and filtered:
            # Below, at most N - filtered records are kept, in classes of at least k records.
            k = float(max(min(self.min_kept, self.n), 1))
            below = lattice.view_below(bounds, node)
            np.maximum(below, self.n / ((self.n - filtered) / k + 1.0), out=below)


class _MaxClasses:
    """An upper bound of the number of classes of nodes: the table's classes at the bottom,
    and the product of the codes each attribute's level holds records of."""

    def __init__(self, occupied: list[np.ndarray], bottom: float) -> None:
        self.occupied = occupied
        self.bottom = bottom

    def __call__(self, levels: np.ndarray) -> np.ndarray:
        levels = np.asarray(levels).reshape(-1, len(self.occupied))
        prod = np.ones(len(levels))
        for i, occ in enumerate(self.occupied):
            prod *= occ[levels[:, i]]
        return np.minimum(np.full(len(levels), self.bottom), prod)


def canonical_metric(metric: Any) -> str:
    """The canonical name of a metric: one of :data:`METRICS`, or ARX's Loss with its options.

    Parameters
    ----------
    metric : str or mapping
        A name of :data:`METRICS`; a canonical Loss name such as
        ``"loss(aggregate=arithmetic, gs_factor=0.3)"``; or a mapping ``{"name": "loss",
        "aggregate": "geometric" | "arithmetic", "gs_factor": γ}`` (the options may be left
        out: ARX's defaults, the geometric mean and ``γ = 0.5``).

    Returns
    -------
    str
        The name, ``"loss"`` for Loss with the default options, else
        ``"loss(aggregate=..., gs_factor=...)"``: what the release metadata records.

    Raises
    ------
    InputError
        An unknown metric, options for a metric other than ``loss``, an unknown option, an
        aggregate not in :data:`LOSS_AGGREGATES` or a gsFactor outside [0, 1].
    """
    name, options = _parse_metric(metric)
    if name != "loss":
        return name
    aggregate, gs = options["aggregate"], options["gs_factor"]
    if aggregate == LOSS_AGGREGATES[0] and gs == _GS_DEFAULT:
        return "loss"
    return f"loss(aggregate={aggregate}, gs_factor={gs!r})"


def _parse_metric(metric: Any) -> tuple[str, dict[str, Any]]:
    """A metric (as :func:`canonical_metric` takes it) validated: its base name and options.

    The options are ``{}`` but for ``loss``: ``{"aggregate": str, "gs_factor": float}``, ARX's
    defaults filled in. Raises :class:`InputError` as :func:`canonical_metric` documents.
    """
    if isinstance(metric, Mapping):
        options = dict(metric)
        name = options.pop("name", None)
        if name != "loss":
            if name in METRICS and not options:
                return str(name), {}
            if name in METRICS:
                raise InputError(f"metric {name!r} takes no options, got {sorted(options)}")
            raise InputError(f"metric name must be 'loss' when options are given, got {name!r}")
    elif isinstance(metric, str) and (found := _LOSS_NAME.fullmatch(metric.strip())):
        options = {}
        for part in filter(None, (p.strip() for p in found.group(1).split(","))):
            key, sep, value = part.partition("=")
            if not sep:
                raise InputError(f"metric option {part!r} is not key=value in {metric!r}")
            options[key.strip()] = value.strip()
    elif isinstance(metric, str) and metric in METRICS:
        if metric != "loss":
            return metric, {}
        options = {}
    else:
        raise InputError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    unknown = sorted(set(options) - {"aggregate", "gs_factor"})
    if unknown:
        raise InputError(f"unknown option(s) of metric 'loss': {', '.join(map(str, unknown))}")
    aggregate = options.get("aggregate", LOSS_AGGREGATES[0])
    if aggregate not in LOSS_AGGREGATES:
        raise InputError(
            f"metric 'loss': aggregate must be one of {', '.join(LOSS_AGGREGATES)}, "
            f"got {aggregate!r}"
        )
    gs = options.get("gs_factor", _GS_DEFAULT)
    try:
        gs = float(gs)
    except (TypeError, ValueError):
        raise InputError(f"metric 'loss': gs_factor must be a number, got {gs!r}") from None
    if isinstance(options.get("gs_factor"), bool) or not 0.0 <= gs <= 1.0:
        raise InputError(f"metric 'loss': gs_factor must be in [0, 1], got {gs!r}")
    return "loss", {"aggregate": str(aggregate), "gs_factor": gs}


class _Loss(Metric):
    """ARX's Loss: per-attribute losses, each an affine map of additive costs, aggregated."""

    name = "loss"

    def __init__(
        self,
        n_records: int,
        kept: list[np.ndarray],
        penalty: list[list[np.ndarray]],
        low: np.ndarray,
        span: np.ndarray,
        geometric: bool,
    ) -> None:
        super().__init__(n_records)
        self.kept = kept  # kept[i][level]: Σ g·s over all records, none suppressed
        self.penalty = penalty  # penalty[i][level][code]: extra cost of one suppressed record
        self.low = low  # per attribute: g·N/d, the cost at the bottom with nothing suppressed
        self.span = span  # per attribute: N - low (0 when the loss is always 0)
        self.geometric = geometric
        self._pending: dict[float, np.ndarray] = {}
        self._pending_node: tuple[int, ...] = ()

    def _losses(self, raw: np.ndarray) -> np.ndarray:
        """Per-attribute losses (last axis) of raw per-attribute costs."""
        out = np.zeros(np.shape(raw))
        ok = self.span > 0
        out[..., ok] = (raw[..., ok] - self.low[ok]) / self.span[ok]
        return np.maximum(out, 0.0)

    def _aggregate(self, losses: np.ndarray) -> np.ndarray:
        q = losses.shape[-1]
        if self.geometric:
            return np.exp(np.log1p(losses).sum(axis=-1) / q) - 1.0
        return losses.sum(axis=-1) / q

    def _raw_of(self, levels: np.ndarray) -> np.ndarray:
        """Per-attribute kept costs of ``(m, q)`` level vectors, as an ``(m, q)`` array."""
        levels = np.asarray(levels).reshape(-1, len(self.kept))
        return np.stack([self.kept[i][levels[:, i]] for i in range(len(self.kept))], axis=1)

    def bounds(self, lattice: Lattice) -> np.ndarray:
        self._raw = self._raw_of(lattice.levels)
        return self._aggregate(self._losses(self._raw))

    def bound_of(self, levels: np.ndarray) -> np.ndarray:
        return self._aggregate(self._losses(self._raw_of(levels)))

    def value(self, fs: FrequencySet, fail: np.ndarray, suppressed: int) -> float:
        node = tuple(np.asarray(fs.levels).tolist())
        extra = np.zeros(len(self.kept))
        if suppressed:
            rows = fail[fs.cls]
            w = fs.counts[rows].astype(np.float64)
            for i, lv in enumerate(fs.levels):
                pen = self.penalty[i][int(lv)]
                per_code = np.bincount(fs.codes[i][rows], weights=w, minlength=len(pen))
                extra[i] = float(np.dot(per_code, pen))
        value = float(self._aggregate(self._losses(self._raw_of(fs.levels)[0] + extra)))
        # refine() needs the per-attribute penalty of the filter's records at this node.
        if node != self._pending_node:
            self._pending, self._pending_node = {}, node
        self._pending[value] = extra
        return value

    def refine(
        self,
        bounds: np.ndarray,
        lattice: Lattice,
        node: int,
        fs: FrequencySet,
        filtered: int,
        filter_value: float | None,
    ) -> None:
        # The filter's records are suppressed below too, each cell costing there at least its
        # penalty here (the penalty never grows with the share): per attribute, then aggregated.
        if (
            filter_value is None
            or filtered == 0
            or tuple(lattice.levels[node].tolist()) != self._pending_node
        ):
            return
        extra = self._pending.get(filter_value)
        if extra is None:
            return
        below = lattice.view_below(bounds, node)
        raised = self._aggregate(self._losses(lattice.view_below(self._raw, node) + extra))
        np.maximum(below, raised, out=below)


def _share(h: Hierarchy, nodes: np.ndarray) -> np.ndarray:
    return h.leaf_count(nodes) / max(h.n_leaves, 1)


def _loss_metric(
    hierarchies: Sequence[Hierarchy],
    leaf_counts: Sequence[np.ndarray],
    n: int,
    aggregate: str,
    gs_factor: float,
) -> _Loss:
    """ARX's Loss with gsFactor ``gs_factor``: kept cells ``g·s``, suppressed ``s + t·(1 - s)``."""
    t = 2.0 * gs_factor if gs_factor < 0.5 else 1.0
    g = 1.0 if gs_factor <= 0.5 else 2.0 - 2.0 * gs_factor
    kept, penalty, low = [], [], []
    for h, f in zip(hierarchies, leaf_counts, strict=True):
        k_i, p_i = [], []
        for lv in range(h.n_levels):
            share = _node_costs(h, lv, _share)
            per_code = np.bincount(h.level_codes(lv), weights=f, minlength=len(share))
            k_i.append(g * float(np.dot(per_code, share)))
            p_i.append((1.0 - g) * share + t * (1.0 - share))
        kept.append(np.asarray(k_i))
        penalty.append(p_i)
        low.append(g * n / max(h.n_leaves, 1))
    low_a = np.asarray(low)
    span = float(n) - low_a
    span[span <= 1e-12 * max(n, 1)] = 0.0
    return _Loss(n, kept, penalty, low_a, span, aggregate == "geometric")


def make_metric(
    name: str,
    lattice: Lattice | None,
    hierarchies: Sequence[Hierarchy],
    leaf_counts: Sequence[np.ndarray],
    maps: LevelMaps,
    n_records: int,
    bottom_classes: int,
    min_kept: int,
) -> Metric:
    """Build a metric for one table.

    Parameters
    ----------
    name : one of :data:`METRICS`, or ``loss`` with options (see :func:`canonical_metric`)
    lattice : Lattice or None
        Unused (the bounds are computed from level vectors, :meth:`Metric.bound_of`).
    hierarchies : the quasi-identifiers' hierarchies, in lattice order
    leaf_counts : records per leaf of each quasi-identifier
    maps : LevelMaps
    n_records : N
    bottom_classes : number of classes of the bottom node
    min_kept : a size every kept class has in a feasible node (from k and ℓ), for bounds
    """
    name, options = _parse_metric(name)
    if name == "loss":
        return _loss_metric(hierarchies, leaf_counts, n_records, **options)
    if name in ("lm", "precision"):
        return _cell_metric(name, hierarchies, leaf_counts, maps, n_records)
    if name == "entropy":
        return _entropy_metric(hierarchies, leaf_counts, maps, n_records)
    # Upper bound of the number of classes: the product of the occupied codes per attribute.
    occupied = []
    for h, f in zip(hierarchies, leaf_counts, strict=True):
        occ = [
            np.count_nonzero(np.bincount(h.level_codes(lv), weights=f) > 0)
            for lv in range(h.n_levels)
        ]
        occupied.append(np.asarray(occ, dtype=np.float64))
    max_classes = _MaxClasses(occupied, float(min(bottom_classes, n_records)))
    if name == "discernibility":
        return _Discernibility(n_records, max_classes, min_kept)
    star = []
    for h in hierarchies:
        s = []
        for lv in range(h.n_levels):
            keys = [value_key(x) for x in h.level_labels(lv)]
            s.append(keys.index(SUPPRESSED) if SUPPRESSED in keys else -1)
        star.append(s)
    return _Aecs(n_records, max_classes, star, min_kept)
