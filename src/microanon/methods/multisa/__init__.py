"""Multiple sensitive attributes with strong association rules.

The mixed model of Yi & Shi, *Privacy Protection Method for Multiple Sensitive Attributes Based on
Strong Rule*, Mathematical Problems in Engineering 2015, Art. ID 464731, built on Rating (Liu, Luo &
Huang, *Rating: Privacy Preservation for Multiple Attributes with Different Sensitivity
Requirements*, ICDM Workshops 2011). Algorithm, definition and lemma numbers below are Yi & Shi's.

* :func:`strong_rules` — strong rules between values of different sensitive attributes.
* :func:`itemset_rules` — strong rules with several values on a side (mlxtend's FP-growth); the
  mixed model uses them with ``max_items > 2``.
* :func:`mixed_model` — the strong-rule mixed model: SAC~ groups for the records holding strong
  values, improved Rating for the rest (release kind ``multi-sa``).
* :func:`rating` — Rating alone, with the original (stable bubble sort) or the improved SID
  creation.
* Building blocks: :func:`sac_partition` (Algorithm 7), :func:`cluster_attributes`
  (Algorithm 10), :func:`group_records` (Algorithm 11), :func:`create_sids` (Algorithm 19 or the
  original), :func:`heuristic_resort` (Algorithm 13), :func:`dangerous_buckets` (Definition 18).
"""

from .clustering import cluster_attributes
from .grouping import Grouping, group_records
from .itemsets import (
    ITEMSET_RULE_COLUMNS,
    ItemsetRuleCodes,
    check_max_items,
    check_min_support,
    itemset_rule_codes,
    itemset_rules,
)
from .partition import Partition, sac_partition
from .release import GROUP_COLUMN, IDT_COLUMNS, SUPPRESSED_SID, mixed_model, rating
from .rules import RULE_COLUMNS, RuleCodes, check_min_confidence, rule_codes, strong_rules
from .sids import Sids, assign_sids, create_sids, dangerous_buckets, heuristic_resort

__all__ = [
    "GROUP_COLUMN",
    "Grouping",
    "IDT_COLUMNS",
    "ITEMSET_RULE_COLUMNS",
    "ItemsetRuleCodes",
    "Partition",
    "RULE_COLUMNS",
    "RuleCodes",
    "SUPPRESSED_SID",
    "Sids",
    "assign_sids",
    "check_max_items",
    "check_min_confidence",
    "check_min_support",
    "cluster_attributes",
    "create_sids",
    "dangerous_buckets",
    "group_records",
    "heuristic_resort",
    "itemset_rule_codes",
    "itemset_rules",
    "mixed_model",
    "rating",
    "rule_codes",
    "sac_partition",
    "strong_rules",
]
