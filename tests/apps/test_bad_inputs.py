"""The bad-input campaign: every command that reads user input, and the public Python entry
points, tried with bad input, each case checked against the promise of README.md ("Exit
statuses"): a non-zero exit status (2 for bad input), one clear line naming the column, value,
option or file at fault, no traceback, nothing written in ``--out`` and never the content of a
file the command should not have read. The number of cases is the number of bad inputs tried.

Click's own usage errors print the command's usage and a hint above their one ``Error:`` line
(as in ``test_cli.py``): those two lines, and the progress lines on stderr, are not counted.
"""

from __future__ import annotations

import copy
import math
import os
import re
import signal
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from paper_tables import employees

from microanon import Hierarchy, MicroanonError, Release
from microanon.apps.cli import main

#: Written into every file a command should refuse to read as what it is given for: an error
#: must never quote it.
SECRET = "s3cr3t-do-not-print"

#: Seconds a case may run: a command that blocks on its input (``/dev/zero``, a FIFO) fails its
#: case instead of hanging the suite.
HANG_GUARD = 20


def _ids(cases: list[Any]) -> list[Any]:
    """``cases`` as pytest parameters named by their text."""
    return [pytest.param(case, id=str(case)) for case in cases]


#: The lines on stderr that are not the error: progress (``microanon anonymize: [1/6] ...``) and
#: click's usage banner above a usage error.
NOT_THE_ERROR = re.compile(r"^(microanon [\w -]+: |Usage: |Try '.+' for help\.$)")


