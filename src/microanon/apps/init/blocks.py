"""A survey's code for a block of questions not asked, which ``microanon init`` warns of.

A questionnaire skips whole blocks of questions for part of the sample (the women's questions
for the men, the smokers' for the others), and its data file may write the skipped answers as a
code of their own beside the answers: the largest of a few whole numbers, such as 2 beside the
0 and 1 of yes/no items. Read as an answer, the code is profiled, generalized and published as
one, and the schema lint reads the items as telling one another (each gives the others' code
back on the rows of the block). causaldata's ``nhefs_complete`` (the NHANES I Epidemiologic
Follow-up Study) writes 2 on the same 769 of 1,566 rows in five health items (``hbp``,
``diabetes``, ``pica``, ``hbpmed``, ``boweltrouble``), which the lint had made
quasi-identifiers of one another.

Such a code is found by the rows it marks: the largest value of at least :data:`BLOCK_COLUMNS`
columns of few whole numbers (:data:`BLOCK_VALUES`), on exactly the same rows, at least
:data:`BLOCK_ROWS` of them. Answers to different questions do not share their largest value on
the very same rows of a survey by chance. ``init`` warns and gives the markers of single
columns that read the code as a missing value there and nowhere else (``--column-na-values``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...core.reading import column_na_entries, column_na_options, whole_floats

__all__ = [
    "BLOCK_COLUMNS",
    "BLOCK_ROWS",
    "BLOCK_VALUES",
    "BlockCode",
    "block_code_warnings",
    "block_codes",
]

#: Fewest columns that hold the code on the same rows.
BLOCK_COLUMNS = 3
#: Fewest rows the code marks.
BLOCK_ROWS = 10
#: Fewest and most distinct values of a column that may hold such a code (a yes/no item and
#: the code: 3; a rating scale and the code).
BLOCK_VALUES = (3, 12)


@dataclass(frozen=True)
class BlockCode:
    """A value that marks the same rows in several columns, the largest value of each.

    Attributes
    ----------
    value : float
        The code.
    rows : int
        The rows it marks.
    columns : tuple of str
        The columns, in the table's order.
    """

    value: float
    rows: int
    columns: tuple[str, ...]

    @property
    def text(self) -> str:
        """The code as a file writes it (``2``, not ``2.0``)."""
        return f"{self.value:g}"


def block_codes(frame: pd.DataFrame) -> list[BlockCode]:
    """The codes of blocks of questions not asked in ``frame`` (see the module docstring).

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    list of BlockCode
        In the order of their first column.
    """
    low, high = BLOCK_VALUES
    groups: dict[tuple[float, bytes], list[str]] = {}  # (in the order of their first column)
    rows: dict[tuple[float, bytes], int] = {}
    for name, column in frame.items():
        if not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
            continue
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        distinct = np.unique(values[~np.isnan(values)])
        if not low <= len(distinct) <= high or not whole_floats(distinct):
            continue
        marked = values == distinct[-1]
        key = (float(distinct[-1]), np.packbits(marked).tobytes())
        rows[key] = int(np.count_nonzero(marked))
        if rows[key] >= BLOCK_ROWS:
            groups.setdefault(key, []).append(str(name))
    return [
        BlockCode(key[0], rows[key], tuple(columns))
        for key, columns in groups.items()
        if len(columns) >= BLOCK_COLUMNS
    ]


def block_code_warnings(frame: pd.DataFrame) -> list[str]:
    """``init``'s warning on each of :func:`block_codes` of ``frame``, naming the columns and
    the rows and giving the markers of single columns that read the code as a missing value in
    those columns alone."""
    out = []
    for block in block_codes(frame):
        names = ", ".join(repr(c) for c in block.columns)
        out.append(
            f"columns {names} hold {block.text}, the largest of each one's few values, on the "
            f"same {block.rows:,} rows, as a survey writes the answers to a block of questions "
            "not asked of part of the sample: init read it as an answer of each, which a "
            "release publishes as one, and through it the columns give one another back on "
            "those rows; if it marks missing values, run init again with "
            f"{column_na_options(block.columns, block.text)} (in the config: column_na_values: "
            f"{column_na_entries(block.columns, [block.text])})"
        )
    return out
