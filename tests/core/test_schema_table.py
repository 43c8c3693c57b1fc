from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from microanon import Hierarchy, HierarchyError, InputError, Schema, SchemaError, Table
from microanon.core import SchemaInferenceWarning
from microanon.core.number_text import numbers_with_marker


def small_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "name": ["ann", "bob", "cy", "di", "ed", "flo"],
            "age": [23, 27, 35, 38, 52, 59],
            "zip": ["13053", "13068", "13053", "14850", "14853", "14850"],
            "disease": ["flu", "cold", "flu", "cancer", "flu", "cold"],
        },
        index=[10, 11, 12, 13, 14, 15],
    )


SCHEMA = {
    "name": "identifier",
    "age": {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [10, 20]},
    },
    "zip": {"role": "quasi", "hierarchy": {"builder": "masking"}},
    "disease": {"role": "sensitive"},
}


def test_schema_roles_and_table_encoding():
    schema = Schema.from_dict(SCHEMA)
    assert schema.quasi == ["age", "zip"] and schema.sensitive == ["disease"]
    assert schema.identifiers == ["name"]
    t = Table.from_frame(small_frame(), schema)
    assert t.columns == ["age", "zip", "disease"]  # identifiers are dropped
    assert list(t.index) == [10, 11, 12, 13, 14, 15]
    assert t.to_frame().equals(small_frame().drop(columns="name"))


def test_frequencies_and_recoding():
    t = Table.from_frame(small_frame(), Schema.from_dict(SCHEMA))
    f = t.frequencies(["zip"])
    assert dict(zip(f.to_frame()["zip"], f.to_frame()["count"], strict=False)) == {
        "13053": 2,
        "13068": 1,
        "14850": 2,
        "14853": 1,
    }
    g = t.recode({"age": 1, "zip": 2})
    out = g.to_frame()
    assert list(out["age"]) == [
        "[20, 30)",
        "[20, 30)",
        "[30, 40)",
        "[30, 40)",
        "[50, 60)",
        "[50, 60)",
    ]
    assert list(out["zip"]) == ["130**", "130**", "130**", "148**", "148**", "148**"]
    assert g.levels == {"age": 1, "zip": 2, "disease": 0}
    assert g.frequencies(["age", "zip"]).counts.tolist() == [2, 1, 1, 2]
    assert t.recode([3, 6]).frequencies(["age", "zip"]).counts.tolist() == [6]
    with pytest.raises(InputError, match="already generalized"):
        g.recode({"age": 2})


@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from("abc"), st.integers(0, 40)),
        min_size=1,
        max_size=60,
    )
)
@settings(max_examples=60, deadline=None)
def test_frequencies_match_pandas_groupby(rows):
    df = pd.DataFrame(rows, columns=["a", "b", "c"])
    t = Table.from_frame(
        df, {"a": "quasi", "b": "quasi", "c": {"role": "quasi", "kind": "numeric"}}
    )
    f = t.frequencies().to_frame()
    ref = df.groupby(["a", "b", "c"]).size().reset_index(name="count")
    got = f.astype({"a": int, "c": int}).sort_values(["a", "b", "c"]).reset_index(drop=True)
    assert got[["a", "b", "c", "count"]].astype(str).equals(ref.astype(str))
    freq = t.frequencies()
    assert np.array_equal(np.bincount(freq.inverse), freq.counts)


def test_yaml_schema_with_relative_hierarchy_file(tmp_path, reference_data):
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "sex.csv").write_text(
        (reference_data / "arx-adult" / "adult_hierarchy_sex.csv").read_text()
    )
    (tmp_path / "s.yaml").write_text(
        "schema:\n  sex: {role: quasi, hierarchy: h/sex.csv}\n  income: {role: sensitive}\n"
    )
    s = Schema.from_yaml(tmp_path / "s.yaml")
    assert s.hierarchy("sex").n_leaves == 2
    assert Schema.from_dict(s.to_dict()) == s


def test_inference_warns_for_every_guess():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = Schema.infer(small_frame(), quasi=["age", "zip"], sensitive=["disease"])
    msgs = [str(w.message) for w in caught if issubclass(w.category, SchemaInferenceWarning)]
    assert any("'name': no role given" in m for m in msgs)
    assert any("'age': kind inferred as 'numeric'" in m for m in msgs)
    assert s["age"].kind.value == "numeric"


