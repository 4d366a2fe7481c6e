"""A config's `methods` decides which rule files the Snakefile includes: a method left out has no rule at all.

Each method's rules live in its folder, rules/<name>/ (docs/adding-a-method.md §5); the core's
rule files (rules/*.smk) hold only what every method uses. The rules Snakemake lists for a
config (``--list-rules``, which builds no DAG) are compared with the rules each file defines.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from biasflow.methods import REGISTRY
from forked_snakemake import workflow
from workflow_helpers import REPO, embedded_config, write_config

CORE_FILES = sorted((REPO / "rules").glob("*.smk"))


def defined_rules(path: Path) -> list[str]:
    """The names of the rules a rule file defines: ``rule name:``, and a rule per axis named ``f"<prefix>_{_axis}"``
    (as a pattern)."""
    text = path.read_text()
    named = re.findall(r"^\s*rule (\w+):", text, re.MULTILINE)
    per_axis = re.findall(r'^\s*f"(\w+)_\{_axis\}"', text, re.MULTILINE)
    return named + [f"{prefix}_\\w+" for prefix in per_axis]


def rules_of(files: list[Path]) -> list[str]:
    return [name for path in files for name in defined_rules(path)]


def method_files(name: str) -> list[Path]:
    return sorted((REPO / "rules" / name).glob("*.smk"))


def listed_rules(tmp_path: Path, methods: list[str]) -> set[str]:
    config = {**embedded_config(), "methods": methods}
    write_config(config, tmp_path)
    out = workflow(tmp_path, "--list-rules")
    return set(out.stdout.split())


def matches(rules: set[str], patterns: list[str]) -> set[str]:
    return {rule for rule in rules if any(re.fullmatch(pattern, rule) for pattern in patterns)}


def test_every_method_has_a_rule_folder_with_rules_and_the_core_files_none_of_theirs():
    for name in REGISTRY.names():
        assert (REPO / "rules" / name / "common.smk").is_file()
        assert rules_of(method_files(name)), f"rules/{name}/ defines no rule"
    core = rules_of(CORE_FILES)
    assert set(core) == {"power", "compare_verdicts", "compare"}


@pytest.mark.parametrize("name", REGISTRY.names())
def test_a_config_with_one_method_includes_only_its_rule_files(tmp_path, name):
    listed = listed_rules(tmp_path, [name])
    own = matches(listed, rules_of(method_files(name)))
    assert own, f"methods: [{name}] lists none of rules/{name}/'s rules"
    for other in REGISTRY.names():
        if other != name:
            assert not matches(listed, rules_of(method_files(other))), f"methods: [{name}] includes rules/{other}/"
    assert listed == own | matches(listed, rules_of(CORE_FILES)) | {"all"}
