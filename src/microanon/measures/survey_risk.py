"""Re-identification risk of survey records with sampling weights, as sdcMicro's ``measure_risk``.

A sample record's key combination ``k`` occurs ``f_k`` times in the sample and an estimated
``F_k`` times in the population (the sum of the sampling weights of its records). The
individual risk of Benedetti & Franconi (1998) is the expected value of ``1 / F_k`` given
``f_k`` under a negative-binomial model of the population frequencies; Franconi & Polettini
(2004) give the approximation sdcMicro uses. The household risk is the probability that at
least one member of the household is re-identified.

- :func:`key_frequencies` — ``f_k`` and ``F_k`` of every record (sdcMicro's ``freqCalc``).
- :func:`individual_risk` — per-record, global and household risk (sdcMicro's ``measure_risk``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.factorize import first_rows
from ..core.frames import pandas_if_arrow
from .common import check_counts
from .keys import check_fraction, check_household, check_weights, key_codes, pack

__all__ = ["IndividualRisk", "KeyFrequencies", "individual_risk", "key_frequencies"]

_MISSING_MODES = {
    "match": "a missing value matches every value of its column, as in freqCalc",
}


@dataclass(frozen=True, eq=False)
class KeyFrequencies:
    """Sample and weighted frequency of every record's key combination (:func:`key_frequencies`).

    Attributes
    ----------
    sample : pandas.Series
        ``f_k``: records of the sample sharing the record's keys (sdcMicro's ``fk``; not a whole
        number when ``alpha < 1`` and keys are missing), indexed like the input.
    weighted : pandas.Series
        ``F_k``: the sum of their sampling weights, the estimated population frequency
        (sdcMicro's ``Fk``); equal to ``sample`` without weights.
    n1, n2 : int
        Records with ``f_k = 1`` and with ``f_k = 2`` (they violate 2- and 3-anonymity).
    """

    sample: pd.Series
    weighted: pd.Series
    n1: int
    n2: int


@dataclass(frozen=True, eq=False)
class IndividualRisk:
    """Individual and household re-identification risk (:func:`individual_risk`).

    Attributes
    ----------
    record_risk : pandas.Series
        Risk of every record, indexed like the input, named ``risk``.
    frequencies : KeyFrequencies
        ``f_k`` and ``F_k`` the risks come from.
    global_risk : float
        Mean record risk (sdcMicro's ``global_risk``).
    expected_reidentifications : float
        Sum of the record risks (sdcMicro's ``global_risk_ER``).
    household_risk : pandas.Series or None
        ``1 - Π (1 - r_i)`` over the members ``i`` of the record's household, for every record;
        None without a household column.
    household_global_risk : float or None
        Mean household risk over the records (sdcMicro's ``hier_risk``).
    household_expected_reidentifications : float or None
        Sum of the household risks over the records (sdcMicro's ``hier_risk_ER``).
    """

    record_risk: pd.Series
    frequencies: KeyFrequencies
    global_risk: float
    expected_reidentifications: float
    household_risk: pd.Series | None = None
    household_global_risk: float | None = None
    household_expected_reidentifications: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary (without the per-record values)."""
        return {
            "global_risk": self.global_risk,
            "expected_reidentifications": self.expected_reidentifications,
            "household_global_risk": self.household_global_risk,
            "household_expected_reidentifications": self.household_expected_reidentifications,
        }


def _sums_by(
    target: np.ndarray,
    source: np.ndarray,
    values: Sequence[np.ndarray],
    sizes: Sequence[int],
) -> list[np.ndarray]:
    """For every row of ``target``, the sums of each of ``values`` over the rows of ``source``
    equal to it.

    ``target`` and ``source`` are code matrices over the same columns (no missing values).
    """
    ids = pack(np.vstack([source, target]), sizes)
    size = int(ids.max()) + 1 if len(ids) else 0
    src, tgt = ids[: len(source)], ids[len(source) :]
    return [np.bincount(src, weights=v, minlength=size)[tgt] for v in values]


def _match_missing(
    codes: np.ndarray, sizes: Sequence[int], f: np.ndarray, w: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """``f_k`` and ``F_k`` of distinct combinations with missing values, as sdcMicro's freqCalc.

    Two combinations are compatible when they agree on every key observed in both. A
    combination with a missing key adds to its own count those of the compatible complete
    combinations and ``alpha`` times those of the other compatible combinations with missing
    keys (the all-missing one included); a complete combination adds ``alpha`` times the
    counts of the compatible combinations with missing keys other than the all-missing one. A
    combination missing every key gets the whole sample. With one key, a value gets ``alpha``
    times the count of the missing values.

    The partner combinations of one missingness pattern are grouped by the keys both observe,
    so that the work grows with the distinct pairs of (pattern, shared keys), not with the
    pairs of patterns.
    """
    n_keys = codes.shape[1]
    observed = codes >= 0
    pattern = observed @ (1 << np.arange(n_keys))
    full = (1 << n_keys) - 1
    add_f, add_w = np.zeros(len(f)), np.zeros(len(f))
    complete = np.flatnonzero(pattern == full)
    partial_patterns = [int(q) for q in np.unique(pattern) if q != full]
    rows_of = {q: np.flatnonzero(pattern == q) for q in partial_patterns}
    for q in partial_patterns:
        rows = rows_of[q]
        if q == 0:  # all keys missing: counted below (and, with one key, for every value)
            if n_keys == 1:
                add_f[complete] += alpha * f[rows].sum()
                add_w[complete] += alpha * w[rows].sum()
            continue
        cols = [j for j in range(n_keys) if q >> j & 1]
        sub_sizes = [sizes[j] for j in cols]
        if len(complete):
            sub, target = codes[np.ix_(complete, cols)], codes[np.ix_(rows, cols)]
            to_rows = _sums_by(target, sub, (f[complete], w[complete]), sub_sizes)
            to_complete = _sums_by(sub, target, (f[rows], w[rows]), sub_sizes)
            add_f[rows] += to_rows[0]
            add_w[rows] += to_rows[1]
            add_f[complete] += alpha * to_complete[0]
            add_w[complete] += alpha * to_complete[1]
        partners: dict[int, list[np.ndarray]] = {}
        for r in partial_patterns:
            partners.setdefault(q & r, []).append(rows_of[r])
        for shared, parts in partners.items():
            other = np.concatenate(parts)
            common = [j for j in cols if shared >> j & 1]
            target, source = codes[np.ix_(rows, common)], codes[np.ix_(other, common)]
            sums = _sums_by(target, source, (f[other], w[other]), [sizes[j] for j in common])
            add_f[rows] += alpha * sums[0]
            add_w[rows] += alpha * sums[1]
        same = alpha * f[rows], alpha * w[rows]  # a combination is compatible with itself
        add_f[rows] -= same[0]
        add_w[rows] -= same[1]
    fk, wk = f + add_f, w + add_w
    none = pattern == 0
    fk[none], wk[none] = f.sum(), w.sum()
    return fk, wk


def _frequencies(
    data: Any, keys: Any, weights: Any, alpha: Any, missing: Any, counts: Any = None
) -> tuple[KeyFrequencies, np.ndarray | None, np.ndarray]:
    """The key frequencies, the weights (None without) and the records of each row."""
    cols, codes, sizes = key_codes(data, keys, missing, _MISSING_MODES)
    alpha = check_fraction(alpha, "alpha", closed_lo=True)
    checked = check_counts(counts, len(data))
    w = None if weights is None else check_weights(data, weights, checked)
    records = np.ones(len(data), dtype=np.int64) if checked is None else checked
    combo = pack(codes, sizes)
    n_combos = int(combo.max()) + 1
    f = np.bincount(combo, weights=records, minlength=n_combos).astype(float)
    wsum = f if w is None else np.bincount(combo, weights=w * records, minlength=n_combos)
    if (codes < 0).any():
        first = first_rows(combo, n_combos)  # (pack numbers combinations by first row)
        f, wsum = _match_missing(codes[first], sizes, f, wsum, alpha)
    fk, wk = f[combo], wsum[combo]
    freq = KeyFrequencies(
        sample=pd.Series(fk, index=data.index, name="fk"),
        weighted=pd.Series(wk, index=data.index, name="Fk"),
        n1=int(records[fk == 1].sum()),
        n2=int(records[fk == 2].sum()),
    )
    return freq, w, records


def key_frequencies(
    data: pd.DataFrame,
    keys: Sequence[str],
    weights: str | None = None,
    *,
    alpha: float = 1.0,
    missing: str = "error",
    counts: Any = None,
) -> KeyFrequencies:
    """Sample frequency ``f_k`` and weighted frequency ``F_k`` of every record's key combination.

    As sdcMicro's ``freqCalc(data, keyVars = keys, w = weights, alpha = alpha)``.

    Parameters
    ----------
    data : pandas.DataFrame
    keys : sequence of str
        The key (quasi-identifier) columns.
    weights : str, optional
        The sampling-weight column (inverse inclusion probabilities, each at least 1); without
        it every weight is 1.
    alpha : float
        In [0, 1]: how much a combination with missing keys counts for the combinations it is
        compatible with (sdcMicro's ``alpha``; 1 counts it fully).
    missing : {"error", "match"}
        ``"error"``: a missing key value raises :class:`InputError`. ``"match"``: as freqCalc, a
        missing value matches every value of its column: two records are counted together when
        they agree on every key observed in both (the counting is spelled out in
        ``docs/measures.md``).
    counts : int array, optional
        Records per row: ``data`` is then a frequency table of distinct rows, each row's
        records sharing its keys and its weight, and the frequencies are those of the table it
        summarizes (given per row; ``n1`` and ``n2`` count records).

    Returns
    -------
    KeyFrequencies

    Raises
    ------
    InputError
        Bad table or keys; missing key values with ``missing="error"``; a key column missing
        in every row; a weight column that is absent, not numeric, or has missing, zero,
        negative or below-1 weights (named, with the count); ``alpha`` outside [0, 1].
    """
    data = pandas_if_arrow(data, "data")
    return _frequencies(data, keys, weights, alpha, missing, counts)[0]


def _approx_risk(fk: np.ndarray, Fk: np.ndarray) -> np.ndarray:
    """Benedetti–Franconi risk, Franconi & Polettini's approximation, as sdcMicro's indivRisk."""
    p = fk / Fk
    odds = np.divide(p, 1 - p, out=np.zeros_like(p), where=p < 1)
    log_inv = np.log(1 / p)
    risk = np.zeros_like(p)
    one, two, more = fk == 1, fk == 2, fk > 2
    risk[one] = (odds * log_inv)[one]
    risk[two] = (odds - odds**2 * log_inv)[two]
    risk[more] = (p / (fk - (1 - p)))[more]
    equal = fk == Fk
    risk[equal] = 1 / fk[equal]
    return risk


def individual_risk(
    data: pd.DataFrame,
    keys: Sequence[str],
    weights: str | None = None,
    *,
    household: str | None = None,
    alpha: float = 1.0,
    missing: str = "error",
    counts: Any = None,
) -> IndividualRisk:
    """Individual re-identification risk of every record, its global sums and the household risk.

    With sampling weights, the risk of a record in key combination ``k`` is the
    Benedetti–Franconi risk ``E(1 / F | f_k)`` where ``p_k = f_k / F_k`` estimates the sampling
    fraction, computed as sdcMicro's ``indivRisk(method = "approx")``:

    - ``f_k = 1``: ``p / (1 - p) · log(1 / p)``,
    - ``f_k = 2``: ``p / (1 - p) - (p / (1 - p))² · log(1 / p)``,
    - ``f_k > 2``: ``p / (f_k - (1 - p))`` (Franconi & Polettini's approximation),
    - ``f_k = F_k`` (every weight 1): ``1 / f_k``;

    other values of ``f_k`` (fractions between 1 and 2, possible with ``alpha < 1``) get 0, as in
    sdcMicro. Without weights the risk is ``1 / f_k``. The global risk is the mean record risk;
    the expected number of re-identifications is their sum. With a household column, the
    household risk of a record is ``1 - Π (1 - r_i)`` over the members of its household.

    Agrees with sdcMicro's ``measure_risk(data, keyVars = keys, w = weights, hid = household)``
    (version 5.8.1; see ``docs/measures.md`` for the anchors).

    Parameters
    ----------
    data : pandas.DataFrame
    keys : sequence of str
        The key (quasi-identifier) columns.
    weights : str, optional
        The sampling-weight column; without it the risk is ``1 / f_k``.
    household : str, optional
        The household-id column, for the household (hierarchical) risk.
    alpha : float
        As in :func:`key_frequencies`.
    missing : {"error", "match"}
        As in :func:`key_frequencies`.
    counts : int array, optional
        As in :func:`key_frequencies`: the risks of the table ``data`` summarizes, one per row
        (each of the row's records has it), the global risk its mean over the records.

    Returns
    -------
    IndividualRisk

    Raises
    ------
    InputError
        As :func:`key_frequencies`; a household column that is absent or has missing ids, or
        given with ``counts`` (the household risk needs the records).

    References
    ----------
    Benedetti, R. & Franconi, L. (1998). Statistical and technological solutions for
    controlled data dissemination. *Pre-proceedings of New Techniques and Technologies for
    Statistics*, vol. 1, 225–232.

    Franconi, L. & Polettini, S. (2004). Individual risk estimation in μ-ARGUS: a review. In
    *Privacy in Statistical Databases*, LNCS 3050, 262–272. Springer.
    """
    data = pandas_if_arrow(data, "data")
    if household is not None and counts is not None:
        raise InputError("the household risk needs the records, not a frequency table")
    hh = None if household is None else check_household(data, household)
    freq, w, records = _frequencies(data, keys, weights, alpha, missing, counts)
    fk, wk = freq.sample.to_numpy(), freq.weighted.to_numpy()
    risk = 1 / fk if w is None else _approx_risk(fk, wk)
    n = int(records.sum())
    expected = float((risk * records).sum())
    out = IndividualRisk(
        record_risk=pd.Series(risk, index=data.index, name="risk"),
        frequencies=freq,
        global_risk=expected / n,
        expected_reidentifications=expected,
    )
    if hh is None:
        return out
    survive = pd.Series(1 - risk).groupby(hh).prod().to_numpy()
    hrisk = 1 - survive[hh]
    return IndividualRisk(
        record_risk=out.record_risk,
        frequencies=freq,
        global_risk=out.global_risk,
        expected_reidentifications=out.expected_reidentifications,
        household_risk=pd.Series(hrisk, index=data.index, name="household_risk"),
        household_global_risk=float(hrisk.sum() / n),
        household_expected_reidentifications=float(hrisk.sum()),
    )
