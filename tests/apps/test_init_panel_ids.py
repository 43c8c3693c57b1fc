"""``microanon init`` on codes of people and of groups that are no quantities: a balanced panel's
unit id (many values, each on as many rows as every other: wooldridge's ``wagepan`` and plm's
``Males`` number 545 men over 8 years in ``nr``) and a school's code by its name (mlmRev's
``star``: ``sch``; stevedata's ``Dee04``: ``schoolid``) had been proposed quasi-identifiers
with intervals of codes, which publish ranges of ids; they are dropped, and init and anonymize
warn that k counts a panel's records, not its people.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import SURVEYS, rdataset, survey

from microanon.apps.cli import main
from microanon.apps.init.numbers import id_code, panel_id
from microanon.apps.init.people import numbers_people, person_ids
from microanon.apps.init.profile import profile_column, profile_table
from microanon.apps.init.roles import propose_roles
from microanon.apps.init.run import _repeated_ids
from microanon.apps.panel import GROUPS, balanced, repeated_id_note
from microanon.core.repetition import merged, repetition, tally
from microanon.core.schema import Role, Schema

#: The panel-id rule's reason on wagepan's and Males' ``nr``.
NR_REASON = (
    "panel-id rule: 545 whole numbers, each on exactly 8 of the 4,360 rows, beside year, which "
    "runs through the same 8 values within each: the unit id of a balanced panel (a person, a "
    "household or a firm followed over the same waves), and an interval of ids is no coarser "
    "truth; dropped from the release. Each unit has 8 records here, so k counts records, not "
    "people (init and anonymize warn of it): keep one record per unit for k to count people. "
    "If it codes a group that others know (a school, a commune), give it role quasi with a "
    "hierarchy that groups its codes (a file, or groups), not intervals"
)
#: What init and anonymize say of it.
NR_NOTE = repeated_id_note("nr", 545, 4360, 4360)


def _roles(frame: pd.DataFrame) -> dict:
    return {p.column: p for p in propose_roles(frame, profile_table(frame))}


def _init(frame: pd.DataFrame, data: Path) -> tuple[Path, Any]:
    """``frame`` written to the CSV file ``data`` and ``microanon init --yes`` run on it: the
    config beside it and the command's result (its exit code checked)."""
    frame.to_csv(data, index=False)
    config = data.parent / "config.yaml"
    result = CliRunner().invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    return config, result


def _balanced(values: list) -> bool:
    """The definition, on a plain list: no value missing, at least GROUPS values, each on as
    many rows as every other, two or more."""
    counts = Counter(values)
    return (
        None not in counts
        and len(counts) >= GROUPS
        and len(set(counts.values())) == 1
        and min(counts.values()) >= 2
    )


@settings(max_examples=200, deadline=None)
@given(
    units=st.integers(GROUPS - 3, GROUPS + 20),
    each=st.integers(1, 4),
    change=st.sampled_from(["none", "drop", "add", "missing"]),
    seed=st.integers(0, 2**16),
)
def test_a_balanced_unit_id_is_the_plain_definition(units, each, change, seed):
    """:func:`balanced`, read from the counted values (as anonymize's engines count them), is
    the definition on the list, for panels balanced or one row away from it."""
    rng = np.random.default_rng(seed)
    values: list = [int(v) for v in rng.permutation(np.repeat(np.arange(units) * 7, each))]
    if change == "drop":
        values.pop()
    elif change == "add":
        values.append(values[0])
    elif change == "missing":
        values[0] = None
    column = pd.Series(values, dtype="Int64" if change == "missing" else "int64")
    assert balanced(repetition(column)) is _balanced(values)


