"""Releases: what a method publishes, split into a public part and an internal part.

A :class:`Release` has a ``kind``, named ``tables`` and JSON-serializable ``metadata``. The
tables are public: they are what the method protected. The metadata is split by what the method
declares public (``public=``): the method's name and parameters, the claimed models, the roles
of the columns, and whatever the method publishes by design (a randomization's distortion
matrices, the levels of a full-domain generalization). Everything else (full hierarchies,
counts taken on the original, measures of the original, the audit trail) is internal: the data
owner keeps it.

``save`` writes a release directory::

    DIR/public/release.json     manifest: kind, tables, column types, public metadata
    DIR/public/data.csv ...     the published tables (CSV, Parquet, SPSS .sav or Stata .dta)
    DIR/internal/internal.json  internal metadata and audit trail (kept by the data owner)

``public/`` may be handed out as a whole. ``Release.load(DIR)`` reads both parts,
``Release.load(DIR / "public")`` (or a copy of it) the public part only. Directories written by
microanon 0.1 (``release.json`` beside the tables, one metadata block) still load; their
metadata is treated as internal. Random seeds are never part of a release, public or internal.
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from . import display, release_files
from .errors import InputError, MicroanonError
from .extensions import EXTENSIONS
from .factorize import factorize
from .output import atomic_directory
from .record_order import inverse_order, rows_in_order, value_order
from .row_counts import counts_of
from .statistical_files import (
    STATISTICAL,
    check_statistical_names,
    read_statistical,
    write_statistical,
)

if TYPE_CHECKING:
    from .table import Table

__all__ = [
    "EXTENSIONS",
    "Release",
    "text_release",
    "canonical_column",
    "write_manifests",
    "RELEASE_KINDS",
    "RECORD_TABLES",
    "FORBIDDEN_METADATA_KEYS",
    "ALWAYS_PUBLIC",
    "PUBLIC_DIR",
    "INTERNAL_DIR",
    "MANIFEST",
    "plain_metadata",
    "check_statistical_names",
]

#: Kind -> tables it must contain.
RELEASE_KINDS: dict[str, tuple[str, ...]] = {
    "generalized": ("data",),
    "anatomized": ("qit", "st"),
    "randomized": ("data",),
    "masked": ("data",),
    "distribution": ("qit", "st"),
    "multi-sa": ("sac", "at", "idt"),
}

#: Kind -> its tables of one row per record, which the method computes in the order of the
#: input: written with their rows sorted by their values (:mod:`~microanon.core.record_order`).
#: The methods of the other kinds put their tables of records in random order themselves.
RECORD_TABLES: dict[str, tuple[str, ...]] = {
    "generalized": ("data",),
    "randomized": ("data",),
    "masked": ("data",),
}

#: Metadata keys (or parts of key names) that would leak the randomness behind a release.
FORBIDDEN_METADATA_KEYS = frozenset({"seed", "random_state", "rng", "entropy", "bit_generator"})

#: Metadata every release publishes: what was run, with which parameters, claiming what.
ALWAYS_PUBLIC = ("method", "parameters", "models", "quasi", "sensitive", "rows_out")

#: Sub-directories of a saved release.
PUBLIC_DIR, INTERNAL_DIR = "public", "internal"


_FORMATS = {"csv": ".csv", "parquet": ".parquet", "sav": ".sav", "dta": ".dta"}
#: The manifest of a release part (``public/release.json``).
MANIFEST = "release.json"
#: A table's manifest entry: per text column, the rows of its CSV, SPSS or Stata file that
#: hold an empty text; every other empty field of a text column is a missing value.
EMPTY_TEXT = "empty"
_INTERNAL = "internal.json"
_LAYOUT = 2


def _forbidden_key(key: str) -> bool:
    k = key.lower()
    return k in FORBIDDEN_METADATA_KEYS or "seed" in k or k.endswith("_rng")


#: Types :func:`plain_metadata` keeps as they are (exact types: a NumPy number, a subclass of
#: ``float``, is converted); a float only when finite.
_SCALARS = frozenset({str, int, bool, float, type(None)})


def _plain_scalars(values: list[Any] | tuple[Any, ...]) -> list[Any] | None:
    """``values`` as a list when each is a plain scalar (a non-finite float as its text, as
    :func:`plain_metadata` stores one), else None: a hierarchy's label paths, thousands of
    them for a numeric column, without a call per label."""
    types = set(map(type, values))
    if not types <= _SCALARS:
        return None
    if float not in types:
        return list(values)
    return [v if type(v) is not float or math.isfinite(v) else str(v) for v in values]


def plain_metadata(obj: Any, path: str = "metadata") -> Any:
    """Convert metadata to JSON types, refusing seeds and unserializable objects.

    What every release's metadata goes through, in memory (:class:`Release`) and when the
    out-of-core engine writes its manifests (:mod:`microanon.scale.rowwise`).

    Parameters
    ----------
    obj : Any
        The metadata (mappings, sequences, NumPy values, objects with ``to_dict``).
    path : str
        Where ``obj`` is in the metadata (for the messages).

    Returns
    -------
    Any
        ``obj`` made of dictionaries, lists, strings, numbers, booleans and None; non-finite
        floats as strings.

    Raises
    ------
    InputError
        On a key that would publish a seed, a random generator, or an object that cannot be
        stored.
    """
    if isinstance(obj, Mapping):
        out = {}
        for k, v in obj.items():
            if _forbidden_key(str(k)):
                raise InputError(
                    f"{path}: key '{k}' would publish the random seed; releases never contain seeds"
                )
            out[str(k)] = plain_metadata(v, f"{path}.{k}")
        return out
    if isinstance(obj, (list, tuple)):
        flat = _plain_scalars(obj)  # e.g. a hierarchy's label path
        if flat is not None:
            return flat
        items = []
        for i, v in enumerate(obj):  # a list of such lists (a hierarchy's paths): no call per label
            flat = _plain_scalars(v) if type(v) is list else None
            items.append(flat if flat is not None else plain_metadata(v, f"{path}[{i}]"))
        return items
    if isinstance(obj, np.ndarray):
        return plain_metadata(obj.tolist(), path)
    if isinstance(obj, np.generic):  # (a NumPy float's NaN too: its text)
        return plain_metadata(obj.item(), path)
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(
        obj,
        (
            np.random.Generator,
            np.random.BitGenerator,
            np.random.SeedSequence,
            np.random.RandomState,
        ),
    ):
        raise InputError(
            f"{path}: a random generator would publish its state; releases never "
            "contain random state"
        )
    if hasattr(obj, "to_dict"):
        return plain_metadata(obj.to_dict(), path)
    raise InputError(f"{path}: cannot store a {type(obj).__name__} in release metadata")


#: What :func:`pandas.api.types.infer_dtype` says of a column's values (missing ones skipped)
#: -> the type recorded for it; any other answer (text, truth values, a mixture) is text.
_INFERRED = {"integer": "int", "floating": "float", "mixed-integer-float": "float"}


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
    # Text: its distinct values (its codes are needed anyway) are all str exactly when the
    # column's are, a str equalling no other type (equal numbers and truth values of other
    # types, 1 and 1.0 or True, are one value: those columns are read whole).
    if s.dtype == object and pd.api.types.infer_dtype(factorize(s)[1]) == "string":
        return "string"
    return _INFERRED.get(pd.api.types.infer_dtype(s, skipna=True), "string")


def _is_text(s: pd.Series) -> bool:
    """Whether ``s`` is already as a release publishes text: an object column of str and None."""
    if s.dtype != object:
        return False
    values = s.to_numpy()
    if pd.api.types.infer_dtype(values, skipna=False) == "string":  # no missing value
        return True
    present = values[np.not_equal(values, None)]
    return pd.api.types.infer_dtype(present, skipna=False) in ("string", "empty")


def _as_text(s: pd.Series) -> pd.Series:
    """Non-numeric columns are published as text: an object column of str (missing = None),
    each value as :func:`~microanon.core.release_files.value_text` writes it."""
    if isinstance(s.dtype, pd.CategoricalDtype):  # the codes are there: no hashing of values
        codes, uniques = s.array.codes, s.array.categories
    else:
        codes, uniques = factorize(s)  # (the run's codes of a column coded before)
    text = np.array([release_files.value_text(v) for v in uniques] + [None], dtype=object)
    return pd.Series(text[codes], index=s.index, dtype=object)


def canonical_column(s: pd.Series) -> pd.Series:
    """A column as a release publishes it: non-numeric values as text (an object column of str,
    missing values None), numbers and truth values (without a missing one) as they are; the
    index is kept.

    Parameters
    ----------
    s : Series

    Returns
    -------
    Series
    """
    if _column_type(s) != "string" or _is_text(s):
        return s
    # truth values stay truth values, as a boolean column's (every cell one: not 1 beside True)
    infer = pd.api.types.infer_dtype
    if s.dtype == object and infer(factorize(s)[1]) == "boolean":
        if infer(s.to_numpy(), skipna=False) == "boolean":
            return s.astype(bool)
    return _as_text(s)


def _canonical(df: pd.DataFrame) -> pd.DataFrame:
    """A release table with a fresh index and every non-numeric column as text.

    Built once from its finished columns, those that need no conversion shared, not copied.
    """
    index = pd.RangeIndex(len(df))
    columns = {c: canonical_column(s.set_axis(index)) for c, s in df.items()}
    return pd.DataFrame(columns, index=index, columns=df.columns, copy=False)


def _reindexed(df: pd.DataFrame) -> pd.DataFrame:
    """A table of canonical columns with a fresh index (see :func:`text_release`)."""
    for c, dtype in df.dtypes.items():
        text = isinstance(dtype, np.dtype) and dtype.kind == "O"
        if not (text or pd.api.types.is_numeric_dtype(dtype)):
            raise InputError(f"text release: column {c!r} is {dtype}, neither text nor numbers")
    return df.reset_index(drop=True)


def _table_file(directory: Path, name: Any) -> Path:
    """The path of a table file named in a manifest, refusing names that leave ``directory``."""
    if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
        raise InputError(
            f"{directory / MANIFEST}: table file name {name!r} is not a plain file name"
        )
    path = directory / name
    if path.resolve().parent != directory.resolve():
        raise InputError(f"{directory / MANIFEST}: table file {name!r} lies outside the release")
    return path


def _read_json(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON: {exc}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    if not isinstance(doc, dict):
        raise InputError(f"{path} is not a microanon release manifest")
    return doc


class Release:
    """What a method publishes, with what the data owner keeps beside it.

    Parameters
    ----------
    kind : str
        One of :data:`RELEASE_KINDS` (``generalized``, ``anatomized``, ``randomized``, ``masked``,
        ``distribution``, ``multi-sa``).
    tables : mapping of str to DataFrame
        The published tables; must contain those the kind requires (e.g. ``qit`` and ``st`` for
        ``anatomized``).
    metadata : mapping, optional
        Method, parameters, claimed models, matrices, hierarchies, suppression counts, ...; must be
        JSON-serializable after numpy conversion and must not contain a seed or random state.
    public : iterable of str, optional
        The metadata keys the method publishes on top of :data:`ALWAYS_PUBLIC`. Every other key
        is internal: saved under ``internal/`` and never in the public part.
    """

    def __init__(
        self,
        kind: str,
        tables: Mapping[str, pd.DataFrame],
        metadata: Mapping[str, Any] | None = None,
        public: Iterable[str] = (),
    ) -> None:
        self._fill(kind, tables, metadata, public, _canonical)

    def _fill(
        self,
        kind: str,
        tables: Mapping[str, pd.DataFrame],
        metadata: Mapping[str, Any] | None,
        public: Iterable[str],
        canonical: Callable[[pd.DataFrame], pd.DataFrame],
    ) -> None:
        """Check the parts and set them, each table put in canonical form by ``canonical``."""
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
            if not df.columns.is_unique:
                repeated = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
                raise InputError(
                    f"release table '{name}' names column(s) more than once: {', '.join(repeated)}"
                )
        if isinstance(public, str):
            raise InputError("public must be a list of metadata keys, not a string")
        self.kind = kind
        self.tables = {str(k): canonical(v) for k, v in tables.items()}
        self.metadata = plain_metadata(dict(metadata or {}))
        self.public_keys = frozenset(ALWAYS_PUBLIC) | frozenset(map(str, public))
        #: Whether the internal part is known (False for a release loaded from its public part).
        self.has_internal = True
        #: The original as the method encoded it (a :class:`~microanon.core.table.Table`), kept
        #: only within one run of a command (:func:`~microanon.core.factorize.shared_codes`) for
        #: that run's reports; never written, and None otherwise.
        self.encoded: Table | None = None

    @property
    def data(self) -> pd.DataFrame:
        """The main table (``data``, or the first table for multi-table kinds)."""
        return self.tables.get("data", next(iter(self.tables.values())))

    @property
    def public_metadata(self) -> dict[str, Any]:
        """The metadata of the public part."""
        return {k: v for k, v in self.metadata.items() if k in self.public_keys}

    @property
    def internal_metadata(self) -> dict[str, Any]:
        """The metadata only the data owner keeps."""
        return {k: v for k, v in self.metadata.items() if k not in self.public_keys}

    def public_part(self) -> Release:
        """The release as a data user sees it: the tables and the public metadata only."""
        out = Release(self.kind, self.tables, self.public_metadata, self.public_keys)
        out.has_internal = False
        return out

    def __repr__(self) -> str:
        sizes = ", ".join(f"{k}: {len(v)} rows" for k, v in self.tables.items())
        part = "" if self.has_internal else ", public part"
        return f"<Release {self.kind} ({sizes}{part})>"

    def _repr_html_(self) -> str:
        """The release in a notebook: method, sizes, its rows (given, left out and why, into
        the method, suppressed, published: :mod:`~microanon.core.row_counts`, internal), the
        claimed models re-checked on the published tables, and the head of the main table."""
        method = self.metadata.get("method")
        title = f"Release: {method} ({self.kind})" if method else f"Release ({self.kind})"
        if not self.has_internal:
            title += ", public part"
        verdicts, why = self._verdict_rows()
        rows = int(self.metadata.get("rows_out", len(self.data)))
        key = f"{rows:,} rows published"
        if verdicts:
            model, holds, achieved = verdicts[0]
            key = f"{model} {display.mark(holds)} {achieved}; {key}"
        params = self.metadata.get("parameters") or {}
        shown = {k: v for k, v in params.items() if isinstance(v, (str, int, float, bool))}
        parts: list[Any] = []
        counts = counts_of(self.metadata)
        if counts is not None:
            parts.append("Rows: " + counts.sentence())
        if shown:
            parts.append(
                "Parameters: " + ", ".join(f"{k} {display.number(v)}" for k, v in shown.items())
            )
        parts.append(
            display.table(
                ([name, len(df), len(df.columns)] for name, df in self.tables.items()),
                header=["table", "rows", "columns"],
            )
        )
        if verdicts:
            parts.append(
                display.table(
                    ([m, display.mark(h), a] for m, h, a in verdicts),
                    header=["claimed model", "holds", "achieved"],
                    caption="Re-checked on the published tables.",
                )
            )
        elif why:
            parts.append(why)
        name = "data" if "data" in self.tables else next(iter(self.tables))
        parts.append(
            display.frame_table(
                self.data, caption=f"First rows of {name} ({len(self.data):,} rows)."
            )
        )
        return display.card(title, key, *parts)

    def _verdict_rows(self) -> tuple[list[tuple[str, bool | None, str]], str | None]:
        """The claimed models re-checked (see :data:`EXTENSIONS`), or why there are none."""
        try:
            return list(EXTENSIONS["verdicts"](self)), None
        except MicroanonError as exc:
            return [], f"No model re-checked: {exc}."

    def report(self) -> Any:
        """The public report of the release, to show in a notebook or save as HTML.

        The same report as ``public/report.html`` of :func:`microanon.publish` and ``microanon
        anonymize``, built from the public part alone: what was done, the claimed models
        re-checked on the published tables, and the published table's risk. Without the
        original data there is no schema lint and no leak scan; nothing internal is shown.

        Returns
        -------
        microanon.apps.release_report.ReleaseReport
            Shown inline by Jupyter (``_repr_html_``); ``.save(path)`` writes the HTML file;
            ``.html`` is its text.
        """
        return EXTENSIONS["report"](self)

    def equals(self, other: Release) -> bool:
        """Same kind, metadata, public keys and tables (values and column types)."""
        return (
            isinstance(other, Release)
            and self.kind == other.kind
            and self.metadata == other.metadata
            and self.public_keys == other.public_keys
            and self.tables.keys() == other.tables.keys()
            and all(self.tables[k].equals(other.tables[k]) for k in self.tables)
        )

    # ------------------------------------------------------------------ io
    def save(
        self,
        directory: str | os.PathLike[str],
        format: str = "csv",
        overwrite: bool = False,
        protect: Iterable[str | os.PathLike[str]] = (),
    ) -> Path:
        """Write the release to ``directory``: ``public/`` and ``internal/``, atomically.

        Parameters
        ----------
        directory : path
            Created; an existing directory is replaced only with ``overwrite`` and only if it
            holds a previous microanon output and nothing else.
        format : {"csv", "parquet", "sav", "dta"}
            The tables' file format. In an SPSS (``sav``) or Stata (``dta``) file a text column
            is written as codes 1, 2, ... (its values in order, an interval by its lower end:
            :func:`~microanon.core.hierarchy.number_line_order`; through
            :func:`~microanon.apps.publish.publish` in the order the schema declares, see
            :meth:`write_parts`) with value labels: one label for each value the published
            column holds, and none for any other value; a column with a value too long for a
            value label is a string variable (see
            :func:`~microanon.core.statistical_files.write_statistical`).
        overwrite : bool
            Replace a previous output in ``directory``.
        protect : paths
            Files the output must never contain (the input data, the config).

        Returns
        -------
        pathlib.Path
            The directory written.
        """
        if format not in _FORMATS:
            raise InputError(f"format must be one of {', '.join(_FORMATS)}, got {format!r}")
        with atomic_directory(directory, overwrite, protect) as tmp:
            self.write_parts(tmp, format)
        return Path(directory)

    def write_parts(
        self,
        directory: Path,
        format: str = "csv",
        declared: Mapping[str, Sequence[Any]] | None = None,
        labels: Mapping[str, str] | None = None,
    ) -> None:
        """Write ``public/`` and ``internal/`` into an existing (empty) ``directory``: the
        release :meth:`in_written_order`, each table of records written from its columns' codes
        taken in that order (no table is copied). ``declared``: the values the data owner
        declared per column (:meth:`~microanon.core.schema.Schema.declared`), whose order an
        SPSS or Stata file's codes follow (see :meth:`save`). ``labels``: column -> variable
        label, carried by the columns of that name of an SPSS or Stata file (see
        :func:`~microanon.core.statistical_files.write_statistical`; other formats have none)."""
        orders = self._record_orders()
        metadata = self.metadata
        for order in orders.values():
            metadata = rows_in_order(metadata, order)
        public, internal = directory / PUBLIC_DIR, directory / INTERNAL_DIR
        public.mkdir()
        internal.mkdir()
        manifest_tables = {
            name: self._write_table(df, public, name, format, orders.get(name), declared, labels)
            for name, df in self.tables.items()
        }
        write_manifests(
            directory,
            self.kind,
            format,
            manifest_tables,
            self.public_keys,
            {k: v for k, v in metadata.items() if k in self.public_keys},  # (added to since)
            {k: v for k, v in metadata.items() if k not in self.public_keys},
        )

    def _record_orders(self) -> dict[str, np.ndarray]:
        """The order in which each table of records (:data:`RECORD_TABLES`) is written, where
        it is not the table's own: its rows sorted by their published values (see
        :mod:`microanon.core.record_order`)."""
        orders = {name: value_order(self.tables[name]) for name in RECORD_TABLES.get(self.kind, ())}
        return {name: order for name, order in orders.items() if order is not None}

    def in_written_order(self) -> Release:
        """The release as :meth:`save` writes it: each table of records
        (:data:`RECORD_TABLES`) with its rows sorted by their published values, so that their
        order says nothing about the input's (see :mod:`microanon.core.record_order`), and the
        metadata naming rows of it (``source_rows``, ``suppressed_cells``) made about the rows
        in that order. ``self`` when nothing moves."""
        orders = self._record_orders()
        if not orders:
            return self
        written = copy.copy(self)
        written.tables = dict(self.tables)
        for name, order in orders.items():
            written.tables[name] = self.tables[name].take(order).reset_index(drop=True)
            written.metadata = rows_in_order(written.metadata, order)
        return written

    @staticmethod
    def _write_table(
        df: pd.DataFrame,
        directory: Path,
        name: str,
        format: str,
        order: np.ndarray | None = None,
        declared: Mapping[str, Sequence[Any]] | None = None,
        labels: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Write one table, its rows in ``order`` (None: as they are); its manifest entry."""
        types = {str(c): _column_type(df[c]) for c in df.columns}
        codes = {
            str(c): release_files.text_codes(df[c])
            for c in df.columns
            if types[str(c)] == "string" and format != "parquet"
        }
        file = name + _FORMATS[format]
        if format == "csv":
            release_files.write_csv(df, types, directory / file, codes, order)
        else:
            rows = df if order is None else df.take(order).reset_index(drop=True)
            if format in STATISTICAL:
                write_statistical(rows, directory / file, format, types, declared, labels)
            else:
                Release._to_parquet(rows, directory / file)
        info: dict[str, Any] = {
            "file": file,
            "rows": len(df),
            "columns": [str(c) for c in df.columns],
            "types": types,
        }
        if codes:  # text written as CSV, SPSS or Stata (Parquet keeps a null)
            info[EMPTY_TEXT] = Release._empty_text(df, codes, order)
        return info

    @staticmethod
    def _empty_text(
        df: pd.DataFrame,
        codes: Mapping[str, tuple[np.ndarray, np.ndarray]],
        order: np.ndarray | None,
    ) -> dict[str, list[int]]:
        """The manifest's :data:`EMPTY_TEXT` of a table written as CSV, SPSS or Stata, which
        write an empty text as they write a missing value: per text column, the rows of the
        file (``order``: row ``i`` written is the table's ``order[i]``) that hold an empty
        text, each other empty field a missing value. Listing these, seldom any, rather than
        the missing values, keeps the manifest small where answers are missing by the
        thousand, and a reader that takes an empty field for a missing value is right but on
        the rows listed."""
        empty = {c: release_files.empty_text_rows(df[c], *codes[c]) for c in codes}
        empty = {c: rows for c, rows in empty.items() if len(rows)}
        if empty and order is not None:  # (the rows where they are written)
            place = inverse_order(order)
            empty = {c: np.sort(place[rows]) for c, rows in empty.items()}
        return {c: rows.tolist() for c, rows in empty.items()}

    @staticmethod
    def _to_parquet(df: pd.DataFrame, path: Path) -> None:
        df.to_parquet(path, index=False)

    @classmethod
    def load(cls, directory: str | os.PathLike[str], *, like: Release | None = None) -> Release:
        """Read a release written by :meth:`save`.

        ``directory`` is the release directory (both parts are read when present) or its
        ``public/`` directory alone, as a data user receives it. A directory written by
        microanon 0.1 (one ``release.json`` beside the tables) loads with all its metadata
        internal.

        ``like``: the release the files were written from, still in memory (as
        :func:`~microanon.models.verify_written` has it). A text column read back that holds,
        row by row, the values of the same column of ``like`` (compared on both columns'
        codes) is given that column's Python objects instead of new ones: the same values,
        without building ten million objects again. A column of numbers that holds the same
        column's numbers bit for bit is given the codes the run gave them (see
        :func:`~microanon.core.release_files.restore`). Every other column is read as without
        it. A table of records that ``like`` would write in another order
        (:meth:`in_written_order`) comes back in ``like``'s order (the file's rows, moved
        as Arrow codes before any value is built), and so does the metadata that names its
        rows.
        """
        directory = Path(directory)
        orders = {} if like is None else like._record_orders()
        if (directory / PUBLIC_DIR / MANIFEST).is_file():
            release, moved = cls._load_part(directory / PUBLIC_DIR, like, orders)
            internal = directory / INTERNAL_DIR / _INTERNAL
            if internal.is_file():
                meta = _read_json(internal).get("metadata", {})
                if not isinstance(meta, dict):
                    raise InputError(f"{internal}: metadata must be a mapping")
                for order in moved:  # (about the files' rows: made about like's)
                    meta = rows_in_order(meta, inverse_order(order))
                release.metadata.update(plain_metadata(meta))
                release.has_internal = True
            return release
        if (directory / MANIFEST).is_file():
            return cls._load_part(directory, like, orders)[0]
        raise InputError(
            f"{directory} holds no release (neither {PUBLIC_DIR}/{MANIFEST} nor {MANIFEST})"
        )

    @classmethod
    def _load_part(
        cls,
        directory: Path,
        like: Release | None = None,
        orders: Mapping[str, np.ndarray] | None = None,
    ) -> tuple[Release, list[np.ndarray]]:
        """The part in ``directory``, and the orders of its tables put back in ``like``'s
        order (``orders``: those ``like`` writes its tables of records in)."""
        manifest_path = directory / MANIFEST
        manifest = _read_json(manifest_path)
        if "kind" not in manifest or not isinstance(manifest.get("tables"), dict):
            raise InputError(f"{manifest_path} is not a microanon release manifest")
        tables, moved = {}, []
        for name, info in manifest["tables"].items():
            if not isinstance(info, dict) or "file" not in info:
                raise InputError(f"{manifest_path}: table {name!r} has no file")
            known = None if like is None else like.tables.get(str(name))
            order = (orders or {}).get(str(name))
            path = _table_file(directory, info["file"])
            tables[name], held = cls._read_table(path, info, known, order)
            if held:
                moved.append(order)
        metadata = manifest.get("metadata", {})
        release = cls.__new__(cls)
        if manifest.get("microanon_release", 1) < _LAYOUT:  # 0.1: one block, nothing declared
            release._fill(manifest["kind"], tables, metadata, (), _reindexed)
            return release, moved
        public = manifest.get("public_keys", ())
        release._fill(manifest["kind"], tables, metadata, public, _reindexed)
        release.has_internal = False
        return release, moved

    @staticmethod
    def _read_table(
        path: Path,
        info: Mapping[str, Any],
        like: pd.DataFrame | None = None,
        order: np.ndarray | None = None,
    ) -> tuple[pd.DataFrame, bool]:
        """A table read from ``path``; with ``order`` (the rows of ``like`` in the order they
        were written) of as many rows as the file, its rows put back in ``like``'s order
        (then True)."""
        if not path.exists():
            raise InputError(f"release table file {path} is missing")
        columns = info.get("columns")
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq  # (its import, with pyarrow's file systems, costs 9 ms)

            table = pq.read_table(path)
        elif path.suffix in (".sav", ".dta"):
            table = pa.Table.from_pandas(
                read_statistical(path, info.get("types", {})), preserve_index=False
            )
        else:
            rows = info.get("rows")
            kinds = info.get("types")
            text = [c for c, k in kinds.items() if k == "string"] if isinstance(kinds, dict) else []
            table = release_files.read_csv(
                path, columns or [], rows if type(rows) is int else None, text
            )
        if table.column_names != columns:
            raise InputError(f"{path}: columns do not match {MANIFEST}")
        # (a manifest written before EMPTY_TEXT lists the missing text values instead)
        gaps, empty, types = info.get("missing", {}), info.get(EMPTY_TEXT), info.get("types", {})
        held = like is not None and len(like) == table.num_rows
        moved = held and order is not None and len(order) == table.num_rows
        # file row i is like's row order[i]: each column moved as codes or numbers
        rows = release_files.RowOrder(order) if moved else None
        restored = {
            c: release_files.restore(
                table.column(c),
                types.get(c, "string"),
                gaps.get(c, ()),
                like[c] if held and c in like.columns else None,
                rows,
                None if empty is None else empty.get(c, ()),
            )
            for c in columns
        }
        return pd.DataFrame(restored, index=pd.RangeIndex(table.num_rows), copy=False), moved


