"""The core install against the full one: time and size of each in a fresh environment, side by side (issue 41).

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.install_size            # both, each with an empty download cache
    .venv/bin/python -m benchmarks.install_size --json benchmarks/out/install.json

Each install runs in a new virtual environment with uv and an empty cache of its own, so its
time includes every download, at the lock's versions (requirements/lock.txt as constraints):
the core is this checkout with no extra; the full install is the one `make test` gives a
study, torch (the Makefile's TORCH_SPEC, through pip, which takes this machine's CPU wheel)
then ``biasflow[all]``. The size is the environment's folder on disk.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements" / "lock.txt"


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def install(name: str, extras: str, torch: str | None, root: Path) -> dict:
    """One fresh environment: its install's seconds and its size in bytes."""
    uv = str(Path(sys.executable).parent / "uv")
    venv, cache = root / name, root / f"{name}-cache"
    environment = {**os.environ, "UV_CACHE_DIR": str(cache)}
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True, env=environment)
    python = str(venv / "bin" / "python")
    start = time.perf_counter()
    if torch:
        subprocess.run([uv, "pip", "install", "-q", "--python", python, "pip"], check=True, env=environment)
        subprocess.run([python, "-m", "pip", "install", "-q", "--no-cache-dir", "-c", str(LOCK), torch], check=True)
    subprocess.run(
        [uv, "pip", "install", "-q", "--python", python, "-c", str(LOCK), f"{REPO}{extras}"],
        check=True,
        env=environment,
    )
    seconds = time.perf_counter() - start
    return {"install": name, "seconds": seconds, "bytes": folder_size(venv)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", default="torch==2.13.0", help="the torch the full install takes (TORCH_SPEC)")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="biasflow-install-"))
    try:
        rows = [install("core", "", None, root), install("all", "[all]", args.torch, root)]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    core, full = rows
    for row in rows:
        print(f"{row['install']:5s} {row['seconds']:6.1f} s {row['bytes'] / 2**20:8.0f} MiB")
    print(f"core / all: time {core['seconds'] / full['seconds']:.2f}, size {core['bytes'] / full['bytes']:.2f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