def _panel(units: int = 60, waves: int = 4, seed: int = 0) -> pd.DataFrame:
    """``units`` workers numbered with sparse whole numbers (``worker``), each in every one of
    ``waves`` waves (2001, ...), with a sex and an age, rows shuffled."""
    rng = np.random.default_rng(seed)
    worker = rng.choice(np.arange(100, 100_000), units, replace=False)
    frame = pd.DataFrame(
        {
            "worker": np.repeat(worker, waves),
            "wave": np.tile(np.arange(2001, 2001 + waves), units),
            "sex": np.repeat(rng.choice(["f", "m"], units), waves),
            "age": np.repeat(rng.integers(20, 60, units), waves) + np.tile(np.arange(waves), units),
        }
    )
    return frame.sample(frac=1, random_state=seed).reset_index(drop=True)


def test_a_balanced_panel_s_unit_id_is_dropped_and_its_waves_named():
    """60 workers in 4 waves: ``worker`` is dropped by the panel-id rule, its reason naming the
    wave that runs through the same values within each worker, and init warns that k counts
    records; without the wave the rule fires all the same (the wave is evidence, not a
    condition)."""
    frame = _panel()
    counts = frame["worker"].value_counts()
    assert len(counts) == 60 and set(counts) == {4}  # (the definition, on the table)
    profiles = profile_table(frame)
    proposals = propose_roles(frame, profiles)
    worker = {p.column: p for p in proposals}["worker"]
    assert (worker.role, worker.rule) == (Role.IDENTIFIER, "panel-id")
    assert worker.reason.startswith(
        "panel-id rule: 60 whole numbers, each on exactly 4 of the 240 rows, beside wave, which "
        "runs through the same 4 values within each: the unit id of a balanced panel"
    )
    assert "Each unit has 4 records here, so k counts records, not people" in worker.reason
    assert _repeated_ids(proposals, profiles, frame) == [repeated_id_note("worker", 60, 240, 240)]
    alone = frame.drop(columns="wave")
    worker = _roles(alone)["worker"]
    assert (worker.role, worker.rule) == (Role.IDENTIFIER, "panel-id")
    assert worker.reason.startswith("panel-id rule: 60 whole numbers, each on exactly 4 of the ")
    assert "beside" not in worker.reason


@pytest.mark.parametrize(
    "change",
    [
        None,
        "one row less",
        "too few units",
        "one wave",
        "decimals",
        "a missing id",
        "a time's name",
    ],
)
def test_each_condition_failing_alone_makes_no_panel_id(change):
    """Each condition of the rule, failing alone, makes it not fire (the numbers as floats, so
    that one may be missing): every value on as many rows (one worker's row dropped), at least
    GROUPS values, two rows or more each, whole numbers, every row holding one, a name that may
    be a unit's (not a time's)."""
    frame = _panel(units=GROUPS - 1 if change == "too few units" else 60)
    frame = frame.astype({"worker": float})
    if change == "one row less":
        frame = frame.iloc[1:]
    elif change == "one wave":
        frame = frame.drop_duplicates("worker")
    elif change == "decimals":
        frame["worker"] += 0.5
    elif change == "a missing id":
        frame.loc[0, "worker"] = np.nan
    elif change == "a time's name":
        frame = frame.rename(columns={"worker": "period"})
    column = "period" if change == "a time's name" else "worker"
    fires = change is None
    assert (panel_id(frame, profile_column(frame[column])) is not None) is fires
    assert (_roles(frame)[column].rule == "panel-id") is fires


