"""Every file and module a text names exists (issue 42): no stale path in a rule, a doc or a docstring.

A reader follows ``biasflow/fpr/outputs.py`` or :mod:`biasflow.cairo.selection` from a comment to
the code; a rename that leaves the old name behind sends them nowhere. The texts checked are the
ones a newcomer reads: the Snakefile and the rules, the docs and READMEs, the workflow's scripts
and schemas, the profiles, the config files, ``pyproject.toml``, and everything under ``src/``
(docstrings, comments, module references such as a Method's ``"module:name"``, and the bundled
files' own notes). Written paths are ``biasflow/...py`` (relative to ``src/``) and
``src/biasflow/...``; dotted names are ``biasflow.<module>[.<name>]``, where the name must be
defined in the module (a top-level ``biasflow.<function>`` is the public API's, :mod:`biasflow.api`).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from workflow_helpers import REPO

SUFFIXES = {".py", ".smk", ".md", ".yaml", ".yml", ".txt", ".json", ".toml", ".csv", ".tsv", ""}
FOLDERS = ("rules", "docs", "workflow", "profiles", "config", "src")
SINGLE = ("Snakefile", "README.md", "pyproject.toml")
# A path: "biasflow/<parts>.py" (read under src/) or "src/biasflow/<parts>", not inside a longer word or path.
WRITTEN_PATH = re.compile(r"(?<![\w./-])(src/biasflow/[\w./-]*\w/?|biasflow/[\w./-]*?\.py)(?![\w/-])")
# A dotted module reference: biasflow.<name>[.<name>...], not inside a longer name.
DOTTED = re.compile(r"(?<![\w.])biasflow(?:\.[A-Za-z_]\w*)+")


def texts() -> list[Path]:
    """The files a newcomer reads, as this module's docstring lists them (not a local install's build records)."""
    found = [REPO / name for name in SINGLE]
    for folder in FOLDERS:
        found += [
            path
            for path in (REPO / folder).rglob("*")
            if path.is_file()
            and path.suffix in SUFFIXES
            and not any(part == "__pycache__" or part.endswith(".egg-info") for part in path.parts)
        ]
    return sorted(found)


TEXTS = texts()


def written_paths(text: str) -> set[str]:
    """Each path ``text`` writes, relative to the repository root."""
    return {found if found.startswith("src/") else f"src/{found}" for found in WRITTEN_PATH.findall(text)}


def missing_path(text: str, repo: Path) -> list[str]:
    return sorted(path for path in written_paths(text) if not (repo / path).exists())


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
    """The scan reaches the rules, the docs and the package (a layout change must not silently empty it)."""
    read = {path.relative_to(REPO).parts[0] for path in TEXTS}
    assert {"rules", "docs", "src", "workflow", "Snakefile", "README.md"} <= read


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_written_path_exists(path):
    missing = missing_path(path.read_text(errors="ignore"), REPO)
    assert not missing, f"{path.relative_to(REPO)} names file(s) that do not exist: {', '.join(missing)}"


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_dotted_module_reference_resolves(path):
    names = sorted(set(DOTTED.findall(path.read_text(errors="ignore"))))
    unresolved = [name for name in names if unresolved_name(name)]
    assert not unresolved, f"{path.relative_to(REPO)} names what does not exist: {', '.join(unresolved)}"


def test_a_stale_path_is_found():
    """The check itself: a comment citing a module that is not there is reported, one that is there is not."""
    comment = (
        "# A path (biasflow/fpr/fpr_outputs.py); by role (biasflow/fpr/outputs.py, src/biasflow/data/probes/, "
        "src/biasflow/dat/)."
    )
    assert missing_path(comment, REPO) == ["src/biasflow/dat/", "src/biasflow/fpr/fpr_outputs.py"]
    assert unresolved_name("biasflow.perturb.Swapper") and unresolved_name("biasflow.fpr.outputs.FORDER")
    assert not unresolved_name("biasflow.fpr.outputs.FOLDER") and not unresolved_name("biasflow.fpr")
