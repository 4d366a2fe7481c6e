"""Each method's smallest effect worth detecting, ``power.min_effect.<name>``, and its margin in a ``compare:`` pair,
``compare[].margin.<name>``, come from the ``x-min-effect`` of its own schema file, not from the core's schema
(issue 48; docs/adding-a-method.md, section 4). The three methods' keys moved there unchanged. A method installed
from outside, and one that declares no effect, are tests/core/test_adding_a_method.py's."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from biasflow.methods import MARGIN, MIN_EFFECT, methods, packaged
from biasflow.schema import config_schema, default, described, subschema

MARGINS = "#/properties/compare/items/properties/margin/properties"


def test_the_core_schema_names_no_methods_effect_or_margin():
    core = yaml.safe_load(resources.files("biasflow").joinpath("schemas/config.schema.yaml").read_text())
    assert core["properties"]["power"]["properties"]["min_effect"]["properties"] == {}
    assert core["properties"]["compare"]["items"]["properties"]["margin"]["properties"] == {}


@pytest.mark.parametrize("declared", methods(), ids=lambda declared: declared.name)
def test_each_methods_effect_and_margin_are_its_own_declaration(declared):
    """The assembled keys are the method's file's x-min-effect (less its x-margin) and the margin derived from it;
    the keyword itself is not left in the method's section."""
    own = yaml.safe_load(packaged(declared.schema).read_text())[MIN_EFFECT]
    assert described(f"power.min_effect.{declared.name}") == {key: value for key, value in own.items() if key != MARGIN}
    assert subschema(MARGINS)[declared.name] == {
        "type": ["number", "null"],
        "exclusiveMinimum": 0,
        "default": None,
        "description": f"{own[MARGIN]}; null: `power.min_effect.{declared.name}`.",
    }
    assert MIN_EFFECT not in config_schema()["properties"][declared.name]


# The three methods' keys as the core's schema held them before they moved into each method's file (CAIRO's margin
# since naming the measure's key where it is now, cairo.bias.measure).
BEFORE = {
    "cairo": (
        {
            "type": "number",
            "exclusiveMinimum": 0,
            "default": 0.05,
            "description": "CAIRO: a subgroup's mean score against the other subgroups' (scorer units: 0.05 toxicity).",
        },
        "CAIRO's margin on the difference of Eq. 1 (or of the excess bias, with `cairo.bias.measure: excess`), in "
        "scorer units; null: `power.min_effect.cairo`.",
    ),
    "fairpair": (
        {
            "type": "number",
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 1,
            "default": 0.025,
            "description": "FairPair: the excess R, the weighted mean of R = F / (1 + F) above its permutation null "
            "(0.025: about 0.1 of F near F = 1).",
        },
        "FairPair's margin on the difference of excess R; null: `power.min_effect.fairpair`.",
    ),
    "fpr": (
        {
            "type": "number",
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 1,
            "default": 0.05,
            "description": "FPR gaps: a group's false-positive rate against the other groups' (0.05: 10% against 15%).",
        },
        "The FPR gaps' margin on the difference of gap spans (a rate); null: `power.min_effect.fpr`.",
    ),
}


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_the_three_methods_keys_are_unchanged_by_the_move(name):
    effect, margin = BEFORE[name]
    assert described(f"power.min_effect.{name}") == effect
    assert default(f"power.min_effect.{name}") == effect["default"]
    assert subschema(MARGINS)[name]["description"] == margin


def test_the_default_power_effects_are_every_methods():
    assert default("power.min_effect") == {"cairo": 0.05, "fairpair": 0.025, "fpr": 0.05}
