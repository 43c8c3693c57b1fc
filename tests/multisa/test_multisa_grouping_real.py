"""Algorithm 11's grouping (the trie over the pools' combinations of values, each record's
values and ids looked up by its combination) against the literal first fit on real surveys:
the SAC of the mixed model's strong rules on TV16 (CCES 2016) and GSSvocab."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_multisa_properties import first_fit

import microanon.methods.multisa.grouping as grouping_module
from microanon.methods.multisa.grouping import group_records
from microanon.methods.multisa.partition import sac_partition
from microanon.methods.multisa.rules import rule_codes


def _sac_of(data: pd.DataFrame, conf: float) -> tuple[np.ndarray, np.ndarray]:
    """Codes of the sensitive columns and the SAC of their strong rules at ``conf``."""
    codes = np.column_stack([pd.factorize(data[c])[0] for c in data.columns]).astype(np.int64)
    cards = [int(codes[:, j].max()) + 1 for j in range(codes.shape[1])]
    columns = [codes[:, j] for j in range(codes.shape[1])]
    rules = rule_codes(columns, cards, conf, 1)
    return codes, sac_partition(columns, rules.strong_values(cards)).sac


@pytest.mark.parametrize("window", [0, grouping_module._WINDOW])
@pytest.mark.parametrize(
    ("name", "columns", "rows", "conf", "ell"),
    [
        ("tv16", ["votetrump", "ideo", "religimp", "churchatd"], 1500, 0.9, 2),
        ("tv16", ["ideo", "religimp", "churchatd"], 1200, 0.6, 3),
        ("gss_vocab", ["vocab", "educGroup", "ageGroup"], 1500, 0.7, 2),
    ],
)
def test_grouping_of_a_real_sac_is_literal_first_fit(window, name, columns, rows, conf, ell):
    from real_surveys import survey

    data = survey(name)[columns].dropna().head(rows).reset_index(drop=True)
    codes, sac = _sac_of(data, conf)
    assert sac.any() and not sac.all()
    original = grouping_module._WINDOW
    grouping_module._WINDOW = window  # 0: every pick goes through the trie
    try:
        got = group_records(codes, sac, ell)
    finally:
        grouping_module._WINDOW = original
    groups, deleted = first_fit(codes, sac, ell)
    assert got.groups.tolist() == groups
    assert got.deleted.tolist() == deleted
    assert len(groups)