def test_wagepan_s_person_number_is_dropped_not_cut_into_intervals(tmp_path):
    """wooldridge's wagepan (the NLSY young men, 545 men over 1980-1987): ``nr``, 545 numbers
    from 13 to 12,548 on exactly 8 rows each, beside ``year``. init had made it a
    quasi-identifier (it tells schooling) with intervals of 1,000, 2,000 and 4,000 numbers and
    warned that if it numbers people it should be an identifier; it is now dropped by the
    panel-id rule, the only column of the file the rule drops, and init says that k counts
    records. plm's Males, the same men, likewise."""
    frame = rdataset("wooldridge", "wagepan")
    profiles = profile_table(frame)
    proposals = propose_roles(frame, profiles)
    roles = {p.column: p for p in proposals}
    assert (roles["nr"].role, roles["nr"].rule, roles["nr"].reason) == (
        Role.IDENTIFIER,
        "panel-id",
        NR_REASON,
    )
    assert [c for c, p in roles.items() if p.rule == "panel-id"] == ["nr"]
    assert NR_NOTE in _repeated_ids(proposals, profiles, frame)
    males = _roles(survey("males"))["nr"]
    assert (males.role, males.rule, males.reason) == (Role.IDENTIFIER, "panel-id", NR_REASON)
    config, result = _init(frame, tmp_path / "wagepan.csv")
    assert yaml.safe_load(config.read_text("utf-8"))["schema"]["nr"] == {"role": "identifier"}
    assert f"WARNING: {NR_NOTE}" in result.output


def test_anonymize_warns_of_a_balanced_panel_s_unit_id_in_both_engines(scheduler, tmp_path):
    """wagepan's ``nr`` as init proposes it (an identifier) on a config of four keys:
    anonymize counts it (:func:`person_ids`: numbers under a number's name) and warns of it as
    init does, in memory and out of core on three Parquet files (a man's years may lie in two);
    with one row less the panel is not balanced and its numbers fill 4 % of their range, no id
    code: no warning (named like an id, it would be)."""
    frame = rdataset("wooldridge", "wagepan")
    schema = {c: {"role": "identifier"} for c in frame.columns}
    for column in ("black", "hisp", "married"):
        schema[column] = {"role": "quasi", "hierarchy": {"builder": "balanced"}}
    schema["year"] = {"role": "quasi", "kind": "numeric", "hierarchy": {"builder": "balanced"}}
    schema["lwage"] = {"role": "sensitive"}
    assert person_ids(Schema.from_dict({"nr": "identifier"}), frame.dtypes) == ["nr"]
    assert numbers_people("nr", repetition(frame["nr"]))
    assert not numbers_people("nr", repetition(frame["nr"].iloc[1:]))
    config = tmp_path / "config.yaml"
    doc = {"schema": schema, "method": "full_domain", "models": [{"k_anonymity": {"k": 5}}]}
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    (tmp_path / "parts").mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)
    frame.to_csv(tmp_path / "wagepan.csv", index=False)
    frame.iloc[1:].to_csv(tmp_path / "less.csv", index=False)

    def warnings(data: str, out: str, *engine: str) -> list[str]:
        args = ["anonymize", data, "--config", str(config), "--out", str(tmp_path / out)]
        run = CliRunner().invoke(main, [*args, "--json", *engine])
        assert run.exit_code == 0, run.output
        return json.loads(run.stdout)["warnings"]

    memory = warnings(str(tmp_path / "wagepan.csv"), "memory")
    assert NR_NOTE in memory
    dask = warnings(str(tmp_path / "parts"), "dask", "--engine", "dask", "--scheduler", scheduler)
    assert dask == memory
    assert not any(" repeats (" in w for w in warnings(str(tmp_path / "less.csv"), "less"))


def test_the_panel_id_rule_fires_on_no_other_survey_file_column():
    """On every survey file, the panel-id test (by values and name) holds for Males' ``nr`` and
    for asaur's ashkenazi ``famID`` (1,960 families of two), which the name rule drops first as
    a person or record identifier; nowhere else."""
    fired = set()
    for name in SURVEYS:
        frame = survey(name)
        fired |= {(name, p.name) for p in profile_table(frame) if panel_id(frame, p)}
    assert fired == {("males", "nr"), ("ashkenazi", "famID")}
    fam = _roles(survey("ashkenazi"))["famID"]
    assert (fam.role, fam.rule) == (Role.IDENTIFIER, "name")


