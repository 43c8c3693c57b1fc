"""The workbench's downloads: a run's directories as zip archives, built in memory.

The entries are the files under the directory, in sorted order, with their paths relative to
it; nothing is written anywhere (the user saves the download where the browser puts it).

``public.zip`` is meant to be opened, and its CSV files are made safe for spreadsheets
(:func:`public_zip`): a text cell that a spreadsheet would run as a formula ("CSV injection":
text beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets a leading ``'``,
as OWASP recommends, and :data:`NOTE` in the archive says so. Numbers stay numbers: the columns
``release.json`` gives a numeric type are left alone, and so is a text cell that is a plain
number such as ``-5``. ``microanon anonymize`` writes the tables as they are: they are data
files, read back for verification, not spreadsheets.
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Collection, Mapping
from pathlib import Path

__all__ = ["NOTE", "public_zip", "spreadsheet_cell", "spreadsheet_csv", "zip_directory"]

#: A fixed time for every entry, so that the same files give the same archive.
_EPOCH = (1980, 1, 1, 0, 0, 0)
#: The entry of ``public.zip`` that says how its CSV files differ from the release's.
NOTE = "README.txt"
#: Text a spreadsheet may run as a formula, after any quotes added before (so that adding one
#: more quote can be undone without doubt).
_FORMULA = re.compile(r"'*[=+\-@\t\r]")
#: A plain decimal number: a spreadsheet reads it as a number, never as a formula.
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")

_README = """\
The public part of a release made with the microanon workbench (microanon app): release.json
describes the tables, report.html says what was done and what was verified.

Spreadsheets: a CSV cell whose text begins with =, +, -, @, a tab or a carriage return can run
as a formula when a spreadsheet opens the file (CSV injection). In the CSV files of this archive
each such text cell, the header's included, begins with an added ' (numbers such as -5, and
the columns release.json gives a numeric type, are left as they are). A text cell that began
with one or more ' followed by one of those characters got one more ' as well.
Cells changed: {counts}.

`microanon anonymize` with the run's config.zip writes the tables without these quotes: there
they are data files, read back for verification, not spreadsheets. To get those bytes from the
files here, remove one leading ' from every cell that begins with one or more ' followed by =,
+, -, @, a tab or a carriage return (and leave out this file).
"""


def zip_directory(directory: Path) -> bytes:
    """The files under ``directory`` as a zip archive, as they are."""
    return _zip(_files(directory))


def public_zip(directory: Path) -> bytes:
    """The public part under ``directory`` as a zip archive, its CSV files safe for
    spreadsheets (:func:`spreadsheet_csv`) and :data:`NOTE` saying what changed."""
    files = _files(directory)
    numeric = _numeric_columns(files.get("release.json"))
    counts = {}
    for name in [n for n in files if n.lower().endswith(".csv")]:
        files[name], counts[name] = spreadsheet_csv(files[name], numeric.get(name, ()))
    listed = ", ".join(f"{name} {n:,}" for name, n in counts.items()) or "no CSV file"
    files[NOTE] = _README.format(counts=listed).encode("utf-8")
    return _zip(files)


def spreadsheet_cell(cell: str) -> str:
    """``cell`` with a leading ``'`` if a spreadsheet would run it as a formula.

    Text beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, also after
    leading ``'`` (so that the change can be undone), gets one; a plain number such as ``-5``
    or ``+1.5e3`` does not.
    """
    if _FORMULA.match(cell) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def spreadsheet_csv(data: bytes, numeric: Collection[str] = ()) -> tuple[bytes, int]:
    """A UTF-8 CSV file (as pandas writes it) with its text cells made safe for spreadsheets.

    Parameters
    ----------
    data : bytes
    numeric : collection of str
        The columns whose cells are left as they are (the header's cells never are).

    Returns
    -------
    bytes
        The file; ``data`` itself when no cell changed.
    int
        The number of cells changed.
    """
    rows = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
    header = next(rows, [])
    kept = {j for j, c in enumerate(header) if c in numeric}
    first = data.split(b"\n", 1)[0]
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n" if first.endswith(b"\r") else "\n")
    safe = [spreadsheet_cell(c) for c in header]
    changed = sum(a != b for a, b in zip(header, safe, strict=True))
    writer.writerow(safe)
    for row in rows:
        safe = [c if j in kept else spreadsheet_cell(c) for j, c in enumerate(row)]
        changed += sum(a != b for a, b in zip(row, safe, strict=True))
        writer.writerow(safe)
    return (out.getvalue().encode("utf-8"), changed) if changed else (data, 0)


def _numeric_columns(manifest: bytes | None) -> dict[str, set[str]]:
    """The columns of each table file that ``release.json`` gives a type other than text."""
    if manifest is None:
        return {}
    tables = json.loads(manifest.decode("utf-8")).get("tables", {})
    return {
        info["file"]: {c for c, t in info.get("types", {}).items() if t != "string"}
        for info in tables.values()
        if isinstance(info, Mapping) and "file" in info
    }


def _files(directory: Path) -> dict[str, bytes]:
    """The files under ``directory`` by relative path, in sorted order."""
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(p for p in directory.rglob("*") if p.is_file())
    }


def _zip(files: Mapping[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, _EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buf.getvalue()
