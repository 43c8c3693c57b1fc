"""YAML pipelines for ``microanon anonymize``: data, schema, method, parameters, models.

The shape is a contract (later features extend it, never change it); paths are relative to the
config file::

    data: adult.csv                 # CSV (delimiter detected) or Parquet; or dataset:arx_adult
    na_values: ["?"]                # optional extra missing-value markers, in every column
    column_na_values: {educatn: ["98", "99"]}   # optional markers of single columns
    read: {sep: ";", encoding: latin-1, decimal: ",", quotechar: "'"}   # optional, CSV only
    schema:
      age:          {role: quasi, kind: numeric, hierarchy: hierarchies/age.csv}
      sex:          {role: quasi, hierarchy: hierarchies/sex.csv}
      occupation:   {role: sensitive}
      salary-class: {role: insensitive}
    method: full_domain             # see ``microanon methods``
    params: {suppression: 0.05, metric: lm}
    models:
      - k_anonymity: {k: 5}
      - l_diversity: {l: 3, form: distinct}
      - t_closeness: {t: 0.2, distance: equal}
      # against a public population (full_domain): a file with the quasi-identifier columns
      # - delta_presence: {delta_min: 0.05, delta_max: 0.5, population: population.csv}
    # or, instead of method/params/models, several methods one after the other (docs/sdc.md):
    # steps:
    #   - {method: global_recode, params: {maps: {age: {breaks: [0, 30, 50, 100]}}}}
    #   - {method: local_suppression, params: {k: 3}}
    output: {format: csv}           # optional: csv | parquet
    lint:                           # optional: schema-lint findings you accept, by column
      accept: {hours_per_week: [near_unique]}

``read:`` says how CSV files are read, the data and the models' population files alike (every
key optional: ``sep`` one character or ``tab``, default detected among ``, ; tab |``;
``encoding`` default ``utf-8``; ``decimal`` default ``.``; ``quotechar`` default ``"``); Parquet
files ignore it. The command line's ``--sep``, ``--encoding``, ``--decimal``, ``--quotechar`` and
``--na-values`` override it. ``na_values`` marks missing values in every column of every format,
``column_na_values`` in the columns it names alone (a survey's codes ``98`` and ``99`` for an
unknown answer in the columns whose codebook says so, while ``98`` hours worked stays a value);
``--column-na-values COLUMN=V1,V2`` replaces its entry for that column.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.errors import InputError
from ..core.files import read_yaml_file
from ..core.hierarchy import Hierarchy
from ..core.missing import as_value
from ..core.reading import CSV_KEYS, ReadOptions
from ..core.release import check_statistical_names
from ..core.schema import Schema
from ..methods import registry
from ..methods.steps import STEPS_METHOD, check_steps, run_steps
from ..models import PrivacyModel, as_models
from .document_keys import check_document
from .io import Labelled, read_labelled, read_table

__all__ = [
    "PipelineConfig",
    "load_config",
    "method_function",
    "with_search",
]

#: ``data:`` values with this prefix name a bundled data set rather than a file.
DATASET_PREFIX = "dataset:"

_KEYS = {
    "data", "na_values", "column_na_values", "read", "schema", "method", "params", "models",
    "steps", "output", "lint",
}  # fmt: skip


def method_function(name: str) -> Callable[..., Any]:
    """The function implementing a configured method (:func:`microanon.methods.registry.get`).

    Raises
    ------
    InputError
        For an unknown method name (listing the known ones).
    """
    return registry.get(name).function


@dataclass
class PipelineConfig:
    """A parsed and validated pipeline configuration."""

    path: Path | None
    schema: Schema
    method: str
    params: dict[str, Any] = field(default_factory=dict)
    models: list[PrivacyModel] = field(default_factory=list)
    data: Path | str | None = None
    read: ReadOptions = field(default_factory=ReadOptions)
    #: ``output: {format: ...}`` as the config gives it (None: not given, CSV in memory).
    output_format: str | None = None
    lint_accept: dict[str, list[str]] = field(default_factory=dict)
    #: ``steps:``: the methods run one after the other (``method`` is then ``steps``).
    steps: list[dict[str, Any]] = field(default_factory=list)

    def read_data(self, override: str | os.PathLike[str] | None = None) -> pd.DataFrame:
        """Read the data file named on the command line, or else in the config.

        ``dataset:NAME`` (e.g. ``dataset:arx_adult``) loads a bundled data set instead of a file.
        """
        return self.read_labelled(override).frame

    def read_labelled(self, override: str | os.PathLike[str] | None = None) -> Labelled:
        """:meth:`read_data`'s table and its file's variable labels
        (:func:`~microanon.apps.io.read_labelled`; none for a bundled data set)."""
        source = override if override is not None else self.data
        if source is None:
            raise InputError("no data: give the data file on the command line or as 'data:'")
        if str(source).startswith(DATASET_PREFIX):
            from ..datasets import load_dataset

            return Labelled(load_dataset(str(source)[len(DATASET_PREFIX) :]), {})
        return read_labelled(source, options=self.read)

    def call_arguments(self) -> dict[str, Any]:
        """Keyword arguments of the method: its parameters, plus ``models`` when it takes them.

        Raises
        ------
        InputError
            A parameter only ``--engine dask`` takes (declared ``dask_only``).
        """
        if self.steps:
            return {}
        registry.get(self.method).check(self.params, engine="memory")
        kwargs = dict(self.params)
        if self.models:
            kwargs["models"] = self.models
        return kwargs

    @property
    def watched(self) -> bool:
        """Whether the method takes a ``watch`` that may stop it (see :meth:`run`)."""
        if self.steps:
            return False
        return "watch" in inspect.signature(method_function(self.method)).parameters

    def run(
        self, data: pd.DataFrame, rng: Any = None, progress: bool = False, watch: Any = None
    ) -> Any:
        """Run the configured method on ``data`` and return its release.

        ``watch``: follows a heuristic search and may stop it (a
        :class:`~microanon.methods.generalize._budget.SearchWatch`), for the methods that take
        one.
        """
        if self.steps:
            return run_steps(data, self.schema, self.steps, rng=rng)
        func = method_function(self.method)
        kwargs = self.call_arguments()
        accepted = inspect.signature(func).parameters
        if "rng" in accepted:
            kwargs["rng"] = rng
        if "progress" in accepted:
            kwargs["progress"] = progress
        if watch is not None and self.watched:
            kwargs["watch"] = watch
        return func(data, self.schema, **kwargs)


def _check_named_columns(
    where: str, method: str, params: Mapping[str, Any], schema: Schema
) -> None:
    """Refuse a parameter naming a column the schema lacks, before any data is read (the
    workbench would otherwise queue a run that fails on it).

    Raises
    ------
    InputError
        Naming the parameter, the columns and a few of the schema's.
    """
    declared = {p.name: p for p in registry.get(method).params}
    for key, value in params.items():
        param = declared.get(key)
        unknown = [c for c in (param.named_columns(value) if param else []) if c not in schema]
        if unknown:
            has = schema.columns
            shown = ", ".join(has[:12]) + (f" and {len(has) - 12} more" if len(has) > 12 else "")
            head = key if where == "params" else f"{where} ({method}): {key}"
            raise InputError(
                f"{head}: column(s) {', '.join(map(repr, unknown))} are not in the schema, "
                f"which has {shown}"
            )


def _check_parameters(method: str, params: Mapping[str, Any], has_models: bool) -> None:
    """Check ``params:`` and ``models:`` against the method's declaration (any engine)."""
    spec = registry.get(method)
    spec.check(params, engine="dask")
    if has_models and spec.models == "none":
        raise InputError(f"models: {method} does not take privacy models; set its params instead")
    if not has_models and spec.models == "required":
        raise InputError(f"models: {method} needs at least one privacy model")