#: The school codes' reasons after the name and the numbers.
SCHOOL_REASON = (
    "are codes, not quantities: schools numbered close together need be no closer in anything, "
    "and an interval of codes is no coarser truth; dropped from the release. If others know the "
    "school, give it role quasi with a hierarchy that groups its codes (a file, or groups: its "
    "district, its region), not intervals"
)


@pytest.mark.parametrize(
    ("name", "distinct", "fires"),
    [
        ("schoolid", 30, True),
        ("schid", 30, True),
        ("sch_id", 30, True),
        ("schoolcode", 30, True),
        ("SchoolCode", 30, True),
        ("schoolNR", 30, True),
        ("schoolid1", 30, True),
        ("sch", GROUPS, True),
        ("sch", GROUPS - 1, False),  # (schooling's years, or a dummy: wooldridge's loanapp)
        ("school", 80, False),  # (years of schooling as often as a school's number)
        ("schtype", 30, False),
        ("schooling", 30, False),
    ],
)
def test_a_school_s_code_is_an_id_code_by_its_name(name, distinct, fires):
    """Whole numbers named as a school's code are codes whatever their values (here 4-digit
    numbers filling a few percent of their range, which the id-code test by values would not
    take): dropped by the id-code rule; ``sch`` alone with at least GROUPS values (more than
    years of schooling have); never bare ``school`` nor a school's type, nor decimals."""
    rng = np.random.default_rng(3)
    codes = rng.choice(np.arange(1000, 9999), distinct, replace=False)
    col = pd.Series(np.concatenate([codes, rng.choice(codes, 19 * distinct)]), name=name)
    found = id_code(col, profile_column(col))
    if not fires:
        assert found is None
        return
    low, high = int(col.min()), int(col.max())
    word = "sch" if name == "sch" else None
    assert found is not None and found[0] == "id-code"
    said = found[1].split(" says it codes a school: ")
    assert said[0].startswith("id-code rule: the name ") and (word is None or "'sch' (" in said[0])
    assert said[1] == f"its {distinct:,} whole numbers from {low:,} to {high:,} {SCHOOL_REASON}"
    assert id_code(col + 0.5, profile_column(col + 0.5)) is None


def test_school_codes_of_real_files_are_dropped_not_cut_into_intervals(tmp_path):
    """mlmRev's star (Tennessee's STAR experiment, 26,796 pupil-years): ``sch``, 80 schools
    numbered 1 to 80, had intervals of 10 and 20 schools, while the teachers' numbers ``tch``
    (1,387, filling their range) were already dropped by the id-code test; stevedata's Dee04:
    ``schoolid``, 784 schools numbered 1,032 to 9,978, had intervals of 1,000 to 4,000. Both
    are dropped by the id-code rule, and neither is said to number people (no repeating-id
    warning: anonymize would not count them as such). wooldridge's loanapp's ``sch`` (more than
    12 years of schooling, 0 or 1) is no code."""
    star = rdataset("mlmRev", "star")
    profiles = profile_table(star)
    proposals = propose_roles(star, profiles)
    roles = {p.column: p for p in proposals}
    sch = roles["sch"]
    assert (sch.role, sch.rule) == (Role.IDENTIFIER, "id-code")
    assert sch.reason == (
        "id-code rule: the name 'sch' (with at least 50 values, more than years of schooling "
        f"have) says it codes a school: its 80 whole numbers from 1 to 80 {SCHOOL_REASON}"
    )
    assert (roles["tch"].role, roles["tch"].rule) == (Role.IDENTIFIER, "id-code")
    assert "numbers handed out in order" in roles["tch"].reason
    warned = [w.split(",")[0] for w in _repeated_ids(proposals, profiles, star)]
    assert warned == ["'id'", "'tch'"]
    dee = rdataset("stevedata", "Dee04")
    assert dee["schoolid"].nunique() == 784
    config, result = _init(dee, tmp_path / "dee04.csv")
    runner = CliRunner()
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("schoolid: ")]
    assert line == (
        "schoolid: identifier: id-code rule: the name 'schoolid' says it codes a school: its 784 "
        f"whole numbers from 1,032 to 9,978 {SCHOOL_REASON}"
    )
    assert yaml.safe_load(config.read_text("utf-8"))["schema"]["schoolid"] == {"role": "identifier"}
    assert " repeats (" not in result.output
    args = ["anonymize", "--config", str(config), "--out", str(tmp_path / "out"), "--json"]
    run = runner.invoke(main, args)
    assert run.exit_code == 0, run.output
    assert json.loads(run.stdout)["verified"] is True
    assert not any(" repeats (" in w for w in json.loads(run.stdout)["warnings"])
    loanapp = rdataset("wooldridge", "loanapp")
    assert _roles(loanapp)["sch"].rule != "id-code"


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.integers(-1000, 1000).map(float),
            st.floats(-1e6, 1e6, allow_nan=False),
            st.just(float("nan")),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_fractional_is_the_plain_definition(values):
    """A column's values hold decimals when one is a finite float that is no whole number;
    a missing value is none. The same answer counted in one pass or over two partitions."""
    column = pd.Series(values, name="x")
    expected = any(v == v and v != int(v) for v in values)
    assert repetition(column).fractional is expected
    half = len(column) // 2
    parts = [tally(part.to_frame(), ["x"]) for part in (column.iloc[:half], column.iloc[half:])]
    assert merged(parts, ["x"])["x"].fractional is expected


