"""Privacy-model checks on any pandas DataFrame: k-anonymity, ℓ-diversity, t-closeness,
β-likeness, δ-disclosure privacy, and against a population δ-presence and k-map.

Every check groups the table by its quasi-identifiers once (:class:`Groups`, fully vectorized)
and returns a :class:`Verdict`: whether the model holds, the achieved value and the offending
groups. Pass a prebuilt ``Groups`` to share the grouping between several checks, or use
:func:`profile` for all achieved values at once.

>>> import pandas as pd
>>> from microanon.models import k_anonymity, l_diversity
>>> df = pd.DataFrame({"age": ["2*", "2*", "3*", "3*"], "disease": ["flu", "cold", "flu", "flu"]})
>>> k_anonymity(df, ["age"], k=2).holds
True
>>> l_diversity(df, ["age"], "disease", l=2).value
1
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import lazy_exports

# Functions named like their module are imported now: importing the module later would rebind
# the package's attribute to the module.
from .p_privacy import PPrivacy, covers, p_privacy
from .profile import Profile, profile

if TYPE_CHECKING:  # imported on first use (microanon.core.lazy): see _WHERE
    from .base import ClassBounds, PrivacyModel
    from .config import MODELS, as_models, model_from_config
    from .disclosure import DeltaDisclosure, delta_disclosure
    from .frequencies import Frequencies, check_frequencies, column_codes, frequencies_of
    from .groups import Groups
    from .kanonymity import KAnonymity, k_anonymity
    from .kmap import ESTIMATORS, KMap, k_map
    from .ldiversity import FORMS, LDiversity, l_diversity
    from .likeness import LIKENESS_FORMS, BetaLikeness, beta_likeness
    from .population import PopulationModel
    from .presence import DeltaPresence, delta_presence
    from .release_check import check_release, published_groups_frame
    from .release_verify import Verification, public_leaks, verify_written
    from .tcloseness import DISTANCES, TCloseness, t_closeness
    from .verdict import Verdict

#: Exported name -> its submodule.
_WHERE = {
    **dict.fromkeys(["ClassBounds", "PrivacyModel"], "base"),
    **dict.fromkeys(["MODELS", "as_models", "model_from_config"], "config"),
    **dict.fromkeys(["DeltaDisclosure", "delta_disclosure"], "disclosure"),
    **dict.fromkeys(
        ["Frequencies", "check_frequencies", "column_codes", "frequencies_of"], "frequencies"
    ),
    "Groups": "groups",
    **dict.fromkeys(["KAnonymity", "k_anonymity"], "kanonymity"),
    **dict.fromkeys(["ESTIMATORS", "KMap", "k_map"], "kmap"),
    **dict.fromkeys(["FORMS", "LDiversity", "l_diversity"], "ldiversity"),
    **dict.fromkeys(["LIKENESS_FORMS", "BetaLikeness", "beta_likeness"], "likeness"),
    "PopulationModel": "population",
    **dict.fromkeys(["DeltaPresence", "delta_presence"], "presence"),
    **dict.fromkeys(["check_release", "published_groups_frame"], "release_check"),
    **dict.fromkeys(["Verification", "public_leaks", "verify_written"], "release_verify"),
    **dict.fromkeys(["DISTANCES", "TCloseness", "t_closeness"], "tcloseness"),
    "Verdict": "verdict",
}

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = [
    "Verification",
    "public_leaks",
    "verify_written",
    "DISTANCES",
    "ESTIMATORS",
    "FORMS",
    "LIKENESS_FORMS",
    "MODELS",
    "BetaLikeness",
    "DeltaDisclosure",
    "DeltaPresence",
    "ClassBounds",
    "Frequencies",
    "Groups",
    "KAnonymity",
    "KMap",
    "LDiversity",
    "PPrivacy",
    "PopulationModel",
    "PrivacyModel",
    "Profile",
    "TCloseness",
    "Verdict",
    "as_models",
    "beta_likeness",
    "check_frequencies",
    "check_release",
    "column_codes",
    "covers",
    "delta_disclosure",
    "delta_presence",
    "frequencies_of",
    "k_anonymity",
    "k_map",
    "l_diversity",
    "model_from_config",
    "p_privacy",
    "profile",
    "published_groups_frame",
    "t_closeness",
]
