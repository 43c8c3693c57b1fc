"""Report sections of a randomized release (kind ``randomized``): the claimed risk bound, the
class statistics of the randomized values an attacker sees, and the utility of the reconstructed
distribution.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microanon.apps.release_frequencies import Combinations, ReleaseTables
from microanon.apps.release_sections import add_single_table_sections
from microanon.apps.report import Report, Section
from microanon.core.release import Release
from microanon.core.schema import Schema
from microanon.core.table import Table
from microanon.measures import utility_report
from microanon.measures.estimators import MAX_JOINT_CELLS
from microanon.models import Verdict

__all__ = [
    "MAX_CUBE_WORK",
    "add_sections",
    "describe_column",
    "describe_randomized",
    "randomized_utility",
]

#: Most work of the report's CUBE query error: its group-bys (``2^(m+1)`` for ``m``
#: quasi-identifiers) times the original's combinations of values, about 2-3 s (0.15-0.25 µs a
#: unit). It doubles with each quasi-identifier: COUNT's rwm5yr with twelve (8,192 group-bys
#: over 10,373 combinations) took 21.5 s of reports with it and 13.3 s without.
MAX_CUBE_WORK = 16_000_000


def add_sections(
    report: Report,
    original: pd.DataFrame,
    release: Release,
    title: str = "Release",
    schema: Schema | None = None,
    verdicts: Sequence[Verdict] | None = None,
    tables: ReleaseTables | None = None,
) -> dict[str, Any]:
    """Add the privacy and utility sections of a randomized release.

    The arguments and the numbers returned are those of every family's ``add_sections``
    (:func:`microanon.apps.families.add_release_sections`).

    With ``schema``, utility is measured on the reconstructed distribution
    (:func:`randomized_utility`); without it, by the generalization-style measures of the
    randomized table. ``tables``: the frequency tables of the original and the published
    table, counted out of core (``release`` then holds the published table's distinct rows and
    ``schema`` its hierarchies built from the whole table); every number is measured on them.
    """
    if schema is None:
        return add_single_table_sections(
            report, original, release, title, tables=tables, verdicts=verdicts
        )
    meta = release.metadata

    def note(sec: Section) -> None:
        bound = meta.get("risk_bound")
        if bound is not None:
            sec.paragraph(
                f"Randomized response bounds every record's attribute-disclosure risk by "
                f"τ = {bound:.4g}; the optimal keep probabilities reach a maximum risk of "
                f"{meta.get('optimal', {}).get('max_risk', float('nan')):.4g}. The class "
                "statistics below are of the randomized values an attacker sees."
            )

    return add_single_table_sections(
        report,
        original,
        release,
        title,
        note=note,
        utility=lambda rel, orig: randomized_utility(rel, orig, schema, tables),
        tables=tables,
        verdicts=verdicts,
        utility_text=_utility_text(meta),
    )


def _utility_text(meta: Mapping[str, Any]) -> str:
    """What :func:`randomized_utility`'s numbers are, naming the sensitive column measured."""
    sensitive = [str(c) for c in meta.get("sensitive") or []]
    if not sensitive or not meta.get("quasi"):
        return "No utility measure: the release has no quasi-identifier or no sensitive column."
    others = sensitive[1:]
    randomized = meta.get("randomized") or {}
    internal = [c for c, spec in randomized.items() if (spec or {}).get("matrix") is None]
    matrices = (
        "the matrices applied (those of "
        + ", ".join(map(repr, internal))
        + " internal: computed from the original's counts, so that a data user cannot "
        "reproduce this measure)"
        if internal
        else "the public matrices"
    )
    text = (
        f"The joint distribution of the quasi-identifiers and {sensitive[0]!r} reconstructed "
        f"from the published table and {matrices} (π̂ = P⁻¹λ̂), against the "
        f"original's, on the records whose {sensitive[0]!r} is known (the measures of Guo, "
        "Ying & Wu, 2011): n records; KL divergence, χ² (the original in the denominator) and "
        "squared Euclidean distance (0 = the same distribution); the mean relative error of "
        "the count queries of the base group-by (every cell) and of the CUBE (every group-by; "
        f"not computed when its group-bys times the original's combinations of values are "
        f"more than {MAX_CUBE_WORK:,}); "
        "the mean uncertainty coefficients of the sensitive column given each quasi-identifier "
        "(u_sa_qi) and of each quasi-identifier given another (u_qi_qi), on the reconstruction "
        f"with its negative cells set to 0 and rescaled. Not computed on a joint of more than "
        f"{MAX_JOINT_CELLS:,} cells."
    )
    if others:
        text += f" The other sensitive columns ({', '.join(map(repr, others))}) are not measured."
    return text


