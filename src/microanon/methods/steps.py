"""Several methods in one release: each step runs on the previous step's output.

Statistical disclosure control is rarely one method. The workflow that the SDC literature
describes, and that sdcMicro keeps in one ``sdcMicroObj`` (Templ, Kowarik & Meindl, *Statistical
Disclosure Control for Micro-Data Using the R Package sdcMicro*, JSS 67(4), 2015), recodes the
key variables, measures the risk, suppresses what is still unique, randomizes a categorical
variable, microaggregates the continuous ones, and measures again after every step.

:func:`run_steps` runs such a sequence and :class:`Steps` builds it one step at a time (with
undo). Which methods may be steps, and where, each method declares beside its code
(:attr:`~microanon.methods.registry.Method.step`: the single-table masking and randomization
methods; ``sample`` first only, ``randomized_response`` last only).

How the steps compose:

- **Rows are traced.** A tracer column (never published) follows every record through the
  steps, so that a method that shuffles (PRAM) or drops (sampling) rows still compares with the
  original record by record.
- **A step changes only its columns.** Every column a step did not change is taken from the
  step's input, so that a cell an earlier step suppressed stays missing rather than becoming
  the ``?`` a later method reads missing values as. A step that changes a cell an earlier step
  suppressed (PRAM on a suppressed key, say) is refused, naming both steps: sdcMicro's PRAM
  leaves missing cells alone, ours would randomize them into real categories.
- **The schema follows the data.** A column a step made text (intervals, labels) becomes
  ordinal (intervals, in their order) or categorical; a column recoded to inner nodes of its
  hierarchy keeps the hierarchy above them (a builder's hierarchy as the step built it on its
  input: a later step reads the recoded labels as its leaves), any other loses its hierarchy.
- **Claims hold at the end or the run is refused.** After every step each model a step claimed
  so far is re-checked on the current table (:func:`~microanon.models.check_release`); a step
  that breaks one (PRAM on a key after k-anonymizing local suppression) is refused, naming the
  step and the claim. The written release is verified from disk as any other.
- **Risk and loss after every step**, as sdcMicro's ``calcRisks``: sample uniques, the
  smallest key frequency and the records in keys of fewer than 2, 3 and 5 (a missing key value
  matching any, as sdcMicro counts; strict suppression's ``"*"`` a value of its own), with a
  weight the individual risk, the expected re-identifications and the global risk; the share
  of cells changed against the original, per column and in all, and IL1s of the numeric
  columns changed.
- **Randomness**: one root drawn from the pipeline's generator; step ``i`` draws from stream
  ``i`` of it (NumPy's ``SeedSequence`` spawning), so a step's draws do not depend on the steps
  after it. Nothing of it is written.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError, VerificationError
from ..core.factorize import factorize, factorize_keys, first_rows, packed_key
from ..core.hierarchy import Hierarchy, parse_interval, value_key
from ..core.random import RandomLike, make_rng, state_fingerprints
from ..core.range_bounds import range_labels
from ..core.release import Release
from ..core.schema import TRACER, Attribute, Kind, Role, Schema
from ..measures.perturbative import il1s
from ..measures.survey_design import schema_design, weighted_records
from ..measures.survey_risk import individual_risk, key_frequencies
from ..models import as_models, check_release
from . import registry
from .sdc.common import masked_release

__all__ = [
    "STEPS_METHOD",
    "StepResult",
    "Steps",
    "TRACER",
    "check_steps",
    "run_steps",
    "step_fingerprints",
    "step_risk",
    "step_rng",
]

#: The ``method`` a release of several steps records.
STEPS_METHOD = "steps"


#: The value methods read a missing cell of a quasi-identifier as.
_MISSING_LABEL = "?"


def step_rng(root: np.random.SeedSequence, index: int) -> np.random.Generator:
    """The generator of step ``index``: stream ``index`` spawned from ``root``.

    The same as ``numpy.random.default_rng(root.spawn(n)[index])`` for any ``n > index``, so a
    step's draws do not depend on how many steps follow it.
    """
    return np.random.default_rng(
        np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, index))
    )


def _root(rng: RandomLike) -> np.random.SeedSequence:
    gen = make_rng(rng)
    return np.random.SeedSequence([int(v) for v in gen.integers(0, 2**63, size=4)])


def step_fingerprints(rng: np.random.Generator, count: int) -> tuple[str, ...]:
    """The fingerprints (:func:`~microanon.core.random.state_fingerprints`) of the generators
    the first ``count`` steps would draw from, given the pipeline's generator before it draws;
    ``rng`` itself is not advanced. A release's public part must hold none of them."""
    root = _root(copy.deepcopy(rng))
    return tuple(f for i in range(1, count + 1) for f in state_fingerprints(step_rng(root, i)))


