"""Anonymizer: a recoding fitted on one table, applied to another, saved and loaded."""

from __future__ import annotations

import json
import os
import re
import runpy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lattice_strategies import hierarchies
from oracles import pycanon_anonymity

import microanon
from microanon import Anonymizer, Hierarchy, InfeasibleError, InputError, Schema
from microanon.core.files import MAX_FILE_BYTES
from microanon.datasets import adult_schema, load_adult
from microanon.methods.generalize import full_domain
from microanon.methods.sdc import global_recode
from microanon.models import KAnonymity, LDiversity, TCloseness, check_release, k_anonymity

README = Path(__file__).resolve().parents[1] / "README.md"
MODELS = [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2, "form": "distinct"}}]


@pytest.fixture(scope="module")
def halves() -> tuple[pd.DataFrame, pd.DataFrame]:
    adult = load_adult()
    return adult.iloc[::2].reset_index(drop=True), adult.iloc[1::2].reset_index(drop=True)


@pytest.fixture(scope="module")
def fitted(halves) -> tuple[Anonymizer, microanon.Release]:
    anonymizer = Anonymizer(adult_schema(), MODELS, suppression=0.05)
    return anonymizer, anonymizer.fit_transform(halves[0])


def _toy_schema() -> Schema:
    h = Hierarchy.from_nested({"AB": ["a", "b"], "CD": ["c", "d"]}, name="q")
    return Schema.from_dict(
        {
            "q": {"role": "quasi", "hierarchy": h},
            "s": "sensitive",
            "x": {"role": "insensitive", "kind": "numeric"},
        }
    )


def _toy(values: str) -> pd.DataFrame:
    n = len(values)
    return pd.DataFrame(
        {"q": list(values), "s": [("u", "v")[i % 2] for i in range(n)], "x": range(n)}
    )


# ---------------------------------------------------------------------- Adult: fit one half
def test_other_half_gets_the_same_levels_and_satisfies_the_models(halves, fitted) -> None:
    anonymizer, first = fitted
    levels = anonymizer.recoding["levels"]
    assert first.metadata["levels"] == levels
    second = anonymizer.transform(halves[1])
    meta = second.metadata
    assert meta["levels"] == levels and meta["parameters"]["levels"] == levels
    assert meta["method"] == "full_domain" and second.kind == "generalized"
    assert 0 < meta["suppressed"] <= 0.05 * len(halves[1])
    assert meta["rows_out"] + meta["suppressed"] == len(halves[1])
    assert all(v.holds for v in check_release(second))
    data, quasi = second.data, anonymizer.schema.quasi
    assert k_anonymity(data, quasi, k=5).holds
    assert data.groupby(quasi)["income"].nunique().min() >= 2
    # The published labels are the fitted levels' labels of the original values, row by row.
    kept = halves[1].drop(index=halves[1].index[_suppressed_rows(halves[1], second)])
    for q in quasi:
        h = anonymizer.fitted_schema.hierarchy(q)
        expected = [str(v) for v in h.generalize(kept[q], levels[q])]
        assert data[q].tolist() == expected, q


def _suppressed_rows(original: pd.DataFrame, release: microanon.Release) -> np.ndarray:
    """Rows of ``original`` left out: those whose class fails k = 5 or distinct ℓ = 2."""
    schema = adult_schema()
    gen = pd.DataFrame(
        {
            q: schema.hierarchy(q).generalize(original[q], release.metadata["levels"][q])
            for q in schema.quasi
        }
    )
    gen["income"] = original["income"]
    grouped = gen.groupby(schema.quasi, sort=False)["income"]
    fails = (grouped.transform("size") < 5) | (grouped.transform("nunique") < 2)
    return np.flatnonzero(fails.to_numpy())


def test_other_half_agrees_with_pycanon(halves, fitted) -> None:
    anonymity = pycanon_anonymity()
    anonymizer, _ = fitted
    data = anonymizer.transform(halves[1]).data
    quasi = anonymizer.schema.quasi
    assert anonymity.k_anonymity(data, quasi) >= 5
    assert anonymity.l_diversity(data, quasi, ["income"]) >= 2


def test_transform_of_the_fitted_table_is_the_fit_release(halves, fitted) -> None:
    anonymizer, first = fitted
    again = anonymizer.transform(halves[0])
    assert again.data.equals(first.data)
    for key in ("levels", "suppressed", "metric", "rows_out", "models"):
        assert again.metadata[key] == first.metadata[key]


