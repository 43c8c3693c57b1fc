"""``microanon examples``: the bundled example configurations, written out and run from there."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import microanon
import microanon.apps.examples as examples_module
from microanon.apps.cli import main
from microanon.apps.config import load_config
from microanon.apps.examples import example_files, export_examples
from microanon.apps.server.config import load_service_config
from microanon.core.output import MARKER
from microanon.datasets import _files
from microanon.datasets.hierarchies import ADULT_ARX_HIERARCHY_FILES

PACKAGE_EXAMPLES = Path(microanon.__file__).resolve().parent / "examples"


def _written(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_the_bundled_examples_are_the_ones_the_docs_run():
    names = example_files()
    assert names == sorted(names)
    for name in ("full_domain", "mondrian", "local_recoding", "anatomy", "microaggregation"):
        assert f"adult/{name}.yaml" in names
    assert {"collect/survey.yaml", "collect/respondents.csv"} <= set(names)
    assert sum(n.startswith("adult/hierarchies/") for n in names) == 9


def test_examples_writes_every_file_byte_for_byte(tmp_path):
    out = tmp_path / "ex"
    result = CliRunner().invoke(main, ["examples", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {len(example_files())} files to {out}" in result.output
    assert _written(out) == {*example_files(), MARKER}
    for rel in example_files():
        assert (out / rel).read_bytes() == (PACKAGE_EXAMPLES / rel).read_bytes(), rel


def test_default_directory_is_examples_in_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["examples"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "examples" / "adult" / "full_domain.yaml").is_file()


def test_an_empty_existing_directory_is_filled(tmp_path):
    (tmp_path / "ex").mkdir()
    written = export_examples(tmp_path / "ex")
    assert [p.relative_to(tmp_path / "ex").as_posix() for p in written] == example_files()
    assert all(p.is_file() for p in written)


def test_the_copies_run_from_where_they_were_written(tmp_path, monkeypatch):
    """Relative hierarchy paths resolve beside the copy (there is no other copy in tmp_path)."""
    out = tmp_path / "somewhere" / "else"
    export_examples(out)
    configs = sorted((out / "adult").glob("*.yaml"))
    assert len(configs) == sum(
        n.startswith("adult/") and n.endswith(".yaml") for n in example_files()
    )
    for path in configs:
        cfg = load_config(path)
        assert cfg.schema.quasi and cfg.method == path.stem
    sex = load_config(out / "adult" / "full_domain.yaml").schema.hierarchy("sex")
    assert set(sex.leaves) == {"Male", "Female"}
    monkeypatch.setenv("MICROANON_EXPORT_TOKEN", "examples-test-0123456789")
    survey = load_service_config(out / "collect" / "survey.yaml")
    assert survey.survey.quasi == ["age", "workclass", "education", "sex"]
    assert not list(out.rglob("*.sqlite")), "loading the survey must not create its storage"


def test_a_directory_with_files_is_refused_and_left_alone(tmp_path):
    out = tmp_path / "ex"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    result = CliRunner().invoke(main, ["examples", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1
    assert str(out) in result.stderr and "never overwrites" in result.stderr
    assert _written(out) == {"mine.txt"} and (out / "mine.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ex"]


def test_a_second_run_into_the_same_directory_is_refused(tmp_path):
    out = tmp_path / "ex"
    export_examples(out)
    before = {rel: (out / rel).read_bytes() for rel in _written(out)}
    result = CliRunner().invoke(main, ["examples", "--out", str(out)])
    assert result.exit_code == 2 and "never overwrites" in result.stderr
    assert {rel: (out / rel).read_bytes() for rel in _written(out)} == before


def test_a_file_in_the_way_is_refused(tmp_path):
    (tmp_path / "ex").write_text("a file")
    result = CliRunner().invoke(main, ["examples", "--out", str(tmp_path / "ex")])
    assert result.exit_code == 2
    assert (tmp_path / "ex").read_text() == "a file"


def test_a_failure_half_way_leaves_nothing(tmp_path, monkeypatch):
    real = examples_module._child
    calls = []

    def failing(folder, rel):
        calls.append(rel)
        if len(calls) == 5:
            raise OSError(f"cannot read {rel}")
        return real(folder, rel)

    monkeypatch.setattr(examples_module, "_child", failing)
    with pytest.raises(OSError):
        export_examples(tmp_path / "ex")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("column", sorted(ADULT_ARX_HIERARCHY_FILES))
def test_example_hierarchies_are_the_bundled_arx_files(column):
    """The examples' hierarchy CSVs and the checksummed bundle are one file: they cannot drift."""
    rel = ADULT_ARX_HIERARCHY_FILES[column]
    example = PACKAGE_EXAMPLES / "adult" / "hierarchies" / rel.split("/")[-1]
    assert example.read_bytes() == _files.read_bytes(rel)
