"""The answer-scale rule says how many points the scale it reads has, and how many it holds."""

from __future__ import annotations

import numpy as np
import pandas as pd
from real_surveys import rdataset

from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import propose_roles
from microanon.core.schema import Role


def _reasons(frame: pd.DataFrame) -> dict[str, str]:
    return {p.column: p.reason for p in propose_roles(frame, profile_table(frame))}


def test_a_scale_with_a_gap_says_the_points_it_holds():
    """MASS's birthwt: physician visits ``ftv`` are 0, 1, 2, 3, 4 and 6, read as a scale of 0
    to 6; it had said "(6 points)", the values it holds, of a scale of seven."""
    reason = _reasons(rdataset("MASS", "birthwt"))["ftv"]
    assert "answer-scale rule: whole numbers 0 to 6 (7 points, 6 of them held)," in reason


def test_a_full_scale_says_its_points():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"q1": rng.integers(1, 6, 300), "sex": rng.choice(["f", "m"], 300)})
    assert "answer-scale rule: whole numbers 1 to 5 (5 points), as" in _reasons(frame)["q1"]


def test_counts_of_people_named_so_are_no_answers():
    """Counts of a household's members read as a 0-to-n scale had been proposed sensitive, as
    opinions (wooldridge's apple: ``numlt5`` children under 5, ``hhsize``; Ecdat's Tobacco:
    ``nadults``; wooldridge's wage1: ``numdep`` dependants): others know them, so they are
    keys."""
    for package, item, columns in [
        ("wooldridge", "apple", ["numlt5", "num5_17", "num18_64", "numgt64", "hhsize"]),
        ("Ecdat", "Tobacco", ["nadults", "nkids"]),
        ("wooldridge", "wage1", ["numdep"]),
    ]:
        frame = rdataset(package, item)
        roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
        for column in columns:
            assert roles[column].role is Role.QUASI, (item, column, roles[column].reason)
