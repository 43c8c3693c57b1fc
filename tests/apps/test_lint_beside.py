"""The schema lint made beside the method: its refusal comes first, stops the search, and
nothing is written."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from microanon import InfeasibleError, InputError
from microanon.apps.anonymize import run_anonymize
from microanon.apps.config import PipelineConfig, parse_config
from microanon.apps.lint_beside import LintBeside
from microanon.core.lint import lint_schema
from microanon.core.schema import Schema
from microanon.datasets import load_arx_adult


def _adult(rows: int = 3000) -> pd.DataFrame:
    return load_arx_adult().head(rows).reset_index(drop=True)


def _config(models: list, **extra) -> PipelineConfig:
    flat = {"builder": "balanced", "fanout": 100}  # each value, then *
    quasi = {"sex": {}, "race": {}, "marital_status": {}, **extra.pop("schema", {})}
    schema = {q: {"role": "quasi", "hierarchy": flat, **spec} for q, spec in quasi.items()}
    schema["occupation"] = {"role": "sensitive"}
    doc = {"schema": schema, "method": "full_domain", "models": models, **extra}
    return parse_config(doc)


class _Watch:
    def __init__(self) -> None:
        self.heard: list[tuple[int, float | None, float]] = []

    def stop_requested(self) -> bool:
        return False

    def searched(self, nodes: int, best: float | None, seconds: float) -> None:
        self.heard.append((nodes, best, seconds))


def test_the_report_is_the_lint_of_the_data_with_its_seconds():
    data = _adult()
    schema = Schema.from_dict(
        {c: {"role": "quasi"} for c in ("sex", "race")} | {"occupation": {"role": "sensitive"}}
    )
    data = data[["sex", "race", "occupation"]]
    with LintBeside(data, schema, None, _Watch()) as beside:
        lint, seconds = beside.report()
        assert not beside.refused and not beside.stop_requested()
    assert lint.to_dict() == lint_schema(data, schema).to_dict()
    assert seconds >= 0


def test_a_refusing_lint_asks_the_search_to_stop_and_raises_its_findings():
    data = _adult()[["sex", "race", "occupation", "education"]]
    schema = Schema.from_dict({"sex": {"role": "quasi"}, "occupation": {"role": "sensitive"}})
    watch = _Watch()
    with LintBeside(data, schema, None, watch) as beside:
        with pytest.raises(InputError, match="race"):
            beside.report()  # (waits for the thread's answer)
        assert beside.refused and beside.stop_requested()
        beside.searched(10, 0.5, 1.0)
    assert watch.heard == [(10, 0.5, 1.0)]


def test_the_lint_refusal_is_raised_rather_than_the_method_failure(tmp_path):
    """A column without a role and a model no release meets: the lint's answer is the one
    raised, as when the lint ran before the method, and nothing is written."""
    data = _adult()[["sex", "race", "marital_status", "occupation"]]
    cfg = _config([{"k_anonymity": {"k": 10**6}}], params={"suppression": 0.0})
    plain, extra = tmp_path / "plain.csv", tmp_path / "extra.csv"
    data.to_csv(plain, index=False)
    data.assign(extra=np.arange(len(data)) % 7).to_csv(extra, index=False)
    with pytest.raises(InputError, match="extra"):
        run_anonymize(cfg, tmp_path / "out", data=extra, progress=False)
    assert not (tmp_path / "out").exists()
    with pytest.raises(InfeasibleError):  # without the column: the method's own failure
        run_anonymize(cfg, tmp_path / "out", data=plain, progress=False)
    assert not (tmp_path / "out").exists()


def test_a_refusing_lint_stops_a_heuristic_search_and_nothing_is_written(tmp_path, monkeypatch):
    """The search asks its watch at every step: once the lint refuses, the watch asks it to
    stop (the search ends with what it has), and the lint's findings are raised."""
    quasi = ["sex", "age", "race", "marital_status", "education", "native_country", "workclass"]
    data = _adult(5000)[[*quasi, "occupation"]]
    path = tmp_path / "data.csv"
    data.assign(extra=np.arange(len(data)) % 5).to_csv(path, index=False)
    cfg = _config(
        [{"k_anonymity": {"k": 5}}],
        schema={q: {} for q in quasi} | {"age": {"kind": "numeric"}},
        params={"suppression": 0.0, "search": "best-first", "step_limit": 10**6},
    )
    asked: list[bool] = []
    stop = LintBeside.stop_requested

    def heard(self: LintBeside) -> bool:
        asked.append(stop(self))
        return asked[-1]

    monkeypatch.setattr(LintBeside, "stop_requested", heard)
    with pytest.raises(InputError, match="extra"):
        run_anonymize(cfg, tmp_path / "out", data=path, progress=False)
    assert not (tmp_path / "out").exists()
    assert asked and asked[-1] is True


def test_a_method_nothing_can_stop_starts_only_once_the_lint_has_answered(tmp_path, monkeypatch):
    """Mondrian takes no watch: a refusal of the lint comes before it runs at all."""
    data = _adult()[["sex", "age", "race", "occupation"]]
    path = tmp_path / "data.csv"
    data.assign(extra=np.arange(len(data)) % 7).to_csv(path, index=False)
    cfg = parse_config(
        {
            "schema": {
                "sex": {"role": "quasi"},
                "age": {"role": "quasi", "kind": "numeric"},
                "race": {"role": "quasi"},
                "occupation": {"role": "sensitive"},
            },
            "method": "mondrian",
            "models": [{"k_anonymity": {"k": 5}}],
        }
    )
    assert not cfg.watched and _config([{"k_anonymity": {"k": 5}}]).watched
    ran: list[bool] = []
    monkeypatch.setattr(PipelineConfig, "run", lambda self, *a, **k: ran.append(True))
    with pytest.raises(InputError, match="extra"):
        run_anonymize(cfg, tmp_path / "out", data=path, progress=False)
    assert ran == [] and not (tmp_path / "out").exists()
