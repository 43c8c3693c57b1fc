"""Privacy-model checks on any pandas DataFrame: k-anonymity, ℓ-diversity, t-closeness,
β-likeness, δ-disclosure privacy, and against a population δ-presence and k-map.

Every check groups the table by its quasi-identifiers once (:class:`Groups`, fully vectorized)
and returns a :class:`Verdict`: whether the model holds, the achieved value and the offending
groups. Pass a prebuilt ``Groups`` to share the grouping between several checks, or use
:func:`profile` for all achieved values at once.

>>> import pandas as pd
>>> df = pd.DataFrame({"age": ["2*", "2*", "3*", "3*"], "disease": ["flu", "cold", "flu", "flu"]})
>>> k_anonymity(df, ["age"], k=2).holds
True
>>> l_diversity(df, ["age"], "disease", l=2).value
1
"""

from __future__ import annotations

from .base import PrivacyModel
from .config import MODELS, as_models, model_from_config
from .disclosure import DeltaDisclosure, delta_disclosure
from .groups import Groups
from .kanonymity import KAnonymity, k_anonymity
from .kmap import ESTIMATORS, KMap, k_map
from .ldiversity import FORMS, LDiversity, l_diversity
from .likeness import LIKENESS_FORMS, BetaLikeness, beta_likeness
from .p_privacy import PPrivacy, covers, p_privacy
from .population import PopulationModel
from .presence import DeltaPresence, delta_presence
from .profile import Profile, profile
from .release_check import check_release, published_groups_frame
from .release_verify import Verification, public_leaks, verify_written
from .tcloseness import DISTANCES, TCloseness, t_closeness
from .verdict import Verdict

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
    "check_release",
    "covers",
    "delta_disclosure",
    "delta_presence",
    "k_anonymity",
    "k_map",
    "l_diversity",
    "model_from_config",
    "p_privacy",
    "profile",
    "published_groups_frame",
    "t_closeness",
]
