"""The one registry kind (biasflow/registry.py): names without imports, lazy loading, one message for a typo."""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint

import pytest

from biasflow.errors import BiasflowError
from biasflow.registry import Registry


@pytest.fixture
def registry(monkeypatch, tmp_path):
    """A registry with one built-in member and one entry point whose module is imported only when asked for."""
    (tmp_path / "toy_plugin_module.py").write_text("MEMBER = 'loaded'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = EntryPoint(name="zeta", value="toy_plugin_module:MEMBER", group="toy.group")
    monkeypatch.setattr("biasflow.registry.entry_points", lambda group: [entry] if group == "toy.group" else [])
    sys.modules.pop("toy_plugin_module", None)
    yield Registry("widget", builtin=[("alpha", "built in")], group="toy.group")
    sys.modules.pop("toy_plugin_module", None)


def test_names_list_builtin_then_installed_members_without_importing(registry):
    assert registry.names() == ("alpha", "zeta")
    assert "zeta" in registry.names() and "omega" not in registry.names()
    assert "toy_plugin_module" not in sys.modules


def test_a_member_is_imported_when_asked_for(registry):
    assert registry.get("zeta") == "loaded"
    assert registry.names() == ("alpha", "zeta"), "loading a member does not reorder the names"
    assert registry.get("alpha") == "built in"
    assert "toy_plugin_module" in sys.modules
    assert registry.all() == ["built in", "loaded"]


def test_an_unknown_name_says_the_close_match_and_every_choice(registry):
    with pytest.raises(
        BiasflowError,
        match=r"^config x: unknown widget 'zetta' \(did you mean zeta\?\); "
        r"use one of alpha, zeta\.$",
    ):
        registry.get("zetta", "config x: ")
    with pytest.raises(BiasflowError, match=r"^unknown widget 'q'; use one of alpha, zeta\.$"):
        registry.get("q")
