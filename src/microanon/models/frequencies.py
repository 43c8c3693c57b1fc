"""The frequency table of a published table, and the claimed models checked on it.

A release is verified on the counts of its published combinations (quasi-identifiers, the
columns counted as such and the sensitive value), not on its rows: each model's plain definition
(Sweeney 2002; Machanavajjhala et al. 2007; Li et al. 2007; ...) depends on a record only
through its combination, so a table of the distinct combinations, each weighted by its records,
has the same equivalence classes and the same sensitive-value counts as the table itself.

The combinations are kept in the order of their first appearance in the table, so that
:meth:`Groups.from_frame` numbers their classes and values as it numbers the table's: the checks
then compute the same numbers in the same order (floating-point sums included). The same
:func:`check_frequencies` checks the frequency table an out-of-core read-back computes
(:func:`microanon.scale.verify.verify_files`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.factorize import factorize, factorize_keys, first_rows, packed_key
from ..core.frames import rows_of
from .base import PrivacyModel
from .groups import Groups, groups_of
from .verdict import Verdict

__all__ = ["Frequencies", "check_frequencies", "column_codes", "frequencies_of"]


@dataclass(frozen=True)
class Frequencies:
    """Distinct combinations of some columns of a table, and the records holding each.

    Attributes
    ----------
    combinations : DataFrame
        One row per distinct combination, in the order of its first appearance in the table,
        with the table's own values and dtypes (a missing value is a value like any other).
    counts : (n_combinations,) int64 array
        Records per combination.
    """

    combinations: pd.DataFrame
    counts: np.ndarray

    @property
    def records(self) -> int:
        """Records the table summarizes."""
        return int(self.counts.sum())


def column_codes(column: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Codes of a column in order of first appearance (``-1`` for a missing value), and its
    distinct values (missing values left out), as :func:`pandas.factorize` gives them."""
    codes, uniques = factorize(column)
    return codes.astype(np.int64, copy=False), pd.Index(uniques)


def frequencies_of(
    table: pd.DataFrame,
    columns: Sequence[Hashable],
    codes: Mapping[Hashable, tuple[np.ndarray, pd.Index]] | None = None,
) -> Frequencies:
    """The frequency table of ``columns`` of ``table``, one pass over its rows.

    Parameters
    ----------
    table : DataFrame
        A non-empty table holding every column of ``columns``.
    columns : sequence of column names
        The columns combined (a name given twice counts once).
    codes : mapping, optional
        :func:`column_codes` of some columns, already computed (e.g. for their distinct values).

    Returns
    -------
    Frequencies
    """
    names = list(dict.fromkeys(columns))
    coded = [(codes or {}).get(c) or column_codes(table[c]) for c in names]
    key = np.zeros(len(table), dtype=np.int64)
    if coded:  # a missing value is code 0, every value its code + 1
        key, _ = packed_key([k for k, _ in coded], [len(u) + 1 for _, u in coded], offset=1)
    # one hash pass: combinations numbered in order of first appearance
    combination, distinct = factorize_keys(key)
    first = first_rows(combination, len(distinct))
    combinations = rows_of(table, names, first)
    return Frequencies(combinations, np.bincount(combination).astype(np.int64))


def check_frequencies(
    frequencies: Frequencies,
    models: Sequence[PrivacyModel],
    linked: Sequence[Hashable],
    quasi: Sequence[Hashable],
    sensitive: Hashable | None,
) -> list[Verdict]:
    """Every model checked on the classes of a frequency table, as on the table it summarizes.

    As :func:`microanon.models.check_release` checks a table's rows: each model on the classes
    of ``linked`` (those against a population on the classes of ``quasi``, the columns a
    population holds), with ``sensitive`` when it needs it. The classes of each set of columns
    are built once (:meth:`Groups.from_frame` weighted by the counts) and shared by the models.

    Parameters
    ----------
    frequencies : Frequencies
        Over ``linked`` and, when a model needs it, ``sensitive``.
    models : sequence of PrivacyModel
    linked, quasi : sequences of column names
    sensitive : column name or None

    Returns
    -------
    list of Verdict
        One per model, in order.

    Raises
    ------
    InputError
        As the row-based check: a missing value in a checked column (counted in records), no
        known sensitive value, no sensitive column for a model that needs one.
    """
    combinations, built = frequencies.combinations, {}
    verdicts = []
    for m in models:
        columns = tuple(quasi if m.needs_population else linked)
        used = sensitive if m.needs_sensitive else None
        if m.needs_sensitive and used is None:  # refused as the row-based check refuses it
            groups_of(combinations, list(columns), None, need_sensitive=True)
        if (columns, used) not in built:
            built[columns, used] = Groups.from_frame(
                combinations, list(columns), used, weights=frequencies.counts
            )
        verdicts.append(m.check(built[columns, used]))
    return verdicts
