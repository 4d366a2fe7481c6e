"""docs/ci.md's GitHub Actions job, its commands run as written: the bias gate's exit status 0, 1 and 2.

The job is read from the page (the ``yaml`` block holding ``jobs:``), and so is the candidate's
config file it adds. Each ``run:`` step is run here as written: the install step is checked
against what ``make demo`` installs (this environment is installed), torch's CPU build from its
index as the README installs another build of it; the workflow steps as dry runs in a copy of
the repository (Snakemake plans every job and runs none) and, as CI runs them, in two clones of
a repository of this checkout's files (the baseline computed in the first, its cached paths
restored into the second, where the candidate's step plans); and the gate on CAIRO statistics
made here at the paths the page names with a known truth: a candidate equal to the baseline
passes, one whose gender bias is 0.1 higher fails, and one the statistics do not hold is bad
input. The failing gate runs as GitHub runs a step (``bash -e``), its exit status the job's, and
so does the first clone's baseline; the other two run their ``biasflow`` command in this process
(what the entry point runs, its status the process's) and the workflow steps' dry runs each in a
forked Snakemake process (tests/forked_snakemake.py), each without the 2.5 s a new Python process
spends starting.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from cli_in_process import biasflow
from forked_snakemake import snakemake
from workflow_helpers import REPO, copy_checkout, job_stats, tiny_config

PAGE = REPO / "docs" / "ci.md"
README = (REPO / "README.md").read_text()
BASELINE, CANDIDATE = "smollm2-t1.0", "smollm2-t0.8"
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


def test_the_install_step_installs_what_make_demo_installs_with_the_cpu_build_of_torch():
    """This environment is installed; the step's lines are those of the Makefile's set-up for `make demo`, but
    torch's: PyPI's Linux wheel is the CUDA build (README.md), so the step installs the Makefile's torch the way the
    README installs a build of it other than PyPI's, from that build's index, the CPU build's."""
    makefile = (REPO / "Makefile").read_text()
    torch = re.search(r"^TORCH_SPEC \?= (\S+)$", makefile, re.M).group(1)
    lock = re.search(r"^LOCK := (\S+)$", makefile, re.M).group(1)
    makefile = makefile.replace("$(UV_PIP)", f"pip install -c {lock}").replace(
        "$(BIN)/pip install -c $(LOCK)", f"pip install -c {lock}"
    )
    [other_build] = re.findall(
        rf"pip install {re.escape(torch)} --index-url https://download\.pytorch\.org/whl/\w+", README
    )
    lines = run_step("Install biasflow").strip().splitlines()
    assert (
        lines[0] == re.sub(r"/whl/\w+$", "/whl/cpu", other_build)
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
        assert re.search(r"rule generate_gender:\n(    .*\n)*?    wildcards: model=smollm2-t0\.8\n", result.stdout), (
            "the candidate's generation is planned"
        )


def committed(root: Path) -> Path:
    """``root`` made a repository of one commit, its files and config/config.yaml as they are: what CI checks out."""
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the study"]):
        subprocess.run(["git", "-c", "user.name=ci", "-c", "user.email=ci@example.org", *command], cwd=root, check=True)
    return root


def clone(origin: Path, root: Path) -> Path:
    """A fresh checkout of ``origin`` at ``root``, as `actions/checkout` makes one: every file dated now."""
    subprocess.run(["git", "clone", "-q", str(origin), str(root)], check=True)
    return root


@pytest.mark.workflow
def test_a_fresh_clone_with_the_results_restored_plans_only_the_candidates_jobs(tiny_models, tmp_path):
    """The page's claim where CI makes it: a repository whose config is the tiny run's (this checkout's files, one
    axis), a clone where the push step computes the baseline, and a second clone made later at another path with the
    first's cached paths restored (their files' dates kept, as actions/cache's tar keeps them) and the candidate's
    config added. There the push step plans nothing, and the candidate's step the candidate's generation and scoring
    and the statistics that pool every model. Snakemake judges a step's script by its date alone, which the clone set
    after the results: with the code trigger, every step would run again; without the record (.snakemake/metadata)
    the steps reading checked-out data files would."""
    origin = copy_checkout(tmp_path / "origin")
    config = tiny_config(tiny_models, origin)
    del config["cache_dir"]  # the default, .cache/biasflow, which the job caches
    (origin / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    committed(origin)
    one_axis = {
        name: run_step(name).replace(" results/cairo/stats/religion.parquet", "")
        for name in ("Measure the baseline", "Measure the candidate")
    }
    first = clone(origin, tmp_path / "main")
    baseline = bash(one_axis["Measure the baseline"], first)
    assert baseline.returncode == 0, baseline.stderr[-3000:]

    second = clone(origin, tmp_path / "pull-request")
    for cached in steps()["Restore the cached results"]["with"]["path"].split():
        shutil.copytree(first / cached, second / cached, symlinks=True)
    entry = {**config["models"]["a-t1.0"], "decoding": {"temperature": 0.8, "max_new_tokens": 6}}
    (second / "config" / "candidate.yaml").write_text(yaml.safe_dump({"models": {CANDIDATE: entry}}))

    def planned(command: str) -> str:
        program, *arguments = shlex.split(command)
        assert program == "snakemake"
        result = snakemake("-n", *arguments, cwd=second)
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout + result.stderr

    assert job_stats(planned(one_axis["Measure the baseline"])) == {}, "the push step has nothing left to do"
    candidate = planned(one_axis["Measure the candidate"])
    assert job_stats(candidate) == {"generate_gender": 1, "score": 3, "cairo_stats": 1}, candidate[-3000:]
    assert set(re.findall(r"wildcards: (?:scorer=\w+, )?model=([\w.-]+)", candidate)) == {CANDIDATE}
    triggers = " --rerun-triggers mtime params input software-env"
    assert triggers in one_axis["Measure the candidate"]
    with_code = planned(one_axis["Measure the candidate"].replace(triggers, ""))
    assert "Code has changed since last execution" in with_code and job_stats(with_code)["generate_gender"] == 4
    shutil.rmtree(second / ".snakemake" / "metadata")
    unrecorded = planned(one_axis["Measure the candidate"])
    assert "original_prompts" in job_stats(unrecorded), unrecorded[-3000:]


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
            "biasflow: --candidate 'smollm2-t0.8' is not in the statistics; their models: gemma3-t1.0, smollm2-t1.0."
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
        assert verdicts == {"gender BOLD Eq. 1": "worse by more than the margin", "religion BOLD Eq. 1": "equivalent"}