# ------------------------------------------------------------------------------- the inputs
@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of good and bad inputs (read only for the cases)."""
    from microanon.datasets import load_dataset

    d = tmp_path_factory.mktemp("bad-inputs")
    adult = load_dataset("adult").head(40)[["age", "sex", "race", "occupation"]]
    adult.to_csv(d / "a.csv", index=False)
    for column in ("sex", "race"):
        (d / f"{column}.csv").write_text("".join(f"{v};*\n" for v in adult[column].unique()))
    (d / "male_only.csv").write_text("Male;*\n")
    (d / "empty.csv").write_text("")
    (d / "blank.csv").write_text("   \n\n  \n")
    (d / "header.csv").write_text("age,sex,race,occupation\n")
    (d / "garbage.csv").write_bytes(b"\x00\xff\xfe\x89PNG\x00" + SECRET.encode() + b"\x00\x81")
    (d / "latin1.csv").write_bytes("age,sex,race,occupation\n30,Mâle,Wé,Sales\n".encode("latin-1"))
    (d / "ragged.csv").write_text("age,sex,race,occupation\n30,Male\n40,Female,White,Sales,x,y\n")
    (d / "dup.csv").write_text("age,sex,age,occupation\n30,Male,31,Sales\n")
    (d / "corrupt.parquet").write_bytes(b"PAR1" + SECRET.encode() + b"\x00\x01PAR1")
    (d / "text.parquet").write_text(f"age,sex\n{SECRET},Male\n")
    (d / "text.xlsx").write_text(f"age,sex\n{SECRET},Male\n")
    (d / "text.sav").write_text(f"age,sex\n{SECRET},Male\n")
    (d / "secret.txt").write_text(f"{SECRET}: {SECRET}\n")
    (d / "folder").mkdir()
    (d / "folder" / "x.csv").write_text("age\n1\n")
    (d / "file_not_dir").write_text("a file\n")
    os.mkfifo(d / "fifo.csv")
    _write_configs(d)
    _write_release(d)
    return d


#: A valid pipeline: Mondrian, 2-anonymous (the config cases each break one thing of it).
def _base(d: Path) -> dict[str, Any]:
    return {
        "data": str(d / "a.csv"),
        "schema": {
            "age": {"role": "quasi", "kind": "numeric"},
            "sex": {"role": "quasi", "hierarchy": str(d / "sex.csv")},
            "race": {"role": "quasi", "hierarchy": str(d / "race.csv")},
            "occupation": {"role": "sensitive"},
        },
        "method": "mondrian",
        "models": [{"k_anonymity": {"k": 2}}],
    }


def _full_domain(d: Path) -> dict[str, Any]:
    config = _base(d)
    config["schema"]["age"] = {"role": "identifier"}
    config["method"] = "full_domain"
    config["params"] = {"suppression": 0.1}
    return config


DELETE = object()


def _method(name: str, /, **params: Any) -> Callable[[Path], dict[str, Any]]:
    """The base pipeline with another method (taking no models) and its params."""

    def build(d: Path) -> dict[str, Any]:
        config = _base(d)
        del config["models"]
        return {**config, "method": name, "params": params}

    return build


def _with(base: Callable[[Path], dict[str, Any]], **changes: Any) -> Callable[[Path], Any]:
    """``base`` with top-level keys changed (``DELETE``: removed); ``schema__COLUMN`` changes
    one column of the schema, ``model`` replaces the models by one."""

    def build(d: Path) -> dict[str, Any]:
        config = copy.deepcopy(base(d))
        for key, value in changes.items():
            value = value(d) if callable(value) else value
            if key.startswith("schema__"):
                config["schema"][key.removeprefix("schema__")] = value
            elif key == "model":
                config["models"] = [value]
            elif value is DELETE:
                del config[key]
            else:
                config[key] = value
        return config

    return build


#: Config file name -> its content: YAML text or bytes, or a function of the workspace giving
#: the text or a mapping (written as YAML).
CONFIGS: dict[str, Any] = {
    "ok": _base,
    "fd_ok": _full_domain,
    "unknown_top_key": _with(_base, methd="mondrian"),
    "unknown_column_key": _with(_base, schema__sex={"role": "quasi", "hierarchie": "x.csv"}),
    "unknown_role": _with(_base, schema__sex={"role": "secretive"}),
    "unknown_kind": _with(_base, schema__age={"role": "quasi", "kind": "texty"}),
    "unknown_method": _with(_base, method="kanonymize"),
    "method_not_text": _with(_base, method=5),
    "unknown_model": _with(_base, model={"k_anon": {"k": 2}}),
    "model_not_mapping": _with(_base, model="k_anonymity"),
    "models_mapping": _with(_base, models={"k_anonymity": 2}),
    "model_scalar_params": _with(_base, model={"k_anonymity": 5}),
    "unknown_model_param": _with(_base, model={"k_anonymity": {"kk": 2}}),
    "k_zero": _with(_base, model={"k_anonymity": {"k": 0}}),
    "k_negative": _with(_base, model={"k_anonymity": {"k": -3}}),
    "k_text": _with(_base, model={"k_anonymity": {"k": "five"}}),
    "k_fraction": _with(_base, model={"k_anonymity": {"k": 2.5}}),
    "k_nan": _with(_base, model={"k_anonymity": {"k": float("nan")}}),
    "k_huge": _with(_base, model={"k_anonymity": {"k": 10**30}}),
    "k_bool": _with(_base, model={"k_anonymity": {"k": True}}),
    "l_zero": _with(_base, model={"l_diversity": {"l": 0}}),
    "l_text": _with(_base, model={"l_diversity": {"l": "many"}}),
    "l_form": _with(_base, model={"l_diversity": {"l": 2, "form": "weird"}}),
    "l_nan": _with(_base, model={"l_diversity": {"l": float("nan")}}),
    "t_negative": _with(_base, model={"t_closeness": {"t": -0.1}}),
    "t_above_one": _with(_base, model={"t_closeness": {"t": 2}}),
    "t_nan": _with(_base, model={"t_closeness": {"t": float("nan")}}),
    "t_distance": _with(_base, model={"t_closeness": {"t": 0.2, "distance": "cosine"}}),
    "unknown_param": _with(_full_domain, params={"suppresion": 0.1}),
    "params_not_mapping": _with(_full_domain, params=[0.1]),
    "suppression_text": _with(_full_domain, params={"suppression": "lots"}),
    "suppression_above_one": _with(_full_domain, params={"suppression": 1.5}),
    "suppression_negative": _with(_full_domain, params={"suppression": -0.1}),
    "suppression_nan": _with(_full_domain, params={"suppression": float("nan")}),
    "metric_unknown": _with(_full_domain, params={"metric": "nonsense"}),
    "missing_hierarchy_file": _with(
        _base, schema__sex=lambda d: {"role": "quasi", "hierarchy": str(d / "nofile.csv")}
    ),
    "hierarchy_missing_value": _with(
        _base, schema__sex=lambda d: {"role": "quasi", "hierarchy": str(d / "male_only.csv")}
    ),
    "hierarchy_is_binary": _with(
        _base, schema__sex=lambda d: {"role": "quasi", "hierarchy": str(d / "garbage.csv")}
    ),
    "hierarchy_is_directory": _with(
        _base, schema__sex=lambda d: {"role": "quasi", "hierarchy": str(d / "folder")}
    ),
    "hierarchy_unknown_builder": _with(
        _base, schema__sex={"role": "quasi", "hierarchy": {"builder": "magical"}}
    ),
    "hierarchy_unknown_bundled": _with(
        _base, schema__sex={"role": "quasi", "hierarchy": "bundled:atlantis"}
    ),
    "absent_column": _with(_base, schema__zodiac={"role": "quasi"}),
    "absent_sensitive": _with(_base, schema__income_band={"role": "sensitive"}),
    "lint_accept_unknown_column": _with(_base, lint={"accept": {"nosuchcol": ["no_role"]}}),
    "lint_accept_unknown_finding": _with(_base, lint={"accept": {"age": ["bogus_finding"]}}),
    "schema_list": _with(_base, schema=["age", "sex"]),
    "schema_empty": _with(_base, schema={}),
    "column_spec_number": _with(_base, schema__sex=7),
    "data_missing": _with(_base, data=lambda d: str(d / "nowhere.csv")),
    "data_directory": _with(_base, data=lambda d: str(d / "folder")),
    "data_unknown_dataset": _with(_base, data="dataset:atlantis"),
    "data_garbage": _with(_base, data=lambda d: str(d / "garbage.csv")),
    "data_number": _with(_base, data=5),
    "fd_data_directory": _with(_full_domain, data=lambda d: str(d / "folder")),
    "no_data": _with(_base, data=DELETE),
    "no_method": _with(_base, method=DELETE),
    "steps_bad_method": _with(_base, method=DELETE, models=DELETE, steps=[{"method": "teleport"}]),
    "steps_bad_param": _with(
        _base,
        method=DELETE,
        models=DELETE,
        steps=[{"method": "local_suppression", "params": {"k": -4}}],
    ),
    "steps_not_list": _with(_base, method=DELETE, models=DELETE, steps={"method": "pram"}),
    "steps_step_not_mapping": _with(_base, method=DELETE, models=DELETE, steps=["pram"]),
    "steps_and_method": _with(_base, steps=[{"method": "local_suppression", "params": {"k": 2}}]),
    "steps_unknown_key": _with(
        _base, method=DELETE, models=DELETE, steps=[{"method": "pram", "parms": {}}]
    ),
    "steps_generalization": _with(
        _base, method=DELETE, models=DELETE, steps=[{"method": "mondrian"}]
    ),
    "read_unknown_key": _with(_base, read={"delimiter": ";"}),
    "read_bad_encoding": _with(_base, read={"encoding": "klingon-8"}),
    "read_long_sep": _with(_base, read={"sep": ";;"}),
    # the methods' parameters
    "microaggregation_k_text": _method("microaggregation", k="3"),
    "microaggregation_method": _method("microaggregation", k=2, method="magic"),
    "microaggregation_text_column": _method("microaggregation", k=2, columns=["sex"]),
    "pram_keep_above_one": _method("pram", keep={"occupation": 1.5}),
    "pram_keep_absent": _method("pram", keep={"zodiac": 0.5}),
    "pram_matrix_shape": _method("pram", matrices={"sex": [[1.0]]}),
    "local_suppression_k_zero": _method("local_suppression", k=0),
    "local_suppression_absent": _method("local_suppression", k=2, columns=["zodiac"]),
    "sample_fraction_two": _method("sample", fraction=2),
    "sample_fraction_zero": _method("sample", fraction=0),
    "rank_swap_p": _method("rank_swap", p=200),
    "rank_swap_text_column": _method("rank_swap", p=5, columns=["sex"]),
    "add_noise_negative": _method("add_noise", noise=-1),
    "add_noise_epsilon_zero": _method("add_noise", method="laplace", epsilon=0),
    "anatomy_l_fraction": _method("anatomy", l=1.5),
    "anatomy_l_one": _method("anatomy", l=1),
    "rr_scenario": _method("randomized_response", scenario="Neither", l=2),
    "rr_tau_column_absent": _method("randomized_response", tau_column="zodiac"),
    "top_bottom_absent": _method("top_bottom_code", column="zodiac", top=5),
    "top_bottom_text": _method("top_bottom_code", column="sex", top=5),
    "global_recode_breaks_text": _method("global_recode", maps={"age": {"breaks": "ten"}}),
    "global_recode_levels_negative": _method("global_recode", levels=-1),
    "mondrian_relaxed_text": _with(_base, params={"relaxed": "yes"}),
    "fd_all_minimal_text": _with(_full_domain, params={"suppression": 0.1, "all_minimal": "no"}),
    # the schema's columns
    "builder_unknown_param": _with(
        _base, schema__sex={"role": "quasi", "hierarchy": {"builder": "balanced", "fanouts": 2}}
    ),
    "missing_policy_unknown": _with(
        _base, schema__age={"role": "quasi", "kind": "numeric", "missing": "wish"}
    ),
    "numeric_text_column": _with(
        _base, schema__race={"role": "quasi", "kind": "numeric", "hierarchy": "x.csv"}
    ),
    "two_households": _with(
        _base, schema__age={"role": "household"}, schema__race={"role": "household"}
    ),
    "weight_text_column": _with(_base, schema__race={"role": "weight"}),
    # raw YAML
    "yaml_list": "- data: a.csv\n- method: mondrian\n",
    "yaml_scalar": "just a sentence\n",
    "yaml_empty": "",
    "yaml_tabs": "data: a.csv\nschema:\n\tage: {role: quasi}\n",
    "yaml_syntax": "data: [a.csv\nmethod: mondrian\n",
    "yaml_duplicate_key": lambda d: (
        yaml.safe_dump(_base(d), sort_keys=False) + "method: full_domain\n"
    ),
    "yaml_binary": b"\x00\x01\xff\xfe" + SECRET.encode() + b"\x00",
    "yaml_latin1": "data: a.csv\n# caf\xe9\nmethod: mondrian\n".encode("latin-1"),
}


def _write_configs(d: Path) -> None:
    for name, config in CONFIGS.items():
        path = d / f"{name}.yaml"
        content = config(d) if callable(config) else config
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content)
        else:
            path.write_text(yaml.safe_dump(content, sort_keys=False))
    survey = yaml.safe_load(
        (Path(__file__).parents[2] / "src/microanon/examples/collect/survey.yaml").read_text()
    )
    survey["schema"]["education"]["hierarchy"] = {
        "builder": "nested",
        "tree": {"*": ["Bachelors", "HS-grad"]},
    }
    survey["storage"] = str(d / "never.sqlite")
    survey["export_token"] = "env:MICROANON_EXPORT_TOKEN"
    (d / "survey_ok.yaml").write_text(yaml.safe_dump(survey, sort_keys=False))
    for name, change in SURVEYS.items():
        broken = copy.deepcopy(survey)
        change(broken, d)
        (d / f"survey_{name}.yaml").write_text(yaml.safe_dump(broken, sort_keys=False))


def _set(key: str, value: Any) -> Callable[[dict[str, Any], Path], None]:
    def change(survey: dict[str, Any], d: Path) -> None:
        if value is DELETE:
            del survey[key]
        else:
            survey[key] = value

    return change


def _survey_column(column: str, spec: Any) -> Callable[[dict[str, Any], Path], None]:
    def change(survey: dict[str, Any], d: Path) -> None:
        survey["schema"][column] = spec(d) if callable(spec) else spec

    return change


#: Broken survey files of ``microanon serve`` (each refused before the service starts).
SURVEYS: dict[str, Callable[[dict[str, Any], Path], None]] = {
    "tau_zero": _set("tau", 0),
    "tau_above_one": _set("tau", 1.5),
    "tau_text": _set("tau", "strict"),
    "no_tau": _set("tau", DELETE),
    "no_schema": _set("schema", DELETE),
    "unknown_key": _set("taux", 0.3),
    "loss_unknown": _set("loss", "painful"),
    "mode_unknown": _set("mode", "lazy"),
    "durability_unknown": _set("durability", "eternal"),
    "conflicts_unknown": _set("conflicts", "never"),
    "max_body_small": _set("max_body_bytes", 10),
    "token_short": _set("export_token", "short"),
    "storage_scheme": _set("storage", "mysql://u@h/db"),
    "weights_negative": _set("weights", {"occupation": {"Sales": -3}}),
    "weights_unknown_value": _set("weights", {"occupation": {"Astronaut": 3}}),
    "hierarchy_missing": _survey_column(
        "education", lambda d: {"role": "quasi", "hierarchy": str(d / "nofile.csv")}
    ),
    "no_hierarchy": _survey_column("sex", {"role": "quasi"}),
    "role_unknown": _survey_column("sex", {"role": "boss", "hierarchy": "x"}),
    "two_sensitive": _survey_column(
        "sex", {"role": "sensitive", "hierarchy": {"builder": "nested", "tree": {"*": ["M"]}}}
    ),
}


def _write_release(d: Path) -> None:
    """A distribution release (for ``query``), and a copy whose ``release.json`` is not JSON."""
    people = employees(1000)
    qit = people[["zipcode", "gender"]].assign(group=[1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3])
    st = pd.DataFrame(
        [(1, 30, 40, 4), (2, 30, 60, 3), (3, 30, 60, 4)],
        columns=["group", "low", "high", "count"],
    )
    st[["low", "high"]] *= 1000
    meta = {"method": "distribution", "quasi": ["zipcode", "gender"], "sensitive": ["salary"]}
    Release("distribution", {"qit": qit, "st": st}, meta).save(d / "rel")
    Release("distribution", {"qit": qit, "st": st}, meta).save(d / "broken")
    (d / "broken" / "public" / "release.json").write_text(f'{{"kind": "{SECRET}", [')


# ------------------------------------------------------------------------------ the promise
class Hung(Exception):
    """A case ran longer than :data:`HANG_GUARD` (not an ``OSError``, as ``TimeoutError`` is:
    code that catches those must not take it for a failed read)."""


@pytest.fixture(autouse=True)
def hang_guard() -> Iterator[None]:
    """Fail a case that runs longer than :data:`HANG_GUARD` seconds instead of hanging."""

    def stop(signum: int, frame: Any) -> None:
        raise Hung(f"the case ran longer than {HANG_GUARD} s (hung on its input?)")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(HANG_GUARD)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file() or p.is_dir()
    }


def assert_one_clear_line(result: Any, needle: str, code: int = 2) -> str:
    """The CLI promise on a click ``Result``: status ``code``, no traceback, exactly one error
    line on stderr (progress and click's usage banner aside) naming ``needle``, and no secret."""
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"uncaught {type(result.exception).__name__}: {result.exception}"
    )
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert SECRET not in result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip() and not NOT_THE_ERROR.match(ln)]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: "), result.stderr
    assert needle.lower() in lines[0].lower(), lines[0]
    return lines[0]


