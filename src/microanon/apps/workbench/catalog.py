"""The methods and privacy models the workbench offers, with their parameters in words.

Both come from declarations beside the code: the methods from the registry
(:func:`microanon.methods.registry.methods`: name, family, what it does, its parameters with
their types, bounds, choices, defaults and help), the models from each model class
(:attr:`~microanon.models.base.PrivacyModel.PROMISE` and
:meth:`~microanon.models.base.PrivacyModel.declared_parameters`). Nothing here reads a
docstring, so the forms offer exactly what a configuration accepts.
"""

from __future__ import annotations

import functools
from typing import Any

from ...methods import registry

__all__ = ["methods", "models"]


@functools.cache
def methods() -> list[dict[str, Any]]:
    """Every method of a configuration as the registry declares it
    (:meth:`microanon.methods.registry.Method.public`)."""
    return [spec.public() for spec in registry.methods().values()]


@functools.cache
def models() -> list[dict[str, Any]]:
    """Every privacy model of a configuration: name, what it promises and its parameters."""
    from ...models.config import MODELS

    return [
        {
            "name": name,
            "help": cls.PROMISE,
            "params": [p.public() for p in cls.declared_parameters()],
        }
        for name, cls in MODELS.items()
    ]
