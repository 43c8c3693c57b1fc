"""A claimed model that holds on every table is warned of: k-anonymity with k = 1 (every record
is a class of one at least) and ℓ-diversity with ℓ = 1. carData's ``Cowles`` (1,421 volunteers)
with k = 1 had been published raw, exit 0 and no warning, the public report listing
"k-anonymity yes 1" among its guarantees."""

from __future__ import annotations

import json

import yaml
from click.testing import CliRunner
from real_surveys import rdataset

from microanon.apps.cli import main
from microanon.apps.release_summary import vacuous_models


def test_the_models_that_hold_on_every_table():
    warned = vacuous_models(
        [{"k_anonymity": {"k": 1}}, {"l_diversity": {"l": 1, "form": "entropy"}}]
    )
    assert warned == [
        "the claimed k_anonymity with k = 1 holds on every table, so it protects no one; "
        "give k = 2 or more",
        "the claimed l_diversity with l = 1 holds on every table, so it protects no one; "
        "give l = 2 or more",
    ]
    assert vacuous_models([{"k_anonymity": {"k": 2}}, {"l_diversity": {"l": 1.5}}]) == []


def test_cowles_with_k_1_is_warned_of(tmp_path):
    rdataset("carData", "Cowles").to_csv(tmp_path / "cowles.csv", index=False)
    config = {
        "schema": {
            "sex": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
            "neuroticism": {"role": "sensitive"},
            "extraversion": {"role": "sensitive"},
            "volunteer": {"role": "insensitive"},
        },
        "method": "full_domain",
        "models": [{"k_anonymity": {"k": 1}}],
    }
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    args = ["anonymize", str(tmp_path / "cowles.csv"), "--config", str(tmp_path / "c.yaml")]
    run = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "out"), "--json"])
    assert run.exit_code == 0, run.output
    warnings = json.loads(run.stdout)["warnings"]
    assert any("k_anonymity with k = 1 holds on every table" in w for w in warnings)
