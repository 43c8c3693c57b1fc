"""The schema lint's ``derived_from_published``: a numeric quasi-identifier that columns
published unchanged give back as their exact linear combination
(:mod:`microanon.core.combinations`).

On the European Social Survey's British file (round 9), ``immigsent`` is the sum of the three
immigration items: a release that generalizes it and publishes the items unchanged claims
classes the items split again.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import gss_warning_config, survey

from microanon import InputError, lint_schema
from microanon.apps.config import load_config
from microanon.core.combinations import MAX_PARTS, MIN_ROWS, Combination, exact_combinations
from microanon.core.lint import ACCEPTABLE_KINDS, DERIVED_KIND, FINDING_KINDS

#: The roles ``microanon init`` proposed for ESS9GB before the lint knew of combinations.
ESS_ROLES = {
    "name": "identifier",
    "idno": "identifier",
    "essround": "insensitive",
    "edition": "insensitive",
    "cntry": "insensitive",
    "brncntr": "insensitive",
    **dict.fromkeys(["region", "stintrvw", "endintrvw", "immigsent", "agea"], "quasi"),
    **dict.fromkeys(["female", "eduyrs", "uempla"], "quasi"),
    **dict.fromkeys(["imbgeco", "imueclt", "imwbcnt", "hinctnta", "lrscale"], "sensitive"),
}
ITEMS = ("imbgeco", "imueclt", "imwbcnt")


def exact_combination(data: pd.DataFrame, column: str, candidates: list[str]) -> Combination | None:
    """The combination ``column`` is of ``candidates``, if any."""
    found = exact_combinations(data, [column], candidates)
    return found[0] if found else None


@pytest.fixture(scope="module")
def ess() -> pd.DataFrame:
    return survey("ess9gb")


def test_a_scale_score_beside_its_items_is_found(ess):
    """The items published as insensitive (every method publishes them unchanged): a finding
    that refuses the release."""
    report = lint_schema(ess, {**ESS_ROLES, **dict.fromkeys(ITEMS, "insensitive")})
    (finding,) = [f for f in report.findings if f.kind == DERIVED_KIND]
    assert (finding.column, finding.related) == ("immigsent", ITEMS)
    assert finding.evidence == (
        "the sum of imbgeco, imueclt and imwbcnt (insensitive) on all 1,850 rows where they are "
        "known (immigsent = imbgeco + imueclt + imwbcnt), which are published unchanged: anyone "
        "can compute the quasi-identifier again from them, however far the release generalizes "
        "it"
    )
    assert not report.ok and finding in report.blocking
    with pytest.raises(InputError, match="give imbgeco, imueclt and imwbcnt the role quasi too"):
        report.raise_if_blocking()
    # what it says holds: the items give the score back on those rows
    known = ess[["immigsent", *ITEMS]].dropna()
    assert len(known) == 1_850 and (known[list(ITEMS)].sum(axis=1) == known["immigsent"]).all()


def test_a_score_beside_its_sensitive_items_is_a_caution(ess):
    """The items sensitive, as ``init`` had proposed them: a method may publish them apart from
    the records (Anatomy) or randomized, so the lint says it, as it says a sensitive column
    that determines a quasi-identifier, and refuses nothing."""
    report = lint_schema(ess, ESS_ROLES)
    assert report.findings == [] and report.ok
    assert [c.column for c in report.derived] == ["immigsent"]
    (caution,) = [a for a in report.alerts if "immigsent" in a]
    assert caution.startswith(
        "quasi-identifier immigsent is the sum of imbgeco, imueclt and imwbcnt (sensitive) on "
        "all 1,850 rows where they are known (immigsent = imbgeco + imueclt + imwbcnt): where a "
        "method publishes them with the records (a sensitive column unchanged, a weight), "
        "anyone can compute it again from them"
    )
    assert "give immigsent the role sensitive or insensitive" in caution


def test_the_finding_cannot_be_accepted(ess):
    assert DERIVED_KIND in FINDING_KINDS and DERIVED_KIND not in ACCEPTABLE_KINDS
    with pytest.raises(InputError) as refused:
        lint_schema(
            ess,
            {**ESS_ROLES, **dict.fromkeys(ITEMS, "insensitive")},
            accept={"immigsent": [DERIVED_KIND]},
        )
    assert str(refused.value).startswith(
        "lint: accept: immigsent: derived_from_published cannot be accepted, since the columns "
        "published unchanged beside immigsent give it back"
    )
    assert "give immigsent the role sensitive or insensitive" in str(refused.value)


@pytest.mark.parametrize(
    "change",
    [
        {"immigsent": "sensitive"},  # published like its items
        dict.fromkeys(ITEMS, "quasi"),  # the items protected with it
        {"imwbcnt": "identifier"},  # two items do not give the sum
    ],
)
def test_a_score_published_like_its_items_or_with_them_protected_is_no_finding(ess, change):
    report = lint_schema(ess, {**ESS_ROLES, **change})
    assert report.derived == [] and not [a for a in report.alerts if "immigsent" in a]


def test_a_mean_stored_rounded_and_a_difference_are_found(ess):
    data = ess.assign(
        mean=(ess["imbgeco"] + ess["imueclt"] + ess["imwbcnt"]).div(3).round(2),
        gap=ess["imbgeco"] - ess["imueclt"],
    )
    mean = exact_combination(data, "mean", ["lrscale", *ITEMS, "hinctnta"])
    assert mean is not None and mean.parts == ITEMS and mean.name == "the mean"
    assert mean.formula == "mean = (imbgeco + imueclt + imwbcnt) / 3"
    assert 0 < mean.residual <= 0.005 and mean.rows == 1_850
    gap = exact_combination(data, "gap", ["lrscale", *ITEMS])
    assert gap is not None and gap.formula == "gap = imbgeco - imueclt" and gap.residual == 0


@pytest.mark.parametrize("name", ["gss_abortion", "anes_partytherms", "ess10no", "tv16"])
def test_no_numeric_column_of_a_real_survey_is_a_combination_of_the_others(name):
    """Every numeric column as the quasi-identifier, every other one as a part: none is found
    (the lint reports no combination the data do not hold)."""
    data = survey(name)
    numeric = [c for c in data.columns if pd.api.types.is_numeric_dtype(data[c])]
    for column in numeric:
        assert exact_combination(data, column, [c for c in numeric if c != column]) is None


def test_the_gss_warning_configuration_gets_no_new_finding(tmp_path):
    """The suite's GSS configuration (numeric quasi-identifiers year, age and educ) lints as
    before: no finding."""
    config = load_config(gss_warning_config(tmp_path))
    assert lint_schema(config.read_data(), config.schema).findings == []


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(60, 300),
    width=st.integers(2, 8),
    missing=st.floats(0.0, 0.3),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_a_column_made_as_a_linear_combination_is_found(rows, width, missing, seed, data):
    """Whole numbers drawn independently, one column made of some of them (any coefficients,
    an intercept), missing where a part is: the lint names it with exactly those parts, beside
    a column missing on most rows that the search leaves out."""
    rng = np.random.default_rng(seed)
    names = [f"x{j}" for j in range(width)]
    table = pd.DataFrame({c: rng.integers(0, 100, rows).astype(float) for c in names})
    used = sorted(data.draw(st.sets(st.integers(0, width - 1), min_size=2), label="used"))
    weights = [data.draw(st.sampled_from([-3, -1, -0.5, 0.25, 1, 2, 7])) for _ in used]
    intercept = data.draw(st.sampled_from([0.0, 1.0, -4.5, 100.0]), label="intercept")
    table["q"] = intercept + sum(w * table[names[j]] for w, j in zip(weights, used, strict=True))
    gaps = rng.choice(rows, int(missing * rows), replace=False)  # (at least 42 rows left)
    table.loc[gaps, names[used[0]]] = np.nan
    table["sparse"] = np.where(rng.random(rows) < 0.9, np.nan, rng.integers(0, 100, rows))
    roles = {"q": {"role": "quasi", "kind": "numeric"}, "sparse": "insensitive"}
    roles.update({c: data.draw(st.sampled_from(["sensitive", "insensitive"])) for c in names})
    report = lint_schema(table, roles)
    (derived,) = report.derived
    assert derived.column == "q" and derived.parts == tuple(names[j] for j in used)
    findings = [f for f in report.findings if f.kind == DERIVED_KIND]
    cautions = [a for a in report.cautions if a.startswith("quasi-identifier q is ")]
    if all(roles[names[j]] == "insensitive" for j in used):  # a finding, else a caution
        assert [f.related for f in findings] == [derived.parts] and cautions == []
    else:
        assert findings == [] and len(cautions) == 1
    found = exact_combination(table, "q", [*names, "sparse"])
    assert found is not None and found.rows == int(table[names[used[0]]].notna().sum())
    assert np.allclose(found.coefficients, weights) and found.intercept == pytest.approx(intercept)


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(2, 400), width=st.integers(2, 8), seed=st.integers(0, 2**32 - 1))
def test_columns_drawn_independently_are_no_combination(rows, width, seed):
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({f"x{j}": rng.integers(0, 10, rows) for j in range(width + 1)})
    assert exact_combination(table, "x0", list(table.columns[1:])) is None


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(2, MIN_ROWS - 1), width=st.integers(2, 12), seed=st.integers(0, 2**32 - 1))
def test_a_table_too_small_to_tell_is_no_combination(rows, width, seed):
    """Fewer rows than :data:`MIN_ROWS`: a column the parts give exactly is not reported (as
    many rows as columns make any column a combination of the others)."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({f"x{j}": rng.normal(size=rows) for j in range(width)})
    table["q"] = table["x0"] + table["x1"]
    assert exact_combination(table, "q", list(table.columns[:-1])) is None


