"""Privacy models from configuration entries such as ``{"k_anonymity": {"k": 5}}``."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from microanon.core.errors import InputError
from microanon.core.hierarchy import Hierarchy

from .base import PrivacyModel
from .kanonymity import KAnonymity
from .ldiversity import LDiversity
from .tcloseness import TCloseness

__all__ = ["model_from_config", "MODELS"]

#: Configuration names of the models and their classes.
MODELS: dict[str, type[PrivacyModel]] = {
    "k_anonymity": KAnonymity,
    "l_diversity": LDiversity,
    "t_closeness": TCloseness,
}


def _hierarchy(value: Any) -> Any:
    """A Hierarchy from its :meth:`Hierarchy.to_dict` form or a nested mapping."""
    if isinstance(value, Mapping):
        return Hierarchy.from_dict(value) if "paths" in value else Hierarchy.from_nested(value)
    return value


def model_from_config(name: str, params: Mapping[str, Any] | None = None) -> PrivacyModel:
    """Build a privacy model from one configuration entry.

    Parameters
    ----------
    name : {"k_anonymity", "l_diversity", "t_closeness"}
        Model name.
    params : mapping, optional
        Constructor parameters: ``k``; ``l``, ``form`` (frequency, distinct, entropy, recursive)
        and ``c`` (recursive only); ``t``, ``distance`` (equal, ordered, hierarchical), ``order``
        and ``hierarchy`` (a :class:`Hierarchy`, its ``to_dict()`` form or nested mappings).

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
        raise InputError(f"unknown privacy model {name!r}; choose one of {', '.join(MODELS)}")
    params = {} if params is None else params
    if not isinstance(params, Mapping):
        raise InputError(f"parameters of {name} must be a mapping, got {type(params).__name__}")
    cls = MODELS[name]
    fields = dataclasses.fields(cls)
    known = [f.name for f in fields]
    unknown = [p for p in params if p not in known]
    if unknown:
        raise InputError(
            f"{name}: unknown parameter(s) {', '.join(map(repr, unknown))}; "
            f"accepted: {', '.join(known)}"
        )
    required = [f.name for f in fields if f.default is dataclasses.MISSING]
    missing = [p for p in required if p not in params]
    if missing:
        raise InputError(f"{name}: missing parameter(s) {', '.join(map(repr, missing))}")
    kwargs = dict(params)
    if "hierarchy" in kwargs:
        kwargs["hierarchy"] = _hierarchy(kwargs["hierarchy"])
    return cls(**kwargs)
