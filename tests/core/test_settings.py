"""The schema is the one place for a setting's default: settings objects, flags and signatures take theirs from it.

Three checks that fail when a default is written anywhere else: every step's settings
dataclass (and the model entry's ``Decoding`` and ``ModelSpec``) declares its fields without
defaults, each naming a key of the schema; every ``biasflow`` flag that has a default takes
it from the schema (a schema with every default changed changes every flag's default); and
no function or ``.get`` in the package gives a config key a default of its own.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import importlib
import inspect
import pkgutil

import pytest

import biasflow
from biasflow import bundled, schema
from biasflow.models import Decoding, ModelSpec
from biasflow.settings import StepSettings
from workflow_helpers import REPO

MODULES = [importlib.import_module(m.name) for m in pkgutil.walk_packages(biasflow.__path__, "biasflow.")]


def settings_classes() -> list[type]:
    """biasflow's own settings classes: not a test's (tests/core/test_adding_a_method.py's toy method declares one,
    which stays a subclass after its test), so the answer does not depend on which test files ran first."""
    found, stack = set(), [StepSettings]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub.__module__.split(".")[0] == "biasflow":
                found.add(sub)
            stack.append(sub)
    return sorted(found, key=lambda cls: cls.__qualname__)


def test_every_step_has_settings_and_none_declares_a_default():
    classes = settings_classes()
    assert {cls.__name__ for cls in classes} >= {
        "GenerationSettings",
        "ScoringSettings",
        "LoaderSettings",
        "ParaphraseSettings",
        "StatsSettings",
        "SearchSettings",
        "PromptSettings",
        "SamplingSettings",
        "PerturbationSettings",
        "ScoreSettings",
        "ClassifySettings",
        "ClassifyDecoding",
        "ClassifierSettings",
        "GapSettings",
        "IntervalSettings",
        "SummarySettings",
    }
    for cls in [*classes, Decoding, ModelSpec]:
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls
        with_default = [
            f.name
            for f in dataclasses.fields(cls)
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        ]
        assert not with_default, f"{cls.__name__} declares defaults for {with_default}; the schema holds them"


# Settings whose keys depend on the entry (a scorer's options, a classifier's method): built by ``of``.
BUILT_BY_OF = {"ScoringSettings", "ClassifierSettings"}


@pytest.mark.parametrize(
    "cls", [c for c in settings_classes() if c.__name__ not in BUILT_BY_OF], ids=lambda c: c.__name__
)
def test_every_field_names_a_config_key_and_defaults_to_the_schemas(cls):
    derived = {f.name: {} for f in dataclasses.fields(cls) if cls.key(f.name) is None}
    built = cls.defaults(**derived)
    for field in dataclasses.fields(cls):
        key = cls.key(field.name)
        if key is None:
            continue
        assert "description" in schema.described(key), f"{cls.__name__}.{field.name}: {key} is not a documented key"
        assert built.params()[field.name] == bundled.resolve(schema.default(key)), (cls.__name__, field.name)


def test_settings_round_trip_through_a_rules_params():
    from biasflow.config import resolve_bundled, validate_config

    config = {"models": {"m": {"model": "x"}}, "fpr": {"classifiers": {"s": {"method": "soft_prompt"}}}}
    validate_config(config)
    resolve_bundled(config)
    for cls in settings_classes():
        if cls.__name__ in BUILT_BY_OF or any(cls.key(f.name) is None for f in dataclasses.fields(cls)):
            continue
        built = cls.from_config(config)
        assert cls.from_params(built.params()) == built
        assert repr(built.params()) == repr(cls.from_params(built.params()).params()), "plain values Snakemake compares"


def perturbed(value):
    """A different value of the same kind: what a changed schema default looks like."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, float):
        return value * 3 + 0.25
    if isinstance(value, str):
        return value + "-changed"
    if isinstance(value, list):
        return [*value, perturbed(value[0]) if value else "changed"]
    if isinstance(value, dict):
        return {key: perturbed(item) for key, item in value.items()}
    return value


