"""``biasflow <args>`` run inside the test's process, its result read as a subprocess's would be read.

A ``python -m biasflow.cli`` subprocess spends about 2.4 s starting Python and importing before the command
does anything; the command itself (``biasflow.cli.main``: its exit status, what it prints and what it logs)
is the same in this process. So the tests run it here, with what it prints to stdout and stderr, its log
lines (as ``main``'s ``logging.basicConfig`` formats them on stderr) and argparse's exits captured, and keep
a real process only where the process is the behaviour (tests/core/test_cli.py: the entry point).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import subprocess
from pathlib import Path

from biasflow.cli import main


def biasflow(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``biasflow <args>`` run in ``cwd`` (this process's by default): exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    # What main's logging.basicConfig sets up in a process of its own (here pytest's handlers already hold the
    # root logger, so basicConfig adds nothing): INFO and up, on stderr, as "LEVEL message".
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        with contextlib.chdir(cwd or os.getcwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit_:  # argparse's: --help (0) and a usage error (2)
                code = 0 if exit_.code is None else exit_.code
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    return subprocess.CompletedProcess(["biasflow", *args], code, out.getvalue(), err.getvalue())
