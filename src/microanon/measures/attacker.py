"""Re-identification risk under the prosecutor, journalist and marketer attacker models.

The three models of K. El Emam and F. K. Dankar, *Protecting privacy using k-anonymity*, JAMIA
15(5):627–637, 2008 (prosecutor and journalist) and F. K. Dankar, K. El Emam, *A method for
evaluating marketer re-identification risk*, EDBT/ICDT Workshops (PAIS) 2010 (marketer), with
the summaries of ARX 3.9 (``RiskModelSampleSummary``). A record of the table lies in a sample
class of ``f`` records, which belongs to a population class of ``F ≥ f`` people:

- the *prosecutor* knows that the target is in the table: risk ``1/f``;
- the *journalist* does not know that, and matches the target against the population: risk
  ``1/F``;
- the *marketer* re-identifies as many records as possible and succeeds, on average, for the
  share ``Σ f/F / n`` of them (``Σ`` over the sample classes).

Without a population every ``F`` is ``f`` (ARX's behaviour when no population is defined), so
the journalist's risks are the prosecutor's and the marketer's share is classes / rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core import display
from ..core.errors import InputError
from ..core.frames import pandas_if_arrow
from .common import check_counts, check_quasi, check_share, group_rows

__all__ = ["AttackerRisks", "ModelRisk", "attacker_risks"]


@dataclass(frozen=True, eq=False)
class ModelRisk:
    """Re-identification risk of every record under one attacker model, and its summary.

    Attributes
    ----------
    record_risk : pandas.Series
        Risk of every record, indexed like the input table: ``1/f`` (prosecutor) or ``1/F``
        (journalist).
    threshold : float
        The threshold of ``records_above`` and ``share_above``.
    highest : float
        The highest record risk.
    average : float
        ARX's success rate: ``classes / rows`` for the prosecutor (the mean record risk);
        ``max(classes / Σ F, Σ f/F / rows)`` for the journalist, the larger of the risk of a
        population record chosen at random and of a sample record chosen at random.
    records_above : int
        Records whose risk is strictly above ``threshold``.
    share_above : float
        ``records_above / rows``.
    expected_reidentifications : float
        The sum of the record risks: records re-identified on average if each is attacked once
        (``classes`` for the prosecutor, ``Σ f/F`` for the journalist).
    """

    record_risk: pd.Series
    threshold: float
    highest: float
    average: float
    records_above: int
    share_above: float
    expected_reidentifications: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary (without the per-record risks)."""
        return {
            "threshold": self.threshold,
            "highest": self.highest,
            "average": self.average,
            "records_above": self.records_above,
            "share_above": self.share_above,
            "expected_reidentifications": self.expected_reidentifications,
        }

    def __repr__(self) -> str:
        return (
            f"<ModelRisk highest {self.highest:.4g}, average {self.average:.4g}, "
            f"{self.records_above:,} records ({self.share_above:.1%}) above {self.threshold:g}>"
        )

    def figures(self) -> dict[str, Any]:
        """The summary as shown in a notebook: label -> figure."""
        return {
            "highest": self.highest,
            "average": self.average,
            "records above": self.records_above,
            "share above": self.share_above,
            "expected re-identifications": self.expected_reidentifications,
        }

    def _repr_html_(self) -> str:
        """The summary in a notebook, the highest risk as its key figure."""
        key = (
            f"highest risk {display.number(self.highest)}; {self.share_above:.1%} of the records "
            f"above {self.threshold:g}"
        )
        return display.card("Re-identification risk", key, display.pairs(self.figures()))


@dataclass(frozen=True, eq=False)
class AttackerRisks:
    """Risks under the three attacker models (:func:`attacker_risks`).

    Attributes
    ----------
    prosecutor : ModelRisk
        The attacker knows that the target is in the table.
    journalist : ModelRisk
        The attacker matches against the population.
    marketer : float
        Expected share of the records re-identified when the attacker tries them all,
        ``Σ f/F / rows``.
    population : str
        Where the population class sizes came from: ``"sample"`` (none given: ``F = f``),
        ``"table"`` or ``"fraction"``.
    """

    prosecutor: ModelRisk
    journalist: ModelRisk
    marketer: float
    population: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary (without the per-record risks)."""
        return {
            "prosecutor": self.prosecutor.to_dict(),
            "journalist": self.journalist.to_dict(),
            "marketer": self.marketer,
            "population": self.population,
        }

    def __repr__(self) -> str:
        return (
            f"<AttackerRisks prosecutor highest {self.prosecutor.highest:.4g}, journalist highest "
            f"{self.journalist.highest:.4g}, marketer {self.marketer:.4g} "
            f"(population: {self.population})>"
        )

    def _repr_html_(self) -> str:
        """The three models in a notebook, the prosecutor's highest risk as the key figure."""
        threshold = self.prosecutor.threshold
        key = (
            f"prosecutor: highest risk {display.number(self.prosecutor.highest)}, "
            f"{self.prosecutor.share_above:.1%} of the records above {threshold:g}; marketer "
            f"{display.number(self.marketer)}"
        )
        models = {"prosecutor": self.prosecutor, "journalist": self.journalist}
        return display.card(
            "Re-identification risk under the attacker models",
            key,
            display.table(
                ([name, *risk.figures().values()] for name, risk in models.items()),
                header=["model", *self.prosecutor.figures()],
                caption=f"Records above a risk of {threshold:g}; population sizes from: "
                f"{self.population}.",
            ),
            f"Marketer: {display.number(self.marketer)} of the records re-identified on average.",
        )