# ---------------------------------------------------------------- bad input
def test_empty_table():
    with pytest.raises(InputError, match="empty"):
        Table.from_frame(small_frame().iloc[:0], Schema.from_dict(SCHEMA))


def test_missing_column_is_named():
    with pytest.raises(InputError, match="'salary' not found"):
        Table.from_frame(small_frame(), {"salary": "quasi"})


def test_missing_values_in_quasi_identifier():
    df = small_frame()
    df.loc[11, "zip"] = None
    df.loc[12, "zip"] = None
    # the policies offered are those a quasi-identifier takes (keep is refused for one)
    with pytest.raises(
        InputError, match=r"missing: error\) in column\(s\) 'zip' \(2: missing: value or drop\)"
    ):
        Table.from_frame(df, {"zip": {"role": "quasi", "missing": "error"}})
    df["income"] = [float(i) for i in range(len(df))]
    df.loc[3, "income"] = None
    with pytest.raises(InputError, match=r"'income' \(1: missing: keep or drop\)"):
        Table.from_frame(
            df,
            {
                "zip": "quasi",
                "income": {"role": "insensitive", "kind": "numeric", "missing": "error"},
            },
        )
    assert len(Table.from_frame(df, {"zip": {"role": "quasi", "missing": "drop"}})) == 4
    for schema in ({"zip": "quasi"}, {"zip": {"role": "quasi", "missing": "category"}}):
        kept = Table.from_frame(df, schema)  # the default, and the policy's former name
        assert "?" in set(kept.values("zip")) and len(kept) == len(df)


def test_every_refused_column_is_named_at_once():
    df = small_frame()
    df.loc[11, "zip"] = None
    df.loc[[12, 13, 14], "disease"] = None
    schema = {
        "zip": {"role": "quasi", "missing": "error"},
        "disease": {"role": "sensitive", "missing": "error"},
    }
    with pytest.raises(
        InputError,
        match=r"'zip' \(1: missing: value or drop\), 'disease' \(3: missing: value, keep or drop\)",
    ):
        Table.from_frame(df, schema)


def test_kept_missing_values_are_an_unknown_code():
    df = small_frame()
    df.loc[[11, 12], "disease"] = None
    df.loc[13, "age"] = None
    table = Table.from_frame(
        df, {"disease": "sensitive", "age": {"role": "insensitive", "kind": "numeric"}}
    )
    assert table.dictionary("disease")[-1] is None and len(table) == len(df)
    out = table.to_frame()
    assert out["disease"].isna().sum() == 2 and out["age"].isna().sum() == 1
    with pytest.raises(SchemaError, match="missing: keep is for sensitive and insensitive"):
        Table.from_frame(df, {"age": {"role": "quasi", "kind": "numeric", "missing": "keep"}})


def test_numeric_quasi_identifier_missing_value_is_a_leaf():
    df = small_frame()
    df.loc[[14, 15], "age"] = None
    spec = {
        "role": "quasi",
        "kind": "numeric",
        "hierarchy": {"builder": "intervals", "widths": [10]},
    }
    table = Table.from_frame(df, {"age": spec})
    h = table.schema["age"].hierarchy
    assert h.leaves[-1] == "?" and [h.generalize("?", lv)[0] for lv in range(h.height + 1)] == [
        "?",
        "?",
        "*",
    ]
    assert list(table.to_frame()["age"]).count("?") == 2
    with pytest.raises(InputError, match="column .age. has 2 missing value.*without a hierarchy"):
        Table.from_frame(df, {"age": {"role": "quasi", "kind": "numeric"}})


def test_value_absent_from_hierarchy():
    h = Hierarchy.from_nested({"*": {"resp": ["flu", "cold"], "other": ["cancer"]}})
    df = small_frame()
    df.loc[10, "disease"] = "measles"
    with pytest.raises(HierarchyError, match="column 'disease'.*'measles'"):
        Table.from_frame(df, {"disease": {"role": "sensitive", "hierarchy": h}})


