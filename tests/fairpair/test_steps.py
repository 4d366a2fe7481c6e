"""The FairPair workflow steps on a tiny local model: the LLM perturbation path end to end."""

from __future__ import annotations

import pandas as pd
import pytest

from biasflow.fairpair import steps as fairpair_steps
from biasflow.fairpair.perturbation import PerturbationSettings
from biasflow.fairpair.prompts import PromptSettings

# A tiny model's steps: one torch thread (tests/conftest.py says why).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_llm_perturbation_counts_rejections_and_keeps_none_it_rejects(tiny_model_dir, tmp_path):
    """A random tiny model never reproduces the perturbed prompt: every pair is rejected and counted."""
    prompts = tmp_path / "prompts.parquet"
    fairpair_steps.prompts(
        settings=PromptSettings.defaults(occupations=["doctor", "nurse"]), outputs={"prompts": str(prompts)}
    )
    model = {"name": "tiny", "model": str(tiny_model_dir), "decoding": {"max_new_tokens": 5}}
    continuations = tmp_path / "continuations.parquet"
    fairpair_steps.generate(
        prompts_path=str(prompts),
        entry=model,
        settings=fairpair_steps.SamplingSettings(samples=2, seed=0, decoding={}),
        cache_dir=str(tmp_path / "cache"),
        outputs={"continuations": str(continuations)},
    )
    generated = pd.read_parquet(continuations)
    assert len(generated) == 2 * 2 * 2, "prompts x sides x samples"
    pairs, rejections = tmp_path / "pairs.parquet", tmp_path / "rejections.csv"
    fairpair_steps.pairs(
        prompts_path=str(prompts),
        continuations_path=str(continuations),
        model="tiny",
        settings=PerturbationSettings.defaults(method="llm"),
        perturber={**model, "decoding": {"max_new_tokens": 12}},
        cache_dir=str(tmp_path / "cache"),
        outputs={"pairs": str(pairs), "pair_rejections": str(rejections)},
    )
    table = pd.read_csv(rejections)
    assert table["n"].sum() == 4 and table["n_accepted"].sum() == 0
    assert table[["not_prefixed", "mentions_entity", "too_different"]].to_numpy().sum() == 4
    sides = pd.read_parquet(pairs)
    assert set(sides["side"]) == {"counterfactual"}, "rejected perturbations are left out, never kept"


def test_rule_perturbation_swaps_the_continuations_of_x(tiny_model_dir, tmp_path):
    prompts = tmp_path / "prompts.parquet"
    fairpair_steps.prompts(settings=PromptSettings.defaults(occupations=["doctor"]), outputs={"prompts": str(prompts)})
    generated = pd.DataFrame(
        {
            "prompt_id": pd.read_parquet(prompts)["prompt_id"].iloc[0],
            "side": ["original", "original", "counterfactual", "counterfactual"],
            "sample": [0, 1, 0, 1],
            "text": [" He said his day was long.", " John smiled at him.", " She left.", " Her day was long."],
        }
    )
    continuations = tmp_path / "continuations.parquet"
    generated.to_parquet(continuations)
    pairs = tmp_path / "pairs.parquet"
    fairpair_steps.pairs(
        prompts_path=str(prompts),
        continuations_path=str(continuations),
        model="m",
        settings=PerturbationSettings.defaults(),
        perturber=None,
        cache_dir=str(tmp_path / "cache"),
        outputs={"pairs": str(pairs), "pair_rejections": str(tmp_path / "rejections.csv")},
    )
    perturbed = pd.read_parquet(pairs).query("side == 'perturbed_original'").sort_values("sample")["text"].tolist()
    assert perturbed == [" She said her day was long.", " Jane smiled at her."]
