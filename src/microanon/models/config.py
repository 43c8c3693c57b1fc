"""Privacy models from configuration entries such as ``{"k_anonymity": {"k": 5}}``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from microanon.core.errors import InputError, SchemaError
from microanon.core.hierarchy import Hierarchy
from microanon.core.schema import Kind, Schema

from .base import PrivacyModel
from .disclosure import DeltaDisclosure
from .kanonymity import KAnonymity
from .kmap import KMap
from .ldiversity import LDiversity
from .likeness import BetaLikeness
from .p_privacy import PPrivacy
from .presence import DeltaPresence
from .tcloseness import TCloseness

__all__ = [
    "declared_orders",
    "model_from_config",
    "as_models",
    "one_sensitive_column",
    "reads_sensitive",
    "require_one_sensitive",
    "MODELS",
]

#: Configuration names of the models and their classes.
MODELS: dict[str, type[PrivacyModel]] = {
    "k_anonymity": KAnonymity,
    "l_diversity": LDiversity,
    "t_closeness": TCloseness,
    "p_privacy": PPrivacy,
    "beta_likeness": BetaLikeness,
    "delta_disclosure": DeltaDisclosure,
    "delta_presence": DeltaPresence,
    "k_map": KMap,
}


def _hierarchy(value: Any) -> Any:
    """A Hierarchy from its :meth:`Hierarchy.to_dict` form, ``{builder: nested, tree: ...}`` or
    a nested mapping.

    Raises
    ------
    InputError
        A builder that the schema builds from a column's values (``groups``, ``balanced``, ...):
        a model has no values to build it from, and reading its keys as a tree would give a
        hierarchy nobody wrote.
    """
    if not isinstance(value, Mapping):
        return value
    if "paths" in value:
        return Hierarchy.from_dict(value)
    builder = value.get("builder", "groups" if "groups" in value else None)
    if builder == "nested" and set(value) == {"builder", "tree"}:
        return Hierarchy.from_nested(value["tree"])
    if builder is not None:
        raise InputError(
            f"t_closeness: hierarchy: the {builder!r} builder is built from a column's values, "
            "which a model does not have; give the tree of the sensitive values as nested "
            "groups without a builder key ({white: [1], other: [2, 3]}) or as a hierarchy file "
            "(ARX's CSV format)"
        )
    return Hierarchy.from_nested(value)


def model_from_config(name: str, params: Mapping[str, Any] | None = None) -> PrivacyModel:
    """Build a privacy model from one configuration entry.

    Parameters
    ----------
    name : str
        Model name, a key of :data:`MODELS`: ``k_anonymity``, ``l_diversity``, ``t_closeness``,
        ``p_privacy``, ``beta_likeness``, ``delta_disclosure``, ``delta_presence``, ``k_map``.
    params : mapping, optional
        Constructor parameters: ``k``; ``l``, ``form`` (frequency, distinct, entropy, recursive)
        and ``c`` (recursive only); ``t``, ``distance`` (equal, ordered, hierarchical), ``order``
        and ``hierarchy`` (a :class:`Hierarchy`, its ``to_dict()`` form or nested mappings);
        none for ``p_privacy``; ``beta`` and ``form`` (basic, enhanced); ``delta``;
        ``delta_min``, ``delta_max``, ``population`` (a DataFrame) and ``count``; ``k`` with
        ``population`` and ``count``, or with ``estimator``, ``fraction`` and ``significance``.

    Returns
    -------
    PrivacyModel
        A model whose parameters have been validated.

    Raises
    ------
    InputError
        On an unknown model, unknown or missing parameters, or invalid values.

    Examples
    --------
    >>> model_from_config("l_diversity", {"l": 3, "form": "entropy"}).name
    'entropy l-diversity'
    """
    if name not in MODELS:
        raise InputError(
            f"models: unknown privacy model {name!r}; choose one of {', '.join(MODELS)}"
        )
    params = {} if params is None else params
    if not isinstance(params, Mapping):
        raise InputError(
            f"models: parameters of {name} must be a mapping, got {type(params).__name__}"
        )
    cls = MODELS[name]
    declared = {p.name: p for p in cls.declared_parameters()}
    unknown = [p for p in params if p not in declared]
    if unknown:
        raise InputError(
            f"{name}: unknown parameter(s) {', '.join(map(repr, unknown))}; "
            f"accepted: {', '.join(declared)}"
        )
    missing = [n for n, p in declared.items() if p.required and n not in params]
    if missing:
        raise InputError(f"{name}: missing parameter(s) {', '.join(map(repr, missing))}")
    for key, value in params.items():
        declared[key].check(name, value)
    kwargs = dict(params)
    if "hierarchy" in kwargs:
        kwargs["hierarchy"] = _hierarchy(kwargs["hierarchy"])
    return cls(**kwargs)


def as_models(models: Any) -> list[PrivacyModel]:
    """Normalize a model specification to a list of models.

    Accepts a :class:`PrivacyModel`, a config entry (``{"k_anonymity": {"k": 5}}``, possibly with
    several keys), or a sequence of either — the ``models:`` list of a config file.

    Raises
    ------
    InputError
        On an empty specification or an entry that is neither a model nor a mapping.
    """
    if isinstance(models, (PrivacyModel, Mapping)):
        models = [models]
    if models is not None and not isinstance(models, (list, tuple)):
        raise InputError(
            f"models: cannot read {models!r} as privacy models; give a list such as "
            "[{'k_anonymity': {'k': 5}}]"
        )
    if not models:
        raise InputError(
            "models: give at least one privacy model, e.g. [{'k_anonymity': {'k': 5}}]"
        )
    out: list[PrivacyModel] = []
    for entry in models:
        if isinstance(entry, PrivacyModel):
            out.append(entry)
        elif isinstance(entry, Mapping) and entry:
            out.extend(model_from_config(str(name), params) for name, params in entry.items())
        else:
            raise InputError(f"models: cannot read {entry!r} as a privacy model")
    return out


def reads_sensitive(models: Any) -> bool:
    """Whether a model of ``models`` is about a sensitive attribute (ℓ-diversity, t-closeness,
    ...), read from the models' names: a release's ``models`` metadata (entries such as
    ``{"l_diversity": {"l": 3}}``) or model objects. A name that is no model's counts as one
    (nothing is said of it).
    """
    entries = [models] if isinstance(models, (PrivacyModel, Mapping)) else list(models or [])
    for entry in entries:
        if isinstance(entry, PrivacyModel):
            if entry.needs_sensitive:
                return True
        elif isinstance(entry, Mapping):
            if any(name not in MODELS or MODELS[name].needs_sensitive for name in entry):
                return True
        else:
            return True
    return False


def one_sensitive_column(method: str, sensitive: Sequence[str]) -> str:
    """The one sensitive column a method that publishes one sensitive column apart (Anatomy,
    distribution-based anonymization) needs.

    Raises
    ------
    SchemaError
        Naming the method and the sensitive columns found, and the ways on: give one column
        the role (none found), or give the others role insensitive or identifier or use
        rating or mixed_model (several).
    """
    if len(sensitive) == 1:
        return sensitive[0]
    if not sensitive:
        raise SchemaError(
            f"{method} needs exactly one sensitive column in the schema, found none; give the "
            "column whose values it should protect the role sensitive"
        )
    raise SchemaError(
        f"{method} needs exactly one sensitive column in the schema, found {len(sensitive)} "
        f"({', '.join(sensitive)}); give the others role insensitive (published with their "
        "records, unprotected) or identifier (left out), or use method rating or mixed_model "
        "for several"
    )


def require_one_sensitive(models: Sequence[PrivacyModel], sensitive: Sequence[str]) -> None:
    """Refuse models of the sensitive attribute (ℓ-diversity, t-closeness, ...) unless the schema
    has exactly one sensitive column.

    Raises
    ------
    SchemaError
        Naming the models and the sensitive columns, and what serves several.
    """
    needs = [m.name for m in models if m.needs_sensitive]
    if needs and len(sensitive) != 1:
        verb = "needs" if len(needs) == 1 else "need"
        found = f"{len(sensitive)} ({', '.join(sensitive)})" if sensitive else "none"
        raise SchemaError(
            f"{', '.join(needs)} {verb} exactly one sensitive column in the schema, found "
            f"{found}; for several sensitive columns use method rating or mixed_model, or give "
            "the others role insensitive (published with their records, unprotected) or "
            "identifier (left out)"
        )


def declared_orders(models: Sequence[PrivacyModel], schema: Schema) -> list[PrivacyModel]:
    """``models``, each t-closeness model with the ordered distance and no order of its own
    given the order the schema declares for the sensitive column (an ordinal column's
    ``order``): the order is declared once, in the schema, and the model measures by it.

    Parameters
    ----------
    models : sequence of PrivacyModel
    schema : Schema
        With at most one sensitive column (:func:`require_one_sensitive`).

    Returns
    -------
    list of PrivacyModel
    """
    sensitive = schema.sensitive
    attr = schema[sensitive[0]] if len(sensitive) == 1 else None
    if attr is None or attr.kind is not Kind.ORDINAL or attr.order is None:
        return list(models)
    return [
        replace(m, order=tuple(attr.order))
        if isinstance(m, TCloseness) and m.distance == "ordered" and m.order is None
        else m
        for m in models
    ]