def attacker_risks(
    data: pd.DataFrame,
    quasi: Sequence[str] | str,
    *,
    population: pd.DataFrame | None = None,
    count: str | None = None,
    fraction: float | None = None,
    threshold: float = 0.2,
    counts: Sequence[int] | np.ndarray | None = None,
) -> AttackerRisks:
    """Re-identification risk of every record under the prosecutor, journalist and marketer.

    The population class sizes ``F`` come from at most one of:

    - ``population``: a table with the same quasi-identifier columns, one row per person, or
      one row per combination with its number of people in the column ``count``; every class
      of ``data`` must occur in it at least as often as in ``data``;
    - ``fraction``: the share of the population that ``data`` is; every class is taken to be
      ``1 / fraction`` times larger in the population (``F = f / fraction``). ARX's summary has
      no such estimate (it asks for the population table); this is the usual inverse-sampling
      estimate, under which the journalist's risks, average and the marketer's share are
      ``fraction`` times the prosecutor's (the marketer's share is ``fraction · classes / rows``).

    With neither, ``F = f``.

    Parameters
    ----------
    data : pandas.DataFrame
        The released table (any index); missing values in a quasi-identifier are refused.
    quasi : sequence of str or str
        Quasi-identifier columns.
    population : pandas.DataFrame, optional
        The population, with the columns ``quasi`` (and ``count``).
    count : str, optional
        Column of ``population`` holding the number of people of each row (non-negative).
    fraction : float, optional
        Sampling fraction in ``(0, 1]``.
    threshold : float, default 0.2
        Records with risk strictly above it are counted in ``records_above`` (0.2: classes of
        fewer than 5). Must be in ``(0, 1]``.
    counts : sequence of int, optional
        Records per row: ``data`` is then a frequency table of distinct combinations, measured
        as the table with each row repeated ``counts`` times (default: one record per row); the
        per-record risks are then those of a record of each row.

    Returns
    -------
    AttackerRisks

    Raises
    ------
    InputError
        Bad table or QI list, missing values in a QI of ``data`` or ``population`` (naming the
        column and the count), both ``population`` and ``fraction``, ``count`` without
        ``population`` or not one of its columns or with negative or missing values, a class of
        ``data`` that the population holds fewer times than ``data``, ``fraction`` or
        ``threshold`` outside ``(0, 1]``.

    Examples
    --------
    >>> import pandas as pd
    >>> sample = pd.DataFrame({"zip": ["130", "130", "148"]})
    >>> people = pd.DataFrame({"zip": ["130", "148"], "n": [4, 1]})
    >>> r = attacker_risks(sample, ["zip"], population=people, count="n")
    >>> r.prosecutor.record_risk.tolist(), r.journalist.record_risk.tolist(), r.marketer
    ([0.5, 0.5, 1.0], [0.25, 0.25, 1.0], 0.5)
    """
    data = pandas_if_arrow(data, "data")
    population = pandas_if_arrow(population, "population")
    t = check_share(threshold, "threshold")
    cols = check_quasi(data, quasi)
    if population is not None and fraction is not None:
        raise InputError("give 'population' or 'fraction', not both")
    if count is not None and population is None:
        raise InputError("'count' names a column of 'population', which is not given")
    weights = check_counts(counts, len(data))
    if population is not None:
        f, big_f, row_class = _with_population(data, cols, population, count, weights)
        source = "table"
    else:
        f, row_class = group_rows(data, cols, weights)
        f = f.astype(float)
        big_f = f if fraction is None else f / check_share(fraction, "fraction")
        source = "sample" if fraction is None else "fraction"
    summary = _summaries(f, big_f, t)
    prosecutor = _model(data.index, f, row_class, summary["prosecutor"])
    journalist = _model(data.index, big_f, row_class, summary["journalist"])
    return AttackerRisks(prosecutor, journalist, summary["marketer"], source)


