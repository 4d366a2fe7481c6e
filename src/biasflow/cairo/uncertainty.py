"""How far to trust a CAIRO number: cluster bootstrap, the no-bias null, and agreement beyond toxicity levels.

docs/methods.md §1.11-1.14. Both resampling schemes act on clusters (one ``group_key`` of
a subgroup: a BOLD page, a HolisticBias or HONEST template) and turn the clusters into
subgroups through a (subgroups x clusters) weight matrix per draw, so every statistic of a
draw is the same matrix products as the statistic itself
(:meth:`biasflow.cairo.combinations.PooledStats.totals`):

- a *bootstrap* draw resamples, with replacement, the clusters of every subgroup, keeping
  their count; its weights are each cluster's multiplicity;
- a *null* draw permutes the subgroup labels among the clusters of the metric and split,
  keeping each subgroup's number of clusters; its weights are the relabelled membership.

A draw is the same for every model, prompt set and seed: the models answered the same
prompts, so their comparison is paired. Each (metric, split) has its own stream of draws,
seeded by the selection's seed, so a pair of metrics and the headline table see the same
draws of a metric.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as scipy_stats

from biasflow.cairo.combinations import PooledStats, eq1
from biasflow.hashing import stable_hash

# Streams of random draws, one per purpose, so adding draws of one kind never moves another's.
BOOTSTRAP, NULL = "bootstrap", "null"
# Percentiles of a 95% interval.
INTERVAL = (2.5, 97.5)


def draw_rng(seed: int, purpose: str, metric: str, split: str) -> np.random.Generator:
    """The random stream of one kind of draw for one metric and split (stable across runs and machines)."""
    return np.random.default_rng([int(seed), int(stable_hash(purpose, metric, split), 16) & (2**63 - 1)])


def bootstrap_weights(pooled: PooledStats, draws: int, rng: np.random.Generator) -> np.ndarray:
    """(draws x subgroups x clusters): each subgroup's clusters resampled with replacement, as weights.

    Rao and Wu's rescaled bootstrap (docs/methods.md §1.11): a subgroup with c clusters draws
    c − 1 of them, each weighted c / (c − 1). Drawing c would understate the variance of a
    subgroup mean by the factor (c − 1) / c, which at the handful of pages or templates a
    subgroup has leaves 95% intervals covering about 90%. A subgroup with one cluster cannot
    be resampled and keeps it (its sampling error is then missing from the interval).
    """
    weights = np.zeros((draws, *pooled.membership.shape))
    for g, row in enumerate(pooled.membership):
        clusters = np.flatnonzero(row)
        if len(clusters) == 1:
            weights[:, g, clusters] = 1.0
            continue
        drawn = rng.multinomial(len(clusters) - 1, np.full(len(clusters), 1 / len(clusters)), size=draws)
        weights[:, g, clusters] = drawn * len(clusters) / (len(clusters) - 1)
    return weights


def null_weights(pooled: PooledStats, draws: int, rng: np.random.Generator) -> np.ndarray:
    """(draws x subgroups x clusters): the subgroup labels permuted among all clusters, as memberships."""
    labels = np.argmax(pooled.membership, axis=0)
    shuffled = rng.permuted(np.tile(labels, (draws, 1)), axis=1)
    return (shuffled[:, None, :] == np.arange(len(pooled.subgroups))[None, :, None]).astype(np.float64)


def draw_totals(counts: np.ndarray, pooled: PooledStats, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Subgroup sums and counts of one combination under every draw: (subgroups x seeds x draws x models).

    ``counts`` is one combination's multiplicity of each prompt set.
    """
    counts = np.asarray(counts, dtype=np.float64)
    score_sum = np.tensordot(counts, pooled.score_sum, axes=1)
    n = np.tensordot(counts, pooled.n, axes=1)
    return (np.einsum("mkc,dgc->gkdm", score_sum, weights, optimize=True),
            np.einsum("mkc,dgc->gkdm", n, weights, optimize=True))


def draw_bias(counts: np.ndarray, pooled: PooledStats, weights: np.ndarray, normalise: str) -> np.ndarray:
    """Eq. 1 of one combination under every draw: (draws x models)."""
    return eq1(*draw_totals(counts, pooled, weights), normalise)