@dataclass(frozen=True)
class Cli:
    """One bad command line: ``{ws}`` is the workspace, ``{out}`` a fresh output path (absent:
    it must stay so), ``{old}`` an existing output directory and ``{fifo}`` a FIFO (both must
    stay as they are)."""

    argv: tuple[str, ...]
    needle: str
    code: int = 2

    def __str__(self) -> str:
        return " ".join(self.argv)


def cli(*argv: str, needle: str, code: int = 2) -> Cli:
    return Cli(argv, needle, code)


def anonymize(config: str, *extra: str, needle: str, code: int = 2) -> Cli:
    return cli(
        "anonymize",
        "--config",
        f"{{ws}}/{config}.yaml",
        "--out",
        "{out}",
        *extra,
        needle=needle,
        code=code,
    )


CHECK = ("check", "{ws}/a.csv", "--quasi", "age,sex")
CHECK_S = (*CHECK, "--sensitive", "occupation")
#: k-map against a Poisson estimate of the population, which needs a sampling fraction.
POISSON = (*CHECK_S, "--k-map", "2", "--k-map-estimator", "poisson")
ON_DASK = ("--quasi", "age", "--sensitive", "sex", "--engine", "dask")
RISK = ("risk", "{ws}/a.csv", "--quasi", "age,sex", "--no-suda")
COUNT = "SELECT COUNT(*) FROM release"
QUERY = ("query", "{ws}/rel")
SUBMIT = ("collect", "submit", "--server", "http://127.0.0.1:9")
EXPORT = ("collect", "export", "--server", "http://127.0.0.1:9")


def files(command: tuple[str, ...]) -> list[Cli]:
    """The unreadable-file cases of a command that reads a table: ``command`` with ``{f}``."""
    table = {
        "nowhere.csv": "nowhere.csv",
        "folder": "folder",
        "empty.csv": "empty.csv",
        "blank.csv": "blank.csv",
        "header.csv": "header.csv",
        "garbage.csv": "garbage.csv",
        "latin1.csv": "latin1.csv",
        "ragged.csv": "ragged.csv",
        "dup.csv": "'age'",
        "corrupt.parquet": "corrupt.parquet",
        "text.parquet": "text.parquet",
        "text.xlsx": "text.xlsx",
        "text.sav": "text.sav",
        "fifo.csv": "fifo.csv",
    }
    cases = [
        Cli(tuple(a.replace("{f}", f"{{ws}}/{name}") for a in command), needle)
        for name, needle in table.items()
    ]
    cases.append(Cli(tuple(a.replace("{f}", "/dev/zero") for a in command), "/dev/zero"))
    return cases


