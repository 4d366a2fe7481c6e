"""The config schema: the one place where a setting's default and allowed values are written.

The schema is assembled from two kinds of part, each shipped inside its package: the core's,
``biasflow/schemas/config.schema.yaml`` (every key that is no method's own), and each registered
method's config section, the file its declaration names (:attr:`biasflow.methods.Method.schema`,
``biasflow/fairpair/config.schema.yaml``), added as the property of the method's name, and the
smallest effect worth detecting it declares there (its ``x-min-effect``), added as
``power.min_effect.<name>`` and, as the margin of a ``compare:`` pair, ``compare[].margin.<name>``
(:meth:`biasflow.methods.Method.schemas`); the names of ``methods`` are the registry's. So a
method installed from another package brings its keys with it, its margin, power effect and
definitions included (its file's ``$defs``, at ``#/properties/<name>/$defs/`` of the assembled
schema; the core's ``definitions`` are only those the core's keys or several methods use), and
the core, which allows no key it does not know, still refuses a misspelt one
(``docs/adding-a-method.md``, section 4). Everything that needs a
default takes it from here: :func:`filled` gives a config (or a model entry, or a decoding)
with every missing key set to the schema's default, :func:`default` one key's default for a
command-line flag, and :func:`flag` a whole flag (type, choices, default and help) of a key.
The step settings (:mod:`biasflow.settings`), the model entry and the ``biasflow`` command
are built from these, never from literals of their own (tests/core/test_settings.py). A flag
remembers that it was given (:func:`given`), so that a command can let it beat a config file's
value (:mod:`biasflow.flags`).
"""

from __future__ import annotations

import argparse
import copy
import functools
from importlib import resources
from typing import Any

from biasflow import methods as methods_module
from biasflow.methods import Method
from biasflow.registry import Registry


def _schema() -> dict:
    """The assembled schema of the methods registered now (the registry's members are fixed once it has listed
    them, so one assembly per registry)."""
    return _assembled(methods_module.REGISTRY)


@functools.lru_cache(maxsize=4)
def _assembled(registry: Registry[Method]) -> dict:
    """The core schema with the registry's names as the choices of ``methods`` and each method's section, power
    effect (``power.min_effect.<name>``) and margin (``compare[].margin.<name>``) added, in the registry's order."""
    import yaml

    from biasflow.errors import BiasflowError

    schema = yaml.safe_load(resources.files("biasflow").joinpath("schemas/config.schema.yaml").read_text())
    properties = schema["properties"]
    properties["methods"]["items"]["enum"] = list(registry.names())
    min_effects = properties["power"]["properties"]["min_effect"]["properties"]
    margins = properties["compare"]["items"]["properties"]["margin"]["properties"]
    for method in registry.all():
        declared = method.schemas()
        if method.name in properties:
            raise BiasflowError(
                f"method {method.name!r}: its config section would replace the core's key {method.name!r}; "
                "register the method under another name (docs/adding-a-method.md)."
            )
        properties[method.name] = declared.section
        min_effects[method.name] = declared.min_effect
        margins[method.name] = declared.margin
    return schema


def config_schema() -> dict:
    """The config's JSON schema (YAML), read from the package (a copy: callers may change it)."""
    return copy.deepcopy(_schema())


def subschema(pointer: str) -> dict:
    """The schema at a JSON pointer such as ``#/definitions/model``."""
    node = _schema()
    for part in pointer.removeprefix("#/").split("/"):
        if part:
            node = node[part]
    return node


def filled(instance: dict, pointer: str = "") -> dict:
    """A copy of ``instance`` with every missing key that has a default set to it (defaults of defaults too).

    ``pointer`` names the part of the schema ``instance`` is (``#/definitions/model`` for a
    model entry); empty for a whole config. Nothing is validated here: see
    :func:`biasflow.config.validate_config`.
    """
    import jsonschema

    instance = copy.deepcopy(instance)
    validator = filling_validator(jsonschema)(_schema())
    if pointer:  # the part's schema, its $refs still resolved in the whole (a method's $defs lie in its section)
        validator = validator.evolve(schema=subschema(pointer))
    for _ in validator.iter_errors(instance):
        pass
    return instance


def default(key: str):
    """The default of one config key, by its dotted path (``cairo.selection.permutations``)."""
    value = _defaults()
    for part in key.split("."):
        value = value[part]
    return copy.deepcopy(value)


# The assembled schema -> (that schema, the whole config's defaults), by the schema's identity (_defaults).
_FILLED: dict[int, tuple[dict, dict]] = {}


def _defaults() -> dict:
    """The whole config's defaults, filled once per assembled schema: a command's parser asks for about 90 of
    them, and filling the schema for each took half a second of every ``biasflow`` start. Callers get copies
    (:func:`default`)."""
    schema = _schema()
    held = _FILLED.get(id(schema))
    if held is None or held[0] is not schema:
        held = _FILLED[id(schema)] = (schema, filled({}))
    return held[1]


