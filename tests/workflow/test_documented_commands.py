"""Commands the README and the configs show, run exactly as written in a copy of the repository.

Commands that need a cluster, a GPU or the internet run as dry runs (``-n``): Snakemake
plans every job offline, so a wrong path, flag or config key still fails here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workflow_helpers import REPO

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """The repository's tracked and new files, without caches, results or the virtual environment."""
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, text=True,
        check=True,
    ).stdout.split()
    root = tmp_path_factory.mktemp("checkout")
    for name in files:
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    return root


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """``command`` as a user types it, with this environment's tools first on PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, env=env)


def test_official_datasets_overlay_plans_the_downloads(checkout):
    command = "snakemake --cores 2 results/cairo/gender.csv --configfile config/config.yaml config/official.yaml"
    assert command in (checkout / "config/official.yaml").read_text()
    result = run(command.replace("snakemake ", "snakemake -n ", 1), checkout)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout + result.stderr
    assert "download_dataset        3" in out and "original_prompts        3" in out


def test_gpu_check_says_why_it_skips_without_a_gpu():
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is visible: the GPU check itself runs here")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-m", "gpu", "-p", "no:cacheprovider",
                             str(REPO / "tests/workflow/test_gpu.py")], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:]
    assert "no CUDA device here: the GPU check needs an NVIDIA GPU and a CUDA build of torch" in result.stdout
