"""Helpers of the collection-service tests: our constructed GTR survey as a survey file."""

from __future__ import annotations

from pathlib import Path

import yaml

AGE = {"Any": {"20-29": ["20-24", "25-29"], "30-39": ["30-34", "35-39"]}}
DISEASE = {"AnyD": {"Resp": ["Flu", "Cold"], "Dig": ["Ulcer", "Gastritis"]}}
TOKEN = "test-export-token-0123456789"


def survey_document(storage: str, **extra: object) -> dict:
    """The constructed GTR survey (age, disease; τ = 1/2) as a survey-file document."""
    return {
        "schema": {
            "age": {"role": "quasi", "hierarchy": {"builder": "nested", "tree": AGE}},
            "disease": {"role": "sensitive", "hierarchy": {"builder": "nested", "tree": DISEASE}},
        },
        "tau": 0.5,
        "storage": storage,
        "export_token": TOKEN,
        **extra,
    }


def write_survey(directory: Path, storage: str = "collected.sqlite", **extra: object) -> Path:
    path = directory / "survey.yaml"
    path.write_text(yaml.safe_dump(survey_document(storage, **extra)), encoding="utf-8")
    return path


# ------------------------------------------------------------------------ load
def _tree(prefix: str, fanouts: tuple[int, ...]) -> dict:
    """A balanced taxonomy: root '<prefix>*', then levels of the given fan-outs."""

    def grow(label: str, rest: tuple[int, ...]) -> dict | list:
        if len(rest) == 1:
            return [f"{label}.{i}" for i in range(rest[0])]
        return {f"{label}.{i}": grow(f"{label}.{i}", rest[1:]) for i in range(rest[0])}

    return {f"{prefix}*": grow(prefix, fanouts)}


LOAD_FANOUTS = {"age": (3, 3), "region": (2, 3), "job": (3, 2), "illness": (2, 2, 2)}


def load_survey_document(storage: str, tau: float = 0.5) -> dict:
    """Three quasi-identifiers and an 8-valued sensitive attribute, for load tests."""
    schema = {
        name: {
            "role": "sensitive" if name == "illness" else "quasi",
            "hierarchy": {"builder": "nested", "tree": _tree(name, fan)},
        }
        for name, fan in LOAD_FANOUTS.items()
    }
    return {"schema": schema, "tau": tau, "storage": storage, "export_token": TOKEN}


def load_respondents(n: int, seed: int) -> list[dict[str, str]]:
    """``n`` base tuples from a skewed distribution (some cells crowded, some rare)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        row = {}
        for name, fan in LOAD_FANOUTS.items():
            digits = [int(min(rng.geometric(0.55) - 1, f - 1)) for f in fan]
            row[name] = name + "".join(f".{d}" for d in digits)
        out.append(row)
    return out
