"""``microanon examples``: write the bundled example configurations into a new directory.

The examples ship inside the package (``microanon/examples``): the YAML pipelines on Adult in
``adult/``, with ARX's hierarchies in ``adult/hierarchies/``, and the collection survey with its
respondents in ``collect/``. The documentation runs them as ``examples/...``, the directory that
``microanon examples`` writes by default. Every path inside them is relative to the file that
holds it and their data are bundled data sets (``dataset:adult``), so the copy runs wherever it
is written.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import InputError
from ..core.output import atomic_directory

if TYPE_CHECKING:
    from importlib.abc import Traversable

__all__ = ["EXAMPLE_SUFFIXES", "example_files", "export_examples"]

#: The kinds of file that are examples (the package data of ``microanon/examples``): a file of
#: another kind there, such as the storage of a survey served from that folder, is not copied.
EXAMPLE_SUFFIXES: tuple[str, ...] = (".yaml", ".csv", ".py")


def _root() -> Traversable:
    return resources.files("microanon").joinpath("examples")


def _child(folder: Traversable, rel: str) -> Traversable:
    for part in rel.split("/"):
        folder = folder / part
    return folder


def _walk(folder: Traversable, prefix: str) -> list[str]:
    found: list[str] = []
    for entry in folder.iterdir():
        rel = f"{prefix}{entry.name}"
        if entry.is_dir():
            found.extend(_walk(entry, f"{rel}/"))
        elif entry.is_file() and entry.name.endswith(EXAMPLE_SUFFIXES):
            found.append(rel)
    return found


def example_files() -> list[str]:
    """The bundled example files, as sorted POSIX paths relative to the examples folder.

    Returns
    -------
    list of str
        E.g. ``"adult/full_domain.yaml"``, ``"adult/hierarchies/adult_hierarchy_age.csv"``,
        ``"collect/survey.yaml"``.
    """
    return sorted(_walk(_root(), ""))


def export_examples(out: str | os.PathLike[str] = "examples") -> list[Path]:
    """Copy every bundled example file into the new directory ``out``.

    The files are written into a hidden sibling of ``out`` that is renamed to ``out`` once all
    are there, so a failure leaves nothing behind.

    Parameters
    ----------
    out : path
        Directory to create; it must not exist, or be empty.

    Returns
    -------
    list of pathlib.Path
        The files written, in the order of :func:`example_files`.

    Raises
    ------
    InputError
        If ``out`` holds anything already (nothing is overwritten), or cannot be written.
    """
    target = Path(out)
    if target.is_dir() and any(target.iterdir()):
        raise InputError(
            f"{target} already exists and is not empty; microanon examples never overwrites "
            "files: choose another --out"
        )
    names = example_files()
    root = _root()
    with atomic_directory(target) as tmp:
        for rel in names:
            dest = tmp.joinpath(*rel.split("/"))
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(_child(root, rel).read_bytes())
    return [target.joinpath(*rel.split("/")) for rel in names]
