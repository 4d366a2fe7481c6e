"""``snakemake`` commands, each run in a process forked from one that has started Python and imported Snakemake.

A ``snakemake`` process spends most of a dry run's 3 to 4 CPU seconds starting Python, importing Snakemake, biasflow
and their plugins (and compiling biasflow's modules, where its sources have no bytecode) and reading biasflow's config
schema; planning the jobs takes about 1.3 s. :func:`snakemake` runs a command in a child
forked from a server process that has done that once (one server per pytest process): the child goes to the
command's folder, takes the command's environment and runs what the ``snakemake`` script runs
(``snakemake.cli.main``) on the command's words, its stdout and stderr written to files, and it ends as the script's
process ends: Python itself prints a ``sys.exit`` message or a traceback and sets the exit status. After each
command the server imports the modules the child imported, so the next child starts with them.

What a child has that a fresh process would not: the server's imported modules, and what Python read from the
environment when the server started (``PYTHONWARNINGS=ignore``, as every test's run sets it). So the
``snakemake`` script itself, and which copy of biasflow a process imports, are checked in fresh processes
(tests/workflow/test_documented_commands.py, tests/workflow/test_second_checkout.py). Linux only (``os.fork``).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# The environment's tools first on PATH, as `make setup`'s activated environment has them.
PATH = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"


def snakemake(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``snakemake <args>`` run in ``cwd``, with ``env`` added to this process's environment (PATH as above).

    ``env`` may map a name to None to leave that variable out.
    """
    environment = {**os.environ, "PATH": PATH, "PYTHONWARNINGS": "ignore", **(env or {})}
    environment = {name: value for name, value in environment.items() if value is not None}
    server = _server()
    with tempfile.TemporaryDirectory() as folder:
        out, err = Path(folder, "stdout"), Path(folder, "stderr")
        request = {"args": list(args), "cwd": str(cwd), "env": environment, "stdout": str(out), "stderr": str(err)}
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        reply = server.stdout.readline()
        if not reply:
            raise RuntimeError(f"the forked-snakemake server stopped (exit status {server.wait()})")
        return subprocess.CompletedProcess(["snakemake", *args], json.loads(reply), out.read_text(), err.read_text())


def workflow(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """:func:`workflow_helpers.snakemake`'s command, forked: the repository's Snakefile in ``workdir`` with its
    config.yaml."""
    from workflow_helpers import REPO  # here, not at the top: the server, which runs this file, imports no test module

    config = ("--configfile", str(workdir / "config.yaml"))
    result = snakemake("-s", str(REPO / "Snakefile"), "-d", str(workdir), *config, "--cores", "2", *args, cwd=workdir)
    if check and result.returncode != 0:
        raise AssertionError(
            f"snakemake failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
        )
    return result


@functools.cache
def _server() -> subprocess.Popen:
    """This process's server (this file run as a script), started at its first command, stopped at its exit."""
    server = subprocess.Popen(
        [sys.executable, __file__],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PATH": PATH, "PYTHONWARNINGS": "ignore"},
    )
    atexit.register(_stop, server)
    return server


def _stop(server: subprocess.Popen) -> None:
    server.stdin.close()
    server.wait()


def _serve() -> None:
    """Fork a child per request (a JSON line on stdin), answer its exit status, then import what it imported."""
    # The snakemake script's folder, not tests/, is first on the module path of the script's process.
    sys.path[0] = os.path.dirname(shutil.which("snakemake") or sys.executable)
    from snakemake.cli import get_argument_parser

    from biasflow.schema import config_schema

    get_argument_parser()  # Snakemake's plugins, found once
    config_schema()  # biasflow's config schema, read once
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    imported = Path(tempfile.mkdtemp(prefix="forked-snakemake-")) / "modules"
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        child = os.fork()
        if child == 0:
            replies.close()
            _become(request)
            atexit.register(lambda: imported.write_text("\n".join(sys.modules)))
            from snakemake.cli import main

            sys.exit(main())  # unwinds to the top: Python ends the child as it ends the script's process
        _, status = os.waitpid(child, 0)
        replies.write(json.dumps(os.waitstatus_to_exitcode(status)) + "\n")
        replies.flush()
        _import(imported)
    shutil.rmtree(imported.parent)


def _become(request: dict) -> None:
    """The child: the command's folder, environment and words, files for its output, nothing for its input."""
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    sys.argv = [shutil.which("snakemake", path=os.environ.get("PATH")) or "snakemake", *request["args"]]


def _import(listed: Path) -> None:
    """The modules a child imported that this process has not (a module that fails here is left to the child)."""
    if not listed.exists():
        return
    for name in sorted(set(listed.read_text().split()) - set(sys.modules)):
        with contextlib.suppress(Exception, SystemExit):
            importlib.import_module(name)
    listed.unlink()


if __name__ == "__main__":
    _serve()
