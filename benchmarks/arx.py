"""ARX and microanon side by side on ARX's Adult: the same configurations, interleaved; a table.

Run: .venv/bin/python benchmarks/arx.py --arx-src DIR [--quick] [--repeat 5] [--warmup 2]
     [--settle 0.2] [--cold] [--metric lm] [--arx-metric loss] [--cache DIR]

ARX is a peer in its own JVM, never a dependency: ``--arx-src`` names an ARX source tree the user
fetched (``git clone https://github.com/arx-deidentifier/arx``, ``git checkout v3.9.2``), which
``arx_build.py`` compiles with javac into a cache outside the repository (its docstring lists the
jars a tree may lack and what stands in for them); ``arx_jvm.py`` runs microanon's driver
``peers/ArxBench.java`` on it. Both tools read the same files: ARX's Adult (30,162 rows) and ARX's
hierarchy CSVs, written to a temporary folder from microanon's bundled copies.

Configurations (those of ``generalize.py`` on Adult): k in {2, 5, 10, 50, 100} on ARX's 8
quasi-identifiers, distinct and entropy ℓ = 3 and t = 0.2 (equal distance) with ``occupation``
sensitive and ``salary_class`` among the quasi-identifiers; each with 0% and 5% suppression
(``--quick``: k = 2 and 100 only).

Warm (the default): one JVM for the whole benchmark. Every configuration is run once by each
tool, untimed; then per configuration ``--warmup`` more untimed runs of each, then ``--repeat``
rounds of [ARX run, microanon end to end, microanon search]; medians. Each tool's timed call
starts after a pause of ``--settle`` seconds, so that neither call shares the machine with the
other tool's leftover work (the JVM's compiler and collector threads after ARX's run). ARX: the
driver's
main-thread CPU (ThreadMXBean) from the rows in memory to the output table read cell by cell
(``ARX JVM CPU``: all the JVM's threads, its JIT compiler and garbage collector included).
microanon: process CPU (``time.process_time``) of
:func:`microanon.methods.generalize.full_domain` from the DataFrame to the built Release, and of
the search alone on the encoded table. ``ratio`` is microanon's over ARX's.

Cold (``--cold``, after the warm table): ``--repeat`` rounds of [a fresh JVM that reads the CSVs
and runs the configuration once, ``python -c`` that imports microanon, loads the bundled Adult and
runs ``full_domain``]; median wall seconds of each process, measured from here.

Both chosen nodes are scored by one function, :func:`node_lm`: microanon's LM of the table
published at that node with microanon's suppression rule (:func:`~microanon.methods.generalize.
full_domain.apply_levels`), suppressed records at full loss. ARX minimizes its own Loss
(``--arx-metric``: its default, or the arithmetic-mean variant), microanon ``--metric`` (LM by
default; any metric ``full_domain`` accepts is passed through), so their nodes may differ.
``ARX output`` is microanon's check of the table ARX published (one more, untimed, run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import arx_build
import arx_jvm
import peer_tools
from generalize import (
    Config,
    frame,
    k_config,
    l_config,
    load,
    published_lm,
    schema_spec,
    t_config,
    table,
)

from microanon.core.errors import InfeasibleError, MicroanonError
from microanon.methods.generalize import full_domain
from microanon.methods.generalize.full_domain import apply_levels, search

QUICK_K = (2, 100)
ALL_K = (2, 5, 10, 50, 100)


def configurations(quick: bool = False) -> list[Config]:
    """The benchmark's configurations on ARX's Adult, in table order."""
    out = []
    for suppression in (0.0, 0.05):
        out += [k_config("adult", k, suppression) for k in (QUICK_K if quick else ALL_K)]
    if not quick:
        for suppression in (0.0, 0.05):
            out += [l_config("adult", form, suppression) for form in ("distinct", "entropy")]
            out.append(t_config("adult", suppression))
    return out


def label(config: Config) -> str:
    """A configuration's name in the table, e.g. ``k=2, 0%``."""
    return f"{config.label}, {config.suppression:.0%}"


