"""The workbench's private work directory, and those left behind by a workbench that was killed.

A workbench makes its work directory (mode 0700, name beginning with :data:`PREFIX`) and writes
its process id in :data:`OWNER_FILE` there; it deletes the directory when it closes. A workbench
that is killed (SIGKILL, a crash, power loss) cannot, and its directory, with the uploaded
originals, stays. The next workbench started in the same place removes such a directory when
everything says it is one: the prefix, a directory (not a link) owned by this user with mode
0700, an owner file (a regular file of this user) holding a process id, and no process with
that id. Anything else is left alone. On systems without POSIX process ids and owners
(Windows) nothing is removed.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

__all__ = ["OWNER_FILE", "PREFIX", "make_workdir", "remove_stale"]

#: How a work directory's name begins.
PREFIX = "microanon-workbench-"
#: The file in a work directory that holds the id of the process that made it.
OWNER_FILE = "workbench.pid"


def make_workdir(parent: str | Path | None = None) -> Path:
    """A new private work directory (mode 0700) under ``parent``, its owner file written.

    Parameters
    ----------
    parent : path, optional
        Where to make it (default: the system's temporary directory).
    """
    workdir = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent))
    (workdir / OWNER_FILE).write_text(f"{os.getpid()}\n", encoding="ascii")
    return workdir


def remove_stale(parent: str | Path | None = None) -> list[Path]:
    """Remove the work directories under ``parent`` that workbenches now gone left behind.

    Parameters
    ----------
    parent : path, optional
        Where to look (default: the system's temporary directory).

    Returns
    -------
    list of Path
        The directories removed (none where processes have no POSIX ids and owners).
    """
    if os.name != "posix":
        return []
    parent = Path(parent if parent is not None else tempfile.gettempdir())
    removed = []
    for path in sorted(parent.glob(f"{PREFIX}*")):
        if _stale(path):
            shutil.rmtree(path, ignore_errors=True)
            if not os.path.lexists(path):
                removed.append(path)
    return removed


def _stale(path: Path) -> bool:
    """Whether ``path`` is a work directory of this user whose workbench process is gone."""
    try:
        info, owner = path.lstat(), (path / OWNER_FILE).lstat()
        if not (
            stat.S_ISDIR(info.st_mode)
            and stat.S_IMODE(info.st_mode) == 0o700
            and stat.S_ISREG(owner.st_mode)
            and info.st_uid == owner.st_uid == os.getuid()
        ):
            return False
        pid = int((path / OWNER_FILE).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return False
    return pid > 0 and not _alive(pid)


def _alive(pid: int) -> bool:
    """Whether a process with id ``pid`` exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process; no such id
        return False
    except PermissionError:  # it exists, as another user's
        return True
    return True
