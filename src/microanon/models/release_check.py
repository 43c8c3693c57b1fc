"""Independent verification of a release: re-check the models it claims on what it publishes."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from microanon.core.errors import InputError
from microanon.core.release import Release

from .base import PrivacyModel
from .config import as_models
from .frequencies import Frequencies, check_frequencies, frequencies_of
from .multisa_check import multisa_verdicts
from .p_privacy import distribution_verdicts
from .population import population_from_record
from .verdict import Verdict

__all__ = ["CHECKED_KINDS", "ONE_TABLE_KINDS", "check_release", "published_groups_frame"]

#: Column that holds the group id of an anatomized release's expanded sensitive table.
GROUP = "group"

#: Release kinds whose one published table is checked on its frequency table.
ONE_TABLE_KINDS = ("generalized", "masked", "randomized")
#: Release kinds checked whatever models they claim: a distribution release for P-privacy, one
#: of several sensitive attributes for the ℓ-diversity of its groups and SIDs.
CHECKED_KINDS = ("distribution", "multi-sa")


def published_groups_frame(release: Release) -> tuple[pd.DataFrame, list[str], str | None]:
    """The table an attacker links against, its quasi-identifier columns and sensitive column.

    Single-table releases: the published table as written. Records published with every
    quasi-identifier ``"*"`` (suppressed records kept in star mode) form one equivalence class
    like any other: an attacker sees them together, so they must meet the models too.
    Anatomized releases: the sensitive table expanded to one row per record, the group id being
    the only quasi-identifier (the QIT reveals exact QI values, so a record's group is known).
    """
    meta = release.metadata
    quasi = list(meta.get("quasi") or [])
    sensitive = (meta.get("sensitive") or [None])[0]
    if release.kind == "anatomized":
        st = release.tables["st"]
        if sensitive is None or sensitive not in st.columns:
            raise InputError("anatomized release: its st table lacks the sensitive column")
        counts = st["count"].to_numpy(dtype=np.int64)
        expanded = pd.DataFrame(
            {
                GROUP: np.repeat(st[GROUP].to_numpy(), counts),
                sensitive: np.repeat(st[sensitive].to_numpy(), counts),
            }
        )
        return expanded, [GROUP], sensitive
    if not quasi:
        raise InputError("the release metadata names no quasi-identifiers")
    return release.data, quasi, sensitive


def check_release(
    release: Release,
    models: Sequence[PrivacyModel] | Any = None,
    linkable: Sequence[str] = (),
    codes: Mapping[Hashable, tuple[np.ndarray, pd.Index]] | None = None,
    frequencies: Frequencies | None = None,
) -> list[Verdict]:
    """Check the privacy models of a release on its published tables.

    A release of one table (generalized, masked, randomized) is checked on the frequency table
    of its checked columns, built in one pass over its rows (:func:`~.frequencies.
    frequencies_of`): the same classes, counts and numbers as on the rows themselves.

    Parameters
    ----------
    release : Release
    models : model specification, optional
        Default: the models the release claims (``metadata["models"]``); δ-presence and k-map
        against a population are then checked with the population counts of the published
        classes that the release keeps internally (``metadata["populations"]``). A
        distribution release is always checked for P-privacy, and its other models on its groups
        (see :func:`microanon.models.p_privacy.distribution_verdicts`); a release of several
        sensitive attributes for the ℓ-diversity of its groups and SIDs, whatever it claims
        (:func:`microanon.models.multisa_check.multisa_verdicts`).
    linkable : sequence of str
        Published columns an attacker can link besides the declared quasi-identifiers, counted
        as quasi-identifiers by every model except those checked against a population: a
        population table holds the declared quasi-identifiers only, so nobody can count its
        people by another column.
    codes : mapping, optional
        :func:`~.frequencies.column_codes` of columns of the published table, already computed.
    frequencies : Frequencies, optional
        The frequency table of the published table on the checked columns (or more), already
        computed from its rows; grouped here otherwise (or when it lacks a checked column).

    Returns
    -------
    list of Verdict
        One per model, in order.
    """
    spec = models if models is not None else release.metadata.get("models")
    if release.kind == "distribution":  # P-privacy always; see p_privacy.distribution_verdicts
        return distribution_verdicts(release, as_models(spec) if spec else [])
    if release.kind == "multi-sa":  # the groups' and SIDs' ℓ-diversity, always
        return multisa_verdicts(release)
    if not spec:
        raise InputError("the release claims no privacy model; pass models= to check")
    table, quasi, sensitive = published_groups_frame(release)
    if len(table) == 0:
        raise InputError("the release publishes no unsuppressed record")
    resolved = as_models(spec)
    if models is None:
        resolved = _with_populations(release, resolved)
    linked = quasi + [c for c in linkable if c in table.columns and c not in quasi]
    needs = sensitive if any(m.needs_sensitive for m in resolved) else None
    checked = linked + ([needs] if needs is not None else [])
    if release.kind in ONE_TABLE_KINDS and all(c in table.columns for c in checked):
        if frequencies is None or not set(checked) <= set(frequencies.combinations.columns):
            frequencies = frequencies_of(table, checked, codes)
        return check_frequencies(frequencies, resolved, linked, quasi, sensitive)
    # several tables, or a column the table lacks (refused below as each model refuses it)
    return [
        m.check(
            table,
            quasi if m.needs_population else linked,
            sensitive if m.needs_sensitive else None,
        )
        for m in resolved
    ]


def _with_populations(release: Release, models: list[PrivacyModel]) -> list[PrivacyModel]:
    """The claimed models, those checked against a population given the release's own record.

    A release claiming δ-presence or k-map keeps, in its internal metadata (``populations``, one
    entry per claimed model), the people of the population in each published class; the public
    configuration of the model names its thresholds only.
    """
    records = release.metadata.get("populations") or [None] * len(models)
    if len(records) != len(models):
        raise InputError("populations: the release keeps one entry per claimed model")
    out = []
    for model, record in zip(models, records, strict=True):
        if model.needs_population:
            if record is None:
                where = "" if release.has_internal else " (its internal part is not loaded)"
                raise InputError(
                    f"{model.name}: the release holds no population to check it against{where}; "
                    "pass the model with its population in models="
                )
            model = model.with_population(*population_from_record(record))
        out.append(model)
    return out
