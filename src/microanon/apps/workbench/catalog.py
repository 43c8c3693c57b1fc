"""The methods and privacy models the workbench offers, with their parameters in words.

Derived from the tables the configuration reads (:data:`microanon.apps.config.METHODS`,
:data:`microanon.models.config.MODELS`): a method's parameters are its keyword-only arguments
(what a config's ``params:`` may hold), a model's are its fields. Each has ``help``, in words for
a data owner (:data:`METHOD_WORDS`, :data:`PARAM_WORDS`, :data:`PROMISES` where written, else the
docstring's text), and ``details``, the text its docstring gives it (numpydoc) with the reST
markup and the pointers to other documentation removed.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from typing import Any

from ..config import DASK_PARAMS, METHODS, RUN_ARGUMENTS, method_function
from ..io import json_plain

__all__ = ["METHOD_WORDS", "PARAM_WORDS", "PROMISES", "methods", "models"]

#: Arguments a configuration does not set.

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
#: Pointers to documentation a form cannot follow ("see the module docstring" and the like).
_POINTER = re.compile(r"\s*[(;,]?\s*(?:see )?(?:the )?module docstring\)?", re.IGNORECASE)
_SECTION = re.compile(r"\n\s*([A-Z][a-z]+)\n\s*-{3,}\n")


def _plain(text: str) -> str:
    """Docstring text without reST markup, on one line."""
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1], text)
    text = _POINTER.sub("", text).replace("()", "").replace(" .", ".")
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


def _param(
    name: str, default: Any, doc: dict[str, tuple[str, str]], owner: str = ""
) -> dict[str, Any]:
    kind, text = doc.get(name, ("", ""))
    words = PARAM_WORDS.get((owner, name)) or PARAM_WORDS.get(("*", name))
    value = None if default is inspect.Parameter.empty else default
    plain = json_plain(value)
    out = {
        "name": name,
        "type": _type(kind, value),
        "default": plain if isinstance(plain, (int, float, str, bool, list, type(None))) else None,
        "required": default is inspect.Parameter.empty,
        "help": words or text,
        "details": text,
    }
    choices = _choices(kind)
    if choices:
        out["choices"] = choices
    return out


#: Methods that take ``rng`` but draw from it only in some settings (``full_domain``: with its
#: genetic search); the parameter's help says so instead of the method's.
PARTLY_RANDOMIZED = frozenset({"full_domain"})


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
            _param(p.name, p.default, doc, name)
            for p in signature.parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
            and p.name not in RUN_ARGUMENTS
            and p.name not in DASK_PARAMS.get(name, ())
        ]
        takes = signature.parameters.get("models")
        out.append(
            {
                "name": name,
                "label": name.replace("_", " ").capitalize(),
                "family": target.split(".")[2],
                "help": METHOD_WORDS.get(name) or _summary(func.__doc__),
                "details": _summary(func.__doc__),
                "params": params,
                "models": takes is not None,
                "models_required": takes is not None and takes.default is inspect.Parameter.empty,
                "randomized": "rng" in signature.parameters and name not in PARTLY_RANDOMIZED,
            }
        )
    return out


#: What each method does, in words for a data owner (the docstring's summary is the fallback).
METHOD_WORDS: dict[str, str] = {
    "full_domain": "Replaces each quasi-identifier by one level of its hierarchy, the same level "
    "for every record (e.g. every age by its 10-year band), choosing the levels that lose the "
    "least information while the privacy models hold. Records that would still stand out can be "
    "removed, up to the share you allow. The most common choice.",
    "mondrian": "Splits the records into groups of similar people and publishes each group's "
    "range of values (e.g. age 30-39) instead of the values. Keeps more detail than one level "
    "for everybody; no record is removed.",
    "local_recoding": "Forms groups of at least k similar records and generalizes each group "
    "only as much as it needs, so different records may get different levels.",
    "anatomy": "Publishes the quasi-identifiers unchanged in one table and the sensitive values "
    "in another, linked only by a group number: every group holds l different sensitive values.",
    "safepub": "Publishes a random sample of generalized records with a differential-privacy "
    "guarantee (epsilon, delta): the strongest promise, at a cost in detail.",
    "randomized_response": "Replaces values at random with known probabilities, so that nobody's "
    "sensitive value can be guessed with a probability above a bound; analysts can still "
    "estimate the original distribution.",
    "pram": "Changes values of chosen columns at random with known probabilities (PRAM), so "
    "that a published value may not be the person's own.",
    "distribution": "Publishes groups whose sensitive values follow a target distribution, "
    "generalizing or adding fake values where needed; aggregate queries keep guaranteed bounds.",
    "mixed_model": "For several sensitive columns: publishes them so that strong associations "
    "between their values do not give anyone's values away.",
    "rating": "For several sensitive columns: publishes each one in its own table of groups, "
    "every group holding l different values.",
    "sample": "Publishes a random share of the records only, so nobody can be sure a given "
    "person is in the file.",
    "global_recode": "Recodes columns into broader categories or intervals you choose, the same "
    "for every record.",
    "top_bottom_code": "Replaces the extreme values of a numeric column (e.g. incomes above a "
    "threshold) by the threshold, so outliers no longer stand out.",
    "local_suppression": "Blanks out single values (not whole records) of the records that "
    "stand out until every record matches at least k records.",
    "add_noise": "Adds random noise to numeric columns, keeping their means and spread "
    "approximately.",
    "rank_swap": "Swaps each numeric value with another one of close rank, so values stay "
    "realistic but may not be the person's own.",
    "data_swap": "Exchanges the values of categorical columns between pairs of records.",
    "microaggregation": "Forms groups of at least k similar records and replaces their numeric "
    "values by the group's mean.",
}

#: Parameters in words for a data owner: (method, parameter), or ("*", parameter) for any method.
PARAM_WORDS: dict[tuple[str, str], str] = {
    ("full_domain", "suppression"): "Largest share of the records that may be removed "
    "because they would still stand out, from 0 to below 1 (0.05 = 5 %). Removing a few "
    "records often lets the others keep much more detail.",
    ("full_domain", "metric"): "What counts as information lost when comparing levels: lm "
    "(how much each value is generalized; the usual choice), loss (ARX's default measure), "
    "discernibility or aecs (group sizes), precision, entropy.",
    ("full_domain", "suppressed_rows"): "Removed records are left out of the release (remove), "
    "or kept with every quasi-identifier shown as * (star).",
    ("full_domain", "all_minimal"): "Also list every other smallest set of levels that meets "
    "the models (for comparison; slower).",
    ("full_domain", "search"): "How the levels are chosen: exact finds the best levels but "
    "handles at most 2,097,152 combinations of levels; heuristic searches within a time or "
    "step budget and may miss the best (with 12 or more quasi-identifiers it runs the genetic "
    "search, else best-first); best-first walks up from the least generalized levels; genetic "
    "evolves random combinations within the budget (fresh randomness on every run); auto uses "
    "exact when it can.",
    ("full_domain", "time_limit"): "Seconds the heuristic or genetic search may run (30 when "
    "no limit is given); the result then depends on the computer's speed.",
    ("full_domain", "step_limit"): "Most combinations of levels the heuristic or genetic "
    "search checks (the same result on every computer; for the genetic search, with the same "
    "seed).",
    ("mondrian", "relaxed"): "Allow records with the median value on either side of a split "
    "(groups more even in size).",
    ("*", "k"): "Smallest number of records that must look alike (share their published "
    "quasi-identifier values or group).",
    ("*", "l"): "Number of different sensitive values every group must hold.",
    ("sample", "fraction"): "Share of the records published, from above 0 to 1 (0.1 = 10 %).",
    ("add_noise", "noise"): "How much noise: a multiple of each column's standard deviation "
    "(0.1 = a tenth of it).",
    ("rank_swap", "p"): "How far a value may move, as a percent of the records' ranks "
    "(5 = within 5 % of the ranks).",
    ("k_map", "k"): "Smallest number of people of the population every published combination "
    "must match.",
    ("l_diversity", "form"): "distinct: l different values; entropy: l values about equally "
    "frequent (stronger); recursive: the most frequent value is not too frequent (with c).",
    ("t_closeness", "t"): "How far a group's sensitive values may be distributed from the whole "
    "table's, from 0 (identical) to 1 (anything); 0.2 is a common choice.",
    ("t_closeness", "distance"): "How differences between sensitive values are measured: equal "
    "(any two values differ alike), ordered (by their order), hierarchical (by their hierarchy).",
    ("beta_likeness", "beta"): "How much more frequent a sensitive value may be in a group than "
    "in the whole table, relatively (1 = at most twice as frequent).",
    ("beta_likeness", "form"): "basic: bounds each value's gain by beta; enhanced: also keeps "
    "a value that is frequent in the table from filling a whole group.",
    ("delta_disclosure", "delta"): "How far a sensitive value's frequency in a group may be from "
    "its frequency in the table, as a factor e^delta (0.5 = within about 1.65 times).",
    ("data_swap", "rate"): "Share of the records whose value is exchanged (0.05 = 5 %).",
}


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
                name,
            )
            for f in dataclasses.fields(cls)
        ]
        check = _summary(getattr(func, "__doc__", None) or cls.__doc__)
        help_text = PROMISES.get(name, check)
        out.append({"name": name, "help": help_text, "check": check, "params": params})
    return out
