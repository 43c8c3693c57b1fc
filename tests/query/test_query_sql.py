"""SQL over distribution releases: the answers of Koudas et al.'s employee examples through DuckDB,
several aggregates, GROUP BY, true answers from the original, the supported subset and its refusals,
and the method's output."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from paper_tables import employees

from microanon import InputError, Release
from microanon.datasets import load_adult
from microanon.methods.distribution import distribution_anonymize
from microanon.query import BoundTables, parse_query, query, where_mask

K = 1000
EMPLOYEES = employees(K)
EMPLOYEES.insert(2, "age", [31, 45, 52, 38, 29, 33, 41, 36, 58, 47, 30])
GROUPS = [1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3]
FIGURE2 = [
    (1, 30, 30, 1), (1, 40, 40, 1), (1, 50, 50, 1), (1, 60, 60, 1),
    (2, 30, 40, 1), (2, 50, 60, 1), (2, 30, 60, 1),
    (3, 30, 40, 1), (3, 50, 60, 1), (3, 30, 60, 2),
]  # fmt: skip


@pytest.fixture(scope="module")
def release() -> Release:
    qit = EMPLOYEES[["zipcode", "gender", "age"]].assign(group=GROUPS)
    st = pd.DataFrame(FIGURE2, columns=["group", "low", "high", "count"])
    st[["low", "high"]] *= K
    meta = {"quasi": ["zipcode", "gender", "age"], "sensitive": ["salary"]}
    return Release("distribution", {"qit": qit, "st": st}, meta)


def one(result: pd.DataFrame, label: str) -> pd.Series:
    row = result[result["aggregate"] == label]
    assert len(row) == 1
    return row.iloc[0]


def test_section_5_5_answers(release):
    r = query(release, "SELECT AVG(salary) FROM release WHERE gender = 'F'")
    assert list(r.columns) == ["aggregate", "lower", "upper", "width", "count", "groups"]
    assert r.iloc[0][["lower", "upper", "count", "groups"]].tolist() == [35_000, 55_000, 6, 3]
    r = query(release, "SELECT AVG(salary) FROM release WHERE zipcode LIKE '913%'", EMPLOYEES)
    assert r.iloc[0][["lower", "upper", "true", "within"]].tolist() == [35e3, 55e3, 55e3, True]
    r = query(release, 'SELECT avg(salary) AS a FROM release WHERE "group" = 2')
    assert r.iloc[0]["lower"] <= 110_000 / 3 and r.iloc[0]["upper"] >= 160_000 / 3
    assert r.iloc[0]["lower"] == pytest.approx(110_000 / 3, abs=1e-8)
    assert r.iloc[0]["upper"] == pytest.approx(160_000 / 3, abs=1e-8)


def test_several_aggregates_and_truth(release):
    sql = (
        "SELECT COUNT(*), count(salary) AS n, SUM(salary) s, min(salary), MAX(salary), "
        "avg(age), max(age) FROM release AS r WHERE r.age BETWEEN 30 AND 50 AND gender <> 'X'"
    )
    r = query(release, sql, original=EMPLOYEES)
    assert r["aggregate"].tolist() == [
        "COUNT(*)", "n", "s", "min(salary)", "MAX(salary)", "avg(age)", "max(age)"
    ]  # fmt: skip
    assert r["within"].all() and (r["count"] == 8).all()
    assert one(r, "avg(age)")["lower"] <= EMPLOYEES["age"][EMPLOYEES["age"].between(30, 50)].mean()
    assert one(r, "max(age)")[["lower", "upper", "width"]].tolist() == [47, 47, 0]
    assert one(r, "n")["lower"] == one(r, "n")["upper"] == 8


def test_group_by_keys(release):
    r = query(
        release,
        "SELECT gender, AVG(salary), count(*) FROM release GROUP BY gender",
        original=EMPLOYEES,
    )
    assert r["gender"].tolist() == ["F", "F", "M", "M"]
    assert r["aggregate"].tolist() == ["AVG(salary)", "count(*)"] * 2
    f = r.iloc[0]
    assert (f["lower"], f["upper"], f["count"], f["true"]) == (35e3, 55e3, 6, 45e3)
    assert r["within"].all()
    two = query(
        release,
        'SELECT SUM(salary) FROM release WHERE age > 30 GROUP BY gender, "group"',
        original=EMPLOYEES.assign(group=GROUPS),
    )
    assert two[["gender", "group"]].values.tolist() == [["F", 1], ["F", 2], ["M", 1], ["M", 3]]
    assert two["within"].all()
    nobody = "SELECT gender, avg(salary) FROM release WHERE age > 99 GROUP BY gender"
    assert query(release, nobody).empty


def test_empty_selection_without_group_by(release):
    r = query(
        release, "SELECT count(*), sum(salary), avg(salary), min(salary) FROM release "
        "WHERE age > 99", original=EMPLOYEES
    )  # fmt: skip
    assert r["count"].tolist() == [0] * 4 and r["groups"].tolist() == [0] * 4
    assert r["lower"].tolist()[:2] == [0, 0] and r["lower"][2:].isna().all()
    assert r["true"].tolist()[:2] == [0, 0] and r["true"][2:].isna().all()
    assert r["within"].all()


def test_names_are_case_insensitive_and_where_mask(release):
    r = query(release, "SELECT Avg(SALARY) FROM Release WHERE GENDER = 'F'")
    assert r.iloc[0][["lower", "upper"]].tolist() == [35e3, 55e3]
    mask = where_mask(release.tables["qit"], "gender = 'F' AND age < 35", "salary")
    np.testing.assert_array_equal(mask, (EMPLOYEES.gender == "F") & (EMPLOYEES.age < 35))
    tables = BoundTables.from_release(release)
    assert query(tables, "SELECT count(*) FROM release").iloc[0]["count"] == 11


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELECT AVG(salary) FROM release WHERE salary > 40000", "sensitive column 'salary'"),
        ("SELECT AVG(age) FROM release GROUP BY salary", "GROUP BY may not use the sensitive"),
        ("SELECT AVG(salary) FROM release r JOIN other o ON r.age = o.age", "joins"),
        ("SELECT AVG(salary) FROM release WHERE age IN (SELECT 1)", "subqueries"),
        ("WITH t AS (SELECT 1) SELECT AVG(salary) FROM release", "WITH"),
        ("SELECT AVG(salary) FROM release UNION SELECT 1", "set operations"),
        ("SELECT AVG(salary) FROM release ORDER BY 1", "ORDER BY"),
        ("SELECT AVG(salary) FROM release LIMIT 1", "LIMIT"),
        ("SELECT DISTINCT AVG(salary) FROM release", "DISTINCT"),
        ("SELECT AVG(salary) FROM release HAVING count(*) > 1", "HAVING"),
        ("SELECT AVG(salary) FROM release GROUP BY ALL", "GROUP BY ALL"),
        ("SELECT gender, AVG(salary) FROM release", "outside an aggregate"),
        ("SELECT AVG(salary * 2) FROM release", "one column, not an expression"),
        ("SELECT AVG(salary) + 1 FROM release", "not a plain aggregate"),
        ("SELECT median(salary) FROM release", "not a plain aggregate"),
        ("SELECT SUM(salary) OVER () FROM release", "window"),
        ("SELECT COUNT(DISTINCT salary) FROM release", "DISTINCT and FILTER"),
        ("SELECT gender FROM release GROUP BY gender", "at least one aggregate"),
        ("SELECT AVG(salary) FROM other", "one table 'release'"),
        ("SELECT AVG(salary) FROM main.release", "one table 'release'"),
        ("SELECT AVG(salary) FROM release; SELECT 1", "exactly one SQL statement"),
        ("SELEC AVG(salary) FROM release", "cannot parse"),
        ("DELETE FROM release", "only a SELECT query is answered, not DELETE"),
        ("SELECT AVG(height) FROM release", "unknown column 'height'"),
        ("SELECT AVG(salary) FROM release WHERE height = 1", "unknown column"),
        ("SELECT AVG(salary) FROM release WHERE age = ?", "parameters"),
        ("SELECT AVG(salary) FROM release GROUP BY age + 1", "only list columns"),
        ("SELECT AVG(zipcode) FROM release", "numeric"),
        ("SELECT AVG(salary) FROM release WHERE zipcode > 3 + 'x'", "WHERE"),
        (
            "SELECT AVG(salary) FROM release WHERE gender >= 30",
            "published as text .* compare it with its published text",
        ),
        ("  ", "give an SQL query"),
    ],
)
def test_refusals(release, sql, message):
    with pytest.raises(InputError, match=message):
        query(release, sql)


def test_original_must_have_the_columns(release):
    with pytest.raises(InputError, match="lacks column"):
        query(release, "SELECT AVG(salary) FROM release", EMPLOYEES.drop(columns="salary"))
    with pytest.raises(InputError, match="DataFrame"):
        query(release, "SELECT AVG(salary) FROM release", original=[1, 2])


def test_parsed_selection_is_regenerated_sql():
    parsed = parse_query(
        "select avg(s) as m, a from release as r where r.a between 1 and 3 group by a", ["a"], "s"
    )
    assert parsed.keys == ("a",) and parsed.aggregates[0].label == "m"
    assert parsed.aggregates[0].bounded and parsed.aggregates[0].function == "avg"
    assert "BETWEEN 1 AND 3" in parsed.selection and "GROUP" not in parsed.selection


def test_method_release_on_adult_capital_loss():
    adult = load_adult()
    data = adult[adult["capital_loss"] > 0].reset_index(drop=True)
    assert len(data) == 1427
    schema = {"age": "quasi", "sex": "quasi", "capital_loss": "sensitive"}
    sql = (
        "SELECT AVG(capital_loss), SUM(capital_loss), MIN(capital_loss), MAX(capital_loss), "
        "COUNT(*) FROM release WHERE age BETWEEN 30 AND 40"
    )
    sa_only = distribution_anonymize(data, schema, target="empirical", rng=1)
    r = query(sa_only, sql, original=data)
    assert r["within"].all() and (r["count"] == ((data.age >= 30) & (data.age <= 40)).sum()).all()
    by_sex = query(sa_only, "SELECT sex, AVG(capital_loss) FROM release GROUP BY sex", data)
    assert by_sex["within"].all() and len(by_sex) == 2
    qi_sa = distribution_anonymize(
        data, schema, target="empirical", partition="qi_sa", subgroup_by=["age"], fakes=0.1, rng=2
    )
    r = query(qi_sa, sql, original=data)
    assert r["within"].all()
