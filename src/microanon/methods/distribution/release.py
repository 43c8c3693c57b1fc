"""The distribution-based release: group the table, give every group a target distribution,
publish exact quasi-identifiers and a P-private multiset of sensitive subdomains.

The release of Koudas, Srivastava, Yu & Zhang, *Distribution-based Microdata Anonymization*, PVLDB
2(1):958–969, 2009.

Grouping has two layers. The *owner's groups* (one group, a column, a quasi-identifier prefix, a
k-anonymous Mondrian partition, or any labels) each get a target distribution and a hierarchy.
The *partition* then decides the published groups: ``"sa_only"`` publishes each owner's group as
one group (one MinSumOfRange over it); ``"qi_sa"`` splits it into subgroups of identical
quasi-identifier values (by default all of them; the paper's experiments use age) and solves each
subgroup with the group's hierarchy. Both are P-private; neither dominates (the paper's Sec. 4.2).

The release is kind ``"distribution"`` with a quasi-identifier table ``qit`` (exact values plus a
``group`` id, rows shuffled) and a sensitive table ``st`` (``group``, ``low``, ``high``, ``count``):
each group's entries, real and fake alike. Publishing the multiset instead of one subdomain per row
is the random permutation behind Definition 3.2 with the pairing integrated out: every pairing of a
group's tuples with its entries is equally likely.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.constraints import (
    Anything,
    Boolean,
    Choice,
    ColumnNames,
    Integer,
    Param,
    PerColumn,
    Real,
)
from ...core.errors import InputError, SchemaError
from ...core.hierarchy import Hierarchy
from ...core.random import RandomLike, make_rng
from ...core.release import Release
from ...core.schema import Schema, refuse_repeated
from ...core.table import factorize_column
from ...models.config import one_sensitive_column
from ..registry import method
from ..release import generalized_release, prepare, unchanged_column
from .fakes import fake_budget, min_sor_fake
from .hierarchy import AnnotatedHierarchy, rounded_weights, sensitive_domain, target_weights
from .min_sum_of_range import allocate

__all__ = ["category_key", "distribution_anonymize", "GROUP_COLUMN", "PARTITIONS"]

#: Name of the group-id column of both tables.
GROUP_COLUMN = "group"
#: How owner's groups are split into published groups.
PARTITIONS = ("sa_only", "qi_sa")
#: Scale of the target probabilities fed to the per-node split rounding (``resolution``).
_SPLIT_SCALE = 1 << 40


def _owner_groups(frame: pd.DataFrame, groups: Any, schema: Schema, quasi: list[str]) -> np.ndarray:
    """Owner's group label (0..G-1) of every row."""
    n = len(frame)
    if groups is None:
        return np.zeros(n, dtype=np.int64)
    if isinstance(groups, str):
        groups = [groups]
    if isinstance(groups, Mapping):
        return _mapping_groups(frame, groups, schema, quasi)
    if isinstance(groups, (list, tuple)) and all(isinstance(c, str) for c in groups):
        refuse_repeated(groups, "groups")
        missing = [c for c in groups if c not in frame.columns]
        if missing:
            raise InputError(f"groups: column(s) {', '.join(missing)} not in the table")
        if schema.sensitive[0] in groups:
            raise InputError("groups: the sensitive column cannot define the groups")
        return _labels(frame[groups])
    labels = np.asarray(groups)
    if labels.ndim != 1 or len(labels) != n:
        raise InputError(f"groups: expected one label per row ({n}), got shape {labels.shape}")
    return _labels(pd.DataFrame({"g": labels}))


def _labels(columns: pd.DataFrame) -> np.ndarray:
    if columns.isna().any().any():
        raise InputError("groups: the grouping has missing values")
    return columns.groupby(list(columns.columns), sort=True).ngroup().to_numpy(np.int64)


def _mapping_groups(
    frame: pd.DataFrame, spec: Mapping[str, Any], schema: Schema, quasi: list[str]
) -> np.ndarray:
    if "mondrian" in spec:
        from ..generalize import mondrian

        params = dict(spec["mondrian"] or {})
        models = params.pop("models", None) or {"k_anonymity": {"k": params.pop("k", None)}}
        sub = Schema.from_dict({c: schema[c].to_dict() for c in quasi})
        release = mondrian(frame[quasi], sub, models=models, **params)
        return _labels(release.tables["data"][quasi])
    if "column" in spec:
        column, prefix = spec["column"], spec.get("prefix")
        if column not in frame.columns:
            raise InputError(f"groups: column {column!r} not in the table")
        if not isinstance(prefix, numbers.Integral) or isinstance(prefix, bool) or prefix < 1:
            raise InputError(f"groups: prefix must be a whole number >= 1, got {prefix!r}")
        keys = frame[column].astype(str).str.slice(0, int(prefix))
        return _labels(pd.DataFrame({"g": keys}))
    raise InputError(
        "groups: a mapping must be {column: NAME, prefix: N} or {mondrian: {k: K}}; "
        f"got keys {', '.join(map(str, spec))}"
    )


