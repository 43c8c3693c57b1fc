"""`microanon anonymize`: configs, the example pipelines, and what lands in --out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from microanon import InputError, Release, SchemaError
from microanon.apps.cli import main
from microanon.apps.config import load_config, parse_config
from microanon.models import check_release

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "adult"
CONFIGS = sorted(EXAMPLES.glob("*.yaml"))


def test_every_example_config_is_valid():
    assert {p.stem for p in CONFIGS} >= {"full_domain", "mondrian", "local_recoding", "anatomy"}
    for path in CONFIGS:
        cfg = load_config(path)
        assert cfg.schema.quasi and cfg.method == path.stem


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_example_pipelines_run_and_verify(tmp_path, path):
    out = tmp_path / path.stem
    result = CliRunner().invoke(main, ["anonymize", "--config", str(path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    if Release.load(out).metadata.get("models"):
        assert "verified on the release: yes" in result.output
    names = {p.name for p in out.iterdir()}
    assert {"release.json", "report.html"} <= names
    release = Release.load(out)
    manifest = json.loads((out / "release.json").read_text())
    assert "seed" not in json.dumps(manifest)
    if release.metadata.get("models"):
        assert all(v.holds for v in check_release(release))
    html = (out / "report.html").read_text()
    assert "privacy" in html and "utility" in html


def test_data_on_the_command_line_overrides_the_config(tmp_path):
    from microanon.datasets import load_arx_adult

    small = load_arx_adult().head(400)
    small.to_csv(tmp_path / "small.csv", index=False)
    out = tmp_path / "o"
    result = CliRunner().invoke(
        main,
        [
            "anonymize",
            str(tmp_path / "small.csv"),
            "--config",
            str(EXAMPLES / "full_domain.yaml"),
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert Release.load(out).metadata["rows_in"] == 400


def test_existing_output_is_not_clobbered(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = CliRunner().invoke(
        main, ["anonymize", "--config", str(EXAMPLES / "anatomy.yaml"), "--out", str(out)]
    )
    assert result.exit_code == 2 and "already exists" in result.output
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def _config(**changes):
    doc = yaml.safe_load((EXAMPLES / "full_domain.yaml").read_text())
    doc.update(changes)
    return doc


@pytest.mark.parametrize(
    "changes, error, message",
    [
        ({"method": "magic"}, InputError, "unknown method 'magic'"),
        ({"params": {"suppresion": 0.1}}, InputError, "does not take 'suppresion'"),
        ({"models": [{"k_anonimity": {"k": 5}}]}, InputError, "unknown privacy model"),
        ({"models": [{"k_anonymity": {"k": 0}}]}, InputError, "k"),
        ({"extra": 1}, InputError, "unknown key"),
        ({"schema": {"age": {"role": "boss"}}}, SchemaError, "unknown role"),
        ({"output": {"format": "xls"}}, InputError, "format"),
    ],
)
def test_bad_configs(changes, error, message):
    with pytest.raises(error, match=message):
        parse_config(_config(**changes), base_dir=EXAMPLES)


def test_failing_run_leaves_nothing(tmp_path):
    doc = _config(models=[{"l_diversity": {"l": 20, "form": "distinct"}}])
    (tmp_path / "hierarchies").symlink_to(EXAMPLES / "hierarchies")
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc))
    result = CliRunner().invoke(
        main, ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 1  # the privacy requirement cannot hold: status 1, not 2
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.output
    assert not (tmp_path / "o").exists()