def test_a_measure_with_decimals_repeated_like_a_panel_numbers_nobody(scheduler, tmp_path):
    """causaldata's ``abortion`` (19,584 records: 51 states × 16 years × 24 groups of age, race
    and sex): ``crack``, a state's crack-cocaine index in a year, has 816 values with decimals,
    each on the 24 rows of its state and year: balanced as a panel's unit id is, but a measure.
    init drops it (it gives ``poverty`` back) and neither init nor anonymize (in memory and out
    of core) warns that it may number people; ``fip``, the state's whole number, each on 384
    rows, is still warned of. The same values rounded to whole numbers would be."""
    frame = rdataset("causaldata", "abortion")
    crack = repetition(frame["crack"])
    assert balanced(crack) and crack.fractional and (crack.distinct, crack.fewest) == (816, 24)
    assert not numbers_people("crack", crack)
    assert numbers_people("crack", repetition((frame["crack"] * 1e6).round()))
    assert numbers_people("fip", repetition(frame["fip"]))
    data = tmp_path / "abortion.csv"
    config, init = _init(frame, data)
    roles = yaml.safe_load(config.read_text("utf-8"))["schema"]
    assert roles["crack"] == {"role": "identifier"} and roles["fip"] == {"role": "identifier"}
    assert "'crack'" not in init.output
    assert "'fip', dropped as an identifier, repeats" in init.output
    schema = {c: {"role": "identifier"} for c in frame.columns}  # (fip and crack among them)
    schema["poverty"] = {"role": "sensitive"}
    for column in ("age", "race", "sex"):
        schema[column] = {"role": "quasi", "hierarchy": {"builder": "balanced"}}
    doc = {"schema": schema, "method": "full_domain", "models": [{"k_anonymity": {"k": 5}}]}
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    (tmp_path / "parts").mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_parquet(tmp_path / "parts" / f"part-{i}.parquet", index=False)

    def warnings(source: str, out: str, *engine: str) -> list[str]:
        args = ["anonymize", source, "--config", str(config), "--out", str(tmp_path / out)]
        run = CliRunner().invoke(main, [*args, "--json", *engine])
        assert run.exit_code == 0, run.output
        return json.loads(run.stdout)["warnings"]

    memory = warnings(str(data), "memory")
    assert repeated_id_note("fip", 51, 19584, 19584) in memory
    assert not any("'crack'" in w for w in memory)
    dask = warnings(str(tmp_path / "parts"), "dask", "--engine", "dask", "--scheduler", scheduler)
    assert dask == memory