CLI_CASES: list[Cli] = [
    # ---- check: files (14 + /dev/zero)
    *files(("check", "{f}", "--quasi", "age,sex", "--sensitive", "occupation")),
    # ---- check: columns and options
    cli(*CHECK, "--sensitive", "salary_band", needle="salary_band"),
    cli(
        "check", "{ws}/a.csv", "--quasi", "age,zodiac", "--sensitive", "occupation", needle="zodiac"
    ),
    cli("check", "{ws}/a.csv", "--quasi", "", "--sensitive", "occupation", needle="--quasi"),
    cli("check", "{ws}/a.csv", "--quasi", "age,sex", "--sensitive", "sex", needle="sex"),
    cli(*CHECK_S, "--k", "0", needle="--k"),
    cli(*CHECK_S, "--k", "-1", needle="--k"),
    cli(*CHECK_S, "--k", "five", needle="--k"),
    cli(*CHECK_S, "--l", "0", needle="--l"),
    cli(*CHECK_S, "--l", "nan", needle="--l"),
    cli(*CHECK_S, "--l", "-2", needle="--l"),
    cli(*CHECK_S, "--l-form", "weird", needle="weird"),
    cli(*CHECK_S, "--t", "-0.5", needle="--t"),
    cli(*CHECK_S, "--t", "2", needle="--t"),
    cli(*CHECK_S, "--t", "nan", needle="--t"),
    cli(*CHECK_S, "--beta", "-1", needle="--beta"),
    cli(*CHECK_S, "--beta", "nan", needle="--beta"),
    cli(*CHECK_S, "--beta-form", "strong", needle="strong"),
    cli(*CHECK_S, "--delta-disclosure", "0", needle="--delta-disclosure"),
    cli(*CHECK_S, "--delta-disclosure", "nan", needle="--delta-disclosure"),
    cli(*CHECK_S, "--c", "0", needle="c must be positive, got 0"),
    cli(*CHECK_S, "--c", "nan", needle="c must be a finite number, got nan"),
    cli(*CHECK_S, "--threshold", "1.5", needle="'threshold'"),
    cli(*CHECK_S, "--threshold", "nan", needle="'threshold'"),
    cli(*CHECK_S, "--threshold", "-0.1", needle="'threshold'"),
    cli(*CHECK_S, "--distance", "manhattan", needle="manhattan"),
    cli(*CHECK_S, "--missing", "ignore", needle="ignore"),
    cli(*CHECK_S, "--k-map", "0", needle="--k-map"),
    cli(*CHECK_S, "--k-map", "3", needle="--k-map"),
    cli(*CHECK_S, "--delta-min", "0.5", needle="--population-file"),
    cli(
        *CHECK_S,
        "--population-file",
        "{ws}/a.csv",
        "--delta-min",
        "0.9",
        "--delta-max",
        "0.1",
        needle="--delta-min (0.9) exceeds --delta-max (0.1)",
    ),
    cli(*CHECK_S, "--population-file", "{ws}/nowhere.csv", needle="nowhere.csv"),
    cli(*CHECK_S, "--population-file", "{ws}/garbage.csv", needle="garbage.csv"),
    cli(*CHECK_S, "--population-file", "{ws}/a.csv", "--population-count", "heads", needle="heads"),
    cli(*POISSON, needle="sampling fraction"),
    cli(
        *POISSON,
        "--sampling-fraction",
        "0",
        needle="fraction must lie in (0, 1]",
    ),
    cli(
        *POISSON,
        "--sampling-fraction",
        "1.5",
        needle="fraction must lie in (0, 1]",
    ),
    cli(
        *POISSON,
        "--sampling-fraction",
        "0.1",
        "--significance",
        "2",
        needle="significance must lie in",
    ),
    cli(*CHECK_S, "--k-map-estimator", "binomial", needle="binomial"),
    cli(*CHECK_S, "--sep", ";;", needle="--sep"),
    cli(*CHECK_S, "--encoding", "klingon-8", needle="klingon-8"),
    cli(*CHECK_S, "--decimal", ",,", needle="--decimal"),
    cli(*CHECK_S, "--quotechar", "''", needle="--quotechar"),
    cli(*CHECK_S, "--engine", "spark", needle="spark"),
    cli(*CHECK_S, "--engine", "memory", "--scheduler", "tcp://127.0.0.1:9", needle="--scheduler"),
    cli(*CHECK_S, "--no-header", needle="age"),
    cli(*CHECK_S, "--sep", ",", "--decimal", ",", needle="--decimal"),
    cli(*CHECK_S, "--sep", ",", "--quotechar", ",", needle="--quotechar"),
    cli("check", "{ws}/header.csv", *ON_DASK, needle="header.csv"),
    # ---- risk
    *files(("risk", "{f}", "--quasi", "age,sex", "--no-suda")),
    cli("risk", "{ws}/a.csv", "--no-suda", needle="--quasi"),
    cli("risk", needle="FILE"),
    cli("risk", "{ws}/a.csv", "--quasi", "age,zodiac", "--no-suda", needle="zodiac"),
    cli(*RISK, "--population", "0", needle="'population_size' 0"),
    cli(*RISK, "--population", "-5", needle="'population_size' -5"),
    cli(*RISK, "--population", "10", needle="'population_size' 10"),
    cli(*RISK, "--sampling-fraction", "0", needle="'fraction'"),
    cli(*RISK, "--sampling-fraction", "1.5", needle="'fraction'"),
    cli(*RISK, "--sampling-fraction", "nan", needle="'fraction'"),
    cli(*RISK, "--region", "atlantis", needle="atlantis"),
    cli(*RISK, "--population", "1000", "--sampling-fraction", "0.5", needle="population, fraction"),
    cli(*RISK, "--threshold", "-1", needle="'threshold'"),
    cli(*RISK, "--threshold", "nan", needle="'threshold'"),
    cli("risk", "{ws}/a.csv", "--quasi", "age,sex", "--suda-max-size", "0", needle="'max_size'"),
    cli(*RISK, "--weights", "fnlwgt", needle="fnlwgt"),
    cli(*RISK, "--weights", "race", needle="race"),
    cli(*RISK, "--household", "hh_id", needle="'household' needs 'weights'"),
    cli(*RISK, "--weights", "age", "--household", "hh_id", needle="hh_id"),
    cli(*RISK, "--missing", "guess", needle="guess"),
    cli(*RISK, "--engine", "dask", "--weights", "age", "--household", "hh", needle="'hh'"),
    cli("risk", "--config", "{ws}/yaml_duplicate_key.yaml", needle="'method' is given twice"),
    cli(*RISK, "--population-file", "{ws}/folder", needle="folder"),
    cli(*RISK, "--population-file", "{ws}/a.csv", "--population-count", "heads", needle="heads"),
    cli(*RISK, "--report", "{ws}/folder", needle="folder"),
    cli(*RISK, "--report", "{fifo}", needle="report.fifo"),
    cli(*RISK, "--report", "{ws}/file_not_dir/r.html", needle="file_not_dir"),
    cli("risk", "--config", "{ws}/yaml_scalar.yaml", needle="config must be a mapping"),
    cli("risk", "--config", "{ws}/absent_column.yaml", needle="zodiac"),
    cli("risk", "--config", "{ws}/nowhere.yaml", needle="nowhere.yaml"),
    # ---- lint
    cli("lint", needle="DATA"),
    cli("lint", "{ws}/a.csv", needle="--config"),
    cli("lint", "{ws}/a.csv", "--quasi", "zodiac", needle="zodiac"),
    cli("lint", "{ws}/a.csv", "--quasi", "age", "--sensitive", "age", needle="age"),
    cli("lint", "{ws}/nowhere.csv", "--quasi", "age", needle="nowhere.csv"),
    cli("lint", "{ws}/garbage.csv", "--quasi", "age", needle="garbage.csv"),
    cli("lint", "{ws}/dup.csv", "--quasi", "age", needle="'age'"),
    cli("lint", "--config", "{ws}/yaml_tabs.yaml", needle="yaml_tabs.yaml"),
    cli("lint", "--config", "{ws}/unknown_role.yaml", needle="secretive"),
    cli("lint", "--config", "{ws}/lint_accept_unknown_column.yaml", needle="nosuchcol"),
    cli("lint", "--config", "{ws}/lint_accept_unknown_finding.yaml", needle="bogus_finding"),
    cli("lint", "--config", "{ws}/fd_data_directory.yaml", needle="folder"),
    cli("lint", "--config", "{ws}/absent_column.yaml", needle="zodiac"),
    # ---- init
    cli("init", "{ws}/nowhere.csv", "--yes", "--out", "{out}/c.yaml", needle="nowhere.csv"),
    cli("init", "{ws}/empty.csv", "--yes", "--out", "{out}/c.yaml", needle="empty.csv"),
    cli("init", "{ws}/header.csv", "--yes", "--out", "{out}/c.yaml", needle="header.csv"),
    cli("init", "{ws}/garbage.csv", "--yes", "--out", "{out}/c.yaml", needle="garbage.csv"),
    cli("init", "{ws}/corrupt.parquet", "--yes", "--out", "{out}/c.yaml", needle="corrupt.parquet"),
    cli("init", "/dev/zero", "--yes", "--out", "{out}/c.yaml", needle="/dev/zero"),
    cli(
        "init", "{ws}/a.csv", "--yes", "--quasi", "zodiac", "--out", "{out}/c.yaml", needle="zodiac"
    ),
    cli(
        "init",
        "{ws}/a.csv",
        "--yes",
        "--quasi",
        "age",
        "--sensitive",
        "age",
        "--out",
        "{out}/c.yaml",
        needle="age",
    ),
    cli("init", "{ws}/a.csv", "--yes", "--out", "{ws}/folder", needle="folder"),
    cli("init", "{ws}/a.csv", "--yes", "--out", "{ws}/file_not_dir/c.yaml", needle="file_not_dir"),
    cli("init", "{ws}/a.csv", "--yes", "--out", "{old}/mine.txt", needle="mine.txt"),
    cli("init", "{ws}/a.csv", "--yes", "--sep", "tabby", "--out", "{out}/c.yaml", needle="--sep"),
    # ---- anonymize: configs
    *[
        anonymize(name, needle=needle)
        for name, needle in {
            "unknown_top_key": "methd",
            "unknown_column_key": "hierarchie",
            "unknown_role": "secretive",
            "unknown_kind": "texty",
            "unknown_method": "kanonymize",
            "method_not_text": "method",
            "unknown_model": "k_anon",
            "model_not_mapping": "k_anonymity",
            "models_mapping": "parameters of k_anonymity must be a mapping",
            "model_scalar_params": "k_anonymity",
            "unknown_model_param": "kk",
            "k_zero": "k",
            "k_negative": "-3",
            "k_text": "five",
            "k_fraction": "2.5",
            "k_nan": "nan",
            "k_bool": "k",
            "l_zero": "l",
            "l_text": "many",
            "l_form": "weird",
            "l_nan": "nan",
            "t_negative": "-0.1",
            "t_above_one": "t",
            "t_nan": "nan",
            "t_distance": "cosine",
            "unknown_param": "suppresion",
            "params_not_mapping": "params",
            "suppression_text": "lots",
            "suppression_above_one": "suppression",
            "suppression_negative": "suppression",
            "suppression_nan": "suppression",
            "metric_unknown": "nonsense",
            "missing_hierarchy_file": "nofile.csv",
            "hierarchy_missing_value": "Female",
            "hierarchy_is_binary": "garbage.csv",
            "hierarchy_is_directory": "folder",
            "hierarchy_unknown_builder": "magical",
            "hierarchy_unknown_bundled": "atlantis",
            "absent_column": "zodiac",
            "absent_sensitive": "income_band",
            "lint_accept_unknown_column": "nosuchcol",
            "lint_accept_unknown_finding": "bogus_finding",
            "schema_list": "schema",
            "schema_empty": "schema",
            "column_spec_number": "sex",
            "data_missing": "nowhere.csv",
            "data_directory": "mondrian needs the whole table in memory",
            "fd_data_directory": "x.csv: not a readable Parquet file",
            "data_unknown_dataset": "atlantis",
            "data_garbage": "garbage.csv",
            "data_number": "/5: no such file",
            "no_data": "DATA",
            "no_method": "method",
            "steps_bad_method": "teleport",
            "steps_bad_param": "k",
            "steps_not_list": "steps",
            "steps_step_not_mapping": "steps",
            "steps_and_method": "steps",
            "steps_unknown_key": "parms",
            "steps_generalization": "mondrian",
            "read_unknown_key": "delimiter",
            "read_bad_encoding": "klingon-8",
            "read_long_sep": "sep",
            "microaggregation_k_text": "k",
            "microaggregation_method": "magic",
            "microaggregation_text_column": "sex",
            "pram_keep_above_one": "keep",
            "pram_keep_absent": "zodiac",
            "pram_matrix_shape": "sex",
            "local_suppression_k_zero": "k",
            "local_suppression_absent": "zodiac",
            "sample_fraction_two": "fraction",
            "sample_fraction_zero": "fraction",
            "rank_swap_p": "p",
            "rank_swap_text_column": "sex",
            "add_noise_negative": "noise",
            "add_noise_epsilon_zero": "epsilon",
            "anatomy_l_fraction": "l",
            "anatomy_l_one": "l",
            "rr_scenario": "Neither",
            "rr_tau_column_absent": "zodiac",
            "top_bottom_absent": "zodiac",
            "top_bottom_text": "sex",
            "global_recode_breaks_text": "breaks",
            "global_recode_levels_negative": "levels",
            "mondrian_relaxed_text": "relaxed",
            "fd_all_minimal_text": "all_minimal",
            "builder_unknown_param": "fanouts",
            "missing_policy_unknown": "wish",
            "numeric_text_column": "race",
            "two_households": "household",
            "weight_text_column": "race",
            "yaml_list": "config must be a mapping",
            "yaml_scalar": "config must be a mapping",
            "yaml_empty": "config must be a mapping",
            "yaml_tabs": "yaml_tabs.yaml",
            "yaml_syntax": "yaml_syntax.yaml",
            "yaml_duplicate_key": "key 'method' is given twice (line",
            "yaml_binary": "yaml_binary.yaml",
            "yaml_latin1": "yaml_latin1.yaml",
        }.items()
    ],
    # no release can be 10^30-anonymous: exit status 1, as documented
    anonymize("k_huge", needle="k=1000000000000000000000000000000", code=1),
    # ---- anonymize: files and options
    cli("anonymize", "--config", "{ws}/folder", "--out", "{out}", needle="folder"),
    cli("anonymize", "--config", "{ws}/nowhere.yaml", "--out", "{out}", needle="nowhere.yaml"),
    cli("anonymize", "--config", "/dev/zero", "--out", "{out}", needle="/dev/zero"),
    cli("anonymize", "--config", "{ws}/fifo.csv", "--out", "{out}", needle="fifo.csv"),
    cli("anonymize", "--config", "{ws}/ok.yaml", needle="--out"),
    anonymize("ok", "{ws}/garbage.csv", needle="garbage.csv"),
    anonymize("ok", "{ws}/ragged.csv", needle="ragged.csv"),
    anonymize("ok", "{ws}/header.csv", needle="header.csv"),
    anonymize("ok", "/dev/zero", needle="/dev/zero"),
    anonymize("ok", "--seed", "-1", needle="seed must be a non-negative integer, got -1"),
    anonymize("ok", "--seed", "many", needle="--seed"),
    anonymize("ok", "--search", "exact", needle="--search"),
    anonymize("fd_ok", "--search", "psychic", needle="psychic"),
    anonymize("fd_ok", "--search", "heuristic", "--time-limit", "-5", needle="time_limit"),
    anonymize("fd_ok", "--search", "heuristic", "--time-limit", "nan", needle="time_limit"),
    anonymize("fd_ok", "--search", "heuristic", "--step-limit", "0", needle="step_limit"),
    anonymize("ok", "--sep", "::", needle="--sep"),
    anonymize("ok", "--encoding", "klingon-8", needle="klingon-8"),
    anonymize("ok", "--engine", "dask", needle="mondrian"),
    anonymize("fd_ok", "--engine", "dask", "{ws}/garbage.csv", needle="garbage.csv"),
    cli(
        "anonymize",
        "--config",
        "{ws}/fd_ok.yaml",
        "--engine",
        "dask",
        "--out",
        "{ws}/file_not_dir/out",
        needle="file_not_dir",
    ),
    cli(
        "anonymize", "--config", "{ws}/ok.yaml", "--out", "{ws}/file_not_dir", needle="file_not_dir"
    ),
    cli("anonymize", "--config", "{ws}/ok.yaml", "--out", "{old}", needle="{old}"),
    cli("anonymize", "--config", "{ws}/ok.yaml", "--out", "{old}", "--overwrite", needle="{old}"),
    # ---- query
    cli(*QUERY, "DROP TABLE release", needle="DROP"),
    cli(*QUERY, "COPY release TO '{ws}/leak.csv'", needle="COPY"),
    cli(*QUERY, "ATTACH '{ws}/x.db' AS x", needle="ATTACH"),
    cli(*QUERY, "SELECT COUNT(*) FROM read_csv('{ws}/secret.txt')", needle="FROM clause must name"),
    cli(*QUERY, "SELECT COUNT(*) FROM release; SELECT 1", needle="one"),
    cli(*QUERY, "", needle="SQL"),
    cli(*QUERY, "SELECT COUNT(*) FROM somewhere_else", needle="FROM clause must name"),
    cli(*QUERY, "SELECT AVG(nonexistent) FROM release", needle="nonexistent"),
    cli(*QUERY, COUNT, "--timeout", "0", needle="--timeout"),
    cli(*QUERY, COUNT, "--timeout", "nan", needle="--timeout"),
    cli(*QUERY, COUNT, "--timeout", "soon", needle="--timeout"),
    cli(*QUERY, COUNT, "--threads", "-2", needle="--threads"),
    cli(*QUERY, COUNT, "--threads", "100000", needle="threads: at most"),
    cli(*QUERY, COUNT, "--memory-limit", "-1GB", needle="-1GB"),
    cli(*QUERY, COUNT, "--original", "{ws}/garbage.csv", needle="garbage.csv"),
    cli("query", "{ws}/folder", COUNT, needle="folder"),
    cli("query", "{ws}/a.csv", COUNT, needle="a.csv"),
    cli("query", "{ws}/broken", COUNT, needle="release.json"),
    cli(*QUERY, COUNT, "--original", "{ws}/header.csv", needle="header.csv"),
    cli(*QUERY, COUNT, "--original", "/dev/zero", needle="/dev/zero"),
    # ---- collect: submit and export (refused before any service answers), serve: surveys
    cli("collect", "submit", "--server", "not a url", "age=1", needle="not a url"),
    cli("collect", "submit", "--server", "", "age=1", needle="server URL"),
    cli(*SUBMIT, "--csv", "{ws}/nowhere.csv", needle="nowhere.csv"),
    cli(*SUBMIT, "--csv", "{ws}/empty.csv", needle="empty.csv"),
    cli(*SUBMIT, "--csv", "{ws}/garbage.csv", needle="garbage.csv"),
    cli(*SUBMIT, "--mode", "lazy", "age=1", needle="lazy"),
    cli(*SUBMIT, "=1", needle="=1"),
    cli(*SUBMIT, needle="ATTRIBUTE=VALUE"),
    cli(
        "collect",
        "export",
        "--server",
        "http://127.0.0.1:9",
        "--token-env",
        "MICROANON_BAD_INPUTS_UNSET",
        "--out",
        "{out}/x.csv",
        needle="MICROANON_BAD_INPUTS_UNSET",
    ),
    cli("collect", "export", "--server", "gopher://x", "--out", "{out}/x.csv", needle="gopher"),
    cli(*EXPORT, "--out", "{fifo}", "--overwrite", needle="report.fifo"),
    cli("datasets", "export", "adult", "{fifo}", needle="report.fifo"),
    cli("init", "{ws}/a.csv", "--yes", "--overwrite", "--out", "{fifo}", needle="report.fifo"),
    *[
        cli("serve", "--config", f"{{ws}}/survey_{name}.yaml", needle=needle)
        for name, needle in {
            "tau_zero": "tau",
            "tau_above_one": "tau",
            "tau_text": "strict",
            "no_tau": "tau",
            "no_schema": "schema",
            "unknown_key": "taux",
            "loss_unknown": "painful",
            "mode_unknown": "lazy",
            "durability_unknown": "eternal",
            "conflicts_unknown": "never",
            "max_body_small": "max_body_bytes",
            "token_short": "export_token",
            "storage_scheme": "mysql",
            "weights_negative": "'occupation'",
            "weights_unknown_value": "Astronaut",
            "hierarchy_missing": "nofile.csv",
            "no_hierarchy": "sex",
            "role_unknown": "boss",
            "two_sensitive": "sensitive",
        }.items()
    ],
    cli("serve", "--config", "{ws}/yaml_list.yaml", needle="survey file must be a mapping"),
    cli("serve", "--config", "{ws}/ok.yaml", needle="unknown key(s) data"),
    cli("serve", "--config", "/dev/zero", needle="/dev/zero"),
    cli("serve", "--config", "{ws}/yaml_binary.yaml", needle="yaml_binary.yaml"),
    cli("serve", "--config", "{ws}/survey_ok.yaml", "--port", "-1", needle="--port"),
    cli("serve", "--config", "{ws}/survey_ok.yaml", "--port", "99999", needle="--port"),
    # ---- datasets, methods, examples, demo, reproduce
    cli("datasets", "describe", "../../etc/passwd", needle="../../etc/passwd"),
    cli("datasets", "describe", "", needle="''"),
    cli("datasets", "export", "adult", "{ws}/file_not_dir/adult.csv", needle="file_not_dir"),
    cli("datasets", "export", "adult", "/dev/zero", needle="/dev/zero"),
    cli("datasets", "frobnicate", needle="frobnicate"),
    cli("methods", "teleport", needle="teleport"),
    cli("methods", "--json", "--markdown", needle="--markdown"),
    cli("methods", "mondrian", "--markdown", needle="--markdown"),
    cli("app", "--port", "70000", "--no-browser", needle="--port"),
    cli("examples", "--out", "{old}", needle="{old}"),
    cli("examples", "--out", "{ws}/file_not_dir", needle="file_not_dir"),
    cli("examples", "--out", "{ws}/file_not_dir/ex", needle="file_not_dir"),
    cli("examples", "--out", "/dev/null", needle="/dev/null"),
    cli("examples", "--out", "{fifo}", needle="report.fifo"),
    cli("demo", "--out", "{fifo}", needle="report.fifo"),
    cli(
        "reproduce",
        "distribution",
        "--quick",
        "--out",
        "{fifo}",
        "--overwrite",
        needle="report.fifo",
    ),
    cli(
        "anonymize",
        "--config",
        "{ws}/ok.yaml",
        "--out",
        "{fifo}",
        "--overwrite",
        needle="report.fifo",
    ),
    cli("anonymize", "--config", "{ws}/ok.yaml", "--out", "/dev/null", needle="/dev/null"),
    cli(
        "collect",
        "submit",
        "--server",
        "http://127.0.0.1:9",
        "--csv",
        "/dev/zero",
        needle="/dev/zero",
    ),
    cli(*QUERY, COUNT, "--original", "{ws}/fifo.csv", needle="fifo.csv"),
    cli(*RISK, "--population-file", "/dev/zero", needle="/dev/zero"),
    cli("demo", "--out", "{ws}/file_not_dir", needle="file_not_dir"),
    cli("demo", "--out", "{out}", "--reproductions", "{ws}/nowhere", needle="nowhere"),
    cli("demo", "--out", "{out}", "--reproductions", "{ws}/a.csv", needle="a.csv"),
    cli("reproduce", "multisa", "--out", "{ws}/file_not_dir", needle="file_not_dir"),
    cli("reproduce", "randomization", "--out", "{old}", needle="{old}"),
    cli(
        "reproduce",
        "collection",
        "--out",
        "{out}",
        "--seed",
        "-1",
        needle="seed must be a non-negative integer, got -1",
    ),
    cli("reproduce", "distribution", "--out", "{out}", "--seed", "x", needle="--seed"),
    cli("reproduce", "everything", "--out", "{out}", needle="everything"),
    cli("reproduce", "multisa", "--quick", needle="--out"),
    cli("--frobnicate", needle="--frobnicate"),
    cli("chek", needle="chek"),
]


