"""Each method's declaration (biasflow/methods.py): every part it names exists, and the core names no method."""

from __future__ import annotations

import ast
import inspect
import io
import re
import tokenize

import pytest

from biasflow.config import used_model_entries
from biasflow.methods import REGISTRY, method, methods, own_models
from workflow_helpers import REPO

PACKAGE = REPO / "src" / "biasflow"
NAMES = REGISTRY.names()


def test_the_three_methods_are_registered_in_name_order():
    assert NAMES == ("cairo", "fairpair", "fpr")
    assert [m.name for m in methods()] == list(NAMES)
    assert [m.name for m in methods(["fpr", "cairo"])] == ["fpr", "cairo"]


@pytest.mark.parametrize("name", NAMES)
def test_every_part_a_declaration_names_is_there(name):
    declared = method(name)
    assert (PACKAGE / name / "method.py").is_file()
    assert list(inspect.signature(declared.part("check")).parameters) == ["config", "workdir"]
    assert list(inspect.signature(declared.part("commands")).parameters) == ["commands"]
    planner = declared.part("power")
    assert hasattr(planner, "Settings") and callable(planner.plan)
    assert callable(declared.part("compare").command)
    flag, files = declared.compare_input
    assert flag.isidentifier() and files


def test_models_loaded_and_evaluated_follow_each_methods_settings():
    config = {
        "methods": ["cairo", "fairpair", "fpr"],
        "models": {"a": {}, "b": {}, "c": {}},
        "paraphrasers": {"p": {}},
        "cairo": {"axes": {"gender": ["BOLD"]}},
        "fairpair": {"models": ["b"], "perturbation": {"method": "llm", "model": "p"}},
        "fpr": {"models": None},
    }
    assert own_models(config, "fairpair") == ["b"] and own_models(config, "fpr") == ["a", "b", "c"]
    assert method("cairo").evaluated(config) == ["a", "b", "c"]
    assert method("fairpair").loads(config) == [("models", "b"), ("paraphrasers", "p")]
    assert used_model_entries(config) == [("paraphrasers", "p"), ("models", "a"), ("models", "b"), ("models", "c")]
    config["methods"] = ["fairpair"]
    assert used_model_entries(config) == [("models", "b"), ("paraphrasers", "p")]
    assert method("cairo").finals(config) == ["results/cairo/gender.csv"]


def core_modules():
    return sorted(path for path in PACKAGE.rglob("*.py") if path.relative_to(PACKAGE).parts[0] not in NAMES)


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_core_names_no_method(path):
    """Beside the import test (test_layout.py): no core module spells a method's name as a value, so none
    branches on one or reads a method's config section; prose, help texts and examples may mention them."""
    named = [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value in NAMES
    ]
    assert not named, f"{path.relative_to(PACKAGE)} names a method at line(s) {named}"


def method_identifiers() -> dict[str, str]:
    """Each name a method's rule files (rules/<name>/*.smk) define (a lookup, a helper, a rule) or import from the
    method's package, and the method whose it is: what only that method's rules use."""
    own = {}
    for name in NAMES:
        for path in sorted((REPO / "rules" / name).glob("*.smk")):
            text = path.read_text()
            defined = re.findall(r"^(?:def|rule)\s+(\w+)|^(\w+)\s*=(?!=)", text, re.MULTILINE)
            imported = re.findall(rf"^from biasflow\.{name}\S* import \(?([^)\n]+)", text, re.MULTILINE)
            aliases = [part.split(" as ")[-1].strip() for names in imported for part in names.split(",")]
            own.update(dict.fromkeys([*(a or b for a, b in defined), *aliases], name))
    return own


def core_rule_files() -> list[str]:
    """The Snakefile, rules/common.smk, and every rule file the Snakefile includes by its own path (a method's
    rule files come in by RULE_METHODS): the core's, which hold only what every method uses."""
    included = re.findall(r'^include:\s*"([^"]+)"', (REPO / "Snakefile").read_text(), re.MULTILINE)
    return ["Snakefile", *included]


@pytest.mark.parametrize("path", core_rule_files())
def test_the_snakefile_and_the_core_rule_files_name_no_method(path):
    """rules/common.smk loops over what each method's rule file adds (FINAL_JOBS, POWER_SOURCES), and the
    Snakefile includes every method's rule files (RULE_METHODS), each rule saying itself whether it is local and
    each method's rule files their own wildcards: no method's name, package or config section appears in their code
    (comments may name them), and no name that only a method's rule files define or import (its lookups, such as
    the lists its wildcards are constrained to, its helpers, its rules), so a fourth method is its package and its
    rule folder."""
    text = (REPO / path).read_text()
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    named = sorted({match.lower() for name in NAMES for match in re.findall(name, code, re.IGNORECASE)})
    assert not named, f"{path} names {named}"
    own = method_identifiers()
    words = {
        token.string for token in tokenize.generate_tokens(io.StringIO(text).readline) if token.type == tokenize.NAME
    }
    used = sorted(f"{word} ({own[word]})" for word in words & set(own))
    assert not used, f"{path} uses what only a method's rule files define: {', '.join(used)}"


def test_a_methods_rule_files_define_what_the_test_above_looks_for():
    """The names the test above refuses are found: each method's lookups, helpers and rules."""
    own = method_identifiers()
    assert {"cairo_select", "fairpair_summary", "fpr_classify", "FPR_PROBES", "fpr_output", "fairpair_outputs"} <= set(
        own
    )
    assert own["FPR_PROBES"] == "fpr" and own["SearchSettings"] == "cairo"


def test_the_snakefile_includes_each_methods_rule_files():
    """RULE_METHODS (rules/common.smk) is every configured method with a rule folder, rules/<name>/ with its names and
    lookups in common.smk (tests/core/test_rule_files.py checks which files a config includes)."""
    for name in NAMES:
        assert (REPO / "rules" / name / "common.smk").is_file()
        assert [path.name for path in (REPO / "rules" / name).glob("*.smk") if path.name != "common.smk"]
    assert "for _method in RULE_METHODS:" in (REPO / "Snakefile").read_text()
