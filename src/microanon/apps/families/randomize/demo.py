"""The randomization family's part of ``microanon demo``: randomized response on the
quasi-identifiers against Anatomy and ℓ-diversity, and the reconstruction of the original
distribution."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from microanon.apps.report import Report, new_figure
from microanon.core.schema import Schema
from microanon.core.table import Table

if TYPE_CHECKING:
    from microanon.apps.demo_context import DemoContext

__all__ = ["SECTIONS"]


def randomization_section(report: Report, ctx: DemoContext) -> None:
    from microanon.measures import utility_report
    from microanon.methods.generalize import anatomy, full_domain
    from microanon.methods.randomize import randomized_response, reconstruct

    quasi, sensitive = ["education", "income", "sex", "race"], ctx.sensitive
    schema = Schema.from_dict({**{q: "quasi" for q in quasi}, sensitive: "sensitive"})
    hierarchies = {q: ctx.schema.hierarchy(q) for q in quasi}
    gen_schema = Schema.from_dict(
        {
            **{q: {"role": "quasi", "hierarchy": hierarchies[q]} for q in quasi},
            sensitive: "sensitive",
        }
    )
    data = ctx.data[[*quasi, sensitive]]
    table = Table.from_frame(data, schema)
    releases = {
        "RR-Both (optimal, τ = 1/3)": randomized_response(data, schema, scenario="Both", l=3),
        "entropy ℓ-diversity (full-domain, ℓ = 3)": full_domain(
            data, gen_schema, models=[{"l_diversity": {"l": 3, "form": "entropy"}}]
        ),
        "Anatomy (ℓ = 3)": anatomy(data, schema, l=3),
    }
    rows = []
    for name, release in releases.items():
        numbers = utility_report(release, table, quasi, sensitive)
        rows.append(
            {
                "method": name,
                "KL": numbers["kl"],
                "χ²": numbers["chi_square"],
                "query error (base)": numbers["query_error_base"],
                "query error (CUBE)": numbers["query_error_cube"],
                "U(occupation | income)": numbers["uncertainty"].loc["income", sensitive],
            }
        )
    rr = releases["RR-Both (optimal, τ = 1/3)"]
    keep = rr.metadata["optimal"]["keep"]
    shown = min(keep, key=keep.get)  # the most distorted attribute
    rec = reconstruct(rr, [shown])
    original = data[shown].value_counts(normalize=True).reindex(rec.domains[0]).fillna(0)
    observed = rr.data[shown].value_counts(normalize=True).reindex(rec.domains[0]).fillna(0)
    fig = new_figure(7.0, 3.4)
    ax = fig.add_subplot()
    x = np.arange(len(rec.domains[0]))
    ax.bar(x - 0.27, original.to_numpy(), width=0.27, label="original")
    ax.bar(x, observed.to_numpy(), width=0.27, label="published (randomized)")
    ax.bar(x + 0.27, rec.distribution(clip_renorm=True), width=0.27, label="reconstructed")
    ax.set_xticks(x, rec.domains[0], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("share of records")
    ax.legend(fontsize=8)
    sec = report.section(
        "Randomized response against attribute disclosure",
        "The ESGRO setting of Guo, Ying & Wu (quasi-identifiers education, income, sex, race; "
        "occupation sensitive). Optimal RR-Both keeps each value with probability "
        + ", ".join(f"{c} {p:.3f}" for c, p in keep.items())
        + f", so that no record's occupation can be predicted from its quasi-identifiers with "
        f"probability above 1/3 (achieved maximum {rr.metadata['optimal']['max_risk']:.4f}). "
        "Utility is measured on the distribution each release lets an analyst estimate.",
    )
    sec.table(
        pd.DataFrame(rows),
        caption="Distance of the estimated joint distribution from the "
        "original (lower is better) and the uncertainty coefficient (original 0.0274).",
    )
    sec.figure(
        fig,
        f"{shown} (kept with probability {keep[shown]:.3f}): original, as published after "
        "randomization, and reconstructed from the published table and the distortion matrix.",
    )


#: Section builders run by the demo, in order.


SECTIONS = [randomization_section]
