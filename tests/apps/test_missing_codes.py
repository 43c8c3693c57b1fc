"""A survey's negative missing-value codes (-9 refused, -8 don't know) among numbers, and its
codes above the answers (98, 99): read as numbers, a hierarchy would put them in an interval and
a release publish them. ``init``, ``anonymize`` (in memory and out of core) and ``check`` say so
in one line per code set, with the ``column_na_values`` that marks them missing in the columns
named (and in no other, where the same number may be a value); a column whose negative values
are values (-1 beside 0, 1, 2; -1 and 1 alone), or whose 99 is an age beside 95, is not named.

The General Social Survey 2010 (openintro's ``gss2010``): hours to relax and days of poor mental
health are missing for about 43 % of the respondents; written here as a survey's codebook writes
them, -9 for one and -8 then -9 for the other.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main
from microanon.core.reading import missing_marker_columns

INIT_WARNING = (
    "WARNING: column 'hrsrelax' ({relax:,} rows; its other values 0 and up) holds -9, a negative "
    "code below every other value, as surveys write a missing answer (refused, don't know, not "
    "asked): init read it as a number, which a hierarchy puts in an interval and a release "
    "publishes; if it marks missing values, run init again with --column-na-values hrsrelax=-9 (in "
    "the config: column_na_values: {{hrsrelax: ['-9']}})"
)


def _coded(folder: Path) -> tuple[Path, pd.DataFrame]:
    frame = survey("gss2010")
    relax, health = frame["hrsrelax"].isna(), frame["mntlhlth"].isna()
    frame["hrsrelax"] = frame["hrsrelax"].fillna(-9)
    dont_know = health & (frame.index % 3 == 0)  # a third of the missing: don't know
    frame.loc[dont_know, "mntlhlth"] = -8
    frame["mntlhlth"] = frame["mntlhlth"].fillna(-9)
    path = folder / "gss2010.csv"
    frame.to_csv(path, index=False)
    return path, pd.DataFrame({"relax": [int(relax.sum())], "health": [int(health.sum())]})


def test_init_names_the_codes_and_column_na_values_marks_them_missing(tmp_path):
    data, missing = _coded(tmp_path)
    relax, health = int(missing["relax"][0]), int(missing["health"][0])
    run = CliRunner().invoke(main, ["init", str(data), "--yes", "--out", str(tmp_path / "a.yaml")])
    assert run.exit_code == 0, run.output
    said = " ".join(run.output.split())
    assert INIT_WARNING.format(relax=relax) in said
    assert (
        f"WARNING: column 'mntlhlth' ({health:,} rows; its other values 0 and up) holds -9, -8, "
        "negative codes below every other value"
    ) in said
    assert (
        "run init again with --column-na-values mntlhlth=-9,-8 (in the config: column_na_values: "
        "{mntlhlth: ['-9', '-8']})"
    ) in said
    checked = CliRunner().invoke(main, ["check", str(data), "--quasi", "degree,hrsrelax"])
    assert checked.exit_code == 0, checked.output
    assert (
        f"WARNING: column 'hrsrelax' ({relax:,} rows; its other values 0 and up) holds -9, a "
        "negative code below every other value, as surveys write a missing answer (refused, "
        "don't know, not asked): check read it as a number"
    ) in " ".join(checked.output.split())
    assert "run check again with --column-na-values hrsrelax=-9" in " ".join(checked.output.split())
    output, text = _init_again(data, tmp_path / "b.yaml", hrsrelax="-9", mntlhlth="-9,-8")
    assert "negative code" not in output
    assert "# hrsrelax: numeric (integers 0 to 24), 18 distinct values" in text
    assert f"{100 * relax / 2044:.1f}% missing" in text  # (43.5 %: the -9s)
    assert "column_na_values: {hrsrelax: ['-9'], mntlhlth: ['-9', '-8']}" in text


def _init_again(data: Path, config: Path, **codes: str) -> tuple[str, str]:
    """init of ``data`` into ``config`` with ``--column-na-values column=codes`` for each of
    ``codes``: its output, and the config's text with its lines joined."""
    flags = [f for c, v in codes.items() for f in ("--column-na-values", f"{c}={v}")]
    args = ["init", str(data), "--yes", *flags, "--out", str(config)]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    return run.output, " ".join(config.read_text("utf-8").split())


def _config(data: Path) -> dict:
    """full_domain on degree and the hours to relax (k = 5), the view on marijuana sensitive."""
    return {
        "data": str(data),
        "schema": {
            "degree": {"role": "quasi", "hierarchy": {"builder": "balanced"}},
            "hrsrelax": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [5, 10]},
            },
            "grass": {"role": "sensitive"},
            "mntlhlth": "identifier",
            "hrs1": "identifier",
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
    }


