"""Strong association rules between values of different sensitive attributes.

The rules of Yi & Shi, *Privacy Protection Method for Multiple Sensitive Attributes Based on Strong
Rule*, Mathematical Problems in Engineering 2015, Art. ID 464731 (support and confidence:
Definitions 4–5; Apriori: Agrawal & Srikant, *Fast Algorithms for Mining Association Rules*, VLDB
1994).

A rule ``X → Y`` links a value ``X`` of one sensitive attribute with a value ``Y`` of another;
``support(X)`` counts the records holding ``X``, ``support(X∧Y)`` those holding both, and the rule
is *strong* when ``confidence = support(X∧Y) / support(X)`` reaches ``min_confidence``. With the
minimum support fixed at 1 and single-value rules, Apriori reduces to counting value frequencies and
co-occurring pairs: one ``bincount`` (or, for large domains, one ``np.unique``) per pair of
attributes, O(n·d²) in all.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.frames import pandas_if_arrow
from ...core.schema import check_frame

__all__ = [
    "RULE_COLUMNS",
    "RuleCodes",
    "check_min_confidence",
    "rule_codes",
    "strong_rules",
]

RULE_COLUMNS = (
    "antecedent_attribute",
    "antecedent",
    "consequent_attribute",
    "consequent",
    "support_x",
    "support_xy",
    "confidence",
)
"""Columns of the table :func:`strong_rules` returns."""

#: Confidences within this distance below ``min_confidence`` count as reaching it (rounding).
_TOLERANCE = 1e-12


def check_min_confidence(value: object) -> float:
    """Validate ``min_confidence``: a real number with ``0 < value <= 1``.

    Raises
    ------
    InputError
        For anything else (``0`` would make every co-occurring pair strong).
    """
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Real)
        or not np.isfinite(float(value))
        or not 0 < float(value) <= 1
    ):
        raise InputError(
            f"min_confidence: needs a number with 0 < min_confidence <= 1, got {value!r}"
        )
    return float(value)


@dataclass(frozen=True)
class RuleCodes:
    """Strong rules over integer codes: attribute indices and value codes, one entry per rule.

    Attributes
    ----------
    antecedent_attribute, antecedent, consequent_attribute, consequent : int64 arrays
        Attribute index (position in the list of sensitive attributes) and value code of each side.
    support_x, support_xy : int64 arrays
        Records holding the antecedent; records holding both values.
    """

    antecedent_attribute: np.ndarray
    antecedent: np.ndarray
    consequent_attribute: np.ndarray
    consequent: np.ndarray
    support_x: np.ndarray
    support_xy: np.ndarray

    def __len__(self) -> int:
        return len(self.support_x)

    @property
    def confidence(self) -> np.ndarray:
        """``support_xy / support_x`` of every rule."""
        return self.support_xy / self.support_x

    def strong_values(self, cardinalities: Sequence[int]) -> list[np.ndarray]:
        """Per attribute, a boolean mask over its codes: the values on either side of a rule."""
        masks = [np.zeros(int(c), dtype=bool) for c in cardinalities]
        for attrs, vals in (
            (self.antecedent_attribute, self.antecedent),
            (self.consequent_attribute, self.consequent),
        ):
            for j, mask in enumerate(masks):
                mask[vals[attrs == j]] = True
        return masks

    def linked_attributes(self) -> np.ndarray:
        """Distinct unordered attribute pairs ``(i, j)``, ``i < j``, joined by some rule."""
        a = np.minimum(self.antecedent_attribute, self.consequent_attribute)
        b = np.maximum(self.antecedent_attribute, self.consequent_attribute)
        return np.unique(np.column_stack([a, b]), axis=0).reshape(-1, 2)


def _pair_counts(
    ci: np.ndarray, cj: np.ndarray, di: int, dj: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Co-occurring code pairs of two columns and their counts, in lexicographic order."""
    key = ci.astype(np.int64) * dj + cj
    if di * dj <= max(4 * len(key), 1 << 16):
        counts = np.bincount(key, minlength=di * dj)
        pairs = np.flatnonzero(counts)
        counts = counts[pairs]
    else:
        pairs, counts = np.unique(key, return_counts=True)
    a, b = np.divmod(pairs, dj)
    return a, b, counts.astype(np.int64)


