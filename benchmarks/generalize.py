"""Time microanon's generalization methods on Adult, optionally next to peer tools; print a table.

Run: .venv/bin/python benchmarks/generalize.py [--quick] [--metric lm] [--repeat 3] [--brute]
     [--methods full_domain,mondrian,local_recoding] [--end-to-end] [--peers] [--only PEER]
     [--peers-timeout 600] [--peers-data adult|all]

Configurations (issue 3): ARX's Adult (30,162 rows) with ARX's 8 quasi-identifiers and
hierarchies (lattice of 6,480 nodes): k in {2, 5, 10, 50, 100} with 0% and 5% suppression
(``salary_class`` sensitive, unused by k); distinct and entropy ℓ = 3 and t = 0.2 with
``occupation`` sensitive and ``salary_class`` instead of ``occupation`` among the quasi-identifiers
(4,320 nodes), with 0% and 5% suppression. The same on Adult replicated 10× and on a 10×
synthetic table whose columns are drawn independently from Adult's marginals (~140k distinct
quasi-identifier combinations; a fixed seed, for a reproducible benchmark).

microanon's methods (:data:`RUNNERS`): ``full_domain`` (the optimal search; the configuration's
suppression), ``mondrian`` (strict) and ``local_recoding`` (neither suppresses, so they run on the
0% configurations only; ``age`` is numeric there, published as ranges, the other quasi-identifiers
use the hierarchies). Times are CPU seconds (``time.process_time``) from the DataFrame to the
release, best of ``--repeat`` runs (a method stops repeating after a run of more than 5 s);
``search`` is the CPU time of the full-domain search alone on the encoded table (what the ARX
column compares with: the issue's measurements of ARX's optimal search on this kind of 2-core
machine, per-k ranges, ARX's default loss). ``check`` is microanon's check of the release
(:func:`microanon.models.check_release`); ``lm`` is the loss metric of the published table with
suppressed rows at full loss (for ``full_domain``, the value of ``--metric``).

``--end-to-end`` prints, for the Adult configurations only, each method's warm end-to-end CPU
(one untimed run, then the median of ``--repeat`` runs) and, for ``full_domain``, the search's
alone and the rest (validation, encoding, the published table, the release).

Peers (``--peers``; see ``peer_tools.py`` and ``peers/``): anjana and crowds next to
``full_domain``, anonypy next to ``mondrian``, each run once in a subprocess of
``benchmarks/.peers-venv`` (created and filled from PyPI on first use) with a timeout. Their
output is checked here with microanon's model checks; speed-up is the peer's CPU time over ours.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import peer_tools

from microanon.core import Hierarchy, Release, Schema, Table
from microanon.datasets import adult_hierarchies, load_arx_adult
from microanon.measures import loss_metric
from microanon.methods.generalize import full_domain, local_recoding, mondrian
from microanon.methods.generalize.full_domain import search
from microanon.models import check_release

K_QUASI = (
    "sex", "age", "race", "marital_status", "education", "native_country", "workclass",
    "occupation",
)  # fmt: skip
L_QUASI = (*K_QUASI[:-1], "salary_class")
DATASETS = ("adult", "adult x10", "synthetic x10")


@dataclass(frozen=True)
class Config:
    """One benchmark configuration."""

    data: str
    label: str
    models: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]
    suppression: float
    quasi: tuple[str, ...]
    sensitive: str
    arx: str = ""

    def model_spec(self) -> list[dict[str, dict[str, Any]]]:
        """The models as configuration entries."""
        return [{name: dict(params)} for name, params in self.models]


def _arx_reference(data: str, family: str, suppression: float) -> str:
    if data == "synthetic x10":
        return "~8.8 s" if family == "k" else ""
    if data != "adult":
        return ""
    if family == "k":
        return "21-80 ms" if suppression == 0 else "187-769 ms"
    if family == "l":
        return "38-417 ms"
    return ""


def k_config(data: str, k: int, suppression: float) -> Config:
    """k-anonymity on ARX's 8 quasi-identifiers."""
    arx = _arx_reference(data, "k", suppression)
    if data == "adult" and k == 5 and suppression:
        arx = "624 ms, 844 nodes"
    return Config(
        data, f"k={k}", (("k_anonymity", (("k", k),)),), suppression, K_QUASI, "salary_class", arx
    )


