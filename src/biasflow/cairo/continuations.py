"""CAIRO's continuations: every prompt sampled ``samples`` times per generation seed (docs/methods.md §1).

The generation seeds and samples are CAIRO's ``cairo.generation`` settings; the sampling itself
goes through the core's cached generator (:class:`biasflow.generation.CachedGenerator`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from biasflow.generation import CachedGenerator
from biasflow.models import Request
from biasflow.settings import StepSettings


@dataclass(frozen=True)
class GenerationSettings(StepSettings):
    """The config's ``cairo.generation``: the generation seeds and continuations per prompt and seed."""

    section = "cairo.generation"

    seeds: list[int]
    samples: int


def continuation_table(prompts: pd.DataFrame, generator: CachedGenerator, settings: GenerationSettings) -> pd.DataFrame:
    """Sample ``settings.samples`` continuations per prompt and generation seed.

    Returns the prompt columns plus ``model, seed, sample, continuation, n_tokens``,
    ordered by prompt, seed and sample.
    """
    grid = pd.MultiIndex.from_product(
        [range(len(prompts)), list(settings.seeds), range(settings.samples)], names=["row", "seed", "sample"]
    ).to_frame(index=False)
    texts = prompts["text"].to_numpy()
    requests = [Request(texts[r], int(s), int(k)) for r, s, k in grid.itertuples(index=False)]
    generations = generator(requests)
    table = prompts.iloc[grid["row"].to_numpy()].reset_index(drop=True)
    table["model"] = generator.spec.name
    table["seed"] = grid["seed"].astype("int64")
    table["sample"] = grid["sample"].astype("int64")
    table["continuation"] = [g.text for g in generations]
    table["n_tokens"] = pd.array([g.n_tokens for g in generations], dtype="int64")
    return table