def described(key: str) -> dict:
    """The schema of one config key, by its dotted path, with ``$ref`` followed."""
    node = _schema()
    for part in key.split("."):
        node = _follow(node)["properties"][part]
    return _follow(node)


def choices(key: str) -> tuple:
    """The values one config key allows (its ``enum``; for a list, its items'), by its dotted path: the one home of
    every set of named choices, which the code reads rather than copies."""
    return _choices(methods_module.REGISTRY, key)


@functools.cache
def _choices(registry: Registry[Method], key: str) -> tuple:
    """:func:`choices`, remembered per registry (whose names are the choices of ``methods``)."""
    node = described(key)
    return tuple(node["enum"] if "enum" in node else _follow(node["items"])["enum"])


def _follow(node: dict) -> dict:
    ref = node.get("$ref")
    return {**subschema(ref), **{k: v for k, v in node.items() if k != "$ref"}} if ref else node


def flag(parser, name: str, key: str, **overrides):
    """Add ``--name`` to an argparse ``parser`` for config key ``key``: its type, choices, default and help.

    A boolean becomes ``--name`` / ``--no-name``; a list takes one or more values. ``overrides`` replace what the schema
    gives (``help``, ``metavar``, ``dest``).
    """
    action = parser.add_argument(
        name, **{"default": default(key), "help": _help(described(key)), **kinds(key), **overrides}
    )
    action.schema_key = key
    return action


def kinds(key: str) -> dict:
    """The argparse keywords that make a flag take what config key ``key`` takes: its type, choices and arity.

    Every such flag records that it was given (:func:`given`).
    """
    node = described(key)
    types = node.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    kind = next((t for t in types if t != "null"), None)
    options: dict[str, Any] = {"action": _GivenSwitch if kind == "boolean" else _Given}
    if kind == "array":
        options["nargs"] = "+"
        if "enum" in node.get("items", {}):
            options["choices"] = node["items"]["enum"]
    elif "enum" in node:
        options["choices"] = node["enum"]
    elif kind in ("integer", "number"):
        options["type"] = int if kind == "integer" else float
    return options


# The namespace attribute naming the flags a command line gave (argparse keeps its defaults and the given values alike).
GIVEN = "given_flags"


def given(args) -> set[str]:
    """The destinations of the flags of config keys that the command line gave (not left at their defaults)."""
    return set(getattr(args, GIVEN, ()))


def _remember(namespace, dest: str) -> None:
    setattr(namespace, GIVEN, {*getattr(namespace, GIVEN, ()), dest})


class _Given(argparse.Action):
    """A config key's flag with a value: stored, as argparse's default action stores it, and recorded as given."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        _remember(namespace, self.dest)


class _GivenSwitch(argparse.BooleanOptionalAction):
    """A boolean config key's ``--x`` / ``--no-x``, recorded as given."""

    def __call__(self, parser, namespace, values, option_string=None):
        super().__call__(parser, namespace, values, option_string)
        _remember(namespace, self.dest)


def flag_key(action, args) -> str | None:
    """The config key a flag sets: its own, or for a flag of several methods (``compare``'s ``--seed``), the
    key of the method ``--method`` names (None where that method reads no such setting)."""
    keys = getattr(action, "method_keys", None)
    return keys.get(args.method) if keys is not None else getattr(action, "schema_key", None)


def check_flags(parser, args) -> None:
    """Raise :class:`BiasflowError` for a flag value its config key does not allow (``--batch-size 0``).

    argparse checks types and choices; bounds and the like are the schema's, and a value a
    config could not hold is refused as the config check refuses it, in one line.
    """
    for action in parser._actions:
        key = flag_key(action, args)
        value = getattr(args, action.dest, None)
        if key is not None and value is not None:
            check_value(action.option_strings[0], value, key)


def check_value(option: str, value, key: str) -> None:
    """Raise :class:`BiasflowError` when a flag's ``value`` is one config key ``key`` could not hold."""
    import jsonschema

    from biasflow.errors import BiasflowError

    error = next(jsonschema.Draft202012Validator(described(key)).iter_errors(value), None)
    if error is not None:
        raise BiasflowError(
            f"{option} {value}: {error.message}; the config key {key} takes the same values (config/README.md)."
        )


def _help(node: dict) -> str:
    """The key's description, with argparse's % escaped, and its default named."""
    text = " ".join(str(node.get("description", "")).split()).replace("%", "%%")
    return f"{text} (default: %(default)s)"


def filling_validator(jsonschema):
    """A Draft 2020-12 validator that sets every missing property that has a default (a copy of it)."""
    base = jsonschema.Draft202012Validator
    check_properties = base.VALIDATORS["properties"]

    def fill_then_check(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, subschema_ in properties.items():
                if "default" in subschema_ and name not in instance:
                    instance[name] = copy.deepcopy(subschema_["default"])
        yield from check_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(base, {"properties": fill_then_check})
