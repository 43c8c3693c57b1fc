"""The interface every configurable privacy model implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from .groups import Columns, Groups
from .verdict import Verdict

__all__ = ["PrivacyModel"]


class PrivacyModel(ABC):
    """A privacy model with its parameters fixed (validated at construction)."""

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

    @property
    def needs_sensitive(self) -> bool:
        """Whether the model is about a sensitive attribute (ℓ-diversity, t-closeness)."""
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
