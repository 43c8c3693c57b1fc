"""The rows of a run, counted once: in the file, left out and why, into the method, suppressed,
published.

Every method of :mod:`microanon.methods` keeps one :class:`RowCounts` in its release's internal
metadata (``row_counts``), counted from the table and schema it was given, and the command
line's :func:`~microanon.apps.publish.publish` counts them from the file it read: the release
shown in a notebook, the command line's summary and ``--json``, both reports and the workbench
read them from there, so every output states the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import pandas as pd

from .schema import Role, Schema

__all__ = ["RowCounts", "counts_of", "counts_sentence", "row_counts", "ROW_COUNTS_KEY"]

#: The internal metadata key that holds a release's :class:`RowCounts`.
ROW_COUNTS_KEY = "row_counts"


class _Returned(Protocol):
    """What a method returned, as the counts read it (a
    :class:`~microanon.core.release.Release`)."""

    metadata: dict[str, Any]

    @property
    def data(self) -> pd.DataFrame: ...


@dataclass(frozen=True)
class RowCounts:
    """How many rows went where in one run.

    Attributes
    ----------
    in_file : int
        Rows of the input table.
    left_out : dict of str to int
        Rows left out for a missing value (``missing: drop``), by column; a row missing in two
        such columns is counted under each.
    entering : int
        Rows the method received.
    not_drawn : int
        Rows a sampling method did not draw.
    suppressed : int
        Records the method suppressed (left out, or kept with ``*`` in every quasi-identifier,
        as the method's parameters say).
    published : int
        Rows of the published table.
    unknown_sensitive : dict of str to int
        Records entering the method whose sensitive value is unknown (``missing: keep``), by
        sensitive column: they count toward no ℓ-diversity, t-closeness, β-likeness or
        δ-disclosure.
    """

    in_file: int
    left_out: dict[str, int] = field(default_factory=dict)
    entering: int = 0
    not_drawn: int = 0
    suppressed: int = 0
    published: int = 0
    unknown_sensitive: dict[str, int] = field(default_factory=dict)

    @property
    def left_out_total(self) -> int:
        """Rows left out before the method (each counted once)."""
        return self.in_file - self.entering

    @property
    def suppressed_published(self) -> bool:
        """Whether the suppressed records are among the published rows (``suppressed_rows:
        star``, every quasi-identifier ``*``): the numbers then add up to more than entered."""
        kept = self.entering - self.not_drawn
        return bool(self.suppressed) and self.published + self.suppressed > kept

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form, with ``left_out_total`` and ``suppressed_published``."""
        return {
            **asdict(self),
            "left_out_total": self.left_out_total,
            "suppressed_published": self.suppressed_published,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RowCounts:
        """Read back :meth:`to_dict`'s form."""
        derived = ("left_out_total", "suppressed_published")
        return cls(**{k: v for k, v in d.items() if k not in derived})

    def sentence(self) -> str:
        """One sentence with every number, e.g. ``64,814 rows in the file; none left out; ...``."""
        parts = [f"{self.in_file:,} rows in the file"]
        if self.left_out_total:
            why = ", ".join(f"{c} {n:,}" for c, n in self.left_out.items())
            if sum(self.left_out.values()) > self.left_out_total:
                why += "; a row missing several is counted under each"
            parts.append(f"{self.left_out_total:,} left out for a missing value ({why})")
        else:
            parts.append("none left out")
        parts.append(f"{self.entering:,} entered the method")
        if self.not_drawn:
            parts.append(f"{self.not_drawn:,} not drawn")
        parts.append(f"{self.suppressed:,} suppressed{self._starred(' (', ')')}")
        parts.append(f"{self.published:,} published")
        text = "; ".join(parts) + "."
        if any(self.unknown_sensitive.values()):
            unknown = ", ".join(f"{c} {n:,}" for c, n in self.unknown_sensitive.items() if n)
            text += (
                " Unknown sensitive values among the records that entered the method (counted "
                f"toward no model): {unknown}."
            )
        return text

    def _starred(self, before: str, after: str) -> str:
        """What is said of suppressed records that are published too (``suppressed_rows:
        star``, every quasi-identifier ``*``): the published rows count them, so the numbers
        add up to more than the rows that entered; nothing otherwise."""
        if not self.suppressed_published:
            return ""
        return f"{before}published with every quasi-identifier *, among the published{after}"

    def table(self) -> pd.DataFrame:
        """The numbers as a two-column table (``rows``, ``count``) for the reports."""
        rows = [("in the file", self.in_file)]
        rows += [(f"left out: missing {c} (missing: drop)", n) for c, n in self.left_out.items()]
        if sum(self.left_out.values()) > self.left_out_total:  # (rows missing several)
            rows += [("left out in all (a row missing several counted once)", self.left_out_total)]
        rows += [("entered the method", self.entering)]
        if self.not_drawn:
            rows.append(("not drawn (sampling)", self.not_drawn))
        rows += [
            (f"suppressed{self._starred(' (', ')')}", self.suppressed),
            ("published", self.published),
        ]
        rows += [
            (f"unknown {c} (missing: keep; in no model)", n)
            for c, n in self.unknown_sensitive.items()
            if n
        ]
        return pd.DataFrame(rows, columns=["rows", "count"])


def row_counts(original: pd.DataFrame, schema: Schema, release: _Returned) -> RowCounts:
    """Count the rows of a run from its input, its schema and what the method returned.

    Parameters
    ----------
    original : DataFrame
        The input table (every column).
    schema : Schema
        The schema the method ran with: its missing-value policies say which rows were left
        out.
    release : Release
        The method's release (``rows_out``, and ``suppressed`` or ``sampled`` when the method
        records them).
    """
    present = [a for a in schema if a.name in original.columns and a.role.published]
    drop = [c for c in schema.dropping if c in original.columns]
    missing = {c: int(original[c].isna().sum()) for c in drop}
    left_out = {c: n for c, n in missing.items() if n}
    dropped = schema.left_out(original)
    entering = len(original) - (0 if dropped is None else int(dropped.sum()))
    meta = release.metadata
    published = int(meta.get("rows_out", len(release.data)))
    sampled = meta.get("sampled")
    not_drawn = max(entering - int(sampled), 0) if sampled is not None else 0
    suppressed = meta.get("suppressed")
    if not isinstance(suppressed, (int, float)) or isinstance(suppressed, bool):
        suppressed = max(entering - not_drawn - published, 0)
    kept = slice(None) if dropped is None else ~dropped
    unknown = {
        a.name: int(original.loc[kept, a.name].isna().sum())
        for a in present
        if a.role is Role.SENSITIVE and a.missing_policy == "keep"
    }
    return RowCounts(
        in_file=len(original),
        left_out=left_out,
        entering=entering,
        not_drawn=not_drawn,
        suppressed=int(suppressed),
        published=published,
        unknown_sensitive=unknown,
    )


def counts_of(meta: Mapping[str, Any]) -> RowCounts | None:
    """The :class:`RowCounts` a release's metadata holds (None for one that holds none: a
    public part, or a release made before the counts were kept)."""
    stored = meta.get(ROW_COUNTS_KEY)
    return None if stored is None else RowCounts.from_dict(stored)


def counts_sentence(meta: Mapping[str, Any]) -> str:
    """The rows sentence of every output: :meth:`RowCounts.sentence` of a release that holds
    its counts (:func:`counts_of`), else the method's own ``rows_in`` and ``rows_out``."""
    counts = counts_of(meta)
    if counts is not None:
        return counts.sentence()
    return f"{int(meta.get('rows_in', 0)):,} rows entered the method; " + (
        f"{int(meta.get('rows_out', 0)):,} published."
    )
