"""Text whose every value starts with its own number is a list of answers in order: init
proposes a balanced tree over that order, not a flat hierarchy (each value or ``*``). ISLR's
``Wage`` (3,000 men) writes its education ``1. < HS Grad`` to ``5. Advanced Degree``; with the
flat hierarchy every published row had education ``*``. A marital status numbered the same way
(``maritl``, ``1. Never Married`` to ``5. Separated``) is no order, and stays flat."""

from __future__ import annotations

import pandas as pd
from real_surveys import rdataset

from microanon.apps.init.hierarchies import plan_hierarchy
from microanon.apps.init.profile import profile_table


def _plans(frame: pd.DataFrame) -> dict:
    return {
        p.name: plan_hierarchy(frame[p.name], p, missing_leaf=False) for p in profile_table(frame)
    }


def test_wage_s_education_is_a_balanced_tree_and_its_marital_status_flat():
    plans = _plans(rdataset("ISLR", "Wage")[["education", "maritl", "race"]])
    assert plans["education"].spec == {"builder": "balanced", "fanout": 2}
    assert "(1. < HS Grad first, 5. Advanced Degree last)" in plans["education"].how
    for column in ("maritl", "race"):
        assert plans[column].spec is None and plans[column].how.startswith("flat"), column


def test_numbers_out_of_text_order_or_repeated_keep_a_flat_hierarchy():
    ten = [f"{i}. answer" for i in range(1, 11)]  # ("10. answer" sorts before "2. answer")
    frame = pd.DataFrame(
        {
            "ten": ten * 3,
            "twice": ["1. a", "1. b", "2. c", "3. d", "4. e"] * 6,
            "some": ["1. a", "2. b", "c", "3. d", "4. e"] * 6,
            "five": ["1. a", "2) b", "3 - c", "4. d", "5. e"] * 6,
        }
    )
    plans = _plans(frame)
    for column in ("ten", "twice", "some"):
        assert plans[column].spec is None, column
    assert plans["five"].spec == {"builder": "balanced", "fanout": 2}
