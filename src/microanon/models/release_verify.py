"""Verification of a release as written: read back from disk, re-checked, scanned for leaks.

After a release is written, :func:`verify_written` reads the files back once (never the objects
that produced them; the public part is the loaded tables with the public manifest's metadata)
and checks

1. the claimed models, by their plain definitions, on the published tables, with every published
   column the schema lint found linkable counted as a quasi-identifier (except by δ-presence and
   k-map against a population table, whose people are counted by the declared
   quasi-identifiers, the only columns the population has): on the frequency table of the
   published combinations (:mod:`microanon.models.frequencies`), the columns factorized once
   for it and for the scan of item 3;
2. that the public part alone loads, and holds no metadata the method did not declare public;
3. that the public metadata contains no value of an original column that does not appear in
   the published tables themselves (a hierarchy's leaves, a suppressed person's value, a
   dropped column's values), unless the data owner declared it public (a column's
   ``categories`` or ordinal ``order`` in the schema). Every public key is scanned, with no
   exemption: a method publishes by design only what it declares with ``public=``, and a key
   that names values (a randomization's domains, :data:`NAMING_KEYS`) holds declared or
   published values only, its numbers compared by value (a domain's 50.0 with a published
   ``50.0`` or ``50``) as its strings by text;
4. that no public table holds a column the schema does not publish (an identifier, a
   household id). A sampling weight or a stratum id is published like an insensitive column;
5. given the release the files were written from, that every column read back holds its
   values row by row: a file format that changed a value (a label cut short) is caught;
6. given the variable labels meant for them, that every column of an SPSS or Stata table carries
   its label as the format holds it, and any other column none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import MicroanonError
from ..core.factorize import factorize
from ..core.frames import pandas_if_arrow
from ..core.release import MANIFEST, PUBLIC_DIR, Release, text_release
from ..core.statistical_files import STATISTICAL, read_variable_labels, variable_labels
from .frequencies import Frequencies, column_codes, frequencies_of
from .release_check import CHECKED_KINDS, ONE_TABLE_KINDS, check_release
from .verdict import Verdict

__all__ = ["NAMING_KEYS", "Verification", "verify_written", "public_leaks"]

#: Release kinds whose claimed models are checked on equivalence classes of one table.
_CLASS_KINDS = ("generalized", "masked")

#: Codes and distinct values of each column of each published table (:func:`column_codes`).
_Codes = dict[str, dict[Hashable, tuple[np.ndarray, pd.Index]]]


@dataclass
class Verification:
    """What the check of a written release found."""

    verdicts: list[Verdict] = field(default_factory=list)
    counted_quasi: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: The public part as read back (what a data user gets).
    public: Release | None = field(default=None, repr=False)
    #: :func:`column_codes` of every column of each table of ``public``, by table: what the
    #: verification coded them with, for the reports to group the same columns again.
    codes: _Codes = field(default_factory=dict, repr=False)
    #: The frequency table of the published table (one-table releases) on the columns its
    #: checks count (the quasi-identifiers, the linkable columns counted as such, the sensitive
    #: attribute), grouped once for the checks and the public report.
    grouped: Frequencies | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        """Whether every claimed model holds and the public part leaks nothing."""
        return all(v.holds for v in self.verdicts) and not self.leaks and not self.problems

    def failures(self) -> list[str]:
        """One line per failure."""
        out = [f"{v}" for v in self.verdicts if not v.holds]
        if self.counted_quasi and out:
            out = [
                f"{line} (with {', '.join(self.counted_quasi)} counted as quasi-identifiers)"
                for line in out
            ]
        return out + self.leaks + self.problems

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "ok": self.ok,
            "verdicts": [
                {"model": v.model, "holds": v.holds, "value": _plain(v.value)}
                for v in self.verdicts
            ],
            "counted_as_quasi": self.counted_quasi,
            "leaks": self.leaks,
            "problems": self.problems,
        }


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


#: Keys of public metadata whose values name values of a column (a randomization's domain):
#: their numbers are scanned too, as their text. Elsewhere a number is a parameter or a count
#: (k = 5, the rows published), which a column of numbers would hold by chance.
NAMING_KEYS = frozenset({"domain", "domains"})


def _strings(obj: Any, path: str = "", naming: bool = False) -> Iterator[tuple[str, str, bool]]:
    """The texts of ``obj``'s strings, and of its numbers under a key of :data:`NAMING_KEYS`
    (as :func:`_text_values` writes a value), each with its path and whether it is a number."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(v, f"{path}.{k}" if path else str(k), naming or k in NAMING_KEYS)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _strings(v, f"{path}[{i}]", naming)
    elif isinstance(obj, str):
        yield path, obj, False
    elif naming and isinstance(obj, (int, float, np.number)) and not isinstance(obj, bool):
        yield from ((path, text, True) for text in _text_values([obj]))