def load_config(
    path: str | os.PathLike[str], read: Mapping[str, Any] | None = None
) -> PipelineConfig:
    """Read and validate a pipeline configuration file.

    ``read``: read options given on the command line (``ReadOptions`` fields), overriding the
    config's ``read:`` block and ``na_values`` (``column_na_values`` column by column).

    Raises
    ------
    InputError
        Unreadable or invalid YAML, unknown keys, an unknown method, parameters the method does
        not take, or invalid models; :class:`SchemaError` for schema problems.
    """
    path = Path(path)
    doc = read_yaml_file(path, "config")
    return parse_config(doc, base_dir=path.parent, path=path, read=read)


def parse_config(
    doc: Any,
    base_dir: str | os.PathLike[str] | None = None,
    path: Path | None = None,
    read: Mapping[str, Any] | None = None,
) -> PipelineConfig:
    """Validate a configuration already loaded as Python data (see :func:`load_config`)."""
    doc = check_document(doc, _KEYS, ("schema",), "config")
    if ("method" in doc) == ("steps" in doc):
        given = "not both" if "method" in doc else "one of them"
        raise InputError(f"config: give either method: (one method) or steps: (several), {given}")
    steps = check_steps(doc["steps"]) if "steps" in doc else []
    if steps and ("params" in doc or doc.get("models")):
        raise InputError("config: with steps:, each step has its own params; models: are not taken")
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    method = STEPS_METHOD if steps else str(doc["method"])
    params = doc.get("params") or {}
    if not isinstance(params, Mapping):
        raise InputError("params: must be a mapping of parameter name to value")
    options = _read_options(doc.get("read"), doc.get("na_values"), doc.get("column_na_values"))
    options = ReadOptions.from_mapping(read or {}, "--", base=options)
    schema = Schema.from_dict(doc["schema"], base_dir=base)
    models = doc.get("models")
    models = as_models(_read_model_files(models, base, options, schema)) if models else []
    if not steps:
        _check_parameters(method, params, bool(models))
    runs = [(f"steps[{i}]", s["method"], s["params"]) for i, s in enumerate(steps, 1)]
    for where, name, given in runs or [("params", method, params)]:
        _check_named_columns(where, name, given, schema)
    output = doc.get("output") or {}
    fmt = output.get("format") if isinstance(output, Mapping) else ""
    if fmt not in (None, "csv", "parquet", "sav", "dta"):
        raise InputError("output: format must be csv, parquet, sav (SPSS) or dta (Stata)")
    lint_accept = _lint_accept(doc.get("lint"))
    data = doc.get("data")
    if data is not None and not str(data).startswith(DATASET_PREFIX):
        data = base / str(data)
    check_statistical_names(schema.published, fmt or "csv")  # (before the method, not after it)
    return PipelineConfig(
        path=path,
        schema=schema,
        method=method,
        params=dict(params),
        models=models,
        data=data,
        read=options,
        output_format=fmt,
        lint_accept=lint_accept,
        steps=steps,
    )


