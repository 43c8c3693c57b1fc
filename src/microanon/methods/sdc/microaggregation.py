"""Microaggregation of numeric columns, with group modes for categorical ones.

As described in Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization*, Morgan & Claypool
2016, Ch. 3.

The records are partitioned into groups of at least ``k`` and each chosen numeric column is
replaced by its group mean, so every published combination of those columns is shared by at
least ``k`` records (per column only, for the univariate methods). Methods:

- ``"mdav"`` (default): :func:`~.microagg_mdav.mdav_groups` on all chosen columns together;
- ``"vmdav"``: :func:`~.microagg_vmdav.vmdav_groups` (V-MDAV, groups of ``k..2k-1`` records
  grown while the next record is closer to the group than ``gamma`` times its distance to the
  rest);
- ``"projection"``: :func:`~.microagg_univariate.projection_groups` (z-score sum or first
  principal component);
- ``"individual_ranking"``: :func:`~.microagg_univariate.individual_ranking`, each column on its
  own;
- ``"optimal_univariate"``: :func:`~.microagg_univariate.optimal_univariate_groups`
  (Hansen–Mukherjee), each column on its own.

Mixed data: the columns named in ``categorical`` (categorical or ordinal) take the mode of their
group, the groups being formed on the numeric columns only. Ties between equally frequent values
go to the value that comes first in the column's dictionary — sorted order for a plain
categorical column, the declared order for an ordinal one, the leaf order for a column with a
hierarchy. Categorical columns need one common partition, so with a univariate method they need
exactly one numeric column.

Strata (sdcMicro's ``strata_variables``): with ``strata``, the records sharing a combination of
those columns' values form a stratum, and each stratum is microaggregated on its own (its own
z-scores, its own groups), so no group mixes strata and the strata columns are published as they
are. A stratum with fewer than ``k`` records cannot be split into groups of ``k``: it is an error
naming the stratum (merge small strata beforehand, e.g. by recoding the strata columns), not a
silent merge with a neighbouring stratum, which would change what the strata mean.

Claimed model: when one partition covers every quasi-identifier of the schema (each of them is
microaggregated, takes its group's mode or is a strata column, and the groups are common to all
columns), every
published combination of quasi-identifiers is shared by a whole group, so the release claims
k-anonymity with the ``k`` used (re-checked by :func:`microanon.models.check_release`). Otherwise
it claims nothing: a quasi-identifier left as it is, or univariate groups that differ from
column to column, leave combinations that can be unique.

The array-level algorithms are re-exported here: :func:`mdav_groups`, :func:`vmdav_groups`,
:func:`individual_ranking`,
:func:`projection_groups`, :func:`optimal_univariate_groups`, :func:`group_means`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import SMALLEST_GROUP, Boolean, Choice, ColumnNames, Param, Real, Text
from ...core.errors import InfeasibleError, InputError
from ...core.keys import shown
from ...core.release import Release
from ...core.schema import Kind, Schema
from ...models import KAnonymity
from ..registry import OutOfCore, method
from .common import (
    CATEGORICAL,
    _named,
    check_flag,
    check_k,
    check_number,
    combination_codes,
    encode_columns,
    masked_release,
    masking_input,
    numeric_matrix,
    select_columns,
    with_columns,
)
from .microagg_common import fixed_size_groups, group_means
from .microagg_mdav import mdav_groups
from .microagg_univariate import (
    PROJECTIONS,
    individual_ranking,
    optimal_univariate_groups,
    projection_groups,
)
from .microagg_vmdav import vmdav_groups

__all__ = [
    "METHODS",
    "group_means",
    "individual_ranking",
    "mdav_groups",
    "microaggregation",
    "optimal_univariate_groups",
    "projection_groups",
    "vmdav_groups",
]

METHODS = ("mdav", "vmdav", "projection", "individual_ranking", "optimal_univariate")
"""Microaggregation methods: multivariate (one partition) first, then the univariate ones."""
_UNIVARIATE = ("individual_ranking", "optimal_univariate")


def _standardized(X: np.ndarray) -> np.ndarray:
    """Columns as z-scores (sample standard deviation); a constant column becomes zeros."""
    sd = X.std(axis=0, ddof=1) if X.shape[0] > 1 else np.zeros(X.shape[1])
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def _group_modes(codes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Each record's most frequent code in its group; ties go to the smallest code."""
    pairs, counts = np.unique(
        labels.astype(np.int64) * (int(codes.max()) + 1) + codes, return_counts=True
    )
    group, code = np.divmod(pairs, int(codes.max()) + 1)
    order = np.lexsort((code, -counts, group))
    first = np.r_[True, group[order][1:] != group[order][:-1]]
    modes = np.empty(int(labels.max()) + 1, dtype=np.int64)
    modes[group[order][first]] = code[order][first]
    return modes[labels]


