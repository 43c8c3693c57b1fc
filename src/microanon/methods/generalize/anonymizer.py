"""Fit a recoding on one table, apply it to the next: :class:`Anonymizer`.

A full-domain generalization found on January's file fixes one level per quasi-identifier. An
:class:`Anonymizer` keeps those levels with the hierarchies they refer to, the privacy models
and the suppression limit, and publishes February's file with the *same* recoding: the same
labels, so the two releases can be compared and stacked, and the same suppression rule, so
February's release satisfies the models too (or the error says how much suppression it would
need). The recoding is saved to a JSON file that holds the schema with its hierarchies, the
models, the parameters and the levels — no record, no count, no seed — and loads back into an
:class:`Anonymizer` that gives the same output. The file carries its hierarchies inline: loading
it reads no other file.

Reusable methods are those with a fixed recoding: ``full_domain``, ``global_recode`` and
``top_bottom_code`` (see :mod:`microanon.methods.generalize._reusable`).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...core.errors import HierarchyError, InfeasibleError, InputError
from ...core.files import read_text_file
from ...core.frames import as_pandas
from ...core.hierarchy import Hierarchy
from ...core.missing import MISSING_LABEL
from ...core.release import Release
from ...core.schema import Role, Schema
from ...models import PrivacyModel, as_models, check_release
from ..release import resolve_hierarchies
from ._reusable import NOT_REUSABLE, RECODINGS, Recoding

__all__ = ["Anonymizer", "FORMAT_VERSION"]

#: Version of the saved file's layout (key ``microanon_anonymizer``).
FORMAT_VERSION = 1
_KEYS = ("microanon_anonymizer", "method", "parameters", "models", "schema", "recoding")


def _recoding(method: Any) -> Recoding:
    if method in RECODINGS:
        return RECODINGS[method]
    reusable = ", ".join(RECODINGS)
    if method in NOT_REUSABLE:
        raise InputError(
            f"method {method!r} has no fixed recoding to apply to another table "
            f"({NOT_REUSABLE[method]}); reusable methods: {reusable}"
        )
    raise InputError(f"method must be one of {reusable}, got {method!r}")


def _schema(schema: Any) -> Schema:
    if isinstance(schema, Schema):
        return schema
    if isinstance(schema, Mapping):
        return Schema.from_dict(schema)
    raise InputError(f"schema must be a Schema or a mapping, got {type(schema).__name__}")


def _models(models: Any, recoding: Recoding) -> list[PrivacyModel]:
    if models is None or (isinstance(models, (list, tuple)) and not models):
        if recoding.needs_models:
            raise InputError(f"{recoding.name} needs at least one privacy model (models=...)")
        return []
    return as_models(models)


def _population_models(models: list[PrivacyModel]) -> list[str]:
    return [m.name for m in models if m.needs_population]


class Anonymizer:
    """A recoding fitted on one table and applied, with the same models, to others.

    Parameters
    ----------
    schema : Schema or mapping
        The columns of every table this anonymizer sees (exactly these, in any order). Builder
        hierarchies (intervals, quantiles, ...) are built on the table given to :meth:`fit` and
        then kept: later tables must hold only values they cover.
    models : model specification, optional
        Anything :func:`microanon.models.as_models` reads. Required for ``full_domain``; for the
        other methods they are optional and checked on every release.
    method : {"full_domain", "global_recode", "top_bottom_code"}, default "full_domain"
        A method with a fixed recoding. The others (Mondrian, local recoding, Anatomy, SafePub,
        microaggregation, noise, swapping, sampling, local suppression) build their output from
        each table's own records and are refused.
    **params
        The method's parameters: ``suppression``, ``metric``, ``suppressed_rows``, ``search``,
        ``time_limit`` and ``step_limit`` (the fit's search only) for
        :func:`~microanon.methods.generalize.full_domain`; ``levels``, ``maps`` and ``columns``
        for :func:`~microanon.methods.sdc.global_recode`; ``column``, ``top``, ``bottom``,
        ``quantiles`` and ``replacement`` (not ``"mean"``) for
        :func:`~microanon.methods.sdc.top_bottom_code`.

    Raises
    ------
    InputError
        An unknown or non-reusable method, an unknown or bad parameter, no models for
        ``full_domain``, a bad model specification or schema.

    Examples
    --------
    >>> from microanon.datasets import load_adult, adult_schema
    >>> adult = load_adult()
    >>> anonymizer = Anonymizer(adult_schema(), [{"k_anonymity": {"k": 5}}], suppression=0.05)
    >>> january = anonymizer.fit_transform(adult.iloc[::2])  # doctest: +SKIP
    >>> february = anonymizer.transform(adult.iloc[1::2])  # doctest: +SKIP
    >>> anonymizer.save("adult-recoding.json")  # doctest: +SKIP
    """

    def __init__(
        self,
        schema: Schema | Mapping[str, Any],
        models: Any = None,
        method: str = "full_domain",
        **params: Any,
    ) -> None:
        self._recoding = _recoding(method)
        self.method = self._recoding.name
        self.schema = _schema(schema)
        self.models = _models(models, self._recoding)
        self.params = self._recoding.check(params)
        self._fitted_schema: Schema | None = None
        self._fitted: dict[str, Any] | None = None

    def __repr__(self) -> str:
        state = "fitted" if self.is_fitted else "not fitted"
        return f"<Anonymizer {self.method} ({state})>"

    # ------------------------------------------------------------------ state
    @property
    def is_fitted(self) -> bool:
        """Whether :meth:`fit` (or :meth:`load`) fixed a recoding."""
        return self._fitted is not None

    @property
    def recoding(self) -> dict[str, Any]:
        """What the fit fixed: ``{"levels": {...}}`` (full_domain), ``{"thresholds": {...}}``
        (top_bottom_code) or ``{}`` (global_recode, whose parameters are the recoding)."""
        return dict(self._require_fitted()[1])

    @property
    def fitted_schema(self) -> Schema:
        """The schema with the hierarchies the recoding refers to (builders built on the fit)."""
        return self._require_fitted()[0]

    @property
    def keeps_rows(self) -> bool:
        """Whether every input row is published, in order (``full_domain`` only in star mode)."""
        return self._recoding.keeps_rows(self.params)

    def _require_fitted(self) -> tuple[Schema, dict[str, Any]]:
        if self._fitted_schema is None or self._fitted is None:
            raise InputError("this Anonymizer is not fitted: call fit(data) first, or load a file")
        return self._fitted_schema, self._fitted

    # ------------------------------------------------------------------ fit / transform
    def fit(self, data: pd.DataFrame) -> Anonymizer:
        """Run the method on ``data`` and keep its recoding.

        Returns
        -------
        Anonymizer
            ``self``.

        Raises
        ------
        InputError
            Columns other than the schema's, bad data (see the method).
        InfeasibleError
            The method finds no release satisfying the models.
        """
        self.fit_transform(data)
        return self

    def fit_transform(self, data: pd.DataFrame) -> Release:
        """Run the method on ``data``, keep its recoding and return its release.

        The release is the method's own (e.g. :func:`full_domain`'s with the search's
        statistics); :meth:`transform` on the same table publishes the same table.

        Raises
        ------
        InputError, InfeasibleError
            As :meth:`fit`.
        """
        data = self._check_columns(data)
        schema = resolve_hierarchies(data, self.schema, self.models)
        fitted, release = self._recoding.fit(data, schema, self.models, self.params)
        release = self._verified(release)
        self._fitted_schema, self._fitted = schema, fitted
        return release

    def transform(self, data: pd.DataFrame, *, suppression: float | None = None) -> Release:
        """Publish another table with the fitted recoding.

        For ``full_domain`` the quasi-identifiers are recoded to the fitted levels and the
        records of the classes that fail a model are suppressed as the search suppresses them,
        at most ``suppression`` of them; the models are then checked on the published table.

        Parameters
        ----------
        data : DataFrame
            Exactly the schema's columns; every value of a column with a hierarchy must be one
            of its leaves.
        suppression : float, optional
            ``full_domain`` only: the largest share of this table's records that may be
            suppressed (default: the fitted ``suppression``).

        Returns
        -------
        Release
            Like the method's (``full_domain``: kind ``generalized``, with the levels among its
            ``parameters``).

        Raises
        ------
        InputError
            Not fitted; missing or extra columns; a value no fitted hierarchy covers (naming the
            column and up to five values); bad data.
        InfeasibleError
            The classes failing the models hold more records than the limit allows (naming the
            share needed and the share allowed), or the published table fails a model.
        """
        schema, fitted = self._require_fitted()
        params = dict(self.params)
        if suppression is not None:
            if "suppression" not in params:
                raise InputError(f"suppression: {self.method} suppresses nothing")
            params = self._recoding.check({**params, "suppression": suppression})
        data = self._check_columns(data)
        _refuse_new_missing(data, schema)
        try:
            schema.validate(data)
        except HierarchyError as exc:
            raise InputError(
                f"{exc} (the fitted hierarchies must cover the new table: declare the whole "
                "domain (intervals with start and end, categories, groups, a bundled hierarchy "
                "or a file) and fit again)"
            ) from None
        release = self._recoding.apply(data, schema, self.models, params, fitted)
        return self._verified(release)

    def _check_columns(self, data: Any) -> pd.DataFrame:
        """``data`` as a DataFrame (an Arrow-compatible table converted); refuse anything else,
        or a table without exactly the schema's columns."""
        data = as_pandas(data, "data")
        columns = [str(c) for c in data.columns]
        missing = [c for c in self.schema.columns if c not in columns]
        extra = [c for c in columns if c not in self.schema]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing column(s) {', '.join(map(repr, missing))}")
            if extra:
                parts.append(f"column(s) {', '.join(map(repr, extra))} not in the schema")
            raise InputError(
                "the table must have exactly the schema's columns: " + "; ".join(parts)
            )
        return data

    def _verified(self, release: Release) -> Release:
        """The release claiming the models, each re-checked on its published table."""
        if not self.models:
            return release
        if not release.metadata.get("models"):
            release = Release(
                release.kind,
                release.tables,
                {**release.metadata, "models": [m.to_config() for m in self.models]},
                public=release.public_keys,
            )
        failed = [v for v in check_release(release) if not v.holds]
        if failed:
            raise InfeasibleError(
                f"{self.method}: the published table fails {failed[0]}; relax the models or "
                "choose another recoding"
            )
        return release

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict[str, Any]:
        """The fitted anonymizer as JSON types: what :meth:`save` writes.

        Raises
        ------
        InputError
            Not fitted; a model checked against a population (the population is data and is
            never written).
        """
        schema, fitted = self._require_fitted()
        population = _population_models(self.models)
        if population:
            raise InputError(
                f"{population[0]} against a population cannot be saved: the population is a "
                "table of people and an anonymizer file holds no data; keep the Anonymizer in "
                "memory, or use k_map with an estimator"
            )
        # Identifiers and household ids are never published: their role is all a later table
        # needs.
        columns = {
            a.name: a.to_dict() if a.role.published else {"role": a.role.value} for a in schema
        }
        return {
            "microanon_anonymizer": FORMAT_VERSION,
            "method": self.method,
            "parameters": self.params,
            "models": [m.to_config() for m in self.models],
            "schema": columns,
            "recoding": fitted,
        }

    @classmethod
    def from_dict(cls, doc: Any, where: str = "anonymizer") -> Anonymizer:
        """Rebuild a fitted anonymizer from :meth:`to_dict`'s form, validating every part.

        Raises
        ------
        InputError
            A missing or unknown key, another layout version, a hierarchy given as a file
            (the document carries its hierarchies as label paths, as :meth:`to_dict` writes
            them), or any part that does not validate (method, parameters, models, schema,
            recoding).
        """
        if not isinstance(doc, Mapping):
            raise InputError(f"{where}: not a microanon anonymizer (expected a JSON object)")
        missing = [k for k in _KEYS if k not in doc]
        extra = sorted(str(k) for k in doc if k not in _KEYS and k != "microanon_version")
        if missing or extra:
            raise InputError(
                f"{where}: not a microanon anonymizer file ("
                + (f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}")
                + ")"
            )
        if doc["microanon_anonymizer"] != FORMAT_VERSION:
            raise InputError(
                f"{where}: layout version {doc['microanon_anonymizer']!r}, this microanon reads "
                f"{FORMAT_VERSION}"
            )
        if not isinstance(doc["parameters"], Mapping):
            raise InputError(f"{where}: parameters must be a mapping")
        filed = _hierarchy_files(doc["schema"])
        if filed:
            raise InputError(
                f"{where}: the hierarchy of column {filed[0]!r} names a file; an anonymizer "
                "carries its hierarchies inline, as label paths (the way save writes them), and "
                "loading it reads no other file"
            )
        try:
            out = cls(doc["schema"], doc["models"] or None, doc["method"], **doc["parameters"])
            unresolved = [
                a.name
                for a in out.schema
                if a.role.published
                and a.hierarchy is not None
                and a.name not in out.schema.hierarchies()
            ]
            if unresolved:
                raise InputError(
                    f"hierarchy of {unresolved[0]!r} is a builder, not the fitted hierarchy"
                )
            fitted = out._recoding.check_fitted(doc["recoding"], out.schema)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        out._fitted_schema, out._fitted = out.schema, fitted
        return out

    def save(self, path: str | os.PathLike[str], overwrite: bool = False) -> Path:
        """Write the fitted anonymizer to a JSON file.

        The file holds the schema with its hierarchies, the models, the method's parameters
        and the fitted recoding (levels, thresholds); no record of the table, no count taken on
        it and no random state.

        Parameters
        ----------
        path : path
            The file to write.
        overwrite : bool, default False
            Replace an existing anonymizer file (never any other file).

        Returns
        -------
        pathlib.Path
            The file written.

        Raises
        ------
        InputError
            Not fitted; a model checked against a population; ``path`` exists (without
            ``overwrite``, or holding something other than an anonymizer file), is a directory
            or lies in a missing directory.
        """
        doc = self.to_dict()
        from ...core.version import __version__

        doc["microanon_version"] = __version__
        path = Path(path)
        if path.is_dir():
            raise InputError(f"{path} is a directory; give a file name such as recoding.json")
        if not path.parent.is_dir():
            raise InputError(f"{path}: the directory {path.parent} does not exist")
        if path.exists():
            if not overwrite:
                raise InputError(f"{path} exists; pass overwrite=True to replace it")
            if not _is_anonymizer_file(path):
                raise InputError(
                    f"{path} exists and is not a microanon anonymizer file; it is not replaced"
                )
        try:
            text = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False, default=_plain)
        except InputError:
            raise
        except ValueError as exc:  # NaN or infinity in a parameter
            raise InputError(f"cannot save the anonymizer: {exc}") from None
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text + "\n")
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Anonymizer:
        """Read an anonymizer written by :meth:`save`, validating it.

        Only this file is read: a hierarchy that names a file is refused (see
        :meth:`from_dict`), and so is a path that is not a regular file of at most
        :data:`~microanon.core.files.MAX_FILE_BYTES` (``/dev/zero``, a FIFO).

        Raises
        ------
        InputError
            An unreadable file, not a regular file, too large, invalid JSON, or content that
            does not validate.
        """
        path = Path(path)
        text = read_text_file(path, "anonymizer file")
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path} is not valid JSON: {exc}") from None
        return cls.from_dict(doc, where=str(path))


