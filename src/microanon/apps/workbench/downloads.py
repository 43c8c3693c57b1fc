"""The workbench's downloads: a run's directories as zip archives, built in memory.

The entries are the files under the directory, in sorted order, with their paths relative to
it; nothing is written anywhere (the user saves the download where the browser puts it).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

__all__ = ["zip_directory"]

#: A fixed time for every entry, so that the same files give the same archive.
_EPOCH = (1980, 1, 1, 0, 0, 0)


def zip_directory(directory: Path, prefix: str = "") -> bytes:
    """The files under ``directory`` as a zip archive (entries ``prefix`` + relative path).

    Parameters
    ----------
    directory : Path
    prefix : str
        Prepended to every entry's path (e.g. ``"public/"``).
    """
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(prefix + path.relative_to(directory).as_posix(), _EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return buf.getvalue()
