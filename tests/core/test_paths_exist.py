"""Every file, module and config key a text names exists (issues 42 and 49): no stale path in a rule, a doc, a
docstring or a test, and no stale key in the config schema's descriptions.

A reader follows ``biasflow/fpr/outputs.py``, ``tests/core/test_api.py`` or
:mod:`biasflow.cairo.selection` from a comment to the code; a rename that leaves the old name
behind sends them nowhere. The texts checked are the ones a newcomer reads: the Snakefile and
the rules, the docs and READMEs, the workflow's scripts and schemas, the profiles, the config
files, ``pyproject.toml`` and the Makefile, everything under ``src/`` (docstrings, comments,
module references such as a Method's ``"module:name"``, and the bundled files' own notes), and
the tests, benchmarks and tools, whose docstrings name the files that check what they say.
Written paths are ``biasflow/...py`` (relative to ``src/``) and any path from a top-level
folder of the repository (``src/``, ``tests/``, ``benchmarks/``, ``tools/``, ``docs/``,
``rules/``, ``workflow/``, ``config/``, ``profiles/``, ``requirements/``), found from the
repository's root or from the folder of the file that writes it; a folder ``.gitignore``
leaves out holds what a run writes (``benchmarks/out/``), not a file of the checkout, and is
not looked for. Dotted names are ``biasflow.<module>[.<name>]``, where the name must be
defined in the module (a top-level ``biasflow.<function>`` is the public API's,
:mod:`biasflow.api`). A config key that a key's description in the config schema names in
backquotes (``cairo.bias.measure``) is a key of the schema, written from the top or from the
section that describes it, as config/README.md's key table shows both side by side.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from workflow_helpers import REPO

SUFFIXES = {".py", ".smk", ".md", ".yaml", ".yml", ".txt", ".json", ".toml", ".csv", ".tsv", ""}
FOLDERS = ("rules", "docs", "workflow", "profiles", "config", "src", "tests", "benchmarks", "tools")
SINGLE = ("Snakefile", "README.md", "pyproject.toml", "Makefile")
# The texts whose dotted names are checked: the package's and the workflow's, not the tests' (which name functions
# a toy method brings, biasflow.toy_lengths, and modules that must not exist).
DOTTED_FOLDERS = ("rules", "docs", "workflow", "profiles", "config", "src")
# The repository's top-level folders a written path starts from.
ROOTS = ("src", "tests", "benchmarks", "tools", "docs", "rules", "workflow", "config", "profiles", "requirements")
# A path: "biasflow/<parts>.py" (read under src/) or "<root folder>/<parts>", not inside a longer word, path or
# "package:path" reference, nor the fixed part of a pattern ("tests/core/test_*.py", "rules/{method}/"); "::" after
# it makes it a pytest node id.
WRITTEN_PATH = re.compile(
    rf"(?<![\w./:-])((?:{'|'.join(ROOTS)})/[\w./-]*\w/?|biasflow/[\w./-]*?\.py)(?![\w/*{{<-])(::)?"
)
# A dotted module reference: biasflow.<name>[.<name>...], not inside a longer name.
DOTTED = re.compile(r"(?<![\w.])biasflow(?:\.[A-Za-z_]\w*)+")
# Files a text has its reader write, named before they exist: path -> the text that says so.
READERS_FILES = {"config/candidate.yaml": "docs/ci.md: the model a pull request changes"}


def texts(folders: tuple[str, ...] = FOLDERS) -> list[Path]:
    """The files a newcomer reads, as this module's docstring lists them (not a local install's build records)."""
    found = [REPO / name for name in SINGLE]
    for folder in folders:
        found += [
            path
            for path in (REPO / folder).rglob("*")
            if path.is_file()
            and path.suffix in SUFFIXES
            and not any(part == "__pycache__" or part.endswith(".egg-info") for part in path.parts)
        ]
    return sorted(found)


# This file writes stale paths on purpose: the check's own examples (test_a_stale_path_is_found).
TEXTS = [path for path in texts() if path != Path(__file__)]


def generated_folders(repo: Path) -> tuple[str, ...]:
    """The folders ``.gitignore`` leaves out (``benchmarks/out/``, ``results/``): what a run writes there."""
    lines = (repo / ".gitignore").read_text().splitlines()
    return tuple(line.lstrip("/") for line in lines if line.endswith("/") and not line.startswith(("#", "*")))


def written_paths(text: str) -> set[tuple[str, bool]]:
    """Each path ``text`` writes (``biasflow/...py`` as ``src/biasflow/...py``) and whether it is a pytest node id."""
    return {
        (found if not found.startswith("biasflow/") else f"src/{found}", bool(node))
        for found, node in WRITTEN_PATH.findall(text)
    }


def missing_path(text: str, repo: Path, where: Path | None = None) -> list[str]:
    """The paths ``text`` writes that exist neither from ``repo`` nor from ``where`` (the folder of its file); a
    pytest node id may be written from ``tests/``, as pytest's own lists of tests write it."""
    generated = generated_folders(repo)
    starts = [repo, *([where] if where else [])]
    return sorted(
        path
        for path, node in written_paths(text)
        if not path.startswith(generated)
        and path not in READERS_FILES
        and not any((start / path).exists() for start in [*starts, *([repo / "tests"] if node else [])])
    )


