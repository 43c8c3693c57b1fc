"""Multivariate randomized response, MRR.

Du & Zhan, *Using Randomized Response Techniques for Privacy-Preserving Data Mining*, KDD 2003.

Every record is one-hot encoded (one bit per value of every randomized column: our reading of
multi-valued MRR, which Du & Zhan's binary scheme and Zhang & Zhang's use of it leave open). With
probability ``θ`` the record's bits are sent as they are, otherwise *all* of them are complemented —
one coin per record, not per bit.

For a conjunction ``E`` of values (bits that must be 1) and its complement pattern ``Ē`` (the
same bits all 0), the published shares satisfy ``P*(E) = θ P(E) + (1−θ) P(Ē)`` and
``P*(Ē) = θ P(Ē) + (1−θ) P(E)``, so

    P(E) = (θ P*(E) − (1−θ) P*(Ē)) / (2θ − 1),   θ ≠ ½.

:class:`MRRData` applies this estimator to counts: any conjunction (:meth:`MRRData.count`),
conditional distributions for the distribution attack (:meth:`MRRData.conditional`) and an ID3
tree grown from estimated counts (:meth:`MRRData.id3`; Du & Zhan's classifier). Columns passed
in the clear (e.g. a class label) may be conditioned on exactly: the estimator is then applied
within each clear value.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import InputError
from ...core.frames import pandas_if_arrow
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import check_frame
from ...measures.classification import ID3
from .onehot import OneHotLayout, bit_release, read_bit_release

__all__ = ["MRRData", "check_theta", "flip_records", "mrr"]

#: Largest number of (records × patterns) cells counted at once by :meth:`MRRData.conditional`.
_CHUNK_CELLS = 20_000_000


def check_theta(theta: Any) -> float:
    """Validate MRR's keep probability: shared by :func:`mrr` and the out-of-core engine.

    Parameters
    ----------
    theta : float
        The probability of publishing a record's bits as they are.

    Returns
    -------
    float
        ``theta`` as a float.

    Raises
    ------
    InputError
        Unless ``theta`` is a number in [0, 1] away from 1/2 (where nothing could be estimated).
    """
    if isinstance(theta, (bool, np.bool_)) or not isinstance(theta, numbers.Real):
        raise InputError(f"theta must be a probability, got {theta!r}")
    theta = float(theta)
    if not 0.0 <= theta <= 1.0:
        raise InputError(f"theta must be in [0, 1], got {theta}")
    if abs(2 * theta - 1) < 1e-9:
        raise InputError(
            "theta = 1/2 makes the published bits independent of the records: nothing could be "
            "estimated (the estimator divides by 2θ − 1); choose θ away from 1/2"
        )
    return theta


def mrr(
    data: pd.DataFrame,
    columns: Sequence[Hashable],
    theta: float,
    *,
    clear: Sequence[Hashable] = (),
    rng: RandomLike = None,
) -> Release:
    """Randomize records by MRR: keep all their bits with probability θ, else flip all.

    Parameters
    ----------
    data : DataFrame
        The original records.
    columns : sequence of column names
        Categorical columns to randomize; each becomes one bit per value of its domain (its
        sorted distinct values), named ``"column=value"``.
    theta : float
        Probability of sending the true bits, in ``[0, 1]``, not ½ (θ = 1: no randomization).
    clear : sequence of column names, optional
        Columns published as they are (e.g. a class label the respondents reveal). Every other
        column is left out of the release.
    rng : numpy.random.Generator, int or None
        Source of randomness (``None``: OS entropy). Never recorded in the release.

    Returns
    -------
    Release
        Kind ``"randomized"``: table ``data`` with the bit columns (0/1) then the clear columns,
        rows in random order. Metadata: ``method`` = ``"mrr"``, ``parameters`` (θ, columns,
        clear) and ``mrr`` = ``{"theta": θ, "domains": column -> values in bit order}``.

    Raises
    ------
    InputError
        Not a non-empty DataFrame; an absent, repeated or both randomized and clear column;
        missing values; θ outside ``[0, 1]`` or equal to ½.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["F", "M", "M", "F"], "smoker": ["y", "n", "n", "n"]})
    >>> rel = mrr(df, ["sex", "smoker"], 0.8, rng=0)
    >>> list(rel.data.columns)
    ['sex=F', 'sex=M', 'smoker=n', 'smoker=y']
    """
    data = pandas_if_arrow(data, "data")
    theta = check_theta(theta)
    layout = OneHotLayout.from_frame(data, columns, "mrr")
    clear = layout.clear_columns(data, clear, "mrr")
    gen = make_rng(rng)
    bits = layout.encode(data)
    order = flip_records(bits, theta, gen)
    return bit_release(
        "mrr",
        bits[order].astype(np.uint8),
        layout,
        data[clear].iloc[order],
        {"theta": theta},
        {"theta": theta},
    )


def flip_records(bits: np.ndarray, theta: float, gen: np.random.Generator) -> np.ndarray:
    """MRR per record: complement all of a row's bits with probability ``1 − θ`` (in place).

    The per-record kernel that :func:`mrr` shares with the out-of-core engine
    (:mod:`microanon.scale.rowwise` applies it partition by partition). One uniform per record
    decides it (kept when below ``θ``); then a random permutation of the rows is drawn and
    returned, the order in which they are published.

    Parameters
    ----------
    bits : numpy.ndarray
        Boolean array, one row per record; complemented in place.
    theta : float
        The keep probability (validated by :func:`check_theta`).
    gen : numpy.random.Generator
        The random stream.

    Returns
    -------
    numpy.ndarray
        The publication order of the rows (a permutation of ``range(len(bits))``).
    """
    flipped = gen.random(len(bits)) >= theta
    bits[flipped] = ~bits[flipped]
    return gen.permutation(len(bits))


class MRRData:
    """Randomized bits with what is needed to estimate counts of the original records.

    Parameters
    ----------
    bits : ndarray of bool, shape (n, width)
        The published bits, in ``layout`` order.
    theta : float
        MRR's θ.
    layout : OneHotLayout
        Columns and domains behind the bits.
    clear : DataFrame, optional
        Columns published in the clear, row-aligned with ``bits``.
    """

    def __init__(
        self,
        bits: np.ndarray,
        theta: float,
        layout: OneHotLayout,
        clear: pd.DataFrame | None = None,
    ) -> None:
        self.theta = check_theta(theta)
        self.layout = layout
        self.bits = np.asarray(bits, dtype=bool)
        if self.bits.ndim != 2 or self.bits.shape[1] != layout.width:
            raise InputError(
                f"MRRData: bits must have {layout.width} columns (the layout's), got shape "
                f"{self.bits.shape}"
            )
        self.clear = (
            clear.reset_index(drop=True)
            if clear is not None
            else pd.DataFrame(index=range(len(self.bits)))
        )
        if len(self.clear) != len(self.bits):
            raise InputError("MRRData: the clear columns must have one row per record")

    @classmethod
    def from_release(cls, release: Release) -> MRRData:
        """Read an :func:`mrr` release (as returned, or loaded with ``Release.load``).

        Raises
        ------
        InputError
            Not an MRR release, or its bit columns are missing or not 0/1.
        """
        layout, values, clear, spec = read_bit_release(release, "mrr", "MRRData.from_release")
        if not np.isin(values, (0, 1)).all():
            raise InputError("MRR release: bit columns must hold only 0 and 1")
        return cls(values.astype(bool), float(spec["theta"]), layout, clear)

    def __len__(self) -> int:
        return len(self.bits)

    def rows(self, mask: np.ndarray) -> MRRData:
        """The records selected by a boolean mask or positions."""
        return MRRData(self.bits[mask], self.theta, self.layout, self.clear.iloc[mask])

    def _estimate(self, ones: np.ndarray, zeros: np.ndarray) -> np.ndarray:
        t = self.theta
        return (t * np.asarray(ones, float) - (1 - t) * np.asarray(zeros, float)) / (2 * t - 1)

    def _bit(self, column: Hashable, value: Any) -> int:
        if column not in self.layout.columns:
            raise InputError(
                f"column {column!r} was not randomized; randomized: {list(self.layout.columns)}"
            )
        dom = self.layout.domain(column)
        if value not in dom:
            raise InputError(f"column {column!r}: value {value!r} is not in its domain")
        return self.layout.block(column).start + dom.index(value)

    def count(self, event: Mapping[Hashable, Any]) -> float:
        """Estimated number of original records matching every ``column: value`` of ``event``.

        Clear columns are matched exactly; randomized ones through the estimator. The estimate
        is unbiased and may be negative or fractional.

        Raises
        ------
        InputError
            An unknown column or a value outside a randomized column's domain.
        """
        mask = np.ones(len(self), dtype=bool)
        bits = []
        for c, v in event.items():
            if c in self.clear.columns:
                mask &= (self.clear[c] == v).to_numpy()
            else:
                bits.append(self._bit(c, v))
        sub = self.bits[mask][:, bits]
        return float(self._estimate(sub.all(axis=1).sum(), (~sub).all(axis=1).sum()))

    def _target(self, target: Hashable) -> tuple[np.ndarray, np.ndarray, list[Any]]:
        """Indicator matrices of the target's values used with all-ones / all-zeros rows."""
        if target in self.layout.columns:
            ones = self.bits[:, self.layout.block(target)].astype(np.float64)
            return ones, 1.0 - ones, list(self.layout.domain(target))
        if target in self.clear.columns:
            exact = OneHotLayout.from_frame(self.clear, [target], "clear column")
            ind = exact.encode(self.clear).astype(np.float64)
            return ind, ind, list(exact.domains[0])
        raise InputError(f"unknown column {target!r}")

    def conditional(
        self, given: Sequence[Hashable], target: Hashable, values: pd.DataFrame
    ) -> tuple[np.ndarray, list[Any]]:
        """Estimated ``Pr[target = a | given = q]`` for each row ``q`` of ``values``.

        Each conjunction ``given = q ∧ target = a`` is estimated (negative estimates count as 0)
        and normalized over ``a``. Where nothing of ``q`` survives the estimate, the estimated
        marginal distribution of ``target`` is used (what an attacker without evidence about
        ``q`` would assume).

        Parameters
        ----------
        given : sequence of randomized column names
        target : column name
            Randomized or clear.
        values : DataFrame
            Rows of ``given`` values.

        Returns
        -------
        probabilities : ndarray, shape (len(values), number of target values)
        domain : list
            The target's values, in column order of ``probabilities``.
        """
        given = list(given)
        for c in given:
            if c not in self.layout.columns:
                raise InputError(f"conditional: {c!r} is not a randomized column")
        t1, t0, dom = self._target(target)
        marginal = np.maximum(self._estimate(t1.sum(axis=0), t0.sum(axis=0)), 0)
        marginal = (
            marginal / marginal.sum() if marginal.sum() > 0 else np.full(len(dom), 1 / len(dom))
        )
        check_frame(values, given, "conditional values")
        sub = self.layout.subset(given)
        combos, inverse = np.unique(sub.codes(values), axis=0, return_inverse=True)
        gbits = self.bits[:, self.layout.bit_indices(given)].astype(np.float32)
        out = np.empty((len(combos), len(dom)))
        step = max(1, _CHUNK_CELLS // max(len(self), 1))
        for lo in range(0, len(combos), step):
            part = combos[lo : lo + step]
            pattern = np.zeros((len(part), sub.width), dtype=np.float32)
            pattern[np.arange(len(part))[:, None], part + sub.offsets[:-1]] = 1.0
            hits = gbits @ pattern.T  # records × patterns: how many of the pattern's bits are 1
            est = self._estimate(
                (hits == len(given)).T.astype(np.float64) @ t1,
                (hits == 0).T.astype(np.float64) @ t0,
            )
            out[lo : lo + step] = np.maximum(est, 0)
        sums = out.sum(axis=1, keepdims=True)
        probs = np.where(sums > 0, out / np.where(sums > 0, sums, 1), marginal)
        return probs[inverse.ravel()], dom

    def id3(
        self,
        target: Hashable,
        features: Sequence[Hashable] | None = None,
        min_size: float = 2,
        z: float = 3.0,
        max_nodes: int | None = 1000,
    ) -> ID3:
        """An ID3 tree grown from estimated counts (Du & Zhan's classifier).

        Parameters
        ----------
        target : column name
            The class: a clear column, or a randomized one.
        features : sequence of randomized column names, optional
            Default: every randomized column except the target.
        min_size : float, default 2
            Smallest estimated node size that may be split (ID3's rule is 2). The estimates'
            noise grows as θ nears ½; a larger value keeps the tree from splitting noise.
        z : float, default 3
            A node is split only when its estimated size is at least ``z`` standard errors of
            the randomization, ``SE = sqrt(θ(1−θ)(N1 + N0)) / |2θ − 1|`` (``N1``, ``N0``: the
            records whose path bits are all 1 / all 0; each record truly matching the path or
            its complement lands in exactly one of them). Without it (``z = 0``) noise alone
            keeps splitting: a complemented one-hot record has almost every bit set, so it
            matches nearly every path. ``θ = 1`` gives ``SE = 0``: the tree of plain ID3.
        max_nodes : int or None, default 1000
            Node budget; nodes are split largest estimate first. The estimates of all paths
            share the same complemented records, so a chance excess of them repeats down every
            branch and the significance test alone cannot always stop the growth; the budget
            bounds the work. ``None``: no budget.

        Returns
        -------
        ID3
            Predicts from original (not randomized) feature values.
        """
        feats = (
            [c for c in self.layout.columns if c != target] if features is None else list(features)
        )
        for c in feats:
            if c not in self.layout.columns or c == target:
                raise InputError(
                    f"id3: feature {c!r} must be a randomized column other than the target"
                )
        t1, t0, classes = self._target(target)
        return ID3.from_counts(
            _MRRCounts(self, feats, t1, t0, z),
            feats,
            [self.layout.domain(c) for c in feats],
            classes,
            min_size=min_size,
            max_nodes=max_nodes,
        )


class _MRRCounts:
    """ID3's node counts estimated from MRR bits.

    A node on the path ``C`` (a set of bits) is the pair of row sets whose bits of ``C`` are all
    1 and all 0; a child adds one bit, so both sets only shrink.
    """

    def __init__(
        self, data: MRRData, features: list[Hashable], t1: np.ndarray, t0: np.ndarray, z: float
    ):
        self.data, self.t1, self.t0 = data, t1, t0
        theta = data.theta
        self.se_factor = z * np.sqrt(theta * (1 - theta)) / abs(2 * theta - 1)
        self.features = features
        self.bits = data.bits

    def root(self) -> tuple[np.ndarray, np.ndarray]:
        rows = np.arange(len(self.bits))
        return rows, rows

    def counts(self, state: tuple[np.ndarray, np.ndarray], attrs: list[int]):
        r1, r0 = state
        y1, y0 = self.t1[r1], self.t0[r0]
        n0 = y0.sum(axis=0)
        classes = self.data._estimate(y1.sum(axis=0), n0)
        if not attrs:
            return classes, []
        names = [self.features[a] for a in attrs]
        cols = self.data.layout.bit_indices(names)
        bounds = np.cumsum([len(self.data.layout.domain(c)) for c in names])[:-1]
        if np.maximum(classes, 0).sum() < self.se_factor * np.sqrt(len(r1) + len(r0)):
            return classes, np.split(np.zeros((len(cols), len(classes))), bounds)
        b1 = self.bits[np.ix_(r1, cols)].T.astype(np.float64)
        b0 = self.bits[np.ix_(r0, cols)].T.astype(np.float64)
        joint = self.data._estimate(b1 @ y1, n0 - b0 @ y0)
        # A value whose estimated share is within noise gets no child: its records are
        # predicted by this node's majority.
        n_child = b1.sum(axis=1) + (len(r0) - b0.sum(axis=1))
        joint[np.maximum(joint, 0).sum(axis=1) < self.se_factor * np.sqrt(n_child)] = 0.0
        return classes, np.split(joint, bounds)

    def children(self, state: tuple[np.ndarray, np.ndarray], attribute: int, values: np.ndarray):
        r1, r0 = state
        start = self.data.layout.block(self.features[attribute]).start
        return [(r1[self.bits[r1, start + v]], r0[~self.bits[r0, start + v]]) for v in values]
