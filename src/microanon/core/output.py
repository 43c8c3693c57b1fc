"""Output directories that microanon owns: built aside, swapped in, never clobbering user files.

Every directory microanon writes (a release, a reproduction's results) is built in a hidden
sibling, gets a marker file listing every file in it, and only then is moved to its final name.
Replacing an existing directory (``overwrite``) is allowed only when that directory is one that
microanon wrote and still holds exactly the files its marker lists: anything else (the input
data, a config, unrelated files, the working directory) is refused, never deleted.

The swap renames the old output aside first, puts the new one in place, then deletes the old
one. A crash between the two renames leaves the previous output under
``.NAME.microanon-old-*``; the next write to the same target puts it back or removes it, and
removes the partial folders of interrupted runs (they carry a ``.microanon-partial`` marker).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import InputError

__all__ = [
    "MARKER",
    "atomic_directory",
    "atomic_file",
    "check_file_target",
    "check_output_target",
    "written_by_microanon",
]

#: File listing everything microanon wrote into an output directory.
MARKER = ".microanon-output"
_PARTIAL = ".microanon-partial"
_TMP_TAG = ".microanon-tmp-"
_OLD_TAG = ".microanon-old-"


def _files(directory: Path) -> list[str]:
    """Every file under ``directory`` (relative POSIX paths), the marker excluded."""
    return sorted(
        p.relative_to(directory).as_posix()
        for p in directory.rglob("*")
        if (p.is_file() or p.is_symlink()) and p.name != MARKER
    )


def written_by_microanon(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory`` holds an output of microanon's and nothing else.

    True when its marker file exists and lists exactly the files in the directory (no file
    added, removed or renamed since microanon wrote it).
    """
    directory = Path(directory)
    marker = directory / MARKER
    if not directory.is_dir() or not marker.is_file():
        return False
    try:
        listed = json.loads(marker.read_text("utf-8")).get("files")
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(listed, list) and sorted(listed) == _files(directory)


def check_output_target(
    target: Path, overwrite: bool = False, protect: Iterable[str | os.PathLike[str]] = ()
) -> None:
    """Refuse an output directory that :func:`atomic_directory` would refuse (see there).

    Raises
    ------
    InputError
        Naming the directory and the reason.
    """
    target = Path(target)
    resolved = target.resolve()
    for path in protect:
        p = Path(path).resolve()
        if p == resolved or resolved in p.parents:
            raise InputError(
                f"output directory {target} would contain the input {path}; choose another --out"
            )
    if resolved == Path.cwd().resolve() or resolved in Path.cwd().resolve().parents:
        if target.exists() and any(target.iterdir()):
            raise InputError(
                f"output directory {target} is the working directory or holds it; "
                "choose a new directory for the output"
            )
    for parent in [target, *target.parents]:
        if parent.exists() and not parent.is_dir():
            raise InputError(f"cannot write {target}: {parent} exists and is not a directory")
    if not target.exists() or not any(target.iterdir()):
        return
    if not overwrite:
        raise InputError(
            f"{target} already exists; choose another directory or overwrite it (--overwrite, "
            "or overwrite=True in Python)"
        )
    if not written_by_microanon(target):
        raise InputError(
            f"{target} holds files that microanon did not write (or that changed since); "
            "refusing to replace it: choose another directory or empty it yourself"
        )


def check_file_target(target: str | os.PathLike[str], overwrite: bool = False) -> None:
    """Refuse a file that :func:`atomic_file` would refuse (see there), creating nothing: for
    a command to check its output before the work.

    Raises
    ------
    InputError
        Naming the file and the reason.
    """
    target = Path(target)
    if target.is_dir():
        raise InputError(f"{target} is a directory; give a file name")
    if target.exists() and not target.is_file():  # a FIFO, a device such as /dev/null, a socket
        raise InputError(f"{target} is not a regular file; give a file name")
    if target.exists() and not overwrite:
        raise InputError(f"{target} already exists")
    existing = next(p for p in target.parents if p.exists())
    if not existing.is_dir():
        raise InputError(f"cannot write {target}: {existing} is not a directory")


def _recover(target: Path) -> None:
    """Restore or remove what an interrupted earlier write left beside ``target``."""
    for sibling in target.parent.glob(f".{target.name}.microanon-*"):
        if not sibling.is_dir():
            continue
        if _TMP_TAG in sibling.name and (sibling / _PARTIAL).exists():
            shutil.rmtree(sibling, ignore_errors=True)
        elif _OLD_TAG in sibling.name and written_by_microanon(sibling):
            if target.exists():
                shutil.rmtree(sibling, ignore_errors=True)
            else:
                os.replace(sibling, target)