@dataclass
class StepResult:
    """One step run: what it was, what it changed, and the table, risk and loss after it.

    Attributes
    ----------
    index : int
        1 for the first step (0 is the original).
    method : str
    params : dict
        Its parameters as given.
    changed : list of str
        The columns it changed.
    data : pandas.DataFrame
        The table after the step, with the tracer column.
    schema : Schema
        The schema after the step (with the tracer).
    release : Release or None
        The step's own release (its metadata); None for the original.
    risk, loss : dict
        See :func:`step_risk` and :func:`step_loss`.
    seconds : float
        The method's time.
    claims : list of dict
        Every model claimed so far, with the step that claimed it.
    marked : dict of str to numpy.ndarray
        Per column, the tracers of the cells missing in the step's input that its method
        published as the value ``?`` (``missing: value``): missing in ``data``, for the next
        step to read as missing too, and ``?`` in the release when this step is the last.
    """

    index: int
    method: str
    params: dict[str, Any]
    changed: list[str]
    data: pd.DataFrame
    schema: Schema
    release: Release | None
    risk: dict[str, Any]
    loss: dict[str, Any]
    seconds: float = 0.0
    claims: list[dict[str, Any]] = field(default_factory=list)
    marked: dict[str, np.ndarray] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """The plain-JSON record of the step (internal report, ``--json``)."""
        return {
            "step": self.index,
            "method": self.method,
            "changed": list(self.changed),
            "risk": self.risk,
            "loss": self.loss,
            "seconds": round(self.seconds, 3),
        }


# ---------------------------------------------------------------------- risk and loss
def step_risk(data: pd.DataFrame, schema: Schema) -> dict[str, Any]:
    """The re-identification risk of a table on its schema's quasi-identifiers.

    As sdcMicro's ``calcRisks`` counts the table: a missing key value matches any value (one
    missing in the data, or a cell wildcard suppression blanked); the ``"*"`` that strict
    suppression (``wildcard=False``) publishes is a value of its own, as its k-anonymity claim
    counts it. Keys: ``sample_uniques`` (records whose key combination no other record
    shares), ``min_fk``, ``below_2``, ``below_3``, ``below_5`` (records in keys of fewer
    than 2, 3, 5), over every record; with a weight the survey measures can use, by the rule
    every report of a release follows (:mod:`~microanon.measures.survey_design`: a weight with a
    zero, negative or below-1 value is not used, the records without one are left out and
    counted in ``without_weight``), also ``global_risk``, ``expected_reidentifications`` and
    ``highest_risk`` (sdcMicro's individual risk) of the records with one.
    """
    quasi = [q for q in schema.quasi if q in data.columns]
    if not quasi or len(data) == 0:
        return {"sample_uniques": 0, "min_fk": None}
    weight, _, _ = schema_design(schema, data)  # (the report's note says why one is left out)
    frame = pd.DataFrame({q: _key_codes(data[q]) for q in quasi}, index=data.index)
    risk = use = None
    if weight:
        frame[weight] = data[weight]
        use = weighted_records(frame, weight)
        measured = frame if use.kept.all() else frame.loc[use.kept]
        risk = individual_risk(measured, quasi, weight, missing="match")
    if risk is not None and use is not None and use.kept.all():
        frequencies = risk.frequencies
    else:  # (the frequencies of every record)
        frequencies = key_frequencies(frame, quasi, missing="match")
    fk = frequencies.sample.to_numpy()
    out: dict[str, Any] = {
        "sample_uniques": int((fk == 1).sum()),
        "min_fk": int(fk.min()),
        **{f"below_{k}": int((fk < k).sum()) for k in (2, 3, 5)},
    }
    if risk is not None and use is not None:
        out |= {
            "global_risk": float(risk.global_risk),
            "expected_reidentifications": float(risk.expected_reidentifications),
            "highest_risk": float(risk.record_risk.max()),
            "without_weight": use.left_out,
        }
    return out


def _key_codes(column: pd.Series) -> np.ndarray:
    """A key column as :func:`step_risk` counts it: a number per distinct value (the run's
    codes of the column), NaN where the value is missing or the ``?`` of a suppression."""
    codes, uniques = factorize(column)
    out = codes.astype(np.float64)
    out[codes < 0] = np.nan
    marker = [i for i, v in enumerate(uniques) if isinstance(v, str) and v == _MISSING_LABEL]
    if marker:
        out[codes == marker[0]] = np.nan
    return out


