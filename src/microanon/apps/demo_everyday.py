"""The demo's everyday-use sections: a user's own CSV file to a release, and a recoding reused.

What a data owner does with a table of their own (issue-level features shown on bundled Adult):
the table arrives as a semicolon-separated Latin-1 file, ``microanon init`` proposes a config
for it, ``microanon anonymize`` runs that config as it is; then the recoding found on one half of
the records is applied, unchanged, to the other half (next month's file).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd

from ..core.reading import ReadOptions
from ..methods.generalize.anonymizer import Anonymizer
from ..models import check_release
from .anonymize import run_anonymize
from .demo_context import DemoContext
from .init import run_init
from .report import Report

__all__ = ["EVERYDAY_SECTIONS"]

#: How the demo writes its "own file": as a spreadsheet set to German might export it.
_READ = ReadOptions(sep=";", encoding="latin-1", decimal=",")


def _own_file_section(report: Report, ctx: DemoContext) -> None:
    with tempfile.TemporaryDirectory(prefix="microanon-demo-") as tmp:
        data = Path(tmp) / "adult-export.csv"
        ctx.data.to_csv(data, index=False, sep=_READ.sep, decimal=_READ.decimal, encoding="latin-1")
        config = Path(tmp) / "config.yaml"
        result = run_init(data, config, read=_READ)
        _, release, numbers = run_anonymize(config, Path(tmp) / "release")
        excerpt = [
            line.split("#")[0].strip()
            for line in config.read_text(encoding="utf-8").splitlines()
            if line.startswith(("data:", "read:", "method:", "params:", "  - "))
        ]
    roles = pd.DataFrame(
        {
            "column": [p.column for p in result.proposals],
            "proposed role": [p.role.value for p in result.proposals],
            "rule": [p.rule for p in result.proposals],
            "why": [p.reason for p in result.proposals],
        }
    )
    meta = release.metadata
    sec = report.section(
        "Your own file: from a CSV to a release",
        f"The {len(ctx.data):,} Adult records, exported as a spreadsheet set to German would "
        "write them (`;` between fields, Latin-1). `microanon init adult-export.csv --sep ';' "
        "--encoding latin-1 --decimal ,` profiles every column and proposes its role with the "
        "rule behind it, hierarchies, models and a commented config; `microanon anonymize "
        "--config config.yaml` runs that config as it is. The roles are a proposal for the data "
        "owner to check, not a decision.",
    )
    sec.table(roles, caption="The roles init proposed, and why.")
    sec.paragraph("The config's settings, as init wrote them: " + " · ".join(excerpt))
    sec.metrics(
        {
            "levels": ", ".join(f"{q} {lv}" for q, lv in meta["levels"].items()),
            "records published": meta["rows_out"],
            "verified from the files": numbers["verified"],
        },
        caption="The release of the proposed config.",
    )


def _reuse_section(report: Report, ctx: DemoContext) -> None:
    models = [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2}}]
    first, second = ctx.data.iloc[::2], ctx.data.iloc[1::2]
    anonymizer = Anonymizer(ctx.schema, models, suppression=0.05)
    rows = []
    for name, half in (("this month (fit)", first), ("next month (transform)", second)):
        release = anonymizer.fit_transform(half) if not rows else anonymizer.transform(half)
        verdicts = check_release(release)
        rows.append(
            {
                "file": name,
                "records": len(half),
                "levels": ", ".join(str(v) for v in release.metadata["levels"].values()),
                "suppressed": release.metadata["suppressed"],
                "models hold": all(v.holds for v in verdicts),
            }
        )
    sec = report.section(
        "Next month's file: the same recoding",
        "`Anonymizer.fit` finds the optimal full-domain generalization on one half of Adult; "
        "`transform` publishes the other half at the same levels (the same labels, so the two "
        "releases can be pooled), suppresses what fails the models there and checks them again. "
        "`save` writes the recoding to a file without a single record; "
        "`microanon.sklearn.AnonymizingTransformer` puts it in a scikit-learn pipeline.",
    )
    sec.table(pd.DataFrame(rows), caption="5-anonymity and distinct 2-diversity, at most 5 %.")


#: The everyday-use sections, in the order of the report.
EVERYDAY_SECTIONS = [_own_file_section, _reuse_section]
