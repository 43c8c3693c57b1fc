"""What the workbench shows of a run and of the original: numbers, charts, comparisons.

Everything here is computed on the original data for the data owner's eyes: the answers of the
JSON API, never a file of the public part.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...core.hierarchy import SUPPRESSED, label_start, value_key
from ...core.release import Release
from ...core.row_counts import RowCounts
from ...core.schema import Schema
from ...measures import REGIONS
from ..io import json_plain
from ..restored_keys import verified_words
from ..risk import RiskOptions, assess_risk, left_out_note, schema_design
from .errors import RequestError

__all__ = [
    "BARS",
    "MEASURES_BETTER",
    "chart",
    "compare_rows",
    "population_options",
    "risk_profile",
    "run_result",
]

#: Bars of a column's chart at most.
BARS = 30
#: Risk histogram bins over [0, 1].
RISK_BINS = 20

#: Whether a lower or a higher value of a measure is better (others: no direction).
MEASURES_BETTER: dict[str, str] = {
    "suppressed_share": "lower",
    "LM": "lower",
    "GCP": "lower",
    "discernibility": "lower",
    "AECS": "lower",
    "precision": "higher",
    "risk_max": "lower",
    "risk_avg": "lower",
    "records_at_risk": "lower",
    "t_closeness": "lower",
    "k": "higher",
    "l_distinct": "higher",
    "l_entropy": "higher",
}


def _number(x: Any) -> bool:
    return isinstance(x, (int, float, np.number)) and not isinstance(x, bool)


def _numbers(block: Any) -> dict[str, float]:
    """The finite numbers of a mapping, JSON-ready."""
    if not isinstance(block, Mapping):
        return {}
    out = {}
    for key, value in block.items():
        if _number(value) and math.isfinite(float(value)):
            out[str(key)] = json_plain(value)
    return out


def chart(values: pd.Series) -> dict[str, list[Any]]:
    """A bar chart of a column: at most :data:`BARS` bars.

    Numbers (or labels that are all numbers, as a generalized column's lowest level) with more
    distinct values than bars are binned into equal-width intervals; other columns show their
    most frequent values, in value order when every label is a number or an interval
    (``[30, 35)``, ``30-34``), else by frequency. Missing values (a suppressed cell) are the bar
    ``*``.
    """
    # Work on the distinct values and their counts, not on every record.
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    sizes = np.bincount(codes[codes >= 0], minlength=len(uniques))
    distinct = pd.Series(uniques)
    numeric = pd.api.types.is_numeric_dtype(distinct) and not pd.api.types.is_bool_dtype(distinct)
    if not numeric and len(distinct) and not pd.api.types.is_bool_dtype(distinct):
        as_numbers = pd.to_numeric(distinct.astype(str), errors="coerce")
        if as_numbers.notna().all():
            distinct, numeric = as_numbers, True
    if numeric and len(pd.unique(distinct)) > BARS:
        counts, edges = np.histogram(distinct.to_numpy(dtype=float), bins=BARS, weights=sizes)
        labels = [
            f"{value_key(_round(a))}–{value_key(_round(b))}"
            for a, b in zip(edges[:-1], edges[1:], strict=True)
        ]
        out = {"labels": labels, "counts": [int(c) for c in counts]}
    else:
        keyed = pd.Series(sizes, index=distinct.map(value_key)).groupby(level=0, sort=False).sum()
        counts = keyed.sort_values(ascending=False, kind="stable").head(BARS)
        starts = [label_start(label) for label in counts.index]
        if all(s is not None for s in starts):
            counts = counts.iloc[np.argsort(np.array(starts, dtype=float), kind="stable")]
        out = {"labels": list(counts.index), "counts": [int(c) for c in counts]}
    missing = int(np.count_nonzero(codes < 0))
    if missing:
        out["labels"].append(SUPPRESSED)
        out["counts"].append(missing)
    return out


def _round(x: float) -> int | float:
    return int(x) if float(x).is_integer() else float(f"{x:.4g}")


def _search(release: Release) -> dict[str, Any] | None:
    """What the release's internal metadata says of its full-domain search (None without one):
    ``kind``, ``optimal``, ``stopped`` (why a heuristic search ended, None for the exact one)
    and ``summary``, one sentence."""
    record = release.metadata.get("search")
    if not isinstance(record, Mapping) or "summary" not in record:
        return None
    return {
        "kind": record.get("kind"),
        "optimal": bool(record.get("optimal")),
        "stopped": record.get("stopped"),
        "summary": str(record["summary"]),
    }


def run_result(
    numbers: Mapping[str, Any],
    release: Release,
    original: pd.DataFrame,
    schema: Schema,
    before: dict[str, dict[str, list[Any]]] | None = None,
) -> dict[str, Any]:
    """The ``result`` of a finished run's summary.

    Parameters
    ----------
    numbers : mapping
        What :func:`~microanon.apps.anonymize.run_anonymize` returned.
    release : Release
    original : DataFrame
        The original table (the charts' "before").
    schema : Schema
    before : dict, optional
        Charts of the original's columns drawn earlier (filled in here with those missing).
    """
    before = {} if before is None else before
    public = release.tables.get("data")
    rows = RowCounts.from_dict(numbers["rows"])  # the run's counts, as every output states them
    records, rows_in, suppressed = rows.published, rows.entering, rows.suppressed
    utility = _numbers(numbers.get("utility"))
    utility.pop("suppressed", None)
    verdicts = (numbers.get("verification") or {}).get("verdicts") or []
    columns = {}
    for q in schema.quasi:
        if public is not None and q in public.columns and q in original.columns:
            if q not in before:
                before[q] = chart(original[q])
            columns[q] = {"before": before[q], "after": chart(public[q])}
    return {
        "verified": numbers.get("verified"),
        "verified_words": verified_words(numbers.get("verified"), numbers.get("restored_keys", [])),
        "models": [
            {
                "model": v.get("model"),
                "holds": v.get("holds"),
                "achieved": json_plain(v.get("value")),
            }
            for v in verdicts
        ],
        "records": records,
        "rows": rows.to_dict(),
        "rows_sentence": rows.sentence(),
        "suppressed": int(suppressed),
        "suppressed_share": int(suppressed) / rows_in if rows_in else 0.0,
        "utility": utility,
        "risk": _numbers(numbers.get("after")),
        "warnings": [str(w) for w in numbers.get("warnings") or []],
        "seconds": json_plain(numbers.get("seconds")),
        "search": _search(release),
        "columns": columns,
    }


def compare_rows(results: Sequence[Mapping[str, Any] | None]) -> list[dict[str, Any]]:
    """One row per measure of the runs' results: its values (None where a run lacks it) and
    whether lower or higher is better (None: no direction)."""
    names: list[tuple[str, str]] = [("suppressed_share", "")]
    for block in ("utility", "risk"):
        for r in results:
            for key in (r or {}).get(block, {}):
                if (key, block) not in names:
                    names.append((key, block))
    rows = []
    for key, block in names:
        values = [
            None if r is None else (r.get(key) if not block else r.get(block, {}).get(key))
            for r in results
        ]
        label = f"{block}: {key}" if block else key
        rows.append({"measure": label, "values": values, "better": MEASURES_BETTER.get(key)})
    return rows


def population_options(query: Mapping[str, str]) -> dict[str, Any]:
    """The population the file is a sample of, from a request's query parameters.

    Parameters
    ----------
    query : mapping
        At most one of ``population`` (a whole number of people), ``fraction`` (the sampling
        fraction, in ``(0, 1]``) or ``region`` (a key of :data:`microanon.measures.REGIONS`);
        empty values count as absent.

    Returns
    -------
    dict
        The :class:`~microanon.apps.risk.RiskOptions` fields to set (empty: no population).

    Raises
    ------
    RequestError
        A value that is not a number of the right kind, an unknown region, or several given.
    """
    given = {
        k: query[k].strip()
        for k in ("population", "fraction", "region")
        if query.get(k, "").strip()
    }
    if len(given) > 1:
        raise RequestError(
            f"give one of population, fraction, region; got {', '.join(given)}", sorted(given)[0]
        )
    if "population" in given:
        text = given["population"].replace(",", "").replace("_", "")
        if not text.isdigit() or int(text) < 1:
            raise RequestError(
                f"population: give the number of people, got {given['population']!r}", "population"
            )
        return {"population": int(text)}
    if "fraction" in given:
        try:
            fraction = float(given["fraction"])
        except ValueError:
            fraction = float("nan")
        if not 0 < fraction <= 1:
            raise RequestError(
                f"fraction: give the sampling fraction in (0, 1], got {given['fraction']!r}",
                "fraction",
            )
        return {"fraction": fraction}
    if "region" in given:
        region = given["region"].lower()
        if region not in REGIONS:
            raise RequestError(
                f"region: unknown region {given['region']!r} (one of {', '.join(REGIONS)})",
                "region",
            )
        return {"region": region}
    return {}


def risk_profile(
    frame: pd.DataFrame, schema: Schema, population: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The risk profile of the records a run would take, as ``microanon risk --config`` measures
    it on the workbench's config (without SUDA2): the rows with a missing value in a
    ``missing: drop`` column left out and counted, any other missing key a value of its own
    (``?``); with a sampling weight (the first column with role ``weight``) the individual and
    log-linear risks, and with a household id the household risk.

    Parameters
    ----------
    frame : DataFrame
        The original table.
    schema : Schema
        Its roles and missing-value policies (:meth:`~.datasets.Dataset.roles_schema`), with
        at least one quasi-identifier.
    population : mapping, optional
        The population the table is a sample of (see :func:`population_options`): with it, the
        journalist's and the marketer's risks use the sampling fraction and ``numbers`` holds
        the population-uniqueness estimates (Pitman, Zayatz, SNB and Dankar et al.'s choice).

    Returns
    -------
    dict
        ``numbers`` (as ``microanon risk --json``, plus ``sample_uniques``: the records whose
        combination of quasi-identifier values no other record has, ``rows_in_file`` and
        ``rows_left_out``: the rows with a missing value in a ``drop`` column), ``note`` (one
        line saying why a weight or household id is not used, or counting the records without a
        weight the survey measures left out, as ``risk`` says it, else None)
        and ``histogram`` (``edges``, ``counts``) of the per-record re-identification risk (the
        prosecutor's).
    """
    left_out = schema.left_out(frame)
    entering = frame if left_out is None else frame.loc[~left_out.to_numpy()]
    people = (population or {}).get("population")
    if people is not None and people < len(entering):  # (said in the API's own words)
        raise RequestError(
            f"population: {people:,} people is fewer than the {len(entering):,} records the "
            "risk is measured on; give the number of people the file is a sample of",
            "population",
        )
    weights, household, note = schema_design(schema, entering)
    quasi = list(schema.quasi)
    # missing="value" (the default): a missing key is the value ?
    options = RiskOptions(
        quasi, weights=weights, household=household, suda=False, **(population or {})
    )
    design = [c for c in (weights, household) if c is not None]
    assessment = assess_risk(entering[[*quasi, *design]], options)
    risks = assessment.record_risks["prosecutor"].to_numpy(dtype=float)
    counts, edges = np.histogram(risks, bins=RISK_BINS, range=(0.0, 1.0))
    numbers = {
        **json_plain(assessment.numbers),
        "sample_uniques": int(np.count_nonzero(risks == 1.0)),  # alone in their class
        "rows_in_file": len(frame),
        "rows_left_out": len(frame) - len(entering),
    }
    without = left_out_note(numbers["rows_without_weight_left_out"], numbers["weight"])
    if without is not None:  # (as risk says it)
        note = without if note is None else f"{note}; {without}"
    return {
        "numbers": numbers,
        "note": note,
        "histogram": {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]},
    }
