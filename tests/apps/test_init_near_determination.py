"""``microanon init`` proposes a quasi-identifier, not a sensitive column, for a column that
gives a quasi-identifier back by its values nearly without exception (the lint's strength of
0.99 or more, :data:`~microanon.apps.init.roles.NEAR_DETERMINATION`): published with its
record as a sensitive column, it would restore what the release generalizes, and
``anonymize`` would warn of it. Below that, the column is an answer that varies with the
quasi-identifier and stays sensitive; so does one whose empty cells alone give it back (a
question asked of part of the sample), one that as a quasi-identifier would give a sensitive
column back, and one the data owner states.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import rdataset, survey

from microanon.apps.cli import main
from microanon.apps.init.profile import profile_table
from microanon.apps.init.roles import NEAR_DETERMINATION, propose_roles
from microanon.core.lint import lint_schema
from microanon.core.schema import Role, Schema

#: The lint's caution of a sensitive column that gives quasi-identifiers back.
CAUTION = "schema lint: sensitive column "


@pytest.fixture(scope="module")
def college(tmp_path_factory) -> Path:
    """AER's CollegeDistance (Rouse's high-school seniors of 1980, 4,739 students): ``wage`` is
    the state's hourly wage in manufacturing (41 values), ``region`` West or other."""
    root = tmp_path_factory.mktemp("college")
    data = root / "college.csv"
    rdataset("AER", "CollegeDistance").to_csv(data, index=False)
    return data


def test_a_state_s_wage_that_gives_the_region_is_proposed_a_quasi_identifier(college):
    """The name rule makes ``wage`` sensitive; each of its values belongs to one region but
    for one (strength 0.99): init proposes it a quasi-identifier and says why, and anonymize
    with init's config warns of no sensitive column restoring a key, its verdict a plain
    yes."""
    frame = pd.read_csv(college)
    # independently: every wage but one is paid in one region only
    regions = frame.groupby("wage")["region"].nunique()
    assert len(regions) == 41 and int((regions > 1).sum()) == 1
    runner = CliRunner()
    config = college.parent / "config.yaml"
    made = runner.invoke(main, ["init", str(college), "--out", str(config), "--yes"])
    assert made.exit_code == 0, made.output
    schema = yaml.safe_load(config.read_text("utf-8"))["schema"]
    assert schema["wage"]["role"] == "quasi" and "hierarchy" in schema["wage"]
    assert {c for c, d in schema.items() if d["role"] == "sensitive"} == {"score", "income"}
    (line,) = [x for x in made.stdout.splitlines() if x.startswith("wage: quasi: ")]
    assert line.startswith(
        "wage: quasi: schema lint (determines_quasi): its value gives quasi-identifier region "
        "(strength 0.99) back, a near-determination (strength at least 0.99)"
    )
    assert "it would restore region wherever the release generalizes or suppresses it" in line
    assert "(first proposed sensitive: name rule: 'wage' looks like financial data" in line
    assert not [w for w in made.output.splitlines() if CAUTION in w]
    out = college.parent / "release"
    run = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out), "--json"])
    assert run.exit_code == 0, run.output
    numbers = json.loads(run.stdout)
    assert numbers["verified"] is True and numbers["restored_keys"] == []
    assert not [w for w in numbers["warnings"] if w.startswith(CAUTION)]


def test_a_growth_chamber_that_gives_its_treatment_is_proposed_a_quasi_identifier(tmp_path):
    """geepack's spruce (Sitka spruce trees measured 13 times in four growth chambers, two of
    them ozone-enriched): ``chamber``, numbers 1 to 4, looks like a rating scale and was
    proposed sensitive, yet it gives ``ozone`` exactly (strength 1.00): a chamber within its
    treatment. init proposes it a quasi-identifier; anonymize with init's config warns of no
    sensitive column restoring a key."""
    frame = rdataset("geepack", "spruce")
    assert frame.groupby("chamber")["ozone"].nunique().eq(1).all()  # independently
    data = tmp_path / "spruce.csv"
    frame.to_csv(data, index=False)
    config = tmp_path / "config.yaml"
    runner = CliRunner()
    made = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert made.exit_code == 0, made.output
    assert yaml.safe_load(config.read_text("utf-8"))["schema"]["chamber"]["role"] == "quasi"
    (line,) = [x for x in made.stdout.splitlines() if x.startswith("chamber: quasi: ")]
    assert "gives quasi-identifier ozone (strength 1.00) back" in line
    assert "(first proposed sensitive: answer-scale rule:" in line
    out = tmp_path / "release"
    run = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out), "--json"])
    assert run.exit_code == 0, run.output
    numbers = json.loads(run.stdout)
    assert numbers["verified"] is True and numbers["restored_keys"] == []
    assert not [w for w in numbers["warnings"] if w.startswith(CAUTION)]


def test_a_key_guessed_from_its_few_values_that_a_measurement_gives_back_is_sensitive():
    """RAND HIE (20,190 person-years): ``binexp``, whether any medical expense was paid, two
    values and a key by the moderate-cardinality rule, is exactly ``meddol > 0``: the expenses
    coarsened, which others know no more than the expenses. ``meddol`` (a measurement, sensitive)
    gives it back in its order; init makes ``binexp`` sensitive like it, rather than making the
    expenses a key."""
    frame = survey("randhie")
    assert ((frame["meddol"] > 0) == (frame["binexp"] == 1)).all()  # independently
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert proposals["meddol"].role is Role.SENSITIVE and proposals["meddol"].rule == "measurement"
    binexp = proposals["binexp"]
    assert binexp.role is Role.SENSITIVE and binexp.rule == "lint:coarsens_sensitive"
    assert binexp.reason.startswith(
        "schema lint (coarsens_sensitive): sensitive column meddol gives it back (strength 1.00)"
    )
    assert binexp.reason.endswith(
        "(first proposed quasi: moderate-cardinality rule: 2 values, "
        "easy to know and to combine with other columns into a key)"
    )


