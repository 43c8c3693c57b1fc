"""Privacy and disclosure-risk profiles of a dataset larger than memory, from its frequency table.

Every figure of ``microanon check`` (k, the four ℓ-diversity forms, t-closeness, β-likeness,
δ-disclosure, sample uniques, the prosecutor risk, and δ-presence and k-map against an in-memory
population) and the class-size figures of ``microanon risk`` (the prosecutor, journalist and
marketer models, population uniqueness) depend on the data only through the distinct
combinations of the checked columns and how many records hold each. :func:`dataset_frequencies`
computes that table out of core (:func:`microanon.scale.value_frequencies`, a tree reduction);
:func:`privacy_profile_of` and :func:`risk_profile_of` build the weighted :class:`Groups` and call
the same model and measure functions as the in-memory profiles, so the numbers are the same.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.missing import (
    MISSING_LABEL,
    RISK_MISSING,
    numbers_with_strays,
    policy_name,
    stray_note,
    stray_refusal,
    stray_text,
)
from ..core.progress import ProgressLike
from ..measures.attacker import class_attacker_risks
from ..measures.common import check_share
from ..measures.population import uniqueness_of_sizes
from ..measures.table_profile import check_missing_policy, groups_profile, refuse_missing_keys
from ..models import Groups
from ..models.population import population_sizes
from .frequencies import FrequencyTable, value_frequencies

__all__ = [
    "STRAY_TEXT_SHARE",
    "ClassRisks",
    "dataset_frequencies",
    "frequency_groups",
    "privacy_profile_of",
    "stray_text_notes_of",
    "risk_profile_of",
]

#: As :data:`microanon.apps.check.STRAY_TEXT_SHARE`: a text column in which at least this share
#: of the non-missing values parse as numbers, but not all, holds stray text.
STRAY_TEXT_SHARE = 0.9

#: :meth:`microanon.core.schema.check_frame`'s message for a table without rows.
_EMPTY = "table is empty: there are no rows to work on"


def dataset_frequencies(
    source: Any,
    columns: Sequence[str],
    client: Any,
    *,
    read_options: Mapping[str, Any] | None = None,
    progress: ProgressLike = None,
) -> tuple[FrequencyTable, dict[str, bool]]:
    """The frequency table of ``columns`` of a dataset, and which of them are numeric.

    Parameters
    ----------
    source : path, glob or dask DataFrame
        Anything :func:`microanon.scale.read_dataset` reads, or a dask DataFrame.
    columns : sequence of str
        The columns whose value combinations are counted (missing values form combinations of
        their own).
    client : distributed.Client
    read_options : mapping, optional
        Passed to :func:`microanon.scale.read_dataset` (``sep``, ``na_values``, ...).
    progress : Progress, bool, str or None
        See :func:`microanon.scale.client.run_stage`.

    Returns
    -------
    table : FrequencyTable
        ``codes`` holds the values of each combination.
    numeric : dict of str to bool
        Whether each column has a numeric dtype (as read).

    Raises
    ------
    InputError
        A path that does not exist or holds no rows (a CSV header alone), a column the data
        lacks, unreadable files.
    """
    columns = list(columns)
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if repeated:
        raise InputError(f"column(s) named more than once: {', '.join(map(repr, repeated))}")
    if isinstance(source, (str, os.PathLike)):
        from .read import read_dataset

        frame = read_dataset(source, columns=columns, **dict(read_options or {}))
    else:
        absent = [c for c in columns if c not in source.columns]
        if absent:
            raise InputError(
                f"table: column(s) {', '.join(map(repr, absent))} not found; available: "
                + ", ".join(map(str, source.columns))
            )
        frame = source[columns]
    numeric = {
        c: bool(
            pd.api.types.is_numeric_dtype(frame[c].dtype)
            and not pd.api.types.is_bool_dtype(frame[c].dtype)
        )
        for c in columns
    }
    table = value_frequencies(frame, columns, client, progress)
    if table.records == 0 and isinstance(source, (str, os.PathLike)):
        raise InputError(f"{source} has no rows")
    return table, numeric


def _missing(table: FrequencyTable, column: str) -> np.ndarray:
    """Which combinations have a missing value in ``column``."""
    return np.asarray(pd.isna(pd.Series(table.codes[column], dtype=object)), dtype=bool)


def _keep(table: FrequencyTable, mask: np.ndarray) -> FrequencyTable:
    """The combinations where ``mask`` holds."""
    return FrequencyTable(
        list(table.columns), {c: v[mask] for c, v in table.codes.items()}, table.counts[mask]
    )


def _refuse_missing(table: FrequencyTable, columns: Sequence[str]) -> None:
    """The in-memory grouping's error for the first column with missing values."""
    for c in columns:
        missing = int(table.counts[_missing(table, c)].sum())
        if missing:
            raise InputError(
                f"column {c!r} has {missing} missing value(s); fill them with an explicit "
                "value (a suppressed cell is '*') or drop those rows first"
            )


