"""The core schema holds no method's own parts (issue 49): its ``definitions`` are those its own keys or several
methods use, a definition only one method uses lives in that method's file (its ``$defs``, CAIRO's ``dataset``,
``score_text`` and ``scorer_device``), and a planner setting only one method reads is its section's (CAIRO's
``cairo.power.min_r``, once ``power.min_r``; the old spelling's note is tests/core/test_moved_keys.py's).
docs/adding-a-method.md, section 4."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from biasflow.methods import methods, packaged
from biasflow.schema import config_schema, described, filled, subschema

CORE = yaml.safe_load(resources.files("biasflow").joinpath("schemas/config.schema.yaml").read_text())
DEFINITION = "#/definitions/"


def refs(node) -> set[str]:
    """Every ``$ref`` anywhere in ``node``."""
    if isinstance(node, dict):
        return {node["$ref"]} if "$ref" in node else set() | set().union(*map(refs, node.values()))
    if isinstance(node, list):
        return set().union(*map(refs, node))
    return set()


def core_definitions_used(node) -> set[str]:
    """The names of the core's definitions that ``node`` refers to, directly or through another definition."""
    used: set[str] = set()
    waiting = [ref.removeprefix(DEFINITION) for ref in refs(node) if ref.startswith(DEFINITION)]
    while waiting:
        name = waiting.pop()
        if name not in used:
            used.add(name)
            waiting += [ref.removeprefix(DEFINITION) for ref in refs(CORE["definitions"][name])]
    return used


def method_file(declared) -> dict:
    return yaml.safe_load(packaged(declared.schema).read_text())


def test_every_core_definition_is_the_cores_own_or_shared_by_methods():
    """A definition the core's keys do not use and at most one method uses belongs in that method's file."""
    by_core = core_definitions_used(CORE["properties"])
    by_method = {declared.name: core_definitions_used(method_file(declared)) for declared in methods()}
    owned = {
        name: [method for method, used in by_method.items() if name in used]
        for name in CORE["definitions"]
        if name not in by_core
    }
    assert not {name: users for name, users in owned.items() if len(users) < 2}, (
        "core definitions only one method (or none) uses"
    )


def test_the_core_schema_holds_no_methods_power_setting():
    assert set(CORE["properties"]["power"]["properties"]) == {"alpha", "power", "min_effect"}


def test_cairos_own_definitions_are_in_its_file_and_refer_where_they_lie_once_assembled():
    own = method_file(next(declared for declared in methods() if declared.name == "cairo"))
    assert set(own["$defs"]) == {"dataset", "score_text", "scorer_device"}
    assert not set(own["$defs"]) & set(CORE["definitions"])
    assert {ref for ref in refs(own) if "$defs" in ref} == {f"#/properties/cairo/$defs/{name}" for name in own["$defs"]}


@pytest.mark.parametrize("declared", methods(), ids=lambda declared: declared.name)
def test_a_method_refers_to_the_cores_definitions_or_its_own(declared):
    """No method's file reaches into another method's section, whose definitions that method may change."""
    for ref in refs(method_file(declared)):
        assert ref.startswith((DEFINITION, f"#/properties/{declared.name}/$defs/")), ref


def test_every_ref_of_the_assembled_schema_resolves():
    for ref in refs(config_schema()):
        assert isinstance(subschema(ref), dict), ref


def test_the_moved_definitions_read_and_fill_as_before():
    """The keys that refer to them keep their choices and defaults (what the config check and the flags read)."""
    assert described("cairo.scoring.score_text")["enum"] == ["continuation", "prompt+continuation"]
    assert described("cairo.scoring.device")["enum"] == ["auto", "cpu", "cuda"]
    assert filled({}, "#/properties/cairo")["datasets"]["HONEST"] == {"path": None, "url": None, "options": {}}
    assert described("cairo.power.min_r")["default"] == 0.5