def _published_groups(
    frame: pd.DataFrame, owner: np.ndarray, partition: str, columns: list[str]
) -> np.ndarray:
    """Published group label (0..) of every row; subgroups never straddle owner's groups."""
    if partition == "sa_only":
        return owner
    keys = pd.DataFrame({"__owner": owner})
    for c in columns:
        keys[c] = factorize_column(frame[c], c)[0]
    return _labels(keys)


def _check_options(partition: str, layout: str) -> None:
    if partition not in PARTITIONS:
        raise InputError(f"partition: choose one of {', '.join(PARTITIONS)}, got {partition!r}")
    if layout != "split":
        raise InputError(f"layout: only 'split' (qit + st) is supported, got {layout!r}")


@method(
    "distribution",
    kind="distribution",
    publishes="Two tables: the exact quasi-identifiers with a group number, and per group its "
    "sensitive ranges (low, high, count). P-privacy by construction, re-checked exactly.",
    help="Publishes groups whose sensitive values follow a target distribution, generalizing or "
    "adding fake values where needed; aggregate queries keep guaranteed bounds.",
    params=(
        Param(
            "target",
            "The distribution every group's sensitive values must follow: empirical (the whole "
            "table's), uniform, or a named distribution with its parameters.",
            (
                Choice(("empirical", "uniform")),
                PerColumn(keys="a distribution's name (normal, zipf or pmf) to its parameters"),
            ),
        ),
        Param(
            "groups",
            "How records are grouped first: one group (not given), by column(s), by a prefix of "
            "a column, or by Mondrian with k.",
            (
                ColumnNames(),
                PerColumn(keys="column and prefix, or mondrian and k"),
                Anything("labels, one per record"),
            ),
        ),
        Param(
            "partition",
            "Publish each group whole (sa_only) or split into subgroups of identical "
            "quasi-identifiers (qi_sa).",
            (Choice(("sa_only", "qi_sa")),),
        ),
        Param(
            "subgroup_by",
            "The quasi-identifiers that define subgroups (all of them when not given).",
            (ColumnNames(),),
        ),
        Param(
            "fakes",
            "Fake values allowed per group: a count, or a share of the group below 1 (0.1 = "
            "10 %); 0 allows none.",
            (Real(0, None),),
        ),
        Param("arity", "Branches per node of the value hierarchies (2 = binary).", (Integer(2),)),
        Param(
            "domain",
            "The values the hierarchy covers: the distinct sensitive values, every integer "
            "between the smallest and the largest, or a given integer range.",
            (Anything("values, a range or a name"),),
        ),
        Param(
            "per_group",
            "One hierarchy per group, over that group's own values.",
            (Boolean(),),
        ),
        Param(
            "scale",
            "Whole-number scale of targets that are not whole numbers (the number of records "
            "by default).",
            (Integer(1),),
        ),
        Param(
            "resolution",
            "Round each node's share of the target to whole numbers summing to this (e.g. 16) "
            "instead of scaling; not with scale.",
            (Integer(1),),
        ),
        Param(
            "categorical",
            "Treat the sensitive values as unordered categories (detected when not given).",
            (Boolean(),),
        ),
        Param(
            "layout", "Two tables joined by group number (the only layout).", (Choice(("split",)),)
        ),
    ),
    in_memory_because="its groups (MinSumOfRange, optimal fakes) are built from the whole table",
)
def distribution_anonymize(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    *,
    target: Any = "empirical",
    groups: Any = None,
    partition: str = "sa_only",
    subgroup_by: Sequence[str] | None = None,
    fakes: int | float = 0,
    arity: int = 2,
    domain: Any = None,
    per_group: bool = False,
    scale: int | None = None,
    resolution: int | None = None,
    categorical: bool | None = None,
    layout: str = "split",
    rng: RandomLike = None,
) -> Release:
    """Publish a table whose sensitive values are P-private in every group (Koudas et al. 2009).

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
        At least one quasi-identifier and exactly one sensitive column, numeric or categorical.
    target : str or mapping
        Target distribution of every group: ``"empirical"`` (of the whole table, or of each group
        with ``per_group``), ``"uniform"``, ``{"normal": {"mean": m, "variance": v}}``,
        ``{"zipf": {"s": s}}`` or ``{"pmf": {value: probability}}``.
    groups : None, str, list, mapping or array
        The owner's grouping: ``None`` (one group), column name(s), ``{"column": c, "prefix": p}``
        (first ``p`` characters, e.g. ZIP prefixes), ``{"mondrian": {"k": k}}`` (a k-anonymous
        Mondrian partition of the quasi-identifiers; they need hierarchies) or one label per row.
    partition : {"sa_only", "qi_sa"}
        Publish each group whole, or split it into subgroups of identical ``subgroup_by`` values.
    subgroup_by : list of str, optional
        Quasi-identifiers defining QI-SA subgroups (default: all quasi-identifiers).
    fakes : int or float
        Fake values allowed per published group: a count, or a share of the group's size below 1
        (``0.1`` = 10%). ``0``: no fakes (MinSumOfRange); otherwise minSORFake per group.
    arity : int
        Arity of the balanced hierarchies (2 = binary).
    domain : None, "integer" or (low, high)
        Leaves of the hierarchy: the distinct sensitive values, every integer between the
        smallest and the largest, or a given integer range.
    per_group : bool
        One hierarchy per owner's group over that group's own domain and data (the empirical
        target is then the group's own distribution).
    scale : int, optional
        Integer scale of non-integer targets; default: the number of records the hierarchy
        serves (table or group). Recorded in the metadata.
    resolution : int, optional
        Round the target's split at every hierarchy node to whole numbers summing to this
        (e.g. 16) instead of scaling leaf probabilities; exclusive with ``scale``. With small
        groups (QI-SA subgroups) this is usually what lets them follow the target; see
        docs/distribution.md.
    categorical : bool, optional
        Treat the sensitive attribute as unordered categories: a subdomain's range is its number
        of categories (the paper's footnote), the hierarchy is the schema's hierarchy of the
        sensitive column if it has one, else a balanced tree over the sorted categories, and
        ``st``'s ``low`` / ``high`` are the first and last category of an entry in the
        hierarchy's leaf order (recorded in the metadata). Default: categorical exactly when
        the column holds values that are not numbers. Normal and Zipf targets and ``domain``
        need a numeric attribute.
    layout : {"split"}
        Two tables joined by group id (the only layout).
    rng : numpy.random.Generator, int or None
        Randomness for group labels and row order (``None``: OS entropy).

    Returns
    -------
    Release
        Kind ``"distribution"``: ``qit`` (published non-sensitive columns exactly, plus
        ``group`` 1..G; rows shuffled) and ``st`` (``group``, ``low``, ``high``, ``count``;
        categorical: an entry is every category from ``low`` to ``high`` in leaf order).
        Metadata: the standard keys, the claimed model ``p_privacy``, and ``distribution`` with
        the annotated hierarchies (values, integer weights, tree, target, scale), the hierarchy
        of every group (``group_hierarchy``), ``groups``, ``owner_groups``, ``partition``,
        ``fakes`` (total fake entries) and ``sum_of_ranges``.

    Raises
    ------
    SchemaError
        No quasi-identifier, not exactly one sensitive column, or a non-numeric one with
        ``categorical=False``.
    InputError
        Bad parameters (naming them), values outside a given domain, a target pmf naming values
        outside the domain.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"zip": ["91110", "91110", "91110", "91130", "91210", "91220"],
    ...                    "salary": [30, 40, 50, 60, 40, 30]})
    >>> rel = distribution_anonymize(df, {"zip": "quasi", "salary": "sensitive"},
    ...                              target="uniform", groups={"column": "zip", "prefix": 3},
    ...                              rng=0)
    >>> rel.metadata["distribution"]["sum_of_ranges"]
    60.0
    """
    _check_options(partition, layout)
    schema = schema if isinstance(schema, Schema) else Schema.from_dict(schema)
    # (counted before the table's missing values are)
    sa = one_sensitive_column("distribution-based anonymization", schema.sensitive)
    table, _ = prepare(data, schema, None, need_hierarchies=False)
    sch = table.schema
    frame = table.to_frame().infer_objects()
    values, categorical = _sensitive_values(frame[sa], sa, categorical)
    if categorical and domain is not None:
        raise InputError(f"domain: sensitive column '{sa}' is categorical; leave domain unset")
    sa_tree = sch[sa].hierarchy if categorical else None
    quasi = list(sch.quasi)
    subgroup_by = list(quasi if subgroup_by is None else subgroup_by)
    refuse_repeated(subgroup_by, "subgroup_by")
    bad = [c for c in subgroup_by if c not in quasi]
    if bad or not subgroup_by:
        raise InputError(f"subgroup_by: {bad or subgroup_by} must be quasi-identifier names")
    if GROUP_COLUMN in frame.columns:
        raise InputError(f"a published column is named '{GROUP_COLUMN}'; rename it")
    rng = make_rng(rng)
    owner = _owner_groups(frame, groups, sch, quasi)
    published = _published_groups(frame, owner, partition, subgroup_by)
    n_pub = int(published.max()) + 1
    pub_owner = np.zeros(n_pub, dtype=np.int64)
    pub_owner[published] = owner

    encoding = _Encoding(target, arity, domain, scale, resolution, categorical, sa_tree)
    hierarchies, group_h = _hierarchies(values, owner, per_group, encoding)
    group_h_pub = group_h[pub_owner]
    rows, total_fakes, total_sor = [], 0, 0.0
    for hi, h in enumerate(hierarchies):
        members = np.flatnonzero(group_h_pub == hi)
        sel = np.isin(published, members)
        local = np.searchsorted(members, published[sel])
        leaf = h.leaf_index(values[sel], f"sensitive column '{sa}' value")
        counts = np.zeros((len(members), len(h.values)), dtype=np.int64)
        np.add.at(counts, (local, leaf), 1)
        copies, n_fakes = _solve(h, counts, values[sel], local, fakes)
        total_fakes += n_fakes
        total_sor += float((copies @ h.node_range).sum())
        g_idx, node = np.nonzero(copies)
        rows.append((members[g_idx], h.low[node], h.high[node], copies[g_idx, node]))

    relabel = rng.permutation(n_pub) + 1
    st = pd.DataFrame(
        {
            GROUP_COLUMN: relabel[np.concatenate([r[0] for r in rows])],
            "low": np.concatenate([r[1] for r in rows]),
            "high": np.concatenate([r[2] for r in rows]),
            "count": np.concatenate([r[3] for r in rows]).astype(np.int64),
        }
    )
    st = st.sort_values([GROUP_COLUMN, "low", "high"], kind="stable").reset_index(drop=True)
    # the published columns as every method publishes them unchanged: whole numbers with cells
    # kept empty stay whole (the inferred frame above holds them as floats)
    rows_all = np.arange(table.n_rows)
    qit = pd.DataFrame(
        {c: unchanged_column(table, c, rows_all) for c in frame.columns if c != sa},
        index=frame.index,
    )
    qit[GROUP_COLUMN] = relabel[published]
    qit = qit.iloc[rng.permutation(len(qit))].reset_index(drop=True)
    order = np.argsort(relabel)
    parameters = {
        "target": target,
        "groups": groups if isinstance(groups, (str, list, dict, type(None))) else "labels",
        "partition": partition,
        "subgroup_by": subgroup_by if partition == "qi_sa" else None,
        "fakes": fakes,
        "arity": arity,
        "domain": list(domain) if isinstance(domain, tuple) else domain,
        "per_group": per_group,
        "scale": scale,
        "resolution": resolution,
        "categorical": categorical,
    }
    release = generalized_release(
        "distribution",
        qit,
        table,
        parameters,
        [],
        kind="distribution",
        extra_tables={"qit": qit, "st": st},
        distribution={
            "hierarchies": [h.to_dict() for h in hierarchies],
            "group_hierarchy": group_h_pub[order].tolist(),
            "groups": n_pub,
            "owner_groups": int(owner.max()) + 1,
            "partition": partition,
            "fakes": int(total_fakes),
            "sum_of_ranges": total_sor,
        },
    )
    release.metadata["models"] = [{"p_privacy": {}}]
    return release