def _as_values(table: FrequencyTable, columns: Sequence[str]) -> FrequencyTable:
    """The combinations with each missing value of ``columns`` made the value ``?``."""
    codes = dict(table.codes)
    for c in columns:
        missing = _missing(table, c)
        if missing.any():
            values = np.asarray(codes[c], dtype=object).copy()
            values[missing] = MISSING_LABEL
            codes[c] = values
    return FrequencyTable(list(table.columns), codes, table.counts)


def _complete(table: FrequencyTable, columns: Sequence[str]) -> FrequencyTable:
    """The combinations without a missing value in ``columns``."""
    keep = np.ones(len(table), dtype=bool)
    for c in columns:
        keep &= ~_missing(table, c)
    return _keep(table, keep)


def frequency_groups(
    table: FrequencyTable,
    quasi: Sequence[str],
    sensitive: str | None = None,
    numeric: bool = False,
) -> Groups:
    """The equivalence classes of a frequency table of values, weighted by its counts.

    Grouped exactly as :meth:`Groups.from_frame` groups the records the table summarizes: the
    same classes with the same sizes and sensitive-value counts (classes may be numbered in
    another order).

    Parameters
    ----------
    table : FrequencyTable
        Values per combination (:func:`dataset_frequencies`); no missing quasi-identifier
        value (a missing sensitive value is unknown, see :meth:`Groups.known_view`).
    quasi : sequence of str
    sensitive : str, optional
    numeric : bool
        Whether the sensitive column is numeric (the default t-closeness distance).

    Returns
    -------
    Groups

    Raises
    ------
    InputError
        Missing values in a quasi-identifier (naming it and the records).
    """
    quasi = list(quasi)
    _refuse_missing(table, quasi)  # a missing sensitive value is unknown (code -1)
    codes, cards, dictionaries = [], [], []
    for q in quasi:
        c, uniques = pd.factorize(np.asarray(table.codes[q], dtype=object))
        codes.append(c.astype(np.int64))
        cards.append(len(uniques))
        dictionaries.append(list(uniques))
    if sensitive is None:
        return Groups.from_codes(
            tuple(quasi), codes, cards, weights=table.counts, dictionaries=dictionaries
        )
    sa, values = pd.factorize(np.asarray(table.codes[sensitive], dtype=object))
    return Groups.from_codes(
        tuple(quasi),
        codes,
        cards,
        sensitive=sensitive,
        sa_codes=sa.astype(np.int64),
        values=list(values),
        numeric=numeric,
        weights=table.counts,
        dictionaries=dictionaries,
    )