def _writable_parent(target: Path) -> list[Path]:
    """Create ``target``'s directory if needed; refuse one that cannot be written into.

    Returns the directories created, deepest first (:func:`_remove_created` undoes them).
    """
    created = [p for p in (target.parent, *target.parent.parents) if not p.exists()]
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _remove_created(created)
        raise InputError(f"cannot write {target}: {_unwritable(target, exc)}") from None
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot write {target}: permission denied ({target.parent})")
    return created


def _remove_created(created: list[Path]) -> None:
    """Remove the directories :func:`_writable_parent` created, deepest first, while empty: a
    failed write leaves no trace."""
    for directory in created:
        try:
            directory.rmdir()
        except FileNotFoundError:  # never made (a mkdir that failed half way)
            continue
        except OSError:  # not empty: someone wrote there meanwhile
            return


@contextmanager
def atomic_directory(
    target: str | os.PathLike[str],
    overwrite: bool = False,
    protect: Iterable[str | os.PathLike[str]] = (),
) -> Iterator[Path]:
    """Build a directory in a hidden sibling and move it to ``target`` only on success.

    Yields the temporary directory; if the block raises, it is removed and ``target`` is left as
    it was. On success a marker listing every file is added and the directory is swapped in.

    Parameters
    ----------
    target : path
        The final directory. It must not exist, or be empty, unless ``overwrite``.
    overwrite : bool
        Replace ``target`` if it holds a previous microanon output and nothing else.
    protect : paths
        Files the output must never contain or replace (the input data, the config).

    Raises
    ------
    InputError
        ``target`` exists (without ``overwrite``), holds files microanon did not write, would
        contain a protected path or the working directory, lies under a regular file, or its
        parent cannot be written.
    """
    target = Path(target)
    protect = [Path(p) for p in protect]
    check_output_target(target, overwrite, protect)
    created = _writable_parent(target)
    _recover(target)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}{_TMP_TAG}", dir=target.parent))
    (tmp / _PARTIAL).touch()
    try:
        yield tmp
        (tmp / _PARTIAL).unlink()
        (tmp / MARKER).write_text(json.dumps({"files": _files(tmp)}, indent=1), "utf-8")
        check_output_target(target, overwrite, protect)  # nothing appeared meanwhile
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}{_OLD_TAG}", dir=target.parent))
            os.replace(target, old)
        os.replace(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_created(created)
        raise


def _umask() -> int:
    """The process's file-creation mask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _unwritable(target: Path, exc: OSError) -> str:
    """Why ``target`` cannot be written, naming the path at fault."""
    for parent in reversed(target.parents):  # a parent that is a regular file, not a directory
        if parent.exists() and not parent.is_dir():
            return f"{parent} is not a directory"
    where = exc.filename if exc.filename is not None else target.parent
    return f"{exc.strerror or exc} ({where})"


@contextmanager
def atomic_file(target: str | os.PathLike[str], overwrite: bool = False) -> Iterator[Path]:
    """Write a file under a temporary name beside ``target``; move it there only on success.

    Yields the path of an empty temporary file in ``target``'s directory (created if needed),
    whose name ends like ``target``'s (so writers that infer a format or a compression from the
    suffix behave the same). When the block finishes, the file gets the usual permissions
    (``0o666`` less the umask) and is moved to ``target`` with :func:`os.replace`, which is
    atomic: readers see the old file or the complete new one, and a killed process leaves at most
    a hidden ``.NAME.*.tmp*`` file, never a truncated ``target``. If the block raises, the
    temporary file is removed and ``target`` is left as it was.

    Parameters
    ----------
    target : path
        The file to write.
    overwrite : bool
        Replace an existing ``target`` (checked before the block runs); otherwise refuse it.

    Yields
    ------
    Path
        The temporary file to write.

    Raises
    ------
    InputError
        If ``target`` exists (and ``overwrite`` is false), is a directory or another file that
        is not a regular one (never replaced: a FIFO, a device such as ``/dev/null``), or its
        directory cannot be created or written (a parent is a regular file, no permission, ...).

    Examples
    --------
    >>> with atomic_file("out/table.csv") as tmp:  # doctest: +SKIP
    ...     frame.to_csv(tmp, index=False)
    """
    target = Path(target)
    check_file_target(target, overwrite)
    created = _writable_parent(target)
    try:
        fd, name = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=f".tmp{target.suffix}", dir=target.parent
        )
    except OSError as exc:
        _remove_created(created)
        raise InputError(f"cannot write {target}: {_unwritable(target, exc)}") from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        _remove_created(created)
        raise
