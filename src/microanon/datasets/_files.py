"""Access to the bundled data files, each checked against its SHA-256 once per process.

The files of the shared reference-data folder are shipped gzip-compressed in ``data/`` next to
this module (one ``<folder>_<file>.gz`` per original file, see :func:`bundled_name`), together
with ``SHA256SUMS.txt``: the SHA-256 of every *decompressed* file, keyed by its original path
(``adult/adult.data``, ``arx-adult/adult.csv``, ...), in ``sha256sum`` format. The bundle is
(re)created by :mod:`microanon.datasets._bundle`.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
import zlib
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import DataIntegrityError

if TYPE_CHECKING:
    from importlib.abc import Traversable

    DataDir = str | os.PathLike[str] | Traversable | None

__all__ = [
    "CHECKSUM_FILE",
    "DataIntegrityError",
    "bundled_name",
    "expected_checksums",
    "parse_checksums",
    "read_bytes",
    "read_text",
    "verify_bundle",
]

#: Name of the checksum list inside the data folder.
CHECKSUM_FILE = "SHA256SUMS.txt"

_REBUILD_HINT = (
    "reinstall microanon, or rebuild the bundle with "
    "`python -m microanon.datasets._bundle SOURCE_DIR`"
)


def bundled_name(relpath: str) -> str:
    """Name of the compressed file that holds the original file ``relpath``.

    ``adult/adult.data`` is shipped as ``adult_adult.data.gz``: the folder separator becomes
    ``_`` so that every bundled file sits directly in ``data/``.
    """
    return relpath.replace("/", "_") + ".gz"


def _data_dir(data_dir: DataDir = None) -> Any:
    if data_dir is None:
        return resources.files("microanon.datasets").joinpath("data")
    if isinstance(data_dir, (str, os.PathLike)):
        return Path(data_dir)
    return data_dir


def parse_checksums(text: str) -> dict[str, str]:
    """Parse ``sha256sum`` output (``<hex digest>  <path>`` per line) into ``{path: digest}``."""
    out: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split(maxsplit=1)
        if len(parts) != 2 or len(parts[0]) != 64:
            raise DataIntegrityError(f"checksum list, line {n}: cannot parse {line!r}")
        digest, path = parts
        out[path.strip().lstrip("*")] = digest.lower()
    return out


_lock = threading.Lock()
_checksum_cache: dict[str, dict[str, str]] = {}
_verified: set[tuple[str, str]] = set()


def expected_checksums(data_dir: DataDir = None) -> dict[str, str]:
    """The shipped checksum list, ``{original relative path: SHA-256 hex digest}``.

    Raises
    ------
    DataIntegrityError
        If ``SHA256SUMS.txt`` is missing or malformed.
    """
    base = _data_dir(data_dir)
    key = str(base)
    with _lock:
        cached = _checksum_cache.get(key)
    if cached is None:
        try:
            text = base.joinpath(CHECKSUM_FILE).read_text(encoding="utf-8")
        except OSError as exc:
            raise DataIntegrityError(
                f"the bundled checksum list {CHECKSUM_FILE} cannot be read ({exc}); {_REBUILD_HINT}"
            ) from exc
        cached = parse_checksums(text)
        with _lock:
            _checksum_cache[key] = cached
    return dict(cached)


def read_bytes(relpath: str, data_dir: DataDir = None) -> bytes:
    """Decompressed content of the bundled file ``relpath`` (e.g. ``"adult/adult.data"``).

    The first read of each file in a process checks its SHA-256 against ``SHA256SUMS.txt``;
    later reads only decompress.

    Raises
    ------
    DataIntegrityError
        If the file is not in the checksum list, missing, not valid gzip, or its decompressed
        content has another checksum.
    """
    base = _data_dir(data_dir)
    sums = expected_checksums(data_dir)
    if relpath not in sums:
        raise DataIntegrityError(
            f"'{relpath}' is not a bundled data file; bundled files: {', '.join(sorted(sums))}"
        )
    name = bundled_name(relpath)
    try:
        packed = base.joinpath(name).read_bytes()
    except OSError as exc:
        raise DataIntegrityError(
            f"bundled data file {name} (for {relpath}) cannot be read ({exc}); {_REBUILD_HINT}"
        ) from exc
    try:
        raw = gzip.decompress(packed)
    except (OSError, EOFError, zlib.error) as exc:
        raise DataIntegrityError(
            f"bundled data file {name} (for {relpath}) is corrupt: {exc}; {_REBUILD_HINT}"
        ) from exc
    key = (str(base), relpath)
    with _lock:
        done = key in _verified
    if not done:
        digest = hashlib.sha256(raw).hexdigest()
        if digest != sums[relpath]:
            raise DataIntegrityError(
                f"bundled data file {name} (for {relpath}) is corrupt: SHA-256 {digest} does not "
                f"match the expected {sums[relpath]}; {_REBUILD_HINT}"
            )
        with _lock:
            _verified.add(key)
    return raw


def read_text(relpath: str, data_dir: DataDir = None) -> str:
    """Like :func:`read_bytes`, decoded as UTF-8 (the reference files are plain ASCII)."""
    return read_bytes(relpath, data_dir).decode("utf-8")


def verify_bundle(data_dir: DataDir = None) -> dict[str, str]:
    """Check every bundled file against its checksum now (not only once per process).

    Returns
    -------
    dict of str to str
        ``{original relative path: SHA-256}`` of every verified file.

    Raises
    ------
    DataIntegrityError
        On the first file that is missing or corrupt.
    """
    base = _data_dir(data_dir)
    sums = expected_checksums(data_dir)
    with _lock:
        for rel in sums:
            _verified.discard((str(base), rel))
    for rel in sorted(sums):
        read_bytes(rel, data_dir)
    return sums
