"""The tiny workflow on a real SLURM cluster with `--profile profiles/slurm` (`make test-slurm`).

tests/slurm/cluster.sh starts a single-node cluster with accounting on this machine. The run has
the finished tiny run's config, so it must end with the tables that run wrote locally, as
tests/workflow/golden/tiny_tables.json records them (tests/golden_tables.py): a local run beside
it would compute them again.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import yaml

from golden_tables import recorded, tables
from workflow_helpers import REPO, finished_config, snakemake, write_config

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
def run(tiny_models, tmp_path_factory):
    """(workdir, result) of the main job through the SLURM profile, as a user has it in the run's folder."""
    workdir = tmp_path_factory.mktemp("slurm") / "run"
    write_config(finished_config(tiny_models, workdir), workdir)
    shutil.copytree(REPO / "profiles" / "slurm", workdir / "profiles" / "slurm")
    # The executor plugin first asks SLURM for a job's state 40 s after submitting it (its default, for a busy
    # controller); this one-node cluster answers at once, so the run asks after 2 s, as a user may set it.
    return workdir, snakemake(
        workdir, TARGET, "--profile", "profiles/slurm", "--slurm-init-seconds-before-status-checks", "2", cwd=workdir
    )


def test_sinfo_lists_the_partition_the_profile_names():
    partitions = yaml.safe_load((REPO / "profiles/slurm/partitions.yaml").read_text())["partitions"]
    listed = subprocess.run(["sinfo", "-h", "-o", "%R"], capture_output=True, text=True).stdout.split()
    assert "cpu" in partitions and "cpu" in listed


def test_model_jobs_went_to_the_cpu_partition_and_light_steps_stayed_local(run):
    workdir, result = run
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


def test_the_cluster_run_ends_with_the_local_runs_tables(run):
    workdir, _ = run
    found, expected = tables(workdir / "results"), recorded()
    assert set(COMPARED) <= {f"results/{name}" for name in found}, sorted(found)
    differ = [name for name in found if found[name] != expected.get(name)]
    assert not differ, f"tables unlike the local run's: {', '.join(differ)}"
