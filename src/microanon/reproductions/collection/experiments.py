"""The runs of the data-collection reproduction (Zhang & Zhang 2008): one :class:`Runner` per run.

GTR is measured through the real service: for each data set and τ a fresh ``microanon serve``
process (SQLite storage in a temporary directory) receives the respondents' generalized tuples
from ``plan.clients`` concurrent :class:`~microanon.apps.server.CollectionClient` s over HTTP on
loopback, each client computing GTR locally. The baselines (MRR, EPR, LRKA, LD) are computed on
the same respondents.

Per method and parameter, a *point* holds: ``privacy`` — the achieved privacy ``min_o Pv(o, ·)``
(how we rate a baseline's privacy); ``protected`` — per τ, the share of respondents with ``Pv ≥ τ``;
``accuracy`` — the relative ID3 accuracy (same folds for every method; trained on the published
data, tested on the held-out original records, divided by the accuracy of ID3 trained on the
original records); ``loss`` — the average ``L(t)`` per tuple (generalization methods only).
"""

from __future__ import annotations

import secrets
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from microanon.apps.server import CollectionClient, ServiceConfig, SubmitResult, running_service
from microanon.core.errors import InfeasibleError, MicroanonError
from microanon.measures.classification import ID3
from microanon.methods.collect import (
    CollectedSet,
    as_tau,
    average_loss,
    encode_frame,
    protects,
    pv_all,
    sample_base,
)
from microanon.methods.generalize.local_recoding import local_recoding
from microanon.reproductions.collection import baselines
from microanon.reproductions.collection.audit import final_protection, greedy_gap
from microanon.reproductions.collection.setup import Plan, Sample, load

__all__ = ["Runner"]

#: Accepted submissions re-checked exactly (Definition 1 at acceptance time) per collection.
PROTECTION_SAMPLE = 150
#: Accepted respondents whose greedy and exact GTR answers are compared, per collection.
GREEDY_SAMPLE = 300