def step_loss(
    original: pd.DataFrame, current: pd.DataFrame, columns: Sequence[str], numeric: Sequence[str]
) -> dict[str, Any]:
    """What the steps so far changed against the original, record by record (by the tracer).

    ``cells_changed``: the share of the cells of ``columns`` that differ (a suppressed cell
    counts); ``by_column``: the same per column; ``il1s``: IL1s of the ``numeric`` columns
    changed that are still numbers, over the records none of whose cells there was suppressed
    (None without any: a recode to intervals or a suppression is counted in ``cells_changed``
    only).
    """
    if current is original:  # (the original against itself: nothing changed)
        return {"cells_changed": 0.0, "by_column": dict.fromkeys(columns, 0.0), "il1s": None}
    tracers = current[TRACER].to_numpy()
    if np.array_equal(tracers, original[TRACER].to_numpy()):  # the same records, in order
        before = original.set_index(TRACER)
    else:
        before = original.set_index(TRACER).loc[tracers]
    after = current.set_index(TRACER)
    by_column: dict[str, float] = {}
    differ = 0
    for c in columns:
        same = _same(before[c], after[c])
        by_column[c] = float(1 - same.mean()) if len(same) else 0.0
        differ += int((~same).sum())
    cells = len(after) * len(columns)
    changed_numeric = [
        c for c in numeric if by_column.get(c, 0) > 0 and pd.api.types.is_numeric_dtype(after[c])
    ]
    # IL1s on the records whose changed numbers are all still numbers (a suppressed cell is
    # counted in cells_changed only)
    known = (before[changed_numeric].notna() & after[changed_numeric].notna()).all(axis=1)
    numbers = changed_numeric and bool(known.any())
    return {
        "cells_changed": differ / cells if cells else 0.0,
        "by_column": by_column,
        "il1s": (
            il1s(
                before.loc[known, changed_numeric].astype(np.float64),
                after.loc[known, changed_numeric].astype(np.float64),
            )
            if numbers
            else None
        ),
    }


# ---------------------------------------------------------------------- schema after a step
def _after(attr: Attribute, used: Attribute, values: pd.Series) -> Attribute:
    """``attr`` as the values a step left in its column describe it.

    ``used`` is the column's attribute as the step ran with it, its builder hierarchy built on
    the step's input. Values that are inner nodes of that hierarchy (a recode to a level) keep
    the hierarchy above them; a column still of its leaves (or numbers) keeps ``attr`` as it
    is, a builder to be built again on a later step's input. A numeric or ordinal column made
    intervals is ordinal, in their order.
    """
    present = values[values.notna() & (values != _MISSING_LABEL)]
    built = used.hierarchy if isinstance(used.hierarchy, Hierarchy) else None
    if attr.kind is Kind.NUMERIC and (pd.api.types.is_numeric_dtype(present) or present.empty):
        return attr
    labels = list(pd.unique(present))
    if attr.kind is Kind.NUMERIC or not set(labels) <= set(attr.declared_values or labels):
        order = _interval_order(labels) if attr.kind is not Kind.CATEGORICAL else None
        kind = Kind.CATEGORICAL if order is None else Kind.ORDINAL
        attr = replace(attr, kind=kind, hierarchy=None, order=order, categories=None)
    elif built is None or all(built.contains(v) for v in labels):
        return attr
    return replace(attr, hierarchy=_truncated(built, set(labels)) if built is not None else None)


def _interval_order(labels: Sequence[Any]) -> tuple[Any, ...] | None:
    """``labels`` in the order of the intervals they denote, or None when some denotes none."""
    intervals = [parse_interval(v) for v in labels]
    if not all(i is not None for i in intervals):
        return None
    return tuple(v for _, v in sorted(zip(intervals, labels, strict=True)))


def _kept(attr: Attribute, values: pd.Series) -> Attribute:
    """``attr`` with a policy that keeps the records whose cells a step blanked (a suppression):
    a later step would otherwise leave them out (``missing: drop``) or refuse them (``error``),
    where the step only hid one value. A quasi-identifier's blank cell is then its value ``?``
    to the later methods, any other column's an unknown value; the release publishes it blank."""
    if attr.missing_policy not in ("drop", "error") or not values.isna().any():
        return attr
    return replace(attr, missing="value" if attr.role is Role.QUASI else "keep")


def _truncated(h: Hierarchy, labels: set[Any]) -> Hierarchy | None:
    """``h`` cut at the nodes ``labels`` (a recode to a level), or None when they are not its
    nodes of one level at one depth.

    The level is the lowest whose labels hold them all: a label a chain of nodes carries (a
    quantile interval that is one at two levels) is its deepest node, as a measure reading the
    published label finds it. The paths keep the hierarchy's order (intervals ascending).
    """
    wanted = {value_key(v) for v in labels}
    level = next(
        (
            lv
            for lv in range(1, h.height + 1)
            if wanted <= {value_key(v) for v in h.level_labels(lv)}
        ),
        None,
    )
    if level is None:
        return None
    paths: dict[tuple[Any, ...], None] = {}
    for path in h.paths():
        cut = path[: min(len(path) - 1, h.height - level) + 1]
        if value_key(cut[-1]) in wanted:
            paths[tuple(cut)] = None
    if len({len(p) for p in paths}) != 1:
        return None
    return Hierarchy.from_paths(list(paths), name=h.name)


def _built(schema: Schema) -> Schema:
    """``schema`` without the hierarchies still to be built from data (each step builds them
    from its own input; the release records the hierarchies that exist)."""
    return Schema(
        [replace(a, hierarchy=None) if isinstance(a.hierarchy, Mapping) else a for a in schema]
    )


