"""Statistical disclosure control (SDC) masking of microdata (docs/sdc.md).

The methods of Domingo-Ferrer, Sánchez & Soria-Comas, *Database Anonymization: Privacy Models,
Data Utility, and Microaggregation-based Inter-model Connections*, Morgan & Claypool, 2016,
Ch. 3 ("Anonymization Methods for Microdata"), with the options of the R package sdcMicro.

Every method turns an original table into a ``"masked"`` :class:`~microanon.Release` with the
same columns; all but sampling publish the same rows in the same order and change only the
columns they mask.

Non-perturbative (the published values are true, only coarser or missing)
    :func:`sample` (simple or stratified), :func:`global_recode` (hierarchy levels, category
    maps, interval breaks), :func:`top_bottom_code`, :func:`local_suppression` (to k-anonymity
    on categorical keys, with sdcMicro's importance)
Perturbative (the published values are altered)
    :func:`add_noise` (uncorrelated, correlated, Kim, multiplicative, Laplace, two-sided
    geometric), :func:`rank_swap` (p % windows), :func:`data_swap` (categorical values exchanged
    between records, within strata, targeted at rare keys), :func:`microaggregation` (MDAV,
    V-MDAV, projection, individual ranking, optimal univariate; within strata; group modes for
    categorical columns)

The array-level cores work without a DataFrame: :func:`sample_rows`, :func:`stratum_sizes`,
:func:`recode_breaks`, :func:`recode_categories`, :func:`recode_hierarchy`,
:func:`suppress_codes`, :func:`wildcard_frequencies`, :func:`additive_noise`,
:func:`correlated_noise`, :func:`kim_noise`, :func:`multiplicative_noise`,
:func:`laplace_noise`, :func:`geometric_noise`, :func:`rank_swap_values`, :func:`swap_partners`,
:func:`swap_window`, :func:`swap_codes`, :func:`mdav_groups`, :func:`vmdav_groups`,
:func:`projection_groups`, :func:`individual_ranking`, :func:`optimal_univariate_groups`,
:func:`group_means`. Utility and risk of the perturbative releases:
:mod:`microanon.measures.perturbative` and :mod:`microanon.measures.linkage`.
"""

from .data_swapping import data_swap, swap_codes
from .microaggregation import METHODS as MICROAGGREGATION_METHODS
from .microaggregation import (
    group_means,
    individual_ranking,
    mdav_groups,
    microaggregation,
    optimal_univariate_groups,
    projection_groups,
    vmdav_groups,
)
from .noise import (
    NOISE_METHODS,
    add_noise,
    additive_noise,
    correlated_noise,
    geometric_noise,
    kim_noise,
    laplace_noise,
    multiplicative_noise,
)
from .recoding import global_recode, recode_breaks, recode_categories, recode_hierarchy
from .sampling import sample, sample_rows, stratum_sizes
from .suppression import local_suppression, suppress_codes, wildcard_frequencies
from .swapping import rank_swap, rank_swap_values, swap_partners, swap_window
from .topbottom import top_bottom_code

__all__ = [
    "MICROAGGREGATION_METHODS",
    "NOISE_METHODS",
    "add_noise",
    "additive_noise",
    "correlated_noise",
    "data_swap",
    "geometric_noise",
    "global_recode",
    "group_means",
    "individual_ranking",
    "kim_noise",
    "laplace_noise",
    "local_suppression",
    "mdav_groups",
    "microaggregation",
    "multiplicative_noise",
    "optimal_univariate_groups",
    "projection_groups",
    "rank_swap",
    "rank_swap_values",
    "recode_breaks",
    "recode_categories",
    "recode_hierarchy",
    "sample",
    "sample_rows",
    "stratum_sizes",
    "suppress_codes",
    "swap_codes",
    "swap_partners",
    "swap_window",
    "top_bottom_code",
    "vmdav_groups",
    "wildcard_frequencies",
]
