"""The core installed alone, as `pip install biasflow` gives it, in a fresh virtual environment (issue 41).

A new environment gets this checkout built as a wheel with no extra, at the lock's versions
(requirements/lock.txt as constraints). It must hold none of the extras' packages; ``import
biasflow`` and every table command run on small tables the test writes (the CAIRO selection
and a comparison on statistics, every FairPair and FPR table from sides and predictions,
the power planner); the API's examples that load no model pass as doctests there; and a
command that needs a missing extra stops in one line naming it. Downloads what the lock
pins (uv's cache makes a rerun fast), so it is a suite of its own: ``make test-install``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import biasflow
from workflow_helpers import REPO

pytestmark = pytest.mark.install

# What the extras install; none may be in the core's environment.
EXTRA_PACKAGES = [
    "torch",
    "transformers",
    "accelerate",
    "gguf",
    "ctranslate2",
    "snakemake",
    "alt-profanity-check",
    "scikit-learn",
    "detoxify",
    "openai",
    "peft",
    "vllm",
]
# The API's examples that score with the profanity scorer, which is an extra's.
NEEDS_AN_EXTRA = {"score", "scorer_bias"}


# What a user types for the core in a checkout; the fixture does the same with uv and the lock as constraints.
CORE_INSTALL = "pip install ."


@pytest.fixture(scope="module")
def core(tmp_path_factory) -> Path:
    """The fresh environment's bin folder, the core installed from a wheel of this checkout (:data:`CORE_INSTALL`)."""
    root = tmp_path_factory.mktemp("core")
    uv = Path(sys.executable).parent / "uv"
    subprocess.run([str(uv), "venv", "-q", "--python", sys.executable, str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    subprocess.run(
        [
            str(uv),
            "pip",
            "install",
            "-q",
            "--python",
            str(python),
            "-c",
            str(REPO / "requirements/lock.txt"),
            str(REPO),
        ],
        check=True,
        cwd=root,
    )
    return python.parent


def clean_environment() -> dict[str, str]:
    """This process's environment without what would lead the new one to this checkout's code."""
    return {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}


def run(core: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(core / "biasflow"), *args], capture_output=True, text=True, cwd=cwd, env=clean_environment()
    )


def test_the_core_holds_none_of_the_extras(core):
    listed = (
        subprocess.run(
            [str(Path(sys.executable).parent / "uv"), "pip", "list", "--python", str(core / "python")],
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.lower()
        .split()
    )
    assert not [name for name in EXTRA_PACKAGES if name in listed]
    code = "import biasflow, sys; print(biasflow.__file__); print(sorted(biasflow.__all__))"
    out = subprocess.run(
        [str(core / "python"), "-c", code], capture_output=True, text=True, check=True, cwd="/", env=clean_environment()
    ).stdout.splitlines()
    assert str(REPO) not in out[0], "the wheel's biasflow, not this checkout's"
    assert out[1] == str(sorted(biasflow.__all__))


def stats(rng) -> pd.DataFrame:
    """CAIRO statistics of four models on two metrics, three group keys per subgroup, both splits."""
    rows = [
        (f"m{m}", metric, split, group, f"{group}-{split}-{k}", rng.beta(1, 12 - 2 * m))
        for m in range(4)
        for metric in ("BOLD", "HONEST")
        for split in ("valid", "test")
        for group in ("female", "male")
        for k in range(3)
        for _ in range(4)
    ]
    scored = pd.DataFrame(rows, columns=["model", "metric", "split", "subgroup", "group_key", "score"])
    return biasflow.cairo_statistics(
        scored.assign(axis="gender", promptset="original", seed=0, prompt_id=scored.index.astype(str))
    )


def sides(rng, rude: float) -> pd.DataFrame:
    words = ["the nurse was kind", "the nurse was rude"]
    return pd.DataFrame(
        [
            (f"p{p}", side, s, rng.choice(words, p=[1 - r, r]))
            for p in range(10)
            for side, r in (("perturbed_original", 0.5), ("counterfactual", rude))
            for s in range(5)
        ],
        columns=["prompt_id", "side", "sample", "text"],
    )


def predictions(model: str, rng) -> pd.DataFrame:
    sentences = biasflow.probe_sentences("race")
    runs = []
    for run_id in range(2):
        wrong = rng.random(len(sentences)) < 0.3
        runs.append(
            sentences.assign(
                model=model,
                run_id=run_id,
                y_pred=np.where(wrong, rng.integers(0, 3, len(sentences)), sentences["y_true"]),
            )
        )
    return pd.concat(runs, ignore_index=True)


def test_every_table_command_runs_with_the_core_alone(core, tmp_path):
    rng = np.random.default_rng(0)
    stats(rng).to_parquet(tmp_path / "stats.parquet")
    for model, rude in (("before", 0.7), ("after", 0.5)):
        sides(rng, rude).to_csv(tmp_path / f"{model}.csv", index=False)
    for model in ("a", "b"):
        predictions(model, rng).to_csv(tmp_path / f"race_{model}.tsv", sep="\t", index=False)
    commands = {
        "cairo-select": ["--stats", "stats.parquet", "--max-sets", "1", "--out-dir", "cairo"],
        "compare": [
            "--method",
            "cairo",
            "--stats",
            "stats.parquet",
            "--baseline",
            "m0",
            "--candidate",
            "m1",
            "--fail-on",
            "never",
            "--out",
            "verdicts.csv",
        ],
        "fairpair-summary": ["--sides", "before.csv", "after.csv", "--null-draws", "50", "--out-dir", "fairpair"],
        "fpr-summary": ["--probe-set", "race", "race_a.tsv", "race_b.tsv", "--out-dir", "fpr"],
        "power": ["--method", "fpr", "--pilot", "race_a.tsv", "--out", "power.csv"],
    }
    for command, args in commands.items():
        result = run(core, command, *args, cwd=tmp_path)
        assert result.returncode == 0, f"{command}:\n{result.stderr[-3000:]}"
    assert (tmp_path / "cairo" / "gender.csv").exists() and len(pd.read_csv(tmp_path / "verdicts.csv")) == 2
    assert (tmp_path / "fairpair" / "summary.csv").exists() and (tmp_path / "fpr" / "gap_spans.csv").exists()
    assert len(pd.read_csv(tmp_path / "power.csv"))


def test_the_apis_examples_that_load_no_model_run_with_the_core_alone(core, tmp_path):
    names = [name for name in biasflow.__all__ if name not in NEEDS_AN_EXTRA]
    script = tmp_path / "doctests.py"
    script.write_text(
        "import doctest, sys, biasflow\n"
        f"failed = 0\nfor name in {names!r}:\n"
        "    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)\n"
        "    for test in doctest.DocTestFinder().find(getattr(biasflow, name), name, globs={}):\n"
        "        runner.run(test)\n"
        "    failed += runner.failures\n"
        "sys.exit(failed)\n"
    )
    result = subprocess.run(
        [str(core / "python"), str(script)], capture_output=True, text=True, cwd=tmp_path, env=clean_environment()
    )
    assert result.returncode == 0, result.stdout[-4000:]
    assert {name for name in biasflow.__all__ if "profanity" in getattr(biasflow, name).__doc__} <= NEEDS_AN_EXTRA


@pytest.mark.parametrize(("scorer", "extra"), [("profanity", "profanity"), ("detoxify-unbiased", "detoxify")])
def test_a_command_that_needs_a_missing_extra_names_it_in_one_line(core, tmp_path, scorer, extra):
    pd.DataFrame({"continuation": ["was kind.", "is a damn idiot."]}).to_csv(tmp_path / "c.csv", index=False)
    result = run(core, "score", "--continuations", "c.csv", "--scorer", scorer, "--out", "scored.csv", cwd=tmp_path)
    assert result.returncode == 2 and not (tmp_path / "scored.csv").exists()
    [line] = [line for line in result.stderr.splitlines() if line.startswith("biasflow:")]  # the rest: progress
    assert f"pip install 'biasflow[{extra}]'" in line, line
    assert "Traceback" not in result.stderr
