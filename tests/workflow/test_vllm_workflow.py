"""The tiny end-to-end workflow with every model on vLLM's CPU build (`make test-vllm`)."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from workflow_helpers import snakemake, tiny_config, write_config

pytest.importorskip("vllm", reason="vLLM's CPU build runs in its own environment: make test-vllm")
pytestmark = pytest.mark.vllm

ENGINE = {"gpu_memory_utilization": 0.15, "max_model_len": 256, "enforce_eager": True}
MAIN_JOB = "results/cairo/gender.csv"


@pytest.fixture(scope="module")
def run(vllm_tiny_models, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("vllm-workflow") / "run"
    config = tiny_config(vllm_tiny_models, workdir)
    config["cairo"]["axes"] = {"gender": ["BOLD", "HONEST"]}
    config["cairo"]["subgroup_map"]["gender"].pop("HolisticBias")
    vllm = {"backend": "vllm", "dtype": "float32", "options": dict(ENGINE)}
    config["paraphrasers"] = {"tinychat": {**config["paraphrasers"]["tinychat"], **vllm}}
    config["models"] = {name: {**entry, **vllm} for name, entry in config["models"].items()}
    write_config(config, workdir)
    snakemake(workdir, MAIN_JOB)
    return workdir, config


def test_main_job_runs_with_every_model_on_vllm(run):
    workdir, config = run
    table = pd.read_csv(workdir / MAIN_JOB)
    assert set(table["model"]) == set(config["models"]) and set(table["pair"]) == {"BOLD~HONEST"}
    sets = pd.read_parquet(workdir / "results/prompts/sets/BOLD/gender.parquet")
    assert "tinychat-s0" in set(sets["promptset"]), "the chat paraphraser ran on vLLM"
    for model in config["models"]:
        continuations = pd.read_parquet(workdir / f"results/continuations/{model}/BOLD/gender.parquet")
        assert len(continuations) == len(sets) * 2 * 2, "prompts x seeds x samples"
        assert continuations["n_tokens"].between(0, 6).all()
        assert (continuations["continuation"].str.len() > 0).any()


def test_a_rerun_reads_every_continuation_from_the_cache(run):
    workdir, config = run
    paths = [
        workdir / f"results/continuations/a-t1.0/{metric}/gender.parquet"
        for metric in config["cairo"]["axes"]["gender"]
    ]
    before = [pd.read_parquet(path) for path in paths]
    shutil.rmtree(workdir / "results")
    snakemake(workdir, *(str(path.relative_to(workdir)) for path in paths))  # the jobs up to its continuations
    after = [pd.read_parquet(path) for path in paths]
    assert all(old.equals(new) for old, new in zip(before, after, strict=True))
    log = (workdir / "logs/generate/a-t1.0/gender.log").read_text()
    requests = len(pd.concat(after).drop_duplicates(["text", "seed", "sample"]))
    assert f"{requests} of {requests} rows from cache, 0 to compute" in log, "one job generates both metrics' rows"
    assert "vllm" not in log.lower(), "no engine was started"
