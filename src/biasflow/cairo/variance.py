"""Where a model's bias would move: prompt wording, generation seed, sample of prompts, continuations (§1.17).

Per axis, metric, split and model, the spread of the model's Eq. 1 (on the original
prompts, averaged over seeds as everywhere, §1.6) is split into four variances, each the
part one source of variation contributes, in Eq. 1's units:

- ``continuations``: the continuations sampled per prompt, by the delta method: with
  m_g a subgroup's mean and N_g its continuations, Var = Σ_g d_g² σ²_g / N_g per seed
  (d_g = ∂Eq. 1/∂m_g = sign(m_g − μ) − (N_g/N) Σ_h sign(m_h − μ), σ²_g the score's variance
  within clusters), averaged over the S seeds: Σ_s V_s / S²;
- ``seed``: the generation seed, the variance of the per-seed Eq. 1 over seeds beyond what
  the continuations give, divided by S (NaN with one seed);
- ``prompts``: the sample of prompts, the cluster bootstrap's variance of Eq. 1 (§1.11, its
  rescaled draws unbiased for a mean's variance) less the continuations' part, which each
  cluster's total also carries (NaN where a subgroup has a single group key);
- ``wording``: a rewording of the prompts, the variance of Eq. 1 across the prompt sets
  (original and every paraphrase set, each a wording of the same prompts, of the same size)
  less what each set's own continuations and seed contribute.

Each is clipped at 0 (an estimate of a variance can fall below it by chance). The first
three are parts of the original prompts' Eq. 1 as reported; the fourth says how far a
rewording of all the prompts would move it. ``sd_total`` is the root of their sum and each
``share_*`` its part.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasflow.cairo.combinations import ORIGINAL, PooledStats, eq1, pooled_stats
from biasflow.cairo.uncertainty import bootstrap_weights, draw_bias, draw_rng
from biasflow.variance_components import component_columns, split_columns

SOURCES = ("wording", "seed", "prompts", "continuations")
VARIANCE_COLUMNS = [
    "axis",
    "metric",
    "split",
    "model",
    "bias",
    *component_columns(SOURCES),
    "n_sets",
    "n_seeds",
    "n_clusters",
]
# The stream of the bootstrap draws behind the prompts' part (beside the selection's own).
STREAM = "variance"


def variance_table(stats: pd.DataFrame, draws: int, seed: int, normalise: str) -> pd.DataFrame:
    """Every model's variance components per axis, metric and split (docs/methods.md §1.17)."""
    rows = []
    for (axis, metric, split), part in stats.groupby(["axis", "metric", "split"], sort=True):
        models = sorted(part["model"].unique())
        sets = [ORIGINAL, *sorted(name for name in part["promptset"].unique() if name != ORIGINAL)]
        pooled = pooled_stats(stats, metric, axis, split, sets, models)
        within = within_variance(part, sets, models, pooled)
        per_seed, continuations = seed_bias(pooled, within, normalise)
        n_seeds = per_seed.shape[0]
        counts = np.zeros(len(sets))
        counts[0] = 1.0
        if draws:
            boot = bootstrap_weights(pooled, draws, draw_rng(seed, STREAM, metric, split))
            drawn = draw_bias(counts, pooled, boot, normalise)
        else:
            drawn = np.full((0, len(models)), np.nan)
        n = pooled.n_clusters()
        for m, model in enumerate(models):
            bias = per_seed[:, m, :].mean(axis=0)  # per set, averaged over seeds
            own = continuations[:, m, :].sum(axis=0) / n_seeds**2
            seeds = (
                (per_seed[:, m, :].var(axis=0, ddof=1) / n_seeds - own) if n_seeds > 1 else np.full(len(sets), np.nan)
            )
            finite = drawn[:, m][np.isfinite(drawn[:, m])]
            prompts = (finite.var(ddof=1) - own[0]) if len(finite) > 1 else np.nan
            noise = own + np.nan_to_num(seeds)
            kept = np.isfinite(bias)
            wording = (bias[kept].var(ddof=1) - noise[kept].mean()) if kept.sum() > 1 else np.nan
            rows.append(
                _row(
                    axis,
                    metric,
                    split,
                    model,
                    bias[0],
                    {
                        "wording": wording,
                        "seed": seeds[0],
                        "prompts": prompts,
                        "continuations": own[0],
                    },
                    int(kept.sum()),
                    n_seeds,
                    n,
                )
            )
    return pd.DataFrame(rows, columns=VARIANCE_COLUMNS)


def _row(axis, metric, split, model, bias, parts: dict, n_sets: int, n_seeds: int, n_clusters: int) -> dict:
    """One model's row: each part clipped at 0, its root and its share of their sum (:func:`split_columns`)."""
    return {
        "axis": axis,
        "metric": metric,
        "split": split,
        "model": model,
        "bias": float(bias),
        **split_columns(parts),
        "n_sets": n_sets,
        "n_seeds": n_seeds,
        "n_clusters": n_clusters,
    }


def within_variance(part: pd.DataFrame, sets: list[str], models: list[str], pooled: PooledStats) -> np.ndarray:
    """The score's variance within clusters per subgroup: (subgroups x seeds x models x sets), NaN where unknown."""
    rows = part[part["n"] > 0]
    squares = rows["score_sq_sum"] - rows["score_sum"] ** 2 / rows["n"]
    grouped = (
        rows.assign(_ss=squares.clip(lower=0), _df=rows["n"] - 1)
        .groupby(["subgroup", "seed", "model", "promptset"])[["_ss", "_df"]]
        .sum()
    )
    seeds = sorted(part["seed"].unique())
    index = pd.MultiIndex.from_product([pooled.subgroups, seeds, models, sets])
    grouped = grouped.reindex(index)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = (grouped["_ss"] / grouped["_df"].where(grouped["_df"] > 0)).to_numpy(dtype=np.float64)
    return values.reshape(len(pooled.subgroups), len(seeds), len(models), len(sets))


def seed_bias(pooled: PooledStats, within: np.ndarray, normalise: str) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 1 of every seed, model and set, and the continuations' delta-method variance of each.

    Both are (seeds x models x sets).
    """
    group_sum, group_n = pooled.totals()  # subgroups x seeds x models x sets
    with np.errstate(invalid="ignore", divide="ignore"):
        bias = eq1(group_sum[:, None], group_n[:, None], normalise)  # each seed its own "seeds" axis of one
        means = group_sum / group_n
        overall = group_sum.sum(axis=0) / group_n.sum(axis=0)
        signs = np.sign(means - overall)
        slope = signs - group_n / group_n.sum(axis=0) * signs.sum(axis=0)
        scale = 1 / len(group_sum) if normalise == "mean" else 1.0
        continuations = (slope**2 * within / group_n).sum(axis=0) * scale**2
    return bias, continuations