def _spec(name: str):
    try:
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:  # a parent that is not a package: no module by this name
        return None


def unresolved_name(dotted: str) -> bool:
    """Whether ``dotted`` names no module of the package, or a name its module does not define."""
    parts = dotted.split(".")
    depth = len(parts)
    while depth > 1 and _spec(".".join(parts[:depth])) is None:
        depth -= 1
    module = importlib.import_module(".".join(parts[:depth]))
    return depth < len(parts) and not hasattr(module, parts[depth])


def test_texts_are_read():
    """The scan reaches the rules, the docs, the package and the tests (a layout change must not silently empty it)."""
    read = {path.relative_to(REPO).parts[0] for path in TEXTS}
    assert {"rules", "docs", "src", "workflow", "tests", "benchmarks", "Snakefile", "pyproject.toml"} <= read


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_written_path_exists(path):
    missing = missing_path(path.read_text(errors="ignore"), REPO, path.parent)
    assert not missing, f"{path.relative_to(REPO)} names file(s) that do not exist: {', '.join(missing)}"


@pytest.mark.parametrize("path", texts(DOTTED_FOLDERS), ids=lambda p: str(p.relative_to(REPO)))
def test_every_dotted_module_reference_resolves(path):
    names = sorted(set(DOTTED.findall(path.read_text(errors="ignore"))))
    unresolved = [name for name in names if unresolved_name(name)]
    assert not unresolved, f"{path.relative_to(REPO)} names what does not exist: {', '.join(unresolved)}"


def test_a_stale_path_is_found():
    """The check itself: a comment citing a module that is not there is reported, one that is there is not; so is a
    stale path from any top-level folder, as pyproject.toml, a bundled README and a test once wrote them, while a
    pattern, a package's own path, a run's output and a node id written from tests/ are not."""
    comment = (
        "# A path (biasflow/fpr/fpr_outputs.py); by role (biasflow/fpr/outputs.py, src/biasflow/data/probes/, "
        "src/biasflow/dat/)."
    )
    assert missing_path(comment, REPO) == ["src/biasflow/dat/", "src/biasflow/fpr/fpr_outputs.py"]
    stale = (
        "# biasflow and benchmarks/tools sort as this project's imports; `tests/test_datasets.py` checks it; its "
        "check runs in make lint and tests/core/test_lock.py. Found: tests/cairo/datasets/test_datasets.py, "
        "tools/lock.py, requirements/lock.txt."
    )
    assert missing_path(stale, REPO) == ["benchmarks/tools", "tests/core/test_lock.py", "tests/test_datasets.py"]
    kept = (
        "tests/core/test_*.py, rules/{method}/, toy_method:rules/scripts, benchmarks/out/scale.json, "
        "`workflow/test_documented_commands.py::test_lint`, config/candidate.yaml"
    )
    assert missing_path(kept, REPO) == []
    assert missing_path("workflow/golden/tiny_tables.json", REPO, REPO / "tests") == []
    assert missing_path("workflow/golden/tiny_tables.json", REPO) == ["workflow/golden/tiny_tables.json"]
    assert unresolved_name("biasflow.perturb.Swapper") and unresolved_name("biasflow.fpr.outputs.FORDER")
    assert not unresolved_name("biasflow.fpr.outputs.FOLDER") and not unresolved_name("biasflow.fpr")