class Runner:
    """Runs the experiments of one plan; methods return JSON-ready results."""

    def __init__(self, plan: Plan, rng: np.random.Generator, progress: Callable[[str], None]):
        self.plan, self.rng, self.progress = plan, rng, progress
        self.samples = {
            name: Sample(load(name), size, rng, plan.folds)
            for name, size in plan.respondents.items()
        }
        self._baseline_accuracy: dict[str, float] = {}

    # ------------------------------------------------------------------ shared measures
    def original_accuracy(self, name: str) -> float:
        """Cross-validated ID3 accuracy on the original records."""
        if name not in self._baseline_accuracy:
            s = self.samples[name]
            feats = s.ds.features

            def train(rows: np.ndarray) -> ID3:
                return ID3().fit(s.frame.loc[rows, feats], s.y[rows])

            self._baseline_accuracy[name] = s.cv_accuracy(train)
        return self._baseline_accuracy[name]

    def generalized_point(self, name: str, codes: np.ndarray, present: np.ndarray) -> dict:
        """Privacy, protection, loss and relative accuracy of a generalized set.

        ``codes`` holds one generalized tuple per respondent; rows where ``present`` is False
        (abstainers) are not part of the set.
        """
        s = self.samples[name]
        survey = s.ds.survey
        collected = CollectedSet(survey)
        if present.any():
            collected.extend_codes(codes[present])
        pv = pv_all(survey, collected, s.codes)
        feats, draws = s.ds.features, self.plan.draws

        def train(rows: np.ndarray) -> ID3:
            keep = rows & present
            base, origin = sample_base(survey, codes[keep], draws, self.rng)
            return ID3().fit(base[feats], s.y[keep][origin])

        accuracy = s.cv_accuracy(train) if present.sum() >= 2 else 0.0
        return {
            "privacy": float(pv.min()),
            "protected": {str(t): float(np.mean(pv >= t - 1e-12)) for t in self.plan.taus},
            "accuracy": accuracy / self.original_accuracy(name),
            "loss": float(average_loss(survey, collected)) if collected.total else None,
            "published": int(present.sum()),
        }

    # ------------------------------------------------------------------ GTR through the service
    def collect(self, name: str, tau: float) -> dict[str, Any]:
        """Run one collection through a fresh service; the GTR point plus service figures."""
        s = self.samples[name]
        survey = s.ds.survey
        with tempfile.TemporaryDirectory(prefix="microanon-collect-") as tmp:
            config = ServiceConfig(
                survey=survey,
                tau=as_tau(tau),
                storage=f"sqlite:///{Path(tmp) / 'collected.sqlite'}",
                export_token=secrets.token_urlsafe(24),
            )
            with running_service(config) as url:
                started = time.perf_counter()
                results = _submit_all(url, s.frame[survey.attributes], self.plan.clients)
                seconds = time.perf_counter() - started
        accepted = [(i, r) for i, r in enumerate(results) if r.submission is not None]
        versions = sorted(r.version for _, r in accepted)
        if versions != list(range(1, len(accepted) + 1)):
            raise MicroanonError("the service's versions are not 1..N: a submission was lost")
        codes = np.zeros_like(s.codes)
        present = np.zeros(s.n, dtype=bool)
        for i, r in accepted:
            codes[i] = r.submission.codes
            present[i] = True
        point = self.generalized_point(name, codes, present)
        point.update(
            {
                "abstained": int(s.n - len(accepted)),
                "seconds": round(seconds, 2),
                "per_second": round(s.n / seconds, 1),
                "recomputations": int(sum(r.attempts - 1 for r in results)),
                "checked_at_acceptance": self._check_acceptance(name, tau, accepted),
                "greedy": self._greedy_gap(name, tau, accepted),
                "final_set": final_protection(
                    survey, s.codes[present], codes[present], as_tau(tau)
                ),
            }
        )
        return point

    def _greedy_gap(self, name: str, tau: float, accepted: list) -> dict[str, Any]:
        """Greedy against exact GTR for a sample of accepted respondents, each against the set
        at its acceptance (the log prefix)."""
        s = self.samples[name]
        survey = s.ds.survey
        by_version = sorted(accepted, key=lambda x: x[1].version)
        chosen = set(
            self.rng.choice(
                len(by_version), min(GREEDY_SAMPLE, len(by_version)), replace=False
            ).tolist()
        )
        rows = [s.answers[i] for i, _ in by_version]
        codes = [r.submission.codes for _, r in by_version]
        return greedy_gap(survey, rows, codes, chosen, as_tau(tau))

    def _check_acceptance(self, name: str, tau: float, accepted: list) -> dict[str, int]:
        """Definition 1, exactly, for a sample of accepted submissions against the set as it
        was at their acceptance (the log prefix)."""
        s = self.samples[name]
        survey = s.ds.survey
        by_version = sorted(accepted, key=lambda x: x[1].version)
        chosen = set(
            self.rng.choice(
                len(by_version), min(PROTECTION_SAMPLE, len(by_version)), replace=False
            ).tolist()
        )
        prefix = CollectedSet(survey)
        passed = 0
        for k, (i, r) in enumerate(by_version):
            if k in chosen:
                o = s.answers[i]
                passed += bool(protects(o, r.submission.labels, prefix, survey, tau))
            prefix.add_codes(r.submission.codes)
        return {"checked": len(chosen), "protected": passed}

    # ------------------------------------------------------------------ experiments
    def gtr(self) -> dict[str, Any]:
        """GTR on every data set and τ."""
        out: dict[str, Any] = {}
        for name in self.samples:
            out[name] = {}
            for tau in self.plan.taus:
                self.progress(f"GTR {name} τ={tau}")
                out[name][str(tau)] = self.collect(name, tau)
        return out

    def local_recoding(self) -> dict[str, Any]:
        """LRKA (k) and LD (ℓ-diversity with k = ℓ) by local recoding."""
        out: dict[str, Any] = {}
        for name, s in self.samples.items():
            survey = s.ds.survey
            schema = {
                a: {"role": "quasi", "hierarchy": tx.hierarchy}
                for a, tx in zip(survey.quasi, survey.quasi_taxonomies, strict=True)
            }
            schema[survey.sensitive] = {"role": "sensitive"}
            data = s.frame[survey.attributes]
            out[name] = {"lrka": {}, "ld": {}}
            for k in self.plan.lrka_k:
                self.progress(f"LRKA {name} k={k}")
                out[name]["lrka"][str(k)] = self._release_point(name, data, schema, k, None)
            for ell in self.plan.ld_l:
                self.progress(f"LD {name} l={ell}")
                model = {"l_diversity": {"l": ell, "form": "frequency"}}
                out[name]["ld"][str(ell)] = self._release_point(name, data, schema, ell, model)
        return out

    def _release_point(
        self, name: str, data: pd.DataFrame, schema: dict, k: int, models: Any
    ) -> dict[str, Any] | None:
        """The point of one local-recoding release; None when the model is infeasible."""
        try:
            release = local_recoding(data, schema, k=k, models=models)
        except InfeasibleError:
            return None
        s = self.samples[name]
        codes = encode_frame(s.ds.survey, release.tables["data"].reset_index(drop=True))
        return self.generalized_point(name, codes, np.ones(s.n, dtype=bool))

    def perturbation(self) -> dict[str, Any]:
        """MRR (θ) and EPR (k*): achieved privacy, protection and relative accuracy."""
        out: dict[str, Any] = {}
        for name, s in self.samples.items():
            out[name] = {"mrr": {}, "epr": {}}
            base = self.original_accuracy(name)
            for theta in self.plan.theta:
                self.progress(f"MRR {name} θ={theta}")
                out[name]["mrr"][str(theta)] = baselines.mrr_point(
                    s, theta, self.plan, self.rng, base
                )
            for k in self.plan.epr_k:
                self.progress(f"EPR {name} k*={k}")
                out[name]["epr"][str(k)] = baselines.epr_point(s, k, self.plan, self.rng, base)
        return out


def _submit_all(url: str, respondents: pd.DataFrame, clients: int) -> list[SubmitResult]:
    """Submit every respondent (in arrival order, ``clients`` at a time) to the service."""
    rows = respondents.to_dict("records")
    results: list[SubmitResult | None] = [None] * len(rows)
    local = threading.local()
    made: list[CollectionClient] = []

    def one(i: int) -> None:
        if not hasattr(local, "client"):
            local.client = CollectionClient(url, retry_for=120)
            made.append(local.client)
        results[i] = local.client.submit(rows[i], submission_id=f"respondent-{i:08d}")

    try:
        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(one, range(len(rows))))
    finally:
        for c in made:
            c.close()
    return results  # type: ignore[return-value]