def _sensitive_values(
    column: pd.Series, sa: str, categorical: bool | None
) -> tuple[np.ndarray, bool]:
    """The sensitive values (numbers, or labels for a categorical attribute) and the kind."""
    if isinstance(categorical, bool) and categorical:
        if column.isna().any():
            raise InputError(f"sensitive column '{sa}' has missing values")
        labels = np.empty(len(column), dtype=object)
        labels[:] = column.tolist()
        return labels, True
    numeric = pd.to_numeric(column, errors="coerce")
    if pd.api.types.is_bool_dtype(column) or numeric.isna().any():
        if categorical is None:
            return _sensitive_values(column, sa, True)
        raise SchemaError(
            f"sensitive column '{sa}' must hold numbers with categorical=False; this method "
            "generalizes a numeric sensitive attribute into value ranges"
        )
    values = numeric.to_numpy()
    if not np.all(np.isfinite(values)):
        raise InputError(f"sensitive column '{sa}' must hold finite numbers")
    return values, False


@dataclass(frozen=True)
class _Encoding:
    """How a hierarchy is built from a domain: the options of :func:`distribution_anonymize`."""

    target: Any
    arity: int
    domain: Any
    scale: int | None
    resolution: int | None
    categorical: bool
    tree: Any  # the schema's hierarchy of a categorical sensitive column, if any

    def domain_of(self, vals: np.ndarray) -> np.ndarray:
        if not self.categorical:
            return sensitive_domain(vals, self.domain)
        if isinstance(self.tree, Hierarchy):
            return np.asarray(self.tree.leaves, dtype=object)
        return np.asarray(sorted(set(vals.tolist()), key=category_key), dtype=object)

    def build(self, dom: np.ndarray, vals: np.ndarray) -> AnnotatedHierarchy:
        if self.categorical and isinstance(self.tree, Hierarchy):
            return _from_tree(self.tree, self, vals)
        if self.resolution is not None:
            return AnnotatedHierarchy.balanced(
                dom,
                arity=self.arity,
                target=self.target,
                data=vals,
                scale=self.scale,
                resolution=self.resolution,
                categorical=self.categorical,
            )
        return AnnotatedHierarchy.balanced(
            dom,
            arity=self.arity,
            target=self.target,
            data=vals,
            scale=self.scale or len(vals),
            categorical=self.categorical,
        )