def test_non_numeric_values_in_numeric_column():
    df = small_frame().astype({"age": object})
    df.loc[13, "age"] = "old"
    with pytest.raises(InputError, match="column 'age' is numeric.*'old'"):
        Table.from_frame(df, {"age": {"role": "quasi", "kind": "numeric"}})


def test_duplicate_column_names():
    df = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(InputError, match="duplicate column names: a"):
        Table.from_frame(df, {"a": "quasi"})


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"a": {"role": "secret"}}, "unknown role"),
        ({"a": {"role": "quasi", "kind": "weird"}}, "unknown kind"),
        ({"a": {"kind": "numeric"}}, "no role"),
        ({"a": {"role": "quasi", "hierarchy": {"builder": "nope"}}}, "unknown hierarchy builder"),
        ({"a": {"role": "quasi", "hierarchy": "no/such/file.csv"}}, "does not exist"),
        ({"a": {"role": "ordinal"}}, "unknown role"),
        ({"a": {"role": "quasi", "kind": "ordinal"}}, "needs an 'order'"),
        ({}, "non-empty"),
    ],
)
def test_bad_schemas(spec, message):
    with pytest.raises((SchemaError, HierarchyError), match=message):
        Schema.from_dict(spec)


def test_not_a_dataframe():
    with pytest.raises(InputError, match="expected a pandas DataFrame"):
        Table.from_frame([[1, 2]], {"a": "quasi"})  # type: ignore[arg-type]


@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]", "object"])
def test_text_columns_encode_alike_whatever_their_storage(dtype):
    # Arrow-backed strings are looked up in the string leaves by pyarrow; values that match
    # only by key (spaces, a number written as text) and values outside the hierarchy take the
    # key lookup, as object columns do.
    h = Hierarchy.from_levels([["a", "*"], [" b", "*"], [25, "*"]], name="q")
    schema = Schema.from_dict({"q": {"role": "quasi", "hierarchy": h}})
    exact = pd.DataFrame({"q": pd.Series(["a", " b", "a"], dtype=dtype)})
    by_key = pd.DataFrame({"q": pd.Series(["b ", "25", "a"], dtype=dtype)})
    assert Table.from_frame(exact, schema).codes("q").tolist() == [0, 1, 0]
    assert Table.from_frame(by_key, schema).codes("q").tolist() == [1, 2, 0]
    text = Schema.from_dict(
        {"q": {"role": "quasi", "hierarchy": {"paths": [["*", "x"], ["*", "a"]]}}}
    )
    assert Table.from_frame(exact.iloc[[0, 2]], text).codes("q").tolist() == [1, 1]
    absent = pd.DataFrame({"q": pd.Series(["a", "c", "d"], dtype=dtype)})
    with pytest.raises(
        HierarchyError, match=r"^column 'q': 2 value\(s\) not in its hierarchy: 'c', 'd'$"
    ):
        Table.from_frame(absent, schema)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.one_of(st.integers(0, 60), st.none()), min_size=2, max_size=40),
    st.lists(st.sampled_from(["a", "b", "c", None]), min_size=40, max_size=40),
    st.booleans(),
    st.booleans(),
)
def test_a_validated_table_validates_and_encodes_as_the_original(ages, cities, halves, whole):
    """The reports take the table as the method received it (missing values already the value
    ?) and encode it again: its second validation changes nothing, its interval hierarchy is
    built from the same numbers, its codes are the original's; the numbers decode in their
    column's type: a column of whole numbers (pandas' nullable integers, as a file of ``52``
    and empty fields is read) as ``52``, a decimal column as ``52.0`` (it had been ``52``)."""
    if all(a is None for a in ages):
        ages[0] = 30
    whole = whole and not halves
    values = [a + 0.5 if halves and a is not None else a for a in ages]
    cities = cities[: len(ages)]
    if all(c is None for c in cities):  # a hierarchy is built from at least one value
        cities[0] = "a"
    age = pd.array(values, dtype="Int64" if whole else "float64")
    frame = pd.DataFrame({"age": age, "city": cities})
    schema = Schema.from_dict(
        {
            "age": {
                "role": "quasi",
                "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [10, 20]},
            },
            "city": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
        }
    )
    once = schema.validate(frame, check_leaves=False)
    pd.testing.assert_frame_equal(schema.validate(once, check_leaves=False), once)
    raw, again = Table.from_frame(frame, schema), Table.from_frame(once, schema)
    for c in ("age", "city"):
        assert list(again.dictionary(c)) == list(raw.dictionary(c))
        np.testing.assert_array_equal(again.codes(c), raw.codes(c))
    decoded = raw.to_frame()["age"]
    known = [v for v in decoded if v != "?"]
    assert all(isinstance(v, int) for v in known) == whole
    assert all(isinstance(v, float) for v in known) == (not whole)
    text = ["?" if a is None else str(a if whole else float(a)) for a in values]
    assert [str(v) for v in decoded] == text