def test_the_data_owner_s_sensitive_wage_stays_and_init_warns(college, tmp_path):
    """``--sensitive wage``: stated, it stays sensitive; init warns that it restores region."""
    config = tmp_path / "config.yaml"
    args = ["init", str(college), "--out", str(config), "--yes", "--sensitive", "wage"]
    made = CliRunner().invoke(main, args)
    assert made.exit_code == 0, made.output
    assert yaml.safe_load(config.read_text("utf-8"))["schema"]["wage"]["role"] == "sensitive"
    warned = [w for w in made.output.splitlines() if CAUTION + "wage determines" in w]
    assert warned and "region (strength 0.99)" in warned[0]


#: Sensitive columns that give a quasi-identifier back below the near-determination, as the
#: lint measures it on init's proposal: (file, column, quasi-identifier, strength to 2 places).
MODERATE = [
    ("nlswork", "ln_wage", "year", 0.68),  # a wage rises with the years of a panel
    ("acs12", "income", "employment", 0.68),
    ("cps91", "earns", "inlf", 0.78),  # a wife's earnings, whether she is in the labour force
    ("randhie", "income", "site", 0.98),  # a family's income over its years at one site
]


@pytest.mark.parametrize(("name", "column", "quasi", "strength"), MODERATE)
def test_a_moderate_dependency_leaves_the_answer_sensitive(name, column, quasi, strength):
    frame = survey(name)
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert proposals[column].role is Role.SENSITIVE
    assert proposals[column].rule in ("name", "lint:determines_sensitive")
    schema = Schema.from_dict({c: p.role.value for c, p in proposals.items()})
    (restoring,) = [r for r in lint_schema(frame, schema).restoring if r.columns == (column,)]
    given = dict(zip(restoring.quasi, restoring.strengths, strict=True))
    assert round(given[quasi], 2) == strength
    assert round(max(given.values()), 2) < NEAR_DETERMINATION


def test_empty_cells_that_give_a_key_back_leave_the_answers_sensitive():
    """dragracer's rpdr_contep (RuPaul's Drag Race, 2,414 contestant-episodes): whether a queen
    was eliminated is known only where she took part, so its empty cells give ``participant``
    back exactly; its answers stay sensitive (a yes/no item asked of part of the sample)."""
    frame = rdataset("dragracer", "rpdr_contep")
    assert frame.loc[frame["participant"] == 0, "eliminated"].isna().all()
    assert frame.loc[frame["participant"] == 1, "eliminated"].notna().all()
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert proposals["eliminated"].role is Role.SENSITIVE
    assert proposals["eliminated"].rule == "yes-no-item"
    schema = Schema.from_dict({c: p.role.value for c, p in proposals.items()})
    restoring = {r.columns: r for r in lint_schema(frame, schema).restoring}[("eliminated",)]
    assert restoring.quasi == ("participant",) and restoring.strengths == (1.0,)
    assert restoring.missing_alone == (True,)


def test_a_number_that_would_give_a_sensitive_column_back_stays_sensitive():
    """mlmRev's Hsb82 (7,185 pupils of 160 schools): the school's number gives its sector
    back, but also its mean socio-economic status, sensitive: as a quasi-identifier it would
    tell that to whoever knows the school, so it stays sensitive like it."""
    frame = rdataset("mlmRev", "Hsb82")
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert proposals["school"].role is Role.SENSITIVE
    assert proposals["school"].rule == "lint:determines_sensitive"
    assert "near-determination" not in proposals["school"].reason


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4), st.integers(2, 6), st.integers(3, 8), st.booleans(), st.integers(0, 99))
def test_a_finer_code_of_a_key_is_proposed_a_quasi_identifier(regions, per, rows, nested, seed):
    """A column named like an income whose values each stand for one region (each region's
    own amounts, ``nested``) is proposed a quasi-identifier, and the proposal's lint finds no
    sensitive column giving a key back; the same amounts paid alike in every region (each in
    each region as often) tell nothing of it and stay sensitive. Checked on the table itself:
    each amount's regions."""
    rng = np.random.default_rng(seed)
    region = np.repeat(np.arange(regions), per * rows)
    if nested:  # region r pays amounts r * per ... r * per + per - 1
        code = np.repeat(np.arange(regions * per), rows)
    else:  # every region pays amounts 0 ... per - 1, each on as many rows
        code = np.tile(np.repeat(np.arange(per), rows), regions)
    order = rng.permutation(len(region))
    frame = pd.DataFrame(
        {
            "region": [f"r{r}" for r in region[order]],
            "sex": rng.choice(["f", "m"], len(region)),
            "income": code[order] * 100 + 1000,
        }
    )
    spread = frame.groupby("income")["region"].nunique()
    assert (spread == 1).all() if nested else (spread == regions).all()
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert proposals["region"].role is Role.QUASI
    schema = Schema.from_dict({c: p.role.value for c, p in proposals.items()})
    restorings = lint_schema(frame, schema).restoring
    if nested:
        assert proposals["income"].role is Role.QUASI
        assert proposals["income"].rule == "lint:determines_quasi"
        assert "gives quasi-identifier region (strength 1.00) back" in proposals["income"].reason
        assert restorings == []
    else:
        assert proposals["income"].role is Role.SENSITIVE
        assert proposals["income"].rule == "name"
        # (on a few rows the random sex may follow the amounts by chance; the region does not)
        assert not any("region" in r.quasi for r in restorings)
