"""The registry of methods and the models' declarations: what every front offers is what they
declare, and every value a declaration forbids is refused everywhere, in one line naming it."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from microanon.apps.cli import main
from microanon.apps.config import load_config
from microanon.apps.engine import dask_methods
from microanon.apps.families import FAMILIES
from microanon.apps.method_listing import TABLE_END, TABLE_START, markdown_table
from microanon.apps.workbench import catalog
from microanon.core.constraints import REQUIRED, Integer, Param
from microanon.core.errors import InputError
from microanon.methods import registry
from microanon.methods.registry import RUN_ARGUMENTS, method
from microanon.models.config import MODELS, model_from_config
from microanon.scale import ROWWISE_METHODS, WHOLE_TABLE_METHODS

DOCS = Path(__file__).resolve().parents[1] / "docs"
METHODS = registry.methods()


def _bad_cases() -> list[tuple[str, str, object]]:
    return [
        (m.name, p.name, bad) for m in METHODS.values() for p in m.params for bad in p.violations()
    ]


def test_every_method_declares_every_keyword_of_its_function():
    for spec in METHODS.values():
        keyword = [
            n
            for n, p in inspect.signature(spec.function).parameters.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and n not in RUN_ARGUMENTS
        ]
        assert [p.name for p in spec.params if not p.dask_only] == keyword, spec.name
        assert all(p.help and p.allowed for p in spec.params), spec.name


def test_each_method_lives_in_its_family_and_writes_its_familys_kind():
    kinds = {f.name: f.kinds for f in FAMILIES}
    for spec in METHODS.values():
        assert spec.kind in kinds[spec.family], spec.name
        assert spec.out_of_core is not None or spec.in_memory_because, spec.name


def test_a_declaration_that_differs_from_its_function_is_refused_at_import():
    def run(data, schema, *, k: int = 2, rng=None):  # noqa: ARG001 - a shape only
        return None

    with pytest.raises(TypeError, match="undeclared"):
        method("x", kind="masked", publishes="-", help="-", in_memory_because="-")(run)
    with pytest.raises(TypeError, match="default of k"):
        method(
            "x",
            kind="masked",
            publishes="-",
            help="-",
            params=(Param("k", "-", (Integer(3),)),),
            in_memory_because="-",
        )(run)
    with pytest.raises(TypeError, match="out of core"):
        method("x", kind="masked", publishes="-", help="-")(run)


def test_the_workbench_offers_exactly_the_registrys_methods_and_parameters():
    offered = {m["name"]: m for m in catalog.methods()}
    assert list(offered) == list(METHODS)
    for name, spec in METHODS.items():
        params = [p["name"] for p in offered[name]["params"]]
        assert params == spec.taken("memory"), name
        for p in offered[name]["params"]:
            declared = spec.param(p["name"])
            assert p["required"] == declared.required and p["help"] == declared.help
            assert p.get("choices") == next(
                (c.public()["choices"] for c in declared.allowed if "choices" in c.public()), None
            )
    models = {m["name"]: m for m in catalog.models()}
    assert list(models) == list(MODELS)
    for name, cls in MODELS.items():
        assert [p["name"] for p in models[name]["params"]] == [
            p.name for p in cls.declared_parameters()
        ]
        assert models[name]["help"] == cls.PROMISE != ""


def test_the_command_line_lists_exactly_the_registrys_methods_and_parameters():
    result = CliRunner().invoke(main, ["methods", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    assert [m["name"] for m in listed["methods"]] == list(METHODS)
    for m in listed["methods"]:
        assert [p["name"] for p in m["params"]] == METHODS[m["name"]].taken("memory")
    assert [m["name"] for m in listed["models"]] == list(MODELS)
    text = CliRunner().invoke(main, ["methods", "microaggregation"]).output
    assert "by: a text (required; --engine dask only)" in text
    assert "k: an integer >= 1 (required)" in text and "engines: memory, dask" in text
    bad = CliRunner().invoke(main, ["methods", "magic"])
    assert bad.exit_code == 2 and "unknown method 'magic'" in bad.output


def test_the_docs_method_table_is_the_generated_one():
    text = (DOCS / "anonymize.md").read_text(encoding="utf-8")
    start, end = text.index(TABLE_START), text.index(TABLE_END) + len(TABLE_END)
    assert text[start:end] == markdown_table(), "run `microanon methods --markdown`"


def test_the_dask_engine_and_the_scale_tables_come_from_the_declarations():
    assert dask_methods() == {
        n: s.out_of_core.function for n, s in METHODS.items() if s.out_of_core is not None
    }
    rowwise = {k.split(" ")[0] for k in ROWWISE_METHODS}
    for name, spec in METHODS.items():
        assert (name in rowwise) == bool(spec.out_of_core and spec.out_of_core.rowwise)
        if spec.in_memory_because:
            assert WHOLE_TABLE_METHODS[name] == spec.in_memory_because


def _config(tmp_path: Path, name: str, params: dict) -> Path:
    spec = METHODS[name]
    doc = {
        "data": "x.csv",
        "schema": {"a": {"role": "quasi"}, "s": {"role": "sensitive"}},
        "method": name,
        "params": params,
        "models": [{"k_anonymity": {"k": 2}}] if spec.models == "required" else [],
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "param", "bad"), _bad_cases(), ids=repr)
def test_every_forbidden_value_is_refused_by_the_config_and_the_function(
    tmp_path, name, param, bad
):
    """Generated from the declarations: one line naming the method and the parameter."""
    if isinstance(bad, float) and bad != bad:  # NaN cannot be written in YAML safely
        path = None
    else:
        path = _config(tmp_path, name, {param: bad})
    if path is not None:
        with pytest.raises(InputError, match=rf"{name}: {param} must be") as exc:
            load_config(path)
        assert "\n" not in str(exc.value)
    spec = METHODS[name]
    if spec.param(param).dask_only:
        return
    with pytest.raises(InputError, match=rf"{name}: {param} must be"):
        spec.function(None, None, **{param: bad})


#: A valid value of each required model parameter.
_GOOD = {"k": 2, "l": 2, "t": 0.5, "beta": 0.5, "delta": 0.5, "delta_min": 0.1, "delta_max": 0.5}


@pytest.mark.parametrize(
    ("model", "param", "bad"),
    [
        (n, p.name, bad)
        for n, cls in MODELS.items()
        for p in cls.declared_parameters()
        for bad in p.violations()
    ],
    ids=repr,
)
def test_every_forbidden_model_value_is_refused_naming_it(model, param, bad):
    declared = {p.name: p for p in MODELS[model].declared_parameters()}
    good = {n: v for n, v in _GOOD.items() if n in declared and declared[n].default is REQUIRED}
    with pytest.raises(InputError, match=rf"{model}: {param} must be"):
        model_from_config(model, {**good, param: bad})


#: Values to try for a required parameter, the first one its constraints allow is given.
_CANDIDATES = [2, 0.5, 5, "a", 0.05, ["a"], {"a": 2}]


def _required(spec) -> dict:
    """A value its constraints allow for every required parameter of a method."""
    return {
        p.name: next(v for v in _CANDIDATES if p.holds(v))
        for p in spec.params
        if p.required and not p.dask_only
    }


def test_the_allowed_defaults_are_accepted_by_the_config(tmp_path):
    for name, spec in METHODS.items():
        optional = {
            p.name: p.default
            for p in spec.params
            if not p.required and p.default is not None and not p.dask_only
        }
        given = {**optional, **_required(spec)}
        path = _config(tmp_path, name, given)
        assert load_config(path).params == given, name


@pytest.mark.parametrize(
    ("name", "param"),
    [(n, p.name) for n, s in METHODS.items() for p in s.params if p.required and not p.dask_only],
    ids=repr,
)
def test_a_missing_required_parameter_is_one_line_naming_it(tmp_path, name, param):
    """Generated from the declarations: a config without a required parameter is refused when
    it is read, in one line naming the method, the parameter and what it takes (not a
    traceback when the method runs)."""
    given = {n: v for n, v in _required(METHODS[name]).items() if n != param}
    with pytest.raises(InputError, match=rf"params: {name} needs {param} \(") as exc:
        load_config(_config(tmp_path, name, given))
    assert "\n" not in str(exc.value)


def test_the_out_of_core_twins_check_values_as_their_methods_do():
    import microanon.scale as scale

    with pytest.raises(InputError, match="pram: invariant must be true or false"):
        scale.pram_dask(None, None, invariant="yes")
    with pytest.raises(InputError, match="full_domain: suppression must be a number in"):
        scale.full_domain_dask(None, None, models=[], out_dir="x", suppression=1.5)

    def shadow(source, schema, *, scenario="Both", speed=1, client=None):  # noqa: ARG001
        return None

    with pytest.raises(TypeError, match="speed"):
        registry.twin("randomized_response")(shadow)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("full_domain", {"all_minimal": True}, "all_minimal of full_domain is not available"),
        ("randomized_response", {"l": 2, "constraint": "average"}, "constraint of random"),
    ],
)
def test_the_dask_engine_refuses_what_the_twin_does_not_take(tmp_path, name, params, message):
    from microanon.apps.engine import _twin_params

    cfg = load_config(_config(tmp_path, name, params))
    with pytest.raises(InputError, match=message):
        _twin_params(cfg)
    defaults = {n: METHODS[name].param(n).default for n in params}
    assert "constraint" not in _twin_params(load_config(_config(tmp_path, name, defaults)))


def test_pram_declares_keep_per_column_as_the_method_takes_it():
    # The declaration offered "one for all" while the method takes a mapping: a scalar passed
    # the config's check and failed in the method. Now the check refuses it, naming both.
    from microanon.methods import registry

    with pytest.raises(InputError, match="pram: keep must be a mapping from column names"):
        registry.get("pram").check({"keep": 0.8})
    registry.get("pram").check({"keep": {"sex": 0.8}})
