"""The claimed models checked on a table's frequency table give what they give on its rows.

:func:`microanon.models.check_release` checks a one-table release on the frequency table of its
checked columns (:mod:`microanon.models.frequencies`); here every verdict it gives (holds, value,
offending classes, number of classes) is compared with the plain row-based check, each model's
``check`` on the published DataFrame itself, on random tables with missing values and repeated
rows and random claims; a failure to check is compared too (the first model's error).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
from hypothesis import event, given, settings
from hypothesis import strategies as st

from microanon.core.errors import MicroanonError
from microanon.core.release import Release
from microanon.models import (
    BetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    KAnonymity,
    KMap,
    LDiversity,
    TCloseness,
    check_frequencies,
    check_release,
    frequencies_of,
    verify_written,
)

QUASI = ["zip", "age"]


def _model(draw: st.DrawFn, numeric: bool, population: pd.DataFrame) -> object:
    kind = draw(st.sampled_from(["k", "l", "t", "beta", "delta", "kmap", "presence"]))
    if kind == "k":
        return KAnonymity(draw(st.integers(1, 4)))
    if kind == "l":
        form = draw(st.sampled_from(["distinct", "entropy", "recursive", "frequency"]))
        counting = form in ("distinct", "recursive")
        ell = draw(st.integers(1, 3)) if counting else draw(st.sampled_from([1, 1.5, 2]))
        c = draw(st.sampled_from([1.0, 2.0])) if form == "recursive" else None
        return LDiversity(ell, form=form, c=c) if c is not None else LDiversity(ell, form=form)
    if kind == "t":
        distance = draw(st.sampled_from(["equal", "ordered"] if numeric else ["equal"]))
        return TCloseness(draw(st.sampled_from([0.1, 0.3, 0.6])), distance=distance)
    if kind == "beta":
        return BetaLikeness(draw(st.sampled_from([0.5, 1.0, 3.0])), form="basic")
    if kind == "delta":
        return DeltaDisclosure(draw(st.sampled_from([0.5, 1.0, 2.0])))
    if kind == "kmap":
        return KMap(draw(st.integers(1, 5)), population=population, count="n")
    return DeltaPresence(0.0, draw(st.sampled_from([0.5, 1.0])), population=population, count="n")


@st.composite
def _case(draw: st.DrawFn) -> tuple[Release, list[str]]:
    n = draw(st.integers(1, 25))
    missing = draw(st.booleans())
    zips = draw(
        st.lists(st.sampled_from(["a", "b", "c", None if missing else "a"]), min_size=n, max_size=n)
    )
    ages = draw(st.lists(st.sampled_from([20, 30, 40]), min_size=n, max_size=n))
    numeric = draw(st.booleans())
    pool = [1.0, 2.0, 5.0, np.nan] if numeric else ["flu", "cold", "hiv", None]
    sick = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    visit = draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n))
    table = pd.DataFrame({"zip": zips, "age": ages, "visit": visit, "sick": sick})
    known = table.dropna(subset=QUASI)
    population = pd.concat(
        [known[QUASI], pd.DataFrame({"zip": ["a", "b", "c"], "age": [20, 30, 40]})],
        ignore_index=True,
    ).assign(n=draw(st.integers(1, 3)))
    models = [draw(_model(numeric, population)) for _ in range(draw(st.integers(1, 3)))]
    linkable = draw(st.sampled_from([[], ["visit"]]))
    release = Release(
        "generalized", {"data": table}, {"quasi": QUASI, "sensitive": ["sick"], "models": []}
    )
    return release, models, linkable


_model = st.composite(_model)


def _plain(release: Release, models: list, linkable: list[str]) -> list | str:
    """Each model's own check on the published rows (as check_release checked them before)."""
    table = release.data
    linked = QUASI + linkable
    try:
        return [
            m.check(
                table,
                QUASI if m.needs_population else linked,
                "sick" if m.needs_sensitive else None,
            )
            for m in models
        ]
    except MicroanonError as exc:
        return str(exc)


def _same_number(a: object, b: object) -> bool:
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b and type(a) is type(b)