def randomized_utility(
    release: Release,
    original: pd.DataFrame,
    schema: Schema,
    tables: ReleaseTables | None = None,
) -> dict[str, Any]:
    """Distances and query errors of the reconstructed distribution of a randomized release.

    Over the joint distribution of the quasi-identifiers and the sensitive attribute (the measures
    of Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based Microdata Release*,
    JCSE 2011): KL, χ², squared Euclidean distance, mean relative error of the base and CUBE count
    queries, and the mean uncertainty coefficients. On the records whose sensitive value is
    known (a column kept empty where missing is not randomized: its published values are the
    original ones).

    ``tables``: the frequency tables of the records that entered the method and of the
    published table on the quasi-identifiers and the sensitive attribute, counted out of core
    (``schema`` then has the hierarchies the method built from the whole table; ``original``
    is not read): the same numbers, measured on the tables' combinations and counts.
    """
    meta = release.metadata
    quasi = list(meta.get("quasi") or [])
    sensitive = (meta.get("sensitive") or [None])[0]
    if sensitive is None or not quasi:
        return {}
    if tables is None:
        # the hierarchies built from the data as the method built them, from every record that
        # entered (not from those measured alone, whose values may be missing where others are
        # not): the method's own, within the command's run that kept its encoding
        built = release.encoded.schema if release.encoded is not None else None
        measured = (
            built.select([*quasi, sensitive])
            if built is not None and {*quasi, sensitive} <= set(built.columns)
            else schema.select([*quasi, sensitive]).resolve(original)
        )
        # the records that entered the method (missing: drop left none of the others in)
        left_out = schema.left_out(original)
        if left_out is not None:
            original = original.loc[~left_out.to_numpy()]
        entered = Combinations(original, np.ones(len(original), dtype=np.int64))
        published = Combinations(release.data, np.ones(len(release.data), dtype=np.int64))
    else:  # counted out of core: the records that entered, the records published
        measured = schema.select([*quasi, sensitive])
        entered, published = tables.before, tables.after
    values = entered.values
    known = values[sensitive].notna().to_numpy()
    if not known.any():
        return {
            "joint distribution": f"{sensitive} holds no known value: not reconstructed, the "
            "measures of the distribution are not computed"
        }
    data, counts = published.values, published.counts
    if bool(data[sensitive].isna().any()):
        shown = data[sensitive].notna().to_numpy()
        data, counts = data.loc[shown], counts[shown]
    if data is not release.data:
        release = Release(release.kind, {"data": data}, release.metadata, release.public_keys)
    # coded on every record that entered (the domains the release's are compared with: a
    # value only a record with an unknown sensitive value holds is in both), then narrowed
    table = _coded(values, measured, None if tables is None else entered.counts).take(known)
    cells = math.prod(table.cardinality(c) for c in [*quasi, sensitive])
    if cells > MAX_JOINT_CELLS:  # the measures compare dense joint distributions
        return {
            "joint distribution": f"{cells:,} cells, more than {MAX_JOINT_CELLS:,}: not "
            "reconstructed, the measures of the distribution are not computed"
        }
    weights = None if tables is None else counts
    numbers = utility_report(
        release, table, quasi, sensitive, counts=weights, cube_limit=MAX_CUBE_WORK
    )
    group_bys, held = numbers.pop("cube_work")
    if numbers["query_error_cube"] is None:
        numbers["query_error_cube"] = (
            f"not computed: its {group_bys:,} group-bys times the original's {held:,} "
            f"combinations of values ({group_bys * held:,}) are more than {MAX_CUBE_WORK:,} "
            "(they double with each quasi-identifier)"
        )
    return {k: v for k, v in numbers.items() if k not in ("uncertainty", "kind")}


def _coded(values: pd.DataFrame, schema: Schema, counts: np.ndarray | None) -> Table:
    """``values`` encoded with ``schema`` (:meth:`Table.from_frame`); ``counts``: the records of
    each row, when ``values`` are a frequency table's combinations."""
    table = Table.from_frame(values, schema)
    if counts is None:
        return table
    rows = values.index.get_indexer(table.index)  # (the rows the schema lets in: all of them)
    return Table(
        {c: table.codes(c) for c in table.columns},
        {c: table.dictionary(c) for c in table.columns},
        table.schema,
        counts=counts[rows],
    )


def describe_column(release: Release, column: str) -> str | None:
    """What the method did to ``column``, from the public part (None: published unchanged)."""
    spec = (release.metadata.get("randomized") or {}).get(column)
    return None if spec is None else describe_randomized(spec, release.metadata.get("method"))


def describe_randomized(spec: dict[str, Any], method: Any = None) -> str | None:
    """What randomizing a column did, from its public ``randomized`` entry and the method's
    name (``pram``: PRAM; any other: randomized response); None when its matrix is the
    identity (keep probability 1: the column is published unchanged)."""
    keep, matrix = spec.get("keep"), spec.get("matrix")
    if matrix is None:
        return "invariant PRAM (its matrix, built from the original's frequencies, is internal)"
    square = np.asarray(matrix, dtype=float)
    if keep == 1 or (square.ndim == 2 and np.array_equal(square, np.eye(len(square)))):
        return None
    name = "PRAM" if method == "pram" else "randomized response"
    how = f"keep probability {keep:.3g}" if keep is not None else "distortion matrix"
    return f"{name} ({how}; the matrix is public for reconstruction)"
