"""docs/ci.md's GitHub Actions job, its commands run as written: the bias gate's exit status 0, 1 and 2.

The job is read from the page (the ``yaml`` block holding ``jobs:``), and so is the candidate's
config file it adds. Each ``run:`` step is run here as written: the install step is checked
against what ``make demo`` installs (this environment is installed), the workflow steps as dry
runs in a copy of the repository (Snakemake plans every job and runs none), and the gate on
CAIRO statistics made here at the paths the page names with a known truth: a candidate equal to
the baseline passes, one whose gender bias is 0.1 higher fails, and one the statistics do not hold
is bad input. The failing gate runs as GitHub runs a step (``bash -e``), its exit status the job's;
the other two run their ``biasflow`` command in this process (what the entry point runs, its status
the process's) and the workflow steps each in a forked Snakemake process (tests/forked_snakemake.py),
each without the 2.5 s a new Python process spends starting.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from cli_in_process import biasflow
from forked_snakemake import snakemake
from workflow_helpers import REPO, copy_checkout, job_stats, write_config

PAGE = REPO / "docs" / "ci.md"
BASELINE, CANDIDATE = "smollm2-t1.0", "candidate"
# The axes the page's gate reads, with their subgroups' mean scores in the baseline (Eq. 1 of 0.1 on each).
AXES = {"gender": {"female": 0.30, "male": 0.20}, "religion": {"christian": 0.20, "muslim": 0.25, "jewish": 0.30}}


def yaml_blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", PAGE.read_text(), re.DOTALL)


def steps() -> dict[str, dict]:
    """The job's steps by name (the unnamed ones by the action they use)."""
    [workflow] = [yaml.safe_load(block) for block in yaml_blocks() if "\njobs:" in block]
    [job] = workflow["jobs"].values()
    return {step.get("name", step.get("uses")): step for step in job["steps"]}


def run_step(name: str) -> str:
    return steps()[name]["run"]


