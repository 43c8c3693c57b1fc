"""``microanon serve`` / ``microanon collect submit|export`` against a real server process, and the
client: it sends only generalizations, and bad respondent tuples fail before anything is sent."""

from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path

import httpx
import pandas as pd
import pytest
from click.testing import CliRunner, Result
from collect_helpers import TOKEN, write_survey

from microanon.apps.cli import main
from microanon.apps.server import CollectionClient, ServiceError, ServiceProcess
from microanon.core.errors import HierarchyError, InputError


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    with ServiceProcess(write_survey(tmp_path_factory.mktemp("svc"))) as proc:
        yield proc


def test_submit_and_export_commands(server: ServiceProcess, tmp_path: Path, monkeypatch) -> None:
    runner = CliRunner()
    r = runner.invoke(
        main, ["collect", "submit", "--server", server.url, "age=25-29", "disease=Flu"]
    )
    assert r.exit_code == 0, r.output
    assert "accepted (version" in r.output and "age=25-29" in r.output
    csv = tmp_path / "people.csv"
    csv.write_text("age,disease\n20-24,Flu\n25-29,Cold\n30-34,Ulcer\n", encoding="utf-8")
    r = runner.invoke(
        main, ["collect", "submit", "--server", server.url, "--csv", str(csv), "--json"]
    )
    assert r.exit_code == 0, r.output
    answers = [json.loads(line) for line in r.stdout.splitlines()]
    assert [a["status"] for a in answers] == ["accepted"] * 3
    assert r.stderr.startswith("microanon collect submit: respondents: 3 ... done in ")
    monkeypatch.setenv("MICROANON_EXPORT_TOKEN", TOKEN)
    out = tmp_path / "collected.csv"
    r = runner.invoke(main, ["collect", "export", "--server", server.url, "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "4 in all" in r.stdout and out.read_text().startswith("age,disease,count")
    assert r.stderr.startswith("microanon collect export: [1/2] download the collected set ")
    args = ["collect", "export", "--server", server.url, "--out", str(out), "--overwrite"]
    quiet = runner.invoke(main, [*args, "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == "" and "4 in all" in quiet.stdout
    monkeypatch.setenv("MICROANON_EXPORT_TOKEN", "not-the-token-000000")
    r = runner.invoke(
        main, ["collect", "export", "--server", server.url, "--out", str(tmp_path / "x")]
    )
    assert r.exit_code == 2 and "403" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["collected.csv", "people.csv"]  # no x


def test_submit_command_errors(server: ServiceProcess) -> None:
    runner = CliRunner()
    r = runner.invoke(main, ["collect", "submit", "--server", server.url, "age=99", "disease=Flu"])
    assert r.exit_code == 2 and "99" in r.output
    r = runner.invoke(main, ["collect", "submit", "--server", server.url, "age25-29"])
    assert r.exit_code == 2 and "ATTRIBUTE=VALUE" in r.output
    r = runner.invoke(main, ["collect", "submit", "--server", "ftp://x", "age=25-29"])
    assert r.exit_code == 2 and "http://" in r.output


def test_client_sends_only_generalizations(server: ServiceProcess) -> None:
    sent: list[dict] = []

    def record(request: httpx.Request) -> None:
        if request.method == "POST":
            sent.append(json.loads(request.content))

    with CollectionClient(server.url) as client:
        client._http.event_hooks["request"].append(record)
        o = {"age": "25-29", "disease": "Flu"}
        result = client.submit(o)
        assert result.status in ("accepted", "abstained")
        if result.status == "accepted":
            body = sent[-1]
            assert set(body) == {"id", "version", "tuple"}
            assert client.survey.generalizes(list(body["tuple"].values()), ["25-29", "Flu"])
            assert result.submission.pv >= 0.5
        with pytest.raises(HierarchyError):
            client.submit({"age": "25-29", "disease": "Plague"})
        with pytest.raises(InputError, match="generalized value"):
            client.submit({"age": "20-29", "disease": "Flu"})
    assert all("Plague" not in json.dumps(b) for b in sent)


def test_client_gives_up_when_nothing_answers() -> None:
    from microanon.apps.server import free_port

    client = CollectionClient(f"http://127.0.0.1:{free_port()}", retry_for=0.3)
    with pytest.raises(ServiceError, match="unavailable"):
        client.survey  # noqa: B018


# ------------------------------------------------------------------------ collect export --out
class _Fake:
    """Stands in for the service's export: records calls, returns a fixed multiset."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, frame: pd.DataFrame) -> None:
        self.frame, self.calls = frame, 0
        monkeypatch.setattr(CollectionClient, "export", lambda client, token: self.fetch())

    def fetch(self) -> pd.DataFrame:
        self.calls += 1
        return self.frame


def _export(out: Path, *extra: str) -> Result:
    args = ["collect", "export", "--server", "http://127.0.0.1:9", "--out", str(out), *extra]
    return CliRunner().invoke(main, args, env={"MICROANON_EXPORT_TOKEN": TOKEN})


def _one_line_error(r: Result, words: str) -> None:
    assert r.exit_code == 2, r.output
    assert isinstance(r.exception, SystemExit), r.exception  # no traceback
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and words in lines[0], r.output


FRAME = pd.DataFrame({"age": ["25-29", "Any"], "disease": ["Resp", "Dig"], "count": [2, 1]})


def test_collect_export_refuses_to_overwrite_unless_asked(tmp_path: Path, monkeypatch) -> None:
    fake = _Fake(monkeypatch, FRAME)
    out = tmp_path / "new" / "collected.csv"
    r = _export(out)
    assert r.exit_code == 0, r.output
    assert "3 in all" in r.output
    assert out.read_text() == "age,disease,count\n25-29,Resp,2\nAny,Dig,1\n"
    assert [p.name for p in out.parent.iterdir()] == ["collected.csv"]  # no temporary left
    out.write_text("previous export\n")
    r = _export(out)
    _one_line_error(r, "already exists")
    assert fake.calls == 1, "the destination is checked before contacting the service"
    assert out.read_text() == "previous export\n"
    r = _export(out, "--overwrite")
    assert r.exit_code == 0, r.output
    assert out.read_text().startswith("age,disease,count\n25-29,Resp,2")
    assert sorted(p.name for p in out.parent.iterdir()) == ["collected.csv"]


class _Boom:
    """A value whose text rendering fails: the export dies half way through writing the CSV."""

    def __str__(self) -> str:
        raise KeyboardInterrupt


def test_collect_export_interrupted_leaves_no_partial_file(tmp_path: Path, monkeypatch) -> None:
    rows = 5000
    frame = pd.DataFrame(
        {"age": ["25-29"] * rows, "disease": ["Resp"] * (rows - 1) + [_Boom()], "count": 1}
    )
    _Fake(monkeypatch, frame)
    out = tmp_path / "collected.csv"
    r = _export(out)
    assert r.exit_code != 0
    assert not out.exists(), "an interrupted export left a partial file under the final name"
    assert list(tmp_path.iterdir()) == []
    out.write_text("previous export\n")
    r = _export(out, "--overwrite")
    assert r.exit_code != 0
    assert out.read_text() == "previous export\n"
    assert list(tmp_path.iterdir()) == [out]
    # Killed after writing, before the rename: the final name still holds the old file.
    _Fake(monkeypatch, FRAME)

    def killed(src: object, dst: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", killed)
    r = _export(out, "--overwrite")
    assert r.exit_code != 0 and out.read_text() == "previous export\n"
    assert list(tmp_path.iterdir()) == [out]


def test_collect_export_bad_destinations(tmp_path: Path, monkeypatch, read_only_dir) -> None:
    fake = _Fake(monkeypatch, FRAME)
    regular = tmp_path / "file.txt"
    regular.write_text("x")
    for out in (regular / "collected.csv", regular / "sub" / "collected.csv"):
        _one_line_error(_export(out), "is not a directory")
    _one_line_error(_export(tmp_path), "is a directory")
    _one_line_error(_export(tmp_path, "--overwrite"), "is a directory")
    assert fake.calls == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]
    # A directory the process may not write in (refused to root too: tests/faults.py).
    _one_line_error(_export(read_only_dir / "collected.csv"), "permission denied")
    assert list(read_only_dir.iterdir()) == [] and fake.calls == 0
    # The file system refusing the write itself (a full disk, a read-only mount, ...).
    out = tmp_path / "collected.csv"

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    _one_line_error(_export(out), "Permission denied")
    assert not out.exists()


def test_every_respondent_is_checked_before_any_is_sent(server: ServiceProcess, tmp_path) -> None:
    """A CSV whose third row does not fit the survey sends nothing (it had sent the rows
    before it, so that submitting the fixed file counted them twice), naming the row; an
    attribute the survey has not, one given twice, and an empty cell are refused too (they
    had been dropped, the last taken, or called 'nan')."""
    runner = CliRunner()
    before = httpx.get(f"{server.url}/health").json()["version"]
    cases = {
        "age,disease\n20-24,Flu\n25-29,Cold\n30-34,Astronaut\n": "people.csv row 3: ",
        "age,disease\n20-24,Flu\n,Cold\n": "people.csv row 2: no value for 'age'",
        "age,disease,name\n20-24,Flu,Ann\n": "people.csv row 1: 'name' is no attribute",
    }
    for text, message in cases.items():
        csv = tmp_path / "people.csv"
        csv.write_text(text, encoding="utf-8")
        r = runner.invoke(main, ["collect", "submit", "--server", server.url, "--csv", str(csv)])
        assert r.exit_code == 2 and "accepted" not in r.output, r.output
        assert r.output.strip().splitlines()[-1].startswith(f"Error: {message}"), r.output
    args = ["collect", "submit", "--server", server.url]
    r = runner.invoke(main, [*args, "age=25-29", "disease=Flu", "color=red"])
    assert r.exit_code == 2 and "'color' is no attribute of the survey" in r.output
    r = runner.invoke(main, [*args, "age=25-29", "age=30-34", "disease=Flu"])
    assert r.exit_code == 2 and "'age' is given twice" in r.output
    assert httpx.get(f"{server.url}/health").json()["version"] == before  # nothing sent


def test_a_repeated_command_with_its_id_is_safe(server: ServiceProcess) -> None:
    """`collect submit --id` run again: the second run computes its generalization against a
    set holding the first answer (here also from other values, as a respondent correcting an
    answer would), which the service refuses as another tuple under a used id; the command
    says the earlier submission stands and exits 0 (it had exited 2, telling the respondent to
    use a new id, which would have stored them twice). The same tuple again is a duplicate."""
    runner = CliRunner()
    args = ["collect", "submit", "--server", server.url, "--id", "respondent-0042"]
    first = runner.invoke(main, [*args, "age=25-29", "disease=Flu"])
    assert first.exit_code == 0 and "accepted (version" in first.output, first.output
    version = httpx.get(f"{server.url}/health").json()["version"]
    again = runner.invoke(main, [*args, "age=35-39", "disease=Gastritis"])
    assert again.exit_code == 0, again.output
    assert again.output.strip() == (
        "submitted before: submission id 'respondent-0042' was used by an earlier submission, "
        "which stands; nothing new was stored"
    )
    assert httpx.get(f"{server.url}/health").json()["version"] == version


def test_a_survey_by_invitation_takes_the_code_on_the_command_line(tmp_path: Path) -> None:
    """`collect submit --invitation CODE` (there was no way to give one: the command got 401):
    the code goes in the submission's X-Invitation header; used once, it is refused."""
    codes = ["invite-alpha-0001", "invite-bravo-0002"]
    (tmp_path / "tokens.txt").write_text("\n".join(codes) + "\n", encoding="utf-8")
    runner = CliRunner()
    with ServiceProcess(write_survey(tmp_path, invitations="tokens.txt")) as proc:
        args = ["collect", "submit", "--server", proc.url, "age=25-29", "disease=Flu"]
        missing = runner.invoke(main, args)
        assert missing.exit_code == 2 and "401" in missing.output
        first = runner.invoke(main, [*args, "--invitation", codes[0]])
        assert first.exit_code == 0 and "accepted (version 1)" in first.output, first.output
        again = runner.invoke(main, [*args, "--invitation", codes[0]])
        assert again.exit_code == 2 and "403" in again.output, again.output
        csv = tmp_path / "people.csv"
        csv.write_text("age,disease\n20-24,Flu\n", encoding="utf-8")
        both = runner.invoke(
            main, ["collect", "submit", "--server", proc.url, "--csv", str(csv),
                   "--invitation", codes[1]],
        )  # fmt: skip
        assert both.exit_code == 2 and "--invitation apply to one respondent" in both.output