def class_attacker_risks(
    f: np.ndarray, big_f: np.ndarray | None, threshold: float, source: str
) -> dict[str, Any]:
    """The summary of :func:`attacker_risks` from class sizes alone (private entry point).

    What :meth:`AttackerRisks.to_dict` holds, computed by the same code from the sample class
    sizes ``f`` and the population class sizes ``F`` of the same classes (``None``: ``F = f``),
    for callers that have only a frequency table (:mod:`microanon.scale`).

    Parameters
    ----------
    f : array of int
        Records of each sample class (every class at least one).
    big_f : array of float, optional
        People of each class in the population, at least ``f``.
    threshold : float
        As for :func:`attacker_risks`, in ``(0, 1]``.
    source : {"sample", "fraction", "table"}
        Where ``F`` came from (``AttackerRisks.population``).

    Returns
    -------
    dict
        ``prosecutor``, ``journalist`` (each the keys of :meth:`ModelRisk.to_dict`),
        ``marketer`` and ``population``.
    """
    t = check_share(threshold, "threshold")
    f = np.asarray(f, dtype=float)
    big_f = f if big_f is None else np.asarray(big_f, dtype=float)
    return {**_summaries(f, big_f, t), "population": source}


def _summaries(f: np.ndarray, big_f: np.ndarray, threshold: float) -> dict[str, Any]:
    """The prosecutor's and journalist's summaries and the marketer's share, from class sizes.

    Sums over the classes are exactly rounded (:func:`math.fsum`), so the figures do not depend
    on the order of the classes (of the rows, or of a frequency table's combinations).
    """
    n = float(f.sum())
    found = f / big_f  # expected re-identifications per class
    found_sum = math.fsum(found)
    journalist_average = max(len(f) / math.fsum(big_f), found_sum / n)
    return {
        "prosecutor": _summary(f, f, threshold, len(f) / n),
        "journalist": _summary(f, big_f, threshold, journalist_average),
        "marketer": float(found_sum / n),
    }


def _summary(f: np.ndarray, big_f: np.ndarray, threshold: float, average: float) -> dict[str, Any]:
    """Summary of the risks ``1/F`` of the classes, ``f`` records each (ModelRisk's fields)."""
    risk = 1.0 / big_f
    above = int(f[risk > threshold].sum())
    n = float(f.sum())
    return {
        "threshold": threshold,
        "highest": float(risk.max()),
        "average": float(average),
        "records_above": above,
        "share_above": above / n,
        "expected_reidentifications": math.fsum(f * risk),
    }


def _model(
    index: pd.Index, big_f: np.ndarray, row_class: np.ndarray, summary: dict[str, Any]
) -> ModelRisk:
    """A model's per-record risks ``1/F`` with its summary."""
    risk = 1.0 / big_f
    return ModelRisk(record_risk=pd.Series(risk[row_class], index=index, name="risk"), **summary)


def _with_population(
    data: pd.DataFrame,
    cols: list[str],
    population: Any,
    count: str | None,
    records: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample class sizes ``f``, population class sizes ``F`` and the class of every row
    (``records``: records per row of ``data``, or one)."""
    check_quasi(population, cols, what="population")
    if count is not None:
        if count not in population.columns:
            raise InputError(
                f"population: count column {count!r} not found; available: "
                + ", ".join(map(str, population.columns))
            )
        weights = pd.to_numeric(population[count], errors="coerce").to_numpy(dtype=float)
        bad = int(np.count_nonzero(~np.isfinite(weights) | (weights < 0)))
        if bad:
            raise InputError(
                f"population: count column {count!r} has {bad} value(s) that are not "
                "non-negative numbers"
            )
    else:
        weights = np.ones(len(population))
    _refuse_missing(data, cols, "data")
    _refuse_missing(population, cols, "population")
    n = len(data)
    both = pd.concat([data[cols], population[cols]], ignore_index=True)
    _, classes = group_rows(both, cols)
    sample_class, population_class = classes[:n], classes[n:]
    used, row_class = np.unique(sample_class, return_inverse=True)
    f = np.bincount(row_class, weights=records).astype(float)
    big_f = np.bincount(population_class, weights=weights, minlength=classes.max() + 1)[used]
    short = np.flatnonzero(big_f < f)
    if len(short):
        first = data.iloc[int(np.flatnonzero(row_class == short[0])[0])]
        values = ", ".join(f"{c}={first[c]!r}" for c in cols)
        raise InputError(
            f"population: the class ({values}) has {int(f[short[0]])} record(s) in the data but "
            f"{big_f[short[0]]:g} in the population ({len(short)} class(es) short); the "
            "population must contain the sample"
        )
    return f, big_f, row_class


def _refuse_missing(frame: pd.DataFrame, cols: list[str], what: str) -> None:
    """Missing quasi-identifier values are refused, naming the column and the count."""
    for c in cols:
        missing = int(frame[c].isna().sum())
        if missing:
            raise InputError(
                f"{what}: column {c!r} has {missing} missing value(s); fill them with an explicit "
                "value (a suppressed cell is '*') or drop those rows first"
            )