def _partition(
    space: np.ndarray, k: int, method: str, projection: str, gamma: float
) -> list[np.ndarray]:
    """Group labels of the records of one stratum: one array, or one per column (univariate)."""
    if method in _UNIVARIATE:
        return [
            optimal_univariate_groups(space[:, j], k)
            if method == "optimal_univariate"
            else fixed_size_groups(np.argsort(space[:, j], kind="stable"), k)
            for j in range(space.shape[1])
        ]
    if method == "mdav":
        return [mdav_groups(space, k)]
    if method == "vmdav":
        return [vmdav_groups(space, k, gamma)]
    return [projection_groups(space, k, projection)]


def _strata_codes(frame: pd.DataFrame, strata: list[str], k: int) -> np.ndarray:
    """Stratum number of every record; a stratum of fewer than ``k`` records is an error."""
    codes = combination_codes(frame, strata, observed=True)
    sizes = np.bincount(codes)
    small = np.flatnonzero(sizes < k)
    if len(small):
        first = int(np.flatnonzero(codes == small[0])[0])
        values = ", ".join(f"{c} = {shown(frame[c].iloc[first])}" for c in strata)
        raise InfeasibleError(
            f"strata: {len(small)} stratum/strata with fewer than k = {k} records, the first "
            f"({values}) with {int(sizes[small[0]])}; merge small strata first (e.g. recode "
            "the strata columns)"
        )
    return codes