@settings(max_examples=40, deadline=None)
@given(_case())
def test_frequency_table_verdicts_equal_row_verdicts(case) -> None:
    release, models, linkable = case
    expected = _plain(release, models, linkable)
    # grouped on the checked columns, or on more of them (as the verification groups once for
    # its checks and the public report): the same verdicts
    wide = frequencies_of(release.data, [*QUASI, "visit", "sick"])
    for frequencies in (None, wide):
        _check_alike(expected, release, models, linkable, frequencies)


def _check_alike(expected, release, models, linkable, frequencies) -> None:
    try:
        got = check_release(release, models, linkable=linkable, frequencies=frequencies)
    except MicroanonError as exc:
        got = str(exc)
    event("refused" if isinstance(expected, str) else "checked")
    if isinstance(expected, str):
        assert got == expected
        return
    event("all hold" if all(v.holds for v in expected) else "some fail")
    assert not isinstance(got, str), got
    for e, g in zip(expected, got, strict=True):
        assert (g.model, g.holds, g.groups, g.parameters.keys()) == (
            e.model,
            e.holds,
            e.groups,
            e.parameters.keys(),
        )
        assert _same_number(g.value, e.value), (g.value, e.value)
        assert _same_number(g.lowest, e.lowest)
        pd.testing.assert_frame_equal(g.offending, e.offending)


def test_frequency_table_keeps_first_appearance_and_counts_missing_values() -> None:
    table = pd.DataFrame(
        {"zip": ["b", "a", "b", None, "a"], "sick": ["flu", None, "flu", "hiv", None]}
    )
    freq = frequencies_of(table, ["zip", "sick", "zip"])
    pd.testing.assert_frame_equal(freq.combinations, table.take([0, 1, 3]).reset_index(drop=True))
    assert list(freq.counts) == [2, 2, 1] and freq.records == 5
    # a missing quasi-identifier is counted in records, as on the rows
    try:
        check_frequencies(freq, [KAnonymity(2)], ["zip"], ["zip"], None)
    except MicroanonError as exc:
        assert "1 missing value(s)" in str(exc)
    else:
        raise AssertionError("a missing quasi-identifier value must be refused")


def test_written_release_is_read_once_and_its_public_part_derived(tmp_path) -> None:
    """The public part verify_written hands on is the one public/ loads alone; a key the public
    manifest holds without declaring it is found; the verdicts are check_release's on the rows."""
    table = pd.DataFrame(
        {
            "zip": ["a", "a", "b", "b", "b"],
            "visit": ["x", "y", "x", "x", "y"],
            "sick": list("pqpqr"),
        }
    )
    meta = {"quasi": ["zip"], "sensitive": ["sick"], "models": [{"k_anonymity": {"k": 2}}]}
    release = Release("generalized", {"data": table}, {**meta, "note": "internal"})
    release.write_parts(tmp_path, "csv")
    check = verify_written(tmp_path, table, linkable=["visit"])
    public = Release.load(tmp_path / "public")
    assert check.public.equals(public) and not check.public.has_internal
    assert not check.public.metadata.get("note")
    (verdict,) = check.verdicts
    assert (verdict.holds, verdict.value) == (False, 1)  # zip and visit counted: (b, y) alone
    assert check.counted_quasi == ["visit"]
    # grouped once, on the checked columns and the sensitive attribute, for the public report
    distinct = check.public.data.drop_duplicates(ignore_index=True)
    pd.testing.assert_frame_equal(check.grouped.combinations, distinct)
    assert list(check.grouped.counts) == [1] * 5
    manifest = tmp_path / "public" / "release.json"
    written = json.loads(manifest.read_text())
    written["metadata"]["note"] = "leaked"
    manifest.write_text(json.dumps(written))
    assert verify_written(tmp_path, table).problems == [
        "public metadata holds undeclared keys note"
    ]


def test_frequency_table_of_more_combinations_than_one_key_numbers() -> None:
    """Columns whose value counts multiply past one int64 key are renumbered on the way."""
    rng = np.random.default_rng(0)
    table = pd.DataFrame({f"c{i}": rng.permutation(300) % (300 - i) for i in range(8)})
    table = pd.concat([table, table.iloc[:50]], ignore_index=True)
    freq = frequencies_of(table, list(table.columns))
    expected = table.groupby(list(table.columns), sort=False).size()
    assert list(freq.counts) == list(expected)
    pd.testing.assert_frame_equal(freq.combinations, expected.index.to_frame(index=False))
