"""What the demo's sections share: the data, its schema and a cache of computed results."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.schema import Schema

__all__ = ["DemoContext"]


@dataclass
class DemoContext:
    """Data shared by the demo's sections."""

    data: pd.DataFrame
    schema: Schema
    quasi: list[str]
    sensitive: str
    cache: dict[str, object] = field(default_factory=dict)
    #: Where ``microanon reproduce`` wrote its runs (``<name>/results.json``), if given.
    reproductions: Path | None = None
    #: Those runs' results by reproduction name (None: no run there), read before any section.
    reproduction_runs: dict[str, dict[str, Any] | None] | None = None