@pytest.mark.parametrize(
    ("name", "thing"),
    [
        ("movieId", True),
        ("product_id", True),
        ("order_no", True),
        ("flightNumber", True),
        ("userId", False),
        ("id", False),
        ("patient_id", False),
        ("birth_order", False),
        ("idcode", False),
        ("schid", True),
        ("school_id", True),
        ("hospitalNo", True),
        ("firm_id", True),
        ("teacher_id", False),
        ("cusip", True),
        ("mom", False),
    ],
)
def test_a_name_tells_a_thing_s_id_from_a_person_s(name, thing):
    """An id named for a film, a product, an order or a flight numbers things, and so does a
    school's, a hospital's or a firm's; a user's, a patient's, a teacher's or a bare id may
    number people, and a birth order is no id."""
    from microanon.apps.init.people import thing_id

    assert thing_id(name) is thing


def test_a_film_s_id_repeats_but_numbers_nobody(tmp_path):
    """dslabs' ``movielens`` (100,004 ratings of 9,066 films by 671 users): ``userId`` repeats
    as a panel's person id does and is warned of by init and anonymize; ``movieId`` repeats too
    (each film rated by several users) but numbers films, and neither warns of it."""
    frame = rdataset("dslabs", "movielens")
    assert person_ids(Schema.from_dict({c: "identifier" for c in frame.columns}), frame.dtypes)
    assert "movieId" not in person_ids(Schema.from_dict({"movieId": "identifier"}), frame.dtypes)
    assert not numbers_people("movieId", repetition(frame["movieId"]))
    assert numbers_people("userId", repetition(frame["userId"]))
    data = tmp_path / "movielens.csv"
    config, init = _init(frame, data)
    warned = [line for line in init.output.splitlines() if line.startswith("WARNING:")]
    assert any("'userId', dropped as an identifier, repeats" in line for line in warned)
    assert not any("movieId" in line for line in warned)
    run = CliRunner().invoke(
        main,
        ["anonymize", str(data), "--config", str(config), "--out", str(tmp_path / "o"), "--json"],
    )
    assert run.exit_code == 0, run.output
    warnings = json.loads(run.stdout)["warnings"]
    assert any("'userId', dropped as an identifier, repeats" in w for w in warnings)
    assert not any("'movieId'" in w for w in warnings)


def test_a_school_s_id_repeats_but_numbers_no_person(tmp_path):
    """wooldridge's ``school93_98``: 1,778 Michigan schools, each on its six years (10,668
    rows). ``schid`` repeats as a panel's person id does, and init and anonymize had warned
    that "if it numbers people, a person has several records here"; it numbers schools, and
    neither warns of it now."""
    frame = rdataset("wooldridge", "school93_98")
    assert not numbers_people("schid", repetition(frame["schid"]))
    data = tmp_path / "schools.csv"
    config, init = _init(frame, data)
    warned = [line for line in init.output.splitlines() if line.startswith("WARNING:")]
    assert warned and not any("'schid'" in line for line in warned)
    run = CliRunner().invoke(
        main,
        ["anonymize", str(data), "--config", str(config), "--out", str(tmp_path / "o"), "--json"],
    )
    assert run.exit_code == 0, run.output
    assert not any("'schid'" in w for w in json.loads(run.stdout)["warnings"])


def test_a_firm_s_security_number_numbers_no_person():
    """Ecdat's ``PatentsHGH``: 346 firms, each on its 5 years. ``cusip``, a firm's security
    number, repeats as a balanced panel's unit id does, and had been warned of as a possible
    person id; it numbers firms."""
    frame = rdataset("Ecdat", "PatentsHGH")
    found = repetition(frame["cusip"])
    assert balanced(found) and not numbers_people("cusip", found)
