"""Worked examples of the papers that several test files share."""

from __future__ import annotations

import pandas as pd

#: Salaries of Table 1 of Koudas, Srivastava, Yu & Zhang (PVLDB 2009), in thousands.
_SALARIES = (30, 40, 50, 60, 40, 30, 50, 40, 60, 60, 60)
_ZIPCODES = (
    "91110", "91110", "91110", "91130", "91210", "91220", "91240", "91310", "91320", "91330",
    "91340",
)  # fmt: skip


def employees(unit: int = 1) -> pd.DataFrame:
    """Table 1 of Koudas et al. (PVLDB 2009): eleven employees' zipcode, gender and salary (in
    ``unit`` s of the paper's thousands: ``unit=1000`` gives the salaries themselves)."""
    return pd.DataFrame(
        {
            "zipcode": list(_ZIPCODES),
            "gender": list("FMMFFFFMMMF"),
            "salary": [v * unit for v in _SALARIES],
        }
    )
