"""Population uniqueness estimated from a sample: Pitman, Zayatz, SNB and Dankar et al.'s rule.

A record that is unique on its quasi-identifiers in the whole population can be re-identified
by anyone who can link it to a population register. Only the sample is at hand, so the number
of population uniques is estimated from the frequencies of the sample's class sizes and the
population size ``N``:

- Pitman's model (J. Pitman, *The two-parameter generalization of Ewens' random partition
  structure*, Technical Report 345, Dept. of Statistics, UC Berkeley, 1992), applied to
  disclosure risk by N. Hoshino, *Applying Pitman's sampling formula to microdata disclosure
  risk assessment*, Journal of Official Statistics 17(4):499–520, 2001: the two parameters
  ``(θ, α)`` are fitted by maximum likelihood, and ``Γ(θ + 1) / Γ(θ + α) · N^α`` is the expected
  number of population uniques;
- Zayatz's model (L. Zayatz, *Estimation of the percent of unique population elements on a
  microdata file using the sample*, Statistical Research Division report, US Bureau of the
  Census, 1991): the probability that a sample unique is a population unique, by Bayes' rule
  with hypergeometric sampling, times the sample uniques, divided by the sampling fraction;
- the slide negative binomial (SNB) model (G. Chen, S. Keller-McNulty, *Estimation of
  identification disclosure risk in microdata*, Journal of Official Statistics 14(1):79–95,
  1998): population classes have ``1 +`` negative-binomial sizes; its two parameters solve the
  equations for the expected numbers of sample classes of size 1 and 2, the number of non-empty
  population classes being estimated by Shlosser's estimator as modified by P. J. Haas,
  J. F. Naughton, S. Seshadri, L. Stokes, *Sampling-based estimation of the number of distinct
  values of an attribute*, VLDB 1995;
- Dankar et al.'s decision rule (F. K. Dankar, K. El Emam, A. Neisa, T. Roffey, *Estimating
  the re-identification risk of clinical data sets*, BMC Medical Informatics and Decision Making
  12:66, 2012; its Appendix A states the three models as used here), in the form ARX implements
  it: Pitman when the sampling fraction is at most 10 % (Zayatz if Pitman has no valid
  estimate); above 10 %, the smaller of Zayatz and SNB, or Zayatz when SNB has no valid
  estimate.

The numerics follow ARX 3.9 (``RiskModelPopulationUniqueness``, ``ModelPitman``, ``ModelZayatz``,
``ModelSNB``; F. Prasser, F. Kohlmayer et al.): the same starting points, Newton–Raphson
schedule and accuracy (:mod:`._newton`). An estimate is *valid* when the solver converged and the
number lies in ``(0, N]``; otherwise it is NaN with the reason. Where and why this differs from
ARX is in ``docs/measures.md``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputError
from ..core.frames import pandas_if_arrow
from ._uniqueness import ClassSizes, Fit, pitman, snb, zayatz
from .common import check_counts, check_quasi, check_share, group_rows

__all__ = ["REGIONS", "PopulationUniqueness", "UniquenessEstimate", "population_uniqueness"]

REGIONS: Mapping[str, int] = MappingProxyType(
    {
        "africa": 1_100_000_000,
        "australia": 23_130_900,
        "europe": 740_000_000,
        "north_america": 565_265_000,
        "south_america": 385_742_554,
        "european_union": 507_420_000,
        "brasil": 202_656_788,
        "canada": 34_834_841,
        "china": 1_366_040_000,
        "france": 65_820_916,
        "germany": 80_767_000,
        "india": 1_210_569_573,
        "uk": 63_705_000,
        "usa": 317_238_626,
    }
)
"""Population sizes of ARX's region presets (``ARXPopulationModel.Region`` of ARX 3.9), by name.

