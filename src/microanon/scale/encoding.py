"""The global dictionaries of an out-of-core table (:class:`Encoding`), built by
:func:`microanon.scale.encode_dataset`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.schema import Schema
from ..core.table import refuse_unknown

if TYPE_CHECKING:
    from ..core.reading import MarkerColumn
    from ..core.repetition import Repetition

__all__ = ["Encoding"]


@dataclass(frozen=True)
class Encoding:
    """The dictionaries of the encoded columns and how to code a partition with them.

    Attributes
    ----------
    schema : Schema
        The resolved schema (builder hierarchies made from the data), restricted to the
        published columns, as :meth:`Table.from_frame` leaves it.
    source : Schema
        The schema the data is cleaned with (identifiers included).
    columns : list of str
        The encoded columns.
    dictionaries : dict of str to object array
        Values behind the codes of each encoded column.
    lookup : dict of str to (Index, int array)
        The distinct values of each encoded column and their codes.
    unknown : dict of str to int
        Records whose value of an encoded column is unknown (a missing cell kept empty,
        ``missing: keep``): its last code, whose dictionary value is ``None``, as in
        :meth:`Table.from_frame`.
    marked : dict of str to int
        Records whose value of a numeric column is the value ``?`` (``missing: value``), for
        the columns that hold one (the cleaned data gives them as text in every partition).
    rows : dict
        The rows read, left out per ``missing: drop`` column, entering the method and with an
        unknown sensitive value (the keys of :class:`microanon.core.row_counts.RowCounts`
        before the method: ``in_file``, ``left_out``, ``entering``, ``unknown_sensitive``).
    value_counts : dict of str to int64 array
        Records per code of the columns counted so (:func:`~microanon.scale.encode_dataset`'s
        ``counted``).
    combinations : microanon.scale.frequencies.FrequencyTable or None
        The combinations of values of the columns the reports measure in the records that
        enter the method (missing-value policies applied), in order of first appearance, with
        their records (a sampling weight counted by class with its sums), counted in the same
        pass (:func:`~microanon.scale.encode_dataset`'s ``reported``); None when not asked for.
    markers : dict of str to MarkerColumn or None
        With ``combinations``: the published columns of the data as read that hold a text
        other software writes for a missing value (R's ``NA``), as
        :func:`~microanon.core.reading.missing_marker_columns` finds them in the whole table.
    repeated : dict of str to Repetition
        The distinct values, rows and rows alone with their value of the identifier columns
        counted in the same pass over every row read (:func:`~microanon.scale.encode_dataset`'s
        ``ids``); empty when none were asked for.
    """

    schema: Schema
    source: Schema
    columns: list[str]
    dictionaries: dict[str, np.ndarray]
    lookup: dict[str, tuple[pd.Index, np.ndarray]]
    unknown: dict[str, int] = field(default_factory=dict)
    marked: dict[str, int] = field(default_factory=dict)
    rows: dict[str, Any] = field(default_factory=dict)
    value_counts: dict[str, np.ndarray] = field(default_factory=dict)
    #: (a FrequencyTable: its module imports this one)
    combinations: Any = field(default=None, repr=False, compare=False)
    markers: dict[str, MarkerColumn] | None = field(default=None, repr=False, compare=False)
    repeated: dict[str, Repetition] = field(default_factory=dict, repr=False, compare=False)

    def codes(self, part: pd.DataFrame) -> dict[str, np.ndarray]:
        """Codes of the encoded columns of a cleaned partition (see :func:`clean_partition`)."""
        out = {}
        for c in self.columns:
            index, code_of = self.lookup[c]
            pos = index.get_indexer(part[c])
            if len(pos) and int(pos.min()) < 0:  # the dictionaries come from these same data
                raise InputError(f"column {c!r} holds a value not seen when it was encoded")
            out[c] = code_of[pos]
        return out

    def refuse_unknown(self, columns: Sequence[str], method: str) -> None:
        """Refuse missing cells kept empty in ``columns``, which ``method`` cannot treat (as
        :meth:`Table.refuse_unknown` does in memory).

        Raises
        ------
        InputError
            Naming the first such column, its count and what to do.
        """
        refuse_unknown({c: self.unknown.get(c, 0) for c in columns}, method, self.schema)

    def cardinality(self, column: str) -> int:
        """Number of codes of an encoded column."""
        return len(self.dictionaries[column])
