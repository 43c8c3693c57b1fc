"""The interface every configurable privacy model implements."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from microanon.core.constraints import REQUIRED, Param

from .groups import Columns, Groups
from .verdict import Verdict

__all__ = ["ClassBounds", "PrivacyModel"]

#: Slack of the implied class bounds, so that rounding never makes them reject a passing class.
BOUND_SLACK = 1e-9


@dataclass(frozen=True)
class ClassBounds:
    """What every class that satisfies a model has: a necessary condition that stays true
    when classes merge, which the full-domain search uses as its monotone filter.

    Attributes
    ----------
    min_size : int
        Fewest records.
    min_distinct : int
        Fewest distinct (known) sensitive values.
    min_coverage : float
        Smallest share of the reference distribution its sensitive values cover.
    min_people : int
        Fewest people of the model's population table in the class.
    exact : bool
        Whether the bounds are the whole verdict (a class meeting them satisfies the model).
    """

    min_size: int = 1
    min_distinct: int = 1
    min_coverage: float = 0.0
    min_people: int = 0
    exact: bool = False


class PrivacyModel(ABC):
    """A privacy model with its parameters fixed (validated at construction).

    Each model declares, beside its code, what it promises in words (:attr:`PROMISE`) and its
    parameters with their constraints (:attr:`PARAMETERS`, one per dataclass field); the
    workbench's forms and ``microanon methods`` read them (:meth:`declared_parameters`).
    """

    #: What the model promises, in words for a data owner.
    PROMISE: ClassVar[str] = ""
    #: Its parameters, one per field, with what each means and the values it takes (defaults
    #: come from the fields: :meth:`declared_parameters`).
    PARAMETERS: ClassVar[tuple[Param, ...]] = ()

    @classmethod
    def declared_parameters(cls) -> tuple[Param, ...]:
        """:attr:`PARAMETERS` in the fields' order, with the fields' defaults.

        Raises
        ------
        TypeError
            When the declaration and the fields differ.
        """
        fields = dataclasses.fields(cls)  # type: ignore[arg-type]
        declared = {p.name: p for p in cls.PARAMETERS}
        if set(declared) != {f.name for f in fields}:
            raise TypeError(f"{cls.__name__}: PARAMETERS differ from the fields")
        return tuple(
            replace(
                declared[f.name],
                default=REQUIRED if f.default is dataclasses.MISSING else f.default,
            )
            for f in fields
        )

    @property
    @abstractmethod
    def name(self) -> str:
        """Display name, as in :attr:`Verdict.model`."""

    @abstractmethod
    def check(
        self,
        data: pd.DataFrame | Groups,
        quasi: Columns | None = None,
        sensitive: Hashable | None = None,
    ) -> Verdict:
        """Check the model on a table (or on prebuilt :class:`Groups`)."""

    #: Whether the model is about a sensitive attribute (ℓ-diversity, t-closeness): declared by
    #: its class, so that a release's configured models can be told apart by name
    #: (:func:`microanon.models.config.reads_sensitive`).
    needs_sensitive: ClassVar[bool] = True

    @property
    def needs_population(self) -> bool:
        """Whether the model is checked against a population table (δ-presence, k-map)."""
        return False

    @property
    def monotone(self) -> bool:
        """Whether "every class passes" stays true when classes merge, so up the
        generalization lattice (the search prunes with it only when every model says so)."""
        return False

    @property
    def compares_with_reference(self) -> bool:
        """Whether each class is compared with the whole table's sensitive distribution
        (t-closeness, β-likeness, δ-disclosure privacy)."""
        return False

    def class_bounds(self, reference: np.ndarray | None, numeric: bool) -> ClassBounds:
        """The necessary condition every passing class meets (see :class:`ClassBounds`).

        ``reference``: the original table's sensitive counts (for the models that compare with
        it); ``numeric``: whether the sensitive values are numbers. Default: no condition.
        """
        return ClassBounds()

    def deficits(self, groups: Groups, people: np.ndarray | None) -> np.ndarray:
        """Records of each group that stay suppressed in every refinement of it (a lower
        bound; 0 when the model gives none). ``people``: each group's people in the
        population table, for the models checked against one."""
        return np.zeros(groups.n_groups)

    @property
    def recoding_size(self) -> int | None:
        """The number of records that is the model's whole verdict on a group, which the
        recoding methods (Mondrian, local recoding) test by counting and grow their groups to
        (k-anonymity's k). None (the default): they ask :meth:`group_ok`."""
        return None

    def shortfall(self, groups: Groups) -> np.ndarray:
        """How far each group is from satisfying the model, which local recoding uses to rank
        the records it could add to a failing group (only the order matters). Default: 1 for
        every group (the model gives no measure)."""
        return np.ones(groups.n_groups)

    def reads_sensitive_values(self, numeric: bool) -> bool:
        """Whether the model reads the sensitive values themselves (their order, distances or
        hierarchy), not only which records share one; ``numeric``: whether they are numbers.
        When no model does, the recoding methods build their groups on integer stand-ins.
        Default: True."""
        return True

    @abstractmethod
    def group_ok(self, groups: Groups) -> np.ndarray:
        """Whether each group satisfies the model on its own (a boolean array over groups).

        Every model here is a per-group condition: a release satisfies it exactly when all its
        groups do, so the groups a method must suppress are those where this is False.
        t-closeness compares with ``groups.table_distribution`` (the reference the groups were
        built with).
        """

    @abstractmethod
    def to_config(self) -> dict[str, dict[str, Any]]:
        """The ``{config_name: {parameter: value}}`` entry that :func:`model_from_config` reads."""
