"""`make lint`'s checks, as its recipe writes them: each one fails on a bad file and passes the same file done right.

The commands come from the Makefile's ``lint`` recipe itself, so a check added there is run
here too. The tools are the `lint` extra's (``make setup`` installs it), looked for beside
this Python first, then on the PATH; a missing one fails with the command that installs it.
That this repository passes them is `make lint`'s own answer: the first step of .ci/run, and
the pre-commit hooks (checked below to run the same checks), so the default suite does not
run the whole recipe a second time.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from workflow_helpers import REPO

# A module the mypy config holds to strict's rules, with an unused and unsorted import, a literal ruff's
# formatter rewrites, and a function without annotations.
BAD_PYTHON = """import sys
import os

SETTINGS = {  'a':1 }


def member(name):
    return SETTINGS[name]
"""
GOOD_PYTHON = """SETTINGS = {"a": 1}


def member(name: str) -> int:
    return SETTINGS[name]
"""
# A rule whose directives are out of the order snakefmt keeps (log before output), indented by 2.
BAD_SNAKEFILE = """rule a:
  log: "a.log"
  output: "a.txt"
  shell: "touch {output}"
"""
GOOD_SNAKEFILE = """rule a:
    output:
        "a.txt",
    log:
        "a.log",
    shell:
        "touch {output}"
"""


def tool(name: str) -> str:
    """The installed ``name``: in this Python's environment, else on the PATH."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; `make setup` (or pip install -e '.[lint]') installs the lint extra")
    return found


def lint_recipe() -> list[list[str]]:
    """The commands of the Makefile's ``lint`` target, with ``$(BIN)/x`` as the installed ``x``."""
    lines = (REPO / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("lint:"))
    commands = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        program, *args = shlex.split(line.strip())
        assert program.startswith("$(BIN)/"), f"a lint command outside the environment: {line.strip()}"
        name = program.removeprefix("$(BIN)/")
        commands.append([sys.executable if name == "python" else tool(name), *args])
    return commands


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


def check_name(command: list[str]) -> str:
    """What a command checks: ``python -m X``'s module, ruff's subcommand, or the program."""
    program = Path(command[0]).name
    if command[0] == sys.executable or program == "python":
        return command[2]
    return f"ruff {command[1]}" if program == "ruff" else program


def test_the_recipe_runs_every_check():
    names = [check_name(command) for command in lint_recipe()]
    assert names == ["tools.lock", "ruff check", "ruff format", "mypy", "snakefmt", "snakemake"]


def test_pre_commit_runs_the_same_checks_with_the_installed_tools():
    result = run([tool("pre-commit"), "validate-config", ".pre-commit-config.yaml"], REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    hooks = [
        hook
        for repo in yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text())["repos"]
        for hook in repo["hooks"]
    ]
    assert {hook["language"] for hook in hooks} == {"system"}, "offline: the environment's tools, nothing fetched"
    assert sorted(check_name(shlex.split(hook["entry"])) for hook in hooks) == sorted(
        check_name(command) for command in lint_recipe()
    )


def checkout_with(tmp_path: Path) -> Path:
    """A folder with the project's config (pyproject.toml), and beside each bad file the same file done right: a
    module the mypy config holds to strict's rules of each, and a Snakefile (bad) with a rule file (good)."""
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    package = tmp_path / "src" / "biasflow"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "registry.py").write_text(BAD_PYTHON)
    (package / "verdicts.py").write_text(GOOD_PYTHON)
    (tmp_path / "rules").mkdir()
    (tmp_path / "Snakefile").write_text(BAD_SNAKEFILE)
    (tmp_path / "rules" / "good.smk").write_text(GOOD_SNAKEFILE)
    return tmp_path


def file_checks() -> list[list[str]]:
    """The recipe's checks of files (ruff, its formatter, mypy, snakefmt): not the lock's, nor Snakemake's of the
    workflow, which read this repository's own files."""
    return [command for command in lint_recipe() if Path(command[0]).name in ("ruff", "mypy", "snakefmt")]


def test_each_file_check_refuses_a_bad_file_and_passes_the_same_file_done_right(tmp_path):
    """One run of each check on both: it fails, naming the bad file and never the good one beside it, so the
    failure is the file's, not the copied config's or the folder's (the control)."""
    folder = checkout_with(tmp_path)
    found = {}
    for command in file_checks():
        result = run(command, folder)
        assert result.returncode != 0, f"{shlex.join(command[-3:])} passed a bad file:\n{result.stdout}"
        output = result.stdout + result.stderr
        assert "verdicts.py" not in output and "good.smk" not in output, f"{shlex.join(command[-3:])}:\n{output}"
        found[shlex.join([Path(command[0]).name, *command[1:]])] = output
    assert "F401" in found["ruff check ."] and "I001" in found["ruff check ."]
    formatter = found["ruff format --check ."]
    assert (
        "src/biasflow/registry.py" in formatter
        and "1 file would be reformatted, 2 files already formatted" in formatter
    )
    assert "registry.py:7: error: Function is missing a type annotation" in found["mypy"]
    assert "Found 1 error in 1 file (checked 3 source files)" in found["mypy"]
    snakefmt = found["snakefmt --check Snakefile rules"]
    assert "1 file(s) would be changed" in snakefmt and "1 file(s) would be left unchanged" in snakefmt