def test_among_more_candidates_than_searched_the_parts_are_found():
    """More candidates than :data:`MAX_PARTS`: those most correlated with the column are
    searched, among them the parts."""
    rng = np.random.default_rng(7)
    table = pd.DataFrame({f"x{j}": rng.integers(0, 50, 400) for j in range(MAX_PARTS + 15)})
    table["q"] = table["x3"] - 2 * table["x70"]
    found = exact_combination(table, "q", list(table.columns[:-1]))
    assert found is not None and found.formula == "q = x3 - 2 * x70"


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(MIN_ROWS, 200),
    width=st.integers(2, 6),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_columns_searched_together_are_searched_as_alone(rows, width, seed, data):
    """Several columns searched in one call (the candidates prepared once for the columns known
    on the same rows) give what each gives alone: columns missing on the same rows or not, some
    combinations of the candidates, some not."""
    rng = np.random.default_rng(seed)
    names = [f"x{j}" for j in range(width)]
    table = pd.DataFrame({c: rng.integers(0, 20, rows).astype(float) for c in names})
    table.loc[rng.random(rows) < 0.2, names[0]] = np.nan
    gaps = rng.random(rows) < 0.3
    targets = []
    for i in range(data.draw(st.integers(1, 5), label="columns")):
        made = data.draw(st.booleans(), label="made")
        values = table[names[0]] + 2 * table[names[1]] - i if made else rng.integers(0, 9, rows)
        table[f"q{i}"] = np.where(gaps if data.draw(st.booleans()) else False, np.nan, values)
        targets.append(f"q{i}")
    together = exact_combinations(table, targets, names)
    alone = [c for q in targets if (c := exact_combination(table, q, names)) is not None]
    assert together == alone