def rule_codes(
    codes: Sequence[np.ndarray],
    cardinalities: Sequence[int],
    min_confidence: float,
    min_support: int = 1,
) -> RuleCodes:
    """All strong rules between values of different attributes, on code columns.

    Parameters
    ----------
    codes : sequence of int arrays
        One code column (values ``0..cardinality-1``) per sensitive attribute, all of one length.
    cardinalities : sequence of int
    min_confidence : float
        Already validated (:func:`check_min_confidence`).
    min_support : int
        Records that must hold both values (the paper's 1: every co-occurring pair).

    Returns
    -------
    RuleCodes
        Sorted by antecedent attribute, consequent attribute, antecedent code, consequent code.
    """
    d = len(codes)
    single = [np.bincount(c, minlength=int(k)) for c, k in zip(codes, cardinalities, strict=True)]
    parts: list[tuple[np.ndarray, ...]] = []
    for i in range(d):
        for j in range(i + 1, d):
            a, b, sxy = _pair_counts(
                codes[i], codes[j], int(cardinalities[i]), int(cardinalities[j])
            )
            for ant_attr, ant, cons_attr, cons in ((i, a, j, b), (j, b, i, a)):
                sx = single[ant_attr][ant]
                keep = (sxy / sx >= min_confidence - _TOLERANCE) & (sxy >= min_support)
                n = int(keep.sum())
                parts.append(
                    (
                        np.full(n, ant_attr, np.int64),
                        ant[keep],
                        np.full(n, cons_attr, np.int64),
                        cons[keep],
                        sx[keep].astype(np.int64),
                        sxy[keep],
                    )
                )
    if not parts:
        empty = np.zeros(0, np.int64)
        return RuleCodes(empty, empty, empty, empty, empty, empty)
    cols = [np.concatenate([p[k] for p in parts]).astype(np.int64) for k in range(6)]
    order = np.lexsort((cols[3], cols[1], cols[2], cols[0]))
    return RuleCodes(*(c[order] for c in cols))


def rule_columns(
    data: Any, sensitive: str | Sequence[str], what: str
) -> tuple[pd.DataFrame, list[str]]:
    """The table (a pandas DataFrame) and the sensitive columns rules are mined on, checked:
    present, named once, at least two (a rule links values of different attributes)."""
    data = pandas_if_arrow(data, "data")
    sensitive = [sensitive] if isinstance(sensitive, str) else list(sensitive)
    check_frame(data, sensitive, what=what)
    if len(set(sensitive)) != len(sensitive):
        raise InputError(f"sensitive: a column is named more than once in {sensitive}")
    if len(sensitive) < 2:
        raise InputError(
            f"sensitive: rules link values of different attributes; give at least two columns, "
            f"got {sensitive}"
        )
    return data, sensitive


def _encode(series: pd.Series, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes (sorted value order when the values can be ordered) and values of a column."""
    try:
        codes, uniques = pd.factorize(series, sort=True, use_na_sentinel=True)
    except TypeError:
        codes, uniques = pd.factorize(series, sort=False, use_na_sentinel=True)
    missing = int(np.count_nonzero(codes < 0))
    if missing:
        raise InputError(
            f"column {column!r} has {missing} missing value(s); drop or impute them first"
        )
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def strong_rules(
    data: pd.DataFrame, sensitive: Sequence[str], min_confidence: float = 0.8
) -> pd.DataFrame:
    """Strong association rules between values of different sensitive attributes.

    Parameters
    ----------
    data : DataFrame
    sensitive : sequence of str
        At least two distinct columns of ``data``.
    min_confidence : float
        A rule ``X → Y`` is strong when ``support(X∧Y) / support(X) >= min_confidence``
        (``0 < min_confidence <= 1``; minimum support 1).

    Returns
    -------
    DataFrame
        One row per strong rule: ``antecedent_attribute``, ``antecedent`` (the value),
        ``consequent_attribute``, ``consequent``, ``support_x``, ``support_xy`` (int64) and
        ``confidence`` (float). Sorted by antecedent attribute and consequent attribute (order
        of ``sensitive``), then by value.

    Raises
    ------
    InputError
        Not a DataFrame, empty, an absent or repeated column, fewer than two columns, a missing
        value (naming the column), a bad ``min_confidence``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"disease": ["cold", "cold", "ulcer", "ulcer"],
    ...                    "drug": ["ibuprofen", "aspirin", "antacid", "antacid"]})
    >>> strong_rules(df, ["disease", "drug"], 0.75)[["antecedent", "consequent", "confidence"]]
      antecedent consequent  confidence
    0      ulcer    antacid         1.0
    1    antacid      ulcer         1.0
    2    aspirin       cold         1.0
    3  ibuprofen       cold         1.0
    """
    data, sensitive = rule_columns(data, sensitive, "strong_rules")
    conf = check_min_confidence(min_confidence)
    encoded = [_encode(data[c], c) for c in sensitive]
    rules = rule_codes([e[0] for e in encoded], [len(e[1]) for e in encoded], conf)
    names = np.asarray(sensitive, dtype=object)

    def values(attrs: np.ndarray, vals: np.ndarray) -> np.ndarray:
        out = np.empty(len(attrs), dtype=object)
        for j, (_, uniques) in enumerate(encoded):
            sel = attrs == j
            out[sel] = uniques[vals[sel]]
        return out

    return pd.DataFrame(
        {
            "antecedent_attribute": names[rules.antecedent_attribute],
            "antecedent": values(rules.antecedent_attribute, rules.antecedent),
            "consequent_attribute": names[rules.consequent_attribute],
            "consequent": values(rules.consequent_attribute, rules.consequent),
            "support_x": rules.support_x,
            "support_xy": rules.support_xy,
            "confidence": rules.confidence.astype(np.float64),
        },
        columns=list(RULE_COLUMNS),
    )