def _text_values(values: Iterable[Any]) -> set[str]:
    out = set()
    for v in values:
        if v is None or (isinstance(v, float) and np.isnan(v)):
            continue
        if isinstance(v, (float, np.floating)) and float(v).is_integer():
            v = int(v)
        out.add(str(v))
    return out


def _texts_of(values: Any, texts: set[str]) -> set[str]:
    """The strings of ``texts`` that are the text of some value of ``values``, as
    :func:`_text_values` writes them; only the values that could be written so are written (a
    column of a million numbers is not turned into a million strings)."""
    if not texts:
        return set()
    array = values.to_numpy() if isinstance(values, pd.Index) else np.asarray(values)
    if array.dtype.kind in "iuf":
        numbers = []
        for text in texts:
            try:
                numbers.append(float(text))
            except ValueError:
                continue
        array = array[np.isin(array, np.array(numbers, dtype=float))]
    elif array.dtype.kind in "OU" and pd.api.types.infer_dtype(array, skipna=True) == "string":
        array = array[pd.Index(array, dtype=object).isin(list(texts))]
    return _text_values(array) & texts


def _numbers_of(values: Any, numbers: set[str]) -> set[str]:
    """The texts of ``numbers`` (numbers written by :func:`_text_values`) that some value of
    ``values`` is, by value: a number, or a text that writes one (a column of numbers published
    as text beside the value ``?`` writes ``50.0`` for the domain's 50.0)."""
    if not numbers:
        return set()
    array = values.to_numpy() if isinstance(values, pd.Index) else np.asarray(values)
    if array.dtype.kind in "OU":
        array = pd.to_numeric(pd.Series(array, dtype=object), errors="coerce").to_numpy()
    if array.dtype.kind not in "iuf":
        return set()
    array = array[np.isin(array, np.array([float(t) for t in numbers], dtype=float))]
    return _text_values(array) & numbers


def public_leaks(
    release: Release,
    original: pd.DataFrame,
    declared: Mapping[str, Sequence[Any]] | None = None,
) -> list[str]:
    """Public metadata strings (and numbers naming values: :data:`NAMING_KEYS`) that are
    original values absent from the published tables.

    Parameters
    ----------
    release : Release
        The release (its public metadata is scanned, every key).
    original : DataFrame
        The original table, every column (dropped ones included).
    declared : mapping of column to values, optional
        Values the data owner declared public (:meth:`microanon.core.schema.Schema.declared`):
        a value of column ``c`` listed for ``c`` is not a leak.

    Returns
    -------
    list of str
        One line per leaked value, naming the metadata path and the original column.
    """
    return _leaks(release, _codes(release), original, declared)


def _codes(release: Release) -> _Codes:
    """:func:`column_codes` of every column of every published table: one pass per column."""
    return {
        name: {c: column_codes(df[c]) for c in df.columns} for name, df in release.tables.items()
    }


