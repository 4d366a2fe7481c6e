"""Each method's declaration (biasflow/methods.py): every part it names exists, and the core names no method."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import re
import sys
import tokenize

import pytest

from biasflow.cli import main
from biasflow.compare_pairs import ComparedPair, margin
from biasflow.config import used_model_entries
from biasflow.errors import BiasflowError
from biasflow.methods import CONTRACT, PARTS, REGISTRY, Method, declaration, method, methods, own_models
from biasflow.schema import default, filled
from biasflow.settings import flag_name
from biasflow.verdict_tables import comparison_settings
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


def test_the_contract_names_every_part_of_a_declaration():
    """A field added to Method is a part the contract checks, or this fails; the referenced parts are checked again
    when imported."""
    assert list(CONTRACT) == [field.name for field in dataclasses.fields(Method)]
    assert set(PARTS) == {"check", "commands", "power", "compare", "compare_settings"} < set(CONTRACT)


def test_every_registered_method_meets_the_contract():
    for name in NAMES:
        assert declaration(name, method(name)) is method(name)


# The message's end for each part refused below: what it should be (docs/adding-a-method.md, section 2).
ASKED = {
    "check": 'give "module:function" of function(config, workdir), which returns warnings and raises BiasflowError '
    "for the first problem in its settings",
    "commands": 'give "module:function" of function(subparsers), which adds its biasflow commands',
    "power": 'give "module" with its power planner\'s Settings, a biasflow.power.PowerSettings, and plan(sources, '
    "settings)",
    "compare": 'give "module" with its paired comparison, command(paths, baseline, candidate, config, margin, '
    "margin_source)",
    "compare_settings": 'give None or "module:Class" of a biasflow.settings.StepSettings, the settings its comparison '
    "reads",
}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"title": ""}, "its title '' is no text; give how the report and the CLI name it"),
        ({"finals": ["x.csv"]}, "its finals ['x.csv'] is no function; give finals(config), its final tables"),
        (
            {"check": "biasflow.fpr.checks"},
            f"its check 'biasflow.fpr.checks' is no \"module:function\"; {ASKED['check']}",
        ),
        (
            {"check": "biasflow.fpr.chekcs:check"},
            f"its check 'biasflow.fpr.chekcs:check' names the module 'biasflow.fpr.chekcs', which is not installed; "
            f"{ASKED['check']}",
        ),
        (
            {"compare": "fpr_plugin.verdicts"},
            f"its compare 'fpr_plugin.verdicts' names the module 'fpr_plugin.verdicts', which is not installed; "
            f"{ASKED['compare']}",
        ),
        (
            {"power": "biasflow.fpr.power:"},
            f'its power \'biasflow.fpr.power:\' is no "module" or "module:name"; {ASKED["power"]}',
        ),
        (
            {"compare_input": ("predictions",)},
            "its compare_input ('predictions',) is no pair of texts; give (flag, help): the biasflow compare flag "
            "naming its input files, and its help",
        ),
        (
            {"schema": "biasflow.fpr:config.yaml"},
            "its schema 'biasflow.fpr:config.yaml' names no file shipped inside a package; give \"package:file\", the "
            "JSON schema of its config section, a YAML file in its package",
        ),
        (
            {"named": ("fpr", "probes")},
            "its named ('fpr', 'probes') is no tuple of tuples of keys; give the config keys, each a tuple of names, "
            "of its maps whose names become parts of paths",
        ),
        (
            {"api": ("biasflow.fpr.api",)},
            'its api (\'biasflow.fpr.api\',) is no "module:function"; give "module:function" of each of its public '
            "functions",
        ),
        (
            {"rules": "rules"},
            'its rules \'rules\' is no "package:folder"; give None or "package:folder", its rule folder '
            "inside its package",
        ),
    ],
)
def test_a_declaration_missing_or_mistaking_a_part_is_refused_in_one_line(changes, message):
    """What the registry holds every installed method to when it loads it (biasflow.methods.declaration): the
    first problem, naming the method, the part and what it should be."""
    with pytest.raises(BiasflowError) as refused:
        declaration("fpr", dataclasses.replace(method("fpr"), **changes))
    assert str(refused.value) == f"method 'fpr': {message} (docs/adding-a-method.md, section 2)."


@pytest.mark.parametrize(
    ("loaded", "message"),
    [
        (
            "METHOD",
            "method 'fpr': its entry point gives a str, not a biasflow.methods.Method; point it at the METHOD = "
            "Method(...) of its method.py (docs/adding-a-method.md, section 2).",
        ),
        (
            dataclasses.replace(REGISTRY.get("fairpair")),
            "method 'fpr': its entry point gives the method 'fairpair'; give the entry point the name of its Method "
            "(docs/adding-a-method.md, section 2).",
        ),
    ],
)
def test_an_entry_point_giving_no_method_of_its_name_is_refused(loaded, message):
    with pytest.raises(BiasflowError) as refused:
        declaration("fpr", loaded)
    assert str(refused.value) == message


@pytest.fixture
def half_power(tmp_path, monkeypatch):
    """A power module with the planner's Settings and a plan that takes no settings."""
    (tmp_path / "half_power.py").write_text(
        "from biasflow.power import PowerSettings\n\nclass Settings(PowerSettings):\n    pass\n\n"
        "def plan(sources):\n    return sources\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("half_power", None)


@pytest.mark.parametrize(
    ("part", "reference", "problem"),
    [
        ("check", "biasflow.fpr.checks:chek", "names nothing, biasflow.fpr.checks having no chek"),
        ("check", "biasflow.fpr.outputs:summary", "is no function(config, workdir)"),
        ("commands", "biasflow.fpr.outputs:FOLDER", "is no function(subparsers)"),
        ("power", "biasflow.fpr.outputs", "has no Settings, a biasflow.power.PowerSettings"),
        ("power", "half_power", "has no plan(sources, settings)"),
        ("compare", "biasflow.fpr.power", "has no command(paths, baseline, candidate, config, margin, margin_source)"),
        ("compare_settings", "biasflow.fpr.outputs:FOLDER", "is no biasflow.settings.StepSettings dataclass"),
    ],
)
def test_a_part_lacking_what_the_core_calls_is_refused_when_first_imported(half_power, part, reference, problem):
    """The contract's check of what a referenced module holds, made when it is first imported (Method.part): a
    module that is there but holds the wrong thing."""
    declared = dataclasses.replace(method("fpr"), **{part: reference})
    assert declaration("fpr", declared) is declared, "its module is installed: the registry loads it"
    with pytest.raises(BiasflowError) as refused:
        declared.part(part)
    assert str(refused.value) == (
        f"method 'fpr': its {part} {reference!r} {problem}; {ASKED[part]} (docs/adding-a-method.md, section 2)."
    )


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
    """The Snakefile and every rule file at the top of rules/ (the core's lookups, the helpers every namespace
    includes, the module each method's rules are made of, power and compare): the core's, which hold only what every
    method uses (a method's rule files are in its folder)."""
    return ["Snakefile", *sorted(str(path.relative_to(REPO)) for path in (REPO / "rules").glob("*.smk"))]


@pytest.mark.parametrize("path", core_rule_files())
def test_the_snakefile_and_the_core_rule_files_name_no_method(path):
    """rules/common.smk reads what each method adds to the targets from its declaration, and the Snakefile makes
    every method's rule files a module of their own (RULE_METHODS), each rule saying itself whether it is local and
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
    assert {
        "cairo_select",
        "fairpair_summary",
        "fpr_classify",
        "FPR_PROBES",
        "fpr_probe_output",
        "fairpair_outputs",
    } <= set(own)
    assert own["FPR_PROBES"] == "fpr" and own["SearchSettings"] == "cairo"


def test_the_snakefile_includes_each_methods_rule_files():
    """RULE_METHODS (rules/common.smk) is every configured method with a rule folder, rules/<name>/ with its names and
    lookups in common.smk, each a module of its own (tests/core/test_rule_files.py checks which files a config
    includes)."""
    for name in NAMES:
        assert (REPO / "rules" / name / "common.smk").is_file()
        assert [path.name for path in (REPO / "rules" / name).glob("*.smk") if path.name != "common.smk"]
    assert "for _method in RULE_METHODS:" in (REPO / "Snakefile").read_text()


@pytest.mark.parametrize("name", NAMES)
def test_a_methods_comparison_receives_its_margin_as_a_number(name):
    """The margin's fallback (power.min_effect.<method>) is the core's alone (biasflow.compare_pairs.margin): a
    method's comparison takes the number and where it came from, and has no default of its own."""
    parameters = inspect.signature(method(name).part("compare").command).parameters
    assert parameters["margin"].default is inspect.Parameter.empty
    assert parameters["margin_source"].default is inspect.Parameter.empty


def test_the_margin_falls_back_to_the_methods_min_effect_in_one_place():
    config = filled({"power": {"min_effect": {"cairo": 0.2}}})
    assert margin(config, "cairo") == (0.2, "power.min_effect.cairo")
    assert margin(None, "fpr") == (default("power.min_effect.fpr"), "power.min_effect.fpr")
    assert margin(config, "cairo", 0.5) == (0.5, "--margin")
    pair = ComparedPair("a", "b", {"cairo": 0.3, "fpr": None})
    assert pair.margin(config, "cairo") == (0.3, "compare[].margin.cairo")
    assert pair.margin(config, "fpr") == (default("power.min_effect.fpr"), "power.min_effect.fpr")


@pytest.mark.parametrize("name", NAMES)
def test_compare_flags_and_the_rules_settings_are_the_fields_of_the_methods_compare_settings(name, capsys):
    """Each field of a method's compare_settings class is a `biasflow compare` flag helped by the class's `what`, and
    the workflow's comparison rule passes exactly the class's keys: the class names each key once."""
    settings = method(name).part("compare_settings")
    fields = [field.name for field in dataclasses.fields(settings)]
    assert set(settings.what) == set(fields)
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for field in fields:
        assert f"{flag_name(field)} " in shown
        assert f"{name}: {' '.join(settings.what[field].split())} ({settings.key(field)}," in shown

    def keys(part, prefix=""):
        return [
            key
            for label, value in part.items()
            for key in (keys(value, f"{prefix}{label}.") if isinstance(value, dict) else [f"{prefix}{label}"])
        ]

    assert sorted(keys(comparison_settings(filled({}), name))) == sorted(settings.key(field) for field in fields)