def test_star_mode_keeps_the_rows_in_order(halves) -> None:
    anonymizer = Anonymizer(
        adult_schema(), {"k_anonymity": {"k": 5}}, suppression=0.05, suppressed_rows="star"
    )
    anonymizer.fit(halves[0])
    release = anonymizer.transform(halves[1])
    data, quasi = release.data, anonymizer.schema.quasi
    assert len(data) == len(halves[1])
    starred = (data[quasi] == "*").all(axis=1)
    assert int(starred.sum()) == release.metadata["suppressed"] > 0
    assert data["hours_per_week"].tolist() == halves[1]["hours_per_week"].tolist()
    assert all(v.holds for v in check_release(release))


# ---------------------------------------------------------------------- the suppression limit
def test_a_table_needing_more_suppression_is_refused_with_both_shares() -> None:
    anonymizer = Anonymizer(_toy_schema(), {"k_anonymity": {"k": 2}}).fit(_toy("aabbccdd"))
    assert anonymizer.recoding == {"levels": {"q": 0}}
    with pytest.raises(InfeasibleError, match=r"2 of the 6 records.*33\.33%.*0\.00% allowed"):
        anonymizer.transform(_toy("aabbcd"))
    release = anonymizer.transform(_toy("aabbcd"), suppression=0.5)
    assert release.metadata["suppressed"] == 2
    assert release.data["q"].tolist() == ["a", "a", "b", "b"]
    assert release.metadata["parameters"]["suppression"] == 0.5


def test_transform_checks_the_models_on_the_published_table() -> None:
    # global_recode suppresses nothing: a model that fails on the recoded table is an error.
    anonymizer = Anonymizer(
        _toy_schema(), {"k_anonymity": {"k": 2}}, method="global_recode", levels={"q": 1}
    )
    published = anonymizer.fit_transform(_toy("aabbccdd")).data
    assert published["q"].tolist() == ["AB"] * 4 + ["CD"] * 4
    with pytest.raises(InfeasibleError, match="k-anonymity"):
        anonymizer.transform(_toy("aabbc"))


# ---------------------------------------------------------------------- bad input
def test_values_the_hierarchies_do_not_cover_name_column_and_five_values() -> None:
    anonymizer = Anonymizer(_toy_schema(), {"k_anonymity": {"k": 1}}).fit(_toy("aabbccdd"))
    with pytest.raises(InputError) as err:
        anonymizer.transform(_toy("abefghijkl"))
    message = str(err.value)
    assert "'q'" in message and "8 value(s)" in message and "\n" not in message
    assert re.search(r"'e', 'f', 'g', 'h', 'i' \.\.\.", message)


def test_missing_and_extra_columns_are_one_line_errors() -> None:
    anonymizer = Anonymizer(_toy_schema(), {"k_anonymity": {"k": 1}}).fit(_toy("aabb"))
    with pytest.raises(InputError, match=r"missing column\(s\) 'x'") as err:
        anonymizer.transform(_toy("aabb").drop(columns="x"))
    assert "\n" not in str(err.value)
    with pytest.raises(InputError, match=r"column\(s\) 'y' not in the schema"):
        anonymizer.transform(_toy("aabb").assign(y=1))
    with pytest.raises(InputError, match="column"):
        Anonymizer(_toy_schema(), {"k_anonymity": {"k": 1}}).fit(_toy("aabb").assign(y=1))
    with pytest.raises(InputError, match="DataFrame"):
        anonymizer.transform(_toy("aabb").to_numpy())


def test_arguments_are_checked_up_front() -> None:
    schema = _toy_schema()
    with pytest.raises(InputError, match="mondrian.*each table's own records.*full_domain"):
        Anonymizer(schema, {"k_anonymity": {"k": 2}}, method="mondrian")
    with pytest.raises(InputError, match="method must be one of"):
        Anonymizer(schema, {"k_anonymity": {"k": 2}}, method="nope")
    with pytest.raises(InputError, match="unknown parameter.*all_minimal"):
        Anonymizer(schema, {"k_anonymity": {"k": 2}}, all_minimal=True)
    with pytest.raises(InputError, match="suppression"):
        Anonymizer(schema, {"k_anonymity": {"k": 2}}, suppression=1.5)
    with pytest.raises(InputError, match="privacy model"):
        Anonymizer(schema)
    with pytest.raises(InputError, match="replacement 'mean'"):
        Anonymizer(schema, method="top_bottom_code", column="x", top=3, replacement="mean")
    with pytest.raises(InputError, match="not fitted"):
        Anonymizer(schema, {"k_anonymity": {"k": 2}}).transform(_toy("aabb"))
    with pytest.raises(InputError, match="suppresses nothing"):
        Anonymizer(schema, method="global_recode", levels={"q": 1}).fit(_toy("ab")).transform(
            _toy("ab"), suppression=0.1
        )


