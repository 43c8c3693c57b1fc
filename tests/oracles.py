"""What the tests check against from outside microanon, and what happens when one is missing.

An *oracle* or *service* is something the tests need that microanon does not ship: an
independent checker (pycanon), a program (node, chromium, PostgreSQL's server binaries), an
optional Python package (mlxtend, scikit-learn, polars, playwright) or the reference folder
``../shared/data``. Every test that needs one asks for it here, and only here:

- under CI (the environment variable ``CI`` is ``true`` or ``1``, as ``.ci/run`` sets it) a
  missing one FAILS the test, naming what is missing and how to install it, so that a test
  cannot silently stop testing;
- elsewhere (a developer's machine without, say, chromium) it skips the test with the same
  message.

One thing is not an oracle CI can install: the reference folder ``../shared/data`` beside the
repository, from which the package's bundle of reference data was made. It is not part of the
repository, so a clone has it only where the machine provides it. The three checks of the bundle
against it (checksum list, bytes, re-bundling) run where it exists and otherwise skip, under CI
too (:func:`outside_repository`); every other test uses the bundle, which ships its own
checksums and is verified against them on every load.

``tests/test_suite_rules.py`` checks that no test skips by itself (``pytest.importorskip``,
``pytest.skip``, ``skipif``) outside this module.
"""

from __future__ import annotations

import importlib
import os
import shutil
from types import ModuleType
from typing import NoReturn

import pandas as pd
import pytest

__all__ = [
    "in_ci",
    "outside_repository",
    "pycanon_anonymity",
    "require_module",
    "require_program",
    "unavailable",
]


def in_ci() -> bool:
    """Whether the tests run under CI: ``CI`` is ``true`` or ``1`` (any case)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


def unavailable(what: str) -> NoReturn:
    """A missing oracle or service: a failure under CI, else a skip, with ``what`` as message.

    Also usable at module level (the whole module then skips outside CI).
    """
    if in_ci():
        pytest.fail(
            f"{what} [CI={os.environ.get('CI')}: under CI a missing oracle or service is a "
            "failure, not a skip; .ci/run and `make test` install them]",
            pytrace=False,
        )
    pytest.skip(what, allow_module_level=True)


def outside_repository(what: str) -> NoReturn:
    """A missing input that is not part of the repository (``../shared/data``): a skip, CI too.

    CI runs on a clone of the repository; what lies outside it is not an oracle or service that
    ``.ci/run`` can install, so its absence is reported (``what``) but fails nothing.
    """
    pytest.skip(f"{what} (outside the repository: not installable by .ci/run)")


def require_module(name: str, why: str, install: str | None = None) -> ModuleType:
    """The module ``name`` imported, or :func:`unavailable`.

    ``why``: what the tests check with it; ``install``: how to get it (default ``make
    install``, which installs the ``dev`` extra and pycanon).
    """
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        how = install or "make install"
        unavailable(f"{why}: cannot import {name} ({exc}); install it with {how}")


def require_program(*names: str, package: str, why: str) -> str:
    """The path of the first of the programs ``names`` on PATH, or :func:`unavailable`.

    ``package``: the Debian package that provides it (``.ci/run`` installs it).
    """
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    unavailable(
        f"{why}: no {' or '.join(names)} on PATH (Debian package '{package}': "
        f"apt-get install {package})"
    )


class _OnTheirColumns:
    """pycanon's functions, each called on a frame of the columns it reads, in NumPy.

    pycanon takes the rows of every class from the whole frame (``data.iloc[rows]``, one call per
    class); with the other columns, and text in pandas' Arrow-backed ``str`` columns, that copy is
    most of its time. It gets the same values: the quasi-identifiers as objects (it only groups
    on them) and the sensitive attributes, in order, with the frame's index.
    """

    def __init__(self, module: ModuleType) -> None:
        self._module = module

    def __getattr__(self, name: str):
        function = getattr(self._module, name)
        if not callable(function):
            return function

        def on_their_columns(data, quasi_ident, *rest, **options):
            sensitive = list(rest[0] if rest else options.get("sens_att", ()))
            columns = {c: data[c].astype(object) for c in quasi_ident}
            columns.update((c, _sensitive(data[c])) for c in sensitive if c not in columns)
            frame = pd.DataFrame(columns)
            return function(frame, quasi_ident, *rest, **options)

        return on_their_columns


def _sensitive(column: pd.Series) -> pd.Series:
    """A sensitive column as pycanon gets it: numbers as they are (pycanon's t-closeness takes the
    ordered distance for numbers), anything else as objects."""
    numeric = pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)
    return column if numeric else column.astype(object)


def pycanon_anonymity() -> _OnTheirColumns:
    """``pycanon.anonymity``, the independent checker of k, ℓ and t, or :func:`unavailable`.

    Not in an extra of pyproject.toml: pycanon 1.3.6 pins numpy, pandas and scipy exactly
    (numpy==2.0.2, pandas==2.3.3, ...), which would downgrade what microanon is tested on, so
    the Makefile installs it with ``--no-deps`` (``make install``). Its functions are called on
    the columns they read (:class:`_OnTheirColumns`).
    """
    return _OnTheirColumns(
        require_module(
            "pycanon.anonymity",
            "pycanon is the independent oracle of k-anonymity, l-diversity and t-closeness",
            "make install (pip install --no-deps pycanon==1.3.6)",
        )
    )
