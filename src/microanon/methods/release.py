"""What every generalization-style method shares: input preparation and the release it builds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError, SchemaError
from ..core.factorize import remember, remember_taken, sharing
from ..core.frames import pandas_if_arrow
from ..core.release import Release, canonical_column, text_release
from ..core.schema import Kind, Schema, check_frame
from ..core.table import Table, whole_with_unknown
from ..models import PrivacyModel, as_models
from ..models.config import declared_orders, require_one_sensitive

__all__ = [
    "prepare",
    "require_quasi",
    "generalized_release",
    "resolve_hierarchies",
    "numbers_of",
    "text_column",
    "unchanged_column",
    "SUPPRESSED_ROWS",
]

#: How suppressed records are published: left out, or kept with every quasi-identifier as ``*``.
SUPPRESSED_ROWS = ("remove", "star")


def require_quasi(schema: Schema) -> None:
    """Refuse a schema without a quasi-identifier (nothing to protect against linkage).

    Raises
    ------
    SchemaError
        Saying so, in one line.
    """
    if not schema.quasi:
        raise SchemaError("the schema has no quasi-identifier: mark the columns an attacker knows")


def prepare(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    models: Any = None,
    need_hierarchies: bool = True,
    populations: bool = False,
    unknown_sensitive: bool = False,
) -> tuple[Table, list[PrivacyModel]]:
    """Validate and encode the input of a method; resolve its privacy models.

    Parameters
    ----------
    data : DataFrame
    schema : Schema or mapping
    models : model specification, optional
        Anything :func:`microanon.models.as_models` reads; ``None`` for methods without models.
    need_hierarchies : bool
        Whether every quasi-identifier must have a hierarchy.
    populations : bool
        Whether the method checks models against a population table (δ-presence, k-map with a
        population); other methods refuse them.
    unknown_sensitive : bool
        Whether the method treats a sensitive column's missing cells (``missing: keep``) as
        unknown values that count toward no model (its checks go through
        :meth:`~microanon.models.Groups.known_view`: full_domain, Mondrian, local recoding);
        other methods refuse them.

    Returns
    -------
    table : Table
        The encoded table (identifiers dropped, builder hierarchies resolved).
    models : list of PrivacyModel

    Raises
    ------
    SchemaError
        No quasi-identifier; a model that needs a sensitive attribute without one (or with
        several); a quasi-identifier without hierarchy when one is needed.
    InputError
        A model checked against a population, for a method that does not support them.
    """
    data = pandas_if_arrow(data, "data")
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    require_quasi(schema)
    resolved = [] if models is None else as_models(models)
    if populations:
        schema = _resolve_with_populations(data, schema, resolved)
    table = Table.from_frame(data, schema)
    if not unknown_sensitive:
        table.refuse_unknown(table.schema.sensitive, "this method")
    if need_hierarchies:
        missing = [q for q in table.schema.quasi if table.schema[q].hierarchy is None]
        if missing:
            raise SchemaError(
                f"quasi-identifier(s) {', '.join(missing)} need a hierarchy for this method "
                "(a file, or a builder such as {builder: intervals, widths: [5, 10]})"
            )
    if not populations:
        needs = [m.name for m in resolved if m.needs_population]
        if needs:
            raise InputError(
                f"models: {', '.join(needs)} against a population table is supported by "
                "full_domain only"
            )
    require_one_sensitive(resolved, table.schema.sensitive)
    return table, declared_orders(resolved, table.schema)


def resolve_hierarchies(
    data: pd.DataFrame, schema: Schema, models: Sequence[PrivacyModel] = ()
) -> Schema:
    """The schema with every builder hierarchy built, as :func:`prepare` builds them.

    Builders (intervals, quantiles, balanced, masking) are resolved on ``data``'s values and, for
    a model checked against a population, on the population's values too.
    """
    return _resolve_with_populations(data, schema, models).resolve(data)


def _resolve_with_populations(
    data: pd.DataFrame, schema: Schema, models: Sequence[PrivacyModel]
) -> Schema:
    """Resolve builder hierarchies so that they also cover the models' population values.

    A population contains the table, so it may hold values the table lacks (older people, other
    postcodes); a hierarchy built from the table alone would refuse them.
    """
    populations = [m.population for m in models if m.needs_population and m.population is not None]
    more: dict[str, list[pd.Series]] = {}
    for frame in populations:
        for column in schema.quasi:
            if column in frame.columns:
                more.setdefault(column, []).append(frame[column])
    if not more:
        return schema
    check_frame(data, schema.columns)
    return schema.resolve(data, more)


def text_column(
    codes: np.ndarray,
    labels: np.ndarray,
    index: pd.Index,
    appearance: tuple[np.ndarray, np.ndarray] | None = None,
) -> pd.Series:
    """The published column ``labels[codes]`` as a release publishes it.

    String labels are taken as they are (one object take, no value compared); other labels
    are converted as :func:`microanon.core.release.canonical_column` converts them. Tables of
    such columns are released by :func:`microanon.core.release.text_release`.

    ``appearance``: the run's codes of the original column the rows come from and the label of
    each of its values (``codes`` is the second indexed by the first; see
    :attr:`~microanon.core.table.Table.appearance`). When no two values share a label, those
    are the published column's codes as well, and are kept for it as they are.
    """
    labels = np.asarray(labels, dtype=object)
    if all(isinstance(v, str) for v in labels):
        if len(labels) == 1:  # e.g. a hierarchy's top level: filled, nothing to take
            values = np.empty(len(codes), dtype=object)
            values.fill(labels[0])
        else:
            values = labels[codes]  # (narrow codes cast a buffer at a time, not whole)
        column = pd.Series(values, index=index, dtype=object, copy=False)
        shown = None if appearance is None else labels[appearance[1]]
        if shown is not None and len(set(shown)) == len(shown):
            remember(column, appearance[0], pd.Index(shown, dtype=object))
        else:
            remember_taken(column, codes, labels)  # its codes are known: its rows are not hashed
        return column
    return canonical_column(pd.Series(labels[codes], index=index, dtype=object))


def numbers_of(table: Table, column: str) -> np.ndarray | None:
    """A column's dictionary as a numeric array when its values are numbers, else None.

    A column declared numeric is numbers; so is a column of numbers declared without a kind: it
    is published with a numeric type (the written release records ``int`` or ``float``), so the
    methods, the re-checks of the release in memory and the verification of the files read back
    all see numbers, in numeric order (the ordered distance of t-closeness and its default).
    Booleans are not numbers here: a release publishes them as text.
    """
    dictionary = table.dictionary(column)
    numeric = table.schema[column].kind is Kind.NUMERIC
    if not numeric and all(type(v) is str for v in dictionary):  # text: no number to find
        return None
    values = pd.Index(list(dictionary))
    if numeric:
        values = pd.Index(pd.to_numeric(values, errors="coerce"))
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        return None
    return values.to_numpy()


def unchanged_column(table: Table, column: str, rows: np.ndarray) -> pd.Series:
    """A column published as it is (a sensitive or insensitive one), for the given rows.

    ``rows`` are positions in ascending order (all of them: the whole column, nothing taken).
    Built from the table's codes and dictionary (:func:`text_column`); a numeric column is
    decoded to its numbers as :meth:`~microanon.core.Table.to_frame` decodes it, and a column
    of numbers declared with another kind keeps a numeric type too (:func:`numbers_of`).
    """
    if table.schema[column].kind is Kind.NUMERIC:
        return table.to_frame([column])[column].iloc[rows]
    every = len(rows) == table.n_rows  # every row, in order (rows are ascending)
    codes = table.codes(column) if every else table.codes(column)[rows]
    index = table.index if every else table.index[rows]
    numbers = numbers_of(table, column)
    if numbers is not None:
        if whole_with_unknown(table.dictionary(column), numbers):  # 3, not 3.0, beside gaps
            return pd.Series(pd.array(numbers, dtype="Int64")[codes], index=index, copy=False)
        return pd.Series(numbers[codes], index=index, copy=False)
    appearance = table.appearance.get(column) if every else None
    return text_column(codes, table.dictionary(column), index, appearance)


def generalized_release(
    method: str,
    published: pd.DataFrame,
    table: Table,
    parameters: Mapping[str, Any],
    models: Sequence[PrivacyModel],
    kind: str = "generalized",
    extra_tables: Mapping[str, pd.DataFrame] | None = None,
    public: Sequence[str] = (),
    text: bool = False,
    **metadata: Any,
) -> Release:
    """The release of a generalization-style method, with the metadata every such method records.

    Metadata: ``method``, ``parameters``, ``models`` (config entries), ``quasi``, ``sensitive``,
    ``hierarchies`` (of the quasi-identifiers, as label paths), ``rows_in``, ``rows_out`` and
    anything passed in ``metadata`` (levels, suppressed counts, metric values, ...).

    ``public`` names the keys of ``metadata`` the method publishes by design, on top of
    :data:`microanon.core.release.ALWAYS_PUBLIC`; the hierarchies (whose leaves are original
    values), ``rows_in`` and every other key stay internal.

    With ``text``, the tables' columns are already as a release publishes them (built with
    :func:`text_column`, as the methods of :mod:`microanon.methods.generalize` build them): they
    are kept, not converted (:func:`~microanon.core.release.text_release`).
    """
    if not isinstance(published, pd.DataFrame):
        raise InputError("published table must be a DataFrame")
    schema = table.schema
    tables = {"data": published} if kind in ("generalized", "masked") else {}
    tables.update(extra_tables or {})
    meta = {
        "method": method,
        "parameters": dict(parameters),
        "models": [m.to_config() for m in models],
        "quasi": schema.quasi,
        "sensitive": schema.sensitive,
        "hierarchies": {
            q: schema[q].hierarchy.to_dict()
            for q in schema.quasi
            if schema[q].hierarchy is not None
        },
        "rows_in": table.n_rows,
        "rows_out": len(published),
        **metadata,
    }
    release = (text_release if text else Release)(kind, tables, meta, public=public)
    if sharing():  # within a command's run: its reports may reuse the encoding
        release.encoded = table
    return release
