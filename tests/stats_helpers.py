"""CAIRO statistics drawn directly for tests: per cluster, with sums, sums of squares and counts that agree."""

from __future__ import annotations

import itertools

import pandas as pd

from biasflow.cairo.stats import STATS_COLUMNS, STATS_KEYS


def drawn_stats(
    rng, models, metrics, sets, n_seeds=1, groups=("g0", "g1"), clusters=2, axis="gender", low=1, high=20
) -> pd.DataFrame:
    """One row per model, metric, split, prompt set, seed, subgroup and cluster; each split has its own clusters.

    ``score_sum`` is n times a mean in [0, 1), ``score_sq_sum`` at least ``score_sum² / n`` as a
    sum of squares of scores in [0, 1] must be.
    """
    keys = itertools.product(
        models, metrics, [axis], ["valid", "test"], ["original", *sets], range(n_seeds), groups, range(clusters)
    )
    stats = pd.DataFrame(list(keys), columns=STATS_KEYS)
    stats["group_key"] = stats["split"] + "-key" + stats["group_key"].astype(str)
    stats["n"] = rng.integers(low, high, len(stats))
    mean = rng.random(len(stats)) * rng.random(len(stats))
    stats["score_sum"] = stats["n"] * mean
    stats["score_sq_sum"] = stats["n"] * (mean**2 + rng.random(len(stats)) * mean * (1 - mean))
    return stats[STATS_COLUMNS]
