"""What docs/reliability.md ("Secrets") promises about keys, shells and remote code, checked on the code.

The run-time half (a fake key found in no output, log or metadata) is
tests/models/test_openai_server.py; these check what holds for every path through the code.
"""

from __future__ import annotations

import ast

from biasflow.models import BACKENDS, backend_class, model_spec
from biasflow.schema import config_schema
from workflow_helpers import REPO

SOURCES = sorted([*(REPO / "src" / "biasflow").rglob("*.py"), *(REPO / "workflow" / "scripts").rglob("*.py")])


def keyword_values(name: str):
    """(path, line, value node) of every call keyword ``name=`` in the sources."""
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.keyword) and node.arg == name:
                yield path.relative_to(REPO), node.value.lineno, node.value


def test_no_command_runs_through_a_shell():
    shells = [
        (str(path), line)
        for path, line, value in keyword_values("shell")
        if not (isinstance(value, ast.Constant) and value.value is False)
    ]
    assert not shells, f"subprocess calls with a shell: {shells}"


def test_remote_code_runs_only_where_a_model_entry_turns_it_on():
    forced = [
        (str(path), line)
        for path, line, value in keyword_values("trust_remote_code")
        if isinstance(value, ast.Constant) and value.value is True
    ]
    assert not forced, f"trust_remote_code=True hard-coded at {forced}"
    assert model_spec("m", {"model": "some/hub-id"}).trust_remote_code is False
    assert model_spec("m", {"model": "some/hub-id", "trust_remote_code": True}).trust_remote_code is True


def test_a_key_has_no_place_in_a_config():
    """Keys come from the environment: neither the schema nor any backend's options take one."""

    def names(schema):
        if isinstance(schema, dict):
            for key, value in schema.items():
                if key == "properties":
                    yield from value
                yield from names(value)
        elif isinstance(schema, list):
            for item in schema:
                yield from names(item)

    keyish = {name for name in names(config_schema()) if "key" in name.lower() or "token" in name.lower()}
    assert keyish <= {"max_new_tokens", "max_prompt_tokens", "keep_identity_term"}, keyish
    for backend in BACKENDS:
        options = backend_class(backend).options
        assert not [o for o in options if "key" in o and not o.endswith("_env")], (backend, options)


def test_the_key_variable_is_named_but_its_value_never_stored(monkeypatch):
    """A model's spec and its cache identity (hashed into paths and keys) hold the name, not the key."""
    monkeypatch.setenv("BIASFLOW_TEST_KEY", "sk-visible-if-leaked")
    spec = model_spec("api", {"model": "m", "backend": "openai", "options": {"api_key_env": "BIASFLOW_TEST_KEY"}})
    assert "sk-visible-if-leaked" not in repr(spec)
    assert "sk-visible-if-leaked" not in repr(spec.identity())
