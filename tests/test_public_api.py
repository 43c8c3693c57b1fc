"""One public API shape: ``microanon.methods.<family>`` with ``__all__`` in every public package,
and the names of the previous release still working with a DeprecationWarning."""

from __future__ import annotations

import importlib
import pkgutil
import warnings

import pytest

import microanon
import microanon.methods

FAMILIES = ["collect", "distribution", "generalize", "multisa", "randomize", "sdc"]

#: The public packages: the layers a user imports from, and every method family.
PUBLIC = [
    "microanon",
    "microanon.core",
    "microanon.datasets",
    "microanon.measures",
    "microanon.methods",
    "microanon.models",
    "microanon.query",
    "microanon.scale",
    *(f"microanon.methods.{f}" for f in FAMILIES),
]


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_package_declares_all_and_every_name_resolves(name):
    module = importlib.import_module(name)
    assert isinstance(module.__all__, list) and module.__all__
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for attr in module.__all__:
            assert getattr(module, attr) is not None, f"{name}.{attr}"


def test_methods_lists_exactly_the_family_folders():
    folders = sorted(m.name for m in pkgutil.iter_modules(microanon.methods.__path__) if m.ispkg)
    assert folders == FAMILIES == sorted(microanon.methods.__all__)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("microanon.methods:full_domain", "microanon.methods.generalize:full_domain"),
        ("microanon.methods:anatomy", "microanon.methods.generalize:anatomy"),
        ("microanon.methods:add_noise", "microanon.methods.sdc:add_noise"),
        (
            "microanon.methods:distribution_anonymize",
            "microanon.methods.distribution:distribution_anonymize",
        ),
        ("microanon.methods.anatomy:anatomy", "microanon.methods.generalize:anatomy"),
        (
            "microanon.randomize:optimal_parameters",
            "microanon.methods.randomize:optimal_parameters",
        ),
        ("microanon.randomize:reconstruct", "microanon.methods.randomize:reconstruct"),
        (
            "microanon.distribution:min_sum_of_range",
            "microanon.methods.distribution:min_sum_of_range",
        ),
        (
            "microanon.distribution:anonymize",
            "microanon.methods.distribution:distribution_anonymize",
        ),
    ],
)
def test_old_names_work_and_warn(old, new):
    old_module, old_name = old.split(":")
    new_module, new_name = new.split(":")
    module = importlib.import_module(old_module)
    with pytest.warns(
        DeprecationWarning, match=rf"{old_module}\.{old_name} is deprecated.*{new_module}"
    ):
        value = getattr(module, old_name)
    assert value is getattr(importlib.import_module(new_module), new_name)


def test_unknown_names_still_raise_attribute_error():
    with pytest.raises(AttributeError):
        microanon.methods.no_such_method  # noqa: B018
    facade = importlib.import_module("microanon.randomize")
    with pytest.raises(AttributeError):
        facade.no_such_function  # noqa: B018


def test_star_import_of_a_facade_warns():
    with pytest.warns(DeprecationWarning):
        exec("from microanon.distribution import *", {})


def test_top_level_exports_no_deprecated_name():
    assert "distribution" not in microanon.__all__ and "randomize" not in microanon.__all__
