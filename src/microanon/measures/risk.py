"""Re-identification risk of a table under the prosecutor model.

The prosecutor knows that the target is in the table and knows the target's quasi-identifier
values. A record in an equivalence class ``E`` is re-identified with probability ``1/|E|``.

- :func:`reidentification_risk` — per-record risks and their summary (:class:`RiskProfile`).
- :func:`sample_uniques` — records unique on the quasi-identifiers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..core import display
from ..core.frames import pandas_if_arrow
from .attacker import attacker_risks
from .common import check_quasi, group_rows

__all__ = ["RiskProfile", "Uniques", "reidentification_risk", "sample_uniques"]


@dataclass(frozen=True, eq=False)
class RiskProfile:
    """Prosecutor re-identification risk of every record and its summary.

    Attributes
    ----------
    record_risk : pandas.Series
        ``1 / |class|`` per record, indexed like the input table, named ``risk``.
    threshold : float
        The threshold used for ``records_above`` and ``share_above``.
    max : float
        Highest record risk (``1 / smallest class``).
    average : float
        Mean record risk, equal to ``#classes / #records``.
    records_above : int
        Number of records whose risk is strictly above ``threshold``.
    share_above : float
        ``records_above / #records``.
    """

    record_risk: pd.Series
    threshold: float
    max: float
    average: float
    records_above: int
    share_above: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary (without the per-record risks)."""
        return {
            "threshold": self.threshold,
            "max": self.max,
            "average": self.average,
            "records_above": self.records_above,
            "share_above": self.share_above,
        }

    def __repr__(self) -> str:
        return (
            f"<RiskProfile prosecutor: highest {self.max:.4g}, average {self.average:.4g}, "
            f"{self.records_above:,} records ({self.share_above:.1%}) above {self.threshold:g}>"
        )

    def _repr_html_(self) -> str:
        """The summary in a notebook, the highest risk as its key figure."""
        key = (
            f"highest risk {display.number(self.max)}; {self.share_above:.1%} of the records "
            f"above {self.threshold:g}"
        )
        return display.card(
            "Prosecutor re-identification risk",
            key,
            display.pairs(
                {
                    "highest": self.max,
                    "average": self.average,
                    f"records above {self.threshold:g}": self.records_above,
                    f"share above {self.threshold:g}": self.share_above,
                    "records": len(self.record_risk),
                }
            ),
        )


class Uniques(NamedTuple):
    """Records unique on the quasi-identifiers: their ``count`` and ``share`` of all rows."""

    count: int
    share: float


def reidentification_risk(
    data: pd.DataFrame, quasi: Sequence[str] | str, threshold: float = 0.2
) -> RiskProfile:
    """Prosecutor re-identification risk ``1/|E|`` of every record.

    Parameters
    ----------
    data : pandas.DataFrame
        Original or generalized table (any index).
    quasi : sequence of str or str
        Quasi-identifier columns.
    threshold : float, default 0.2
        Records with risk strictly above it are counted in ``records_above`` (0.2 means classes
        smaller than 5). Must be in ``(0, 1]``.

    Returns
    -------
    RiskProfile

    Raises
    ------
    InputError
        Bad table or QI list (see :func:`microanon.measures.equivalence_classes`) or
        ``threshold`` outside ``(0, 1]``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"zip": ["130**", "130**", "148**"]})
    >>> reidentification_risk(df, ["zip"]).record_risk.tolist()
    [0.5, 0.5, 1.0]
    """
    prosecutor = attacker_risks(data, quasi, threshold=threshold).prosecutor
    return RiskProfile(
        record_risk=prosecutor.record_risk.rename("risk"),
        threshold=prosecutor.threshold,
        max=prosecutor.highest,
        average=prosecutor.average,
        records_above=prosecutor.records_above,
        share_above=prosecutor.share_above,
    )


def sample_uniques(data: pd.DataFrame, quasi: Sequence[str] | str) -> Uniques:
    """Records that are unique on the quasi-identifiers (equivalence classes of size 1).

    Parameters
    ----------
    data : pandas.DataFrame
    quasi : sequence of str or str
        Quasi-identifier columns.

    Returns
    -------
    Uniques
        ``(count, share)``: the number of sample-unique records and their share of all rows.

    Raises
    ------
    InputError
        Bad table or QI list.
    """
    data = pandas_if_arrow(data, "data")
    cols = check_quasi(data, quasi)
    sizes, row_class = group_rows(data, cols)
    count = int(np.count_nonzero(sizes == 1))
    return Uniques(count=count, share=count / len(row_class))