def test_the_inputs_broken_are_good_otherwise(ws: Path, monkeypatch) -> None:
    """The config and the survey the cases break are valid as written, so that each case fails
    for the one thing it breaks."""
    from microanon.apps.config import load_config
    from microanon.apps.server import load_service_config

    for name in ("ok", "fd_ok"):
        config = load_config(ws / f"{name}.yaml")
        config.schema.validate(config.read_data())
    monkeypatch.setenv("MICROANON_EXPORT_TOKEN", "change-me-0123456789")
    load_service_config(ws / "survey_ok.yaml")


@pytest.mark.parametrize("case", _ids(CLI_CASES))
def test_bad_command_line(case: Cli, ws: Path, tmp_path: Path, monkeypatch, scheduler: str) -> None:
    """Exit status 2 (1 where documented), one clear line naming the thing, nothing written."""
    monkeypatch.chdir(tmp_path)  # a stray relative write shows up in the snapshot
    monkeypatch.setenv("MICROANON_SCHEDULER", scheduler)  # Dask runs: the module's one cluster
    monkeypatch.delenv("MICROANON_BAD_INPUTS_UNSET", raising=False)
    monkeypatch.setenv("MICROANON_EXPORT_TOKEN", "change-me-0123456789")
    out, old, fifo = tmp_path / "out", tmp_path / "old", tmp_path / "report.fifo"
    old.mkdir()
    (old / "mine.txt").write_text("the user's own file\n")
    os.mkfifo(fifo)  # a special file, as /dev/null is: never to be replaced by a regular one
    where = {"{ws}": str(ws), "{out}": str(out), "{old}": str(old), "{fifo}": str(fifo)}

    def fill(text: str) -> str:
        for key, value in where.items():
            text = text.replace(key, value)
        return text

    before, inputs = _snapshot(tmp_path), _snapshot(ws)
    result = CliRunner().invoke(main, [fill(a) for a in case.argv])
    assert_one_clear_line(result, fill(case.needle), case.code)
    assert not out.exists() and _snapshot(tmp_path) == before and fifo.is_fifo()
    assert _snapshot(ws) == inputs