# ---------------------------------------------------------------------- one step
def _check_position(index: int, count: int, method: str) -> registry.Method:
    spec = registry.get(method)
    allowed = [m.name for m in registry.methods().values() if m.step]
    if not spec.step:
        raise InputError(
            f"steps[{index}]: {method} cannot be a step; a step is one of {', '.join(allowed)} "
            "(methods whose release is one table of the original's columns)"
        )
    if spec.step == "first" and index != 1:
        raise InputError(f"steps[{index}]: {method} may only be the first step")
    if spec.step == "last" and index != count:
        raise InputError(
            f"steps[{index}]: {method} may only be the last step (its risk bound holds for the "
            "table it randomizes, which a later step would change)"
        )
    return spec


def _changes(before: pd.DataFrame, after: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    """The columns whose values differ between two aligned tables (missing equal missing)."""
    return [c for c in columns if not _same(before[c], after[c]).all()]


def _same(before: pd.Series, after: pd.Series) -> np.ndarray:
    """Per aligned cell, whether the value is the same: missing equals missing, and a number
    equals its text (``1``, ``1.0`` and ``"1"``: a method that encodes categories may give
    its codes back as text).

    Decided once per distinct pair of values (a recode changes every cell): each column coded
    by value (:func:`~microanon.core.factorize.factorize`, which a run shares) and, where it
    holds Python objects, by type too (pandas' hashing holds ``True`` equal to ``1``), the
    pairs of codes numbered in one hash pass.
    """
    a, a_values = _typed_codes(before)
    b, b_values = _typed_codes(after)
    key, _ = packed_key([a, b], [len(a_values) + 1, len(b_values) + 1], offset=1)
    pairs, distinct = factorize_keys(key)
    first = first_rows(pairs, len(distinct))
    verdict = np.fromiter(
        (_same_values(a_values, i, b_values, j) for i, j in zip(a[first], b[first], strict=True)),
        dtype=bool,
        count=len(first),
    )
    return verdict[pairs]


def _typed_codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A code per cell (-1: missing), values of one type and value sharing one, and the
    value of each code as a Python object (as ``Series.to_numpy(dtype=object)`` gives it)."""
    codes, uniques = factorize(values)
    if values.dtype != object or all(isinstance(v, str) for v in uniques):
        # one type (numbers, truth values, text, times), or only text: a text equals no value
        # of another type, so no code stands for values of two types
        return codes, np.asarray(uniques, dtype=object)
    cells = values.to_numpy()
    present = np.flatnonzero(codes >= 0)
    kinds, _ = pd.factorize(np.frompyfunc(type, 1, 1)(cells[present]))
    key, _ = packed_key([codes[present], kinds], [len(uniques), int(kinds.max(initial=0)) + 1])
    typed, distinct = factorize_keys(key)
    out = np.full(len(cells), -1, dtype=np.intp)
    out[present] = typed
    return out, cells[present[first_rows(typed, len(distinct))]]


def _same_values(x_values: np.ndarray, i: int, y_values: np.ndarray, j: int) -> bool:
    """Whether code ``i`` of one column and code ``j`` of the other (-1: missing) hold the
    same value: both missing, equal, or equal in form (:func:`_equal`)."""
    if i < 0 or j < 0:
        return i < 0 and j < 0  # (a missing value is no value's form)
    x, y = x_values[i], y_values[j]
    return bool(x == y) or _equal(x, y)


def _equal(x: Any, y: Any) -> bool:
    """Whether two values differ only in form: equal in plain form, or a number and its text as
    a table writes it (``"6.0"``)."""
    return bool(_plain(x) == _plain(y)) or _as_number(x, y)


def _as_number(x: Any, y: Any) -> bool:
    """Whether one of ``x`` and ``y`` is a number and the other the text of the same number."""
    if isinstance(x, str):
        x, y = y, x
    if not isinstance(y, str) or _plain(x) is x:  # (not a number and a text)
        return False
    try:
        return _plain(float(y)) == _plain(x)
    except ValueError:
        return False


def _plain(value: Any) -> Any:
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return (
            None
            if value != value
            else (str(int(value)) if value == int(value) else repr(float(value)))
        )
    return value


def _apply(
    index: int,
    method: str,
    params: Mapping[str, Any],
    previous: StepResult,
    suppressed: dict[str, np.ndarray],
    rng: np.random.Generator,
) -> tuple[pd.DataFrame, Release, list[str], float, dict[str, np.ndarray], Schema]:
    """Run one method on the previous table: the aligned output with untouched columns
    restored, per column the tracers of the missing cells it published as ``?``
    (:attr:`StepResult.marked`), and the schema it ran on (its builder hierarchies built on
    the previous table)."""
    spec = registry.get(method)
    kwargs = dict(params)
    if spec.randomized != "never":
        kwargs["rng"] = rng
    started = time.perf_counter()
    try:
        # the builder hierarchies built here, on the step's input, as the method would build
        # them: the method recodes with these, and a column it recodes keeps them, cut
        schema = previous.schema.resolve(previous.data)
        release = spec.function(previous.data, schema, **kwargs)
    except InputError as exc:
        raise InputError(f"steps[{index}] ({method}): {exc}") from None
    seconds = time.perf_counter() - started
    out = release.data
    if TRACER not in out.columns:
        raise VerificationError(f"steps[{index}] ({method}) did not keep the records' tracer")
    tracers = out[TRACER].to_numpy()
    if np.array_equal(tracers, previous.data[TRACER].to_numpy()):  # the records kept in order
        order = [TRACER, *(c for c in previous.data.columns if c != TRACER)]
        before = previous.data[order].reset_index(drop=True)
    else:
        before = previous.data.set_index(TRACER).loc[tracers].reset_index()
    # columns the method does not publish (identifiers) pass through from its input
    columns = [c for c in previous.data.columns if c != TRACER and c in out.columns]
    after: dict[str, pd.Series] = {}
    marked = {}
    for c in columns:  # a missing cell the method read as "?" stays missing (and is marked)
        column = out[c].reset_index(drop=True)
        # (a nullable column's comparison holds <NA> where a cell is missing: not "?")
        same = (column == _MISSING_LABEL).to_numpy(dtype=bool, na_value=False)
        read = before[c].isna().to_numpy() & same
        after[c] = column.where(~read, None) if read.any() else column
        if read.any():
            marked[c] = before[TRACER].to_numpy()[read]
    result = pd.DataFrame(
        {c: after.get(c, before[c]) for c in before.columns}, index=before.index, copy=False
    )
    changed = _changes(before, result, columns)
    for c in changed:
        rows = suppressed.get(c)
        if rows is None:
            continue
        held = np.isin(result[TRACER].to_numpy(), rows)
        now = result[c].to_numpy(dtype=object, na_value=None)[held]
        if not all(pd.isna(v) or v in ("*", _MISSING_LABEL) for v in now) or (
            (result[c].to_numpy(dtype=object, na_value=None) == _MISSING_LABEL)[~held].any()
        ):
            raise InputError(
                f"steps[{index}] ({method}) changes {c!r}, whose cells an earlier "
                "local_suppression step suppressed: run it before the suppression, or on other "
                "columns"
            )
    for c in columns:  # keep the dtypes of unchanged columns
        if c not in changed:
            result[c] = before[c]
    return result, release, changed, seconds, marked, schema


def _suppressed_now(
    before: pd.DataFrame, after: pd.DataFrame, changed: Sequence[str]
) -> dict[str, np.ndarray]:
    """Per column, the tracers of the cells a suppression step blanked (missing or ``*``)."""
    out = {}
    for c in changed:
        a = before[c].to_numpy(dtype=object, na_value=None)  # (<NA> of nullable columns)
        b = after[c].to_numpy(dtype=object, na_value=None)
        blanked = (pd.isna(b) | (b == "*")) & ~(pd.isna(a) | (a == "*"))
        if blanked.any():
            out[c] = after[TRACER].to_numpy()[blanked]
    return out


def _claims_hold(
    index: int,
    method: str,
    claims: list[tuple[int, str, dict[str, Any]]],
    data: pd.DataFrame,
    schema: Schema,
) -> None:
    """Re-check every claim made so far on the current table; refuse the step that breaks one."""
    if not claims:
        return
    published = [a.name for a in schema if a.name != TRACER and a.role.published]
    table = data[published]
    columns = [c for c in schema.columns if c != TRACER]
    probe = masked_release(STEPS_METHOD, table, _built(schema.select(columns)), {}, len(table))
    for step, by, claim in claims:
        (verdict,) = check_release(probe, [claim])
        if not verdict.holds:
            raise InputError(
                f"steps[{index}] ({method}) breaks what step {step} ({by}) claims: {verdict}; "
                f"run {method} before {by}, or on other columns"
            )


# ---------------------------------------------------------------------- the pipeline
class Steps:
    """A release built one step at a time, with the risk and loss after each (and undo).

    Parameters
    ----------
    data : pandas.DataFrame
        The original table.
    schema : Schema or mapping
        Its schema.
    rng : numpy.random.Generator, int or None
        The pipeline's randomness (never written): step ``i`` draws from stream ``i`` of a root
        drawn from it once (:func:`step_rng`).

    Examples
    --------
    >>> from microanon.datasets import load_adult, adult_schema
    >>> steps = Steps(load_adult().head(600), adult_schema(), rng=7)
    >>> _ = steps.add("local_suppression", k=3)
    >>> _ = steps.add("microaggregation", k=3, columns=["hours_per_week"])
    >>> [r["method"] for r in steps.table().to_dict("records")]
    ['original', 'local_suppression', 'microaggregation']
    """

    def __init__(
        self, data: pd.DataFrame, schema: Schema | Mapping[str, Any], rng: RandomLike = None
    ):
        schema = schema if isinstance(schema, Schema) else Schema.from_dict(schema)
        if TRACER in data.columns:
            raise InputError(f"column {TRACER!r} is reserved for the steps; rename it")
        missing = [c for c in schema.columns if c not in data.columns]
        if missing:
            raise InputError(f"schema names columns the data lacks: {', '.join(missing)}")
        columns = schema.columns
        traced = data[columns].reset_index(drop=True).assign(**{TRACER: np.arange(len(data))})
        # The records a missing value leaves out (missing: drop) enter no step: the original's
        # risk and loss are measured on those that do (the tracer keeps their file positions).
        if schema.dropping:
            traced = traced.loc[traced[schema.dropping].notna().all(axis=1).to_numpy()]
        self.schema = schema.with_attribute(Attribute(TRACER, Role.INSENSITIVE, Kind.NUMERIC))
        self.original = traced
        self._given = (data, schema)  # (what the release's row counts are counted from)
        self._root = _root(rng)
        self._numeric = [c for c in columns if schema[c].kind is Kind.NUMERIC]
        self._published = [c for c in columns if schema[c].role.published]
        origin = StepResult(
            0, "original", {}, [], traced, self.schema, None,
            step_risk(traced, self.schema), step_loss(traced, traced, self._published, []),
        )  # fmt: skip
        self.results: list[StepResult] = [origin]
        self._planned: list[tuple[str, dict[str, Any]]] = []

    def add(self, method: str, **params: Any) -> StepResult:
        """Run ``method`` with ``params`` on the current table as the next step.

        Raises
        ------
        InputError
            A method that cannot be a step (or not here), bad parameters, or a step that
            changes a suppressed cell or breaks a model an earlier step claims (naming both);
            the pipeline is then unchanged.
        """
        index = len(self.results)
        spec = _check_position(index, index, method)
        previous = self.results[-1]
        if previous.release is not None and registry.get(previous.method).step == "last":
            raise InputError(f"steps[{index}]: {previous.method} may only be the last step")
        spec.check(params)
        suppressed = self._suppressed()
        data, release, changed, seconds, marked, used = _apply(
            index, method, params, previous, suppressed, self.stream(index)
        )
        # a column the step changed is described by what it holds now, against the hierarchy
        # the step used (a builder's, built on its input); the others keep their builders,
        # which a later step builds on its own input
        schema = previous.schema
        for c in changed:
            schema = schema.with_attribute(_kept(_after(schema[c], used[c], data[c]), data[c]))
        claims = self._claims() + [
            (index, method, claim) for claim in release.metadata.get("models") or []
        ]
        _claims_hold(index, method, claims, data, schema)
        result = StepResult(
            index, method, dict(params), changed, data, schema, release,
            step_risk(data, schema),
            step_loss(self.original, data, self._published, self._numeric),
            seconds,
            [{"step": s, "method": m, "model": c} for s, m, c in claims],
            marked,
        )  # fmt: skip
        self.results.append(result)
        return result

    def stream(self, index: int) -> np.random.Generator:
        """A fresh generator of step ``index``'s stream (what that step draws from)."""
        return step_rng(self._root, index)

    def undo(self) -> StepResult:
        """Drop the last step; the current table is the previous one again.

        Raises
        ------
        InputError
            When there is no step to undo.
        """
        if len(self.results) == 1:
            raise InputError("no step to undo")
        return self.results.pop()

    def _suppressed(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for before, after in zip(self.results, self.results[1:], strict=False):
            if after.method != "local_suppression":
                continue
            aligned = before.data.set_index(TRACER).loc[after.data[TRACER].to_numpy()]
            blanked = _suppressed_now(aligned.reset_index(), after.data, after.changed)
            for c, rows in blanked.items():
                out[c] = np.union1d(out.get(c, np.array([], dtype=int)), rows)
        return out

    def _cut_from_data(self, columns: Sequence[str]) -> list[tuple[str, StepResult]]:
        """The columns whose published values are a level of ranges that a ``quantiles`` or
        ``balanced`` builder cut from the data, each with the step that recoded it to a
        hierarchy level: the last step that changed it other than by blanking cells."""
        given = self._given[1]
        out = []
        for c in columns:
            spec = given[c].hierarchy if c in given.columns else None
            if not isinstance(spec, Mapping) or spec.get("builder") not in _CUT_FROM_DATA:
                continue
            last = next(
                (r for r in reversed(self.results[1:])
                 if c in r.changed and r.method != "local_suppression"),
                None,
            )  # fmt: skip
            if last is not None and last.method == "global_recode":
                assert last.release is not None
                how = (last.release.metadata.get("recoded") or {}).get(c, {}).get("how")
                if how == "level":
                    out.append((c, last))
        return out

    def _claims(self) -> list[tuple[int, str, dict[str, Any]]]:
        return [(c["step"], c["method"], c["model"]) for c in self.results[-1].claims]

    def table(self) -> pd.DataFrame:
        """One row per step (the original first): method, changed columns, risk and loss."""
        rows = []
        for r in self.results:
            rows.append(
                {
                    "step": r.index,
                    "method": r.method,
                    "changed": ", ".join(r.changed),
                    **{k: v for k, v in r.risk.items()},
                    "cells_changed": r.loss["cells_changed"],
                    "il1s": r.loss["il1s"],
                    "seconds": r.seconds,
                }
            )
        return pd.DataFrame(rows)

    def release(self) -> Release:
        """The release of the steps so far: the last table, every step recorded.

        Public: ``method`` ``steps``; ``parameters`` with each step's method and public
        parameters; ``models`` (every claim, each re-checked after every later step);
        ``steps``: per step its method, parameters, the columns it changed and the metadata
        keys its method declares public (a PRAM step's matrices, the masked numeric columns).
        Internal: ``row_counts`` (the rows given, left out by a ``missing: drop`` column,
        entered, not drawn, suppressed, published: :mod:`microanon.core.row_counts`),
        ``step_records`` (risk, loss, seconds per step, the original first), each
        step's internal metadata, and ``source_rows``, the original record (its position) each
        published row comes from.

        Raises
        ------
        InputError
            When no step has run.
        """
        if len(self.results) == 1:
            raise InputError("no step yet: add at least one")
        last = self.results[-1]
        published = [a.name for a in last.schema if a.name != TRACER and a.role.published]
        schema = _built(last.schema.select([c for c in last.schema.columns if c != TRACER]))
        table = last.data[published]
        tracers = last.data[TRACER].to_numpy()
        blanked = self._suppressed()  # (a suppressed cell stays blank, not "?")
        marks = {}
        for c, rows in last.marked.items():  # the last method's "?", as it published them
            if c in table.columns:
                rows = np.setdiff1d(rows, blanked.get(c, np.array([], dtype=int)))
                held = np.isin(tracers, rows) & table[c].isna().to_numpy()
                marks[c] = table[c].astype(object).where(~held, _MISSING_LABEL)
        if marks:
            table = pd.DataFrame({c: marks.get(c, table[c]) for c in table.columns}, copy=False)
        recut: dict[str, dict[str, str]] = {}
        for c, recode in self._cut_from_data(table.columns):
            values = self.original.set_index(TRACER)[c]
            recoded = _held(recode.data[c], values.reindex(recode.data[TRACER]).to_numpy())
            held = _held(table[c], values.reindex(tracers).to_numpy())
            # only where a later step blanked or left out some of the recoded cells
            if _values_of(held) != _values_of(recoded):
                table[c], changed = _recut_column(table[c], held)
                if changed:
                    recut[c] = changed
        public_steps, internal_steps, numeric = [], [], []
        for r in self.results[1:]:
            assert r.release is not None
            meta = r.release.metadata
            public = {k: meta[k] for k in r.release.public_keys if k in meta}
            declared = {k: v for k, v in public.items() if k not in _TOP_LEVEL}
            public_steps.append(
                {
                    "method": r.method,
                    "parameters": meta.get("parameters", {}),
                    "models": meta.get("models") or [],
                    "changed": list(r.changed),
                    **declared,
                }
            )
            internal = {k: v for k, v in meta.items() if k not in r.release.public_keys}
            if "suppressed_cells" in internal:  # (rows of the step's input: of the release's)
                internal["suppressed_cells"] = _cells_published(
                    internal["suppressed_cells"], r.data[TRACER].to_numpy(), tracers
                )
            internal_steps.append(internal)
            # a column masked as numbers stays so until a later step changes it otherwise
            # (recoded to intervals or labels: text)
            masked = meta.get("masked_numeric") or []
            numeric = [c for c in numeric if c not in r.changed or c in masked]
            numeric += [c for c in masked if c not in numeric]
        release = masked_release(
            STEPS_METHOD,
            table,
            schema,
            {
                "steps": [
                    {"method": s["method"], "parameters": s["parameters"]} for s in public_steps
                ]
            },
            len(self.original),
            models=as_models([c["model"] for c in last.claims]) if last.claims else [],
            public=("steps",),
            steps=public_steps,
            step_records=[r.record() for r in self.results],
            step_metadata=internal_steps,
            source_rows=[int(v) for v in last.data[TRACER]],
            **_sampled(self.results[1:]),
            masked_numeric=numeric,
            **({"recut": recut} if recut else {}),
        )
        return registry.counted(release, *self._given)


#: The builders whose ranges are cut where the records fall (their bounds between the data's
#: values: :mod:`microanon.core.range_bounds`).
_CUT_FROM_DATA = ("quantiles", "balanced")


def _held(published: pd.Series, source: np.ndarray) -> dict[str, np.ndarray]:
    """Each label of a column and the distinct original values of its records (``source``, by
    row), from the distinct pairs of the two (a blanked cell, None or NaN, holds none)."""
    pairs = pd.DataFrame({"label": published.to_numpy(), "value": source})
    pairs = pairs[pairs["label"].notna().to_numpy()].drop_duplicates()
    return {label: group.to_numpy() for label, group in pairs.groupby("label")["value"]}


def _values_of(held: Mapping[str, np.ndarray]) -> dict[str, frozenset[str]]:
    """The distinct values of each label of :func:`_held`, by their text (a missing value's
    NaN equal to another's)."""
    return {label: frozenset(map(repr, values.tolist())) for label, values in held.items()}


def _recut_column(
    published: pd.Series, held: Mapping[str, np.ndarray]
) -> tuple[pd.Series, dict[str, str]]:
    """A recoded column whose half-open ranges are cut again on the values of the records
    published in them (``held``: :func:`_held`), as ``full_domain`` cuts the ranges it
    publishes: no bound is then set by a record a later step left out or blanked. Returns the
    column and the labels changed (old to new); the column as it is when its ranges are not
    half-open ones, each holding its records' values."""
    # the ranges; another value (a missing value's ?) stays as it is
    bounds = {label: b for label in held if (b := parse_interval(label)) is not None}
    if not bounds or any(not b.closed_lo or b.closed_hi for b in bounds.values()):
        return published, {}
    numbers = {
        label: pd.to_numeric(pd.Series(held[label], dtype=object), errors="coerce").to_numpy(float)
        for label in bounds
    }
    if any(not np.isfinite(x).all() for x in numbers.values()):  # (not numbers: text ranges)
        return published, {}
    ordered = sorted(bounds, key=lambda label: bounds[label].lo)
    values: list[float] = []
    starts = []
    for label in ordered:
        b, mine = bounds[label], np.unique(numbers[label])
        if mine[0] < b.lo or mine[-1] >= b.hi or (values and mine[0] <= values[-1]):
            return published, {}
        starts.append(len(values))
        values.extend(mine.tolist())
    (labels,) = range_labels(np.asarray(values), [np.asarray(starts[1:], dtype=np.int64)])
    changed = {a: b for a, b in zip(ordered, labels, strict=True) if a != b}
    if not changed:
        return published, {}
    return published.map(lambda v: changed.get(v, v)), changed


def _cells_published(
    cells: Mapping[str, Sequence[int]], step: np.ndarray, published: np.ndarray
) -> dict[str, list[int]]:
    """A step's cells (per column, positions in its table, whose records are ``step``) as the
    positions of their records in the published table (records ``published``); a record a
    later step left out (a sample) is no longer named."""
    where = pd.Series(np.arange(len(published)), index=published)
    out = {}
    for column, rows in cells.items():
        records = pd.Index(step[np.asarray(rows, dtype=np.int64)])
        out[column] = sorted(int(v) for v in where.reindex(records).dropna())
    return out


def _sampled(steps: Sequence[StepResult]) -> dict[str, int]:
    """``sampled``, the rows a sampling step drew (so the row counts say not drawn, not
    suppressed), when a step sampled."""
    drawn = [
        r.release.metadata["sampled"]
        for r in steps
        if r.release and "sampled" in r.release.metadata
    ]
    return {"sampled": int(drawn[0])} if drawn else {}


#: Keys every release has at its top level: a step's own are in ``parameters`` of ``steps``.
_TOP_LEVEL = ("method", "parameters", "models", "quasi", "sensitive", "rows_out")


def run_steps(
    data: pd.DataFrame,
    schema: Schema | Mapping[str, Any],
    steps: Sequence[Mapping[str, Any]],
    rng: RandomLike = None,
) -> Release:
    """Run methods one after the other, each on the previous step's output, into one release.

    Parameters
    ----------
    data : pandas.DataFrame
    schema : Schema or mapping
    steps : sequence of mappings
        ``{"method": NAME, "params": {...}}`` per step, in order.
    rng : numpy.random.Generator, int or None
        The pipeline's randomness (never written; see :class:`Steps`).

    Returns
    -------
    Release
        Kind ``masked``; see :meth:`Steps.release`.

    Raises
    ------
    InputError
        No step, an unknown key of a step, or as :meth:`Steps.add`.
    """
    checked = check_steps(steps)
    pipeline = Steps(data, schema, rng=rng)
    for step in checked:
        pipeline.add(step["method"], **step["params"])
    return pipeline.release()


def check_steps(steps: Any) -> list[dict[str, Any]]:
    """Check a list of steps before running any: their shape, methods, places and parameters.

    Parameters
    ----------
    steps : sequence of mappings
        ``{"method": NAME, "params": {...}}`` per step (``params`` optional).

    Returns
    -------
    list of dict
        The steps, each with ``method`` and ``params``.

    Raises
    ------
    InputError
        One line naming the step (``steps[2]``, counting from 1) and what is wrong.
    """
    if not isinstance(steps, Sequence) or isinstance(steps, str) or not steps:
        raise InputError("steps: give a list of at least one {method: NAME, params: {...}}")
    out = []
    for i, step in enumerate(steps, start=1):
        if (
            not isinstance(step, Mapping)
            or "method" not in step
            or set(step) - {"method", "params"}
        ):
            raise InputError(
                f"steps[{i}]: a step is {{method: NAME, params: {{...}}}}, got {step!r}"
            )
        spec = _check_position(i, len(steps), str(step["method"]))
        params = step.get("params") or {}
        if not isinstance(params, Mapping):
            raise InputError(f"steps[{i}].params: must be a mapping of parameter name to value")
        try:
            spec.check(params)
        except InputError as exc:
            raise InputError(f"steps[{i}].{exc}") from None
        out.append({"method": spec.name, "params": dict(params)})
    return out
