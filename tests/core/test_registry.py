"""The one registry kind (biasflow/registry.py): names without imports, lazy loading, one message for a typo, and
a contract each installed member is held to when it is loaded."""

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


def installed(monkeypatch, value: str, accept=None) -> Registry:
    """A registry whose one installed member, ``zeta``, is the entry point ``value``, held to ``accept``."""
    entry = EntryPoint(name="zeta", value=value, group="toy.group")
    monkeypatch.setattr("biasflow.registry.entry_points", lambda group: [entry])
    return Registry("widget", builtin=[("alpha", "built in")], group="toy.group", accept=accept)


def test_a_contract_holds_each_installed_member_once_when_it_is_loaded(registry, monkeypatch):
    """What the entry point loads is what the contract returns, checked once, when it is loaded: listing the names
    checks nothing, and a built-in member is the registry's own."""
    checked = []

    def accept(name: str, loaded: object) -> str:
        checked.append(name)
        return f"{loaded}, accepted"

    strict = installed(monkeypatch, "toy_plugin_module:MEMBER", accept)
    assert strict.names() == ("alpha", "zeta") and checked == []
    assert strict.get("zeta") == "loaded, accepted" and strict.get("zeta") == "loaded, accepted"
    assert strict.get("alpha") == "built in" and checked == ["zeta"]


def test_a_member_breaking_the_contract_is_refused_when_it_is_loaded(registry, monkeypatch):
    def accept(name: str, loaded: object) -> str:
        raise BiasflowError(f"widget {name!r}: {loaded!r} is no widget.")

    strict = installed(monkeypatch, "toy_plugin_module:MEMBER", accept)
    with pytest.raises(BiasflowError, match=r"^widget 'zeta': 'loaded' is no widget\.$"):
        strict.get("zeta")
    assert strict.names() == ("alpha", "zeta"), "a refused member is still listed, so its name is no typo"


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("missing_plugin_module:MEMBER", "ModuleNotFoundError: No module named 'missing_plugin_module'"),
        ("toy_plugin_module:MEMBRE", "AttributeError: module 'toy_plugin_module' has no attribute 'MEMBRE'"),
    ],
)
def test_an_entry_point_that_cannot_be_imported_is_one_line_naming_it(registry, monkeypatch, value, error):
    with pytest.raises(BiasflowError) as refused:
        installed(monkeypatch, value).get("zeta")
    assert str(refused.value) == (
        f"widget 'zeta': its entry point {value!r} (group toy.group) cannot be loaded ({error}); fix or reinstall the "
        "package that registers it."
    )
