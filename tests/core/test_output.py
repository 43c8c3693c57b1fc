"""Output directories: never delete what microanon did not write; swap safely; recover."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from microanon import InputError, Release
from microanon.core.output import atomic_directory, atomic_file, written_by_microanon


def release() -> Release:
    return Release("masked", {"data": pd.DataFrame({"a": [1, 2, 3]})})


def test_overwrite_replaces_only_a_previous_output(tmp_path):
    out = tmp_path / "out"
    release().save(out)
    assert written_by_microanon(out)
    release().save(out, overwrite=True)
    assert written_by_microanon(out)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no stale hidden folders


def test_overwrite_refuses_a_directory_with_user_files(tmp_path):
    out = tmp_path / "work"
    out.mkdir()
    (out / "adult.csv").write_text("a,b\n1,2\n")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="did not write"):
        release().save(out, overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["adult.csv", "notes.txt"]


def test_overwrite_refuses_a_previous_output_with_a_file_added(tmp_path):
    out = tmp_path / "out"
    release().save(out)
    (out / "public" / "my-notes.txt").write_text("keep me")
    with pytest.raises(InputError, match="did not write"):
        release().save(out, overwrite=True)
    assert (out / "public" / "my-notes.txt").read_text() == "keep me"


def test_output_never_contains_the_input(tmp_path):
    data = tmp_path / "in" / "data.csv"
    data.parent.mkdir()
    data.write_text("a\n1\n")
    with pytest.raises(InputError, match="would contain the input"):
        release().save(tmp_path / "in", overwrite=True, protect=[data])
    with pytest.raises(InputError, match="would contain the input"):
        release().save(tmp_path, overwrite=True, protect=[data])
    assert data.read_text() == "a\n1\n"


def test_output_under_a_regular_file_or_unwritable(tmp_path, read_only_dir):
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(InputError, match="not a directory"):
        release().save(f / "out")
    with pytest.raises(InputError, match="not a directory"):
        release().save(f)
    # read_only_dir refuses writes to root too (tests/faults.py): this runs under any user.
    with pytest.raises(InputError, match="cannot write .*: permission denied"):
        release().save(read_only_dir / "out")
    assert list(read_only_dir.iterdir()) == []


def test_working_directory_is_never_replaced(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.csv").write_text("a\n1\n")
    with pytest.raises(InputError):
        release().save(".", overwrite=True)
    assert (tmp_path / "data.csv").exists()


def test_a_crash_during_the_swap_is_recovered(tmp_path):
    out = tmp_path / "out"
    release().save(out)
    # What a kill between the two renames leaves: the old release aside, nothing at `out`.
    aside = tmp_path / ".out.microanon-old-abc"
    os.replace(out, aside)
    partial = tmp_path / ".out.microanon-tmp-xyz"
    partial.mkdir()
    (partial / ".microanon-partial").touch()
    foreign = tmp_path / ".out.microanon-tmp-mine"  # not ours: no marker, left alone
    foreign.mkdir()
    release().save(tmp_path / "out", overwrite=True)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [".out.microanon-tmp-mine", "out"]
    assert written_by_microanon(out)


def test_a_failed_block_leaves_the_previous_output(tmp_path):
    out = tmp_path / "out"
    release().save(out)
    with pytest.raises(RuntimeError):
        with atomic_directory(out, overwrite=True) as tmp:
            (tmp / "x").write_text("new")
            raise RuntimeError("killed")
    assert written_by_microanon(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_atomic_file(tmp_path):
    target = tmp_path / "t.csv"
    with pytest.raises(RuntimeError):
        with atomic_file(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []
    with atomic_file(target) as tmp:
        tmp.write_text("whole")
    assert target.read_text() == "whole"
    with pytest.raises(InputError, match="already exists"):
        with atomic_file(target):
            pass