# ----------------------------------------------------------------------------- the Python API
def _people() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [23, 35, 35, 47, 52, 52, 61, 29],
            "sex": ["M", "F", "F", "M", "M", "F", "F", "M"],
            "job": ["a", "b", "a", "c", "b", "c", "a", "b"],
            "income": [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0],
        }
    )


SEX = Hierarchy([["*", "M"], ["*", "F"]])
SCHEMA = {
    "age": {"role": "quasi", "kind": "numeric"},
    "sex": {"role": "quasi", "hierarchy": SEX},
    "job": {"role": "sensitive"},
    "income": {"role": "insensitive", "kind": "numeric"},
}
K2 = [{"k_anonymity": {"k": 2}}]


def _api() -> dict[str, Callable[[], Any]]:
    """Bad calls of the public entry points: id -> (a call, a piece of its message)."""
    import microanon
    from microanon import measures, models
    from microanon.methods import generalize, randomize, sdc

    df = _people()
    fd = generalize.full_domain
    sd = {k: v for k, v in SCHEMA.items() if k != "age"} | {"age": "identifier"}
    return {
        "full_domain data list": (lambda: fd([[1, 2]], sd, models=K2), "data"),
        "full_domain data None": (lambda: fd(None, sd, models=K2), "data"),
        "full_domain empty frame": (lambda: fd(df.iloc[:0], sd, models=K2), "empty"),
        "full_domain schema None": (lambda: fd(df, None, models=K2), "schema"),
        "full_domain schema list": (lambda: fd(df, ["sex"], models=K2), "schema"),
        "full_domain absent column": (
            lambda: fd(df, sd | {"zodiac": "quasi"}, models=K2),
            "zodiac",
        ),
        "full_domain unknown role": (lambda: fd(df, sd | {"job": "boss"}, models=K2), "boss"),
        "full_domain models text": (lambda: fd(df, sd, models="k5"), "k5"),
        "full_domain models None": (lambda: fd(df, sd, models=None), "models"),
        "full_domain k zero": (lambda: fd(df, sd, models=[{"k_anonymity": {"k": 0}}]), "k"),
        "full_domain unknown model": (lambda: fd(df, sd, models=[{"kanon": {"k": 2}}]), "kanon"),
        "full_domain suppression 2": (lambda: fd(df, sd, models=K2, suppression=2), "suppression"),
        "full_domain suppression text": (
            lambda: fd(df, sd, models=K2, suppression="x"),
            "suppression",
        ),
        "full_domain suppression nan": (
            lambda: fd(df, sd, models=K2, suppression=math.nan),
            "suppression",
        ),
        "full_domain metric": (lambda: fd(df, sd, models=K2, metric="vibes"), "vibes"),
        "full_domain search": (lambda: fd(df, sd, models=K2, search="psychic"), "psychic"),
        "full_domain time_limit": (
            lambda: fd(df, sd, models=K2, search="heuristic", time_limit=-1),
            "time_limit",
        ),
        "full_domain step_limit": (
            lambda: fd(df, sd, models=K2, search="heuristic", step_limit=0),
            "step_limit",
        ),
        "full_domain suppressed_rows": (
            lambda: fd(df, sd, models=K2, suppressed_rows="hide"),
            "hide",
        ),
        "full_domain hierarchy missing value": (
            lambda: fd(
                df, sd | {"sex": {"role": "quasi", "hierarchy": Hierarchy([["*", "M"]])}}, models=K2
            ),
            "F",
        ),
        "mondrian models text": (lambda: generalize.mondrian(df, SCHEMA, models="k"), "models"),
        "mondrian no hierarchy": (
            lambda: generalize.mondrian(df, SCHEMA | {"sex": "quasi"}, models=K2),
            "sex",
        ),
        "mondrian k above rows": (
            lambda: generalize.mondrian(df, SCHEMA, models=[{"k_anonymity": {"k": 100}}]),
            "k",
        ),
        "mondrian absent column": (
            lambda: generalize.mondrian(df.drop(columns="sex"), SCHEMA, models=K2),
            "sex",
        ),
        "anatomy l zero": (lambda: generalize.anatomy(df, SCHEMA, l=0), "l"),
        "anatomy l text": (lambda: generalize.anatomy(df, SCHEMA, l="two"), "l"),
        "anatomy l fraction": (lambda: generalize.anatomy(df, SCHEMA, l=1.5), "l"),
        "anatomy no sensitive": (
            lambda: generalize.anatomy(df, SCHEMA | {"job": "insensitive"}, l=2),
            "sensitive",
        ),
        "rr scenario": (
            lambda: randomize.randomized_response(df, SCHEMA, scenario="Neither"),
            "Neither",
        ),
        "rr l negative": (lambda: randomize.randomized_response(df, SCHEMA, l=-1), "l"),
        "rr tau above one": (lambda: randomize.randomized_response(df, SCHEMA, tau=2), "tau"),
        "rr tau_column": (
            lambda: randomize.randomized_response(df, SCHEMA, tau_column="nope"),
            "nope",
        ),
        "rr constraint": (
            lambda: randomize.randomized_response(df, SCHEMA, constraint="some"),
            "some",
        ),
        "pram keep above one": (lambda: randomize.pram(df, SCHEMA, keep={"job": 1.5}), "job"),
        "pram keep absent column": (lambda: randomize.pram(df, SCHEMA, keep={"nope": 0.5}), "nope"),
        "pram keep text": (lambda: randomize.pram(df, SCHEMA, keep={"job": "most"}), "job"),
        "pram matrix shape": (lambda: randomize.pram(df, SCHEMA, matrices={"job": [[1.0]]}), "job"),
        "pram matrix not stochastic": (
            lambda: randomize.pram(df, SCHEMA, matrices={"job": np.full((3, 3), 0.5)}),
            "job",
        ),
        "pram alpha negative": (
            lambda: randomize.pram(df, SCHEMA, keep={"job": 0.8}, alpha=-1),
            "alpha",
        ),
        "pram keep list": (lambda: randomize.pram(df, SCHEMA, keep=[0.8]), "keep"),
        "microaggregation k zero": (lambda: sdc.microaggregation(df, SCHEMA, k=0), "k"),
        "microaggregation k text": (lambda: sdc.microaggregation(df, SCHEMA, k="3"), "k"),
        "microaggregation k above rows": (lambda: sdc.microaggregation(df, SCHEMA, k=100), "k"),
        "microaggregation method": (
            lambda: sdc.microaggregation(df, SCHEMA, k=2, method="magic"),
            "magic",
        ),
        "microaggregation columns": (
            lambda: sdc.microaggregation(df, SCHEMA, k=2, columns=["nope"]),
            "nope",
        ),
        "microaggregation text column": (
            lambda: sdc.microaggregation(df, SCHEMA, k=2, columns=["job"]),
            "job",
        ),
        "microaggregation gamma": (
            lambda: sdc.microaggregation(df, SCHEMA, k=2, gamma=-1),
            "gamma",
        ),
        "microaggregation projection": (
            lambda: sdc.microaggregation(df, SCHEMA, k=2, projection="diagonal"),
            "diagonal",
        ),
        "Anonymizer method": (lambda: microanon.Anonymizer(sd, K2, method="teleport"), "teleport"),
        "Anonymizer models": (lambda: microanon.Anonymizer(sd, "k").fit(df), "k"),
        "Anonymizer param": (lambda: microanon.Anonymizer(sd, K2, suppresion=0.1), "suppresion"),
        "Anonymizer absent column": (
            lambda: microanon.Anonymizer(sd, K2).fit(df.drop(columns="sex")),
            "sex",
        ),
        "Anonymizer transform before fit": (
            lambda: microanon.Anonymizer(sd, K2).transform(df),
            "fit",
        ),
        "Anonymizer transform unknown value": (
            lambda: microanon.Anonymizer(sd, K2).fit(df).transform(df.assign(sex="X")),
            "X",
        ),
        "Schema unknown role": (lambda: microanon.Schema.from_dict({"a": "boss"}), "boss"),
        "Schema unknown kind": (
            lambda: microanon.Schema.from_dict({"a": {"role": "quasi", "kind": "x"}}),
            "kind",
        ),
        "Schema not mapping": (lambda: microanon.Schema.from_dict(["a"]), "schema"),
        "Schema from_yaml missing": (
            lambda: microanon.Schema.from_yaml("/nonexistent/s.yaml"),
            "s.yaml",
        ),
        "Hierarchy empty": (lambda: Hierarchy([]), "no leaves"),
        "Hierarchy two roots": (lambda: Hierarchy([["*", "a"], ["+", "b"]]), "root"),
        "Hierarchy not a tree": (
            lambda: Hierarchy([["*", "x", "a"], ["*", "x", "b"], ["*", "y", "a"]]),
            "a",
        ),
        "Hierarchy weights": (lambda: Hierarchy([["*", "a"]], weights=[-1]), "weight"),
        "Hierarchy from_arx_csv missing": (
            lambda: Hierarchy.from_arx_csv("/nonexistent/h.csv"),
            "h.csv",
        ),
        "Release.load missing": (lambda: Release.load("/nonexistent/rel"), "/nonexistent/rel"),
        "make_rng text": (lambda: microanon.make_rng("seed"), "seed"),
        "make_rng negative": (lambda: microanon.make_rng(-1), "-1"),
        "lint_schema absent column": (
            lambda: microanon.lint_schema(df, {"zodiac": "quasi"}),
            "zodiac",
        ),
        "lint_schema accept unknown": (
            lambda: microanon.lint_schema(df, SCHEMA, accept={"nope": ["no_role"]}),
            "nope",
        ),
        "lint_schema unique_share": (
            lambda: microanon.lint_schema(df, SCHEMA, unique_share=2),
            "unique_share",
        ),
        "k_anonymity absent column": (lambda: models.k_anonymity(df, ["zodiac"], k=2), "zodiac"),
        "k_anonymity k zero": (lambda: models.k_anonymity(df, ["sex"], k=0), "k"),
        "k_anonymity k text": (lambda: models.k_anonymity(df, ["sex"], k="2"), "k"),
        "k_anonymity data list": (lambda: models.k_anonymity([[1]], ["sex"], k=2), "data"),
        "l_diversity absent sensitive": (
            lambda: models.l_diversity(df, ["sex"], "nope", l=2),
            "nope",
        ),
        "l_diversity form": (lambda: models.l_diversity(df, ["sex"], "job", l=2, form="x"), "x"),
        "l_diversity l nan": (lambda: models.l_diversity(df, ["sex"], "job", l=math.nan), "l"),
        "t_closeness t negative": (lambda: models.t_closeness(df, ["sex"], "job", t=-1), "t"),
        "t_closeness distance": (
            lambda: models.t_closeness(df, ["sex"], "job", t=0.2, distance="cos"),
            "cos",
        ),
        "beta_likeness beta negative": (
            lambda: models.beta_likeness(df, ["sex"], "job", beta=-1),
            "beta",
        ),
        "beta_likeness form": (
            lambda: models.beta_likeness(df, ["sex"], "job", beta=1, form="x"),
            "form",
        ),
        "delta_disclosure zero": (
            lambda: models.delta_disclosure(df, ["sex"], "job", delta=0),
            "delta",
        ),
        "profile c zero": (lambda: models.profile(df, ["sex"], "job", c=0), "c"),
        "as_models text": (lambda: models.as_models("nonsense"), "nonsense"),
        "model_from_config unknown": (lambda: models.model_from_config("nope"), "nope"),
        "model_from_config bad param": (
            lambda: models.model_from_config("k_anonymity", {"kay": 2}),
            "kay",
        ),
        "reidentification_risk absent": (
            lambda: measures.reidentification_risk(df, ["zodiac"]),
            "zodiac",
        ),
        "reidentification_risk threshold": (
            lambda: measures.reidentification_risk(df, ["sex"], threshold=2),
            "threshold",
        ),
        "attacker_risks fraction": (
            lambda: measures.attacker_risks(df, ["sex"], fraction=0),
            "fraction",
        ),
        "population_uniqueness region": (
            lambda: measures.population_uniqueness(df, ["sex"], region="atlantis"),
            "atlantis",
        ),
        "population_uniqueness size": (
            lambda: measures.population_uniqueness(df, ["sex"], population_size=0),
            "population_size",
        ),
        "sample_uniques no keys": (lambda: measures.sample_uniques(df, []), "quasi"),
        "suda2 absent key": (lambda: measures.suda2(df, ["zodiac"]), "zodiac"),
        "suda2 max_size": (lambda: measures.suda2(df, ["sex", "age"], max_size=0), "max_size"),
        "individual_risk weights": (lambda: measures.individual_risk(df, ["sex"], "nope"), "nope"),
        "individual_risk text weights": (
            lambda: measures.individual_risk(df, ["sex"], "job"),
            "job",
        ),
        "key_frequencies missing": (
            lambda: measures.key_frequencies(df.assign(sex=None), ["sex"]),
            "sex",
        ),
        "risk_summary shapes": (
            lambda: measures.risk_summary(df[["age"]], df[["age"]].iloc[:3]),
            "rows",
        ),
        "Release.load not JSON": (lambda: Release.load(_broken_release()), "release.json"),
        "Release.load a file": (lambda: Release.load(__file__), "test_bad_inputs.py"),
        "Anonymizer.load missing": (
            lambda: microanon.Anonymizer.load("/nonexistent/a.json"),
            "a.json",
        ),
        "Anonymizer.load /dev/zero": (lambda: microanon.Anonymizer.load("/dev/zero"), "/dev/zero"),
        "Hierarchy.from_arx_csv /dev/zero": (
            lambda: Hierarchy.from_arx_csv("/dev/zero"),
            "/dev/zero",
        ),
        "Schema.from_yaml tabs": (
            lambda: microanon.Schema.from_yaml(_text_file("s.yaml", "age:\n\trole: quasi\n")),
            "s.yaml",
        ),
        "Schema.from_yaml key twice": (
            lambda: microanon.Schema.from_yaml(
                _text_file("s.yaml", "age: quasi\nage: sensitive\n")
            ),
            "'age' is given twice",
        ),
        "Table.from_frame absent column": (
            lambda: microanon.Table.from_frame(
                df.drop(columns="sex"), microanon.Schema.from_dict(SCHEMA)
            ),
            "sex",
        ),
        "publish not a release": (
            lambda: microanon.publish(
                "rel", "/nonexistent/out", df, SCHEMA, accept={"income": ["near_unique"]}
            ),
            "release",
        ),
    }