def _read_options(block: Any, na_values: Any, column_na_values: Any = None) -> ReadOptions:
    """The ``read:`` block and the top-level ``na_values`` and ``column_na_values`` as one
    :class:`ReadOptions`.

    Raises
    ------
    InputError
        ``read`` not a mapping, or a key other than :data:`~microanon.core.reading.CSV_KEYS`
        (naming it), or a bad value (naming its key, and the column of ``column_na_values``).
    """
    block = {} if block is None else block
    if not isinstance(block, Mapping):
        raise InputError(f"read: must be a mapping with the keys {', '.join(CSV_KEYS)}")
    unknown = [str(k) for k in block if k not in CSV_KEYS]
    if unknown:
        top = [k for k in ("na_values", "column_na_values") if k in unknown]
        hint = f"; {' and '.join(top)} {'are' if len(top) > 1 else 'is a'} top-level key"
        raise InputError(
            f"read: unknown key(s) {', '.join(unknown)}; known: {', '.join(CSV_KEYS)}"
            + (hint + "s" * (len(top) > 1) if top else "")
        )
    na_values = [] if na_values is None else na_values
    if isinstance(na_values, str):
        na_values = [na_values]
    if not isinstance(na_values, list):
        raise InputError("na_values: give a list of missing-value markers")
    options = ReadOptions.from_mapping({**block, "na_values": [str(v) for v in na_values]})
    # (checked apart: a top-level key, not one of read:, its messages name it so)
    return replace(options, column_na_values=column_na_values or ())


