"""``biasflow compare`` run as a user runs it, for the three methods' tests (docs/methods.md §7).

The command runs in the test's process (tests/cli_in_process.py), its exit status, stdout and stderr read
as a subprocess's; tests/core/test_cli.py runs the entry point itself as a process of its own.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_in_process import biasflow


def compare(method: str, flag: str, inputs: list[str], out: Path, flags: list[str]) -> subprocess.CompletedProcess:
    """``biasflow compare --method <method> <flag> <inputs> --out <out> <flags>``, its output captured."""
    return biasflow("compare", "--method", method, flag, *inputs, "--out", str(out), *flags)


def assert_refused(result: subprocess.CompletedProcess, message: str, out: Path) -> None:
    """Exit 2, no traceback, one line naming ``message``, and no output file written."""
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("biasflow: ") and message in line
    assert not out.exists()
