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
* clusters (``group_key``: a BOLD page, a template) inside every subgroup and split, each
  with its own toxicity level around the subgroup's, the same for every model and prompt
  set, as related prompts are;
* score sums and sums of squares of per-continuation toxicities drawn from a Beta
  distribution (toxicity probabilities are mostly small and right-skewed);
* a latent per-model bias strength shared by all metrics, seen through metric- and
  prompt-set-specific noise, so the metrics correlate moderately across models and the
  choice of combination changes r; without that every r would be noise and the
  selection would not exercise anything.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pandas as pd

from biasflow.cairo.stats import STATS_COLUMNS

SPLIT_COUNT_RANGES = {"valid": (50, 125), "test": (120, 500)}
BETA_CONCENTRATION = 6.0


def prompt_sets(n_paraphrasers: int, seeds_per_paraphraser: int) -> list[str]:
    """``original`` followed by the ``<paraphraser>-s<seed>`` sets, in generation order."""
    return ["original"] + [f"para{p}-s{s}" for p in range(n_paraphrasers) for s in range(seeds_per_paraphraser)]


def paper_sized_stats(
    n_models: int = 10,
    metrics: tuple[str, ...] = ("BOLD", "HolisticBias", "HONEST"),
    n_paraphrasers: int = 3,
    seeds_per_paraphraser: int = 5,
    n_gen_seeds: int = 5,
    subgroups: int = 4,
    axis: str = "gender",
    rng_seed: int = 0,
    clusters: int = 6,
) -> pd.DataFrame:
    """Sufficient statistics (:data:`biasflow.cairo.stats.STATS_COLUMNS`) for one axis, both splits.

    One row per model x metric x split x prompt set x generation seed x subgroup x cluster;
    the defaults give 10 x 3 x 2 x 16 x 5 x 4 x 6 = 115,200 rows. Deterministic in ``rng_seed``.
    """
    rng = np.random.default_rng(rng_seed)
    models = [f"model{m:02d}" for m in range(n_models)]
    sets = prompt_sets(n_paraphrasers, seeds_per_paraphraser)
    splits = list(SPLIT_COUNT_RANGES)
    groups = [f"group{g}" for g in range(subgroups)]
    seeds = list(range(n_gen_seeds))
    shape = (n_models, len(metrics), len(splits), len(sets), n_gen_seeds, subgroups, clusters)

    base_toxicity = rng.uniform(0.03, 0.15, n_models)
    latent_strength = rng.uniform(0.0, 1.0, n_models)
    metric_strength = latent_strength[:, None] + rng.normal(0.0, 0.3, (n_models, len(metrics)))
    set_strength = rng.normal(0.0, 0.25, (n_models, len(metrics), len(sets)))
    direction = rng.normal(0.0, 1.0, (len(metrics), subgroups))
    direction -= direction.mean(axis=1, keepdims=True)
    set_effect = rng.normal(0.0, 0.3, (len(metrics), len(sets), subgroups))
    set_effect[:, 0] = 0.0
    cluster_effect = rng.normal(0.0, 0.3, (len(metrics), len(splits), subgroups, clusters))
    log_mean = (
        np.log(base_toxicity)[:, None, None, None]
        + 0.5 * (metric_strength[:, :, None, None] + set_strength[..., None]) * direction[None, :, None, :]
        + set_effect[None]
    )
    log_mean = log_mean[:, :, None, :, None, :, None] + cluster_effect[None, :, :, None, None, :, :]
    mean = np.broadcast_to(np.clip(np.exp(log_mean), 0.005, 0.6), shape)

    counts = np.empty((len(metrics), len(splits), len(sets), subgroups, clusters), dtype=np.int64)
    for i, split in enumerate(splits):
        low, high = SPLIT_COUNT_RANGES[split]
        totals = rng.integers(low, high + 1, (len(metrics), subgroups))
        shares = rng.dirichlet(np.full(clusters, 2.0), (len(metrics), subgroups))
        per_cluster = np.maximum(np.round(totals[..., None] * shares), 1).astype(np.int64)
        counts[:, i] = per_cluster[:, None]
        kept = rng.uniform(0.85, 1.0, (len(metrics), len(sets) - 1, subgroups, clusters))
        counts[:, i, 1:] = np.maximum(np.round(counts[:, i, 1:] * kept), 1)
    n = np.broadcast_to(counts[None, :, :, :, None, :, :], shape).ravel()

    alpha = np.repeat(mean.ravel() * BETA_CONCENTRATION, n)
    beta = np.repeat((1.0 - mean.ravel()) * BETA_CONCENTRATION, n)
    scores = rng.beta(alpha, beta)
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])
    score_sum = np.add.reduceat(scores, starts)
    score_sq_sum = np.add.reduceat(scores**2, starts)

    index = pd.MultiIndex.from_product(
        [models, list(metrics), splits, sets, seeds, groups, [f"key{c}" for c in range(clusters)]],
        names=["model", "metric", "split", "promptset", "seed", "subgroup", "group_key"],
    )
    stats = index.to_frame(index=False)
    stats["group_key"] = stats["split"] + "-" + stats["subgroup"] + "-" + stats["group_key"]
    stats["axis"] = axis
    stats["seed"] = stats["seed"].astype("int64")
    stats["score_sum"] = score_sum
    stats["score_sq_sum"] = score_sq_sum
    stats["n"] = n
    return stats[STATS_COLUMNS]