def _leaks(
    release: Release,
    codes: _Codes,
    original: pd.DataFrame,
    declared: Mapping[str, Sequence[Any]] | None,
) -> list[str]:
    """:func:`public_leaks`, the published tables' distinct values read from ``codes``."""
    original = pandas_if_arrow(original, "original")
    found = [
        entry for key, value in release.public_metadata.items() for entry in _strings(value, key)
    ]
    # only these can leak: the values are matched to them (strings by text, a domain's numbers
    # by value)
    texts = {text for _, text, number in found if not number}
    numbers = {text for _, text, number in found if number}
    published: set[str] = set()
    published_numbers: set[str] = set()
    for columns in codes.values():
        published |= set(map(str, columns))
        for _, uniques in columns.values():
            published |= _texts_of(uniques, texts)
            published_numbers |= _numbers_of(uniques, numbers)
    # a number the owner declared for a column is public whichever column also holds it
    stated = [v for values in (declared or {}).values() for v in values]
    published_numbers |= _numbers_of(pd.Index(stated, dtype=object), numbers)
    by_value: dict[tuple[str, bool], list[str]] = {}
    for c in original.columns:
        allowed = published | _text_values((declared or {}).get(str(c), ()))
        uniques = factorize(original[c])[1]
        for v in _texts_of(uniques, texts) - allowed:
            by_value.setdefault((v, False), []).append(str(c))
        for v in _numbers_of(uniques, numbers) - published_numbers:
            by_value.setdefault((v, True), []).append(str(c))
    leaks = []
    for path, text, number in found:
        columns = by_value.get((text, number))
        if columns:
            # the column the path names (a domain's own), else the first that holds the value
            steps = set(re.split(r"[.\[\]]", path))
            column = next((c for c in columns if c in steps), columns[0])
            leaks.append(
                f"public metadata {path} holds {text!r}, a value of original column "
                f"{column!r} that the published tables do not contain"
            )
    return leaks


def verify_written(
    directory: str | Path,
    original: pd.DataFrame,
    linkable: Sequence[str] = (),
    declared: Mapping[str, Sequence[Any]] | None = None,
    unpublished: Sequence[str] = (),
    written: Release | None = None,
    labels: Mapping[str, str] | None = None,
) -> Verification:
    """Read a written release back from ``directory`` and verify it.

    Parameters
    ----------
    directory : path
        The release directory (``public/`` and ``internal/``).
    original : DataFrame
        The original table as read, every column.
    linkable : sequence of str
        Published non-quasi columns an attacker can link (the lint's
        :attr:`~microanon.core.lint.LintReport.linkable`); counted as quasi-identifiers.
    declared : mapping of column to values, optional
        Values the data owner declared public (see :func:`public_leaks`).
    unpublished : sequence of str
        Columns no public table may hold (the schema's identifiers and household id).
    written : Release, optional
        The release the files were written from, still in memory: a text column read back
        that holds its column's values row by row shares that column's objects (see
        :meth:`Release.load`); every check is made on what was read, and every published
        column read back must hold, row by row, the values of ``written``'s (a file format
        that changed one, such as a value label cut short, is a problem).
    labels : mapping of str to str, optional
        The variable labels given to the writer (column -> label): each column of an SPSS or
        Stata table read back must carry its label as the format holds it
        (:func:`~microanon.core.statistical_files.variable_labels`), and a column without one
        none (a problem naming the column otherwise). None: not checked.

    Returns
    -------
    Verification
    """
    original = pandas_if_arrow(original, "original")
    directory = Path(directory)
    out = Verification()
    full = Release.load(directory, like=written)
    public = _public_part(full, directory / PUBLIC_DIR / MANIFEST)
    out.public = public
    extra = sorted(set(public.metadata) - set(full.public_keys))
    if extra:
        out.problems.append(f"public metadata holds undeclared keys {', '.join(extra)}")
    if written is not None:
        out.problems += _changed_values(full, written)
    if labels is not None:
        out.problems += _labels_differing(directory / PUBLIC_DIR, labels)
    codes = out.codes = _codes(public)
    out.leaks = _leaks(public, codes, original, declared)
    for name, table in public.tables.items():
        held = [str(c) for c in table.columns if str(c) in set(unpublished)]
        if held:
            out.problems.append(
                f"public table {name} holds column(s) {', '.join(held)}, which the schema does "
                "not publish"
            )
    counted: list[str] = []
    if full.kind in _CLASS_KINDS:
        quasi = list(full.metadata.get("quasi") or [])
        counted = [c for c in linkable if c in full.data.columns and c not in quasi]
        out.counted_quasi = counted
    out.grouped = _grouped(public, counted, codes.get("data"))
    if not full.metadata.get("models") and full.kind not in CHECKED_KINDS:
        return out
    try:
        out.verdicts = check_release(
            full, linkable=counted, codes=codes.get("data"), frequencies=out.grouped
        )
    except MicroanonError as exc:
        out.problems.append(f"the claimed models cannot be checked on the written files: {exc}")
    return out