def _read_model_files(models: Any, base: Path, read: ReadOptions, schema: Schema) -> Any:
    """The ``models:`` entries, the files they name read: a ``population:`` (δ-presence, k-map)
    into a DataFrame (CSV or Parquet, read like the data; a quasi-identifier's missing value
    the value ``?`` where the schema makes the data's so, ``missing: value``), a t-closeness
    ``hierarchy:`` (ARX's CSV format, as the schema's hierarchy files) into a Hierarchy; each
    path relative to the config file. Anything else is left for the model to validate.
    """
    entries = [models] if isinstance(models, Mapping) else models
    if not isinstance(entries, list):
        return models
    out = []
    for entry in entries:
        if isinstance(entry, Mapping):
            entry = {
                name: _read_files(params, base, read, schema) for name, params in entry.items()
            }
        out.append(entry)
    return out


def _read_files(params: Any, base: Path, read: ReadOptions, schema: Schema) -> Any:
    """One model's parameters, the ``population`` and ``hierarchy`` files they name read."""
    if not isinstance(params, Mapping):
        return params
    params = dict(params)
    if isinstance(params.get("population"), str):
        population = read_table(base / params["population"], options=read, some_columns=True)
        marked = [q for q in schema.quasi if schema[q].missing_policy == "value"]
        params["population"] = as_value(population, marked)
    if isinstance(params.get("hierarchy"), str):
        path = base / params["hierarchy"]
        if not path.is_file():
            raise InputError(f"models: hierarchy file {path} does not exist")
        params["hierarchy"] = Hierarchy.from_arx_csv(path)
    return params


def _lint_accept(doc: Any) -> dict[str, list[str]]:
    """The ``lint: {accept: {column: [kind, ...]}}`` block (kinds checked by the lint)."""
    if doc is None:
        return {}
    if not isinstance(doc, Mapping) or set(doc) - {"accept"}:
        raise InputError("lint: must be a mapping with the key 'accept'")
    accept = doc.get("accept") or {}
    if not isinstance(accept, Mapping):
        raise InputError("lint: accept must map column names to lists of finding kinds")
    out = {}
    for column, kinds in accept.items():
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
            raise InputError(f"lint: accept: {column}: give a list of finding kinds")
        out[str(column)] = list(kinds)
    return out


#: ``full_domain``'s parameters that bound a heuristic search.
LIMITS = ("time_limit", "step_limit")


def with_search(cfg: PipelineConfig, search: Mapping[str, Any]) -> PipelineConfig:
    """``cfg`` with ``full_domain``'s search parameters replaced (the command line's
    ``--search``, ``--time-limit``, ``--step-limit``).

    Raises
    ------
    InputError
        Search parameters for another method, or bad values (as ``full_domain`` says).
    """
    if not search:
        return cfg
    if cfg.method != "full_domain":
        raise InputError(
            f"{', '.join('--' + k.replace('_', '-') for k in search)}: only full_domain searches "
            f"a lattice; the config's method is {cfg.method}"
        )
    from ..methods.generalize.searches import check_search

    params = {**cfg.params, **search}
    if search.get("search") == "exact":  # the config's budget was for a heuristic
        params = {k: v for k, v in params.items() if k in search or k not in LIMITS}
    check_search(
        params.get("search", "auto"),
        params.get("time_limit"),
        params.get("step_limit"),
        bool(params.get("all_minimal", False)),
    )
    return replace(cfg, params=params)
