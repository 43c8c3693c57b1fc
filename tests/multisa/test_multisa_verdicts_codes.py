"""The ℓ-diversity verdicts of a multi-SA release counted on its columns' codes (each distinct
value's text made once) against the verdicts counted on the texts of every row as before: on
random releases (hypothesis), on releases altered in memory (a value listed twice, a SID left
out, missing values, other column types), and on a real release read back from its files
within a run's shared codes."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_multisa_properties import mixed_or_refused, rating_or_refused, tables_and_l

from microanon.core.errors import InputError
from microanon.core.factorize import shared_codes
from microanon.core.release import Release
from microanon.methods.multisa import mixed_model, rating
from microanon.models.groups import Groups
from microanon.models.ldiversity import LDiversity
from microanon.models.multisa_check import (
    _CLASS,
    GROUP_COLUMN,
    SUPPRESSED_SID,
    _ells,
    _nothing_published,
    multisa_verdicts,
)


def _old_verdicts(release: Release) -> list:
    """The verdicts as counted before: every row's text (``astype(str)``) concatenated."""
    meta = release.metadata
    sensitive = [str(s) for s in meta.get("sensitive") or []]
    ells = _ells((meta.get("parameters") or {}).get("l"), sensitive)
    sac, at, idt = (release.tables[n] for n in ("sac", "at", "idt"))
    verdicts = []
    for s in sensitive:
        listed = idt.loc[idt["attribute"].astype(str) == s]
        sids = listed["sid"].astype(str)
        named = {str(v) for v in at[s].dropna().unique()} if s in at.columns else set()
        unlisted = sorted(named - {SUPPRESSED_SID} - set(sids.unique().tolist()))
        if unlisted:
            raise InputError(
                f"multi-sa release: at names SID(s) of {s!r} that idt does not list "
                f"(e.g. {unlisted[0]!r})"
            )
        classes = pd.DataFrame(
            {
                _CLASS: pd.concat(
                    ["group " + sac[GROUP_COLUMN].astype(str), "SID " + sids], ignore_index=True
                ),
                s: pd.concat([sac[s].astype(str), listed["value"].astype(str)], ignore_index=True),
            }
        )
        if not len(classes):
            verdicts.append(_nothing_published(ells[s], s))
            continue
        verdict = LDiversity(ells[s], form="frequency").check(
            Groups.from_frame(classes, [_CLASS], s)
        )
        verdicts.append(dataclasses.replace(verdict, model=f"{verdict.model} of {s}"))
    return verdicts


def _same_verdicts(release: Release, shared: bool = False) -> None:
    try:
        want = _old_verdicts(release)
    except InputError as refused:
        with pytest.raises(InputError) as got:
            multisa_verdicts(release)
        assert str(got.value) == str(refused)
        return
    if shared:
        with shared_codes():
            got = multisa_verdicts(release)
    else:
        got = multisa_verdicts(release)
    assert len(got) == len(want)
    for new, old in zip(got, want, strict=True):
        assert (new.model, new.parameters, new.holds, new.value, new.groups, new.lowest) == (
            old.model,
            old.parameters,
            old.holds,
            old.value,
            old.groups,
            old.lowest,
        )
        pd.testing.assert_frame_equal(new.offending, old.offending)


def _altered(release: Release, how: str) -> Release:
    """``release`` with one of its tables changed as a faulty file or a hand could change it."""
    sac, at, idt = (release.tables[n].copy() for n in ("sac", "at", "idt"))
    if how == "doubled" and len(idt):
        idt = pd.concat([idt, idt.iloc[[0, 0]]], ignore_index=True)
    elif how == "dropped" and len(idt):
        idt = idt[idt["sid"] != idt["sid"].iloc[0]]
    elif how == "missing sid" and len(idt):
        idt["sid"] = idt["sid"].astype(object)
        idt.loc[idt.index[0], "sid"] = None
    elif how == "missing value" and len(idt):
        idt["value"] = idt["value"].astype(object)
        idt.loc[idt.index[-1], "value"] = None
    elif how == "float groups" and len(sac):
        sac[GROUP_COLUMN] = sac[GROUP_COLUMN].astype(float)
    elif how == "mixed values" and len(sac):
        column = release.metadata["sensitive"][0]
        sac[column] = sac[column].astype(object)
        sac.loc[sac.index[0], column] = 1
    elif how == "str dtype":
        idt = idt.astype("str")
    return Release(release.kind, {"sac": sac, "at": at, "idt": idt}, release.metadata)


ALTERATIONS = [
    "none",
    "doubled",
    "dropped",
    "missing sid",
    "missing value",
    "float groups",
    "mixed values",
    "str dtype",
]


@settings(max_examples=150, deadline=None)
@given(
    tables_and_l(),
    st.booleans(),
    st.integers(0, 2**32 - 1),
    st.sampled_from(ALTERATIONS),
    st.booleans(),
)
def test_verdicts_on_codes_are_those_on_every_row_s_text(case, mixed, seed, how, shared):
    df, ell = case
    release = mixed_or_refused(df, ell, 0.8, seed) if mixed else rating_or_refused(df, ell, seed)
    if release is None:
        return
    _same_verdicts(_altered(release, how), shared)


@pytest.mark.parametrize("method", ["rating", "mixed_model"])
def test_verdicts_on_codes_of_a_real_release_read_back(tmp_path, method):
    """GSSvocab (4,000 records): the release saved and loaded within a run's shared codes, as
    the verification reads it, and with a value listed twice."""
    from real_surveys import survey

    gss = survey("gss_vocab").dropna().head(4000).reset_index(drop=True)
    gss["vocab"] = gss["vocab"].astype(int).astype(str)
    schema = {"gender": "quasi", "nativeBorn": "quasi", "vocab": "sensitive"}
    schema |= {"educGroup": "sensitive", "ageGroup": "sensitive"}
    make = rating if method == "rating" else mixed_model
    params = {"l": 3} if method == "rating" else {"l": 3, "min_confidence": 0.5}
    with shared_codes():
        release = make(gss[list(schema)], schema, rng=2, **params)
        release.save(tmp_path / "out")
        loaded = Release.load(tmp_path / "out", like=release)
        assert len(loaded.tables["at"]) + len(loaded.tables["sac"]) > 1000
        _same_verdicts(loaded, shared=True)
    _same_verdicts(loaded)
    _same_verdicts(_altered(loaded, "doubled"))
