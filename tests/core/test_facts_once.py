"""Facts written once (issue 31): no module copies a set of choices the config schema holds."""

from __future__ import annotations

import ast
import re
import tokenize
from pathlib import Path

import pytest

from biasflow.schema import choices, config_schema
from workflow_helpers import REPO

PACKAGE = REPO / "src" / "biasflow"


def schema_enums(node) -> list[tuple[str, ...]]:
    """Every ``enum`` of two or more strings anywhere in the schema."""
    found = []
    if isinstance(node, dict):
        enum = node.get("enum")
        if isinstance(enum, list) and len(enum) >= 2 and all(isinstance(v, str) for v in enum):
            found.append(tuple(enum))
        for value in node.values():
            found += schema_enums(value)
    elif isinstance(node, list):
        for value in node:
            found += schema_enums(value)
    return found


ENUMS = {frozenset(enum): enum for enum in schema_enums(config_schema())}


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_copies_a_schema_enum(path):
    """A tuple or list of the same strings as a schema enum is a second home for it: read ``choices(key)``."""
    copies = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, (ast.Tuple, ast.List))
            and len(node.elts) >= 2
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
        ):
            values = frozenset(e.value for e in node.elts)
            if values in ENUMS:
                copies.append((node.lineno, ENUMS[values]))
    assert not copies, f"{path.relative_to(PACKAGE)} copies schema enum(s) at {copies}"


def test_choices_reads_a_keys_enum_or_its_items_enum():
    assert choices("fpr.interval") == ("z", "t")
    assert choices("fairpair.dissimilarities") == ("jaccard", "sentiment")  # a list: its items' enum
    assert choices("cairo.selection.mode") == ("shared", "independent")


def test_the_embedded_default_sets_only_what_differs_from_the_schema():
    """config/config.yaml says so at its top: every key it sets changes the validated config (removing it would
    not leave the same run), so no default is written twice."""
    import copy

    import yaml

    from biasflow.config import validate_config
    from biasflow.errors import BiasflowError

    raw = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    full = copy.deepcopy(raw)
    validate_config(full)

    def paths(node, prefix=()):
        for key, value in node.items():
            yield (*prefix, key)
            if isinstance(value, dict):
                yield from paths(value, (*prefix, key))

    redundant = []
    for path in paths(raw):
        trimmed = copy.deepcopy(raw)
        parent = trimmed
        for key in path[:-1]:
            parent = parent[key]
        del parent[path[-1]]
        try:
            validate_config(trimmed)
        except BiasflowError:  # a required key: not a default
            continue
        if trimmed == full:
            redundant.append(".".join(map(str, path)))
    assert not redundant, f"config/config.yaml repeats the schema's defaults: {redundant}"
    assert "sets only what differs from the schema's defaults" in (REPO / "config" / "config.yaml").read_text()


# A number of minutes in a comment: a suite's time written by hand, which drifts.
DURATION = re.compile(r"\b\d+(?:\.\d+)?\s*(?:minutes?|min)\b")


def comment_lines(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every comment in ``path``: Python's by its tokens, others' lines starting with #."""
    if path.suffix == ".py":
        with path.open() as handle:
            tokens = tokenize.generate_tokens(handle.readline)
            return [(token.start[0], token.string) for token in tokens if token.type == tokenize.COMMENT]
    lines = path.read_text().splitlines()
    return [(number, line) for number, line in enumerate(lines, 1) if line.lstrip().startswith("#")]


def test_suite_times_are_stated_in_benchmarks_readme_alone():
    """Issue 41: the same suite's time was 5, 6 and 8 minutes in three comments. Each suite's time is in
    benchmarks/README.md ("Test suite"); the Makefile, CI, pyproject.toml, the tests' comments and the README's
    paragraph on the suites point there."""
    places = [REPO / "Makefile", REPO / ".ci" / "run", REPO / "pyproject.toml", *sorted((REPO / "tests").rglob("*.py"))]
    stated = [
        f"{path.relative_to(REPO)}:{number}: {text.strip()}"
        for path in places
        for number, text in comment_lines(path)
        if DURATION.search(text)
    ]
    assert not stated, "\n".join(stated)
    readme = (REPO / "README.md").read_text()
    suites = readme[readme.index("## Your own environment") :]
    suites = suites[: suites.index("\n## ", 1)]
    assert not DURATION.search(suites), "the README's paragraph on the suites states a time"
    assert 'benchmarks/README.md` ("Test suite")' in suites
    assert "## Test suite" in (REPO / "benchmarks" / "README.md").read_text()


def test_no_config_key_is_spelt_in_two_settings_classes():
    """A settings class names each of its keys once, by ``section`` and field or in its ``keys``; a class reading
    another's keys takes them from it (``StepSettings.keys_for``), so no key is written as a string in the ``keys``
    of two classes (issue 49: ``cairo.selection.seed`` was spelt in the selection's, the scorer bias's, the power
    planner's and the comparison's)."""
    homes: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            for statement in node.body:
                target = statement.target if isinstance(statement, ast.AnnAssign) else None
                if isinstance(target, ast.Name) and target.id == "keys" and isinstance(statement.value, ast.Dict):
                    for value in statement.value.values:
                        if isinstance(value, ast.Constant) and isinstance(value.value, str):
                            homes.setdefault(value.value, []).append(f"{path.relative_to(PACKAGE)}:{node.name}")
    assert {key: where for key, where in homes.items() if len(where) > 1} == {}
