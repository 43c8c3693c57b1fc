"""Ready-made schemas for the Adult data."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.errors import InputError, SchemaError
from ..core.schema import Schema
from .adult import ADULT_ARX_COLUMNS, ADULT_COLUMNS, ADULT_INTEGER_COLUMNS
from .hierarchies import adult_hierarchies

__all__ = ["adult_schema", "ADULT_NOT_PUBLISHED"]

#: Adult columns left out by default, with the schema lint's reason: publishing them unchanged
#: beside generalized quasi-identifiers would undo the generalization.
ADULT_NOT_PUBLISHED = {
    "fnlwgt": "a census weight with 20,263 distinct values on 30,162 rows: nearly unique per row",
    "education_num": "a one-to-one code of education: it restores education exactly",
    "relationship": "predicted by sex and marital status for most rows, and predicts marital "
    "status for 81 % of them",
}


def _column_list(arg: str | Iterable[str] | None, what: str) -> list[str]:
    if arg is None:
        return []
    if isinstance(arg, str):
        items: list[Any] = [arg]
    else:
        try:
            items = list(arg)
        except TypeError:
            raise InputError(
                f"adult_schema: {what} must be a column name or a list of column names, "
                f"got {type(arg).__name__}"
            ) from None
    bad_type = [x for x in items if not isinstance(x, str)]
    if bad_type:
        raise InputError(
            f"adult_schema: {what} must hold column names (strings), got {bad_type[0]!r}"
        )
    unknown = [x for x in items if x not in ADULT_COLUMNS]
    if unknown:
        raise InputError(
            f"adult_schema: unknown column(s) in {what}: {', '.join(repr(x) for x in unknown)}; "
            f"valid columns: {', '.join(ADULT_COLUMNS)}"
        )
    return list(dict.fromkeys(items))


def adult_schema(
    quasi: str | Iterable[str] | None = None,
    sensitive: str | Iterable[str] | None = "income",
    identifiers: str | Iterable[str] | None = (),
    hierarchies: bool = True,
    published: str | Iterable[str] | None = (),
) -> Schema:
    """A :class:`~microanon.core.schema.Schema` for :func:`load_adult`'s 15 columns.

    Parameters
    ----------
    quasi : str or list of str, optional
        Quasi-identifiers. Default: ARX's Adult attributes (``age, workclass, education,
        marital_status, occupation, race, sex, native_country, income``) minus the sensitive
        columns and identifiers.
    sensitive : str or list of str or None
        Sensitive column(s); default ``"income"``. ``None`` or ``[]`` for none.
    identifiers : str or list of str
        Columns to treat as direct identifiers (dropped from releases). Adult has none; default
        empty.
    published : str or list of str
        Columns of :data:`ADULT_NOT_PUBLISHED` to publish anyway as ``insensitive`` (the schema
        lint will flag them). By default ``fnlwgt``, ``education_num`` and ``relationship`` get
        the role ``identifier`` (left out) unless named as quasi-identifiers or sensitive.
    hierarchies : bool
        Attach :func:`adult_hierarchies` to every column (default). ``False`` gives a schema
        without hierarchies.

    Returns
    -------
    Schema
        All 15 columns in :data:`ADULT_COLUMNS` order. Kinds: ``numeric`` for the integer columns
        (``age, fnlwgt, education_num, capital_gain, capital_loss, hours_per_week``),
        ``categorical`` for the others. Columns not named get the role ``insensitive``, except
        those of :data:`ADULT_NOT_PUBLISHED`, which are left out (role ``identifier``).

    Raises
    ------
    InputError
        For unknown column names (listing the valid ones) or arguments of the wrong type.
    SchemaError
        If a column is given two roles (e.g. both quasi and sensitive).

    Examples
    --------
    >>> adult_schema(sensitive="occupation").quasi  # doctest: +NORMALIZE_WHITESPACE
    ['age', 'workclass', 'education', 'marital_status', 'race', 'sex', 'native_country',
     'income']
    """
    if not isinstance(hierarchies, bool):
        raise InputError(f"adult_schema: hierarchies must be True or False, got {hierarchies!r}")
    sens = _column_list(sensitive, "sensitive")
    ids = _column_list(identifiers, "identifiers")
    shown = _column_list(published, "published")
    if quasi is None:
        qis = [c for c in ADULT_ARX_COLUMNS if c not in sens and c not in ids]
    else:
        qis = _column_list(quasi, "quasi")
    roles: dict[str, str] = {}
    for role, cols in (("identifier", ids), ("quasi", qis), ("sensitive", sens)):
        for c in cols:
            if c in roles:
                raise SchemaError(
                    f"adult_schema: column '{c}' is given two roles ({roles[c]} and {role}); "
                    "give each column one role"
                )
            roles[c] = role
    hs = adult_hierarchies() if hierarchies else {}
    spec: dict[str, dict[str, Any]] = {}
    for c in ADULT_COLUMNS:
        desc: dict[str, Any] = {
            "role": roles.get(
                c, "identifier" if c in ADULT_NOT_PUBLISHED and c not in shown else "insensitive"
            ),
            "kind": "numeric" if c in ADULT_INTEGER_COLUMNS else "categorical",
        }
        if c in hs:
            desc["hierarchy"] = hs[c]
        spec[c] = desc
    return Schema.from_dict(spec)
