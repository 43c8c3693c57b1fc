"""Small HTML views of microanon's results, for notebooks (``_repr_html_``).

A release, a verdict, a privacy profile or a risk profile shows in Jupyter as a card: a title,
the key figure in one line, and small tables. Every text is escaped here (:func:`html.escape`);
a :class:`Html` is markup built by these functions, inserted as it is. No external CSS or
JavaScript: the few styles are inline.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any

import pandas as pd

__all__ = ["HEAD_ROWS", "Html", "card", "frame_table", "mark", "number", "pairs", "table"]

#: Rows of a table shown by :func:`frame_table` (the head of a published table).
HEAD_ROWS = 5

_CARD = (
    '<div class="microanon" style="border:1px solid #ccd;border-radius:4px;'
    'padding:.4em .8em;margin:.3em 0;display:inline-block;max-width:100%;overflow-x:auto">'
)
_TABLE = '<table style="margin:.3em 0;font-size:.9em">'


class Html(str):
    """Markup built by this module: already escaped, inserted as it is."""


def _text(value: Any) -> str:
    """``value`` as escaped text, or as it is when it is :class:`Html`."""
    return value if isinstance(value, Html) else html.escape(str(value))


def number(value: Any, digits: int = 4) -> str:
    """A figure as text: integers with thousands separators, reals to ``digits`` significant
    digits, booleans and anything else as ``str``."""
    if isinstance(value, bool) or value is None:
        return "–" if value is None else str(value)
    if isinstance(value, Integral):
        return f"{int(value):,}"
    if isinstance(value, Real):
        x = float(value)
        return str(x) if not math.isfinite(x) else f"{x:.{digits}g}"
    return str(value)


def mark(holds: bool | None) -> str:
    """``✓`` (holds), ``✗`` (does not hold) or ``–`` (no threshold given)."""
    return "–" if holds is None else "✓" if holds else "✗"


def table(
    rows: Iterable[Sequence[Any]],
    header: Sequence[Any] | None = None,
    caption: str | None = None,
) -> Html:
    """A small HTML table; numbers are right-aligned and formatted with :func:`number`."""

    def cell(tag: str, value: Any) -> str:
        numeric = isinstance(value, Real) and not isinstance(value, bool)
        align = "right" if numeric else "left"
        shown = number(value) if numeric else value
        return f'<{tag} style="text-align:{align}">{_text(shown)}</{tag}>'

    parts = [_TABLE]
    if caption:
        parts.append(f'<caption style="caption-side:bottom;font-size:.85em">{_text(caption)}')
        parts.append("</caption>")
    if header is not None:
        parts.append("<thead><tr>" + "".join(cell("th", h) for h in header) + "</tr></thead>")
    parts.append("<tbody>")
    parts.extend("<tr>" + "".join(cell("td", v) for v in row) + "</tr>" for row in rows)
    parts.append("</tbody></table>")
    return Html("".join(parts))


def pairs(values: Mapping[str, Any], caption: str | None = None) -> Html:
    """A two-column table of named figures."""
    return table(((k, v) for k, v in values.items()), caption=caption)


def frame_table(frame: pd.DataFrame, rows: int = HEAD_ROWS, caption: str | None = None) -> Html:
    """The first ``rows`` rows of a DataFrame (missing values shown empty)."""
    head = frame.head(rows)
    body = [
        ["" if _missing(v) else v for v in record]
        for record in head.itertuples(index=False, name=None)
    ]
    return table(body, header=[str(c) for c in frame.columns], caption=caption)


def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # a list or array in a cell
        return False


def card(title: str, key: str | None, *parts: Any) -> Html:
    """The view of one object: a bold ``title``, the ``key`` figure, then ``parts``.

    Parts that are :class:`Html` (tables) are inserted as they are; anything else is a
    paragraph of escaped text.
    """
    out = [_CARD, f"<strong>{_text(title)}</strong>"]
    if key:
        out.append(f'<p style="margin:.3em 0;font-size:1.1em">{_text(key)}</p>')
    for part in parts:
        shown = part if isinstance(part, Html) else f'<p style="margin:.3em 0">{_text(part)}</p>'
        out.append(shown)
    out.append("</div>")
    return Html("".join(out))
