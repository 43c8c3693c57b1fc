"""Files of the command line: reading user data (CSV with its delimiter detected, or Parquet),
and writing a result file atomically."""

from __future__ import annotations

import contextlib
import csv
import errno
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ..core.errors import InputError

__all__ = ["check_destination", "detect_delimiter", "read_table", "write_text_atomic"]

_DELIMITERS = ",;\t|"


def detect_delimiter(sample: str) -> str:
    """Guess a CSV delimiter among ``, ; tab |`` from a text sample (``,`` when unsure)."""
    try:
        return csv.Sniffer().sniff(sample, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        first = sample.splitlines()[0] if sample else ""
        counts = {d: first.count(d) for d in _DELIMITERS}
        best = max(counts, key=counts.__getitem__)
        return best if counts[best] > 0 else ","


def read_table(
    path: str | os.PathLike[str], na_values: Sequence[str] = (), header: bool = True
) -> pd.DataFrame:
    """Read a CSV (delimiter detected, spaces after delimiters skipped) or a Parquet file.

    Parameters
    ----------
    path : path
    na_values : sequence of str
        Extra markers of missing values (for example ``?`` in UCI files), on top of empty fields.
    header : bool
        Whether the first CSV line holds the column names.

    Raises
    ------
    InputError
        If the file is missing, unreadable, empty, or not a table.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"cannot read {path}: no such file")
    try:
        if path.suffix.lower() in {".parquet", ".pq"}:
            return pd.read_parquet(path)
        with open(path, encoding="utf-8", errors="strict", newline="") as fh:
            sample = fh.read(65536)
        if not sample.strip():
            raise InputError(f"{path} is empty")
        sep = detect_delimiter(sample)
        return pd.read_csv(
            path,
            sep=sep,
            header=0 if header else None,
            skipinitialspace=True,
            na_values=["", *na_values],
            keep_default_na=False,
        )
    except InputError:
        raise
    except UnicodeDecodeError:
        raise InputError(
            f"cannot read {path}: it is not UTF-8 text (nor a .parquet file)"
        ) from None
    except (OSError, ValueError, pd.errors.ParserError, ImportError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None


# ------------------------------------------------------------------------------ writing
def check_destination(path: str | os.PathLike[str], overwrite: bool = False) -> Path:
    """Check, before any work, that a result file can be written at ``path``.

    Missing parent directories are fine (:func:`write_text_atomic` creates them), but the
    nearest existing ancestor must be a writable directory.

    Raises
    ------
    InputError
        ``path`` is a directory, exists (unless ``overwrite``), or lies under a regular file or
        in a directory this process cannot write.
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path} is a directory; give a file name")
    if (path.exists() or path.is_symlink()) and not overwrite:
        raise InputError(f"{path} already exists")
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise InputError(f"cannot write {path}: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise InputError(f"cannot write {path}: no permission to write in {ancestor}")
    return path


def write_text_atomic(path: str | os.PathLike[str], text: str, *, overwrite: bool = False) -> Path:
    """Write ``text`` (UTF-8) to ``path`` all at once or not at all.

    The text goes to a temporary file in the same directory, is flushed to disk, and is then
    renamed to ``path`` (:func:`os.replace`, atomic on POSIX file systems). An error or an
    interruption before the rename removes the temporary file and leaves ``path`` as it was; a
    process killed before the rename can leave a ``.NAME.*.tmp`` file, never a truncated
    ``path``. Without ``overwrite`` an existing ``path`` is refused, also when it appears while
    writing.

    Raises
    ------
    InputError
        As :func:`check_destination`, or when the file system refuses the write (the message is
        the system's reason, e.g. "Permission denied" or "No space left on device").
    """
    path = check_destination(path, overwrite)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        if overwrite:
            os.replace(tmp, path)
        else:
            _link_new(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, FileExistsError):
            raise InputError(f"{path} already exists") from None
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # make the rename itself durable where possible
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return path


def _link_new(tmp: Path, path: Path) -> None:
    """Give ``tmp`` the name ``path`` only if no file has it (a hard link, then the temporary
    name is dropped by the caller); where links are not supported, a checked rename."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        if path.exists() or path.is_symlink():
            raise FileExistsError(errno.EEXIST, "File exists", str(path)) from None
        os.replace(tmp, path)