# ---------------------------------------------------------------------- files
def test_save_load_round_trip_gives_the_same_output(halves, fitted, tmp_path) -> None:
    anonymizer, _ = fitted
    path = anonymizer.save(tmp_path / "recoding.json")
    loaded = Anonymizer.load(path)
    assert loaded.recoding == anonymizer.recoding and loaded.params == anonymizer.params
    ours, theirs = anonymizer.transform(halves[1]), loaded.transform(halves[1])
    assert theirs.data.equals(ours.data)
    assert theirs.metadata == ours.metadata


def test_save_refuses_to_overwrite(fitted, tmp_path) -> None:
    anonymizer, _ = fitted
    path = anonymizer.save(tmp_path / "recoding.json")
    with pytest.raises(InputError, match="exists; pass overwrite=True"):
        anonymizer.save(path)
    assert anonymizer.save(path, overwrite=True) == path
    other = tmp_path / "notes.json"
    other.write_text('{"mine": 1}', encoding="utf-8")
    with pytest.raises(InputError, match="not a microanon anonymizer file"):
        anonymizer.save(other, overwrite=True)
    assert other.read_text(encoding="utf-8") == '{"mine": 1}'
    with pytest.raises(InputError, match="directory"):
        anonymizer.save(tmp_path)
    with pytest.raises(InputError, match="not fitted"):
        Anonymizer(adult_schema(), MODELS).save(tmp_path / "unfitted.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.json", "recoding.json"]