def _anonymized(tmp_path: Path, doc: dict, engine: str) -> dict:
    """``anonymize --json`` of ``doc`` into ``tmp_path / "o"`` with ``engine``: its answer."""
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(doc), "utf-8")
    args = ["anonymize", "--config", str(config), "--out", str(tmp_path / "o"), "--json"]
    run = CliRunner().invoke(main, [*args, "--engine", engine])
    assert run.exit_code == 0, run.output
    return json.loads(run.stdout)


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_anonymize_names_the_codes_of_a_published_column(tmp_path, engine):
    data, missing = _coded(tmp_path)
    warnings = _anonymized(tmp_path, _config(data), engine)["warnings"]
    relax = int(missing["relax"][0])
    assert [w for w in warnings if "negative code" in w] == [
        f"column 'hrsrelax' ({relax:,} rows; its other values 0 and up) holds -9, a negative "
        "code below every other value, as surveys write a missing answer (refused, don't know, "
        "not asked): the run read it as a number, which a hierarchy puts in an interval and a "
        "release publishes; if it marks missing values, set column_na_values: {hrsrelax: ['-9']} "
        "in the config (or give --column-na-values hrsrelax=-9)"
    ]


def test_negative_values_that_are_values_are_not_named():
    """-1 beside 0, 1 and 2 (a scale), -1 and 1 alone (a loss and a win), codes among other
    negative values (a temperature), and a code with no other value: none is named."""
    frame = pd.DataFrame(
        {
            "scale": [-1, 0, 1, 2, 1, 0],
            "win_loss": [-1, 1, 1, -1, 1, -1],
            "celsius": [-9.0, -12.5, 4.0, 12.0, -8.0, 20.0],
            "only_codes": [-9, -9, -8, -9, -8, -9],
        }
    )
    assert missing_marker_columns(frame) == {}
    frame["coded"] = [-9, 3, 4, -8, 5, 6]
    assert list(missing_marker_columns(frame)) == ["coded"]


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_na_values_mark_a_parquet_file_s_codes_missing(tmp_path, engine):
    """A Parquet file carries its types, but ``na_values`` marks its cells missing as a CSV
    file's fields (its whole numbers read as nullable integers): the codes leave their records
    out under ``missing: drop``, the same rows in memory and out of core, and no warning."""
    data, missing = _coded(tmp_path)
    frame = pd.read_csv(data)
    frame["hrsrelax"] = frame["hrsrelax"].astype("int64")  # (-9 for a missing answer)
    parquet = tmp_path / "gss2010.parquet"
    frame.to_parquet(parquet, index=False)
    doc = _config(parquet)
    doc["na_values"] = ["-9", "-8"]
    doc["schema"]["hrsrelax"]["missing"] = "drop"
    answer = _anonymized(tmp_path, doc, engine)
    assert answer["rows"]["left_out"] == {"hrsrelax": int(missing["relax"][0])}
    assert not [w for w in answer["warnings"] if "negative code" in w]
    written = next((tmp_path / "o" / "public").glob("data.*"))  # (CSV, or Parquet out of core)
    read = pd.read_parquet if written.suffix == ".parquet" else pd.read_csv
    published = read(written)
    assert not published["hrsrelax"].astype(str).str.contains("-").any()


def test_init_names_codes_above_every_other_value_on_nesarc(tmp_path):
    """NESARC's drinks on a usual day: 1 to 48, 98 once and 99 on 238 rows, which the
    codebook writes for an unknown answer. init named none and proposed intervals that published
    [3, 99]; it names them now, and with --column-na-values they are missing values."""
    frame = survey("nesarc")
    data = tmp_path / "nesarc.csv"
    frame.to_csv(data, index=False)
    run = CliRunner().invoke(main, ["init", str(data), "--yes", "--out", str(tmp_path / "a.yaml")])
    assert run.exit_code == 0, run.output
    assert (
        "WARNING: column 's2aq8b' (239 rows; its other values up to 48) holds 99, 98, codes "
        "above every other value, as surveys write a missing answer (refused, don't know, not "
        "asked): init read them as numbers, which a hierarchy puts in an interval and a release "
        "publishes; if they mark missing values, run init again with --column-na-values "
        "s2aq8b=99,98 (in the config: column_na_values: {s2aq8b: ['99', '98']})"
    ) in " ".join(run.output.split())
    output, text = _init_again(data, tmp_path / "b.yaml", s2aq8b="99,98")
    assert "s2aq8b" not in " ".join(w for w in output.splitlines() if "WARNING" in w)
    assert "# s2aq8b: numeric (integers 1 to 48)" in text


def test_codes_above_values_are_named_only_above_a_gap():
    """99 beside ages up to 96 is an age, and beside weekly hours of work up to 84 (the
    American Community Survey's "99 or more"); 99 and 98 beside answers up to 48 are codes; 97
    to 99 beside a percentage up to 96 are values; 999 beside counts up to 120 is a code; both
    kinds in one column are named together."""
    frame = pd.DataFrame(
        {
            "age": [95, 96, 99, 40, 99, 20],
            "hours": [40, 84, 99, 20, 60, 40],
            "drinks": [1, 48, 98, 99, 99, 2],
            "percent": [96, 97, 98, 99, 50, 10],
            "count": [120, 999, 3, 0, 999, 7],
            "both": [-9, 5, 99, 20, 1, 99],
        }
    )
    found = missing_marker_columns(frame)
    assert list(found) == ["drinks", "count", "both"]
    assert (found["drinks"].marker, found["drinks"].where) == ("99,98", "above")
    assert (found["count"].marker, found["count"].highest) == ("999", 120)
    assert (found["both"].marker, found["both"].where) == ("99,-9", "below and above")