# Toxicity-classifier-like studies for calibrating CAIRO's intervals and null (docs/methods.md §1.11-1.13):
# a share ``rate`` of a model's continuations is toxic (score uniform on TOXIC), the rest near 0
# (uniform on CLEAN); models differ in how often they are toxic at all (RATES: 0.5% to 8%, as
# small and large language models do) and, where a study says so, subgroups multiply that rate
# (``effect``, models x subgroups). Each subgroup's prompts come in clusters of equal size.
TOXIC, CLEAN = (0.5, 1.0), (0.0, 0.05)
GROUPS = ["g0", "g1", "g2", "g3"]
# (clusters per subgroup, continuations per cluster): a BOLD-like and a HolisticBias-like metric.
SHAPES = {"A": (4, 20), "B": (6, 32)}
RATES = np.geomspace(0.005, 0.08, 10)


def expected_score(rate: np.ndarray) -> np.ndarray:
    """The mean score of continuations toxic at ``rate``."""
    return rate * np.mean(TOXIC) + (1 - rate) * np.mean(CLEAN)


def toxicity_study(rng, rates, effect, sets=("p0",), shapes=SHAPES) -> pd.DataFrame:
    """CAIRO statistics of every model (``rates``), metric, split and prompt set; ``effect`` (models x subgroups)."""
    frames = []
    for (metric, (clusters, size)), split, promptset in itertools.product(
        shapes.items(), ["valid", "test"], ["original", *sets]
    ):
        cells = _cells(len(rates), clusters)
        score_sum, score_sq_sum = cluster_sums(rng, rates, effect, clusters, size)
        frames.append(
            pd.DataFrame(
                {
                    "model": cells["model"],
                    "metric": metric,
                    "axis": "religion",
                    "split": split,
                    "promptset": promptset,
                    "seed": 0,
                    "subgroup": cells["subgroup"],
                    "group_key": cells["group_key"],
                    "score_sum": score_sum,
                    "score_sq_sum": score_sq_sum,
                    "n": size,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)[STATS_COLUMNS]


def cluster_sums(rng, rates, effect, clusters, size, repetitions=()) -> tuple[np.ndarray, np.ndarray]:
    """Sums and sums of squares of the scores of every (model, subgroup, cluster), in that order: (..., cells)."""
    cells = _cells(len(rates), clusters)
    shape = (*repetitions, len(cells["m"]))
    toxic = rng.binomial(size, np.clip(rates[cells["m"]] * effect[cells["m"], cells["g"]], 0, 1), size=shape)
    scores = np.where(
        np.arange(size) < toxic[..., None], rng.uniform(*TOXIC, (*shape, size)), rng.uniform(*CLEAN, (*shape, size))
    )
    return scores.sum(axis=-1), (scores**2).sum(axis=-1)


@functools.cache
def _cells(models: int, clusters: int) -> dict:
    """Model, subgroup and cluster of every row, as indices and as names."""
    m, g, c = np.array(list(itertools.product(range(models), range(len(GROUPS)), range(clusters)))).T
    return {
        "m": m,
        "g": g,
        "model": [f"m{i:02d}" for i in m],
        "subgroup": np.array(GROUPS)[g],
        "group_key": [f"{GROUPS[a]}-{b}" for a, b in zip(g, c, strict=True)],
    }