def _numbers_row_by_row(values: np.ndarray, index: pd.Index) -> np.ndarray:
    """A numeric column decoded as to_frame defined it, value by value over the rows."""
    marker = values == "?"
    numbers = pd.to_numeric(pd.Series(values, index=index).where(~marker), errors="coerce")
    return numbers.to_numpy() if not marker.any() else numbers_with_marker(values, marker)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(st.integers(-(10**6), 10**6), st.sampled_from([0.5, -2.25, 1e9]), st.none()),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(["insensitive", "quasi"]),
    st.data(),
)
def test_numeric_columns_decode_as_value_by_value(values, role, data):
    """to_frame converts each value a numeric column's rows hold once, then takes it by the
    codes: the same numbers and type as converting every row's value, also when the table's
    dictionary holds values no row holds (a table of some of the rows)."""
    if role == "quasi" and all(v is None for v in values):
        values[0] = 7
    spec = {"role": role, "kind": "numeric"}
    spec |= (
        {"hierarchy": {"builder": "intervals", "widths": [10]}}
        if role == "quasi"
        else {"missing": "keep"}
    )
    table = Table.from_frame(pd.DataFrame({"x": values}), {"x": spec})
    kept = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    for part in (table, table.take(np.asarray(kept, dtype=bool))):
        got = part.to_frame()["x"].to_numpy()
        want = _numbers_row_by_row(part.values("x"), part.index)
        assert got.dtype == want.dtype
        assert [str(v) for v in got] == [str(v) for v in want]


def test_validate_leaves_the_callers_table_as_it_is():
    """``Schema.validate`` applies the missing-value policies and coerces numbers on its own
    copy: the caller's table is unchanged, also after the result is changed in place. Under
    copy-on-write the columns it leaves as they are share their data with the caller's (and
    so the codes a run gave them)."""
    from microanon.core.frames import COPY_ON_WRITE

    df = pd.DataFrame(
        {
            "a": [1.0, None, 3.0, 4.0],
            "b": ["x", None, "z", "x"],
            "c": [1, 2, 3, 4],
            "d": ["1", "2", "3", "4"],
        }
    )
    before = df.copy()
    schema = Schema.from_dict(
        {
            "a": {"role": "quasi", "kind": "numeric", "missing": "drop"},
            "b": {"role": "insensitive", "missing": "value"},
            "c": {"role": "insensitive", "kind": "numeric"},
            "d": {"role": "insensitive", "kind": "numeric"},
        }
    )
    whole = Schema.from_dict({"c": {"role": "insensitive", "kind": "numeric"}})
    kept = whole.validate(df[["c"]])
    assert np.shares_memory(kept["c"].to_numpy(), df["c"].to_numpy()) == COPY_ON_WRITE
    out = schema.validate(df)
    assert out["b"].tolist() == ["x", "z", "x"] and out["d"].tolist() == [1, 3, 4]
    out.iloc[0, out.columns.get_loc("c")] = 99
    kept.iloc[0, 0] = 99
    pd.testing.assert_frame_equal(df, before)


@given(
    st.lists(
        st.one_of(st.text(max_size=3), st.integers(-3, 3), st.floats(allow_nan=False)),
        max_size=30,
    )
)
def test_sorted_values_is_pandas_sorted_factorize(values):
    from microanon.core.table import sorted_values

    index = pd.Index(values, dtype=object)
    try:
        expected = pd.factorize(index, sort=True)
    except TypeError:  # text and numbers: refused by both
        with pytest.raises(SchemaError, match="'c'"):
            sorted_values(index, "c")
        return
    rank, distinct = sorted_values(index, "c")
    assert rank.tolist() == expected[0].tolist()
    assert distinct.tolist() == list(expected[1])


