"""A small two-level hierarchy that the frequency-table tests generalize a column ``a`` with.

``a``, ``b`` → ``ab``; ``c``, ``d`` → ``cd``; ``e`` → ``e``; then ``*``.
"""

from __future__ import annotations

from microanon.core import Hierarchy

LETTERS = Hierarchy.from_levels(
    [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"], ["e", "e", "*"]]
)