def stray_text_notes_of(
    table: FrequencyTable, columns: Sequence[str], sensitive: str | None = None
) -> list[str]:
    """:func:`microanon.apps.check.stray_text_notes` on a frequency table.

    A text column counts as mostly numeric when at least :data:`STRAY_TEXT_SHARE` of its
    non-missing records hold values that parse as numbers; the records are counted with the
    table's counts, so the decisions and the messages are those of the in-memory check.

    Raises
    ------
    InputError
        For the sensitive column, naming it, how many values are not numbers and an example.
    """
    notes = []
    for column in columns:
        values = pd.Series(table.codes[column], dtype=object)
        present = ~values.isna().to_numpy()
        if not present.any():
            continue
        values, counts = values[present], table.counts[present]
        if not all(isinstance(v, str) for v in values):
            continue  # a numeric column as read (text columns hold only strings)
        text = stray_text(values, quasi=column != sensitive)
        bad, total = int(counts[text].sum()), int(counts.sum())
        if not numbers_with_strays(bad, total, values[text].unique(), STRAY_TEXT_SHARE):
            continue
        example = str(values[text].iloc[0])
        if column == sensitive:
            raise InputError(stray_refusal(column, bad, total, example))
        notes.append(stray_note(column, bad, total, example))
    return notes


def privacy_profile_of(
    table: FrequencyTable,
    quasi: Sequence[str],
    sensitive: str | None,
    *,
    numeric: bool,
    c: float = 2.0,
    distance: str | None = None,
    threshold: float = 0.2,
    missing: str = "value",
    beta_form: str = "basic",
    population: pd.DataFrame | None = None,
    population_count: str | None = None,
    estimator: str | None = None,
    fraction: float | None = None,
    significance: float = 0.01,
) -> dict[str, Any]:
    """:func:`microanon.apps.check.privacy_profile` computed from a frequency table.

    Parameters
    ----------
    table : FrequencyTable
        Values and counts of the combinations of ``quasi`` and ``sensitive`` (missing values
        included, see :func:`dataset_frequencies`).
    quasi : sequence of str
    sensitive : str or None
        None: the figures of the keys alone (as ``privacy_profile``).
    numeric : bool
        Whether the sensitive column is numeric (the default t-closeness distance).
    c, distance, threshold, missing, beta_form, population, population_count, estimator, \
fraction, significance
        As for ``privacy_profile``; the population is a DataFrame in memory.

    Returns
    -------
    dict
        The keys and values of ``privacy_profile``.

    Raises
    ------
    InputError
        As ``privacy_profile``.
    """
    quasi = list(quasi)
    if not quasi:
        raise InputError("--quasi: name at least one quasi-identifier column")
    if sensitive in quasi:
        raise InputError(
            f"sensitive column {sensitive!r} is also listed as a quasi-identifier; "
            "a column is either one or the other"
        )
    if table.records == 0:
        raise InputError(_EMPTY)
    dropped = 0
    checked = [*quasi, *([] if sensitive is None else [sensitive])]
    counts = {c: int(table.counts[_missing(table, c)].sum()) for c in checked}
    counts = {c: n for c, n in counts.items() if n}
    check_missing_policy(missing, counts)
    if counts and missing == "drop":
        kept = _complete(table, checked)
        dropped = table.records - kept.records
        table = kept
        if table.records == 0:
            raise InputError(
                "table after dropping rows with missing values is empty: there are no rows "
                "to work on"
            )
    if counts and missing == "value":
        table = _as_values(table, quasi)
    return groups_profile(
        frequency_groups(table, quasi, sensitive, numeric),
        quasi,
        sensitive,
        numeric=numeric,
        c=c,
        distance=distance,
        threshold=threshold,
        beta_form=beta_form,
        population=population,
        population_count=population_count,
        estimator=estimator,
        fraction=fraction,
        significance=significance,
        dropped=dropped,
    )