def test_a_table_encoded_again_in_one_run_is_the_first_encoding_until_its_data_change():
    """Within ``shared_codes`` (one command's run), the same frame and schema objects are
    encoded once (the closest configurations run the method again on them); another schema
    object, another index or a cell changed in place is encoded anew, as outside."""
    from microanon.core.factorize import shared_codes

    frame = pd.DataFrame({"age": [30, 31, 30, 45], "job": ["a", "b", "a", None]})
    spec = {
        "age": {"role": "quasi", "kind": "numeric"},
        "job": {"role": "quasi", "missing": "value"},
    }
    schema = Schema.from_dict(spec)

    def decoded(table: Table) -> list[list]:
        return [list(table.values(c)) for c in ("age", "job")]

    with shared_codes():
        first = Table.from_frame(frame, schema)
        assert Table.from_frame(frame, schema) is first
        assert Table.from_frame(frame, Schema.from_dict(spec)) is not first
        assert Table.from_frame(frame.reset_index(drop=True), schema) is not first
        frame.loc[0, "age"] = 31
        again = Table.from_frame(frame, schema)
        assert again is not first
        assert decoded(again) == decoded(Table.from_frame(frame.copy(), Schema.from_dict(spec)))
    assert Table.from_frame(frame, schema) is not Table.from_frame(frame, schema)


def _validation_schema(policies: list[str], kinds: list[str]) -> dict:
    """A schema of columns x0, x1, ... with the given missing-value policies and kinds (a
    numeric column whose policy is value gets a hierarchy, as it must)."""
    spec = {}
    for i, (policy, kind) in enumerate(zip(policies, kinds, strict=True)):
        role = "quasi" if policy == "value" else "insensitive"
        column = {"role": role, "missing": policy, "kind": kind}
        if policy == "value" and kind == "numeric":
            column["hierarchy"] = {"builder": "intervals", "widths": [10]}
        spec[f"x{i}"] = column
    return spec


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["value", "keep", "drop"]), st.sampled_from(["numeric", "categorical"])
        ),
        min_size=1,
        max_size=3,
    ),
    st.data(),
)
def test_validate_within_a_run_is_validate_outside(columns, data):
    """Within ``shared_codes`` the method and the reports validate the same columns once: each
    call (the same schema, another schema object with the same policies, its hierarchies
    resolved, the table with another index) gives the table validate gives outside a run,
    labelled by its own index, and changing one caller's table changes no other's."""
    from microanon.core.factorize import coded, factorize, shared_codes

    n = data.draw(st.integers(2, 25))
    frame = {}
    for i, (_, kind) in enumerate(columns):
        cells = st.integers(0, 40) if kind == "numeric" else st.sampled_from(["a", "b", "c"])
        values = data.draw(st.lists(st.one_of(cells, st.none()), min_size=n, max_size=n))
        if all(v is None for v in values):
            values[0] = 1 if kind == "numeric" else "a"
        frame[f"x{i}"] = values
    policies, kinds = zip(*columns, strict=True)
    spec = _validation_schema(list(policies), list(kinds))
    df = pd.DataFrame(frame)
    df.index = pd.Index(data.draw(st.permutations(range(100, 100 + n))))
    schema = Schema.from_dict(spec)
    try:
        want = schema.validate(df, check_leaves=False)
    except InputError:  # every row dropped: refused alike within a run
        with shared_codes(), pytest.raises(InputError):
            schema.validate(df, check_leaves=False)
        return
    renumbered = df.reset_index(drop=True)
    try:  # (an interval hierarchy needs a number in the rows a dropped value leaves)
        built = schema.resolve(df)
    except SchemaError:
        built = schema
    with shared_codes():
        first = schema.validate(df, check_leaves=False)
        resolved = built.validate(df, check_leaves=False)
        checked = built.validate(df)  # (its leaves looked up as well)
        other = Schema.from_dict(spec).validate(renumbered, check_leaves=False)
        pd.testing.assert_frame_equal(first, want)
        pd.testing.assert_frame_equal(resolved, want)
        pd.testing.assert_frame_equal(checked, want)
        pd.testing.assert_frame_equal(other, schema.validate(renumbered, check_leaves=False))
        pd.testing.assert_index_equal(other.index, renumbered.index[df.index.isin(want.index)])
        for c in want.columns:  # the same data, validated once: coded once
            factorize(first[c])
            assert coded(other[c]) is not None
        first.iloc[0, 0] = None
        first["x0"] = 0
        pd.testing.assert_frame_equal(resolved, want)
        pd.testing.assert_frame_equal(schema.validate(df, check_leaves=False), want)