def node_lm(config: Config, levels: Sequence[int] | None) -> float | None:
    """microanon's LM of Adult published at ``levels`` (suppressed records at full loss).

    The node's failing classes are suppressed by microanon's rule (``apply_levels``); ``None``
    when there is no node or it needs more suppression than the configuration allows.
    """
    if levels is None:
        return None
    try:
        release = apply_levels(
            frame(config),
            schema_spec(config),
            models=config.model_spec(),
            levels=dict(zip(config.quasi, levels, strict=True)),
            suppression=config.suppression,
        )
    except InfeasibleError:
        return None
    return published_lm(release, config)


def cpu_seconds(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Process CPU seconds of one call, and what it returned."""
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


@dataclass
class Row:
    """The warm medians and chosen nodes of one configuration."""

    config: Config
    arx_ms: float
    ours_ms: float
    search_ms: float
    arx_node: tuple[int, ...] | None
    our_node: tuple[int, ...]
    arx_lm: float | None
    our_lm: float | None
    arx_process_ms: float
    arx_check: str = ""
    arx_checked: int = 0
    our_checked: int = 0


def _fmt_ms(ms: float) -> str:
    return f"{ms:,.0f} ms" if ms < 10_000 else f"{ms / 1000:.1f} s"


def _fmt_node(levels: Sequence[int] | None) -> str:
    return "none" if levels is None else "".join(map(str, levels))


def _fmt_lm(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _same(row: Row) -> str:
    if row.arx_node == row.our_node:
        return "yes"
    tie = row.arx_lm is not None and row.our_lm is not None and abs(row.arx_lm - row.our_lm) < 1e-12
    return "no (LM tie)" if tie else "no"


WARM_HEADER = (
    "config", "ARX ms", "microanon ms", "ratio", "search ms", "ARX node", "our node", "LM(ARX)",
    "LM(ours)", "same node", "ARX JVM CPU", "ARX output", "nodes checked (ARX/ours)",
)  # fmt: skip


def warm_cells(row: Row) -> list[str]:
    """The warm table's cells of one row."""
    return [
        label(row.config),
        _fmt_ms(row.arx_ms),
        _fmt_ms(row.ours_ms),
        f"{row.ours_ms / row.arx_ms:.2f}",
        _fmt_ms(row.search_ms),
        _fmt_node(row.arx_node),
        _fmt_node(row.our_node),
        _fmt_lm(row.arx_lm),
        _fmt_lm(row.our_lm),
        _same(row),
        _fmt_ms(row.arx_process_ms),
        row.arx_check,
        f"{row.arx_checked}/{row.our_checked}",
    ]


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, columns padded to their widest cell."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


#: The whole run's target: microanon's CPU at most this share of ARX's in every configuration.
TARGET_SHARE = 0.7


def targets(rows: Sequence[Row]) -> list[str]:
    """The targets, checked: at most :data:`TARGET_SHARE` of ARX in every configuration; and
    the earlier ones, at or below ARX everywhere and at most half at 5%."""
    over_share = [label(r.config) for r in rows if r.ours_ms > TARGET_SHARE * r.arx_ms]
    slower = [label(r.config) for r in rows if r.ours_ms > r.arx_ms]
    over_half = [
        label(r.config) for r in rows if r.config.suppression and r.ours_ms > 0.5 * r.arx_ms
    ]
    return [
        f"microanon <= {TARGET_SHARE:g} of ARX in every configuration: "
        + ("met" if not over_share else f"NOT met ({'; '.join(over_share)})"),
        "microanon end to end <= ARX in every configuration: "
        + ("met" if not slower else f"NOT met ({'; '.join(slower)})"),
        "microanon <= half of ARX at 5% suppression: "
        + ("met" if not over_half else f"NOT met ({'; '.join(over_half)})"),
    ]


@dataclass(frozen=True)
class Runs:
    """The three timed calls of one configuration: ARX's job line, microanon's two functions."""

    job: str
    ours: Callable[[], Any]
    search: Callable[[], Any]


def runs(config: Config, args: argparse.Namespace) -> Runs:
    """ARX's job and microanon's end-to-end and search-alone calls for ``config``."""
    job = arx_jvm.job_line(
        config.model_spec(), config.suppression, args.arx_metric, config.quasi, config.sensitive
    )
    data, spec, models = frame(config), schema_spec(config), config.model_spec()
    tab = table(config.data, config.quasi, config.sensitive)
    return Runs(
        job,
        lambda: full_domain(
            data, spec, models=models, suppression=config.suppression, metric=args.metric
        ),
        lambda: search(tab, models, config.suppression, args.metric),
    )


def warm_up(session: arx_jvm.Session, todo: Runs, times: int) -> None:
    """Run each of the three calls ``times`` times, untimed."""
    for _ in range(times):
        session.run(todo.job)
        todo.ours()
        todo.search()


def check_arx_output(session: arx_jvm.Session, config: Config, metric: str, folder: Path) -> str:
    """One more ARX run (untimed) writing its table; microanon's check of it, e.g. ``k=5 holds``.

    The models are checked on the published rows (t-closeness against their own distribution,
    as :func:`microanon.models.check_release` does), the suppressed rows against the limit.
    """
    path = folder / "arx-output.csv"
    models = config.model_spec()
    job = arx_jvm.job_line(
        models, config.suppression, metric, config.quasi, config.sensitive, output=path
    )
    if session.run(job).levels is None:
        return "no solution"
    checked = peer_tools.PeerRun("ARX", "ok")
    peer_tools.check_output(
        checked,
        path,
        len(frame(config)),
        config.quasi,
        config.sensitive,
        models,
        config.suppression,
        None,
    )
    path.unlink()
    return checked.verdict


def warm_row(
    session: arx_jvm.Session, config: Config, args: argparse.Namespace, folder: Path
) -> Row:
    """Warm up both tools on ``config``, then time ``args.repeat`` interleaved rounds."""
    todo = runs(config, args)
    warm_up(session, todo, args.warmup)
    arx, arx_process, e2e, alone = [], [], [], []
    run, result = None, None
    for _ in range(args.repeat):
        time.sleep(args.settle)
        run = session.run(todo.job)
        arx.append(run.cpu_ms)
        arx_process.append(run.process_cpu_ms)
        time.sleep(args.settle)
        e2e.append(cpu_seconds(todo.ours)[0] * 1000)
        seconds, result = cpu_seconds(todo.search)
        alone.append(seconds * 1000)
    assert run is not None and result is not None
    our_node = tuple(int(result.levels[q]) for q in config.quasi)
    return Row(
        config,
        statistics.median(arx),
        statistics.median(e2e),
        statistics.median(alone),
        run.levels,
        our_node,
        node_lm(config, run.levels),
        node_lm(config, our_node),
        statistics.median(arx_process),
        check_arx_output(session, config, args.arx_metric, folder),
        run.checked,
        result.nodes_checked,
    )


def cold_code(config: Config, metric: str) -> str:
    """The ``python -c`` program of a cold microanon run (public API only)."""
    columns = [*config.quasi, config.sensitive]
    return (
        "from microanon.datasets import adult_hierarchies, load_arx_adult\n"
        "from microanon.methods.generalize import full_domain\n"
        f"df = load_arx_adult()[{columns!r}]\n"
        "hs = adult_hierarchies()\n"
        "hs['salary_class'] = hs['income']\n"
        f"spec = {{c: {{'role': 'quasi', 'kind': 'categorical', 'hierarchy': hs[c]}} "
        f"for c in {list(config.quasi)!r}}}\n"
        f"spec[{config.sensitive!r}] = {{'role': 'sensitive', 'kind': 'categorical'}}\n"
        f"full_domain(df, spec, models={config.model_spec()!r}, "
        f"suppression={config.suppression!r}, metric={metric!r})\n"
    )


def cold_ours(config: Config, metric: str) -> float:
    """Wall seconds of a fresh ``python -c`` running one configuration."""
    return arx_jvm.timed_process([sys.executable, "-c", cold_code(config, metric)], "microanon")[0]


def cold_cells(
    config: Config, args: argparse.Namespace, cp: str, inputs: dict[str, Any]
) -> list[str]:
    """``--repeat`` interleaved cold rounds of one configuration: the cold table's cells."""
    job = arx_jvm.job_line(
        config.model_spec(), config.suppression, args.arx_metric, config.quasi, config.sensitive
    )
    folder = str(inputs["folder"])
    arx, ours = [], []
    for _ in range(args.repeat):
        arx.append(arx_jvm.cold_run(cp, inputs["data"], folder, job) * 1000)
        ours.append(cold_ours(config, args.metric) * 1000)
    a, o = statistics.median(arx), statistics.median(ours)
    return [label(config), f"{a / 1000:.2f} s", f"{o / 1000:.2f} s", f"{o / a:.2f}"]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arx-src", type=Path, required=True, help="an ARX source tree")
    parser.add_argument("--cache", type=Path, default=arx_build.DEFAULT_CACHE, help="build cache")
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds (median; default 5)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs first (default 2)")
    parser.add_argument("--quick", action="store_true", help="k = 2 and 100 only")
    parser.add_argument(
        "--settle",
        type=float,
        default=0.2,
        help="seconds of pause before each tool's timed call (default 0.2)",
    )
    parser.add_argument("--cold", action="store_true", help="also fresh processes (wall)")
    parser.add_argument(
        "--fresh-strings",
        action="store_true",
        help="give ARX new String objects for the cells in every run (no hash code cached)",
    )
    parser.add_argument(
        "--metric", default="lm", help="what full_domain minimizes: lm (default), loss, ..."
    )
    parser.add_argument(
        "--arx-metric", choices=arx_jvm.ARX_METRICS, default="loss", help="ARX's quality model"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.warmup < 0 or args.settle < 0:
        parser.error("--repeat must be at least 1, --warmup and --settle at least 0")
    return args


def run(args: argparse.Namespace, built: arx_build.ArxBuild) -> None:
    """The warm table, its targets and, with ``--cold``, the cold table."""
    configs = configurations(args.quick)
    with tempfile.TemporaryDirectory(prefix="microanon-arx-") as tmp:
        inputs = peer_tools.write_inputs(Path(tmp), "adult", load("adult"))
        rows = []
        with arx_jvm.Session(
            built.classpath, inputs["data"], str(inputs["folder"]), args.fresh_strings
        ) as session:
            for config in configs:  # JIT and caches: every configuration once, then each warm
                warm_up(session, runs(config, args), 1)
            for config in configs:
                rows.append(warm_row(session, config, args, inputs["folder"]))
                print("  ".join(warm_cells(rows[-1])), flush=True)
        print()
        print(format_table(WARM_HEADER, [warm_cells(r) for r in rows]))
        print()
        print(
            f"warm medians of {args.repeat} interleaved rounds after 1 + {args.warmup} warm-ups; "
            f"ARX: main-thread CPU, ARX's {args.arx_metric}, "
            f"{'new' if args.fresh_strings else 'the same'} String objects for the cells in "
            "every run; ARX JVM CPU: all its threads; "
            f"microanon: process CPU, {args.metric}; nodes: one level per quasi-identifier in "
            f"the configuration's order; LM: microanon's, suppressed records at full loss; "
            f"ARX output: microanon's check of the table ARX published"
        )
        for line in targets(rows):
            print(line)
        if args.cold:
            cold = []
            for config in configs:
                cold.append(cold_cells(config, args, built.classpath, inputs))
                print("  ".join(cold[-1]), flush=True)
            print()
            print(format_table(("config", "ARX cold", "microanon cold", "ratio"), cold))
            print(f"\ncold: median wall of {args.repeat} fresh processes each (JVM vs python -c)")


def main() -> None:
    args = parse_args()
    try:
        built = arx_build.build(args.arx_src, args.cache)
        print(
            f"ARX {built.version} ({built.directory}); jars missing from the tree: "
            f"{', '.join(built.missing) or 'none'}; "
            f"stand-ins: {', '.join(built.substituted) or 'none'}"
        )
        run(args, built)
    except (RuntimeError, MicroanonError) as exc:  # the build, a driver or a cold run failed
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