#: Where the cases' files are made when the module is collected: removed when the run ends.
_SCRATCH = tempfile.TemporaryDirectory(prefix="microanon-bad-")


def _text_file(name: str, text: str) -> Path:
    """A new file ``name`` holding ``text``, in a directory of its own."""
    path = Path(tempfile.mkdtemp(dir=_SCRATCH.name)) / name
    path.write_text(text)
    return path


def _broken_release() -> Path:
    """A release directory whose ``release.json`` is not JSON (and holds :data:`SECRET`)."""
    path = _text_file("release.json", f'{{"kind": "{SECRET}", [')
    public = path.parent / "public"
    public.mkdir()
    path.rename(public / "release.json")
    return path.parent


API_CASES = _api()


@pytest.mark.parametrize("name", _ids(list(API_CASES)))
def test_bad_python_call(name: str) -> None:
    """A microanon error (InputError or another MicroanonError) with a one-line message."""
    call, needle = API_CASES[name]
    with pytest.raises(Exception) as caught:
        call()
    assert isinstance(caught.value, MicroanonError), (
        f"{type(caught.value).__name__}: {caught.value}"
    )
    message = str(caught.value)
    assert message.strip() and "\n" not in message.strip(), message
    assert SECRET not in message
    assert needle.lower() in message.lower(), message


