"""The tiny workflow on a real SLURM cluster with `--profile profiles/slurm` (`make test-slurm`).

tests/slurm/cluster.sh starts a single-node cluster with accounting on this machine; the
run must end with the same tables as the same workflow run locally.
"""

from __future__ import annotations

import filecmp
import re
import shutil
import subprocess

import pytest
import yaml

from workflow_helpers import REPO, snakemake, tiny_config, write_config

pytestmark = [pytest.mark.slurm]
if shutil.which("sinfo") is None or subprocess.run(["sinfo"], capture_output=True).returncode != 0:
    pytestmark.append(pytest.mark.skip(reason="no SLURM cluster here: make test-slurm starts one (as root)"))

TARGET = "results/cairo/gender.csv"
COMPARED = [
    "results/cairo/gender.csv",
    "results/cairo/gender_curve.csv",
    "results/cairo/gender_comparisons.csv",
    "results/cairo/gender.json",
    "results/cairo/stats/gender.parquet",
    "results/cairo/bias/gender.csv",
]


@pytest.fixture(scope="module")
def runs(tiny_models, tmp_path_factory):
    out = {}
    for where in ("local", "slurm"):
        workdir = tmp_path_factory.mktemp(where)
        config = tiny_config(tiny_models, workdir)
        config["paraphrasers"].pop("tinycomp")
        write_config(config, workdir)
        if where == "slurm":
            # The profile as a user has it, from the directory the run starts in.
            shutil.copytree(REPO / "profiles" / "slurm", workdir / "profiles" / "slurm")
            result = snakemake(workdir, TARGET, "--profile", "profiles/slurm", cwd=workdir)
        else:
            result = snakemake(workdir, TARGET)
        out[where] = (workdir, result)
    return out


def test_sinfo_lists_the_partition_the_profile_names():
    partitions = yaml.safe_load((REPO / "profiles/slurm/partitions.yaml").read_text())["partitions"]
    listed = subprocess.run(["sinfo", "-h", "-o", "%R"], capture_output=True, text=True).stdout.split()
    assert "cpu" in partitions and "cpu" in listed


def test_model_jobs_went_to_the_cpu_partition_and_light_steps_stayed_local(runs):
    workdir, result = runs["slurm"]
    text = result.stdout + result.stderr
    submitted = re.findall(r"Job \d+ has been submitted with SLURM jobid (\d+)", text)
    assert submitted, text[-3000:]
    accounted = subprocess.run(
        ["sacct", "-n", "-X", "-P", "-j", ",".join(submitted), "-o", "JobID,Partition,State"],
        capture_output=True,
        text=True,
    ).stdout.split()
    assert len(accounted) == len(submitted)
    # Jobs without a GPU go to the partition without GPUs (profiles/slurm/partitions.yaml).
    assert {line.split("|")[1:] == ["cpu", "COMPLETED"] for line in accounted} == {True}, accounted
    for rule in ("original_prompts", "prompt_sets"):
        assert f"localrule {rule}:" in text, f"{rule} runs on the login node"
    assert "rule generate_gender:" in text and "localrule generate_gender:" not in text
    assert (workdir / "logs/generate/a-t1.0/gender.log").exists()


def test_the_cluster_run_equals_the_local_run(runs):
    (local, _), (cluster, _) = runs["local"], runs["slurm"]
    for path in COMPARED:
        assert filecmp.cmp(local / path, cluster / path, shallow=False), f"{path} differs"