def l_config(data: str, form: str, suppression: float) -> Config:
    """ℓ = 3 (distinct or entropy) with occupation sensitive."""
    return Config(
        data,
        f"{form} l=3",
        (("l_diversity", (("l", 3), ("form", form))),),
        suppression,
        L_QUASI,
        "occupation",
        _arx_reference(data, "l", suppression),
    )


def t_config(data: str, suppression: float) -> Config:
    """t = 0.2 (equal distance) with occupation sensitive."""
    return Config(
        data, "t=0.2", (("t_closeness", (("t", 0.2),)),), suppression, L_QUASI, "occupation"
    )


def configurations(datasets: tuple[str, ...] = DATASETS) -> list[Config]:
    """Every configuration of the benchmark, in table order."""
    out = []
    for data in datasets:
        for suppression in (0.0, 0.05):
            out += [k_config(data, k, suppression) for k in (2, 5, 10, 50, 100)]
        for suppression in (0.0, 0.05):
            out += [l_config(data, form, suppression) for form in ("distinct", "entropy")]
            out.append(t_config(data, suppression))
    return out


@cache
def load(data: str) -> pd.DataFrame:
    """ARX's Adult, replicated 10×, or a 10× synthetic table with independent columns."""
    adult = load_arx_adult()
    if data == "adult":
        return adult
    if data == "adult x10":
        return pd.concat([adult] * 10, ignore_index=True)
    rng = np.random.default_rng(20240611)  # a benchmark input, not a release: fixed on purpose
    n = 10 * len(adult)
    return pd.DataFrame(
        {c: adult[c].to_numpy()[rng.integers(0, len(adult), n)] for c in adult.columns}
    )


@dataclass
class Result:
    """What one of microanon's methods reports for one configuration."""

    seconds: float
    search: float | None
    count: str
    levels: str
    value: float | None
    suppressed: int | None
    check: str


def _adult_hierarchies() -> dict[str, Hierarchy]:
    hs = adult_hierarchies()
    hs["salary_class"] = hs["income"]
    return hs


def frame(config: Config) -> pd.DataFrame:
    """The configuration's columns of its data set."""
    return load(config.data)[[*config.quasi, config.sensitive]]


