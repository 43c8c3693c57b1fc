"""Scanning written files for texts that must never be published (a generator's seed or state).

A release's public part is refused when any of its files holds one of the random generator's
fingerprints (:func:`microanon.core.random.state_fingerprints`), whatever the key, file or
format. This module imports nothing but the standard library, so that a second process (see
:func:`microanon.apps.aside.aside`) can scan the tables as soon as they are written, while the
command verifies them; :func:`file_states` and :func:`changed_files` then name the files written
or changed since, which are scanned at the end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["changed_files", "file_states", "texts_in_files"]

#: A file's size, modification time in nanoseconds and inode (a file replaced by another, as
#: an atomic write replaces it, has another inode even within the clock's resolution).
FileState = tuple[int, int, int]


def file_states(directory: str | Path) -> dict[str, FileState]:
    """Every file under ``directory`` (relative path, POSIX form) with its :data:`FileState`."""
    directory = Path(directory)
    states = {}
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        stat = path.stat()
        states[path.relative_to(directory).as_posix()] = (
            stat.st_size,
            stat.st_mtime_ns,
            stat.st_ino,
        )
    return states


def changed_files(directory: str | Path, before: Mapping[str, FileState]) -> list[str]:
    """The files under ``directory`` that are not in ``before`` (:func:`file_states`) or whose
    size, modification time or inode differ from it."""
    return [name for name, state in file_states(directory).items() if before.get(name) != state]


def texts_in_files(
    directory: str | Path, texts: Iterable[str], files: Iterable[str] | None = None
) -> list[str]:
    """Which of ``texts`` occur in the bytes of any file under ``directory``.

    Used on a release's ``public/`` with the random generator's fingerprints
    (:func:`microanon.core.random.state_fingerprints`): a seed or state is refused whatever
    key, file or format holds it.

    Parameters
    ----------
    directory : path
    texts : iterable of str
    files : iterable of str, optional
        The files to scan, relative to ``directory``; default every file under it.

    Returns
    -------
    list of str
        One line per file holding one of them (the text itself is not repeated).
    """
    needles = [t.encode() for t in texts if t]
    if not needles:
        return []
    directory = Path(directory)
    names = sorted(file_states(directory) if files is None else files)
    return [
        f"{name} holds the random generator's seed or state"
        for name in names
        if _holds_any(directory / name, needles)
    ]


#: Bytes read at a time by :func:`_holds_any` (a large data file is never read whole): small
#: enough that the memory of each chunk's translated bytes is reused, not mapped afresh (on
#: 82 MB, 113 pages touched instead of 3,379).
_CHUNK = 1 << 18


def _holds_any(path: Path, needles: list[bytes]) -> bool:
    """Whether the file holds one of ``needles``, read in chunks that overlap by a needle (into
    one buffer, reused; each chunk's translation below is a small allocation of its own).

    A chunk is searched for the needles only when it holds a run of bytes of theirs as long as
    the shortest: a needle is such a run. A generator's fingerprints are long runs of digits
    (decimal or hexadecimal), which a table rarely holds, so most chunks take one pass (their
    bytes mapped to whether a needle has them) instead of one per needle."""
    overlap = max(map(len, needles)) - 1
    alphabet = frozenset(b for n in needles for b in n)
    theirs = bytes(b in alphabet for b in range(256))
    run = b"\x01" * min(map(len, needles))
    buffer = bytearray(overlap + _CHUNK)
    view = memoryview(buffer)
    kept = 0  # bytes of the previous chunk's end kept at the buffer's start
    with path.open("rb") as f:
        while read := f.readinto(view[kept:]):
            end = kept + read
            window = buffer if end == len(buffer) else bytes(view[:end])  # (the file's end)
            if run in window.translate(theirs) and any(n in window for n in needles):
                return True
            kept = min(overlap, end)
            buffer[:kept] = buffer[end - kept : end]
    return False