def test_validate_within_a_run_on_a_real_survey():
    """The GSS abortion file (64,814 respondents, opinion items missing for 32-70 %) validated
    by the method (its schema resolved) and by the reports (the schema as configured, the rows
    renumbered) within one run: the tables validate gives outside a run, from one validation;
    a schema with another policy is validated anew."""
    from real_surveys import survey

    from microanon.core.factorize import coded, factorize, shared_codes

    df = survey("gss_abortion")[["year", "age", "sex", "race", "educ", "abany", "abrape"]]
    numeric = {"role": "quasi", "kind": "numeric", "missing": "value"}
    spec = {
        "year": {**numeric, "hierarchy": {"builder": "intervals", "widths": [5, 10]}},
        "age": {**numeric, "hierarchy": {"builder": "intervals", "widths": [5, 10]}},
        "educ": {**numeric, "hierarchy": {"builder": "intervals", "widths": [4, 8]}},
        "sex": {"role": "quasi", "hierarchy": {"builder": "balanced"}, "missing": "value"},
        "race": {"role": "quasi", "hierarchy": {"builder": "balanced"}},
        "abany": {"role": "sensitive", "missing": "keep"},
        "abrape": {"role": "insensitive", "missing": "drop"},
    }
    schema = Schema.from_dict(spec)
    want = schema.validate(df, check_leaves=False)
    assert 0 < len(want) < len(df)  # rows dropped for abrape
    keeping = Schema.from_dict({**spec, "abrape": {"role": "insensitive", "missing": "keep"}})
    whole = keeping.validate(df, check_leaves=False)
    with shared_codes():
        method = schema.resolve(df).validate(df, check_leaves=False)
        reports = schema.validate(df.reset_index(drop=True), check_leaves=False)
        pd.testing.assert_frame_equal(method, want)
        pd.testing.assert_frame_equal(reports, want)
        for c in want.columns:  # the same data, validated once: coded once
            factorize(method[c])
            assert coded(reports[c]) is not None
        pd.testing.assert_frame_equal(keeping.validate(df, check_leaves=False), whole)


def test_validate_within_a_run_refuses_as_outside():
    """Within ``shared_codes`` a table validated before is refused as outside a run: a value
    absent from a column's hierarchy, and, where two columns are at fault, the first column's
    error (a leaf missing from ``city``'s hierarchy before ``age``'s text)."""
    from microanon.core.factorize import shared_codes

    df = pd.DataFrame({"city": ["a", "b", "c", None], "age": ["30", "x", "31", "32"]})
    cities = Hierarchy.from_paths([["*", "a"], ["*", "b"], ["*", "?"]], name="city")
    spec = {"city": {"role": "quasi", "hierarchy": cities}}
    both = Schema.from_dict({**spec, "age": {"role": "quasi", "kind": "numeric"}})
    leaves = Schema.from_dict({**spec, "age": {"role": "insensitive"}})
    outside = []
    for schema in (both, leaves):
        with pytest.raises((InputError, HierarchyError)) as refused:
            schema.validate(df)
        outside.append(str(refused.value))
    assert "'city'" in outside[0] and "'city'" in outside[1]
    with shared_codes():
        leaves.validate(df, check_leaves=False)  # (validated before: its leaves checked after)
        for schema, message in zip((both, leaves), outside, strict=True):
            with pytest.raises((InputError, HierarchyError)) as refused:
                schema.validate(df)
            assert str(refused.value) == message