def schema_spec(config: Config, numeric: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """The configuration's schema: ARX's hierarchies; ``numeric`` columns of kind numeric."""
    hs = _adult_hierarchies()
    spec: dict[str, dict[str, Any]] = {
        c: {
            "role": "quasi",
            "kind": "numeric" if c in numeric else "categorical",
            "hierarchy": hs[c],
        }
        for c in config.quasi
    }
    spec[config.sensitive] = {"role": "sensitive", "kind": "categorical"}
    return spec


@cache
def table(data: str, quasi: tuple[str, ...], sensitive: str) -> Table:
    """The encoded table of a configuration (encoding is not timed)."""
    config = Config(data, "", (), 0.0, quasi, sensitive)
    return Table.from_frame(frame(config), Schema.from_dict(schema_spec(config)))


def best_cpu(fn: Callable[[], Any], repeat: int, enough: float = 5.0) -> tuple[float, Any]:
    """Least CPU seconds over ``repeat`` runs of ``fn`` (fewer once a run takes ``enough``)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
        if best > enough:
            break
    return best, out


def median_cpu(fn: Callable[[], Any], repeat: int) -> float:
    """Median CPU seconds of ``repeat`` runs of ``fn`` after one untimed (warm-up) run."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return float(np.median(times))


def _end_to_end_calls(
    config: Config, name: str, metric: str
) -> tuple[Callable[[], Any], Callable[[], Any] | None] | None:
    """A method's run from the DataFrame and, for ``full_domain``, its search alone."""
    if name == "full_domain":
        tab = table(config.data, config.quasi, config.sensitive)
        models = config.model_spec()
        return (
            lambda: full_domain(
                frame(config),
                schema_spec(config),
                models=models,
                suppression=config.suppression,
                metric=metric,
            ),
            lambda: search(tab, models, config.suppression, metric),
        )
    if config.suppression:
        return None  # mondrian and local_recoding do not suppress
    spec = schema_spec(config, numeric=("age",))
    ((model, params),) = config.models
    if name == "mondrian":
        return lambda: mondrian(frame(config), spec, models=config.model_spec()), None
    k = dict(params)["k"] if model == "k_anonymity" else 1
    extra = None if model == "k_anonymity" else config.model_spec()
    return lambda: local_recoding(frame(config), spec, k=k, models=extra), None


def _ms(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds * 1000:.1f} ms"


def end_to_end(configs: list[Config], metric: str, repeat: int, methods: list[str]) -> None:
    """Print warm end-to-end and search-alone CPU per configuration (median of ``repeat``).

    End to end is the public function from the DataFrame to the release (validation, encoding,
    search, the published table, the release); search alone is
    :func:`~microanon.methods.generalize.full_domain.search` on the encoded table.
    """
    header = ("data", "model", "supp.", "method", "end to end", "search", "rest")
    rows = []
    for config in configs:
        for name in methods:
            calls = _end_to_end_calls(config, name, metric)
            if calls is None:
                continue
            run, alone = calls
            searched = None if alone is None else median_cpu(alone, repeat)
            total = median_cpu(run, repeat)
            rest = None if searched is None else total - searched
            rows.append(
                [config.data, config.label, f"{config.suppression:.0%}", name, _ms(total),
                 _ms(searched), _ms(rest)]
            )  # fmt: skip
            print("  ".join(rows[-1]), flush=True)
    print_aligned(header, rows)
    print(f"\nCPU seconds (time.process_time), warm, median of {repeat} runs")


def release_check(release: Release) -> str:
    """microanon's check of a release, e.g. ``"k=5 holds"``."""
    return peer_tools.verdict_text(check_release(release))[1]


def published_lm(
    release: Release, config: Config, hierarchies: dict[str, Hierarchy] | None = None
) -> float:
    """LM of a release's table, suppressed rows at full loss (``hierarchies``: Adult's)."""
    hs = _adult_hierarchies() if hierarchies is None else hierarchies
    suppressed = int(release.metadata.get("suppressed", 0))
    return loss_metric(release.data, hs, list(config.quasi), suppressed=suppressed).total


def full_domain_runner(config: Config, metric: str, repeat: int) -> Result:
    """The exact search: :func:`microanon.methods.generalize.full_domain` (and ``search``)."""
    tab = table(config.data, config.quasi, config.sensitive)
    searched, result = best_cpu(
        lambda: search(tab, config.model_spec(), config.suppression, metric), repeat
    )
    seconds, release = best_cpu(
        lambda: full_domain(
            frame(config),
            schema_spec(config),
            models=config.model_spec(),
            suppression=config.suppression,
            metric=metric,
        ),
        repeat,
    )
    levels = "".join(str(result.levels[q]) for q in config.quasi)
    return Result(
        seconds,
        searched,
        f"{result.nodes_checked} nodes",
        levels,
        result.metric_value,
        result.suppressed,
        release_check(release),
    )


def _partition_runner(method: str) -> Callable[[Config, str, int], Result | None]:
    def runner(config: Config, metric: str, repeat: int) -> Result | None:
        if config.suppression:
            return None  # no suppression parameter: the 0% configuration says it all
        spec = schema_spec(config, numeric=("age",))
        if method == "mondrian":
            fn = lambda: mondrian(frame(config), spec, models=config.model_spec())  # noqa: E731
            key = "partitions"
        else:
            ((name, params),) = config.models
            k = dict(params)["k"] if name == "k_anonymity" else 1
            extra = None if name == "k_anonymity" else config.model_spec()
            fn = lambda: local_recoding(frame(config), spec, k=k, models=extra)  # noqa: E731
            key = "groups"
        seconds, release = best_cpu(fn, repeat)
        value = published_lm(release, config) if metric == "lm" else None
        return Result(
            seconds,
            None,
            f"{release.metadata[key]} parts",
            "",
            value,
            int(release.metadata["suppressed"]),
            release_check(release),
        )

    runner.__doc__ = f"microanon's {method} (age numeric, published as ranges)."
    return runner


#: microanon's methods timed by the benchmark: name -> runner (``None``: configuration skipped).
RUNNERS: dict[str, Callable[[Config, str, int], Result | None]] = {
    "full_domain": full_domain_runner,
    "mondrian": _partition_runner("mondrian"),
    "local_recoding": _partition_runner("local_recoding"),
}


def brute_force(config: Config, metric: str) -> tuple[str, float]:
    """The optimum by evaluating every node (only the monotone k-anonymity configurations)."""
    from microanon.methods.generalize._lattice_frequencies import roll_up
    from microanon.methods.generalize._search import _Engine, _model_set
    from microanon.models import as_models

    tab = table(config.data, config.quasi, config.sensitive)
    models = _model_set(tab, as_models(config.model_spec()))
    limit = int(np.floor(config.suppression * tab.n_rows + 1e-9))
    engine = _Engine(tab, models, limit, metric, False)
    feasible = []
    for node in range(engine.lattice.size):
        levels = engine.lattice.levels[node].astype(np.int64)
        fs, _ = roll_up(engine.bottom, levels, engine.maps, engine.n_sa)
        fail, _ = models.failing(fs, models.filter(fs))
        suppressed = int(fs.sizes[fail].sum())
        if suppressed <= limit:
            value = engine.metric.value(fs, fail, suppressed)
            feasible.append((value, suppressed, int(engine.lattice.rank[node]), node))
    low = min(f[0] for f in feasible)
    ties = [f for f in feasible if f[0] <= low + engine.metric.tolerance(low)]
    value, _, _, node = min(ties, key=lambda f: f[1:3])
    return "".join(str(v) for v in engine.lattice.levels[node]), engine.metric.report(value)


def _fmt_seconds(s: float) -> str:
    if s < 1:
        return f"{s * 1000:.0f} ms"
    return f"{s:.2f} s" if s < 10 else f"{s:.1f} s"


HEADER = ("data", "model", "supp.", "runner", "CPU", "search", "count", "levels", "", "suppr.")
HEADER_END = ("check", "speed-up", "ARX")


class Peers:
    """The peer runs of one benchmark: venv, inputs written once per data set, options."""

    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.only = args.only
        self.timeout = args.peers_timeout
        self.datasets = DATASETS if args.peers_data == "all" else DATASETS[:1]
        self.quick = args.quick
        self.workdir = workdir
        self.missing = peer_tools.ensure_venv()

    def wanted(self, config: Config, ours: str) -> list[peer_tools.Peer]:
        """The peers compared with ``ours`` on this configuration."""
        if config.data not in self.datasets:
            return []
        if self.quick and config.models[0] != ("k_anonymity", (("k", 5),)):
            return []
        return [p for p in peer_tools.PEERS if p.ours == ours and self.only in (None, p.name)]

    def run(self, peer: peer_tools.Peer, config: Config) -> peer_tools.PeerRun:
        """Run a peer on a configuration and check its output."""
        if peer.name in self.missing:
            return peer_tools.PeerRun(peer.name, "n/a", self.missing[peer.name])
        data = frame(config)
        inputs = peer_tools.write_inputs(self.workdir, config.data, load(config.data))
        run, out = peer_tools.run_peer(
            peer,
            inputs,
            config.quasi,
            config.sensitive,
            config.model_spec(),
            config.suppression,
            ("age",),
            self.timeout,
        )
        if out is not None:
            hs = _adult_hierarchies() if peer.name != "anonypy" else None
            peer_tools.check_output(
                run,
                out,
                len(data),
                config.quasi,
                config.sensitive,
                config.model_spec(),
                config.suppression,
                hs,
            )
        return run


def _row(config: Config, cells: list[str], end: list[str]) -> list[str]:
    return [config.data, config.label, f"{config.suppression:.0%}", *cells, *end]


def our_row(config: Config, name: str, r: Result) -> list[str]:
    """A table row for one of microanon's methods."""
    cells = [
        name,
        _fmt_seconds(r.seconds),
        "" if r.search is None else _fmt_seconds(r.search),
        r.count,
        r.levels,
        "" if r.value is None else f"{r.value:.6g}",
        "" if r.suppressed is None else str(r.suppressed),
    ]
    return _row(config, cells, [r.check, "", config.arx if name == "full_domain" else ""])


def peer_row(config: Config, run: peer_tools.PeerRun, ours: Result) -> list[str]:
    """A table row for a peer run, its speed-up against ``ours``."""
    name = f"{run.peer} {run.version}".strip()
    if run.status != "ok":
        return _row(config, [name, run.status, "", "", "", "", ""], [run.reason, "", ""])
    cells = [
        name,
        _fmt_seconds(run.cpu),
        "",
        run.count,
        run.levels,
        "" if run.lm is None else f"{run.lm:.6g}",
        "" if run.suppressed is None else str(run.suppressed),
    ]
    return _row(config, cells, [run.verdict, f"{run.cpu / ours.seconds:,.0f}×", ""])


def print_table(rows: list[list[str]], metric: str) -> None:
    """Print the rows aligned under the header."""
    print_aligned([*HEADER[:8], metric, *HEADER[9:], *HEADER_END], rows)


def print_aligned(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print ``rows`` in columns aligned under ``header``, after a blank line."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print()
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Adult only; peers on k=5 only")
    parser.add_argument(
        "--metric", default="lm", help="lm, discernibility, aecs, precision, entropy"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per configuration (best)")
    parser.add_argument(
        "--methods",
        default=",".join(RUNNERS),
        help="comma-separated microanon methods (default: %(default)s)",
    )
    parser.add_argument(
        "--brute", action="store_true", help="check k=5, 0%% on Adult against every node"
    )
    parser.add_argument(
        "--end-to-end",
        action="store_true",
        help="Adult only: warm end-to-end and search-alone CPU, median of --repeat runs",
    )
    parser.add_argument("--peers", action="store_true", help="also run the peer tools")
    parser.add_argument(
        "--only",
        choices=[p.name for p in peer_tools.PEERS],
        help="run this peer only (implies --peers)",
    )
    parser.add_argument(
        "--peers-timeout", type=float, default=600.0, help="seconds per peer run (default 600)"
    )
    parser.add_argument(
        "--peers-data",
        choices=("adult", "all"),
        default="adult",
        help="data sets the peers run on (default: adult; the 10× tables take them hours)",
    )
    args = parser.parse_args()
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = sorted(set(methods) - set(RUNNERS))
    if unknown:
        parser.error(f"unknown methods {unknown}; choose among {list(RUNNERS)}")
    if args.end_to_end:
        end_to_end(configurations(DATASETS[:1]), args.metric, args.repeat, methods)
        return
    datasets = DATASETS[:1] if args.quick else DATASETS
    with tempfile.TemporaryDirectory(prefix="microanon-peers-") as tmp:
        peers = Peers(args, Path(tmp)) if args.peers or args.only else None
        rows = []
        for config in configurations(datasets):
            for name in methods:
                ours = RUNNERS[name](config, args.metric, args.repeat)
                if ours is None:
                    continue
                rows.append(our_row(config, name, ours))
                print("  ".join(rows[-1]), flush=True)
                for peer in [] if peers is None else peers.wanted(config, name):
                    rows.append(peer_row(config, peers.run(peer, config), ours))
                    print("  ".join(rows[-1]), flush=True)
    print_table(rows, args.metric)
    print(
        f"\nlevels: one digit per quasi-identifier in the order {', '.join(K_QUASI)} (k) or "
        f"{', '.join(L_QUASI)} (l, t); count: lattice nodes checked or final partitions/groups"
    )
    if args.brute:
        config = k_config("adult", 5, 0.0)
        start = time.perf_counter()
        levels, value = brute_force(config, args.metric)
        ours = full_domain_runner(config, args.metric, 1)
        print(
            f"brute force over every node (k=5, 0%, {args.metric}): levels {levels}, value "
            f"{value:.6g} ({time.perf_counter() - start:.1f} s); search: {ours.levels}, "
            f"{ours.value:.6g} -> {'same' if levels == ours.levels else 'DIFFERENT'}"
        )


if __name__ == "__main__":
    main()