@method(
    "microaggregation",
    step="any",
    kind="masked",
    publishes="Group means of the numeric columns (modes of the categorical ones). Claims "
    "k-anonymity when every quasi-identifier is aggregated.",
    help="Forms groups of at least k similar records and replaces their numeric values by the "
    "group's mean.",
    params=(
        SMALLEST_GROUP,
        Param(
            "method",
            "How groups are formed: mdav (the usual choice), vmdav, projection, "
            "individual_ranking or optimal_univariate.",
            (Choice(METHODS),),
        ),
        Param(
            "projection",
            "With method projection: the axis records are sorted on (zscore_sum or pca).",
            (Choice(("zscore_sum", "pca")),),
        ),
        Param(
            "standardize",
            "Compare records on standardized columns, so that no column dominates.",
            (Boolean(),),
        ),
        Param(
            "columns",
            "Numeric columns to microaggregate (the numeric quasi-identifiers by default).",
            (ColumnNames(),),
        ),
        Param(
            "categorical",
            "Categorical columns replaced by their group's most frequent value.",
            (ColumnNames(),),
        ),
        Param(
            "strata",
            "Columns whose combinations are microaggregated each on their own.",
            (ColumnNames(),),
        ),
        Param(
            "gamma",
            "With method vmdav: how readily groups grow, above 0.",
            (Real(0, None, closed="neither"),),
        ),
        Param(
            "by",
            "The column within whose blocks records are microaggregated, out of core only.",
            (Text(),),
            dask_only=True,
        ),
    ),
    out_of_core=OutOfCore("microaggregate_blocks", rowwise=False, variants="mdav", needs=("by",)),
    in_memory_because="its groups are formed from distances between all records",
)
def microaggregation(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    k: int,
    method: str = "mdav",
    projection: str = "zscore_sum",
    standardize: bool = True,
    columns: Sequence[str] | None = None,
    categorical: Sequence[str] | None = None,
    strata: Sequence[str] | None = None,
    gamma: float = 0.2,
) -> Release:
    """Microaggregate numeric columns: replace them by the means of groups of at least ``k``.

    Parameters
    ----------
    data : DataFrame
        The original table.
    schema : Schema or mapping
    k : int
        Minimum group size, ``1 <= k <=`` number of rows (``k = 1`` publishes the data as is).
    method : {"mdav", "vmdav", "projection", "individual_ranking", "optimal_univariate"}
        How groups are formed (see the module docstring).
    projection : {"zscore_sum", "pca"}
        The axis of ``method="projection"`` (ignored otherwise, but validated).
    standardize : bool
        Form the groups on z-scores of the columns (sample standard deviation) rather than raw
        values, so that no column dominates the distances. It changes the groups of ``"mdav"``,
        ``"vmdav"`` and of ``"projection"`` with ``"pca"`` only (the univariate methods and the
        z-score sum are scale-free). The published values are always group means of the raw
        values. The book chapter's MDAV works on the raw values (``standardize=False``);
        sdcMicro's MDAV divides each variable's squared differences by its variance, which is
        ``standardize=True`` (the same groups up to rounding).
    columns : sequence of str, optional
        Numeric columns to microaggregate; default: the numeric quasi-identifiers that are not
        strata columns.
    categorical : sequence of str, optional
        Categorical or ordinal columns to replace by their group's mode (mixed data).
    strata : sequence of str, optional
        Columns whose value combinations split the records into strata, each microaggregated
        on its own (published unchanged; missing values form a stratum of their own).
    gamma : float
        V-MDAV's gain factor ``γ > 0`` (``method="vmdav"`` only, validated always).

    Returns
    -------
    Release
        Kind ``"masked"``; ``data`` has the published columns in schema order and the input's
        rows in their order (less rows dropped by a ``missing: drop`` policy; a release always
        has a fresh index); the microaggregated
        columns are float, the ``categorical`` ones take their group's mode, every other column
        is unchanged. Metadata (besides the common keys): ``parameters`` (``k``, ``method``,
        ``projection``, ``standardize``, ``columns``, ``categorical``, ``strata``, ``gamma``);
        ``models``: k-anonymity with this ``k`` when one partition covers every
        quasi-identifier (each is in ``columns``, ``categorical`` or ``strata`` and the method
        is multivariate or has one column), else none; ``masked_numeric`` (= ``columns``);
        ``groups`` (number of groups; a mapping column → number for a univariate method);
        ``min_group_size``; ``max_group_size``; ``strata`` (number of strata, with ``strata``);
        ``sse``, ``sst`` and ``information_loss`` (= SSE / SST) over the microaggregated
        columns, on z-scores of the whole table when ``standardize`` and on raw values
        otherwise.

    Raises
    ------
    InputError
        Unknown ``method`` or ``projection``; ``k`` not an integer or below 1; ``gamma`` not a
        positive number; a column that is unknown, not numeric (``columns``) or not
        categorical/ordinal (``categorical``) or listed twice; a strata column that is unknown
        or also microaggregated; no numeric column; ``categorical`` with a univariate method on
        more than one column; bad data (see :meth:`microanon.Table.from_frame`).
    InfeasibleError
        ``k`` larger than the number of rows, or than a stratum's.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [21, 22, 23, 50, 52, 54], "sex": list("FFMMMF")})
    >>> schema = {"age": {"role": "quasi", "kind": "numeric"}, "sex": "quasi"}
    >>> rel = microaggregation(df, schema, k=3, categorical=["sex"])
    >>> rel.data["age"].tolist(), rel.data["sex"].tolist(), rel.metadata["groups"]
    ([22.0, 22.0, 22.0, 52.0, 52.0, 52.0], ['F', 'F', 'F', 'M', 'M', 'M'], 2)
    """
    if method not in METHODS:
        raise InputError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    if projection not in PROJECTIONS:
        raise InputError(
            f"projection: expected one of {', '.join(PROJECTIONS)}, got {projection!r}"
        )
    check_flag(standardize, "standardize")
    check_number(gamma, "gamma", 0, low_open=True)
    check_k(k)
    schema, frame = masking_input(data, schema)
    blocks = _named(schema, strata, "strata")
    if columns is None and blocks:
        numeric = [q for q in schema.quasi if schema[q].kind is Kind.NUMERIC and q not in blocks]
        if not numeric:
            raise InputError(
                "microaggregation: no numeric quasi-identifier besides the strata columns; name "
                "the columns to microaggregate with columns="
            )
    else:
        numeric = select_columns(schema, columns, (Kind.NUMERIC,), "microaggregation")
    modal = (
        []
        if categorical is None
        else select_columns(schema, categorical, CATEGORICAL, "microaggregation (categorical)")
    )
    both = [c for c in blocks if c in numeric or c in modal]
    if both:
        raise InputError(
            f"strata: column '{both[0]}' is a stratum column and cannot also be microaggregated"
        )
    if modal and method in _UNIVARIATE and len(numeric) > 1:
        raise InputError(
            f"categorical: columns need one partition of the records, but method={method!r} "
            f"groups each of the {len(numeric)} numeric columns separately; use 'mdav' or "
            "'projection', or one numeric column"
        )
    k = check_k(k, len(frame))
    raw = numeric_matrix(frame, numeric, "microaggregation")
    space = _standardized(raw) if standardize else raw
    strata_of = _strata_codes(frame, blocks, k) if blocks else np.zeros(len(frame), np.intp)

    univariate = method in _UNIVARIATE
    per_column = [np.empty(len(frame), dtype=np.intp) for _ in (numeric if univariate else [0])]
    offsets = [0] * len(per_column)
    for rows in _stratum_rows(strata_of):
        local = raw[rows]
        found = _partition(
            _standardized(local) if standardize else local, k, method, projection, gamma
        )
        for j, lab in enumerate(found):
            per_column[j][rows] = lab + offsets[j]
            offsets[j] += int(lab.max()) + 1
    of_column = [per_column[j if univariate else 0] for j in range(len(numeric))]
    masked = np.column_stack([group_means(raw[:, j], lab) for j, lab in enumerate(of_column)])
    fitted = np.column_stack([group_means(space[:, j], lab) for j, lab in enumerate(of_column)])
    sizes = [np.bincount(lab) for lab in per_column]
    labels = per_column[0]
    groups: Any = (
        {c: int(lab.max()) + 1 for c, lab in zip(numeric, per_column, strict=True)}
        if univariate
        else int(labels.max()) + 1
    )

    new: dict[str, Any] = {c: masked[:, j] for j, c in enumerate(numeric)}
    for c, (codes, dictionary) in encode_columns(frame, schema, modal).items():
        new[c] = dictionary[_group_modes(codes, labels)]
    sse = float(((space - fitted) ** 2).sum())
    sst = float(((space - space.mean(axis=0)) ** 2).sum())
    parameters = {
        "k": k,
        "method": method,
        "projection": projection,
        "standardize": bool(standardize),
        "columns": numeric,
        "categorical": modal,
        "strata": blocks,
        "gamma": float(gamma),
    }
    extra = {"strata": int(strata_of.max()) + 1} if blocks else {}
    # One partition into groups of >= k covering every quasi-identifier makes them k-anonymous
    # (a strata column is constant within every group).
    one_partition = not univariate or len(numeric) == 1
    covered = bool(schema.quasi) and set(schema.quasi) <= {*numeric, *modal, *blocks}
    return masked_release(
        "microaggregation",
        with_columns(frame, new),
        schema,
        parameters,
        len(frame),
        models=[KAnonymity(k)] if one_partition and covered else [],
        masked_numeric=numeric,
        groups=groups,
        min_group_size=min(int(s[s > 0].min()) for s in sizes),
        max_group_size=max(int(s.max()) for s in sizes),
        sse=sse,
        sst=sst,
        information_loss=sse / sst if sst > 0 else 0.0,
        **extra,
    )


def _stratum_rows(strata_of: np.ndarray) -> list[np.ndarray]:
    """Row positions of each stratum, strata in order of first appearance, rows in order."""
    order = np.argsort(strata_of, kind="stable")
    cuts = np.flatnonzero(np.diff(strata_of[order])) + 1
    return np.split(order, cuts)
