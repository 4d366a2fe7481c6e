"""The package's layout holds: one package per method on a shared core, and thin scripts.

A method package (each registered method that ships here: cairo, fairpair, fpr) imports no
other method package; the shared core imports none of them; nothing imports Snakemake; every
table contract has one name; every workflow script is one call into the library with its
paths passed by keyword.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

from biasflow.methods import REGISTRY
from workflow_helpers import REPO

PACKAGE = REPO / "src" / "biasflow"
# The registered methods whose package ships here (one installed from elsewhere has its package there).
METHODS = tuple(name for name in REGISTRY.names() if (PACKAGE / name / "method.py").is_file())
MODULES = sorted(PACKAGE.rglob("*.py"))


def owner(path: Path) -> str:
    """The method package a module belongs to, or "core"."""
    first = path.relative_to(PACKAGE).parts[0]
    return first if first in METHODS else "core"


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (function-local imports included), but what the package's
    ``__init__.py`` imports for type checkers alone: the public functions of biasflow's own methods, as their
    declarations name them (tests/core/test_api.py), which never run."""
    tree = ast.parse(path.read_text())
    if path == PACKAGE / "__init__.py":
        for node in tree.body:
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                node.body = [ast.Pass()]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def methods_named(modules: set[str]) -> set[str]:
    return {name.split(".")[1] for name in modules if name.startswith("biasflow.") and name.split(".")[1] in METHODS}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_crosses_into_another_method(path):
    reached = methods_named(imported_modules(path)) - {owner(path)}
    assert not reached, f"{path.relative_to(PACKAGE)} ({owner(path)}) imports the method package(s) {reached}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_nothing_under_src_imports_snakemake(path):
    assert not {m for m in imported_modules(path) if m.split(".")[0] == "snakemake"}


def test_every_method_package_and_the_core_have_modules():
    """Each package here with a declaration is a registered method, so no package escapes the tests above."""
    owners = {owner(path) for path in MODULES}
    assert owners == {"core", *METHODS}
    assert {path.parent.name for path in PACKAGE.glob("*/method.py")} == set(METHODS)


def test_each_table_contract_has_one_name():
    """A ``*_COLUMNS`` name is defined in one module only, so no name means two tables."""
    defined = defaultdict(list)
    for path in MODULES:
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id.endswith("_COLUMNS"):
                        defined[target.id].append(str(path.relative_to(PACKAGE)))
    twice = {name: where for name, where in defined.items() if len(where) > 1}
    assert not twice, f"table contract names defined more than once: {twice}"


@pytest.mark.parametrize(
    "script", sorted((REPO / "workflow" / "scripts").rglob("*.py")), ids=lambda p: str(p.relative_to(REPO))
)
def test_scripts_are_one_call_with_keyword_arguments(script):
    """``run(lambda sm: step(name=..., ...), snakemake)`` under a main guard: no logic, no path by position.

    The guard is needed because vLLM starts worker processes that import the script again.
    """
    body = ast.parse(script.read_text()).body
    [guard] = [node for node in body if not isinstance(node, (ast.Import, ast.ImportFrom))]
    assert isinstance(guard, ast.If) and ast.unparse(guard.test) == "__name__ == '__main__'"
    assert len(guard.body) == 1 and isinstance(guard.body[0].value, ast.Call), "one call under the guard"
    outer = guard.body[0].value
    assert isinstance(outer.func, ast.Name) and outer.func.id == "run"
    step = outer.args[0]
    assert isinstance(step, ast.Lambda) and isinstance(step.body, ast.Call)
    assert not step.body.args, f"{script.name} passes {len(step.body.args)} argument(s) by position"
    assert step.body.keywords


@pytest.mark.parametrize(
    "script", sorted((REPO / "workflow" / "scripts").rglob("*.py")), ids=lambda p: str(p.relative_to(REPO))
)
def test_every_name_a_script_imports_is_where_it_says(script):
    """A module moved or a name renamed in the library fails here, in seconds, not in a workflow job."""
    import importlib

    for node in ast.parse(script.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{script.name}: {node.module} has no {alias.name}"