The numbers are ARX's, not ours: for example ``"usa"`` is 317,238,626 and ``"germany"``
80,767,000. ARX spells Brazil ``"brasil"``.
"""

#: Dankar et al.'s rule uses Pitman's model up to this sampling fraction.
DANKAR_FRACTION = 0.1


@dataclass(frozen=True)
class UniquenessEstimate:
    """One model's estimate of the population uniques.

    Attributes
    ----------
    model : str
        ``"pitman"``, ``"zayatz"`` or ``"snb"``.
    uniques : float
        Estimated number of records unique in the population; NaN when there is no valid
        estimate.
    share : float
        ``uniques / N``, the share of the population that is unique (what ARX reports); NaN
        when there is no valid estimate.
    reason : str or None
        Why there is no valid estimate; None when there is one.
    """

    model: str
    uniques: float
    share: float
    reason: str | None

    @property
    def valid(self) -> bool:
        """Whether the model gave a valid estimate."""
        return self.reason is None


@dataclass(frozen=True)
class PopulationUniqueness:
    """The three models' estimates of population uniqueness and Dankar et al.'s choice.

    Attributes
    ----------
    population_size : int
        ``N``.
    sample_size : int
        ``n``, the rows of the table.
    sampling_fraction : float
        ``n / N``.
    classes : int
        Equivalence classes of the sample.
    sample_uniques : int
        Classes (and records) of size 1 in the sample.
    pitman, zayatz, snb : UniquenessEstimate
        The three models.
    dankar : UniquenessEstimate
        The estimate Dankar et al.'s rule picks (its ``model`` says which).
    """

    population_size: int
    sample_size: int
    sampling_fraction: float
    classes: int
    sample_uniques: int
    pitman: UniquenessEstimate
    zayatz: UniquenessEstimate
    snb: UniquenessEstimate
    dankar: UniquenessEstimate

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary (NaN becomes None)."""

        def estimate(e: UniquenessEstimate) -> dict[str, Any]:
            value = None if math.isnan(e.uniques) else e.uniques
            share = None if math.isnan(e.share) else e.share
            return {"model": e.model, "uniques": value, "share": share, "reason": e.reason}

        return {
            "population_size": self.population_size,
            "sample_size": self.sample_size,
            "sampling_fraction": self.sampling_fraction,
            "classes": self.classes,
            "sample_uniques": self.sample_uniques,
            "pitman": estimate(self.pitman),
            "zayatz": estimate(self.zayatz),
            "snb": estimate(self.snb),
            "dankar": estimate(self.dankar),
        }


def population_uniqueness(
    data: pd.DataFrame,
    quasi: Sequence[str] | str,
    *,
    population_size: int | None = None,
    fraction: float | None = None,
    region: str | None = None,
    counts: Sequence[int] | np.ndarray | None = None,
) -> PopulationUniqueness:
    """Estimate the share of the population that is unique on the quasi-identifiers.

    The table is a sample of a population of ``N`` people, given by exactly one of
    ``population_size``, ``fraction`` (then ``N = round(n / fraction)``, as ARX's
    ``ARXPopulationModel`` computes it) or ``region`` (a key of :data:`REGIONS`).

    Parameters
    ----------
    data : pandas.DataFrame
        The sample (any index); missing values in a quasi-identifier are refused.
    quasi : sequence of str or str
        Quasi-identifier columns.
    population_size : int, optional
        ``N``, at least the number of rows.
    fraction : float, optional
        Sampling fraction ``n / N`` in ``(0, 1]``.
    region : str, optional
        One of ARX's region presets (:data:`REGIONS`, any letter case), e.g. ``"usa"``
        (317,238,626).
    counts : sequence of int, optional
        Records per row: ``data`` is then a frequency table of distinct combinations, measured
        as the table with each row repeated ``counts`` times (default: one record per row).

    Returns
    -------
    PopulationUniqueness
        Pitman's, Zayatz's and the SNB model's estimates and Dankar et al.'s choice among them.
        Without sample uniques every estimate is 0 (valid); when the sample is the whole
        population (``N = n``) every one is its sample uniques, exactly.

    Raises
    ------
    InputError
        Bad table or QI list, missing values in a QI (naming the column and the count), not
        exactly one of the three population parameters, a population smaller than the sample,
        a fraction outside ``(0, 1]``, or an unknown region.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"zip": ["130", "130", "148", "149"]})
    >>> est = population_uniqueness(df, ["zip"], population_size=40)
    >>> est.pitman.valid, est.dankar.model, round(est.dankar.uniques, 1)
    (False, 'zayatz', 10.4)
    """
    data = pandas_if_arrow(data, "data")
    cols = check_quasi(data, quasi)
    sizes, _ = group_rows(data, cols, check_counts(counts, len(data)))
    return uniqueness_of_sizes(
        sizes, population_size=population_size, fraction=fraction, region=region
    )


