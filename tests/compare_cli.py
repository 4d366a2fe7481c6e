"""``biasflow compare`` run as a user runs it, for the three methods' tests (docs/methods.md §7)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def compare(method: str, flag: str, inputs: list[str], out: Path, flags: list[str]) -> subprocess.CompletedProcess:
    """``python -m biasflow.cli compare --method <method> <flag> <inputs> --out <out> <flags>``, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "biasflow.cli", "compare", "--method", method, flag, *inputs, "--out", str(out), *flags],
        capture_output=True,
        text=True,
        check=False,
    )


def assert_refused(result: subprocess.CompletedProcess, message: str, out: Path) -> None:
    """Exit 2, no traceback, one line naming ``message``, and no output file written."""
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("biasflow: ") and message in line
    assert not out.exists()