def not_a_dataset(path: Path) -> InputError | None:
    """The refusal of ``path`` as data when it is a release's part (a directory holding a
    release manifest) or a release (its ``public`` directory holds one), naming the published
    tables to give instead (a multi-table release has no data file: ``sac``, ``at``, ``idt``;
    a Dask release's ``data.parquet`` is a directory); None for any other path."""
    if not path.is_dir():
        return None
    part = path if (path / MANIFEST).is_file() else path / "public"
    if not (part / MANIFEST).is_file():
        return None
    tables = sorted(
        str(f) for f in part.iterdir() if f.name != MANIFEST and f.suffix.lower() != ".html"
    )
    what = "a microanon release's part" if part == path else "a microanon release"
    give = "its data file" if len(tables) == 1 else "one of its published tables"
    return InputError(
        f"{path} is {what}, not a dataset: give {give} ({', '.join(tables) or 'none found'})"
    )


def text_release(
    kind: str,
    tables: Mapping[str, pd.DataFrame],
    metadata: Mapping[str, Any] | None = None,
    public: Iterable[str] = (),
) -> Release:
    """A release of tables whose columns are already as a release publishes them.

    For methods that build their tables from codes: every column is numeric or an object
    column of :func:`canonical_column`'s text (str, missing values None). The tables are kept
    as they are, with a fresh index; :class:`Release` itself converts whatever it is given,
    inferring the type of each object column (one that is already such text is kept).

    Parameters
    ----------
    kind, tables, metadata, public
        As for :class:`Release`.

    Returns
    -------
    Release

    Raises
    ------
    InputError
        As :class:`Release`; a column of another dtype (a Categorical, a string dtype, ...).
    """
    release = Release.__new__(Release)
    release._fill(kind, tables, metadata, public, _reindexed)
    return release