#: Wrong values of every type, tried in turn for each parameter of :func:`_sweep`'s calls.
WRONG = [None, 0, -1, 1.5, math.nan, math.inf, True, "x", [], {}, ["zz"], {"zz": 1}, object()]


def _sweep() -> dict[str, tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]]:
    """Good calls of the public functions: name -> (function, positional, keyword arguments)."""
    import microanon
    from microanon import measures, models
    from microanon.methods import generalize, randomize, sdc

    df = _people()
    sd = {**SCHEMA, "age": "identifier"}
    frame, keys, sensitive = (df, SCHEMA), (df, ["sex"]), (df, ["sex"], "job")
    return {
        "full_domain": (generalize.full_domain, (df, sd), {"models": K2, "suppression": 0.1}),
        "mondrian": (generalize.mondrian, frame, {"models": K2}),
        "local_recoding": (generalize.local_recoding, frame, {"k": 2}),
        "anatomy": (generalize.anatomy, frame, {"l": 2}),
        "randomized_response": (
            randomize.randomized_response,
            (df, sd),
            {"l": 2, "scenario": "S", "rng": 0},
        ),
        "pram": (randomize.pram, (df, sd), {"keep": {"sex": 0.9}, "rng": 0}),
        "microaggregation": (sdc.microaggregation, frame, {"k": 2}),
        "local_suppression": (sdc.local_suppression, frame, {"k": 2}),
        "add_noise": (sdc.add_noise, frame, {"noise": 0.1}),
        "rank_swap": (sdc.rank_swap, frame, {"p": 5}),
        "sample": (sdc.sample, frame, {"fraction": 0.5}),
        "top_bottom_code": (sdc.top_bottom_code, frame, {"column": "income", "top": 50}),
        "global_recode": (sdc.global_recode, frame, {"levels": 1}),
        "Anonymizer": (lambda *a, **k: microanon.Anonymizer(*a, **k).fit(df), (sd, K2), {}),
        "lint_schema": (microanon.lint_schema, frame, {}),
        "k_anonymity": (models.k_anonymity, keys, {"k": 2}),
        "l_diversity": (models.l_diversity, sensitive, {"l": 2}),
        "t_closeness": (models.t_closeness, sensitive, {"t": 0.5}),
        "beta_likeness": (models.beta_likeness, sensitive, {"beta": 1}),
        "delta_disclosure": (models.delta_disclosure, sensitive, {"delta": 1}),
        "profile": (models.profile, sensitive, {}),
        "reidentification_risk": (measures.reidentification_risk, keys, {}),
        "attacker_risks": (measures.attacker_risks, keys, {}),
        "population_uniqueness": (measures.population_uniqueness, keys, {"fraction": 0.1}),
        "suda2": (measures.suda2, (df, ["sex", "age"]), {}),
        "individual_risk": (measures.individual_risk, (df, ["sex"], "income"), {}),
        "key_frequencies": (measures.key_frequencies, keys, {}),
        "sample_uniques": (measures.sample_uniques, keys, {}),
    }


SWEEP = _sweep()


@pytest.mark.parametrize("name", _ids(list(SWEEP)))
def test_wrong_values_of_every_parameter(name: str) -> None:
    """Each argument of a good call, replaced in turn by each :data:`WRONG` value, gives a
    microanon error with a one-line message (or still works), never a bare Python error."""
    import inspect

    function, args, kwargs = SWEEP[name]
    function(*args, **kwargs)  # the good call works
    signature = inspect.signature(function).parameters
    keyword_only = [p for p, v in signature.items() if v.kind is inspect.Parameter.KEYWORD_ONLY]
    slots = [*range(len(args)), *dict.fromkeys([*kwargs, *keyword_only])]
    bare = []
    for slot in slots:
        for wrong in WRONG:
            a, k = list(args), dict(kwargs)
            if isinstance(slot, int):
                a[slot] = wrong
            else:
                k[slot] = wrong
            try:
                function(*a, **k)
            except MicroanonError as exc:
                assert "\n" not in str(exc).strip(), f"{slot}={wrong!r}: {exc}"
            except Exception as exc:  # what the sweep looks for
                bare.append(f"{slot}={wrong!r}: {type(exc).__name__}: {exc}")
    assert not bare, "; ".join(bare)


def test_the_campaign_is_at_least_150_cases() -> None:
    assert len(CLI_CASES) + len(API_CASES) + len(SWEEP) * len(WRONG) >= 150
    assert len({str(c) for c in CLI_CASES}) == len(CLI_CASES)


def test_a_parameter_naming_a_column_the_schema_lacks_is_refused_before_the_data():
    """A column named in a method's or a step's parameters that the schema lacks is refused
    when the config is read, naming the parameter (the workbench shows the line beside it, where
    it had queued a run that failed on it); a mapping whose keys name other things (a
    distribution's groups by a prefix) is not read as columns."""
    from microanon.apps.config import parse_config
    from microanon.core.errors import InputError

    schema = {
        "age": {"role": "quasi", "kind": "numeric"},
        "sex": "quasi",
        "income": {"role": "sensitive", "kind": "numeric"},
    }
    doc = {"schema": schema, "method": "microaggregation"}
    with pytest.raises(InputError) as refused:
        parse_config({**doc, "params": {"k": 3, "columns": ["age", "incme"]}})
    assert str(refused.value) == (
        "columns: column(s) 'incme' are not in the schema, which has age, sex, income"
    )
    steps = [
        {"method": "local_suppression", "params": {"k": 3}},
        {"method": "pram", "params": {"keep": {"sx": 0.8}}},
    ]
    with pytest.raises(InputError, match=r"^steps\[2\] \(pram\): keep: column\(s\) 'sx' are not"):
        parse_config({"schema": schema, "steps": steps})
    groups = {"groups": {"column": "sex", "prefix": 1}}
    assert parse_config({"schema": schema, "method": "distribution", "params": groups})
