"""`atomic_file`: a file appears under its final name complete or not at all."""

from __future__ import annotations

import os
import stat
import tempfile

import pytest

from microanon import InputError
from microanon.core.output import atomic_file


def test_writes_through_a_temporary_file_in_the_same_directory(tmp_path):
    target = tmp_path / "sub" / "table.csv"
    with atomic_file(target) as tmp:
        assert tmp.parent == target.parent and tmp.name.endswith(".csv")  # suffix kept
        assert not target.exists()
        tmp.write_text("a,b\n1,2\n")
    assert target.read_text() == "a,b\n1,2\n"
    assert [p.name for p in target.parent.iterdir()] == ["table.csv"]
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0o600


def test_a_failure_leaves_neither_the_file_nor_the_temporary(tmp_path):
    target = tmp_path / "table.csv"
    with pytest.raises(RuntimeError), atomic_file(target) as tmp:
        tmp.write_text("a,b\n1,")  # half written
        raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []


def test_existing_target_is_refused_unless_overwrite(tmp_path):
    target = tmp_path / "t.csv"
    target.write_text("mine")
    with pytest.raises(InputError, match="already exists"), atomic_file(target):
        pass
    assert target.read_text() == "mine"
    with atomic_file(target, overwrite=True) as tmp:
        tmp.write_text("new")
    assert target.read_text() == "new" and len(list(tmp_path.iterdir())) == 1
    with pytest.raises(InputError, match="is a directory"), atomic_file(tmp_path):
        pass


def test_a_parent_that_is_a_regular_file_is_named(tmp_path):
    (tmp_path / "somefile.txt").write_text("x")
    with (
        pytest.raises(InputError, match="somefile.txt is not a directory"),
        atomic_file(tmp_path / "somefile.txt" / "deeper" / "x.csv"),
    ):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["somefile.txt"]


def test_an_unwritable_directory_is_an_input_error(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)  # works as root, unlike chmod
    with pytest.raises(InputError, match="cannot write .*Permission denied"):
        with atomic_file(tmp_path / "x.csv"):
            pass
    assert list(tmp_path.iterdir()) == []