def write_manifests(
    directory: Path,
    kind: str,
    format: str,
    tables: Mapping[str, Mapping[str, Any]],
    public_keys: Iterable[str],
    public: Mapping[str, Any],
    internal: Mapping[str, Any],
) -> None:
    """Write ``public/release.json`` and ``internal/internal.json`` of a release.

    The tables are already in ``public/``; this writes what describes them. Used by
    :meth:`Release.write_parts` and by the out-of-core writers of :mod:`microanon.scale`, which
    write their tables partition by partition.

    Parameters
    ----------
    directory : path
        The release being built (``public/`` and ``internal/`` are created if missing).
    kind : str
        The release kind.
    format : {"csv", "parquet", "sav", "dta"}
    tables : mapping of str to dict
        Each table's description: ``file``, ``rows``, ``columns``, ``types`` (and what
        :meth:`Release.load` reads besides).
    public_keys : iterable of str
        The metadata keys the method declares public.
    public, internal : mapping
        The public and internal metadata (refused if they hold a seed or random state).
    """
    from .version import __version__

    common = {"microanon_release": _LAYOUT, "microanon_version": __version__, "kind": kind}
    # No date in the public part: the same configuration on the same data publishes the same
    # bytes (the workbench's downloaded config reproduces its release); the internal part keeps it.
    manifest = {
        **common,
        "part": PUBLIC_DIR,
        "format": format,
        "tables": {name: dict(info) for name, info in tables.items()},
        "public_keys": sorted(public_keys),
        "metadata": plain_metadata(dict(public)),
    }
    (directory / PUBLIC_DIR).mkdir(exist_ok=True)
    (directory / PUBLIC_DIR / MANIFEST).write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False), "utf-8"
    )
    (directory / INTERNAL_DIR).mkdir(exist_ok=True)
    doc = {
        **common,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "part": INTERNAL_DIR,
        "metadata": plain_metadata(dict(internal)),
    }
    (directory / INTERNAL_DIR / _INTERNAL).write_text(
        json.dumps(doc, indent=2, ensure_ascii=False), "utf-8"
    )
