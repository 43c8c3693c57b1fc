"""The methods whose recoding can be fitted on one table and applied to another (private).

An :class:`~microanon.methods.generalize.Anonymizer` fits a method on one table and applies
what it found to the next. Only a method whose result is a *fixed recoding* — a function of
each value that does not depend on the other records — can be applied that way:

* ``full_domain``: the levels the search chose (one per quasi-identifier), with the search's
  suppression rule on each table (:func:`.full_domain.apply_levels`);
* ``global_recode``: the hierarchy levels, category maps or interval breaks it was given;
* ``top_bottom_code``: the thresholds (quantiles become the values they had on the fitted table)
  and a replacement that is the threshold, a number or a label.

Every other method builds its output from the records of each table — Mondrian's and local
recoding's groups, Anatomy's buckets, microaggregation's groups, the random draws of noise,
swapping, sampling and SafePub, the cells local suppression chooses — and :data:`NOT_REUSABLE`
says so in the error.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ...core.errors import InputError
from ...core.keys import shown
from ...core.release import Release
from ...core.schema import Schema
from ...models import PrivacyModel
from ..release import SUPPRESSED_ROWS
from ..sdc import global_recode, top_bottom_code
from ._search import check_metric, check_suppression
from .full_domain import apply_levels, full_domain
from .searches import check_search

__all__ = ["NOT_REUSABLE", "RECODINGS", "Recoding"]

#: Methods without a fixed recoding, and why.
NOT_REUSABLE = {
    "mondrian": "its ranges are cut from each table's own records",
    "local_recoding": "its cells are generalized class by class on each table's own records",
    "anatomy": "its buckets are formed from each table's own records",
    "safepub": "it samples each table at random",
    "local_suppression": "the cells it suppresses depend on each table's own combinations",
    "microaggregation": "its groups are formed from each table's own records",
    "add_noise": "it draws fresh noise for each table",
    "rank_swap": "it swaps each table's own records",
    "data_swap": "it swaps each table's own records",
    "sample": "it samples each table at random",
}


class Recoding(ABC):
    """One reusable method: its parameters, how it is fitted and how it is applied.

    Attributes
    ----------
    name : str
    defaults : dict
        The parameters it accepts, with their defaults.
    needs_models : bool
        Whether models are required (otherwise they are optional and only checked).
    """

    name: str = ""
    defaults: dict[str, Any] = {}
    needs_models: bool = False

    def check(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters, defaults filled in, checked as far as they can be without data.

        Raises
        ------
        InputError
            An unknown parameter (naming the accepted ones) or a bad value.
        """
        unknown = sorted(set(map(str, params)) - set(self.defaults))
        if unknown:
            raise InputError(
                f"{self.name}: unknown parameter(s) {', '.join(unknown)}; it takes "
                + ", ".join(self.defaults)
            )
        return {**self.defaults, **params}

    @abstractmethod
    def fit(
        self,
        data: pd.DataFrame,
        schema: Schema,
        models: list[PrivacyModel],
        params: Mapping[str, Any],
    ) -> tuple[dict[str, Any], Release]:
        """Run the method on ``data``: what it fixed (JSON types) and its release."""

    @abstractmethod
    def apply(
        self,
        data: pd.DataFrame,
        schema: Schema,
        models: list[PrivacyModel],
        params: Mapping[str, Any],
        fitted: Mapping[str, Any],
    ) -> Release:
        """Apply the fitted recoding to ``data``."""

    def check_fitted(self, fitted: Any, schema: Schema) -> dict[str, Any]:
        """Validate what :meth:`fit` fixed, as read back from a file."""
        if not isinstance(fitted, Mapping):
            raise InputError(f"{self.name}: the fitted recoding must be a mapping, got {fitted!r}")
        return dict(fitted)

    def keeps_rows(self, params: Mapping[str, Any]) -> bool:
        """Whether every input row is published, in order."""
        return True