def category_key(v: Any) -> tuple[str, str]:
    """Sort key of categories of any types: by type name, then text (the leaf order of a
    categorical sensitive domain built from the data)."""
    return type(v).__name__, str(v)


def _from_tree(tree: Hierarchy, enc: _Encoding, vals: np.ndarray) -> AnnotatedHierarchy:
    """The schema's categorical hierarchy annotated with the target."""
    leaves = np.asarray(tree.leaves, dtype=object)
    if enc.resolution is not None:
        if enc.scale is not None:
            raise InputError("give either scale or resolution, not both")
        mass, _, desc = target_weights(leaves, enc.target, vals, _SPLIT_SCALE, True)
        plain = AnnotatedHierarchy.from_hierarchy(tree, np.ones(len(leaves)), categorical=True)
        weights = rounded_weights(plain, mass, int(enc.resolution))
        desc = {**desc, "resolution": int(enc.resolution)}
        return AnnotatedHierarchy.from_hierarchy(tree, weights, desc, None, categorical=True)
    weights, used, desc = target_weights(
        leaves, enc.target, vals, enc.scale or len(vals), categorical=True
    )
    return AnnotatedHierarchy.from_hierarchy(tree, weights, desc, used, categorical=True)


def _hierarchies(
    values: np.ndarray, owner: np.ndarray, per_group: bool, enc: _Encoding
) -> tuple[list[AnnotatedHierarchy], np.ndarray]:
    """The annotated hierarchies and the hierarchy index of every owner's group."""
    n_owner = int(owner.max()) + 1
    if not per_group:
        return [enc.build(enc.domain_of(values), values)], np.zeros(n_owner, np.int64)
    order = np.argsort(owner, kind="stable")
    bounds = np.searchsorted(owner[order], np.arange(n_owner + 1))
    out = []
    for g in range(n_owner):
        vals = values[order[bounds[g] : bounds[g + 1]]]
        out.append(enc.build(enc.domain_of(vals), vals))
    return out, np.arange(n_owner, dtype=np.int64)


def _solve(
    h: AnnotatedHierarchy,
    counts: np.ndarray,
    values: np.ndarray,
    local: np.ndarray,
    fakes: int | float,
) -> tuple[np.ndarray, int]:
    """Entries per (group, node) for the groups of one hierarchy, and the fakes they added."""
    fake_budget(fakes, 1)  # validate once, before any work
    if fakes == 0:
        return allocate(h, counts), 0
    copies = np.zeros((counts.shape[0], h.n_nodes), dtype=np.int64)
    order = np.argsort(local, kind="stable")
    bounds = np.searchsorted(local[order], np.arange(counts.shape[0] + 1))
    n_fakes = 0
    for g in range(counts.shape[0]):
        result = min_sor_fake(values[order[bounds[g] : bounds[g + 1]]], h, fakes)
        copies[g] = result.copies
        n_fakes += len(result.fakes)
    return copies, n_fakes