@dataclass(frozen=True)
class ClassRisks:
    """The class-size risk figures of a frequency table (:func:`risk_profile_of`).

    Attributes
    ----------
    numbers : dict
        ``rows``, ``quasi``, ``threshold``, ``rows_with_missing_keys_left_out``, ``attackers``,
        ``population_uniqueness``: the values of ``assess_risk(...).numbers``.
    class_risks : pandas.DataFrame
        The prosecutor's and the journalist's risk of a record of each class (one row per
        class of the records with every key).
    records : int64 array
        Records of each class (the weight of each row of ``class_risks``).
    """

    numbers: dict[str, Any]
    class_risks: pd.DataFrame
    records: np.ndarray


def risk_profile_of(
    table: FrequencyTable,
    quasi: Sequence[str],
    *,
    population_size: int | None = None,
    fraction: float | None = None,
    region: str | None = None,
    population_table: pd.DataFrame | None = None,
    population_count: str | None = None,
    threshold: float = 0.2,
    missing: str = "value",
) -> ClassRisks:
    """The class-size figures of :func:`microanon.apps.risk.assess_risk`, from a frequency table.

    The prosecutor, journalist and marketer models and population uniqueness, computed by
    :func:`microanon.measures.attacker.class_attacker_risks` and
    :func:`microanon.measures.population.uniqueness_of_sizes` (the code of
    ``attacker_risks`` and ``population_uniqueness``) on the table's class sizes.

    Parameters
    ----------
    table : FrequencyTable
        Values and counts of the combinations of ``quasi`` (missing values included).
    quasi : sequence of str
    population_size : int, optional
        The population's size (with ``population_table``: its number of people).
    fraction, region
        As for ``assess_risk``: at most one of ``population_size``, ``fraction``, ``region``.
    population_table : DataFrame, optional
        The population in memory: the journalist and marketer match against its classes
        (:func:`microanon.models.population.population_sizes`).
    population_count : str, optional
        Column of ``population_table`` with the people per row.
    threshold : float
    missing : {"value", "any", "drop", "error"}
        Missing key values: a value of its own (``?``); their records left out of every figure
        and counted (``any``: out of core only class-size figures are computed, and they need
        every key; ``drop``); or refused, naming the column (``error``).

    Returns
    -------
    ClassRisks

    Raises
    ------
    InputError
        As ``assess_risk``.
    """
    quasi = list(quasi)
    try:
        missing = policy_name(missing, RISK_MISSING, "risk")
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if table.records == 0:
        raise InputError(_EMPTY)
    if missing in ("any", "drop"):
        complete = _complete(table, quasi)
        if complete.records == 0:
            raise InputError(_EMPTY)
    elif missing == "value":
        complete = _as_values(table, quasi)
    else:
        refuse_missing_keys({q: int(table.counts[_missing(table, q)].sum()) for q in quasi})
        complete = table
    groups = frequency_groups(complete, quasi)
    sizes = groups.sizes
    f = sizes.astype(float)
    size = population_size
    if region is not None or size is not None:
        pu = uniqueness_of_sizes(sizes, population_size=size, fraction=fraction, region=region)
        fraction = pu.sampling_fraction
    elif fraction is not None:
        pu = uniqueness_of_sizes(sizes, fraction=fraction)
    else:
        pu = None
    if population_table is not None:
        big_f = population_sizes(groups, population_table, population_count).astype(float)
        source = "table"
    elif fraction is not None:
        big_f = f / check_share(fraction, "fraction")
        source = "fraction"
    else:
        big_f, source = f, "sample"
    attackers = class_attacker_risks(sizes, big_f, threshold, source)
    numbers = {
        "rows": table.records,
        "quasi": quasi,
        "threshold": threshold,
        "missing": missing,
        "rows_with_missing_keys_left_out": table.records - complete.records,
        "attackers": attackers,
        "population_uniqueness": None if pu is None else pu.to_dict(),
    }
    risks = pd.DataFrame({"prosecutor": 1.0 / f, "journalist": 1.0 / big_f})
    return ClassRisks(numbers, risks, sizes)