class FullDomain(Recoding):
    """Optimal full-domain generalization: the levels are fitted, suppression is per table."""

    name = "full_domain"
    defaults = {
        "suppression": 0.0,
        "metric": "lm",
        "suppressed_rows": "remove",
        "search": "auto",
        "time_limit": None,
        "step_limit": None,
    }
    needs_models = True
    #: The parameters of the search only: the fit uses them, applying the levels does not.
    search_params = ("search", "time_limit", "step_limit")

    def check(self, params: Mapping[str, Any]) -> dict[str, Any]:
        out = super().check(params)
        choice = check_search(out["search"], out["time_limit"], out["step_limit"])
        out.update(search=choice.search, time_limit=choice.time_limit, step_limit=choice.step_limit)
        out["suppression"] = check_suppression(out["suppression"])
        out["metric"] = check_metric(out["metric"])
        if out["suppressed_rows"] not in SUPPRESSED_ROWS:
            raise InputError(
                f"suppressed_rows must be one of {', '.join(SUPPRESSED_ROWS)}, got "
                f"{out['suppressed_rows']!r}"
            )
        return out

    def fit(
        self,
        data: pd.DataFrame,
        schema: Schema,
        models: list[PrivacyModel],
        params: Mapping[str, Any],
    ) -> tuple[dict[str, Any], Release]:
        release = full_domain(data, schema, models=models, **params)
        return {"levels": dict(release.metadata["levels"])}, release

    def apply(
        self,
        data: pd.DataFrame,
        schema: Schema,
        models: list[PrivacyModel],
        params: Mapping[str, Any],
        fitted: Mapping[str, Any],
    ) -> Release:
        kept = {k: v for k, v in params.items() if k not in self.search_params}
        return apply_levels(data, schema, models=models, levels=fitted["levels"], **kept)

    def check_fitted(self, fitted: Any, schema: Schema) -> dict[str, Any]:
        out = super().check_fitted(fitted, schema)
        levels = out.get("levels")
        if set(out) != {"levels"} or not isinstance(levels, Mapping):
            raise InputError("full_domain: the fitted recoding must be {'levels': {column: level}}")
        if sorted(levels) != sorted(schema.quasi):
            raise InputError(
                f"full_domain: the fitted levels name {', '.join(map(str, levels)) or 'nothing'}, "
                f"the quasi-identifiers are {', '.join(schema.quasi)}"
            )
        for q, lv in levels.items():
            height = schema.hierarchy(q).height
            if isinstance(lv, bool) or not isinstance(lv, int) or not 0 <= lv <= height:
                raise InputError(f"full_domain: level {shown(lv)} of {q!r} is outside 0..{height}")
        return {"levels": {q: int(levels[q]) for q in schema.quasi}}

    def keeps_rows(self, params: Mapping[str, Any]) -> bool:
        return params["suppressed_rows"] == "star"


class GlobalRecode(Recoding):
    """Global recoding: the levels, maps and breaks given are the recoding itself."""

    name = "global_recode"
    defaults = {"levels": None, "maps": None, "columns": None}

    def check(self, params: Mapping[str, Any]) -> dict[str, Any]:
        out = super().check(params)
        if out["levels"] is None and out["maps"] is None:
            raise InputError("global_recode needs maps or levels (or both)")
        return out

    def fit(
        self,
        data: pd.DataFrame,
        schema: Schema,
        models: list[PrivacyModel],
        params: Mapping[str, Any],
    ) -> tuple[dict[str, Any], Release]:
        return {}, global_recode(data, schema, **params)

    def apply(
        self,
        data: pd.DataFrame,
        schema: Schema,
        models: list[PrivacyModel],
        params: Mapping[str, Any],
        fitted: Mapping[str, Any],
    ) -> Release:
        return global_recode(data, schema, **params)


class TopBottom(Recoding):
    """Top and bottom coding: quantile thresholds are fixed to their values on the fitted table."""

    name = "top_bottom_code"
    defaults = {
        "column": None,
        "top": None,
        "bottom": None,
        "quantiles": False,
        "replacement": "threshold",
    }

    def check(self, params: Mapping[str, Any]) -> dict[str, Any]:
        out = super().check(params)
        rep = out["replacement"]
        sides = rep.values() if isinstance(rep, Mapping) else [rep]
        if any(isinstance(r, str) and r == "mean" for r in sides):
            raise InputError(
                "top_bottom_code: replacement 'mean' is the mean of each table's own coded "
                "values, not a fixed recoding; give 'threshold', a number or a label"
            )
        return out

    def fit(
        self,
        data: pd.DataFrame,
        schema: Schema,
        models: list[PrivacyModel],
        params: Mapping[str, Any],
    ) -> tuple[dict[str, Any], Release]:
        release = top_bottom_code(data, schema, **params)
        return {"thresholds": dict(release.metadata["thresholds"])}, release

    def apply(
        self,
        data: pd.DataFrame,
        schema: Schema,
        models: list[PrivacyModel],
        params: Mapping[str, Any],
        fitted: Mapping[str, Any],
    ) -> Release:
        thresholds = fitted["thresholds"]
        return top_bottom_code(
            data,
            schema,
            column=params["column"],
            top=thresholds.get("top"),
            bottom=thresholds.get("bottom"),
            replacement=params["replacement"],
        )

    def check_fitted(self, fitted: Any, schema: Schema) -> dict[str, Any]:
        out = super().check_fitted(fitted, schema)
        thresholds = out.get("thresholds")
        if (
            set(out) != {"thresholds"}
            or not isinstance(thresholds, Mapping)
            or not thresholds
            or not set(thresholds) <= {"top", "bottom"}
            or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in thresholds.values()
            )
        ):
            raise InputError(
                "top_bottom_code: the fitted recoding must be {'thresholds': {'top': number, "
                "'bottom': number}} (one side or both)"
            )
        return {"thresholds": dict(thresholds)}


#: The reusable methods by name.
RECODINGS: dict[str, Recoding] = {r.name: r for r in (FullDomain(), GlobalRecode(), TopBottom())}
