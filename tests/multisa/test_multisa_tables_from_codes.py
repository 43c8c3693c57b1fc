"""The multi-SA tables built from codes (AT, IDT and SAC~ as a release publishes them) against
the tables built before from decoded values and converted by :class:`Release`: the same
release, column types included, and the same files, written within a run's shared codes (the
codes the method remembers for its columns are those of their values)."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_multisa_properties import tables_and_l

import microanon.methods.multisa.release as release_module
from microanon.core.errors import InfeasibleError
from microanon.core.factorize import shared_codes
from microanon.core.table import Table
from microanon.methods.multisa import mixed_model, rating
from microanon.methods.multisa.grouping import Grouping
from microanon.methods.multisa.sids import assign_sids, create_sids
from microanon.models.multisa_check import GROUP_COLUMN


def _old_sid_names(name: str, n_sids: int) -> np.ndarray:
    """The SID names as they were built before."""
    numbers_ = pd.Series(np.arange(1, n_sids + 1)).astype(str).to_numpy(dtype=object)
    return (name + "#" + numbers_).astype(object)


def _old_sids(
    table: Table, name: str, rows: np.ndarray, ell: int, improved: bool, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """One attribute's SID per record (``-1``: none), SID names and IDT rows, from values."""
    codes = table.codes(name)[rows].astype(np.int64)
    values = np.asarray([str(v) for v in table.dictionary(name)], dtype=object)
    uniq, first = np.unique(codes, return_index=True)
    appearance = uniq[np.argsort(first)]
    bucket_of = np.full(table.cardinality(name), -1, dtype=np.int64)
    bucket_of[appearance] = np.arange(len(appearance))
    buckets = bucket_of[codes]
    sizes = np.bincount(buckets, minlength=len(appearance))
    sids = create_sids(sizes, ell, improved=improved)
    names = _old_sid_names(name, sids.n_sids)
    member_codes = appearance[sids.bucket]
    key = np.lexsort((member_codes, sids.sid))
    idt = pd.DataFrame(
        {
            "attribute": np.full(len(key), name, dtype=object),
            "sid": names[sids.sid[key]],
            "value": values[member_codes[key]],
        }
    )
    return assign_sids(buckets, sids, rng), names, idt


