"""The respondent's view of a survey: one taxonomy per attribute, values as integer node codes.

A :class:`Survey` fixes the attributes of the collected tuples — the quasi-identifiers in order,
then the one sensitive attribute — and a taxonomy (a core :class:`~microanon.core.Hierarchy`) for
each. A *value* of an attribute is any node of its taxonomy; its integer code is its rank in the
taxonomy's pre-order (the root is 0), which depends on the tree alone. A base tuple holds leaves
only; a generalized tuple ``t ⪰ o`` holds, for every attribute, an ancestor-or-self of ``o``'s value
(the model of Zhang & Zhang, *Generalization-Based Privacy-Preserving Data Collection*, DaWaK 2008).

Leaf weights ``l(·)`` are the hierarchies' weights (uniform by default; set them with
:meth:`Hierarchy.with_weights`, e.g. to value frequencies the adversary knows). They must be
positive. ``l(v)`` is the total weight of the leaves under ``v`` and ``l(a, v)`` the weight of the
base value ``a`` if ``v`` covers it, else 0. Every mass is held twice: exactly, as the
:class:`~fractions.Fraction` sum of the (binary floating-point) leaf weights, and as the float64
nearest to that sum; the exact values decide the cases that floating point cannot
(:mod:`.gtr`).

The value loss is ``L(v) = (I(v) − 1) / I(r_A)`` with ``I(v)`` the number of leaves under ``v``
(variant ``"paper"``, as the paper prints it) or ``(I(v) − 1) / (I(r_A) − 1)`` (``"normalized"``:
the root costs 1; an attribute with a single leaf costs 0). ``L(t)`` sums the value losses of all
attributes, sensitive included. Losses are exact fractions; internally they are integers over a
common denominator so that ties are ties.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from ...core.errors import HierarchyError, InputError, SchemaError
from ...core.hierarchy import Hierarchy, TreeArrays
from ...core.schema import Schema

__all__ = ["LOSS_VARIANTS", "Survey", "Taxonomy"]

LOSS_VARIANTS: tuple[str, ...] = ("paper", "normalized")
"""Names of the value-loss variants."""


def check_loss_variant(loss: Any) -> str:
    """Return ``loss`` if it names a value-loss variant, else raise :class:`InputError`."""
    if loss not in LOSS_VARIANTS:
        raise InputError(f"loss must be one of {', '.join(LOSS_VARIANTS)}, got {loss!r}")
    return str(loss)


class Taxonomy(TreeArrays):
    """One attribute's taxonomy: a core hierarchy with pre-order node codes and exact weights.

    The tree arrays (``parent``, ``lo``, ``hi``, ``leaf_count``, ``leaf_node``, ``is_leaf``,
    ``ancestors``, ...) are those of :class:`~microanon.core.hierarchy.TreeArrays` in pre-order;
    this class adds the leaf weights ``l(·)`` of the collection model, exactly and as floats.

    Parameters
    ----------
    name : str
        The attribute.
    hierarchy : Hierarchy
        Its taxonomy; leaf weights are taken from it and must be positive.

    Attributes
    ----------
    n_nodes : int
        Size of the code space: codes are ``0 .. n_nodes - 1``, the nodes in pre-order (0 is the
        root; children follow their leaf order), so they depend on the tree alone. They are part
        of the collected-set wire format.
    parent : ndarray of int64
        Parent code of every node (-1 for the root).
    lo, hi : ndarray of int64
        Every node covers the leaf positions ``lo <= i < hi`` (depth-first leaf order).
    leaf_count : ndarray of int64
        ``I(v)``, the number of leaves under each node.
    leaf_node : ndarray of int64
        Code of each leaf, by leaf position.
    ancestors : ndarray of int64, shape (height + 1, n_leaves)
        ``ancestors[k, i]`` is the k-th ancestor of the leaf at position ``i`` (row 0 the leaf
        itself), -1 above the root. ``chain(leaf)`` reads one column.
    weight : ndarray of float64
        ``l(v)`` of every node, the float nearest to the exact sum.
    weight_exact : list of Fraction
        ``l(v)`` of every node, exactly.
    leaf_weight : ndarray of float64
        Weight of each leaf, by leaf position (as given; exactly ``leaf_weight_exact``).
    weight_class : ndarray of int64
        Nodes with the same exact ``l(v)`` share a class id (used to group terms exactly).
    """

    def __init__(self, name: str, hierarchy: Hierarchy) -> None:
        if not isinstance(hierarchy, Hierarchy):
            raise InputError(
                f"attribute '{name}': a taxonomy must be a Hierarchy, "
                f"got {type(hierarchy).__name__}"
            )
        super().__init__(hierarchy, order="preorder")
        self.name = name
        h = hierarchy
        w = h.weights
        if not np.all(w > 0):
            bad = [h.leaves[i] for i in np.flatnonzero(~(w > 0))[:5]]
            raise HierarchyError(
                f"attribute '{name}': leaf weights must be positive; "
                f"{', '.join(map(repr, bad))} have weight 0 (add a small pseudo-count)"
            )
        self.leaf_weight = w
        self.leaf_weight_exact = [Fraction(float(x)) for x in w]
        cum = [Fraction(0)]
        for x in self.leaf_weight_exact:
            cum.append(cum[-1] + x)
        self.weight_exact = [
            cum[int(b)] - cum[int(a)] for a, b in zip(self.lo, self.hi, strict=True)
        ]
        self.weight = np.array([float(x) for x in self.weight_exact])
        classes: dict[Fraction, int] = {}
        self.weight_class = np.array(
            [classes.setdefault(x, len(classes)) for x in self.weight_exact], dtype=np.int64
        )
        #: Exact weight of each class id.
        self.class_weight_exact = list(classes)

    # ------------------------------------------------------------------ lookups
    def chain(self, leaf: int) -> np.ndarray:
        """Codes of the leaf ``leaf`` (a code) and its ancestors, leaf first, root last."""
        col = self.ancestors[:, self.leaf_position(leaf)]
        return col[col >= 0]

    def covers(self, nodes: np.ndarray | int, leaf: int) -> np.ndarray:
        """Whether each node is an ancestor-or-self of the leaf ``leaf`` (a code)."""
        i = self.leaf_position(leaf)
        nodes = np.asarray(nodes)
        return (self.lo[nodes] <= i) & (i < self.hi[nodes])

    def generalizes(self, node: int, other: int) -> bool:
        """Whether ``node`` is ``other`` or one of its ancestors (``node ⪰ other``)."""
        return bool(self.lo[node] <= self.lo[other] and self.hi[other] <= self.hi[node])

    def code(self, value: Any) -> int:
        """Code of a value (a leaf or a generalized label)."""
        try:
            return int(self.code_of_node[self.hierarchy.node_of([value], column=self.name)[0]])
        except HierarchyError:
            raise HierarchyError(
                f"attribute '{self.name}': value {value!r} is not in its taxonomy"
            ) from None

    def base_code(self, value: Any) -> int:
        """Code of a base value; raises if ``value`` is a generalized (inner) value."""
        node = self.code(value)
        if not self.is_leaf[node]:
            raise InputError(
                f"attribute '{self.name}': {value!r} is a generalized value; a respondent's "
                "tuple must hold base values (leaves of the taxonomy)"
            )
        return node

    def pair_weight_exact(self, leaf: int, node: int) -> Fraction:
        """``l(a, v)``: the weight of the base value ``leaf`` (a code) inside ``node``."""
        if not self.generalizes(node, leaf):
            return Fraction(0)
        return self.leaf_weight_exact[self.leaf_position(leaf)]

    def __repr__(self) -> str:
        return f"<Taxonomy '{self.name}': {self.n_nodes} nodes, {self.n_leaves} leaves>"


class Survey:
    """The attributes of a data collection and their taxonomies.

    Parameters
    ----------
    hierarchies : mapping of str to Hierarchy
        A taxonomy for every attribute named in ``quasi`` and ``sensitive`` (others are ignored).
        Leaf weights come from the hierarchies and must be positive.
    quasi : sequence of str
        Quasi-identifiers, in the order tuples list them.
    sensitive : str
        The sensitive attribute; it comes last in every tuple.

    Raises
    ------
    InputError
        If there is no quasi-identifier, an attribute is named twice or has no taxonomy.
    HierarchyError
        If a leaf weight is not positive.

    Examples
    --------
    >>> from microanon.core import Hierarchy
    >>> age = Hierarchy.from_nested({"Any": {"20-29": ["20-24", "25-29"]}})
    >>> disease = Hierarchy.from_nested({"AnyD": {"Resp": ["Flu", "Cold"]}})
    >>> s = Survey({"age": age, "disease": disease}, quasi=["age"], sensitive="disease")
    >>> s.attributes
    ['age', 'disease']
    >>> s.loss(["20-29", "Flu"])
    Fraction(1, 2)
    """

    def __init__(
        self, hierarchies: Mapping[str, Hierarchy], quasi: Sequence[str], sensitive: str
    ) -> None:
        if isinstance(quasi, str):
            quasi = [quasi]
        quasi = [str(q) for q in quasi]
        if not quasi:
            raise InputError("a survey needs at least one quasi-identifier")
        if not isinstance(sensitive, str):
            raise InputError(
                f"sensitive must be one attribute name (a string), got {type(sensitive).__name__}"
            )
        names = [*quasi, sensitive]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise InputError(f"survey names attribute(s) more than once: {', '.join(dup)}")
        missing = [n for n in names if n not in hierarchies]
        if missing:
            raise InputError(
                f"no taxonomy for attribute(s) {', '.join(map(repr, missing))}; every quasi-"
                "identifier and the sensitive attribute needs one"
            )
        self.quasi: list[str] = quasi
        self.sensitive: str = sensitive
        self.taxonomies: list[Taxonomy] = [Taxonomy(n, hierarchies[n]) for n in names]
        smallest = math.fsum(
            math.log10(tx.leaf_weight.min() / tx.weight[0]) for tx in self.taxonomies[:-1]
        )
        if smallest < -290:
            raise InputError(
                "the quasi-identifier taxonomies are too large for float64: the smallest "
                f"φ_QI would be about 1e{smallest:.0f}; use fewer or coarser quasi-identifiers"
            )
        self._loss_cache: dict[str, tuple[list[np.ndarray], int]] = {}

    @classmethod
    def from_schema(cls, schema: Schema) -> Survey:
        """A survey over a schema's quasi-identifiers and its one sensitive attribute.

        Raises
        ------
        SchemaError
            If the schema has no or several sensitive attributes, or a column lacks a hierarchy.
        """
        if len(schema.sensitive) != 1:
            raise SchemaError(
                "a survey needs exactly one sensitive attribute; the schema has "
                f"{len(schema.sensitive)} ({', '.join(schema.sensitive) or 'none'})"
            )
        names = [*schema.quasi, *schema.sensitive]
        return cls({n: schema.hierarchy(n) for n in names}, schema.quasi, schema.sensitive[0])

    # ------------------------------------------------------------------ structure
    @property
    def attributes(self) -> list[str]:
        """Quasi-identifiers in order, then the sensitive attribute."""
        return [*self.quasi, self.sensitive]

    @property
    def n_attributes(self) -> int:
        """Number of attributes of a tuple (quasi-identifiers + 1)."""
        return len(self.taxonomies)

    @property
    def sa(self) -> Taxonomy:
        """The sensitive attribute's taxonomy."""
        return self.taxonomies[-1]

    @property
    def quasi_taxonomies(self) -> list[Taxonomy]:
        """The quasi-identifiers' taxonomies, in order."""
        return self.taxonomies[:-1]

    @property
    def cardinalities(self) -> tuple[int, ...]:
        """Size of each attribute's code space (its number of nodes)."""
        return tuple(t.n_nodes for t in self.taxonomies)

    @property
    def sa_values(self) -> list[Any]:
        """Base values of the sensitive attribute, in leaf order (the order of per-value arrays)."""
        return [self.sa.label(v) for v in self.sa.leaf_node]

    @cached_property
    def sa_share(self) -> np.ndarray:
        """``φ_SA(a, v) = l(a, v) / l(v)`` as floats, shape (SA nodes, SA base values)."""
        return np.array([[float(x) for x in row] for row in self.sa_share_exact])

    @cached_property
    def sa_share_exact(self) -> list[list[Fraction]]:
        """``φ_SA(a, v)`` exactly: one row per SA node, one column per base value."""
        t = self.sa
        out = []
        for v in range(t.n_nodes):
            row = [Fraction(0)] * t.n_leaves
            for i in range(int(t.lo[v]), int(t.hi[v])):
                row[i] = t.leaf_weight_exact[i] / t.weight_exact[v]
            out.append(row)
        return out

    # ------------------------------------------------------------------ encoding
    def _values(self, t: Sequence[Any] | Mapping[str, Any], what: str) -> list[Any]:
        names = self.attributes
        if isinstance(t, Mapping):
            extra = [k for k in t if k not in names]
            missing = [n for n in names if n not in t]
            if extra or missing:
                parts = []
                if missing:
                    parts.append(f"missing {', '.join(map(repr, missing))}")
                if extra:
                    parts.append(f"unknown {', '.join(map(repr, extra))}")
                raise InputError(f"{what}: {'; '.join(parts)}; attributes: {', '.join(names)}")
            return [t[n] for n in names]
        if isinstance(t, (str, bytes)) or not isinstance(t, (Sequence, np.ndarray)):
            raise InputError(
                f"{what} must be a sequence of {len(names)} values or a mapping by attribute, "
                f"got {type(t).__name__}"
            )
        values = list(t)
        if len(values) != len(names):
            raise InputError(
                f"{what} has {len(values)} value(s); the survey has {len(names)} attributes "
                f"({', '.join(names)})"
            )
        return values

    def encode(self, t: Sequence[Any] | Mapping[str, Any], what: str = "tuple") -> np.ndarray:
        """Codes of a (possibly generalized) tuple given by labels, in attribute order.

        Raises
        ------
        InputError
            Wrong number of values, or a mapping with missing or unknown attributes.
        HierarchyError
            A value that is not in its attribute's taxonomy.
        """
        values = self._values(t, what)
        return np.array([tx.code(v) for tx, v in zip(self.taxonomies, values, strict=True)])

    def encode_base(self, o: Sequence[Any] | Mapping[str, Any]) -> np.ndarray:
        """Codes of a respondent's base tuple; every value must be a leaf."""
        values = self._values(o, "respondent's tuple")
        return np.array([tx.base_code(v) for tx, v in zip(self.taxonomies, values, strict=True)])

    def check_codes(self, codes: np.ndarray, what: str = "codes") -> np.ndarray:
        """Validate an integer code matrix (rows = tuples) and return it as int64."""
        arr = np.asarray(codes)
        if arr.ndim == 1:
            arr = arr.reshape(1, -1) if arr.size else arr.reshape(0, self.n_attributes)
        if arr.ndim != 2 or arr.shape[1] != self.n_attributes:
            raise InputError(
                f"{what}: expected {self.n_attributes} codes per tuple, got shape {arr.shape}"
            )
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise InputError(f"{what}: codes must be integers, got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
        card = np.asarray(self.cardinalities)
        bad = (arr < 0) | (arr >= card)
        if np.any(bad):
            col = int(np.flatnonzero(bad.any(axis=0))[0])
            raise InputError(
                f"{what}: code(s) of attribute '{self.attributes[col]}' outside 0..{card[col] - 1}"
            )
        return arr

    def decode(self, codes: Sequence[int] | np.ndarray) -> tuple[Any, ...]:
        """Labels of one tuple of codes."""
        codes = self.check_codes(np.asarray(codes))[0]
        return tuple(tx.label(c) for tx, c in zip(self.taxonomies, codes, strict=True))

    # ------------------------------------------------------------------ generalization
    def generalizes(
        self, t: Sequence[Any] | Mapping[str, Any], o: Sequence[Any] | Mapping[str, Any]
    ) -> bool:
        """Whether ``t ⪰ o``: every value of ``t`` is the value of ``o`` or an ancestor of it."""
        tc, oc = self.encode(t), self.encode(o)
        return all(tx.generalizes(a, b) for tx, a, b in zip(self.taxonomies, tc, oc, strict=True))

    def check_generalizes(self, t_codes: np.ndarray, o_codes: np.ndarray) -> None:
        """Raise :class:`InputError` naming the first attribute where ``t`` does not cover ``o``."""
        for tx, a, b in zip(self.taxonomies, t_codes, o_codes, strict=True):
            if not tx.generalizes(int(a), int(b)):
                raise InputError(
                    f"attribute '{tx.name}': {tx.label(a)!r} does not generalize the "
                    f"respondent's value {tx.label(b)!r}"
                )

    # ------------------------------------------------------------------ loss
    def loss_table(self, loss: str = "paper") -> tuple[list[np.ndarray], int]:
        """Integer value losses: per attribute, ``L(v) · S`` for every node, and ``S``.

        ``S`` is the least common multiple of the attributes' denominators, so ``L(t) · S`` is
        the integer sum of the table entries of ``t``'s codes. Arrays are int64, or Python
        integers (object dtype) when int64 could overflow.
        """
        check_loss_variant(loss)
        cached = self._loss_cache.get(loss)
        if cached is not None:
            return cached
        dens = []
        for tx in self.taxonomies:
            total = int(tx.n_leaves)
            dens.append(total if loss == "paper" else total - 1)
        scale = math.lcm(*[d for d in dens if d > 0]) if any(d > 0 for d in dens) else 1
        top = sum(
            (scale // d) * (tx.n_leaves - 1)
            for d, tx in zip(dens, self.taxonomies, strict=True)
            if d > 0
        )
        dtype: Any = np.int64 if top < 2**62 else object
        tables = []
        for d, tx in zip(dens, self.taxonomies, strict=True):
            if d == 0:
                tables.append(np.zeros(tx.n_nodes, dtype=dtype))
                continue
            per = scale // d
            tables.append(np.array([(int(i) - 1) * per for i in tx.leaf_count], dtype=dtype))
        self._loss_cache[loss] = (tables, scale)
        return tables, scale

    def value_loss(self, attribute: str, value: Any, loss: str = "paper") -> Fraction:
        """``L(v)`` of one value of one attribute."""
        if attribute not in self.attributes:
            raise InputError(
                f"unknown attribute {attribute!r}; attributes: {', '.join(self.attributes)}"
            )
        j = self.attributes.index(attribute)
        tables, scale = self.loss_table(loss)
        return Fraction(int(tables[j][self.taxonomies[j].code(value)]), scale)

    def loss(self, t: Sequence[Any] | Mapping[str, Any], loss: str = "paper") -> Fraction:
        """``L(t)``: the sum of the value losses of all attributes of a tuple (labels)."""
        return self.loss_of_codes(self.encode(t), loss)

    def loss_of_codes(self, codes: np.ndarray, loss: str = "paper") -> Fraction:
        """``L(t)`` of a tuple given by codes."""
        tables, scale = self.loss_table(loss)
        return Fraction(sum(int(tb[c]) for tb, c in zip(tables, codes, strict=True)), scale)

    # ------------------------------------------------------------------ io
    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly description (what a client needs); inverse of :meth:`from_dict`."""
        return {
            "quasi": list(self.quasi),
            "sensitive": self.sensitive,
            "hierarchies": {tx.name: tx.hierarchy.to_dict() for tx in self.taxonomies},
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Survey:
        """Rebuild a survey saved with :meth:`to_dict`."""
        try:
            hs = {k: Hierarchy.from_dict(v) for k, v in d["hierarchies"].items()}
            return cls(hs, d["quasi"], d["sensitive"])
        except (KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"not a survey description: {exc!r}") from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Survey):
            return NotImplemented
        return self.attributes == other.attributes and all(
            a.hierarchy == b.hierarchy and np.array_equal(a.leaf_weight, b.leaf_weight)
            for a, b in zip(self.taxonomies, other.taxonomies, strict=True)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        parts = ", ".join(f"{tx.name}:{tx.n_nodes}" for tx in self.taxonomies)
        return f"<Survey quasi={self.quasi} sensitive={self.sensitive!r} nodes=({parts})>"
