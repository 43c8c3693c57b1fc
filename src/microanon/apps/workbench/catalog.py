"""The methods and privacy models the workbench offers, with their parameters in words.

Derived from the tables the configuration reads (:data:`microanon.apps.config.METHODS`,
:data:`microanon.models.config.MODELS`): a method's parameters are its keyword-only arguments
(what a config's ``params:`` may hold), a model's are its fields; the help of each is the text
its docstring gives it (numpydoc), with the reST markup removed.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from typing import Any

from ..config import DASK_PARAMS, METHODS, method_function
from ..io import json_plain

__all__ = ["PROMISES", "methods", "models"]

#: Arguments a configuration does not set.
_NOT_PARAMS = ("models", "rng", "progress")

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_SECTION = re.compile(r"\n\s*([A-Z][a-z]+)\n\s*-{3,}\n")


def _plain(text: str) -> str:
    """Docstring text without reST markup, on one line."""
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1], text)
    return " ".join(text.replace("``", "").split())


def _summary(doc: str | None) -> str:
    """The docstring's first paragraph."""
    return _plain((doc or "").strip().split("\n\n", 1)[0])


def _parameters(doc: str | None) -> dict[str, tuple[str, str]]:
    """The docstring's ``Parameters`` section: name -> (type, description)."""
    doc = inspect.cleandoc(doc or "")
    parts = _SECTION.split("\n" + doc)
    out: dict[str, tuple[str, str]] = {}
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        if title != "Parameters":
            continue
        name, kind, lines = None, "", []
        for line in body.splitlines() + [""]:
            head = re.match(r"^(\w+(?:, \w+)*)\s*(?::\s*(.*))?$", line)
            if head and not line.startswith(" "):
                if name is not None:
                    for n in name.split(", "):
                        out[n] = (kind, _plain(" ".join(lines)))
                name, kind, lines = head.group(1), head.group(2) or "", []
            elif name is not None:
                lines.append(line)
        if name is not None:
            for n in name.split(", "):
                out[n] = (kind, _plain(" ".join(lines)))
    return out


def _choices(kind: str) -> list[str] | None:
    match = re.match(r"^\{(.*)\}", kind)
    if not match:
        return None
    return [c.strip().strip("\"'") for c in match.group(1).split(",")]


def _type(kind: str, default: Any) -> str:
    """A short type name for a form: int, float, bool, str, list or any."""
    text = kind.split(",")[0].strip().lower()
    for name, words in (("bool", ("bool",)), ("int", ("int",)), ("float", ("float",))):
        if text.startswith(words):
            return name
    if _choices(kind):
        return "str"
    if isinstance(default, bool):
        return "bool"
    for name, cls in (("int", int), ("float", float), ("str", str), ("list", (list, tuple))):
        if isinstance(default, cls):
            return name
    return "str" if text.startswith("str") else "any"


def _param(name: str, default: Any, doc: dict[str, tuple[str, str]]) -> dict[str, Any]:
    kind, text = doc.get(name, ("", ""))
    value = None if default is inspect.Parameter.empty else default
    plain = json_plain(value)
    out = {
        "name": name,
        "type": _type(kind, value),
        "default": plain if isinstance(plain, (int, float, str, bool, list, type(None))) else None,
        "required": default is inspect.Parameter.empty,
        "help": text,
    }
    choices = _choices(kind)
    if choices:
        out["choices"] = choices
    return out


@functools.cache
def methods() -> list[dict[str, Any]]:
    """Every method of a configuration: name, label, family, parameters, whether it takes
    models and, separately, whether it must be given some, and whether it draws randomness (its
    releases then differ from run to run)."""
    out = []
    for name, target in METHODS.items():
        func = method_function(name)
        signature = inspect.signature(func)
        doc = _parameters(func.__doc__)
        params = [
            _param(p.name, p.default, doc)
            for p in signature.parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
            and p.name not in _NOT_PARAMS
            and p.name not in DASK_PARAMS.get(name, ())
        ]
        takes = signature.parameters.get("models")
        out.append(
            {
                "name": name,
                "label": name.replace("_", " ").capitalize(),
                "family": target.split(".")[2],
                "help": _summary(func.__doc__),
                "params": params,
                "models": takes is not None,
                "models_required": takes is not None and takes.default is inspect.Parameter.empty,
                "randomized": "rng" in signature.parameters,
            }
        )
    return out


#: What each model promises, in words for a data owner (the docstrings say how it is checked).
PROMISES: dict[str, str] = {
    "k_anonymity": "Every combination of quasi-identifier values that is published is shared by "
    "at least k records, so nobody can be singled out among fewer than k.",
    "l_diversity": "Within every group of records that look alike, the sensitive column holds "
    "at least l well-represented values, so knowing someone's group does not reveal theirs.",
    "t_closeness": "In every group, the sensitive values are distributed almost as in the whole "
    "table (at distance at most t), so a group reveals little more than the table does.",
    "p_privacy": "Each published group's sensitive values follow the group's target "
    "distribution (the distribution method's model; no parameter).",
    "beta_likeness": "In every group, no sensitive value is more frequent than in the whole "
    "table by more than a relative beta (beta = 1: at most twice as frequent).",
    "delta_disclosure": "In every group, every sensitive value's frequency stays within a "
    "factor e^delta of its frequency in the whole table.",
    "delta_presence": "Whether a person of a public population is in the data can be guessed "
    "with a probability between delta_min and delta_max only (needs the population).",
    "k_map": "Every published combination matches at least k people of the population (given, "
    "or estimated), not just k records of the sample.",
}


@functools.cache
def models() -> list[dict[str, Any]]:
    """Every privacy model of a configuration: name, help and parameters."""
    from ... import models as package
    from ...models.config import MODELS

    out = []
    for name, cls in MODELS.items():
        func = getattr(package, name, None)
        doc = _parameters(getattr(func, "__doc__", None)) | _parameters(cls.__doc__)
        params = [
            _param(
                f.name,
                inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default,
                doc,
            )
            for f in dataclasses.fields(cls)
        ]
        check = _summary(getattr(func, "__doc__", None) or cls.__doc__)
        help_text = PROMISES.get(name, check)
        out.append({"name": name, "help": help_text, "check": check, "params": params})
    return out
