"""``microanon risk``: one disclosure-risk profile of a table, original or published.

What is measured depends on what the data owner knows:

- always: re-identification under the prosecutor, journalist and marketer models (with the
  population from a size, a sampling fraction or a region; without one, the journalist and the
  marketer face the sample itself) and, unless turned off, SUDA2's special uniques;
- with a population: population uniqueness (Pitman, Zayatz, SNB and Dankar et al.'s choice);
- with sampling weights: the individual risk (Benedetti–Franconi), the household risk with a
  household column, and the log-linear model risk (Skinner–Shlomo).

:func:`assess_risk` computes the profile (plain numbers for ``--json``, plus the per-record risks
for the plot), :func:`format_risk` prints it and :func:`add_risk_section` adds it to a report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.missing import MISSING_LABEL, RISK_MISSING, policy_name
from ..core.schema import Schema, missing_refused
from ..core.wording import how_many
from ..measures import (
    attacker_risks,
    individual_risk,
    loglinear_risk,
    population_uniqueness,
    suda2,
)
from ..measures.suda import AUTO
from ..measures.survey_design import left_out_note, schema_design, weighted_records
from ..measures.table_profile import refuse_missing_keys
from .release_figures import record_risks
from .report import Report

if TYPE_CHECKING:
    from ..measures.households import HouseholdRisks

#: The household risks of the records a frequency table stands for, from the distinct
#: combinations of its keys and their individual risks (in memory
#: :func:`microanon.measures.households.household_risks_of`, out of core
#: :func:`microanon.scale.households.household_risks`, over the records).
HouseholdMeasure = Callable[[pd.DataFrame, np.ndarray], "HouseholdRisks"]

__all__ = [
    "HouseholdMeasure",
    "RiskAssessment",
    "RiskOptions",
    "add_risk_section",
    "assess_risk",
    "format_risk",
    "left_out_note",
    "schema_design",
]

#: How each survey measure counts missing key values in ``missing="sdcmicro"`` mode.
_SDCMICRO_MISSING = {"individual": "match", "loglinear": "drop", "suda": "ignore"}


@dataclass(frozen=True)
class RiskOptions:
    """What the risk profile is computed from.

    Attributes
    ----------
    quasi : list of str
        The key (quasi-identifier) columns.
    weights : str, optional
        Sampling-weight column (individual and log-linear risk).
    household : str, optional
        Household-id column (household risk; needs ``weights``).
    population : int, optional
        Population size.
    fraction : float, optional
        Sampling fraction (the population size is rows / fraction).
    region : str, optional
        A population preset (:data:`microanon.measures.REGIONS`).
    population_table : pandas.DataFrame, optional
        The population itself, with the key columns: one row per person, or one row per
        combination with its people in ``population_count``. The journalist and the marketer
        then match against its class sizes, and the population size for the uniqueness
        estimates is its number of people.
    population_count : str, optional
        Column of ``population_table`` with the people of each row.
    threshold : float
        Records with a risk above it are counted.
    suda : bool
        Whether to compute SUDA2 (the slowest part on many keys).
    suda_max_size : int, optional
        Largest minimal sample unique SUDA2 looks for (None: every key when the search is
        short, else the largest size that keeps it so, :data:`microanon.measures.suda.AUTO_WORK`;
        the profile says which).
    missing : {"value", "any", "drop", "error"}
        Missing key values (:mod:`microanon.core.missing`): a value of its own (``?``, the
        default); counted as sdcMicro counts them in the survey measures (``any``: a missing
        value matches any value in the frequencies, rows with one are dropped from the
        log-linear fit and ignored by SUDA2; ``sdcmicro`` is read as ``any``); the records
        left out of every measure (``drop``, counted); or refused (``error``).
    harmonic : str, optional
        With a frequency table of the keys alone (``counts`` of :func:`assess_risk`, see
        :meth:`~microanon.apps.release_frequencies.Combinations.key_weights`): the column of
        each row's harmonic mean weight, which the log-linear model takes, ``weights`` then
        being the arithmetic mean, which the individual risk takes.
    """

    quasi: list[str]
    weights: str | None = None
    household: str | None = None
    population: int | None = None
    fraction: float | None = None
    region: str | None = None
    population_table: pd.DataFrame | None = None
    population_count: str | None = None
    threshold: float = 0.2
    suda: bool = True
    suda_max_size: int | None = None
    missing: str = "value"
    harmonic: str | None = None

    def __post_init__(self) -> None:
        sources = ("population", "fraction", "region", "population_table")
        given = [n for n in sources if getattr(self, n) is not None]
        if len(given) > 1:
            raise InputError(
                f"give at most one of population, fraction, region, population_table; got {given}"
            )
        if self.population_count is not None and self.population_table is None:
            raise InputError("'population_count' names a column of 'population_table': give it")
        if self.household is not None and self.weights is None:
            raise InputError("'household' needs 'weights' (the household risk is built on them)")
        try:
            policy = policy_name(self.missing, RISK_MISSING, "risk")
        except ValueError as exc:
            raise InputError(str(exc)) from None
        object.__setattr__(self, "missing", policy)

    def has_population(self) -> bool:
        """Whether a population was given (size, fraction, region or table)."""
        sources = (self.population, self.fraction, self.region, self.population_table)
        return any(x is not None for x in sources)


@dataclass(frozen=True)
class RiskAssessment:
    """A table's risk profile.

    Attributes
    ----------
    numbers : dict
        Every figure, JSON-ready (what ``microanon risk --json`` prints).
    record_risks : pandas.DataFrame
        Per-record risks, one column per measure (prosecutor, journalist, and the individual
        and household risk with weights), indexed like the table; or, computed from a
        frequency table (``--engine dask``), one row per equivalence class.
    record_weights : int64 array, optional
        Records each row of ``record_risks`` stands for (None: one each).
    binned : dict of str to int64 array
        Measures whose per-record risks were counted per bin of
        :data:`~microanon.apps.release_figures.RISK_BINS` instead (the household risk out of
        core: a frequency table has no row per household).
    """

    numbers: dict[str, Any]
    record_risks: pd.DataFrame
    record_weights: np.ndarray | None = None
    binned: dict[str, np.ndarray] = field(default_factory=dict)


def schema_rows(schema: Schema, data: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """The records a run with ``schema`` lets enter, as ``anonymize`` counts them: those no
    ``missing: drop`` column leaves out; missing values under ``missing: error`` refused with
    ``anonymize``'s message. Only the schema's published columns that ``data`` holds are read
    (a release lacks the identifiers).

    Returns
    -------
    (records, note)
        The rows of ``data`` that enter (all its columns) and one line naming those left out
        and why, or None when none is.

    Raises
    ------
    InputError
        Missing values under ``missing: error``.
    """
    present = [a for a in schema if a.name in data.columns and a.role.published]
    missing = {a.name: int(data[a.name].isna().sum()) for a in present}
    refused = [(a, missing[a.name]) for a in present if a.missing_policy == "error"]
    refused = [(a, n) for a, n in refused if n]
    if refused:
        raise missing_refused(refused)
    left_out = schema.left_out(data)
    if left_out is None or not left_out.any():
        return data, None
    why = ", ".join(f"{c} {missing[c]:,}" for c in schema.dropping if missing.get(c))
    note = (
        f"{int(left_out.sum()):,} of {how_many(len(data), 'record')} left out for a missing value "
        f"({why}: missing: drop), as anonymize leaves them out"
    )
    return data.loc[~left_out], note


def _people(table: pd.DataFrame, count: str | None) -> int:
    """The number of people of a population table (its rows, or the sum of ``count``)."""
    if count is None:
        return len(table)
    if count not in table.columns:
        raise InputError(f"population: no column {count!r} (the people per row)")
    people = pd.to_numeric(table[count], errors="coerce")
    if people.isna().any() or (people < 0).any():
        raise InputError(f"population: column {count!r} must hold non-negative numbers of people")
    return int(people.sum())


def _finite(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def assess_risk(
    data: pd.DataFrame,
    options: RiskOptions,
    counts: np.ndarray | None = None,
    households: HouseholdMeasure | None = None,
) -> RiskAssessment:
    """Compute the risk profile of ``data`` as ``options`` allow.

    Parameters
    ----------
    data : pandas.DataFrame
        The table (original or the published data of a release).
    options : RiskOptions
        Keys, weights, population and what to compute.
    counts : int array, optional
        Records per row: ``data`` is then a frequency table of distinct combinations
        (:class:`~microanon.apps.release_frequencies.Combinations`) and the profile is that of
        the table it summarizes, its per-record risks one row per combination
        (``record_weights``); each row's records share its sampling weight. Without SUDA2 and
        the household risk, which need the records.
    households : callable, optional
        With ``counts`` and a sampling weight (``options`` naming no household column): the
        household risk of the records the table stands for, measured over them from the
        individual risks of its combinations of keys (out of core).

    Returns
    -------
    RiskAssessment

    Raises
    ------
    InputError
        A column that does not exist, bad weights, a population smaller than the table, a
        sampling fraction outside (0, 1], missing key values with ``missing="error"``; a
        household or SUDA2 with ``counts``.
    """
    quasi = list(options.quasi)
    if counts is not None and (options.household is not None or options.suda):
        raise InputError("the household risk and SUDA2 need the records, not a frequency table")
    if households is not None and (counts is None or options.weights is None):
        raise InputError("a household measure needs a frequency table with a sampling weight")
    records = np.ones(len(data), dtype=np.int64) if counts is None else np.asarray(counts)
    if options.missing == "error":  # every key with missing values named at once
        refuse_missing_keys(
            {q: int(records[data[q].isna().to_numpy()].sum()) for q in quasi if q in data}
        )
    given = data  # the values as the records hold them (before ? stands for a missing key)
    missing = {k: v if options.missing == "any" else "error" for k, v in _SDCMICRO_MISSING.items()}
    if options.missing == "value":  # a missing key value is the value ?
        data = data.copy()
        for q in quasi:
            if q in data.columns and bool(data[q].isna().any()):
                data[q] = data[q].astype(object).where(data[q].notna(), MISSING_LABEL)
    # The attacker models and the population estimates need every key: under any (sdcMicro's
    # convention) the records with a missing key are left out of them (and counted), and under
    # drop out of every measure.
    complete, present = data, records
    if options.missing in ("any", "drop"):
        full = data[quasi].notna().all(axis=1).to_numpy()
        complete, present = data.loc[full], records[full]
    left_out = int(records.sum() - present.sum())
    if options.missing == "drop":
        data, records = complete, present
    counted = None if counts is None else present
    size = options.population
    fraction = options.fraction
    table = options.population_table
    if table is not None:
        size = _people(table, options.population_count)
    if options.region is not None or size is not None:
        pu = population_uniqueness(
            complete,
            quasi,
            population_size=size,
            fraction=fraction,
            region=options.region,
            counts=counted,
        )
        fraction = pu.sampling_fraction
    elif fraction is not None:
        pu = population_uniqueness(complete, quasi, fraction=fraction, counts=counted)
    else:
        pu = None
    if table is not None:
        attackers = attacker_risks(
            complete,
            quasi,
            population=table,
            count=options.population_count,
            threshold=options.threshold,
            counts=counted,
        )
    else:
        attackers = attacker_risks(
            complete, quasi, fraction=fraction, threshold=options.threshold, counts=counted
        )
    numbers: dict[str, Any] = {
        "rows": int(records.sum()) + (left_out if options.missing == "drop" else 0),
        "quasi": quasi,
        "threshold": options.threshold,
        "missing": options.missing,
        "rows_with_missing_keys_left_out": left_out,
        "attackers": attackers.to_dict(),
        "population_uniqueness": None if pu is None else pu.to_dict(),
    }
    risks = {
        "prosecutor": attackers.prosecutor.record_risk,
        "journalist": attackers.journalist.record_risk,
    }
    binned: dict[str, np.ndarray] = {}
    numbers["weight"] = options.weights
    numbers["rows_without_weight_left_out"] = 0
    if options.weights is not None:
        # the survey measures take the records with a weight (the rule of survey_design)
        use = weighted_records(data, options.weights, None if counts is None else records)
        numbers["rows_without_weight_left_out"] = use.left_out
        weighted = data if use.kept.all() else data.loc[use.kept]
        kept = records if use.kept.all() else records[use.kept]
        per_row = None if counts is None else kept  # each row's records share its weight
        ind = individual_risk(
            weighted,
            quasi,
            options.weights,
            household=options.household,
            missing=missing["individual"],
            counts=per_row,
        )
        numbers["individual_risk"] = {
            "global_risk": ind.global_risk,
            "expected_reidentifications": ind.expected_reidentifications,
            "records_above": int(kept[(ind.record_risk > options.threshold).to_numpy()].sum()),
            "highest": float(ind.record_risk.max()),
            "household_global_risk": _finite(ind.household_global_risk),
            "household_expected_reidentifications": _finite(
                ind.household_expected_reidentifications
            ),
        }
        risks["individual"] = _on_rows(ind.record_risk, use.kept, data.index)
        if ind.household_risk is not None:
            risks["household"] = _on_rows(ind.household_risk, use.kept, data.index)
        if households is not None:
            keys = given.loc[weighted.index, quasi]
            found = _households(households, keys, ind.record_risk.to_numpy(), int(kept.sum()))
            numbers["individual_risk"]["household_global_risk"] = found.global_risk
            numbers["individual_risk"]["household_expected_reidentifications"] = found.expected
            binned["household"] = found.binned
        ll = loglinear_risk(
            weighted,
            quasi,
            options.harmonic or options.weights,
            missing=missing["loglinear"],
            counts=per_row,
        )
        numbers["loglinear"] = {
            "tau1": ll.tau1,
            "tau2": ll.tau2,
            "global_risk1": ll.global_risk1,
            "global_risk2": ll.global_risk2,
        }
    else:
        numbers["individual_risk"] = numbers["loglinear"] = None
    if options.suda:
        size = AUTO if options.suda_max_size is None else options.suda_max_size
        s = suda2(data, quasi, max_size=size, missing=missing["suda"])
        numbers["suda"] = {
            "max_size": s.max_size,
            "records_with_msu": int((s.score > 0).sum()),
            "highest_score": float(s.score.max()),
            "highest_dis_score": float(s.dis_score.max()),
            "attribute_contributions": {
                str(k): float(v) for k, v in s.attribute_contributions.items()
            },
        }
        risks["dis_suda"] = s.dis_score
    else:
        numbers["suda"] = None
    return RiskAssessment(
        numbers,
        pd.DataFrame(risks, index=data.index),
        record_weights=None if counts is None else records,
        binned=binned,
    )


def _on_rows(risk: pd.Series, kept: np.ndarray, index: pd.Index) -> pd.Series:
    """The per-record ``risk`` of the rows ``kept`` on every row of ``index`` (a row left out
    of the measure has none: NaN)."""
    values = np.full(len(index), np.nan)
    values[kept] = risk.to_numpy(dtype=float)
    return pd.Series(values, index=index)


def _households(
    measure: HouseholdMeasure, keys: pd.DataFrame, risk: np.ndarray, records: int
) -> HouseholdRisks:
    """The household risks of ``records`` records, from the individual ``risk`` of each row
    of ``keys`` (the same for every row of one combination of keys).

    Raises
    ------
    InputError
        The measure found a different number of records (the data changed meanwhile).
    """
    first = ~keys.duplicated().to_numpy()
    found = measure(keys.loc[first].reset_index(drop=True), risk[first])
    if found.records != records:
        raise InputError(
            f"the household risk measured {found.records:,} records where the frequency table "
            f"holds {records:,}: was the data changed meanwhile?"
        )
    return found


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.4g} %"


def _summary_rows(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    """(measure, value) lines of the profile, in reading order."""
    rows: list[tuple[str, str]] = []
    att = numbers["attackers"]
    for model in ("prosecutor", "journalist"):
        m = att[model]
        rows.append(
            (
                f"{model} risk: highest / average",
                f"{_pct(m['highest'])} / {_pct(m['average'])}",
            )
        )
        rows.append(
            (
                f"{model}: records above {numbers['threshold']:g}",
                f"{m['records_above']:,} ({_pct(m['share_above'])})",
            )
        )
    rows.append(("marketer risk (expected share re-identified)", _pct(att["marketer"])))
    rows.append(("population of the journalist and marketer", att["population"]))
    if numbers["rows_with_missing_keys_left_out"]:
        rows.append(
            (
                "records with a missing key (left out of every figure)"
                if numbers.get("missing") == "drop"
                else "records with a missing key (not in the attacker and population figures)",
                f"{numbers['rows_with_missing_keys_left_out']:,}",
            )
        )
    pu = numbers["population_uniqueness"]
    if pu is not None:
        rows.append(
            (
                "population",
                f"{pu['population_size']:,} (sampling fraction {pu['sampling_fraction']:.4g})",
            )
        )
        rows.append(("sample uniques", f"{pu['sample_uniques']:,} of {pu['sample_size']:,}"))
        for name in ("pitman", "zayatz", "snb"):
            e = pu[name]
            value = (
                _pct(e["share"]) if e["reason"] is None else f"no valid estimate ({e['reason']})"
            )
            rows.append((f"population uniques, {name}", value))
        rows.append(
            (
                "population uniques, Dankar et al.'s choice",
                f"{pu['dankar']['model']}: {_pct(pu['dankar']['share'])}",
            )
        )
    ind = numbers["individual_risk"]
    if ind is not None:
        if numbers["rows_without_weight_left_out"]:
            rows.append(
                (
                    f"records without a weight in {numbers['weight']} (not in the survey figures)",
                    f"{numbers['rows_without_weight_left_out']:,}",
                )
            )
        rows.append(("individual risk (weights): global", _pct(ind["global_risk"])))
        rows.append(
            ("expected re-identifications (weights)", f"{ind['expected_reidentifications']:.4g}")
        )
        if ind["household_global_risk"] is not None:
            rows.append(("household risk: global", _pct(ind["household_global_risk"])))
        ll = numbers["loglinear"]
        rows.append(("log-linear risk τ1 / τ2", f"{ll['tau1']:.4g} / {ll['tau2']:.4g} expected"))
    s = numbers["suda"]
    if s is not None:
        of = len(numbers["quasi"])
        rows.append(
            (
                f"SUDA2 (MSUs up to {s['max_size']} keys)"
                if s["max_size"] >= of
                else f"SUDA2 (MSUs up to {s['max_size']} of {of} keys, its default on this table)",
                f"{how_many(s['records_with_msu'], 'record')} with a special unique, highest "
                f"DIS-SUDA {s['highest_dis_score']:.4g}",
            )
        )
    return rows


def _records(numbers: Mapping[str, Any]) -> str:
    """The records read, and under ``--missing drop`` those the figures are measured on."""
    rows, left = numbers["rows"], numbers["rows_with_missing_keys_left_out"]
    if numbers.get("missing") != "drop" or not left:
        return how_many(rows, "record")
    return (
        f"{how_many(rows, 'record')}, {left:,} left out for a missing key: figures on "
        f"{rows - left:,}"
    )


def format_risk(numbers: dict[str, Any]) -> str:
    """The profile as aligned text lines (what ``microanon risk`` prints)."""
    rows = _summary_rows(numbers)
    width = max(len(k) for k, _ in rows)
    head = f"{_records(numbers)}, keys: {', '.join(numbers['quasi'])}"
    return "\n".join([head, *(f"{k:<{width}}  {v}" for k, v in rows)])


def add_risk_section(
    report: Report, assessment: RiskAssessment, title: str, note: str | None = None
) -> None:
    """Add the profile to ``report``: the figures and a plot of the per-record risks.

    Parameters
    ----------
    report : Report
        The report to add to.
    assessment : RiskAssessment
        From :func:`assess_risk`.
    title : str
        The section's title.
    note : str, optional
        A sentence added to the section's text (e.g. why a weight was not used).
    """
    numbers = assessment.numbers
    estimated = (  # (said only where the estimates are shown: with a population)
        " Population uniqueness estimates how many records are unique in the whole population, "
        "not only in the sample."
        if numbers.get("population_uniqueness") is not None
        else ""
    )
    sec = report.section(
        title,
        f"{_records(numbers)}; keys: {', '.join(numbers['quasi'])}. The prosecutor knows "
        "the person is in the table; the journalist matches against the population; the "
        f"marketer tries every record.{estimated}" + (f" Note: {note}." if note else ""),
    )
    rows = _summary_rows(numbers)
    sec.table(pd.DataFrame(rows, columns=["measure", "value"]))
    risks = assessment.record_risks.drop(columns=["dis_suda"], errors="ignore")
    drawing = record_risks(
        {name: risks[name].to_numpy(dtype=float) for name in risks.columns},
        assessment.record_weights,
        numbers["threshold"],
        assessment.binned,
    )
    sec.plot(drawing, "Per-record risk under each model (dotted: the threshold).")