# A config key in backquotes, with or without a value (`cairo.bias.measure: excess`): lower-case names joined by dots,
# a map's entries and a list's items as config/README.md writes them (`<name>`, `[]`), or every key of a section
# (`cairo.selection.*`). A file's name (`config.yaml`) is no key.
KEY = re.compile(r"`([a-z_][a-z0-9_]*(?:(?:\.|\[\]\.?)(?:[a-z_][a-z0-9_]*|<\w+>|\*))+)(?::[^`]*)?`")
FILE_NAME = re.compile(r"\.(?:md|py|yaml|yml|csv|tsv|json|txt|parquet|html|gguf|smk)$")
# A key path's parts: names, `<...>` (any name of a map) and `[]` (a list's items).
PARTS = re.compile(r"\[\]|[^.\[\]]+")


def _same(mention: list[str], key: list[str]) -> bool:
    """Whether a key named in a description (parts) is the documented key ``key``: a name of a map (``<...>``) on
    either side is any name, and ``*`` ends a section's every key."""
    if mention[-1] == "*":
        return len(key) >= len(mention) and _same(mention[:-1], key[: len(mention) - 1])
    return len(mention) == len(key) and all(
        a == b or ("[]" not in (a, b) and (a.startswith("<") or b.startswith("<")))
        for a, b in zip(mention, key, strict=True)
    )


def stale_keys(schema: dict) -> list[str]:
    """``described key: `mention``` for each config key a description names that the schema does not have, from its
    top or from the section of the key it describes (``bias.measure`` in ``cairo.selection.null_draws``)."""
    from biasflow.config_docs import key_docs

    docs = key_docs(schema)
    keys = [PARTS.findall(doc.path) for doc in docs]
    stale = []
    for doc in docs:
        section = PARTS.findall(doc.path)[0]
        for mention in KEY.findall(doc.meaning):
            parts = PARTS.findall(mention)
            if FILE_NAME.search(mention) or any(
                _same(found, key) for found in (parts, [section, *parts]) for key in keys
            ):
                continue
            stale.append(f"{doc.path}: `{mention}`")
    return stale


def test_every_config_key_a_schema_description_names_exists():
    """As config/README.md's key table shows them: a key moved into a method's section (`bias.measure`, now
    `cairo.bias.measure`) is stale where another section's description names it."""
    from biasflow.schema import config_schema

    assert stale_keys(config_schema()) == []


def test_a_stale_key_in_a_description_is_found():
    """The check itself, on a schema of three keys: a key named from the top or from the described key's section is
    found, as are a map's entry and a section's every key; a moved key named from another section is not."""
    number = {"type": "number"}
    schema = {
        "type": "object",
        "properties": {
            "cairo": {
                "type": "object",
                "properties": {
                    "bias": {"type": "object", "properties": {"measure": {"type": "string", "description": "Eq. 1."}}},
                    "selection": {
                        "type": "object",
                        "properties": {"null_draws": {**number, "description": "0 needs `bias.measure: eq1`."}},
                    },
                },
            },
            "power": {
                "type": "object",
                "properties": {"min_effect": {"type": "object", "additionalProperties": number, "description": "."}},
            },
            "compare": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "margin": {
                            **number,
                            "description": "Of `cairo.bias.measure` (`bias.measure: excess`, see `config.yaml`); "
                            "null: `power.min_effect.<method>` or `power.min_effect.cairo`; `cairo.selection.*`, "
                            "`compare[].margin`, `cairo.bias.measures`.",
                        }
                    },
                },
            },
        },
    }
    assert stale_keys(schema) == ["compare[].margin: `bias.measure`", "compare[].margin: `cairo.bias.measures`"]
