"""Bundled files: checksums, corruption detection, verification cache, reproducible bundling."""

from __future__ import annotations

import gzip
import hashlib
import shutil
import types
from pathlib import Path

import pytest

from microanon.datasets import DataIntegrityError, _bundle, _files, verify_bundle
from microanon.errors import MicroanonError

BUNDLE = Path(_files.__file__).resolve().parent / "data"
SMALL = "arx-adult/adult_hierarchy_race.csv"


def test_shipped_checksums_equal_the_reference_list(shared_data: Path) -> None:
    reference = _files.parse_checksums((shared_data / "SHA256SUMS").read_text())
    assert len(reference) == 14
    assert _files.expected_checksums() == reference


def test_decompressed_bytes_match_reference_checksums(shared_data: Path) -> None:
    reference = _files.parse_checksums((shared_data / "SHA256SUMS").read_text())
    for rel, digest in reference.items():
        raw = gzip.decompress((BUNDLE / _files.bundled_name(rel)).read_bytes())
        assert hashlib.sha256(raw).hexdigest() == digest, rel
        assert raw == (shared_data / rel).read_bytes(), rel


def test_every_listed_file_is_bundled_and_nothing_else() -> None:
    listed = {_files.bundled_name(rel) for rel in _files.expected_checksums()}
    assert {p.name for p in BUNDLE.glob("*.gz")} == listed
    assert (BUNDLE / "SHA256SUMS.txt").is_file()
    assert (BUNDLE / "README.txt").is_file()


def test_verify_bundle_checks_everything() -> None:
    sums = verify_bundle()
    assert set(sums) == set(_files.expected_checksums())
    assert "adult/adult.data" in sums


def _copy_bundle(tmp_path: Path, rels: list[str]) -> Path:
    dest = tmp_path / "data"
    dest.mkdir()
    sums = _files.expected_checksums()
    listing = "".join(f"{sums[r]}  {r}\n" for r in rels)
    (dest / "SHA256SUMS.txt").write_text(listing)
    for r in rels:
        shutil.copy(BUNDLE / _files.bundled_name(r), dest / _files.bundled_name(r))
    return dest


def test_intact_copy_reads(tmp_path: Path) -> None:
    dest = _copy_bundle(tmp_path, [SMALL])
    assert _files.read_text(SMALL, dest).startswith("White;*")


def test_content_changed_is_reported(tmp_path: Path) -> None:
    dest = _copy_bundle(tmp_path, [SMALL])
    raw = gzip.decompress((dest / _files.bundled_name(SMALL)).read_bytes())
    (dest / _files.bundled_name(SMALL)).write_bytes(gzip.compress(raw.replace(b"White", b"Whyte")))
    with pytest.raises(DataIntegrityError, match=r"corrupt: SHA-256 .* does not match"):
        _files.read_bytes(SMALL, dest)


def test_truncated_gzip_is_reported(tmp_path: Path) -> None:
    dest = _copy_bundle(tmp_path, [SMALL])
    path = dest / _files.bundled_name(SMALL)
    path.write_bytes(path.read_bytes()[:-6])
    with pytest.raises(DataIntegrityError, match="is corrupt"):
        _files.read_bytes(SMALL, dest)
    with pytest.raises(MicroanonError):
        verify_bundle(dest)


def test_missing_and_unknown_files_are_reported(tmp_path: Path) -> None:
    dest = _copy_bundle(tmp_path, [SMALL])
    (dest / _files.bundled_name(SMALL)).unlink()
    with pytest.raises(DataIntegrityError, match="cannot be read"):
        _files.read_bytes(SMALL, dest)
    with pytest.raises(DataIntegrityError, match="not a bundled data file"):
        _files.read_bytes("adult/nope.csv", dest)
    (dest / "SHA256SUMS.txt").unlink()
    with pytest.raises(DataIntegrityError, match="SHA256SUMS.txt"):
        _files.read_bytes(SMALL, tmp_path / "elsewhere")


def test_checksum_is_computed_once_per_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dest = _copy_bundle(tmp_path, [SMALL])
    calls = []

    def counting(data: bytes) -> hashlib._Hash:
        calls.append(len(data))
        return hashlib.sha256(data)

    monkeypatch.setattr(_files, "hashlib", types.SimpleNamespace(sha256=counting))
    for _ in range(3):
        _files.read_bytes(SMALL, dest)
    assert len(calls) == 1
    verify_bundle(dest)  # explicit verification re-checks
    assert len(calls) == 2


def test_deterministic_gzip() -> None:
    data = b"abc;*\n" * 1000
    a, b = _bundle.deterministic_gzip(data), _bundle.deterministic_gzip(data)
    assert a == b
    assert a[4:8] == b"\x00\x00\x00\x00"  # mtime 0
    assert gzip.decompress(a) == data


def test_rebundling_reproduces_the_shipped_files(shared_data: Path, tmp_path: Path) -> None:
    assert _bundle.main([str(shared_data), "--dest", str(tmp_path)]) == 0
    produced = sorted(p.name for p in tmp_path.iterdir())
    assert produced == sorted(p.name for p in BUNDLE.iterdir() if p.suffix in (".gz", ".txt"))
    for name in ("SHA256SUMS.txt", "README.txt"):
        assert (tmp_path / name).read_bytes() == (BUNDLE / name).read_bytes()
    # The deflate stream between header and trailer is zlib's to choose (another zlib build may
    # compress differently); everything else is fixed: the 10-byte header (no name, mtime 0),
    # the trailer (CRC-32 and size of the content), the content, and the bytes on this machine.
    again = tmp_path / "again"
    assert _bundle.main([str(shared_data), "--dest", str(again)]) == 0
    for p in tmp_path.glob("*.gz"):
        made, shipped = p.read_bytes(), (BUNDLE / p.name).read_bytes()
        assert gzip.decompress(made) == gzip.decompress(shipped), p.name
        assert made[:10] == shipped[:10] and made[-8:] == shipped[-8:], p.name
        assert (again / p.name).read_bytes() == made, p.name


def test_bundle_rejects_bad_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _bundle.main([str(tmp_path / "missing"), "--dest", str(tmp_path / "out")]) == 1
    assert "SHA256SUMS" in capsys.readouterr().err
    src = tmp_path / "src"
    (src / "x").mkdir(parents=True)
    (src / "x" / "f.txt").write_text("hello\n")
    (src / "SHA256SUMS").write_text(f"{'0' * 64}  x/f.txt\n")
    with pytest.raises(DataIntegrityError, match="does not match"):
        _bundle.bundle(src, tmp_path / "out")
