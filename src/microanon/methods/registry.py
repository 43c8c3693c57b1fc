"""The registry of methods: each method declares itself once, beside its code.

A method of a pipeline configuration (``method:`` in YAML, the workbench's method list,
``microanon methods``) is a function decorated with :func:`method`, which records its name,
what it does in words, its parameters with their constraints
(:class:`~microanon.core.constraints.Param`), its release kind, whether it draws randomness,
and whether and how it runs out of core. Everything else is derived from that declaration:

- the configuration's validation (:meth:`Method.check`; the decorated function checks its own
  keyword arguments the same way when called from Python),
- the command line's ``microanon methods [--json]`` and the method table of the docs,
- the workbench's forms,
- the Dask engine's dispatch (:attr:`Method.out_of_core`) and its refusals
  (:attr:`Method.in_memory_because`),
- the generated bad-parameter tests.

:func:`methods` finds the declarations by importing the public modules of
:mod:`microanon.methods` once: adding a method is adding its module (and its test).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from ..core.constraints import REQUIRED, Param
from ..core.errors import InputError
from ..core.frames import pandas_if_arrow
from ..core.release import Release
from ..core.row_counts import ROW_COUNTS_KEY, row_counts
from ..core.schema import Schema

__all__ = [
    "ENGINE_ARGUMENTS",
    "FAMILY_ORDER",
    "RUN_ARGUMENTS",
    "Method",
    "OutOfCore",
    "get",
    "method",
    "methods",
    "range_refusal",
    "twin",
    "twin_parameters",
]

#: Keyword arguments the pipeline gives a method itself, never parameters of a configuration.
RUN_ARGUMENTS = ("models", "rng", "progress", "watch")

#: Keyword arguments an out-of-core twin takes from the engine, never from a configuration.
ENGINE_ARGUMENTS = (
    *RUN_ARGUMENTS,
    "client",
    "scheduler",
    "read_options",
    "out_dir",
    "overwrite",
    "spill",
    "reports",
    "audit",
    "person_ids",
)

#: The order families are listed in (the demo's).
FAMILY_ORDER = ("generalize", "randomize", "distribution", "multisa", "sdc", "collect")

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class OutOfCore:
    """How a method runs out of core (``--engine dask``).

    Attributes
    ----------
    function : str
        The function of :mod:`microanon.scale` that runs it.
    rowwise : bool
        Whether it runs partition by partition, each record changed on its own.
    variants : str
        Which of its variants run out of core, in words (empty: all).
    needs : tuple of str
        Parameters it needs out of core only (e.g. microaggregation's ``by``).
    """

    function: str
    rowwise: bool = True
    variants: str = ""
    needs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Method:
    """One registered method.

    Attributes
    ----------
    name : str
        Its name in configurations (``method: full_domain``).
    family : str
        The folder of :mod:`microanon.methods` it lives in.
    kind : str
        The :attr:`~microanon.Release.kind` of its releases.
    help : str
        What it does, in words for a data owner.
    publishes : str
        What its release holds, and the guarantees it claims.
    params : tuple of Param
        Its configurable parameters, in the signature's order, defaults from the signature.
    function : callable
        The function (checking its keyword arguments against ``params``).
    randomized : {"always", "partly", "never"}
        Whether its releases differ from run to run (``partly``: in some settings only).
    models : {"required", "optional", "none"}
        Whether it takes privacy models.
    out_of_core : OutOfCore or None
        How it runs with ``--engine dask``; None when it needs the whole table.
    in_memory_because : str
        Why it needs the whole table in memory (empty when it runs out of core; for a method
        whose variant runs out of core, why the method as a whole does not).
    step : {"any", "first", "last", ""}
        Where it may stand in a release of several steps (:mod:`microanon.methods.steps`):
        anywhere, first only, last only, or not at all (empty).
    ranges : bool
        Whether it publishes numeric quasi-identifiers as ranges of numbers: such a column
        cannot hold the value ``?`` (``missing: value``) there.
    treats_columns : bool
        Whether it changes only the columns it is given and publishes the others as they are,
        as a masking method does, with no model that would cover them (PRAM, whose releases
        are of kind ``randomized``): a quasi-identifier it leaves unchanged is named in the
        run's warnings, as for every release of kind ``masked``.
    """

    name: str
    family: str
    kind: str
    help: str
    publishes: str
    params: tuple[Param, ...]
    function: Callable[..., Any]
    randomized: str
    models: str
    out_of_core: OutOfCore | None
    in_memory_because: str
    step: str = ""
    ranges: bool = False
    treats_columns: bool = False

    def param(self, name: str) -> Param:
        """The declared parameter ``name`` (KeyError when it has none)."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def taken(self, engine: str = "memory") -> list[str]:
        """The parameters a configuration may give on ``engine`` (``memory`` or ``dask``)."""
        return [p.name for p in self.params if engine == "dask" or not p.dask_only]

    def check(self, params: Mapping[str, Any], engine: str = "memory") -> None:
        """Check a configuration's parameters: known names, the required ones given, allowed
        values.

        Parameters
        ----------
        params : mapping
            Parameter name -> value, as in ``params:``.
        engine : {"memory", "dask"}
            The engine that runs the method (some parameters are taken out of core only).

        Raises
        ------
        InputError
            One line naming the method, the parameter and, for a bad value, what it must be.
        """
        unknown = [n for n in params if n not in self.taken("dask")]
        if unknown:
            taken = self.taken(engine)
            raise InputError(
                f"params: {self.name} does not take {', '.join(map(repr, unknown))}; it takes "
                + (", ".join(taken) or "no parameters")
            )
        dask_only = [n for n in params if self.param(n).dask_only and engine != "dask"]
        if dask_only:
            raise InputError(
                f"params: {', '.join(dask_only)} of {self.name} runs only with --engine dask "
                "(within blocks, out of core); remove it to run on the whole table in memory"
            )
        for name, value in params.items():
            self.param(name).check(f"params: {self.name}", value)
        absent = [p for p in self.params if p.required and not p.dask_only and p.name not in params]
        if absent:
            raise InputError(
                f"params: {self.name} needs "
                + "; ".join(f"{p.name} ({p.describe()}): {p.help.rstrip('.')}" for p in absent)
            )

    def public(self) -> dict[str, Any]:
        """The declaration as plain JSON (``microanon methods --json``, the workbench)."""
        return {
            "name": self.name,
            "label": self.name.replace("_", " ").capitalize(),
            "family": self.family,
            "kind": self.kind,
            "help": self.help,
            "publishes": self.publishes,
            "params": [p.public() for p in self.params if not p.dask_only],
            "models": self.models != "none",
            "models_required": self.models == "required",
            "randomized": self.randomized == "always",
            "randomness": self.randomized,
            "engines": ["memory", "dask"] if self.out_of_core else ["memory"],
            "out_of_core": None
            if self.out_of_core is None
            else {
                "function": f"microanon.scale.{self.out_of_core.function}",
                "rowwise": self.out_of_core.rowwise,
                "variants": self.out_of_core.variants,
                "needs": list(self.out_of_core.needs),
            },
            "in_memory_because": self.in_memory_because,
            "step": self.step or None,
        }


def _declared(func: Callable[..., Any], name: str, params: tuple[Param, ...]) -> tuple[Param, ...]:
    """``params`` with the signature's defaults, checked against the signature."""
    signature = inspect.signature(func)
    keyword = {
        n: p
        for n, p in signature.parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and n not in RUN_ARGUMENTS
    }
    declared = {p.name for p in params}
    missing = [n for n in keyword if n not in declared]
    extra = [p.name for p in params if p.name not in keyword and not p.dask_only]
    if missing or extra:
        raise TypeError(
            f"method {name}: declared parameters differ from the signature "
            f"(undeclared: {missing}, not in the signature: {extra})"
        )
    out = []
    for p in params:
        if p.dask_only:
            out.append(p)
            continue
        default = keyword[p.name].default
        p = replace(p, default=REQUIRED if default is inspect.Parameter.empty else default)
        if not p.required and p.default is not None and not p.holds(p.default):
            raise TypeError(f"method {name}: the default of {p.name} breaks its constraints")
        out.append(p)
    order = list(keyword)
    return tuple(sorted(out, key=lambda p: order.index(p.name) if p.name in order else len(order)))


def range_refusal(columns: Sequence[str], method: str, kind: str = "ordinal") -> str:
    """Why ``method``, which publishes numeric quasi-identifiers as ranges (declared with
    ``ranges``), refuses the numeric quasi-identifiers ``columns`` with missing values kept as
    the value ``?``, and the ways on: as an ordinal column with a hierarchy it is generalized to
    the hierarchy's groups, ``?`` a value of its own, every row kept (the American Community
    Survey's time to work, missing for 1,217 of 2,000: ``missing: drop`` left 783). Every such
    column is named at once: the NHEFS follow-up has thirteen. ``kind`` is the kind named for
    that way: the workbench, whose kinds are categorical and numeric, names ``categorical``,
    which these methods generalize to a hierarchy's groups as they do an ordinal column."""
    if len(columns) == 1:
        named, it, have, each = f"quasi-identifier '{columns[0]}'", "it", "has", "it"
    else:
        listed = ", ".join(f"'{c}'" for c in columns)
        named, it, have, each = f"quasi-identifiers {listed}", "them", "have", "each"
    return (
        f"{named} {have} missing values (the value ?), which {method} cannot place in a range "
        f"of numbers: give {it} kind: {kind} with a hierarchy ({method} then publishes the "
        "hierarchy's groups, ? a value of its own, and keeps every row), set missing: drop for "
        f"{each} (the rows are left out and counted), or use full_domain with a hierarchy"
    )


def method(
    name: str,
    *,
    kind: str,
    publishes: str,
    help: str,
    params: tuple[Param, ...] = (),
    out_of_core: OutOfCore | None = None,
    in_memory_because: str = "",
    randomized: str | None = None,
    step: str = "",
    ranges: bool = False,
    treats_columns: bool = False,
) -> Callable[[F], F]:
    """Register the decorated function as the method ``name`` (see :class:`Method`).

    The function keeps its signature; when called, it first checks the declared keyword
    arguments it is given (:meth:`Method.check`'s rule for each value).

    Parameters
    ----------
    name : str
        The method's name in configurations.
    kind : str
        The kind of its releases.
    publishes : str
        What its release holds, and the guarantees it claims.
    help : str
        What it does, in words for a data owner.
    params : tuple of Param
        Every keyword-only parameter of the function except :data:`RUN_ARGUMENTS`, plus the
        parameters it takes out of core only (``dask_only``).
    out_of_core : OutOfCore, optional
        How it runs out of core.
    in_memory_because : str
        Why it needs the whole table (required when ``out_of_core`` is None; with it, why the
        method as a whole does while ``out_of_core`` runs a variant).
    randomized : {"always", "partly", "never"}, optional
        Default: ``always`` when it takes ``rng``, else ``never``.
    step : {"any", "first", "last", ""}
        Where it may stand among several steps (empty: it cannot be a step).
    ranges : bool
        Whether it publishes numeric quasi-identifiers as ranges of numbers.
    treats_columns : bool
        Whether it changes only the columns it is given, with no model covering the others
        (see :class:`Method`).

    Raises
    ------
    TypeError
        When the declaration does not match the function (at import time).
    """
    if step not in ("any", "first", "last", ""):
        raise TypeError(f"method {name}: step must be any, first, last or empty, got {step!r}")
    if out_of_core is None and not in_memory_because:
        raise TypeError(f"method {name}: say how it runs out of core or why it cannot")

    def register(func: F) -> F:
        declared = _declared(func, name, params)
        signature = inspect.signature(func).parameters
        takes = signature.get("models")
        by_name = {p.name: p for p in declared}

        @functools.wraps(func)
        def checked(*args: Any, **kwargs: Any) -> Any:
            for key, value in kwargs.items():
                if key in by_name:
                    by_name[key].check(name, value)
            data = args[0] if args else kwargs.get("data")
            schema = args[1] if len(args) > 1 else kwargs.get("schema")
            return counted(func(*args, **kwargs), data, schema)

        checked.method = Method(  # type: ignore[attr-defined]
            name=name,
            family=func.__module__.split(".")[2],
            kind=kind,
            help=help,
            publishes=publishes,
            params=declared,
            function=checked,
            randomized=randomized or ("always" if "rng" in signature else "never"),
            models="none"
            if takes is None
            else ("required" if takes.default is inspect.Parameter.empty else "optional"),
            out_of_core=out_of_core,
            in_memory_because=in_memory_because,
            step=step,
            ranges=ranges,
            treats_columns=treats_columns,
        )
        return checked  # type: ignore[return-value]

    return register


def counted(release: Any, data: Any = None, schema: Any = None) -> Any:
    """``release`` with the :class:`~microanon.core.row_counts.RowCounts` of its run in its
    internal metadata (``row_counts``, unless it holds them already), counted from the table
    and schema the method was given: how many rows the table had, how many a ``missing: drop``
    column left out (by column), entered the method, were suppressed and were published. So a
    method called from Python states them as the command line does.

    Parameters
    ----------
    release : Release
        What the method returned (anything else is returned as it is).
    data : DataFrame or Arrow-compatible table
    schema : Schema or mapping
    """
    if not isinstance(release, Release) or ROW_COUNTS_KEY in release.metadata or data is None:
        return release
    frame = pandas_if_arrow(data, "data")
    if not isinstance(schema, Schema):
        schema = Schema.from_dict(schema)
    release.metadata[ROW_COUNTS_KEY] = row_counts(frame, schema, release).to_dict()
    return release


@functools.cache
def methods() -> dict[str, Method]:
    """Every registered method by name, families in :data:`FAMILY_ORDER`.

    Imports the public modules of every family's folder of :mod:`microanon.methods` once (the
    first call).
    """
    base = __name__.rsplit(".", 1)[0]
    found: list[Method] = []
    for family in FAMILY_ORDER:
        folder = str(Path(__file__).with_name(family))
        for info in pkgutil.walk_packages([folder], f"{base}.{family}."):
            if any(part.startswith("_") for part in info.name.split(".")):
                continue
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                spec = getattr(value, "method", None)
                if isinstance(spec, Method) and spec.function is value and spec not in found:
                    found.append(spec)
    found.sort(key=lambda m: FAMILY_ORDER.index(m.family))
    names = [m.name for m in found]
    twice = {n for n in names if names.count(n) > 1}
    if twice:
        raise TypeError(f"methods registered twice: {sorted(twice)}")
    return {m.name: m for m in found}


def get(name: str) -> Method:
    """The registered method ``name``.

    Raises
    ------
    InputError
        For an unknown name, listing the known ones.
    """
    known = methods()
    if name not in known:
        raise InputError(f"method: unknown method {name!r}; choose one of {', '.join(known)}")
    return known[name]


def twin_parameters(func: Callable[..., Any]) -> list[str]:
    """The configuration parameters an out-of-core twin takes (its keywords but the engine's)."""
    return [
        n
        for n, p in inspect.signature(func).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and n not in ENGINE_ARGUMENTS
    ]


def twin(name: str) -> Callable[[F], F]:
    """Mark the decorated function as method ``name``'s out-of-core twin (``OutOfCore``).

    The twin takes a subset of the method's declared parameters (and the engine's arguments,
    :data:`ENGINE_ARGUMENTS`), checked at import; called, it checks their values against the
    method's declaration, so that both engines accept and refuse the same values in the same
    words.

    Raises
    ------
    TypeError
        When the twin takes a parameter the method does not declare (at import time).
    """

    def register(func: F) -> F:
        spec = get(name)
        taken = twin_parameters(func)
        undeclared = [n for n in taken if n not in spec.taken("dask")]
        if undeclared:
            raise TypeError(
                f"{func.__name__} takes parameters {name} does not declare: {undeclared}"
            )

        @functools.wraps(func)
        def checked(*args: Any, **kwargs: Any) -> Any:
            for key, value in kwargs.items():
                if key in taken:
                    spec.param(key).check(name, value)
            return func(*args, **kwargs)

        return checked  # type: ignore[return-value]

    return register
