"""Interrupted runs lose nothing, and the same config gives the same tables (docs/reliability.md).

A generation, a scoring and a tuning job are each killed with SIGKILL part-way, with the
whole process group, as a scheduler or the kernel's out-of-memory killer does. The tests
check what a user finds afterwards: no output of the killed job, every cache entry
readable, a rerun (after ``snakemake --unlock``) that computes only what is missing, and
outputs byte for byte those of a run that was never interrupted. The last test runs the
whole workflow twice from scratch and compares the hashes of every table; the first of the
two is the tiny workflow's shared run (``finished_workflow``, tests/conftest.py).

These runs take minutes on 2 cores, so they have their own target, ``make test-faults``;
``make test-workflow`` runs them too, in the same pytest run as the workflow suite, which
shares that finished run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from tiny_models import build_tiny_model
from workflow_helpers import REPO, SNAKEMAKE, snakemake, tiny_config, write_config

pytestmark = pytest.mark.faults

GENERATION = "results/continuations/a-t1.0/BOLD/gender.parquet"
SCORES = "results/scores/detoxify-unbiased/a-t1.0/BOLD/gender.parquet"
TUNING = ["results/fpr/templates_race/a-t1.0/soft.tsv", "results/fpr/occupations_race/a-t1.0/soft.tsv"]


def fault_config(tiny_models, workdir: Path, detoxify: tuple[Path, Path], labels: Path) -> dict:
    """The tiny config with jobs long enough to be killed part-way: 768 requests in 3 cache chunks.

    ``labels`` is a tiny model whose vocabulary has the label words a soft prompt is tuned to.
    """
    config = tiny_config(tiny_models, workdir)
    config["models"]["a-t1.0"]["model"] = str(labels)
    config["paraphrasers"] = {}
    config["cairo"]["axes"] = {"gender": ["BOLD"]}  # the generation job of a model and axis: BOLD's prompts only
    config["cairo"]["generation"] = {"seeds": [0, 1, 2, 3], "samples": 8}
    checkpoint, hf_config = detoxify
    config["cairo"]["scoring"] = {
        "scorer": "detoxify-unbiased",
        "checkpoint": str(checkpoint),
        "huggingface_config": str(hf_config),
        "device": "cpu",
        "batch_size": 4,
    }
    config["fpr"]["models"] = ["a-t1.0"]
    config["fpr"]["classifiers"] = {"soft": {"method": "soft_prompt", "epochs": 4, "patience": 4}}
    return config


@pytest.fixture(scope="module")
def detoxify(tiny_detoxify):
    return tiny_detoxify


@pytest.fixture(scope="module")
def labels(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("labels") / "model", words=("negative", "neutral", "positive"))


@pytest.fixture(scope="module")
def reference(tiny_models, detoxify, labels, tmp_path_factory):
    """The uninterrupted run every interrupted one must end equal to."""
    workdir = tmp_path_factory.mktemp("reference")
    write_config(fault_config(tiny_models, workdir, detoxify, labels), workdir)
    snakemake(workdir, SCORES, *TUNING)
    return workdir


@pytest.fixture(scope="module")
def interrupted(tiny_models, detoxify, labels, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("interrupted")
    write_config(fault_config(tiny_models, workdir, detoxify, labels), workdir)
    return workdir


def kill_when(workdir: Path, targets: list[str], ready, timeout: float = 300) -> None:
    """Start Snakemake on ``targets`` and SIGKILL its whole process group once ``ready()`` holds.

    Fails if the run ended before that: the kill must come part-way.
    """
    command = [
        *SNAKEMAKE,
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        "--cores",
        "2",
        *targets,
    ]
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    deadline = time.monotonic() + timeout
    try:
        while not ready():
            assert process.poll() is None, "the run ended before the moment to kill it"
            assert time.monotonic() < deadline, "the moment to kill the run never came"
            time.sleep(0.02)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


# The README's advice after a kill (tests/workflow/test_documented_commands.py).
UNLOCK = "snakemake --unlock"


def rerun(workdir: Path, *targets: str) -> subprocess.CompletedProcess:
    """What a user does after a kill: unlock the directory and run the same command again."""
    snakemake(workdir, *UNLOCK.split()[1:])
    return snakemake(workdir, *targets)


def every_cache_entry_reads(workdir: Path) -> int:
    """Read every cache shard (a damaged one raises); the number of rows they hold."""
    return sum(len(pd.read_parquet(shard)) for shard in (workdir / "cache").rglob("*.parquet"))


def log_says(path: Path, words: str):
    return lambda: path.exists() and words in path.read_text()


def same_bytes(a: Path, b: Path) -> bool:
    return hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest()


def test_a_generation_job_killed_between_chunks_keeps_them_and_ends_as_if_never_killed(reference, interrupted):
    shards = interrupted / "cache" / "generations"
    kill_when(interrupted, [GENERATION], lambda: len(list(shards.rglob("*.parquet"))) >= 1)
    assert not (interrupted / GENERATION).exists()
    kept = every_cache_entry_reads(interrupted)
    assert 0 < kept < 768

    rerun(interrupted, GENERATION)
    log = (interrupted / "logs/generate/a-t1.0/gender.log").read_text()
    assert f"{kept} of 768 rows from cache, {768 - kept} to compute" in log, log[-2000:]
    assert same_bytes(interrupted / GENERATION, reference / GENERATION)


def test_a_scoring_job_killed_part_way_leaves_nothing_half_written(reference, interrupted):
    log = interrupted / "logs/score/detoxify-unbiased/a-t1.0/BOLD/gender.log"
    kill_when(interrupted, [SCORES], log_says(log, "texts from cache"))
    assert not (interrupted / SCORES).exists()
    every_cache_entry_reads(interrupted)

    rerun(interrupted, SCORES)
    assert same_bytes(interrupted / SCORES, reference / SCORES)


def test_a_tuning_job_killed_while_training_retrains_to_the_same_classifier(reference, interrupted):
    log = interrupted / "logs/fpr/classify/a-t1.0/soft.log"
    kill_when(interrupted, TUNING, log_says(log, "epoch 1/"))
    assert not any((interrupted / target).exists() for target in TUNING)

    rerun(interrupted, *TUNING)
    for target in TUNING:
        assert same_bytes(interrupted / target, reference / target), target


def table_hashes(workdir: Path) -> dict[str, str]:
    tables = [p for p in (workdir / "results").rglob("*") if p.suffix in (".csv", ".tsv", ".parquet", ".json")]
    return {str(p.relative_to(workdir)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(tables)}


def test_the_same_config_twice_from_scratch_gives_byte_identical_tables(finished_workflow, tmp_path):
    """The first run is the tiny workflow's shared run (tests/conftest.py), from scratch in its own folder."""
    done, config = finished_workflow
    again = tmp_path / "second"
    shutil.copytree(done / "data", again / "data")
    write_config(config, again)
    assert (again / "config.yaml").read_bytes() == (done / "config.yaml").read_bytes(), "the same config"
    snakemake(again)
    first, second = table_hashes(done), table_hashes(again)
    assert {"results/cairo/gender.csv", "results/fairpair/summary.csv", "results/fpr/gap_spans.csv"} <= set(first)
    assert len(first) > 30, "every intermediate table is compared too"
    assert first == second
