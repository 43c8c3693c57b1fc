"""Fault injection for the tests: what the operating system answers a user without root's powers.

A directory made read-only with ``chmod`` stops nobody running as root (CI runs as root), so a
test of "cannot write there" would have to skip as root. Instead :func:`deny_writes` makes the
calls through which microanon learns that it may not write in a directory (``os.access``,
``os.mkdir``, ``tempfile.mkstemp`` / ``mkdtemp``) answer as they do for an ordinary user: the
test runs, and checks the same thing, under any user. The ``read_only_dir`` fixture of
``tests/conftest.py`` adds the real ``chmod`` and puts the mode back after the test.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

__all__ = ["deny_writes"]


def _inside(path: Any, directory: Path) -> bool:
    if path is None or isinstance(path, int):
        return False
    resolved = Path(os.fsdecode(path)).resolve()
    return resolved == directory or directory in resolved.parents


def _denied(path: Any) -> PermissionError:
    return PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))


def deny_writes(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    """Within the test, nothing may be created in ``directory`` (an existing directory).

    ``os.access`` denies write access to it and to anything under it, and ``os.mkdir`` (hence
    ``Path.mkdir``), ``tempfile.mkstemp`` and ``tempfile.mkdtemp`` raise ``PermissionError``
    (``EACCES``) for a path in it, as the kernel does for a user who is not root.
    """
    locked = directory.resolve()
    real_access, real_mkdir = os.access, os.mkdir
    real_mkstemp, real_mkdtemp = tempfile.mkstemp, tempfile.mkdtemp

    def access(path: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
        if mode & os.W_OK and _inside(path, locked):
            return False
        return real_access(path, mode, *args, **kwargs)

    def mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        if _inside(path, locked) and Path(os.fsdecode(path)).resolve() != locked:
            raise _denied(path)
        real_mkdir(path, *args, **kwargs)

    def mkstemp(*args: Any, dir: Any = None, **kwargs: Any) -> Any:  # noqa: A002
        if _inside(dir, locked):
            raise _denied(dir)
        return real_mkstemp(*args, dir=dir, **kwargs)

    def mkdtemp(*args: Any, dir: Any = None, **kwargs: Any) -> Any:  # noqa: A002
        if _inside(dir, locked):
            raise _denied(dir)
        return real_mkdtemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(os, "mkdir", mkdir)
    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
