"""Counts in the sentences microanon writes: ``1 record``, ``2 records``, ``1,234 records``.

A count of one takes the singular noun, every other count (zero included) the plural, so that
a warning, a summary or a report reads the same whatever its numbers.
"""

from __future__ import annotations

__all__ = ["how_many"]


def how_many(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` (with thousands separators) and ``noun``, plural unless ``n`` is one.

    Parameters
    ----------
    n : int
        The count.
    noun : str
        The singular, e.g. ``"record"`` or ``"sample unique"``.
    plural : str, optional
        The plural where it is not ``noun`` with an ``s`` (``"people"``, ``"classes"``).

    Examples
    --------
    >>> how_many(1, "record"), how_many(1234, "record"), how_many(0, "class", "classes")
    ('1 record', '1,234 records', '0 classes')
    """
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"
