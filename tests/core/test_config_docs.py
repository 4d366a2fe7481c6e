"""The key table of config/README.md is the config schema's, and every key is described."""

from __future__ import annotations

import subprocess
import sys

import pytest

from biasflow.config_docs import (
    BEGIN,
    END,
    KeyDoc,
    first_difference,
    inline_yaml,
    key_docs,
    markdown_table,
    rewritten,
)
from biasflow.schema import config_schema
from workflow_helpers import REPO

README = REPO / "config/README.md"

# JSON Schema keywords the config schema uses. A key outside this list is almost always a
# YAML slip: an unquoted comma in a flow mapping ({description: a, b}) makes "b" a key.
KEYWORDS = {
    "$schema",
    "$ref",
    "definitions",
    "$defs",  # a method's own definitions, in its file (tests/core/test_schema_definitions.py)
    "type",
    "enum",
    "const",
    "properties",
    "additionalProperties",
    "propertyNames",
    "required",
    "items",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "minLength",
    "minProperties",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "pattern",
    "allOf",
    "if",
    "then",
    "default",
    "description",
}


def test_readme_table_is_the_schema_table():
    problem = first_difference(README.read_text(), config_schema())
    assert problem is None, problem


def test_every_key_has_a_description():
    undescribed = [doc.path for doc in key_docs(config_schema()) if not doc.meaning.strip()]
    assert not undescribed, f"schema keys without a description (add one, then rewrite config/README.md): {undescribed}"


def test_schema_uses_only_known_keywords():
    def stray(schema: dict, where: str):
        for key, value in schema.items():
            if key not in KEYWORDS:
                yield f"{where}: {key!r}"
            elif key in ("properties", "definitions", "$defs"):
                for name, sub in value.items():
                    yield from stray(sub, f"{where}.{key}.{name}")
            elif key in ("additionalProperties", "items", "propertyNames", "if", "then") and isinstance(value, dict):
                yield from stray(value, f"{where}.{key}")
            elif key == "allOf":
                for i, sub in enumerate(value):
                    yield from stray(sub, f"{where}.allOf[{i}]")

    found = list(stray(config_schema(), "(schema)"))
    assert not found, f"not JSON Schema keywords (an unquoted comma in a flow mapping?): {found}"


TINY = {
    "type": "object",
    "required": ["models"],
    "definitions": {
        "decoding": {
            "type": "object",
            "description": "How to decode.",
            "properties": {
                "temperature": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "default": 1.0,
                    "description": "Softmax temperature.",
                }
            },
        },
        "model": {
            "type": "object",
            "description": "A model entry.",
            "required": ["model"],
            "properties": {
                "model": {"type": "string", "description": "Where the weights are."},
                "decoding": {"$ref": "#/definitions/decoding", "default": {}},
            },
        },
    },
    "properties": {
        "models": {
            "type": "object",
            "description": "Evaluated models.",
            "additionalProperties": {"$ref": "#/definitions/model"},
        },
        "split": {"type": "string", "enum": ["valid", "test"], "default": "valid", "description": "Which | split."},
        "budget": {"type": ["integer", "null"], "minimum": 1, "default": None, "description": "At most this many."},
        "axes": {
            "type": "object",
            "minProperties": 1,
            "default": {"gender": ["BOLD", "HONEST"]},
            "description": "Axis to metrics.",
            "additionalProperties": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "string"},
                "description": "Its metrics.",
            },
        },
        "pairs": {
            "type": "array",
            "default": [{"name": "John"}],
            "description": "Name pairs.",
            "items": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "description": "A name."},
                    "label": {"type": "string", "default": "a: b", "description": "A label."},
                },
            },
        },
    },
}


def test_tiny_schema_renders_to_the_worked_rows():
    assert key_docs(TINY) == [
        KeyDoc("models", "map of object (model)", "required", "Evaluated models."),
        KeyDoc("models.<name>", "object (model)", "—", "A model entry."),
        KeyDoc("models.<name>.model", "string", "required", "Where the weights are."),
        KeyDoc("models.<name>.decoding", "object (decoding)", "`{}`", "How to decode."),
        KeyDoc("models.<name>.decoding.temperature", "number > 0", "`1.0`", "Softmax temperature."),
        KeyDoc("split", "one of `valid`, `test`", "`valid`", "Which | split."),
        KeyDoc("budget", "integer ≥ 1 or null", "`null`", "At most this many."),
        KeyDoc("axes", "non-empty map of non-empty list of string", "`{gender: [BOLD, HONEST]}`", "Axis to metrics."),
        KeyDoc("axes.<name>", "non-empty list of string", "—", "Its metrics."),
        KeyDoc("pairs", "list of object", "`[{name: John}]`", "Name pairs."),
        KeyDoc("pairs[].name", "string", "required", "A name."),
        KeyDoc("pairs[].label", "string", '`"a: b"`', "A label."),
    ]
    table = markdown_table(TINY).splitlines()
    assert table[:2] == ["| key | type | default | meaning |", "|---|---|---|---|"]
    assert table[7] == r"| `split` | one of `valid`, `test` | `valid` | Which \| split. |"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (0.2, "0.2"),
        ([0], "[0]"),
        ({}, "{}"),
        ("auto", "auto"),
        ("null", '"null"'),
        ("", '""'),
        ({"max_new_tokens": 128, "top_p": 0.9}, "{max_new_tokens: 128, top_p: 0.9}"),
    ],
)
def test_defaults_are_inline_yaml(value, text):
    assert inline_yaml(value) == text


def test_check_names_the_first_stale_key():
    schema = config_schema()
    text = rewritten(f"# Title\n\nProse.\n\n{BEGIN}\n{END}\n\nMore prose.\n", schema)
    assert text.startswith("# Title\n\nProse.\n\n") and text.endswith(f"{END}\n\nMore prose.\n")
    assert first_difference(text, schema) is None
    changed = text.replace("| `0.2` | Share of each", "| `0.3` | Share of each")
    assert "key cairo.valid_fraction" in first_difference(changed, schema)
    dropped = "\n".join(line for line in text.splitlines() if not line.startswith("| `fpr.z`"))
    assert "key fpr.z is in the schema but not in the table" in first_difference(dropped, schema)
    with pytest.raises(ValueError, match="no generated table"):
        first_difference("# no markers\n", schema)


def test_command_check_exits_non_zero_with_one_line(tmp_path, capsys):
    """The check as a shell runs it (a process of its own, exit status 1); the rewrite in this process."""
    from biasflow.config_docs import main

    stale = tmp_path / "README.md"
    stale.write_text(README.read_text().replace("| `fpr.runs` | integer ≥ 2 | `5` |", "| `fpr.runs` | integer | `5` |"))
    command = [sys.executable, "-m", "biasflow.config_docs", "--readme", str(stale)]
    checked = subprocess.run([*command, "--check"], capture_output=True, text=True, check=False)
    assert checked.returncode == 1
    assert checked.stderr.count("\n") == 1 and "key fpr.runs" in checked.stderr
    assert "python -m biasflow.config_docs" in checked.stderr
    assert main(["--readme", str(stale)]) == 0
    assert capsys.readouterr().out == f"{stale}: rewrote the key table ({len(key_docs(config_schema()))} keys)\n"
    assert stale.read_text() == README.read_text()