def uniqueness_of_sizes(
    sizes: np.ndarray,
    *,
    population_size: int | None = None,
    fraction: float | None = None,
    region: str | None = None,
) -> PopulationUniqueness:
    """:func:`population_uniqueness` from the sample's class sizes alone (private entry point).

    For callers that have only a frequency table (:mod:`microanon.scale`): the estimates depend
    on the class sizes and ``N`` only.

    Parameters
    ----------
    sizes : array of int
        Records of every sample class (each at least one).
    population_size, fraction, region
        As for :func:`population_uniqueness`.

    Returns
    -------
    PopulationUniqueness
    """
    h = ClassSizes.of(sizes)
    n = h.records
    big_n = _population_size(n, population_size, fraction, region)
    s1 = h.of_size(1)
    if s1 == 0 or big_n == n:  # (a census: its uniques are the population's, no estimate)
        fits = {m: Fit(float(s1), None) for m in ("pitman", "zayatz", "snb")}
    else:
        fits = {"pitman": pitman(h, big_n), "zayatz": zayatz(h, big_n), "snb": snb(h, big_n)}
    est = {m: _estimate(m, fit, big_n) for m, fit in fits.items()}
    return PopulationUniqueness(
        population_size=big_n,
        sample_size=n,
        sampling_fraction=n / big_n,
        classes=h.classes,
        sample_uniques=s1,
        pitman=est["pitman"],
        zayatz=est["zayatz"],
        snb=est["snb"],
        dankar=est[_dankar_choice(n / big_n, est["pitman"], est["zayatz"], est["snb"])],
    )


def _dankar_choice(
    fraction: float, pitman: UniquenessEstimate, zayatz: UniquenessEstimate, snb: UniquenessEstimate
) -> str:
    """The model Dankar et al.'s decision rule picks, as ARX implements it."""
    if fraction <= DANKAR_FRACTION:
        return "pitman" if pitman.valid else "zayatz"
    if not snb.valid:
        return "zayatz"
    return "zayatz" if zayatz.valid and zayatz.uniques < snb.uniques else "snb"


def _estimate(model: str, fit: Fit, population: int) -> UniquenessEstimate:
    return UniquenessEstimate(model, fit.uniques, fit.uniques / population, fit.reason)


def _population_size(n: int, population_size: Any, fraction: Any, region: Any) -> int:
    """``N`` from exactly one of the three ways of giving it, at least ``n``."""
    given = [
        p
        for p, v in (
            ("population_size", population_size),
            ("fraction", fraction),
            ("region", region),
        )
        if v is not None
    ]
    if len(given) != 1:
        raise InputError(
            "give exactly one of 'population_size', 'fraction' or 'region' "
            f"(got {', '.join(given) or 'none'})"
        )
    if fraction is not None:
        return math.floor(n / check_share(fraction, "fraction") + 0.5)
    if region is not None:
        if not isinstance(region, str) or region.lower() not in REGIONS:
            raise InputError(f"'region' must be one of {', '.join(REGIONS)}, got {region!r}")
        return REGIONS[region.lower()]
    if isinstance(population_size, (bool, np.bool_)) or not isinstance(
        population_size, numbers.Integral
    ):
        raise InputError(f"'population_size' must be a whole number, got {population_size!r}")
    if population_size < n:
        raise InputError(
            f"'population_size' {population_size:,} is smaller than the sample ({n:,} rows)"
        )
    return int(population_size)