def percentile_interval(draws: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The percentile 95% interval of draws along ``axis`` (NaN where a draw is NaN)."""
    low, high = np.percentile(draws, INTERVAL, axis=axis)
    return low, high


def group_difference_interval(counts: np.ndarray, pooled: PooledStats, weights: np.ndarray, normalise: str
                              ) -> tuple[np.ndarray, np.ndarray]:
    """A 95% interval per model for the population value of Eq. 1, Σ_g |μ_g − μ_all| (docs/methods.md §1.13).

    Each subgroup's deviation μ_all − μ_g is (nearly) unbiased; its absolute value is not,
    which is Eq. 1's upward bias. Under every bootstrap draw the deviations are summed with
    the signs they have in the data, which keeps the statistic linear and so its percentile
    interval centred where the population value is when a subgroup clearly differs, and wide
    enough to reach it when one does not (coverage checked by simulation,
    tests/cairo/test_calibration.py).
    """
    observed = _deviations(*draw_totals(counts, pooled, pooled.membership[None]))
    linear = (np.sign(observed) * _deviations(*draw_totals(counts, pooled, weights))).sum(axis=0).mean(axis=0)
    if normalise == "mean":
        linear = linear / len(pooled.subgroups)
    return percentile_interval(linear)


def _deviations(group_sum: np.ndarray, group_n: np.ndarray) -> np.ndarray:
    """μ_all − μ_g of every subgroup (the leading axis)."""
    return group_sum.sum(axis=0) / group_n.sum(axis=0) - group_sum / group_n


def rank_interval(bias_draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Percentile 95% interval of each model's rank (1: least biased) over bootstrap draws: (draws x models) in."""
    ranks = scipy_stats.rankdata(bias_draws, method="min", axis=1)
    low, high = percentile_interval(ranks)
    return np.floor(low).astype(np.int64), np.ceil(high).astype(np.int64)


def pearson_rows(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of ``first`` with the same row of ``second`` (NaN for a constant row)."""
    a = first - first.mean(axis=-1, keepdims=True)
    b = second - second.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a * b).sum(axis=-1) / np.sqrt((a**2).sum(axis=-1) * (b**2).sum(axis=-1))


def partial_r(first: np.ndarray, second: np.ndarray, covariates: np.ndarray) -> float:
    """Pearson's r of two vectors across models after regressing both on ``covariates`` (models x k) and a constant.

    docs/methods.md §1.14: the metrics' Eq. 1 controlling for each model's mean score on
    both metrics, so agreement that only reflects how toxic a model is overall drops out.
    NaN when the residuals leave too few degrees of freedom or are constant.
    """
    design = np.column_stack([np.ones(len(first)), covariates])
    if len(first) - np.linalg.matrix_rank(design) < 2:
        return float("nan")
    residuals = [y - design @ np.linalg.lstsq(design, y, rcond=None)[0] for y in (first, second)]
    return float(pearson_rows(residuals[0], residuals[1]))


def kendall_w(values: np.ndarray) -> float:
    """Kendall's coefficient of concordance of the rankings in the rows of ``values`` (raters x models).

    Ties share the mean rank; W = 12 S / (m² (n³ − n) − m Σ T), with T the ties correction
    Σ (t³ − t) per rater; 1: the raters rank alike, 0: no agreement.
    """
    m, n = values.shape
    ranks = scipy_stats.rankdata(values, axis=1)
    spread = ((ranks.sum(axis=0) - m * (n + 1) / 2) ** 2).sum()
    ties = sum(((counts**3) - counts).sum() for counts in (np.unique(row, return_counts=True)[1] for row in values))
    denominator = m**2 * (n**3 - n) - m * ties
    return float(12 * spread / denominator) if denominator > 0 else float("nan")


def kendall_w_test(values: np.ndarray, permutations: int, rng: np.random.Generator) -> tuple[float, float]:
    """Kendall's W and its permutation p-value: each rater's values shuffled across models on their own.

    p = (1 + #{W_perm ≥ W}) / (B + 1); NaN without permutations.
    """
    observed = kendall_w(values)
    if not permutations or np.isnan(observed):
        return observed, float("nan")
    reached = sum(kendall_w(rng.permuted(values, axis=1)) >= observed - 1e-12 for _ in range(permutations))
    return observed, (1 + reached) / (permutations + 1)
