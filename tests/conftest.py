"""Shared fixtures: tiny local models (see tiny_models.py), each built once per pytest run.

Every fixture here is session-scoped: the tests only read what it built, and a test that
changes a model or a folder copies it first. ``tiny-a`` of ``tiny_models`` is
``tiny_model_dir`` itself (the same seed and shape).
"""

from __future__ import annotations

import gc
import os

import pytest

from tiny_models import build_tiny_detoxify, build_tiny_model

_frozen_for: list[str] = []


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before each test file's first test: collect the garbage, then freeze what is alive out of the cycle collector.

    A worker's heap holds every test module, pandas, scipy, torch, transformers and Snakemake once imported, and
    the session's fixtures; each full collection walked all of it again. statsmodels' Holm (a reference in several
    files) runs a full ``gc.collect()`` on every call (about 130 calls in the default suite), and the automatic
    ones come as often (what that cost, and what this saves: benchmarks/README.md, "Test suite"). What is frozen
    is never collected (a cycle among it left behind by a file stays until the run ends: memory, not results);
    what a test makes is collected as before. A weight conversion unfreezes everything when it ends
    (biasflow.models.sources), so each file freezes again.
    """
    path = str(item.path)
    if _frozen_for[-1:] != [path]:
        _frozen_for[:] = [path]
        gc.collect()
        gc.freeze()


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny-a", seed=0)


@pytest.fixture(scope="session")
def tiny_models(tiny_model_dir, tmp_path_factory):
    """Three tiny models (two plain, one with a chat template) for workflow runs."""
    root = tmp_path_factory.mktemp("workflow-models")
    return {
        "tiny-a": tiny_model_dir,
        "tiny-b": build_tiny_model(root / "tiny-b", seed=1),
        "tiny-chat": build_tiny_model(root / "tiny-chat", seed=2, chat=True),
    }


@pytest.fixture(scope="session")
def vllm_tiny_models(tmp_path_factory):
    """The same three with heads of 32 (vLLM's CPU attention kernels take 32 and up), for the vLLM suite."""
    root = tmp_path_factory.mktemp("vllm-models")
    return {
        name: build_tiny_model(root / name, seed=seed, chat=name == "tiny-chat", head_dim=32)
        for name, seed in (("tiny-a", 0), ("tiny-b", 1), ("tiny-chat", 2))
    }


@pytest.fixture(scope="session")
def tiny_detoxify(tmp_path_factory):
    """(checkpoint file, config folder) of a tiny Detoxify model in Detoxify's own format, seed 0."""
    return build_tiny_detoxify(tmp_path_factory.mktemp("detoxify"), seed=0)


@pytest.fixture(scope="session")
def finished_workflow(tiny_models, tmp_path_factory):
    """(workdir, config) of the tiny workflow run from scratch to its default target: all three methods.

    The config is ``tiny_config`` with its own copies of the bundled files and a cache inside
    the workdir, every path relative to it, so a copy of the folder (``shutil.copytree``) is a
    finished run of its own. Tests read this one; a test that changes a run works on a copy.

    Under ``pytest -n`` (make test-end-to-end) the workers share one run: the first to ask builds it
    in their common temporary folder while holding a lock, and the others wait for it and read its
    config (which names the first one's tiny models).
    """
    import yaml
    from filelock import FileLock

    from workflow_helpers import finished_config, snakemake, write_config

    shared = os.environ.get("PYTEST_XDIST_WORKER") is not None
    root = tmp_path_factory.getbasetemp().parent if shared else tmp_path_factory.mktemp("finished-workflow")
    workdir = root / "finished-workflow" / "run"
    with FileLock(str(root / "finished-workflow.lock")):
        if not (workdir.parent / "built").exists():
            write_config(finished_config(tiny_models, workdir), workdir)
            snakemake(workdir)
            (workdir.parent / "built").touch()
    return workdir, yaml.safe_load((workdir / "config.yaml").read_text())


@pytest.fixture(scope="module")
def one_torch_thread():
    """torch on one thread while a module of tiny-model steps runs: they are too small to share, so a second
    thread only waits for the first, and under `pytest -n 2` each worker's second thread competes for the
    other worker's core (a generate call ran 3 to 4 times slower). `make test` sets OMP_NUM_THREADS=1 for
    the whole default suite; this holds for `pytest` run by hand too."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
