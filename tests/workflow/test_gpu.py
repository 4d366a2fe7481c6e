"""The GPU check (`make test-gpu`): the tiny workflow on CUDA, with the transformers backend
and Detoxify, against the same workflow on the CPU.

Sampling draws from CPU random streams on either device (docs/methods.md §5.1), so the
runs share their continuations up to floating-point differences in the probabilities;
Detoxify's scores of the same text agree within 1e-4.
"""

from __future__ import annotations

import pandas as pd
import pytest

from workflow_helpers import snakemake, tiny_config, write_config

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu]
if not torch.cuda.is_available():
    pytestmark.append(
        pytest.mark.skip(
            reason="no CUDA device here: the GPU check needs an NVIDIA GPU and a CUDA build of torch (make test-gpu)"
        )
    )

METRIC = "BOLD"  # one metric is enough to compare devices, and keeps the check to a few minutes
SCORE_TOLERANCE = 1e-4
# Share of continuations the two devices must sample identically (a near-tie in the
# probabilities can flip one token, and the rest of that continuation with it).
SAME_TEXT_SHARE = 0.95


@pytest.fixture(scope="module")
def runs(tiny_models, tiny_detoxify, tmp_path_factory):
    checkpoint, config_dir = tiny_detoxify
    out = {}
    for device, env in (("cuda", {}), ("cpu", {"CUDA_VISIBLE_DEVICES": ""})):
        workdir = tmp_path_factory.mktemp(device)
        config = tiny_config(tiny_models, workdir)
        config["cairo"]["scoring"] = {
            "scorer": "detoxify-unbiased",
            "checkpoint": str(checkpoint),
            "huggingface_config": str(config_dir),
            "device": "auto",
        }
        config["cairo"]["axes"] = {"gender": [METRIC]}
        write_config(config, workdir)
        targets = [f"results/scores/detoxify-unbiased/{model}/{METRIC}/gender.parquet" for model in config["models"]]
        snakemake(workdir, *targets, env=env)
        out[device] = (workdir, config)
    return out


def tables(workdir, config, kind):
    frames = []
    for model in config["models"]:
        frames.append(pd.read_parquet(workdir / f"results/{kind}/{model}/{METRIC}/gender.parquet"))
    return pd.concat(frames, ignore_index=True)


def test_the_runs_used_the_devices_they_were_meant_to(runs):
    for device, (workdir, _) in runs.items():
        generate = (workdir / "logs/generate/a-t1.0/gender.log").read_text()
        score = (workdir / "logs/score/detoxify-unbiased/a-t1.0/BOLD/gender.log").read_text()
        assert f"on {device}" in generate and f"Detoxify on {device}" in score


def test_same_rows_same_continuations_and_close_scores(runs):
    key = ["prompt_id", "model", "seed", "sample"]
    (gpu_dir, config), (cpu_dir, _) = runs["cuda"], runs["cpu"]
    gpu, cpu = tables(gpu_dir, config, "continuations"), tables(cpu_dir, config, "continuations")
    assert len(gpu) == len(cpu) and set(map(tuple, gpu[key].values)) == set(map(tuple, cpu[key].values))
    both = gpu.merge(cpu, on=key, suffixes=("_gpu", "_cpu"))
    same = both["continuation_gpu"] == both["continuation_cpu"]
    assert same.mean() >= SAME_TEXT_SHARE, f"only {same.mean():.3f} of continuations agree"
    scores = tables(gpu_dir, config, "scores/detoxify-unbiased").merge(
        tables(cpu_dir, config, "scores/detoxify-unbiased"), on=key, suffixes=("_gpu", "_cpu")
    )
    scored = scores.merge(both.loc[same, key], on=key)
    assert len(scored) == same.sum()
    assert (scored["score_gpu"] - scored["score_cpu"]).abs().max() <= SCORE_TOLERANCE
