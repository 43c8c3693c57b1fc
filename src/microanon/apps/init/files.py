"""Writing what ``microanon init`` proposes without ever replacing someone else's file.

The config's last line records the SHA-256 of every file init wrote, the config itself
included (of its text above that line)::

    # microanon-init-files: {"config.yaml": "3f2a...", "hierarchies/sex.csv": "9b1c..."}

Without ``overwrite`` an existing target is refused. With it, a target is replaced only if the
config at ``--out`` is one init wrote and that nobody changed since, and it lists the target with
the target's present checksum: a file init did not write, or one edited after it (a refined
hierarchy, a corrected role), is never replaced. All files are written under temporary names
first and renamed into place at the end, so a failure leaves the previous files as they were.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ...core.errors import InputError

__all__ = ["MANIFEST_PREFIX", "check_targets", "sign", "write_files"]

#: Start of the config's last line, which lists the files init wrote and their checksums.
MANIFEST_PREFIX = "# microanon-init-files: "


def _sha256(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()


def sign(config_text: str, config_name: str, files: Mapping[str, str]) -> str:
    """``config_text`` with the manifest line: the checksums of itself and of ``files``.

    Parameters
    ----------
    config_text : str
        The config, ending with a newline.
    config_name : str
        The config's file name.
    files : mapping of str to str
        Path relative to the config's directory (POSIX) -> content of each other file written.
    """
    sums = {config_name: _sha256(config_text.encode("utf-8"))}
    sums.update({rel: _sha256(text.encode("utf-8")) for rel, text in files.items()})
    return config_text + MANIFEST_PREFIX + json.dumps(sums) + "\n"


def _written_by_init(config: Path) -> dict[str, str]:
    """The checksums an unchanged init config lists (empty if it is not one)."""
    try:
        raw = config.read_bytes()
    except OSError:
        return {}
    body, _, last = raw.rstrip(b"\n").rpartition(b"\n")
    prefix = MANIFEST_PREFIX.encode("utf-8")
    if not last.startswith(prefix):
        return {}
    try:
        sums = json.loads(last[len(prefix) :].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(sums, dict) or sums.get(config.name) != _sha256(body + b"\n"):
        return {}
    return {str(k): str(v) for k, v in sums.items()}


def check_targets(config: Path, others: Mapping[str, bytes], overwrite: bool) -> None:
    """Refuse to write ``config`` and ``others`` (relative to its directory) over foreign files.

    A file that already holds exactly what would be written is no obstacle (two configs beside
    each other share the hierarchy files they agree on): :func:`write_files` leaves it alone.

    Parameters
    ----------
    config : Path
    others : mapping of str to bytes
        Path relative to the config's directory (POSIX) -> the content to write there.
    overwrite : bool

    Raises
    ------
    InputError
        A target is a directory or another file that is not a regular one (a FIFO, a device),
        or exists and ``overwrite`` is false, or exists and is not a file the config at
        ``config`` records as written by init and unchanged.
    """
    base = config.parent
    targets = {config.name: config, **{rel: base / rel for rel in others}}
    existing = {rel: path for rel, path in targets.items() if path.exists() or path.is_symlink()}
    for path in existing.values():
        if path.is_dir():
            raise InputError(f"{path} is a directory; give --out a file name such as config.yaml")
        if path.exists() and not path.is_file():  # a FIFO (reading it waits), a device
            raise InputError(f"{path} is not a regular file; give --out a file name")
    existing = {
        rel: path
        for rel, path in existing.items()
        if rel == config.name or path.is_symlink() or path.read_bytes() != others[rel]
    }
    if not existing:
        return
    if not overwrite:
        listed = ", ".join(str(p) for p in existing.values())
        raise InputError(
            f"{listed} already exist(s); choose another --out, or pass --overwrite to replace "
            "what an earlier microanon init wrote"
        )
    sums = _written_by_init(config)  # the config's own checksum is checked there
    for rel, path in existing.items():
        unchanged = (
            bool(sums) if rel == config.name else sums.get(rel) == _sha256(path.read_bytes())
        )
        if path.is_symlink() or not unchanged:
            raise InputError(
                f"{path} was not written by microanon init at {config} (or was changed since); "
                "refusing to replace it: choose another --out or move it away yourself"
            )


def write_files(files: Mapping[Path, str]) -> None:
    """Write every file under a temporary name beside it, then rename them all into place.

    A file that holds exactly ``text`` already is left as it is.

    Raises
    ------
    InputError
        A directory cannot be created or written; nothing is then left behind.
    """
    temporary: dict[Path, Path] = {}
    try:
        for target, text in files.items():
            if target.is_file() and not target.is_symlink():
                if target.read_bytes() == text.encode("utf-8"):
                    continue  # already there, as it is
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                fd, name = tempfile.mkstemp(
                    prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
                )
            except OSError as exc:
                raise InputError(f"cannot write {target}: {exc.strerror or exc}") from None
            temporary[target] = Path(name)
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            mask = os.umask(0o022)
            os.umask(mask)
            os.chmod(name, 0o666 & ~mask)
        for target, tmp in temporary.items():
            os.replace(tmp, target)
    finally:
        for tmp in temporary.values():
            tmp.unlink(missing_ok=True)
