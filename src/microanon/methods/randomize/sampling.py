"""What randomized response and PRAM share: drawing published codes, validating the per-column
parameters, and building the ``randomized`` release (the distortion matrices and release procedure
of Guo, Ying & Wu, *Limiting Attribute Disclosure in Randomization Based Microdata Release*, JCSE
2011, eq. 1).

A column is randomized by a column-stochastic matrix ``P`` (``P[u, v] = Pr(published u | original
v)``), one independent draw per record. Two vectorized kernels, both O(n) over the codes:

- uniform retention with keep probability ``p``: draw ``u``; records with ``u >= p`` move by a
  uniformly drawn offset ``1 .. d-1`` (mod ``d``), i.e. to one of the *other* values uniformly;
- a general matrix: inverse-CDF sampling, ``published = #{j : cum[j, v] <= u}`` with the cumulative
  column of the record's code, records grouped by code with one stable (radix) sort.

Randomized response draws over a column's whole domain, a missing answer (the value ``?``) among
its values. PRAM draws over the column's known values only (:attr:`ColumnSpec.known`): a record
whose answer is missing (``?``, or an empty cell kept empty) is published as it is, and no known
answer is published as missing, as sdcMicro's ``pram`` leaves a missing value out of the
post-randomization. Whether a person answered is not what PRAM hides; drawn as a value, ``?``
would make people who answered look like non-respondents to an analyst (and in the SPSS and
Stata files, where ``?`` is a missing code).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from ...core.errors import InputError
from ...core.missing import is_missing_answer
from ...core.release import Release
from ...core.table import Table
from ..release import generalized_release
from .domains import check_domains, check_drawable
from .matrices import check_distortion, uniform_retention

__all__ = [
    "MAX_DOMAIN",
    "ColumnSpec",
    "check_domain_size",
    "draw_column",
    "known_codes",
    "randomize_codes",
    "randomized_metadata",
    "resolve_specs",
    "publish",
]

#: Most values a randomized column may have: its distortion matrix, square in the domain, is
#: public (a thousand values are a million numbers, about 20 MB of ``release.json``).
MAX_DOMAIN = 1_000


def check_domain_size(column: str, size: int) -> None:
    """Refuse a column of more than :data:`MAX_DOMAIN` values to randomize, in one line.

    Raises
    ------
    InputError
        Naming the column, its number of values and the size of the matrix it would publish.
    """
    if size > MAX_DOMAIN:
        raise InputError(
            f"column '{column}' has {size:,} distinct values: randomizing it would publish a "
            f"{size:,} × {size:,} distortion matrix ({size * size:,} numbers), and a randomized "
            f"column may have at most {MAX_DOMAIN:,} values; recode it into fewer first (a "
            "hierarchy level, global_recode) or leave it out"
        )


class ColumnSpec(NamedTuple):
    """How one column is randomized: its matrix and, for uniform retention, the keep probability.

    ``from_data``: the matrix was computed from the original's value counts (invariant PRAM), so
    it is kept internal: its stationary distribution is the original's distribution.

    ``known``: the codes of the values the matrix is over, in domain order (PRAM: the column's
    known values, :func:`known_codes`); the column's other codes (missing answers) are published
    as they are. ``None``: every code (randomized response).
    """

    matrix: np.ndarray
    keep: float | None
    from_data: bool = False
    known: np.ndarray | None = None

    def over(self, values: np.ndarray) -> np.ndarray:
        """The entries of ``values`` (one per code of the column: its dictionary, its counts)
        of the values the matrix is over, in domain order."""
        return values if self.known is None else np.asarray(values)[self.known]


def known_codes(dictionary: np.ndarray) -> np.ndarray:
    """The codes of a column's known values: those of its dictionary that are no missing answer
    (:func:`~microanon.core.missing.is_missing_answer`: the value ``?`` of ``missing: value``,
    the empty cell of ``missing: keep``), in domain order.

    Examples
    --------
    >>> known_codes(np.array(["?", "married", "single", None], dtype=object))
    array([1, 2])
    """
    missing = np.fromiter((is_missing_answer(v) for v in dictionary), bool, len(dictionary))
    return np.flatnonzero(~missing)


def randomize_codes(
    codes: np.ndarray,
    d: int,
    rng: np.random.Generator,
    *,
    keep: float | None = None,
    matrix: np.ndarray | None = None,
) -> np.ndarray:
    """Randomize one column of codes ``0 .. d-1``, independently per record.

    Exactly one of ``keep`` (uniform retention; any probability in ``[0, 1]`` works here, e.g.
    Warner's ``p < ½`` for ``d = 2``) and ``matrix`` (a validated ``d × d`` column-stochastic
    matrix) is given. Parameters are not validated here (the callers do); the result has the
    dtype of ``codes``.
    """
    codes = np.asarray(codes)
    if d <= 1 or len(codes) == 0:
        return codes.copy()
    if keep is not None:
        u = rng.random(len(codes))
        moved = np.flatnonzero(u >= keep)
        out = codes.copy()
        shifted = codes[moved].astype(np.int64) + rng.integers(1, d, size=len(moved))
        shifted[shifted >= d] -= d
        out[moved] = shifted
        return out
    cum = np.cumsum(matrix, axis=0)
    cum[-1] = 1.0  # u < 1 always lands inside the column, whatever the rounding of the sums
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=d))])
    u = rng.random(len(codes))  # one uniform per record, in code-sorted order
    drawn = np.empty_like(codes)
    for v in np.flatnonzero(np.diff(bounds)):  # a loop over the d codes, not over records
        part = slice(bounds[v], bounds[v + 1])
        drawn[part] = np.searchsorted(cum[:, v], u[part], side="right")
    out = np.empty_like(codes)
    out[order] = drawn
    return out


def draw_column(
    codes: np.ndarray, d: int, spec: ColumnSpec, rng: np.random.Generator
) -> np.ndarray:
    """Randomize one column of codes ``0 .. d-1`` by its :class:`ColumnSpec`.

    With ``spec.known``, only the records whose code is among them are drawn, over those values
    (:func:`randomize_codes` on their positions in ``spec.known``); every other record keeps its
    code, and none is drawn into one. Without it, or when it is every code, the whole column is
    drawn as :func:`randomize_codes` draws it (the same draws). The result keeps each record's
    position and the dtype of ``codes``.
    """
    codes = np.asarray(codes)
    known = spec.known
    if known is None or len(known) == d:
        return randomize_codes(codes, d, rng, keep=spec.keep, matrix=spec.matrix)
    position = np.full(d, -1, dtype=np.int64)
    position[known] = np.arange(len(known))
    at = position[codes]
    rows = np.flatnonzero(at >= 0)
    drawn = randomize_codes(at[rows], len(known), rng, keep=spec.keep, matrix=spec.matrix)
    out = codes.copy()
    out[rows] = known[drawn]
    return out


def _check_keep(value: Any, d: int, column: str) -> float:
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Real)
        or not math.isfinite(float(value))
    ):
        raise InputError(f"keep['{column}']: the keep probability must be a number, got {value!r}")
    p = float(value)
    if d > 1 and not 1.0 / d - 1e-12 <= p <= 1.0:
        raise InputError(
            f"keep['{column}']: keep probability {p} is outside [1/{d}, 1] (the column has {d} "
            "values)"
        )
    if d > 1 and p <= 1.0 / d + 1e-12:
        raise InputError(
            f"keep['{column}']: keep probability 1/{d} makes the distortion matrix singular (the "
            "published column would be independent of the original, and the original "
            "distribution could not be reconstructed); use a larger keep probability"
        )
    return p


def resolve_specs(
    table: Table,
    keep: Mapping[str, Any] | None,
    matrices: Mapping[str, Any] | None,
    *,
    known_only: bool = False,
) -> dict[str, ColumnSpec]:
    """Validate ``keep`` and ``matrices`` against the table; one spec per column, schema order.

    Parameters
    ----------
    table : Table
        The table (its rows are not read: out of core, a table of none with the dictionaries).
    keep, matrices : mapping, optional
        Per column, a keep probability or a distortion matrix.
    known_only : bool
        PRAM: each column's matrix is over its known values (:func:`known_codes`), ``d`` the
        number of them, and a missing answer (the value ``?``, an empty cell) is published as it
        is (:attr:`ColumnSpec.known`). Otherwise (randomized response) over the whole domain,
        and a column with empty cells (``missing: keep``) is refused.

    Raises
    ------
    InputError
        Not mappings; no column named; a column that is not published (unknown, an identifier
        or a household id) or is published unchanged (a sampling weight, a stratum id); a
        column in both; a column of more than :data:`MAX_DOMAIN` values; a keep probability
        outside ``(1/d, 1]``; a matrix that is not a valid ``d × d`` distortion matrix (see
        :func:`check_distortion`); with ``known_only``, a column without a known value;
        without, empty cells (:meth:`Table.refuse_unknown`).
    """
    for name, arg in (("keep", keep), ("matrices", matrices)):
        if arg is not None and not isinstance(arg, Mapping):
            raise InputError(f"{name} must be a mapping of column name to parameter")
    keep, matrices = dict(keep or {}), dict(matrices or {})
    if not keep and not matrices:
        raise InputError(
            "name the columns to randomize in keep (probabilities) or matrices (in a config: "
            "params: {keep: {column: probability}})"
        )
    unknown = [c for c in (*keep, *matrices) if c not in table.columns]
    if unknown:
        raise InputError(
            f"column(s) {', '.join(map(repr, unknown))} are not published columns of the table; "
            f"it has {', '.join(table.columns)}"
        )
    fixed = [c for c in (*keep, *matrices) if table.schema[c].role.unchanged]
    if fixed:
        raise InputError(
            f"column '{fixed[0]}' has role {table.schema[fixed[0]].role.value}, which is "
            "published unchanged; give it role insensitive to randomize it"
        )
    both = [c for c in keep if c in matrices]
    if both:
        raise InputError(
            f"column(s) {', '.join(map(repr, both))} appear in both keep and matrices; give "
            "each column one distortion"
        )
    named = [c for c in table.columns if c in keep or c in matrices]
    if not known_only:
        table.refuse_unknown(named, "randomization")
    specs: dict[str, ColumnSpec] = {}
    for column in named:
        known = known_codes(table.dictionary(column)) if known_only else None
        domain = table.dictionary(column) if known is None else table.dictionary(column)[known]
        if known is not None and len(known) == 0:
            raise InputError(
                f"column '{column}' has no known value to randomize: every record's answer is "
                "missing"
            )
        d = len(domain)
        check_domain_size(column, d)
        if column in keep:
            p = _check_keep(keep[column], d, column)
            matrix = uniform_retention(d, p, f"keep['{column}']")
        else:
            p = None
            matrix = check_distortion(matrices[column], f"matrices['{column}']")
            if matrix.shape != (d, d):
                values = ", ".join(map(repr, domain[:10].tolist()))
                values += ", ..." if d > 10 else ""
                has = (
                    f" has {d} known value(s) ({values}), which it randomizes (a missing answer "
                    "is published as it is)"
                    if known_only
                    else f"'s domain has {d} value(s) ({values})"
                )
                raise InputError(
                    f"matrices['{column}']: shape {matrix.shape} but the column{has}; rows and "
                    "columns follow the domain order"
                )
        specs[column] = ColumnSpec(matrix, p, known=known)
    return specs


def publish(
    table: Table,
    specs: Mapping[str, ColumnSpec],
    method: str,
    parameters: Mapping[str, Any],
    rng: np.random.Generator,
) -> Release:
    """Randomize the columns of ``specs`` and build the ``randomized`` release.

    The published table holds every published column in schema order (randomized columns
    decoded from their randomized codes), rows in random order. Metadata adds ``randomized``
    (public): column -> ``{"domain", "matrix", "keep"}`` (``domain`` the values the matrix is
    over, :func:`randomized_metadata`; ``keep`` null unless uniform retention; ``matrix`` null
    when computed from the original's counts, which ``applied_matrices`` keeps internal).

    Raises
    ------
    InputError
        Before the draw, a column whose domain would too likely name a value neither declared
        nor published (:func:`~microanon.methods.randomize.domains.check_drawable`); after
        it, a domain that does (:func:`~microanon.methods.randomize.domains.check_domains`).
    """
    codes = {c: table.codes(c) for c in table.columns}
    declared = table.schema.declared()
    kinds = {c: table.schema[c].kind for c in specs}
    domains = {c: spec.over(table.dictionary(c)) for c, spec in specs.items()}
    for column, spec in specs.items():  # before any draw: refused or not, whatever it draws
        counts = spec.over(np.bincount(codes[column], minlength=table.cardinality(column)))
        check_drawable(
            column, spec.matrix, counts, domains[column], declared.get(column), kinds[column]
        )
    for column, spec in specs.items():
        codes[column] = draw_column(codes[column], table.cardinality(column), spec, rng)
    held = {
        c: table.dictionary(c)[np.bincount(codes[c], minlength=table.cardinality(c)) > 0]
        for c in specs
    }
    check_domains(domains, held, declared, kinds)
    order = rng.permutation(table.n_rows)  # rows are published in random order
    shuffled = {c: v[order] for c, v in codes.items()}
    dictionaries = {c: table.dictionary(c) for c in table.columns}
    published = Table(shuffled, dictionaries, table.schema).to_frame()
    return generalized_release(
        method,
        published,
        table,
        parameters,
        [],
        kind="randomized",
        extra_tables={"data": published},
        # Public by design: each randomized column's domain (declared or published values only,
        # checked above) and its distortion matrix, which decoding and reconstruction need; a
        # matrix computed from the original's counts stays internal (applied_matrices).
        public=("randomized",),
        **randomized_metadata({c: table.dictionary(c) for c in specs}, specs),
    )


def randomized_metadata(
    dictionaries: Mapping[str, np.ndarray], specs: Mapping[str, ColumnSpec]
) -> dict[str, Any]:
    """The ``randomized`` metadata (public) and, if any, ``applied_matrices`` (internal).

    ``dictionaries``: each randomized column's values, one per code. ``randomized``: column ->
    ``{"domain", "matrix", "keep"}``, the domain the values the matrix is over
    (:meth:`ColumnSpec.over`: PRAM's, the known ones), the matrix null where it was computed
    from the original's counts; ``applied_matrices``: column -> those matrices.
    """
    out: dict[str, Any] = {
        "randomized": {
            column: {
                "domain": spec.over(np.asarray(dictionaries[column])).tolist(),
                "matrix": None if spec.from_data else spec.matrix.tolist(),
                "keep": spec.keep,
            }
            for column, spec in specs.items()
        }
    }
    applied = {c: spec.matrix.tolist() for c, spec in specs.items() if spec.from_data}
    if applied:
        out["applied_matrices"] = applied
    return out
