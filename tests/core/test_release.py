from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from microanon import Hierarchy, InputError, Release
from microanon.core import RELEASE_KINDS


def frame(n: int = 5) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": ["[20, 30)", "*", "[30, 40)", "25", "[20, 30)"][:n],
            "count": np.arange(n, dtype=np.int64),
            "share": np.linspace(0, 1, n),
            "flag": [True, False, True, True, False][:n],
            "note": ["a", None, "c", "NA", ""][:n],
        }
    )


@pytest.mark.parametrize("kind", sorted(RELEASE_KINDS))
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_every_kind_round_trips(tmp_path, kind, fmt):
    tables = {name: frame() for name in RELEASE_KINDS[kind]}
    meta = {
        "method": "test",
        "matrix": np.eye(3) * 0.5,
        "levels": {"age": np.int64(2)},
        "hierarchy": Hierarchy.from_nested({"*": ["a", "b"]}),
    }
    rel = Release(kind, tables, meta)
    out = rel.save(tmp_path / "r", format=fmt)
    files = sorted(p.name for p in out.iterdir())
    assert files == sorted(["release.json", *(f"{t}.{fmt}" for t in RELEASE_KINDS[kind])])
    back = Release.load(out)
    assert back.equals(rel)
    assert back.metadata["matrix"] == (np.eye(3) * 0.5).tolist()


def test_single_table_release_is_data_csv(tmp_path):
    Release("generalized", {"data": frame()}).save(tmp_path / "g")
    assert (tmp_path / "g" / "data.csv").exists()
    manifest = json.loads((tmp_path / "g" / "release.json").read_text())
    assert manifest["kind"] == "generalized" and manifest["tables"]["data"]["rows"] == 5


def test_seeds_never_enter_a_release():
    with pytest.raises(InputError, match="seed"):
        Release("randomized", {"data": frame()}, {"params": {"p": 0.7, "seed": 42}})


def test_save_refuses_to_clobber_and_leaves_nothing_on_failure(tmp_path):
    rel = Release("masked", {"data": frame()})
    rel.save(tmp_path / "m")
    with pytest.raises(InputError, match="already exists"):
        rel.save(tmp_path / "m")
    rel.save(tmp_path / "m", overwrite=True)
    with pytest.raises(InputError, match="format"):
        rel.save(tmp_path / "x", format="xlsx")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


def test_bad_releases():
    with pytest.raises(InputError, match="unknown release kind"):
        Release("secret", {"data": frame()})
    with pytest.raises(InputError, match="needs table"):
        Release("anatomized", {"qit": frame()})
    with pytest.raises(InputError, match="holds no release"):
        Release.load("/nonexistent/dir")


def test_a_failed_save_leaves_nothing_behind(tmp_path, monkeypatch):
    rel = Release("anatomized", {"qit": frame(), "st": frame()})

    def broken(self, path, *args, **kwargs):
        if str(path).endswith("st.csv"):
            raise OSError("disk full")
        return original(self, path, *args, **kwargs)

    original = pd.DataFrame.to_csv
    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    with pytest.raises(OSError, match="disk full"):
        rel.save(tmp_path / "a")
    assert list(tmp_path.iterdir()) == []
