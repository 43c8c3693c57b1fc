"""`microanon anonymize`: configs, the example pipelines, and what lands in --out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import microanon
from microanon import InputError, Release, SchemaError
from microanon.apps.cli import main
from microanon.apps.config import load_config, parse_config
from microanon.models import check_release

# The example pipelines that ship in the package (`microanon examples` writes them out).
EXAMPLES = Path(microanon.__file__).resolve().parent / "examples" / "adult"
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
    release = Release.load(out)
    if release.metadata.get("models"):
        assert "verified on the files as written: yes" in result.output
        assert all(v.holds for v in check_release(release))
    assert {p.name for p in out.iterdir()} == {".microanon-output", "public", "internal"}
    public_files = {p.name for p in (out / "public").iterdir()}
    assert {"release.json", "report.html"} <= public_files
    assert {p.name for p in (out / "internal").iterdir()} == {"internal.json", "report.html"}
    public_text = (out / "public" / "release.json").read_text()
    assert "seed" not in public_text.lower()
    assert "seed" not in (out / "internal" / "internal.json").read_text().lower()
    for internal_only in ('"hierarchies"', '"rows_in"', '"suppressed"', '"audit"'):
        assert internal_only not in public_text
    # Independently of the verifier: no original value that the published tables lack appears
    # anywhere in the public metadata or the public report.
    cfg = load_config(path)
    original = cfg.read_data()
    public = Release.load(out / "public")
    shown = {str(v) for df in public.tables.values() for c in df.columns for v in df[c].unique()}
    absent = {str(v) for c in original.columns for v in original[c].unique()} - shown
    absent -= {str(c) for c in original.columns}
    words = set(re.findall(r'"([^"]*)"', public_text))
    if release.kind != "randomized":  # its domains and matrices are public by design
        assert not (words & absent), sorted(words & absent)[:5]
    report = (out / "public" / "report.html").read_text()
    cells = {c for c in re.findall(r"<td>([^<]*)</td>", report) if not _number(c)}
    assert not (cells & absent), sorted(cells & absent)[:5]
    html = (out / "internal" / "report.html").read_text()
    assert "privacy" in html and "utility" in html


def _number(text: str) -> bool:
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True


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
    result = CliRunner().invoke(
        main,
        ["anonymize", "--config", str(EXAMPLES / "anatomy.yaml"), "--out", str(out), "--overwrite"],
    )
    assert result.exit_code == 2 and "did not write" in result.output
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


def test_a_config_without_a_method_is_told_to_give_one():
    doc = _config()
    del doc["method"]
    with pytest.raises(InputError, match=r"or steps: \(several\), one of them$"):
        parse_config(doc, base_dir=EXAMPLES)
    with pytest.raises(InputError, match=r", not both$"):
        parse_config({**_config(), "steps": [{"method": "sample"}]}, base_dir=EXAMPLES)


def test_failing_run_leaves_nothing(tmp_path):
    doc = _config(models=[{"l_diversity": {"l": 20, "form": "distinct"}}])
    (tmp_path / "hierarchies").symlink_to(EXAMPLES / "hierarchies")
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc))
    result = CliRunner().invoke(
        main, ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 1  # the privacy requirement cannot hold: status 1, not 2
    # One error line; the stages done before the failure are progress lines.
    lines = result.stderr.splitlines()
    errors = [line for line in lines if not line.startswith("microanon anonymize: [")]
    assert errors == [lines[-1]] and errors[0].startswith("Error: ")
    assert "Traceback" not in result.output
    assert not (tmp_path / "o").exists()


def test_population_models_from_yaml_run_and_verify(tmp_path):
    """δ-presence and k-map read their population from a file named in the config; the written
    release keeps the population counts internally and verifies."""
    from microanon.datasets import load_arx_adult

    adult = load_arx_adult()
    columns = ["sex", "age", "race", "marital_status", "occupation"]
    adult[columns].sample(1500, random_state=3).to_csv(tmp_path / "sample.csv", index=False)
    adult[columns[:-1]].to_csv(tmp_path / "population.csv", index=False)
    (tmp_path / "hierarchies").symlink_to(EXAMPLES / "hierarchies")
    doc = _config(
        data="sample.csv",
        schema={c: _config()["schema"][c] for c in columns},
        models=[
            {
                "delta_presence": {
                    "delta_min": 0.0,
                    "delta_max": 0.2,
                    "population": "population.csv",
                }
            },
            {"k_map": {"k": 20, "population": "population.csv"}},
        ],
    )
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(doc))
    cfg = load_config(tmp_path / "c.yaml")
    assert len(cfg.models[0].population) == len(adult)
    out = tmp_path / "o"
    result = CliRunner().invoke(
        main, ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "verified on the files as written: yes" in result.output
    public_text = (out / "public" / "release.json").read_text()
    assert "populations" not in public_text and "population.csv" not in public_text
    release = Release.load(out)
    assert len(release.metadata["populations"]) == 2
    assert all(v.holds for v in check_release(release))


def test_the_run_keeps_the_method_encoding_only_while_it_runs(tmp_path):
    """Within the run the release keeps the original as its method encoded it (for the
    reports); the release the run returns no longer holds it."""
    import microanon.apps.release_summary as summary
    from microanon.apps.anonymize import run_anonymize

    seen = []
    real = summary.closest_configurations

    def watched(cfg, original, release_search=None, searched=None, encoded=None, levels=None):
        seen.append(encoded)
        return real(cfg, original, release_search, searched, encoded, levels)

    cfg = load_config(EXAMPLES / "full_domain.yaml")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(summary, "closest_configurations", watched)
        _, release, _ = run_anonymize(cfg, tmp_path / "out")
    assert release.encoded is None
    assert seen and all(e is not None and e.n_rows == release.metadata["rows_in"] for e in seen)


def test_the_column_table_stays_aligned_with_long_names(tmp_path):
    # A column name longer than the table's usual 16 characters widens the name column instead
    # of pushing its role out of line.
    from microanon.datasets import load_arx_adult

    long = "occupation_of_the_respondent"
    load_arx_adult().head(400).rename(columns={"occupation": long}).to_csv(
        tmp_path / "small.csv", index=False
    )
    config = yaml.safe_load((EXAMPLES / "full_domain.yaml").read_text(encoding="utf-8"))
    config["schema"] = {long if c == "occupation" else c: d for c, d in config["schema"].items()}
    config["schema"] = {
        c: {**d, "hierarchy": str(EXAMPLES / d["hierarchy"])} if "hierarchy" in d else d
        for c, d in config["schema"].items()
    }
    config["data"] = str(tmp_path / "small.csv")
    config["models"] = [{"k_anonymity": {"k": 5}}]
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    args = ["anonymize", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = [x for x in result.stdout.splitlines() if x.startswith("  ") and "(records)" not in x]
    starts = {x.index(" quasi ") if " quasi " in x else x.index(" sensitive ") for x in rows}
    assert len(rows) == 9 and starts == {2 + len(long)}
