"""The scan of written files for the random generator's seed or state."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import microanon.core.secret_scan as scan


def test_the_state_scan_finds_a_text_across_read_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(scan, "_CHUNK", 8)  # the needle straddles the first two chunks
    (tmp_path / "data.csv").write_bytes(b"xxxxxx123456789yyyy")
    assert scan.texts_in_files(tmp_path, ["123456789"]) == [
        "data.csv holds the random generator's seed or state"
    ]
    assert scan.texts_in_files(tmp_path, ["999"]) == []


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=60),
    st.lists(st.binary(min_size=1, max_size=6), min_size=1, max_size=3),
    st.integers(1, 9),
)
def test_the_state_scan_finds_what_a_search_of_the_whole_file_finds(data, needles, chunk):
    """Chunks of any size, needles anywhere (across chunks, at the file's end): the scan
    answers as a search of the whole file's bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "f").write_bytes(data)
        saved, scan._CHUNK = scan._CHUNK, chunk
        try:
            found = scan._holds_any(Path(tmp) / "f", needles)
        finally:
            scan._CHUNK = saved
    assert found == any(n in data for n in needles)


@settings(max_examples=300, deadline=None)
@given(
    st.binary(max_size=80).map(lambda b: bytes(b"01a,x"[v % 5] for v in b)),
    st.lists(
        st.binary(min_size=1, max_size=8).map(lambda b: bytes(b"01a,"[v % 4] for v in b)),
        min_size=1,
        max_size=4,
    ),
    st.integers(1, 9),
)
def test_a_chunk_without_a_run_of_the_needles_bytes_is_passed_over_only_when_it_holds_none(
    data, needles, chunk
):
    """Files and needles of a few bytes, so that chunks with and without a run of the needles'
    bytes as long as the shortest needle both occur: the scan answers as a search of the whole
    file's bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "f").write_bytes(data)
        saved, scan._CHUNK = scan._CHUNK, chunk
        try:
            found = scan._holds_any(Path(tmp) / "f", needles)
        finally:
            scan._CHUNK = saved
    assert found == any(n in data for n in needles)


def test_the_files_written_or_changed_since_are_named(tmp_path):
    """What a scan of the tables as written leaves to the end: a file added after it, a file
    rewritten (another size, or the same size at another time), a file replaced by another of
    the same size and time, nothing unchanged."""
    (tmp_path / "sub").mkdir()
    for name in ("data.csv", "release.json", "sub/part.parquet"):
        (tmp_path / name).write_text("written")
    before = scan.file_states(tmp_path)
    assert sorted(before) == ["data.csv", "release.json", "sub/part.parquet"]
    assert scan.changed_files(tmp_path, before) == []
    (tmp_path / "report.html").write_text("added")
    (tmp_path / "release.json").write_text("rewritten, longer")
    _, mtime, _ = before["sub/part.parquet"]
    (tmp_path / "sub/part.parquet").write_text("changed")  # the same size
    os.utime(tmp_path / "sub/part.parquet", ns=(mtime + 10**9, mtime + 10**9))
    assert scan.changed_files(tmp_path, before) == [
        "release.json",
        "report.html",
        "sub/part.parquet",
    ]
    after = scan.file_states(tmp_path)
    data = tmp_path / "data.csv"
    stat = data.stat()
    (tmp_path / "replacement").write_text("WRITTEN")  # the same size
    os.utime(tmp_path / "replacement", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    os.replace(tmp_path / "replacement", data)  # as an atomic write replaces a file
    assert scan.changed_files(tmp_path, after) == ["data.csv"]


def test_only_the_files_named_are_scanned(tmp_path):
    (tmp_path / "a.csv").write_text("12345678901234567890")
    (tmp_path / "b.csv").write_text("nothing here")
    secret = ["12345678901234567890"]
    assert scan.texts_in_files(tmp_path, secret, ["b.csv"]) == []
    assert scan.texts_in_files(tmp_path, secret, ["a.csv", "b.csv"]) == [
        "a.csv holds the random generator's seed or state"
    ]
    assert scan.texts_in_files(tmp_path, []) == []