def _changed_values(read: Release, meant: Release) -> list[str]:
    """One line per published column whose values, read back from the files, are not those
    of the release the files were written from (row by row: :meth:`Release.load` gives the
    rows back in ``meant``'s order)."""
    lines = []
    for name, table in meant.tables.items():
        back = read.tables.get(name)
        if back is None or len(back) != len(table):
            lines.append(f"public table {name} does not hold the rows the release publishes")
            continue
        for c in table.columns:
            differ = _rows_differing(back[c], table[c]) if c in back.columns else len(table)
            if differ:
                lines.append(
                    f"public table {name}: column {str(c)!r} as read back from its file differs "
                    f"from the published values in {differ} of {len(table)} rows"
                )
    return lines


def _labels_differing(public: Path, labels: Mapping[str, str]) -> list[str]:
    """One line per column of an SPSS or Stata table of the release's ``public`` part whose
    variable label, read back from its file, is not the one of ``labels`` as the format holds
    it (none for a column ``labels`` does not name)."""
    tables = json.loads((public / MANIFEST).read_text(encoding="utf-8"))["tables"]
    lines = []
    for name, info in tables.items():
        path = public / info["file"]
        format = path.suffix[1:]
        if format not in STATISTICAL:
            continue
        meant = variable_labels(labels, format)
        back = read_variable_labels(path)
        for c in info["columns"]:
            if back.get(c) != meant.get(c):
                lines.append(
                    f"public table {name}: column {c!r} carries {_label_said(back.get(c))} as "
                    f"read back from its file, where {_label_said(meant.get(c))} was meant"
                )
    return lines


def _label_said(label: str | None) -> str:
    """A variable label as a message names it."""
    return "no variable label" if label is None else f"the variable label {label!r}"


def _rows_differing(read: pd.Series, meant: pd.Series) -> int:
    """The rows where ``read`` does not hold ``meant``'s value (a missing value only where
    ``meant`` has one). A column read back as ``meant``'s own objects differs nowhere; numbers
    are compared in ``meant``'s precision (a float32 column is written by its float32 text)."""
    mine, theirs = read.to_numpy(), meant.to_numpy()
    if mine.dtype == theirs.dtype == object and mine.ctypes.data == theirs.ctypes.data:
        return 0  # (the read column shares the written one's values: Release.load's like=)
    numeric = [pd.api.types.is_numeric_dtype(s.dtype) for s in (read, meant)]
    if all(numeric) and not pd.api.types.is_bool_dtype(meant.dtype):
        kind = theirs.dtype if theirs.dtype.kind == "f" else np.float64
        mine = read.to_numpy(dtype=kind, na_value=np.nan)
        theirs = meant.to_numpy(dtype=kind, na_value=np.nan)
        same = (mine == theirs) | (np.isnan(mine) & np.isnan(theirs))
        return int(np.count_nonzero(~same))
    gap, hole = read.isna().to_numpy(), meant.isna().to_numpy()
    both = ~gap & ~hole
    equal = np.asarray(mine[both] == theirs[both], dtype=bool)
    return int(np.count_nonzero(gap != hole) + np.count_nonzero(~equal))


def _grouped(
    public: Release, counted: Sequence[str], codes: Mapping[Hashable, Any] | None
) -> Frequencies | None:
    """:attr:`Verification.grouped` of the public part (None: no such table, or no row)."""
    data = public.tables.get("data")
    if public.kind not in ONE_TABLE_KINDS or data is None or not len(data):
        return None
    meta = public.metadata
    named = [*(meta.get("quasi") or []), *counted, *(meta.get("sensitive") or [])]
    columns = [c for c in dict.fromkeys(named) if c in data.columns]
    return frequencies_of(data, columns, codes) if columns else None


def _public_part(full: Release, manifest: Path) -> Release:
    """The public part of a release loaded whole, as :meth:`Release.load` loads ``public/``
    alone: the same tables (read once), the metadata and public keys its manifest holds."""
    written = json.loads(manifest.read_text(encoding="utf-8"))
    public = text_release(
        full.kind, full.tables, written.get("metadata", {}), written.get("public_keys", ())
    )
    public.has_internal = False
    return public
