"""The keys of a YAML document microanon reads: a pipeline config or a survey description.

Both are mappings with required and optional top-level keys; :func:`check_document` refuses
anything else in one line that names the document, the unknown keys and the known ones.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..core.errors import InputError

__all__ = ["check_document"]


def check_document(
    doc: Any, known: Collection[str], required: Sequence[str], where: str
) -> Mapping[str, Any]:
    """``doc`` when it is a mapping with only ``known`` keys and every ``required`` one.

    Parameters
    ----------
    doc : object
        The document as YAML loaded it.
    known : collection of str
        Every top-level key it may have.
    required : sequence of str
        The keys it must have, in the order the messages name them.
    where : str
        What the document is, at the start of every message (``"config"``, ``"survey file"``).

    Raises
    ------
    InputError
        Not a mapping, an unknown key, or a required key missing.
    """
    if not isinstance(doc, Mapping):
        names = " and ".join(repr(k) for k in required)
        raise InputError(f"the {where} must be a mapping with at least {names}")
    unknown = set(doc) - set(known)
    if unknown:
        raise InputError(
            f"{where}: unknown key(s) {', '.join(sorted(map(str, unknown)))}; "
            f"known: {', '.join(sorted(known))}"
        )
    for key in required:
        if key not in doc:
            raise InputError(f"{where}: '{key}' is missing")
    return doc
