"""Synthetic CAIRO statistics of the paper's shape, for benchmarks and tests.

The CAIRO paper evaluates about ten models on three metrics, with three paraphrasers
times five seeds (15 paraphrase sets) next to the original prompts. Benchmarking the
selection engine needs statistics of exactly that shape (docs/methods.md §1.4, "Sufficient
sufficient statistics"), but generating them for real takes GPU days, so they are drawn
here from a small generative model that keeps what matters for timing and for the
correctness comparison:

* counts per cell like real prompt sets (50-500 continuations per subgroup, fewer on the
  valid split, paraphrase sets slightly smaller than the original after rejections), the
  same for every model and seed, as they are when every model answers the same prompts;
* score sums that are sums of per-continuation toxicities drawn from a Beta distribution
  (toxicity probabilities are mostly small and right-skewed);
* a latent per-model bias strength shared by all metrics, seen through metric- and
  prompt-set-specific noise, so the metrics correlate moderately across models and the
  choice of combination changes r; without that every r would be noise and the
  selection would not exercise anything.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasflow.cairo.stats import STATS_COLUMNS

SPLIT_COUNT_RANGES = {"valid": (50, 125), "test": (120, 500)}
BETA_CONCENTRATION = 6.0


def prompt_sets(n_paraphrasers: int, seeds_per_paraphraser: int) -> list[str]:
    """``original`` followed by the ``<paraphraser>-s<seed>`` sets, in generation order."""
    return ["original"] + [
        f"para{p}-s{s}" for p in range(n_paraphrasers) for s in range(seeds_per_paraphraser)
    ]


def paper_sized_stats(
    n_models: int = 10,
    metrics: tuple[str, ...] = ("BOLD", "HolisticBias", "HONEST"),
    n_paraphrasers: int = 3,
    seeds_per_paraphraser: int = 5,
    n_gen_seeds: int = 5,
    subgroups: int = 4,
    axis: str = "gender",
    rng_seed: int = 0,
) -> pd.DataFrame:
    """Sufficient statistics (:data:`biasflow.cairo.stats.STATS_COLUMNS`) for one axis, both splits.

    One row per model x metric x split x prompt set x generation seed x subgroup; the
    defaults give 10 x 3 x 2 x 16 x 5 x 4 = 19,200 rows. Deterministic in ``rng_seed``.
    """
    rng = np.random.default_rng(rng_seed)
    models = [f"model{m:02d}" for m in range(n_models)]
    sets = prompt_sets(n_paraphrasers, seeds_per_paraphraser)
    splits = list(SPLIT_COUNT_RANGES)
    groups = [f"group{g}" for g in range(subgroups)]
    seeds = list(range(n_gen_seeds))
    shape = (n_models, len(metrics), len(splits), len(sets), n_gen_seeds, subgroups)

    base_toxicity = rng.uniform(0.03, 0.15, n_models)
    latent_strength = rng.uniform(0.0, 1.0, n_models)
    metric_strength = latent_strength[:, None] + rng.normal(0.0, 0.3, (n_models, len(metrics)))
    set_strength = rng.normal(0.0, 0.25, (n_models, len(metrics), len(sets)))
    direction = rng.normal(0.0, 1.0, (len(metrics), subgroups))
    direction -= direction.mean(axis=1, keepdims=True)
    set_effect = rng.normal(0.0, 0.3, (len(metrics), len(sets), subgroups))
    set_effect[:, 0] = 0.0
    log_mean = (
        np.log(base_toxicity)[:, None, None, None]
        + 0.5 * (metric_strength[:, :, None, None] + set_strength[..., None]) * direction[None, :, None, :]
        + set_effect[None]
    )
    mean = np.clip(np.exp(log_mean), 0.005, 0.6)
    mean = np.broadcast_to(mean[:, :, None, :, None, :], shape)

    counts = np.empty((len(metrics), len(splits), len(sets), subgroups), dtype=np.int64)
    for i, split in enumerate(splits):
        low, high = SPLIT_COUNT_RANGES[split]
        counts[:, i] = rng.integers(low, high + 1, (len(metrics), 1, subgroups))
        kept = rng.uniform(0.85, 1.0, (len(metrics), len(sets) - 1, subgroups))
        counts[:, i, 1:] = np.maximum(np.round(counts[:, i, 1:] * kept), 1)
    n = np.broadcast_to(counts[None, :, :, :, None, :], shape).ravel()

    alpha = np.repeat(mean.ravel() * BETA_CONCENTRATION, n)
    beta = np.repeat((1.0 - mean.ravel()) * BETA_CONCENTRATION, n)
    scores = rng.beta(alpha, beta)
    score_sum = np.add.reduceat(scores, np.concatenate([[0], np.cumsum(n)[:-1]]))

    index = pd.MultiIndex.from_product(
        [models, list(metrics), splits, sets, seeds, groups],
        names=["model", "metric", "split", "promptset", "seed", "subgroup"],
    )
    stats = index.to_frame(index=False)
    stats["axis"] = axis
    stats["seed"] = stats["seed"].astype("int64")
    stats["score_sum"] = score_sum
    stats["n"] = n
    return stats[STATS_COLUMNS]
