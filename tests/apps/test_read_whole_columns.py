"""A CSV column is typed from all its fields at once: pandas reads a large file in chunks, and a
column whose marker text (R's ``NA``) falls in some chunks only came back as floats from the
other chunks beside text, one answer two values (``12.0`` and ``'12.0'``). On the RAND Health
Insurance Experiment as R writes it (20,190 rows, ``educdec`` missing for 4), ``init`` counted
57 values of ``educdec`` for the file's 36 and wrote a hierarchy file with both ``12`` and
``12.0``; a release with that file published ``12`` for 1,341 of the 8,129 fields the file
writes ``12.0``."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml
from click.testing import CliRunner
from real_surveys import survey

from microanon.apps.cli import main
from microanon.apps.io import read_table


def _randhie_as_r_writes(tmp_path: Path) -> Path:
    """RAND HIE written as R's ``write.csv`` writes it: ``NA`` for a missing value."""
    path = tmp_path / "randhie.csv"
    survey("randhie").to_csv(path, index=False, na_rep="NA")
    return path


def test_a_column_with_a_marker_in_some_chunks_is_text_throughout(tmp_path: Path) -> None:
    path = _randhie_as_r_writes(tmp_path)
    text = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame = read_table(path)
    for column in ["educdec", "mdeoff", "pioff", "ghindx"]:
        kinds = set(frame[column].map(type))
        assert kinds == {str}, (column, kinds)
        assert frame[column].nunique() == text[column].nunique(), column
    assert frame["educdec"].nunique() == 36
    assert (frame["educdec"] == "12.0").sum() == 8129


def test_init_profiles_and_groups_the_file_s_values(tmp_path: Path) -> None:
    path = _randhie_as_r_writes(tmp_path)
    config = tmp_path / "config.yaml"
    result = CliRunner().invoke(main, ["init", str(path), "--out", str(config), "--yes"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if line.startswith("educdec "))
    assert row.split()[1:3] == ["categorical", "36"], row
    assert "DtypeWarning" not in result.output
    schema = yaml.safe_load(config.read_text(encoding="utf-8"))["schema"]
    leaves = (tmp_path / schema["educdec"]["hierarchy"]).read_text(encoding="utf-8").splitlines()
    written = pd.read_csv(path, dtype=str, keep_default_na=False)["educdec"]
    assert sorted(line.split(";")[0] for line in leaves) == sorted(written.unique())


def test_a_column_typed_apart_in_chunks_reads_as_one_value_per_answer(tmp_path: Path) -> None:
    """Answers 1-5 written as whole numbers, a few left empty near the top and ``NA`` (a text
    other software writes for a missing value) at the end of a file large enough for pandas to
    read in chunks: the first chunk held floats (``1.0``), the last text (``'1'``). Both
    engines read one value per answer, and no pandas warning reaches the user (the Dask engine
    had read ``1`` and ``1.0`` as two values, and printed the warning with the file's path)."""
    import warnings

    import numpy as np

    from microanon.scale import read_dataset

    rows = 400_000
    answers = pd.Series(np.random.default_rng(5).integers(1, 6, rows)).astype(object)
    answers.iloc[5:10] = None
    answers.iloc[-10:] = "NA"
    path = tmp_path / "answers.csv"
    pd.DataFrame({"answer": answers, "row": np.arange(rows)}).to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        memory = read_table(path)["answer"]
        dask = read_dataset(str(path))["answer"].compute()
    expected = ["1", "2", "3", "4", "5", "NA"]
    assert sorted(memory.dropna().unique()) == sorted(dask.dropna().unique()) == expected
    assert memory.isna().sum() == dask.isna().sum() == 5
