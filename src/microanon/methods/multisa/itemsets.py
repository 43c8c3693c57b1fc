"""Strong rules with several values on each side, mined with mlxtend's FP-growth.

Yi & Shi, *Privacy Protection Method for Multiple Sensitive Attributes Based on Strong Rule*,
Mathematical Problems in Engineering 2015, Art. ID 464731, define support and confidence
(Definitions 4–5) for rules between single values of two sensitive attributes. The same
definitions apply to itemsets: an *item* is a value of one sensitive attribute, an itemset holds
at most one item per attribute (a record has one value per attribute), and a rule ``X → Y``
joins two itemsets on disjoint attributes with ``confidence = support(X ∪ Y) / support(X)``.
Frequent itemsets come from FP-growth (Han, Pei & Yin, *Mining Frequent Patterns without
Candidate Generation*, SIGMOD 2000) and the rules from ``association_rules``, both of mlxtend
(``pip install 'microanon[rules]'``); supports are then recounted as integers and the confidence
threshold applied exactly.

How the mixed model protects such a rule (:func:`~microanon.methods.multisa.mixed_model` with
``max_items > 2``): every item of ``X ∪ Y`` is a strong value; the rule spans two or more
attributes, so a record holding all of it holds a strong value outside ``S_k`` and goes to SAC
(Algorithm 7) — no IR record contains a whole strong rule. All attributes of ``X ∪ Y`` are
linked pairwise, so they fall into one cluster (Algorithm 10) and the rule's links survive the
permutation inside SAC~ groups: ``support(X ∪ Y)`` is read from SAC~, and ``support(X)`` too when
``X`` has two or more items (its holders are all in SAC), or from SAC~ plus the IDT when ``X`` is
one value — Lemma 22 carries over. A group holds ``l`` pairwise distinct values on every
attribute, so at most one of its cluster vectors holds the rule's items: Lemma 12's bound ``1/l``
carries over too.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from ...core.errors import InputError
from .rules import _TOLERANCE, _encode, check_min_confidence, rule_columns

__all__ = [
    "ITEMSET_RULE_COLUMNS",
    "ItemsetRuleCodes",
    "check_max_items",
    "check_min_support",
    "itemset_rule_codes",
    "itemset_rules",
]

ITEMSET_RULE_COLUMNS = (
    "antecedent",
    "consequent",
    "items",
    "support_x",
    "support_xy",
    "confidence",
)
"""Columns of the table :func:`itemset_rules` returns."""

#: An item: (attribute index, value code).
Item = tuple[int, int]


def check_min_support(value: object) -> int:
    """Validate ``min_support``: a whole number of records ``>= 1``."""
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Real)
        or not np.isfinite(float(value))
        or float(value) != int(value)
        or int(value) < 1
    ):
        raise InputError(f"min_support: needs a whole number of records >= 1, got {value!r}")
    return int(value)


def check_max_items(value: object) -> int | None:
    """Validate ``max_items``: ``None`` (no limit) or a whole number ``>= 2``."""
    if value is None:
        return None
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Real)
        or not np.isfinite(float(value))
        or float(value) != int(value)
        or int(value) < 2
    ):
        raise InputError(
            f"max_items: needs None or a whole number >= 2 (items in X and Y together), "
            f"got {value!r}"
        )
    return int(value)


@dataclass(frozen=True)
class ItemsetRuleCodes:
    """Strong rules between itemsets, over attribute indices and value codes.

    Attributes
    ----------
    antecedent, consequent : list of tuple of (int, int)
        Items ``(attribute, code)`` of every rule's two sides, ascending by attribute.
    support_x, support_xy : int64 arrays
        Records holding the antecedent; records holding both sides.
    """

    antecedent: list[tuple[Item, ...]]
    consequent: list[tuple[Item, ...]]
    support_x: np.ndarray
    support_xy: np.ndarray

    def __len__(self) -> int:
        return len(self.support_x)

    @property
    def confidence(self) -> np.ndarray:
        """``support_xy / support_x`` of every rule."""
        return self.support_xy / np.maximum(self.support_x, 1)

    def strong_values(self, cardinalities: Sequence[int]) -> list[np.ndarray]:
        """Per attribute, a boolean mask over its codes: the values on either side of a rule."""
        masks = [np.zeros(int(c), dtype=bool) for c in cardinalities]
        for side in (self.antecedent, self.consequent):
            for items in side:
                for j, v in items:
                    masks[j][v] = True
        return masks

    def linked_attributes(self) -> np.ndarray:
        """Distinct attribute pairs ``(i, j)``, ``i < j``, that lie in one rule's ``X ∪ Y``."""
        pairs = {
            pair
            for x, y in zip(self.antecedent, self.consequent, strict=True)
            for pair in combinations(sorted(j for j, _ in (*x, *y)), 2)
        }
        return np.asarray(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def _empty() -> ItemsetRuleCodes:
    empty = np.zeros(0, np.int64)
    return ItemsetRuleCodes([], [], empty, empty)


def itemset_rule_codes(
    codes: Sequence[np.ndarray],
    cardinalities: Sequence[int],
    min_confidence: float,
    *,
    min_support: int = 1,
    max_items: int | None = None,
) -> ItemsetRuleCodes:
    """All strong rules ``X → Y`` between itemsets, on code columns.

    Parameters
    ----------
    codes : sequence of int arrays
        One code column (values ``0..cardinality-1``) per sensitive attribute, all of one length.
    cardinalities : sequence of int
    min_confidence : float
        Already validated (:func:`~microanon.methods.multisa.check_min_confidence`).
    min_support : int
        Records that must hold ``X ∪ Y``.
    max_items : int or None
        Most items in ``X ∪ Y`` (``None``: up to one per attribute).

    Returns
    -------
    ItemsetRuleCodes
        Sorted by number of items, then antecedent, then consequent.

    Raises
    ------
    InputError
        mlxtend is not installed.
    """
    try:
        from mlxtend.frequent_patterns import association_rules, fpgrowth
    except ImportError:
        raise InputError(
            "rules of more than two items need mlxtend: pip install 'microanon[rules]'"
        ) from None
    n = len(codes[0]) if len(codes) else 0
    if n < min_support or len(codes) < 2:
        return _empty()
    columns, items = [], []
    for j, (c, k) in enumerate(zip(codes, cardinalities, strict=True)):
        present = np.flatnonzero(np.bincount(c, minlength=int(k)))
        for v in present.tolist():
            columns.append(c == v)
            items.append((j, v))
    onehot = pd.DataFrame(np.column_stack(columns), columns=range(len(items)))
    # Half a record below the threshold: mlxtend's float supports never cut a qualifying set.
    frequent = fpgrowth(onehot, min_support=(min_support - 0.5) / n, max_len=max_items)
    if not (frequent["itemsets"].map(len) >= 2).any():
        return _empty()
    found = association_rules(
        frequent, num_itemsets=n, metric="confidence", min_threshold=min_confidence - 1e-6
    )
    sxy = np.rint(found["support"].to_numpy(float) * n).astype(np.int64)
    sx = np.rint(found["antecedent support"].to_numpy(float) * n).astype(np.int64)
    keep = (sxy >= min_support) & (sxy / np.maximum(sx, 1) >= min_confidence - _TOLERANCE)

    def side(sets: pd.Series) -> list[tuple[Item, ...]]:
        return [tuple(sorted(items[k] for k in s)) for s in sets[keep]]

    ante, cons = side(found["antecedents"]), side(found["consequents"])
    order = sorted(range(len(ante)), key=lambda r: (len(ante[r]) + len(cons[r]), ante[r], cons[r]))
    return ItemsetRuleCodes(
        [ante[r] for r in order],
        [cons[r] for r in order],
        sx[keep][order],
        sxy[keep][order],
    )


def itemset_rules(
    data: pd.DataFrame,
    sensitive: Sequence[str],
    min_confidence: float = 0.8,
    *,
    min_support: int = 1,
    max_items: int | None = None,
) -> pd.DataFrame:
    """Strong association rules between sets of values of different sensitive attributes.

    Parameters
    ----------
    data : DataFrame
    sensitive : sequence of str
        At least two distinct columns of ``data``.
    min_confidence : float
        A rule ``X → Y`` is strong when ``support(X ∪ Y) / support(X) >= min_confidence``
        (``0 < min_confidence <= 1``).
    min_support : int
        Records that must hold ``X ∪ Y`` (``>= 1``; the paper's rules use 1).
    max_items : int or None
        Most items in ``X ∪ Y`` together (``>= 2``; 2 gives the single-value rules of
        :func:`~microanon.methods.multisa.strong_rules`; ``None``: no limit).

    Returns
    -------
    DataFrame
        One row per strong rule: ``antecedent`` and ``consequent`` (tuples of
        ``(attribute, value)`` pairs in the order of ``sensitive``), ``items`` (their total
        number), ``support_x``, ``support_xy`` (int64) and ``confidence``. Sorted by number of
        items, then by the attributes and values of each side.

    Raises
    ------
    InputError
        Not a DataFrame, empty, an absent or repeated column, fewer than two columns, a missing
        value (naming the column), a bad parameter (naming it), mlxtend not installed.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"disease": ["flu", "flu", "flu", "ulcer"],
    ...                    "drug": ["a", "a", "b", "b"], "job": ["x", "x", "y", "y"]})
    >>> rules = itemset_rules(df, ["disease", "drug", "job"], 1.0, min_support=2)
    >>> [(r.antecedent, r.consequent) for r in rules.itertuples() if r.items == 3][:1]
    [((('disease', 'flu'), ('drug', 'a')), (('job', 'x'),))]
    """
    data, sensitive = rule_columns(data, sensitive, "itemset_rules")
    conf = check_min_confidence(min_confidence)
    support = check_min_support(min_support)
    limit = check_max_items(max_items)
    encoded = [_encode(data[c], c) for c in sensitive]
    rules = itemset_rule_codes(
        [e[0] for e in encoded],
        [len(e[1]) for e in encoded],
        conf,
        min_support=support,
        max_items=limit,
    )

    def named(side: list[tuple[Item, ...]]) -> list[tuple[tuple[str, object], ...]]:
        return [tuple((sensitive[j], encoded[j][1][v]) for j, v in items) for items in side]

    return pd.DataFrame(
        {
            "antecedent": pd.Series(named(rules.antecedent), dtype=object),
            "consequent": pd.Series(named(rules.consequent), dtype=object),
            "items": np.asarray(
                [len(x) + len(y) for x, y in zip(rules.antecedent, rules.consequent, strict=True)],
                dtype=np.int64,
            ),
            "support_x": rules.support_x,
            "support_xy": rules.support_xy,
            "confidence": rules.confidence.astype(np.float64),
        },
        columns=list(ITEMSET_RULE_COLUMNS),
    )
