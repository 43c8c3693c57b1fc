"""The missing-value policies, one set of names for every command (no pandas: the command
line's options are built from them at start).

A policy says what a missing cell of a column is:

``value``
    a value of its own, published as ``?``: a quasi-identifier's missing value is a leaf of its
    hierarchy that generalizes like any other (the default of quasi-identifiers, as in ARX);
``keep``
    an empty cell that stays empty (the default of sensitive and insensitive columns): a
    sensitive column's missing value is unknown and counts toward no ℓ-diversity, t-closeness,
    β-likeness or δ-disclosure;
``drop``
    the row is left out, and counted per column in every output;
``error``
    the table is refused, naming every such column.

The risk measures also take ``any``: sdcMicro's convention, in which a missing key value
matches every value of its column.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CHECK_MISSING",
    "MISSING_ALIASES",
    "MISSING_LABEL",
    "MISSING_POLICIES",
    "RISK_MISSING",
    "policy_name",
]

#: The policies of a schema column (``missing:``), in the order the docs list them.
MISSING_POLICIES = ("value", "keep", "drop", "error")
#: Older names, still read: ``category`` was ``value``; the risk command's ``sdcmicro`` is ``any``.
MISSING_ALIASES = {"category": "value", "sdcmicro": "any"}
#: Label of a missing value under the ``value`` policy.
MISSING_LABEL = "?"
#: The policies of ``check`` (``keep`` is ``value`` there: a missing sensitive value is unknown
#: either way).
CHECK_MISSING = tuple(p for p in MISSING_POLICIES if p != "keep")
#: The policies of ``risk``: those of ``check`` and sdcMicro's ``any``.
RISK_MISSING = (*CHECK_MISSING[:1], "any", *CHECK_MISSING[1:])


def policy_name(name: Any, allowed: tuple[str, ...], what: str) -> str:
    """``name`` with an older name resolved, if it is one of ``allowed``.

    Raises
    ------
    ValueError
        Naming ``what`` (a column, an option) and the allowed policies; callers turn it into
        their own error class.
    """
    policy = MISSING_ALIASES.get(name, name) if isinstance(name, str) else name
    if policy not in allowed:
        raise ValueError(f"{what}: missing must be one of {', '.join(allowed)}, got {name!r}")
    return policy
