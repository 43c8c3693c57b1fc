"""(Re)create the bundled data folder from a copy of the reference data.

Usage::

    python -m microanon.datasets._bundle SOURCE_DIR [--dest DIR]

``SOURCE_DIR`` is the reference-data folder (it holds ``SHA256SUMS`` and the files it lists, e.g.
``adult/adult.data``). Every listed file is checked against its checksum, then written to
``DIR`` (default: the package's ``datasets/data``) as ``<folder>_<file>.gz``; the checksum list is
written as ``SHA256SUMS.txt`` and the folder's ``README.md`` (sources, citations, licenses) is
copied verbatim as ``README.txt``.

The gzip members are deterministic: no file name, modification time 0, OS byte 255 ("unknown"),
deflate level 9 over the whole file at once. Running the script twice gives identical bytes (with
the same zlib; other zlib builds may compress differently, the decompressed bytes never change).
"""

from __future__ import annotations

import argparse
import hashlib
import struct
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

from ._files import CHECKSUM_FILE, DataIntegrityError, bundled_name, parse_checksums

__all__ = ["bundle", "deterministic_gzip", "main"]

_DEFAULT_DEST = Path(__file__).resolve().parent / "data"


def deterministic_gzip(raw: bytes) -> bytes:
    """Compress ``raw`` into a gzip member whose bytes depend only on ``raw`` (and zlib).

    Header: magic, deflate, no flags, mtime 0, XFL 2 (best compression), OS 255; then a raw
    deflate stream at level 9; then CRC-32 and size.
    """
    header = b"\x1f\x8b\x08\x00" + struct.pack("<I", 0) + b"\x02\xff"
    comp = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS, 8, zlib.Z_DEFAULT_STRATEGY)
    body = comp.compress(raw) + comp.flush()
    trailer = struct.pack("<II", zlib.crc32(raw) & 0xFFFFFFFF, len(raw) & 0xFFFFFFFF)
    return header + body + trailer


def bundle(source: str | Path, dest: str | Path | None = None) -> list[Path]:
    """Write the bundle for the reference data in ``source`` into ``dest``.

    Parameters
    ----------
    source : path
        Folder with ``SHA256SUMS`` and the files it lists.
    dest : path, optional
        Output folder (created if needed); default the package's ``datasets/data``.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    DataIntegrityError
        If ``SHA256SUMS`` is missing or a source file does not match its checksum.
    """
    src = Path(source)
    out = Path(dest) if dest is not None else _DEFAULT_DEST
    sums_path = src / "SHA256SUMS"
    if not sums_path.is_file():
        raise DataIntegrityError(f"{sums_path} not found: SOURCE_DIR must hold the checksum list")
    sums = parse_checksums(sums_path.read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for rel in sorted(sums):
        raw = (src / rel).read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        if digest != sums[rel]:
            raise DataIntegrityError(
                f"{src / rel}: SHA-256 {digest} does not match {sums[rel]} listed in {sums_path}"
            )
        target = out / bundled_name(rel)
        target.write_bytes(deterministic_gzip(raw))
        written.append(target)
    listing = "".join(f"{sums[rel]}  {rel}\n" for rel in sorted(sums))
    (out / CHECKSUM_FILE).write_bytes(listing.encode("utf-8"))
    written.append(out / CHECKSUM_FILE)
    readme = src / "README.md"
    if readme.is_file():
        (out / "README.txt").write_bytes(readme.read_bytes())
        written.append(out / "README.txt")
    expected = {p.name for p in written}
    stale = sorted(p.name for p in out.glob("*.gz") if p.name not in expected)
    if stale:
        print(f"warning: {out} holds files not in the bundle: {', '.join(stale)}", file=sys.stderr)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m microanon.datasets._bundle",
        description="Compress the reference data into microanon's bundled data folder.",
    )
    parser.add_argument("source", metavar="SOURCE_DIR", help="folder holding SHA256SUMS")
    parser.add_argument("--dest", default=None, help=f"output folder (default {_DEFAULT_DEST})")
    args = parser.parse_args(argv)
    try:
        written = bundle(args.source, args.dest)
    except (DataIntegrityError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for p in written:
        print(f"{p.stat().st_size:>10,}  {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