def _plain(value: Any) -> Any:
    """JSON form of the NumPy scalars and arrays a parameter may hold; anything else is refused."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise InputError(f"cannot save a parameter of type {type(value).__name__} to JSON")


def _is_anonymizer_file(path: Path) -> bool:
    """Whether ``path`` holds a JSON object written by :meth:`Anonymizer.save`."""
    try:
        doc = json.loads(read_text_file(path, "anonymizer file"))
    except ValueError:  # InputError included
        return False
    return isinstance(doc, dict) and "microanon_anonymizer" in doc


def _hierarchy_files(schema: Any) -> list[str]:
    """The columns of a saved schema whose hierarchy names a file (a path or an ARX builder)."""
    if not isinstance(schema, Mapping):
        return []
    return [
        str(name)
        for name, desc in schema.items()
        if isinstance(desc, Mapping) and _names_a_file(desc.get("hierarchy"))
    ]


def _names_a_file(spec: Any) -> bool:
    if isinstance(spec, (str, os.PathLike)):
        return True
    return isinstance(spec, Mapping) and ("file" in spec or spec.get("builder") == "arx")


def _refuse_new_missing(data: pd.DataFrame, schema: Schema) -> None:
    """Refuse missing quasi-identifier values (``missing: value``) in a table to transform when
    the fitted hierarchy has no leaf ``?`` for them: the table the recoding was fitted on had
    none there.

    Raises
    ------
    InputError
        Naming the column, the count and what to do.
    """
    for attr in schema:
        h = attr.hierarchy
        if attr.role is not Role.QUASI or attr.missing_policy != "value":
            continue
        if not isinstance(h, Hierarchy) or h.contains(MISSING_LABEL):
            continue
        missing = int(data[attr.name].isna().sum())
        if missing:
            raise InputError(
                f"column '{attr.name}': {missing:,} missing value(s) in this table, where the "
                "table the recoding was fitted on had none, so its fitted hierarchy has no leaf "
                f"{MISSING_LABEL} for them; fit on a table with missing values in "
                f"'{attr.name}' (or, outside a scikit-learn pipeline, set missing: drop for it)"
            )
