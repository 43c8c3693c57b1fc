"""Releases: exactly what a data owner may publish, and how it is written to disk.

A :class:`Release` has a ``kind``, named ``tables`` and JSON-serializable ``metadata``. ``save``
writes one file per table (``data.csv`` for single-table kinds; ``qit.csv`` + ``st.csv`` for
Anatomy, and so on; Parquet on request) plus ``release.json``, atomically: a failed save leaves
nothing behind. ``Release.load`` reads it back with the same column types. Random seeds are never
part of a release.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError

__all__ = [
    "Release",
    "RELEASE_KINDS",
    "FORBIDDEN_METADATA_KEYS",
    "atomic_directory",
    "atomic_file",
]

#: Kind -> tables it must contain.
RELEASE_KINDS: dict[str, tuple[str, ...]] = {
    "generalized": ("data",),
    "anatomized": ("qit", "st"),
    "randomized": ("data",),
    "masked": ("data",),
    "distribution": ("qit", "st"),
    "multi-sa": ("sac", "at", "idt"),
    "collected": ("data",),
}

#: Metadata keys that would leak the randomness behind a release.
FORBIDDEN_METADATA_KEYS = frozenset({"seed", "random_state", "rng", "random_seed"})

_FORMATS = {"csv": ".csv", "parquet": ".parquet"}
_MANIFEST = "release.json"


@contextmanager
def atomic_directory(target: str | os.PathLike[str], overwrite: bool = False) -> Iterator[Path]:
    """Build a directory in a temporary sibling and move it to ``target`` only on success.

    Yields the temporary directory; if the block raises, it is removed and ``target`` is left as
    it was. ``target`` must not exist (or be an empty directory) unless ``overwrite``.

    Raises
    ------
    InputError
        If ``target`` exists and ``overwrite`` is false.
    """
    target = Path(target)
    if target.exists() and not overwrite and (not target.is_dir() or any(target.iterdir())):
        raise InputError(f"{target} already exists; choose another directory or overwrite it")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        yield tmp
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
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
        If ``target`` exists (and ``overwrite`` is false) or is a directory, or its directory
        cannot be created or written (a parent is a regular file, no permission, ...).

    Examples
    --------
    >>> with atomic_file("out/table.csv") as tmp:  # doctest: +SKIP
    ...     frame.to_csv(tmp, index=False)
    """
    target = Path(target)
    if target.is_dir():
        raise InputError(f"{target} is a directory; give a file name")
    if target.exists() and not overwrite:
        raise InputError(f"{target} already exists")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=f".tmp{target.suffix}", dir=target.parent
        )
    except OSError as exc:
        raise InputError(f"cannot write {target}: {_unwritable(target, exc)}") from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _plain(obj: Any, path: str = "metadata") -> Any:
    """Convert metadata to JSON types, refusing seeds and unserializable objects."""
    if isinstance(obj, Mapping):
        out = {}
        for k, v in obj.items():
            if str(k).lower() in FORBIDDEN_METADATA_KEYS:
                raise InputError(
                    f"{path}: key '{k}' would publish the random seed; releases never contain seeds"
                )
            out[str(k)] = _plain(v, f"{path}.{k}")
        return out
    if isinstance(obj, (list, tuple)):
        return [_plain(v, f"{path}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        return _plain(obj.tolist(), path)
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return str(obj)
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if hasattr(obj, "to_dict"):
        return _plain(obj.to_dict(), path)
    raise InputError(f"{path}: cannot store a {type(obj).__name__} in release metadata")


def _column_type(s: pd.Series) -> str:
    """Logical type recorded for a column so that loading restores it."""
    if pd.api.types.is_bool_dtype(s):
        return "bool"
    if pd.api.types.is_integer_dtype(s):
        return "int"
    if pd.api.types.is_float_dtype(s):
        return "float"
    if isinstance(s.dtype, pd.CategoricalDtype):
        return "string"
    vals = s.dropna()
    if len(vals) and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals
    ):
        return "int"
    if len(vals) and all(
        isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in vals
    ):
        return "float"
    return "string"


def _as_text(s: pd.Series) -> pd.Series:
    """Non-numeric columns are published as text: an object column of str (missing = None)."""
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    text = np.array([v if isinstance(v, str) else str(v) for v in uniques] + [None], dtype=object)
    return pd.Series(text[codes], index=s.index, dtype=object)


def _canonical(df: pd.DataFrame) -> pd.DataFrame:
    """A release table with a fresh index and every non-numeric column as text."""
    out = df.reset_index(drop=True)
    for c in out.columns:
        if _column_type(out[c]) == "string":
            out[c] = _as_text(out[c])
    return out


def _restore(s: pd.Series, kind: str) -> pd.Series:
    if kind == "int":
        num = pd.to_numeric(s)
        return num.astype("int64") if not num.isna().any() else num.astype("Int64")
    if kind == "float":
        return pd.to_numeric(s).astype("float64")
    if kind == "bool":
        return s.map({"True": True, "False": False, True: True, False: False})
    return _as_text(s)


class Release:
    """What a method publishes.

    Parameters
    ----------
    kind : str
        One of :data:`RELEASE_KINDS` (``generalized``, ``anatomized``, ``randomized``, ``masked``,
        ``distribution``, ``mixed``, ``collected``).
    tables : mapping of str to DataFrame
        Must contain the tables the kind requires (e.g. ``qit`` and ``st`` for ``anatomized``).
    metadata : mapping, optional
        Method, parameters, claimed models, matrices, hierarchies, suppression counts, ...; must be
        JSON-serializable after numpy conversion and must not contain a seed.
    """

    def __init__(
        self,
        kind: str,
        tables: Mapping[str, pd.DataFrame],
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        if kind not in RELEASE_KINDS:
            raise InputError(f"unknown release kind {kind!r}; known: {', '.join(RELEASE_KINDS)}")
        missing = [t for t in RELEASE_KINDS[kind] if t not in tables]
        if missing:
            raise InputError(f"a '{kind}' release needs table(s) {', '.join(missing)}")
        for name, df in tables.items():
            if not isinstance(df, pd.DataFrame):
                raise InputError(f"release table '{name}' must be a DataFrame")
            if not str(name).isidentifier():
                raise InputError(f"release table name {name!r} must be a simple identifier")
        self.kind = kind
        self.tables = {str(k): _canonical(v) for k, v in tables.items()}
        self.metadata = _plain(dict(metadata or {}))

    @property
    def data(self) -> pd.DataFrame:
        """The main table (``data``, or the first table for multi-table kinds)."""
        return self.tables.get("data", next(iter(self.tables.values())))

    def __repr__(self) -> str:
        sizes = ", ".join(f"{k}: {len(v)} rows" for k, v in self.tables.items())
        return f"<Release {self.kind} ({sizes})>"

    def equals(self, other: Release) -> bool:
        """Same kind, metadata and tables (values and column types)."""
        return (
            isinstance(other, Release)
            and self.kind == other.kind
            and self.metadata == other.metadata
            and self.tables.keys() == other.tables.keys()
            and all(self.tables[k].equals(other.tables[k]) for k in self.tables)
        )

    # ------------------------------------------------------------------ io
    def save(
        self, directory: str | os.PathLike[str], format: str = "csv", overwrite: bool = False
    ) -> Path:
        """Write the release to ``directory`` (created; must not exist unless ``overwrite``).

        Parameters
        ----------
        directory : path
        format : {"csv", "parquet"}
        overwrite : bool
            Replace an existing directory.

        Returns
        -------
        pathlib.Path
            The directory written.
        """
        if format not in _FORMATS:
            raise InputError(f"format must be one of {', '.join(_FORMATS)}, got {format!r}")
        with atomic_directory(directory, overwrite) as tmp:
            manifest_tables = {}
            for name, df in self.tables.items():
                types = {str(c): _column_type(df[c]) for c in df.columns}
                file = name + _FORMATS[format]
                if format == "csv":
                    df.to_csv(tmp / file, index=False)
                else:
                    self._to_parquet(df, tmp / file)
                manifest_tables[name] = {
                    "file": file,
                    "rows": len(df),
                    "columns": [str(c) for c in df.columns],
                    "types": types,
                }
                # CSV cannot tell an empty string from a missing value: record text gaps.
                gaps = {
                    str(c): np.flatnonzero(df[c].isna().to_numpy()).tolist()
                    for c in df.columns
                    if types[str(c)] == "string" and df[c].isna().any()
                }
                if gaps:
                    manifest_tables[name]["missing"] = gaps
            from .. import __version__

            manifest = {
                "microanon_release": 1,
                "microanon_version": __version__,
                "kind": self.kind,
                "format": format,
                "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "tables": manifest_tables,
                "metadata": self.metadata,
            }
            (tmp / _MANIFEST).write_text(
                json.dumps(manifest, indent=2, ensure_ascii=False), "utf-8"
            )
        return Path(directory)

    @staticmethod
    def _to_parquet(df: pd.DataFrame, path: Path) -> None:
        try:
            import pyarrow  # noqa: F401
        except ImportError:  # pragma: no cover - depends on the environment
            raise InputError(
                "Parquet output needs pyarrow: pip install 'microanon[parquet]'"
            ) from None
        df.to_parquet(path, index=False)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> Release:
        """Read a release written by :meth:`save`."""
        directory = Path(directory)
        manifest_path = directory / _MANIFEST
        try:
            manifest = json.loads(manifest_path.read_text("utf-8"))
        except FileNotFoundError:
            raise InputError(f"{directory} holds no release ({_MANIFEST} is missing)") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{manifest_path} is not valid JSON: {exc}") from None
        if "kind" not in manifest or "tables" not in manifest:
            raise InputError(f"{manifest_path} is not a microanon release manifest")
        tables = {}
        for name, info in manifest["tables"].items():
            path = directory / info["file"]
            if not path.exists():
                raise InputError(f"release table file {path} is missing")
            if path.suffix == ".parquet":
                df = pd.read_parquet(path)
            else:
                df = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[])
            if list(df.columns) != info["columns"]:
                raise InputError(f"{path}: columns do not match {_MANIFEST}")
            gaps = info.get("missing", {})
            for c, t in info["types"].items():
                col = df[c]
                if t == "string":
                    col = col.astype(object)
                    col.iloc[gaps.get(c, [])] = None
                else:
                    col = col.replace("", None)
                df[c] = _restore(col, t)
            tables[name] = df
        return cls(manifest["kind"], tables, manifest.get("metadata", {}))
