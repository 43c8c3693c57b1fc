"""Run the peer tools (anjana, anonypy, crowds) in their own virtualenv; check what they publish.

The peers are never dependencies of microanon: :func:`ensure_venv` creates
``benchmarks/.peers-venv`` with ``python3 -m venv`` and installs each peer there from PyPI at the
version pinned in ``benchmarks/peers/requirements-peers.txt`` (which also pins what they run on).
Each run is a subprocess of that venv's python on a runner script ``benchmarks/peers/run_<peer>.py``
(a JSON job in, one JSON object out; see ``benchmarks/peers/_job.py``), with a timeout. The
anonymized table the peer wrote is then checked here, in microanon's process, with microanon's
own model checks (as :func:`microanon.models.check_release` checks a release): the peer's own
claims are never trusted.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from microanon.core import Hierarchy
from microanon.datasets._files import read_bytes
from microanon.datasets.hierarchies import ADULT_ARX_HIERARCHY_FILES
from microanon.measures import loss_metric
from microanon.models import as_models

HERE = Path(__file__).resolve().parent
RUNNERS_DIR = HERE / "peers"
VENV = HERE / ".peers-venv"
REQUIREMENTS = RUNNERS_DIR / "requirements-peers.txt"


@dataclass(frozen=True)
class Peer:
    """A peer tool and the microanon method it is compared with."""

    name: str
    ours: str
    what: str


#: The peers, in table order.
PEERS = (
    Peer("anjana", "full_domain", "greedy generalization with the same hierarchies"),
    Peer("crowds", "full_domain", "OLA, optimal full-domain k-anonymity"),
    Peer("anonypy", "mondrian", "Mondrian without hierarchies"),
)


@dataclass
class PeerRun:
    """One peer run and microanon's check of its output.

    ``status`` is ``"ok"``, ``"n/a"`` (the peer cannot do this configuration or is not
    installed; ``reason`` says why), ``"timeout"`` or ``"error"`` (``reason``: the last line of
    its error output).
    """

    peer: str
    status: str
    reason: str = ""
    version: str = ""
    wall: float | None = None
    cpu: float | None = None
    rows_out: int | None = None
    levels: str = ""
    count: str = ""
    suppressed: int | None = None
    verdict: str = ""
    holds: bool | None = None
    lm: float | None = None


def python() -> Path:
    """The peers' venv interpreter."""
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def pins() -> dict[str, str]:
    """``name -> version`` of every pinned requirement."""
    out = {}
    for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)==([^\s#]+)\s*(#.*)?", line)
        if m:
            out[m[1].lower()] = m[2]
    return out


def _installed(dist: str) -> str | None:
    probe = f"import importlib.metadata as m; print(m.version({dist!r}))"
    r = subprocess.run([python(), "-c", probe], capture_output=True, text=True, check=False)
    return r.stdout.strip() if r.returncode == 0 else None


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:160] if lines else "no output"


def ensure_venv(log: Any = print) -> dict[str, str]:
    """Create the venv if needed and install every peer at its pinned version.

    Returns
    -------
    dict
        ``peer -> reason`` for the peers that could not be installed (empty when all are).
    """
    versions = pins()
    if not python().exists():
        base = shutil.which("python3") or sys.executable
        log(f"creating {VENV} ({base} -m venv)")
        r = subprocess.run([base, "-m", "venv", str(VENV)], capture_output=True, text=True)
        if r.returncode:
            reason = f"python3 -m venv failed: {_last_line(r.stderr)}"
            return {p.name: reason for p in PEERS}
    failed = {}
    pip = [python(), "-m", "pip", "install", "-q", "-c", str(REQUIREMENTS)]
    for dist in ("pandas", *(p.name for p in PEERS)):  # pandas: the runners read with it
        if _installed(dist) == versions.get(dist):
            continue
        log(f"installing {dist}=={versions.get(dist)} into {VENV}")
        r = subprocess.run([*pip, dist], capture_output=True, text=True, check=False)
        if r.returncode:
            failed[dist] = f"pip install {dist} failed: {_last_line(r.stderr)}"
    if "pandas" in failed:
        return {p.name: failed["pandas"] for p in PEERS}
    return failed


def hierarchy_file(column: str) -> str:
    """The bundled ARX hierarchy file of a column (``salary_class`` is ARX's salary-class)."""
    return ADULT_ARX_HIERARCHY_FILES["income" if column == "salary_class" else column]


def write_inputs(workdir: Path, name: str, frame: pd.DataFrame) -> dict[str, Any]:
    """Write a data set and the ARX hierarchies of its columns for the runners (once per name)."""
    folder = workdir / re.sub(r"\W+", "_", name)
    data = folder / "data.csv"
    hierarchies = {}
    folder.mkdir(parents=True, exist_ok=True)
    for column in frame.columns:
        path = folder / f"hierarchy_{column}.csv"
        if not path.exists():
            path.write_bytes(read_bytes(hierarchy_file(column)))
        hierarchies[column] = str(path)
    if not data.exists():
        frame.to_csv(data, index=False)
    return {"data": str(data), "hierarchies": hierarchies, "rows": len(frame), "folder": folder}


def job_model(models: list[dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """The runners' model fields of a one-model configuration."""
    ((name, params),) = models[0].items()
    if name == "k_anonymity":
        return {"model": "k", "k": params["k"]}
    if name == "l_diversity":
        return {"model": f"l-{params.get('form', 'distinct')}", "l": params["l"]}
    return {"model": "t", "t": params["t"]}


def run_peer(
    peer: Peer,
    inputs: dict[str, Any],
    quasi: tuple[str, ...],
    sensitive: str,
    models: list[dict[str, dict[str, Any]]],
    suppression: float,
    numeric: tuple[str, ...],
    timeout: float,
) -> tuple[PeerRun, Path | None]:
    """Run one peer on one configuration; return the run and the path of its output table."""
    tag = f"{peer.name}-{len(list(inputs['folder'].glob(peer.name + '-*.json')))}"
    out = inputs["folder"] / f"{tag}.csv"
    job = {
        "data": inputs["data"],
        "hierarchies": {c: inputs["hierarchies"][c] for c in quasi},
        "quasi": list(quasi),
        "sensitive": sensitive,
        "numeric": list(numeric),
        "suppression": suppression,
        "output": str(out),
        **job_model(models),
    }
    job_file = inputs["folder"] / f"{tag}.json"
    job_file.write_text(json.dumps(job), encoding="utf-8")
    script = RUNNERS_DIR / f"run_{peer.name}.py"
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # anonypy joins value sets in set order
    try:
        r = subprocess.run(
            [python(), str(script), str(job_file)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return PeerRun(peer.name, "timeout", f"no result within {timeout:.0f} s"), None
    if r.returncode:
        return PeerRun(peer.name, "error", _last_line(r.stderr)), None
    res = json.loads(r.stdout.strip().splitlines()[-1])
    if "unsupported" in res:
        return PeerRun(peer.name, "n/a", res["unsupported"], res["version"]), None
    count = ""
    if res.get("nodes") is not None:
        count = f"{res['nodes']} nodes"
    elif res.get("partitions") is not None:
        count = f"{res['partitions']} parts"
    run = PeerRun(
        peer.name,
        "ok",
        version=res["version"],
        wall=res["wall"],
        cpu=res["cpu"],
        rows_out=res["rows_out"],
        levels=res.get("levels") or "",
        count=count,
    )
    return run, out


def verdict_text(verdicts: list[Any]) -> tuple[bool, str]:
    """Whether every model holds and the achieved values, e.g. ``"k=5 holds"``."""
    parts = []
    for v in verdicts:
        symbol = {"k-anonymity": "k", "t-closeness": "t"}.get(v.model, "l")
        value = v.value
        shown = f"{value:.3g}" if isinstance(value, float) and not value.is_integer() else value
        parts.append(f"{symbol}={shown}")
    holds = all(v.holds for v in verdicts)
    return holds, " ".join(parts) + (" holds" if holds else " FAILS")


def check_output(
    run: PeerRun,
    path: Path,
    rows_in: int,
    quasi: tuple[str, ...],
    sensitive: str,
    models: list[dict[str, dict[str, Any]]],
    suppression: float,
    hierarchies: dict[str, Hierarchy] | None,
) -> None:
    """Check a peer's anonymized table with microanon's models (fills ``run``'s check fields).

    The models are checked on the published rows (as :func:`microanon.models.check_release`
    does: t-closeness against the published rows' own distribution); the suppressed rows
    (``rows_in`` minus the published ones) must not exceed the configuration's limit. ``lm``
    (suppressed rows at full loss) is computed when the output holds hierarchy labels.
    """
    published = pd.read_csv(path, dtype=str, keep_default_na=False)
    run.suppressed = rows_in - len(published)
    if len(published) == 0:
        run.holds, run.verdict = False, "no output"
        return
    resolved = as_models(models)
    checks = [
        m.check(published, list(quasi), sensitive if m.needs_sensitive else None) for m in resolved
    ]
    holds, text = verdict_text(checks)
    limit = math.floor(suppression * rows_in + 1e-9)
    if run.suppressed > limit:
        holds, text = False, f"{text}; {run.suppressed} suppressed > {limit} FAILS"
    run.holds, run.verdict = holds, text
    if hierarchies is not None:
        try:
            run.lm = loss_metric(
                published, hierarchies, list(quasi), suppressed=run.suppressed
            ).total
        except Exception:  # labels that are not hierarchy nodes: no LM  # noqa: BLE001
            run.lm = None