def _old_rating_tables(
    table: Table,
    sensitive: list[str],
    rows: np.ndarray,
    ells: dict[str, int],
    *,
    improved: bool,
    allow_suppression: bool,
    rng: np.random.Generator,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """AT and IDT as they were built before: from decoded values, one attribute after the
    other, the records whose value no SID takes left out as the method leaves them out (the
    attribute that leaves the most out first; the refusal's text left out)."""
    public = [c for c in table.columns if c not in sensitive]
    kept = rows
    unplaced = dict.fromkeys(sensitive, 0)
    while True:
        found = [_old_sids(table, n, kept, ells[n], improved, rng) for n in sensitive]
        lost = [int(np.count_nonzero(sid < 0)) for sid, _, _ in found]
        if not any(lost):
            break
        j = int(np.argmax(lost))
        if not allow_suppression:
            raise InfeasibleError("suppressed")
        unplaced[sensitive[j]] += lost[j]
        kept = kept[found[j][0] >= 0]
    at = table.to_frame(public).iloc[kept].reset_index(drop=True)
    for name, (sid, names, _) in zip(sensitive, found, strict=True):
        at[name] = names[sid]
    idt = pd.concat([part for _, _, part in found], ignore_index=True)
    at = at.iloc[rng.permutation(len(at))].reset_index(drop=True)
    return at, idt, unplaced


def _old_sac_table(
    table: Table,
    sensitive: list[str],
    grouping: Grouping,
    clusters: list[list[int]],
    rng: np.random.Generator,
) -> pd.DataFrame:
    """SAC~ as it was built before, from decoded values."""
    groups = grouping.groups
    n_groups, ell = groups.shape
    rows = groups.reshape(-1)
    label = np.repeat(rng.permutation(n_groups) + 1, ell)
    sa = table.to_frame(sensitive)
    permuted = {}
    for cluster in clusters:
        slot = np.argsort(rng.random((n_groups, ell)), axis=1)
        source = np.take_along_axis(groups, slot, axis=1).reshape(-1)
        for j in cluster:
            permuted[sensitive[j]] = sa[sensitive[j]].to_numpy()[source]
    public = [c for c in table.columns if c not in sensitive]
    sac = table.to_frame(public).iloc[rows].reset_index(drop=True)
    sac[GROUP_COLUMN] = label.astype(np.int64)
    for name in sensitive:
        sac[name] = permuted[name]
    order = np.lexsort((rows, label))
    return sac.iloc[order].reset_index(drop=True)


def _old_release(*args, **kwargs):
    """The release converted by :class:`Release` (not kept as built)."""
    return generalized_release(*args, **{**kwargs, "text": False})


generalized_release = release_module.generalized_release


def _old(method, *args, **kwargs):
    """``method``'s release as built before."""
    with mock.patch.multiple(
        release_module,
        _rating_tables=_old_rating_tables,
        _sac_table=_old_sac_table,
        _taken_column=lambda table, c, rows: table.to_frame([c])[c].iloc[rows],
        generalized_release=_old_release,
    ):
        return method(*args, **kwargs)


def _files(directory: Path) -> dict[str, bytes]:
    """The public files of a saved release, the manifest without its time of creation."""
    out = {}
    for path in sorted((directory / "public").iterdir()):
        data = path.read_bytes()
        if path.name == "release.json":
            doc = json.loads(data)
            doc.pop("created", None)
            data = json.dumps(doc, sort_keys=True).encode()
        out[path.name] = data
    return out


def _same_release(method, tmp: Path, *args, **kwargs) -> None:
    """``method`` gives the release it gave before, in memory and in its files (the new one
    written within a run's shared codes)."""
    try:
        old = _old(method, *args, **kwargs)
    except InfeasibleError:
        with pytest.raises(InfeasibleError):
            method(*args, **kwargs)
        return
    with shared_codes():
        new = method(*args, **kwargs)
        assert new.equals(old)
        for name, table in old.tables.items():
            assert list(new.tables[name].dtypes) == list(table.dtypes), name
            for c in table.columns:  # (text is str in both: "1" is not 1)
                types = {type(v) for v in table[c]}
                assert {type(v) for v in new.tables[name][c]} == types, (name, c)
        new.save(tmp / "new")
    old.save(tmp / "old")
    assert _files(tmp / "new") == _files(tmp / "old")


def _schema(df: pd.DataFrame) -> dict[str, str]:
    return {c: ("quasi" if c == "rid" else "sensitive") for c in df.columns}


@settings(max_examples=100, deadline=None)
@given(tables_and_l(), st.sampled_from([None, 0.5, 0.8, 1.0]), st.integers(0, 2**32 - 1))
def test_the_tables_from_codes_are_those_of_the_values(tmp_path_factory, case, conf, seed):
    """On random tables: Rating's (improved and original) and the mixed model's releases."""
    df, ell = case
    tmp = tmp_path_factory.mktemp("release")
    if conf is None:
        improved = bool(seed % 2)
        _same_release(rating, tmp, df, _schema(df), l=ell, improved=improved, rng=seed)
    else:
        _same_release(mixed_model, tmp, df, _schema(df), l=ell, min_confidence=conf, rng=seed)


@pytest.mark.parametrize("method", ["rating", "mixed_model"])
def test_the_tables_from_codes_on_a_real_survey(tmp_path, method):
    """The GSS vocabulary file (carData's GSSvocab, 4,000 records, as the multi-SA properties
    use it) with a numeric quasi-identifier, text ones and an insensitive record number."""
    from real_surveys import survey

    gss = survey("gss_vocab").dropna().head(4000).reset_index(drop=True)
    gss["vocab"] = gss["vocab"].astype(int).astype(str)
    gss["rid"] = np.arange(len(gss))
    schema = {
        "gender": "quasi", "ageGroup": "quasi", "nativeBorn": "quasi",
        "age": {"role": "quasi", "kind": "numeric"},
        "vocab": "sensitive", "educGroup": "sensitive", "rid": "insensitive",
        "year": "identifier", "educ": "identifier",
    }  # fmt: skip
    if method == "rating":
        _same_release(rating, tmp_path, gss, schema, l=3, rng=5)
    else:
        _same_release(mixed_model, tmp_path, gss, schema, l=3, min_confidence=0.5, rng=5)


def test_the_tables_from_codes_on_the_trump_vote_file(tmp_path):
    """TV16 (CCES 2016, 43,142 records): four sensitive columns, two values in the vote; Rating
    at l = 2 and the mixed model at min_confidence 0.6 (SAC~ and AT both published)."""
    from real_surveys import survey

    sensitive = ["votetrump", "ideo", "religimp", "churchatd"]
    data = survey("tv16")[["state", "age", *sensitive]].dropna()
    schema = {"state": "quasi", "age": {"role": "quasi", "kind": "numeric"}}
    schema |= dict.fromkeys(sensitive, "sensitive")
    _same_release(rating, tmp_path / "rating", data, schema, l=2, rng=1)
    _same_release(mixed_model, tmp_path / "mixed", data, schema, l=2, min_confidence=0.6, rng=1)
