"""``microanon serve`` / ``microanon collect submit|export`` against a real server process, and the
client: it sends only generalizations, and bad respondent tuples fail before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
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
    answers = [json.loads(line) for line in r.output.splitlines()]
    assert [a["status"] for a in answers] == ["accepted"] * 3
    monkeypatch.setenv("MICROANON_EXPORT_TOKEN", TOKEN)
    out = tmp_path / "collected.csv"
    r = runner.invoke(main, ["collect", "export", "--server", server.url, "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "4 in all" in r.output and out.read_text().startswith("age,disease,count")
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
