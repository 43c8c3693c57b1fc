"""Helpers of the collection-service tests: the survey of papers.md §2.7 as a survey file."""

from __future__ import annotations

from pathlib import Path

import yaml

AGE = {"Any": {"20-29": ["20-24", "25-29"], "30-39": ["30-34", "35-39"]}}
DISEASE = {"AnyD": {"Resp": ["Flu", "Cold"], "Dig": ["Ulcer", "Gastritis"]}}
TOKEN = "test-export-token-0123456789"


def survey_document(storage: str, **extra: object) -> dict:
    """The survey of papers.md §2.7 (τ = 1/2) as a survey-file document."""
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
