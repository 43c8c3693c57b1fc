"""Anonymization methods, one subpackage per family; each method turns an original table into a
:class:`~microanon.Release` (or, for data collection, a respondent's submission).

=========================================  ==================================================
:mod:`microanon.methods.generalize`        k-anonymity, ℓ-diversity, t-closeness baselines:
                                           full-domain, Mondrian, local recoding, Anatomy
:mod:`microanon.methods.randomize`         randomized response, PRAM, reconstruction
:mod:`microanon.methods.collect`           respondent-side generalization for data
                                           collection (GTR)
:mod:`microanon.methods.multisa`           multiple sensitive attributes: mixed model, Rating
:mod:`microanon.methods.sdc`               SDC masking: sampling, recoding, top/bottom coding,
                                           local suppression, noise, rank swapping,
                                           microaggregation
:mod:`microanon.methods.distribution`      distribution-based anonymization of the sensitive
                                           attribute
=========================================  ==================================================

Call them as ``microanon.methods.<family>.<method>``, e.g.
``microanon.methods.generalize.full_domain``. The flat names of earlier releases
(``microanon.methods.full_domain``, ...) still work for this release and warn.
"""

from typing import TYPE_CHECKING, Any

from ..core.deprecation import forward
from ..core.lazy import lazy_exports

if TYPE_CHECKING:  # each family is imported on first use (microanon.core.lazy)
    from . import collect, distribution, generalize, multisa, randomize, sdc

__all__ = ["collect", "distribution", "generalize", "multisa", "randomize", "sdc"]

_family, _dir = lazy_exports(__name__, {}, submodules=__all__)

#: Flat names of the previous release -> the family that holds them now.
_MOVED = {
    "anatomy": "generalize",
    "full_domain": "generalize",
    "local_recoding": "generalize",
    "mondrian": "generalize",
    "distribution_anonymize": "distribution",
    **dict.fromkeys(
        [
            "add_noise",
            "global_recode",
            "local_suppression",
            "microaggregation",
            "rank_swap",
            "sample",
            "top_bottom_code",
        ],
        "sdc",
    ),
}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        return forward(__name__, f"{__name__}.{_MOVED[name]}", name)
    return _family(name)


def __dir__() -> list[str]:
    return _dir()