def _perturb_defaults(node):
    if isinstance(node, dict):
        for key, item in node.items():
            if key == "default":
                node[key] = perturbed(item)
            else:
                _perturb_defaults(item)
    elif isinstance(node, list):
        for item in node:
            _perturb_defaults(item)


def flag_defaults() -> dict[tuple[str, str], object]:
    from biasflow.cli import build_parser

    parser = build_parser()
    subcommands = next(a for a in parser._actions if a.dest == "command").choices
    return {
        (name, action.dest): action.default
        for name, sub in subcommands.items()
        for action in sub._actions
        if action.dest != "help"
    }


def test_every_flag_default_comes_from_the_schema(monkeypatch):
    real = flag_defaults()
    changed = copy.deepcopy(schema._schema())
    _perturb_defaults(changed)
    monkeypatch.setattr(schema, "_schema", lambda: changed)
    after = flag_defaults()
    fixed = {flag: value for flag, value in real.items() if value is not None and after[flag] == value}
    assert not fixed, f"flags whose default is written in the command, not taken from the schema: {fixed}"
    followed = {flag for flag, value in real.items() if value is not None}
    assert {
        ("cairo-select", "permutations"),
        ("cairo-select", "max_sets"),
        ("cairo-stats", "normalise"),
        ("fpr-gaps", "z"),
        ("fpr-gaps", "interval"),
        ("fpr-gaps", "accuracy_floor"),
        ("score", "score_text"),
        ("fairpair-score", "dissimilarities"),
    } <= followed


def config_keys() -> set[str]:
    """Every property name the schema defines (at any depth)."""
    names = set()

    def walk(node):
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            for item in node.values():
                walk(item)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(schema._schema())
    return names


def _literal(node) -> bool:
    return (isinstance(node, ast.Constant) and node.value is not None) or isinstance(
        node, (ast.List, ast.Dict, ast.Tuple)
    )


def test_no_function_gives_a_config_key_a_default_of_its_own():
    """A parameter or a ``.get`` named like a config key must not hold a default: it would drift from the schema."""
    keys = config_keys() - {"name", "model", "path", "options", "text"}
    found = []
    for path in sorted((REPO / "src" / "biasflow").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                positional = [*args.posonlyargs, *args.args]
                pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True))
                pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
                found += [
                    f"{path.name}:{node.lineno} {node.name}({a.arg}=...)"
                    for a, d in pairs
                    if a.arg in keys and _literal(d)
                ]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and len(node.args) == 2
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in keys
                and _literal(node.args[1])
            ):
                found.append(f"{path.name}:{node.lineno} .get({node.args[0].value!r}, ...)")
    assert not found, f"defaults of config keys written outside the schema: {found}"


@pytest.mark.parametrize(
    ("command", "function", "cls"),
    [
        ("cairo-select", "cairo_select", "biasflow.cairo.selection:SearchSettings"),
        ("scorer-bias", "scorer_bias", "biasflow.cairo.scorer_bias:ScorerBiasSettings"),
        ("fpr-gaps", "fpr_gaps", "biasflow.fpr.steps:GapSettings"),
    ],
)
def test_a_steps_command_flags_and_function_keywords_are_its_settings_fields(command, function, cls, capsys):
    """Every field of the settings a command and a public function build whole is a flag of the command, named after
    the field (StepSettings.add_flags), and a keyword of the function, defaulting to its key's schema default."""
    from biasflow.cli import main
    from biasflow.methods import Method
    from biasflow.settings import flag_name

    settings = Method.load(cls)
    with pytest.raises(SystemExit):
        main([command, "--help"])
    shown = capsys.readouterr().out
    keywords = inspect.signature(getattr(biasflow, function)).parameters
    for field in dataclasses.fields(settings):
        assert f"{flag_name(field.name)} " in shown
        assert keywords[field.name].kind is inspect.Parameter.KEYWORD_ONLY
        assert keywords[field.name].default == bundled.resolve(schema.default(settings.key(field.name)))