def _leaves(node, path=()):
    """Every scalar of a JSON document with its path."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, (*path, i))
    else:
        yield path, node


def test_the_file_holds_no_record_value_outside_the_hierarchies(halves, fitted, tmp_path) -> None:
    anonymizer, _ = fitted
    text = anonymizer.save(tmp_path / "recoding.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    assert set(doc) == {
        "microanon_anonymizer",
        "microanon_version",
        "method",
        "parameters",
        "models",
        "schema",
        "recoding",
    }
    assert "seed" not in text and "rng" not in text and "random" not in text
    labels = set()
    outside = []
    for path, value in _leaves(doc):
        if path[0] == "schema" and path[2] == "hierarchy":
            labels.add(str(value))
        else:
            outside.append((path, value))
    # Numbers only where the parameters, the models and the levels are.
    numeric = {p for p, v in outside if isinstance(v, (int, float)) and not isinstance(v, bool)}
    allowed = {("microanon_anonymizer",), ("parameters", "suppression")}
    allowed |= {("models", 0, "k_anonymity", "k"), ("models", 1, "l_diversity", "l")}
    allowed |= {("recoding", "levels", q) for q in anonymizer.schema.quasi}
    assert numeric == allowed
    # Strings: names, roles, kinds, options; none is a value of a column without a published
    # hierarchy (identifiers keep only their role and kind, not their hierarchy).
    strings = {str(v) for _, v in outside if isinstance(v, str)}
    schema = anonymizer.fitted_schema
    with_hierarchy = [c for c in schema.hierarchies() if c in schema.published]
    for column in halves[0].columns:
        if column in with_hierarchy:
            continue
        values = {str(v) for v in halves[0][column].unique()}
        assert not (strings & values), column
    # Every value of a column with a hierarchy that appears in the file is one of its labels.
    for column in with_hierarchy:
        assert {str(v) for v in halves[0][column].unique()} <= labels


def test_load_validates(fitted, tmp_path) -> None:
    anonymizer, _ = fitted
    good = anonymizer.to_dict()

    def load(doc) -> Anonymizer:
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
        return Anonymizer.load(path)

    with pytest.raises(InputError, match="not valid JSON"):
        load("{")
    with pytest.raises(InputError, match="cannot read"):
        Anonymizer.load(tmp_path / "absent.json")
    with pytest.raises(InputError, match="missing recoding"):
        load({k: v for k, v in good.items() if k != "recoding"})
    with pytest.raises(InputError, match="layout version"):
        load({**good, "microanon_anonymizer": 99})
    with pytest.raises(InputError, match="outside 0..4"):
        load({**good, "recoding": {"levels": {**good["recoding"]["levels"], "age": 9}}})
    with pytest.raises(InputError, match="fitted levels name"):
        load({**good, "recoding": {"levels": {"age": 1}}})
    builder = {
        **good["schema"],
        "age": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [5]},
        },
    }
    with pytest.raises(InputError, match="builder"):
        load({**good, "schema": builder})
    with pytest.raises(InputError, match="unknown privacy model"):
        load({**good, "models": [{"nope": {}}]})
    assert load(good).recoding == anonymizer.recoding


def _toy_file(tmp_path: Path, hierarchy: object) -> Path:
    """A saved toy anonymizer whose hierarchy of ``q`` was replaced by ``hierarchy``."""
    anonymizer = Anonymizer(_toy_schema(), [{"k_anonymity": {"k": 2}}], suppression=0.0)
    doc = anonymizer.fit(_toy("aabbccdd")).to_dict()
    doc["schema"]["q"]["hierarchy"] = hierarchy
    path = tmp_path / "saved" / "anonymizer.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "hierarchy",
    [
        "/etc/passwd",
        "../outside.csv",
        "{outside}",
        {"builder": "arx", "file": "/etc/passwd"},
        "/dev/zero",
        "anonymizer.json",
    ],
)
def test_load_reads_no_hierarchy_file(tmp_path, hierarchy) -> None:
    """A saved anonymizer carries its hierarchies inline: a path is refused, unread."""
    outside = tmp_path / "outside.csv"
    outside.write_text("secret-a;*\nsecret-b;*\n", encoding="utf-8")
    if hierarchy == "{outside}":
        hierarchy = str(outside)
    path = _toy_file(tmp_path, hierarchy)
    with pytest.raises(InputError, match="hierarchy of column 'q' names a file") as caught:
        Anonymizer.load(path)
    message = str(caught.value)
    assert "\n" not in message and "secret" not in message
    passwd = Path("/etc/passwd").read_text(encoding="utf-8").splitlines()
    assert not [line for line in passwd if line.strip() and line in message]


def test_load_reads_only_a_regular_file_under_the_size_limit(tmp_path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path in ("/dev/zero", fifo, tmp_path):
        with pytest.raises(InputError, match=f"anonymizer file {path} is not a regular file"):
            Anonymizer.load(path)
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(InputError, match="big.json is larger than 64 MiB"):
        Anonymizer.load(big)


def test_saved_hierarchies_are_inline_and_load_back(tmp_path) -> None:
    anonymizer = Anonymizer(_toy_schema(), [{"k_anonymity": {"k": 2}}], suppression=0.0)
    saved = anonymizer.fit(_toy("aabbccdd")).save(tmp_path / "a.json")
    doc = json.loads(saved.read_text(encoding="utf-8"))
    assert doc["schema"]["q"]["hierarchy"]["paths"][0] == ["*", "AB", "a"]
    later = _toy("abcdabcd")
    assert Anonymizer.load(saved).transform(later).data.equals(anonymizer.transform(later).data)


def test_numpy_parameters_are_saved_as_numbers(tmp_path) -> None:
    anonymizer = Anonymizer(_toy_schema(), method="global_recode", levels={"q": np.int64(1)})
    anonymizer.fit(_toy("abcd"))
    loaded = Anonymizer.load(anonymizer.save(tmp_path / "recode.json"))
    assert loaded.params["levels"] == {"q": 1}
    assert loaded.transform(_toy("dcba")).data["q"].tolist() == ["CD", "CD", "AB", "AB"]
    anonymizer.params["maps"] = {"q": {"a": object()}}  # not something JSON can hold
    with pytest.raises(InputError, match="cannot save a parameter of type object"):
        anonymizer.save(tmp_path / "never.json")
    assert not (tmp_path / "never.json").exists()


def test_a_population_model_is_not_saved(tmp_path) -> None:
    population = _toy("aabbccdd" * 3)[["q"]]
    anonymizer = Anonymizer(_toy_schema(), {"k_map": {"k": 3, "population": population}}).fit(
        _toy("aabbccdd")
    )
    assert anonymizer.transform(_toy("aabbcc")).metadata["suppressed"] == 0
    with pytest.raises(InputError, match="population cannot be saved"):
        anonymizer.save(tmp_path / "recoding.json")
    assert not list(tmp_path.iterdir())


# ---------------------------------------------------------------------- the SDC recodings
def test_global_recode_applies_its_own_levels_and_maps(halves, tmp_path) -> None:
    schema = adult_schema()
    params = {"levels": {"age": 2, "education": 1}, "maps": {"race": {"Other": "Other"}}}
    anonymizer = Anonymizer(schema, method="global_recode", **params).fit(halves[0])
    expected = global_recode(halves[1], schema, **params).data
    assert anonymizer.transform(halves[1]).data.equals(expected)
    loaded = Anonymizer.load(anonymizer.save(tmp_path / "recode.json"))
    assert loaded.transform(halves[1]).data.equals(expected)


def test_top_bottom_code_fixes_quantile_thresholds_on_the_fit(halves, tmp_path) -> None:
    schema = adult_schema()
    anonymizer = Anonymizer(schema, method="top_bottom_code", column="age", top=0.9, quantiles=True)
    anonymizer.fit(halves[0])
    top = anonymizer.recoding["thresholds"]["top"]
    assert top == float(np.quantile(halves[0]["age"], 0.9))
    second = anonymizer.transform(halves[1]).data["age"]
    assert second.max() == top
    assert (second == halves[1]["age"].clip(upper=top)).all()
    loaded = Anonymizer.load(anonymizer.save(tmp_path / "top.json"))
    assert loaded.transform(halves[1]).data.equals(anonymizer.transform(halves[1]).data)


def test_microanon_exports_the_anonymizer() -> None:
    assert microanon.Anonymizer is microanon.methods.generalize.Anonymizer
    assert "Anonymizer" in microanon.__all__


# ---------------------------------------------------------------------- property
@st.composite
def problems(draw: st.DrawFn) -> dict:
    names = [f"q{i}" for i in range(draw(st.integers(1, 3)))]
    spec: dict = {}
    domains = {}
    for n in names:
        h, domains[n] = draw(hierarchies(n))
        spec[n] = {"role": "quasi", "hierarchy": h}
    rows = draw(st.integers(1, 40))
    data = {
        n: draw(st.lists(st.sampled_from(domains[n]), min_size=rows, max_size=rows)) for n in names
    }
    data["s"] = draw(st.lists(st.sampled_from("abc"), min_size=rows, max_size=rows))
    spec["s"] = "sensitive"
    models = draw(
        st.lists(
            st.one_of(
                st.builds(KAnonymity, st.integers(1, 4)),
                st.builds(LDiversity, st.integers(1, 2), st.just("distinct")),
                st.builds(LDiversity, st.sampled_from([1.5, 2]), st.just("entropy")),
                st.builds(TCloseness, st.sampled_from([0.2, 0.5])),
            ),
            min_size=1,
            max_size=2,
        )
    )
    return {
        "df": pd.DataFrame(data),
        "schema": Schema.from_dict(spec),
        "models": models,
        "suppression": draw(st.sampled_from([0.0, 0.1, 0.3])),
        "suppressed_rows": draw(st.sampled_from(["remove", "star"])),
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_transform_of_the_fit_table_equals_the_fit_release(problem) -> None:
    anonymizer = Anonymizer(
        problem["schema"],
        problem["models"],
        suppression=problem["suppression"],
        suppressed_rows=problem["suppressed_rows"],
    )
    try:
        fit = anonymizer.fit_transform(problem["df"])
    except InfeasibleError:
        return
    direct = full_domain(
        problem["df"],
        problem["schema"],
        models=problem["models"],
        suppression=problem["suppression"],
        suppressed_rows=problem["suppressed_rows"],
    )
    assert fit.data.equals(direct.data)
    again = anonymizer.transform(problem["df"])
    assert again.data.equals(fit.data)
    for key in ("levels", "suppressed", "metric", "rows_out"):
        assert again.metadata[key] == fit.metadata[key]


# ---------------------------------------------------------------------- README
def test_readme_reuse_snippet_runs(tmp_path, monkeypatch, capsys) -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Reuse a recoding") :]
    block = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(_write(tmp_path / "reuse.py", block)), run_name="__main__")
    assert (tmp_path / "adult-recoding.json").exists()
    assert "native_country" in capsys.readouterr().out


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