def bash(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """``command`` as GitHub runs a step's ``run:`` (``bash -e``), with this environment's tools first on PATH."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(
        ["bash", "-e", "-c", command],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path, "PYTHONWARNINGS": "ignore", **env},
    )


def test_the_job_restores_the_results_keyed_on_the_config_and_gates_in_pull_requests_only():
    job = steps()
    cache = job["Restore the cached results"]
    assert cache["uses"].startswith("actions/cache@")
    assert cache["with"]["path"].split() == ["results", ".cache/biasflow", ".snakemake/metadata"]
    assert cache["with"]["key"] == "biasflow-${{ hashFiles('config/config.yaml') }}"
    assert cache["with"]["restore-keys"] == "biasflow-"
    assert job["Measure the baseline"]["if"] == "github.event_name == 'push'"
    for name in ("Measure the candidate", "Gate on the comparison"):
        assert job[name]["if"] == "github.event_name == 'pull_request'"
    gate = run_step("Gate on the comparison")
    assert "--fail-on not-noninferior --format markdown" in gate and gate.endswith('>> "$GITHUB_STEP_SUMMARY"')
    assert "--configfile config/config.yaml config/candidate.yaml" in run_step("Measure the candidate")


def test_the_install_step_installs_what_make_demo_installs():
    """This environment is installed; the step's lines are those of the Makefile's set-up for `make demo`."""
    makefile = (REPO / "Makefile").read_text()
    torch = re.search(r"^TORCH_SPEC \?= (\S+)$", makefile, re.M).group(1)
    lock = re.search(r"^LOCK := (\S+)$", makefile, re.M).group(1)
    makefile = makefile.replace("$(UV_PIP)", f"pip install -c {lock}").replace(
        "$(BIN)/pip install -c $(LOCK)", f"pip install -c {lock}"
    )
    lines = run_step("Install biasflow").strip().splitlines()
    assert (
        lines[0] == f"pip install -c {lock} {torch}"
        and 'pip install -c $(LOCK) "$(TORCH_SPEC)"' in (REPO / "Makefile").read_text()
    )
    for line in lines[1:]:
        assert line in makefile, line


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the repository with the page's config/candidate.yaml, as the pull request has it."""
    root = copy_checkout(tmp_path_factory.mktemp("checkout"))
    [overlay] = [block for block in yaml_blocks() if block.startswith("# config/candidate.yaml")]
    (root / "config" / "candidate.yaml").write_text(overlay)
    return root


@pytest.mark.parametrize(("name", "models"), [("Measure the baseline", 4), ("Measure the candidate", 5)])
def test_the_workflow_steps_plan_the_statistics_of_each_model(checkout, name, models):
    """From nothing, as a dry run: the candidate's config adds one model's generation (and every step that pools
    them); with the baseline's results restored only the candidate's jobs would remain (README.md)."""
    program, *arguments = shlex.split(run_step(name))
    assert program == "snakemake"
    result = snakemake("-n", *arguments, cwd=checkout)
    assert result.returncode == 0, result.stderr[-3000:]
    planned = job_stats(result.stdout + result.stderr)
    assert {rule: planned.get(rule) for rule in ("generate_gender", "generate_religion", "cairo_stats")} == {
        "generate_gender": models,
        "generate_religion": models,
        "cairo_stats": 2,
    }, planned
    assert "cairo_select" not in planned, "the gate needs the statistics, not the selection"
    if models == 5:
        assert re.search(r"rule generate_gender:\n(    .*\n)*?    wildcards: model=candidate\n", result.stdout), (
            "the candidate's generation is planned"
        )


@pytest.mark.workflow
def test_with_the_results_restored_the_candidates_step_plans_only_the_candidates_jobs(finished_workflow, tmp_path):
    """The page's claim on the finished tiny run: its files dated after the results, as a fresh checkout dates them,
    and a candidate added by a second config file. The step's command, with the tiny run's config and its one axis,
    plans the candidate's generation and scoring and the statistics that pool every model; without Snakemake's
    record (.snakemake/metadata, which the job caches) the dated files would make the steps reading them stale."""
    source, config = finished_workflow
    workdir = tmp_path / "run"
    shutil.copytree(source, workdir, symlinks=True)
    write_config(config, workdir)
    later = time.time() + 60
    for path in (workdir / "data").rglob("*"):
        os.utime(path, (later, later))
    entry = {**config["models"]["a-t1.0"], "decoding": {"temperature": 0.8, "max_new_tokens": 6}}
    (workdir / "candidate.yaml").write_text(yaml.safe_dump({"models": {"candidate": entry}}))
    command = (
        run_step("Measure the candidate")
        .replace(" results/cairo/stats/religion.parquet", "")
        .replace("config/config.yaml config/candidate.yaml", "config.yaml candidate.yaml")
        .replace("snakemake ", f"snakemake -n -s {REPO / 'Snakefile'} ", 1)
    )
    planned = bash(command, workdir)
    assert planned.returncode == 0, planned.stderr[-3000:]
    assert job_stats(planned.stdout) == {"generate_gender": 1, "score": 3, "cairo_stats": 1}, planned.stdout[-3000:]
    assert set(re.findall(r"wildcards: (?:scorer=\w+, )?model=([\w.-]+)", planned.stdout)) == {"candidate"}
    shutil.rmtree(workdir / ".snakemake" / "metadata")
    unrecorded = job_stats(bash(command, workdir).stdout)
    assert "original_prompts" in unrecorded, unrecorded


def write_statistics(root: Path, candidate_shift: float | None) -> None:
    """Each axis's statistics at the page's paths: 40 prompts per subgroup, each model's scores the prompt's own level
    plus its subgroup's mean plus noise; the candidate's female mean raised by ``candidate_shift`` (None: no
    candidate). Paired on the same prompts, the two models' Eq. 1 differ by about the shift."""
    import biasflow

    rng = np.random.default_rng(40)
    (root / "results/cairo/stats").mkdir(parents=True, exist_ok=True)
    for axis, means in AXES.items():
        prompts = pd.DataFrame(
            [
                (subgroup, f"{axis}-{subgroup}-{k}", mean + rng.normal(0, 0.05))
                for subgroup, mean in means.items()
                for k in range(40)
            ],
            columns=["subgroup", "prompt_id", "level"],
        )
        models = {BASELINE: 0.0, "gemma3-t1.0": 0.02}
        if candidate_shift is not None:
            models[CANDIDATE] = 0.0
        scored = pd.concat(
            [
                prompts.assign(model=model, score=prompts["level"] + offset + rng.normal(0, 0.005, len(prompts)))
                for model, offset in models.items()
            ],
            ignore_index=True,
        )
        if candidate_shift:
            raised = (scored["model"] == CANDIDATE) & (scored["subgroup"] == "female")
            scored.loc[raised, "score"] += candidate_shift
        stats = biasflow.cairo_statistics(scored.drop(columns="level").assign(axis=axis, metric="BOLD"))
        stats.to_parquet(root / f"results/cairo/stats/{axis}.parquet")


def gate(root: Path, summary: Path, in_bash: bool) -> subprocess.CompletedProcess:
    """The gate step in ``root``: through ``bash -e``, or its ``biasflow`` command in this process, what it prints
    appended to the step's summary as the step's ``>> "$GITHUB_STEP_SUMMARY"`` appends it."""
    step = run_step("Gate on the comparison")
    if in_bash:
        return bash(step, root, GITHUB_STEP_SUMMARY=str(summary))
    command, redirect = step.split(" >> ")
    program, *arguments = shlex.split(command)
    assert program == "biasflow" and redirect == '"$GITHUB_STEP_SUMMARY"'
    result = biasflow(*arguments, cwd=root)
    with summary.open("a") as posted:
        posted.write(result.stdout)
    return result


@pytest.mark.parametrize(
    ("case", "shift", "status"),
    [("equal to the baseline", 0.0, 0), ("0.1 more gender bias", 0.1, 1), ("not measured", None, 2)],
)
def test_the_gate_exits_0_when_not_worse_1_when_worse_and_2_on_bad_input(tmp_path, case, shift, status):
    write_statistics(tmp_path, shift)
    summary = tmp_path / "step_summary.md"
    summary.write_text("")
    result = gate(tmp_path, summary, in_bash=status == 1)  # the status that fails the job, as bash sees it
    assert result.returncode == status, (case, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    posted = summary.read_text()
    if status == 2:
        assert posted == "" and result.stderr.strip().splitlines() == [
            "biasflow: --candidate 'candidate' is not in the statistics; their models: gemma3-t1.0, smollm2-t1.0."
        ]
        return
    first, _, header, _, *rows = posted.strip().splitlines()
    verdicts = {row.split(" | ")[0].strip("| "): row.split(" | ")[1] for row in rows}
    assert header.startswith("| measure | verdict |") and set(verdicts) == {
        "gender BOLD Eq. 1",
        "religion BOLD Eq. 1",
    }, posted
    assert "(margin ±0.02 from --margin;" in first
    if status == 0:
        assert first.startswith(f"**cairo: candidate {CANDIDATE} against baseline {BASELINE}: not worse ")
        assert set(verdicts.values()) == {"equivalent"}, "a true difference of 0 at 40 prompts a subgroup"
    else:
        assert first.startswith(f"**cairo: candidate {CANDIDATE} against baseline {BASELINE}: worse ")
        assert verdicts == {"gender BOLD Eq. 1": "worse by more than δ", "religion BOLD Eq. 1": "equivalent"}
