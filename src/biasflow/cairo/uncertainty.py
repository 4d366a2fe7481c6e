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
keyed by the selection's seed and their names (never a position), so adding a model or
reading the rows in another order moves no model's draws. The selection draws each
(metric, split) once (:class:`Draws`); every pair of metrics it belongs to and the headline
table read those draws.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from biasflow.bootstrap import RAO_WU, cluster_weights
from biasflow.cairo.combinations import PooledStats, eq1
from biasflow.cairo.population import Terms
from biasflow.hashing import named_rng
from biasflow.intervals import INTERVAL
from biasflow.intervals import small_sample_factor as t_factor

# Streams of random draws, one per purpose, so adding draws of one kind never moves another's.
BOOTSTRAP, NULL = "bootstrap", "null"
# A null draw's Eq. 1 within this of the observed one counts as reaching it (the same sums, another order).
TIE_TOL = 1e-12


def draw_rng(seed: int, purpose: str, metric: str, split: str) -> np.random.Generator:
    """The random stream of one kind of draw for one metric and split, keyed by their names (stable across runs)."""
    return named_rng(seed, purpose, metric, split)


@dataclass(frozen=True)
class Draws:
    """The null and bootstrap draws of one metric and split: (draws x subgroups x clusters) weights each.

    A draw acts on the clusters of the metric and split, which are the same whichever models
    and prompt sets are pooled (:func:`~biasflow.cairo.combinations.pooled_stats` reads them
    from every row), so the draws made once serve every pair of metrics and the headline table.
    """

    null: np.ndarray
    boot: np.ndarray

    @classmethod
    def of(cls, pooled: PooledStats, null_draws: int, bootstrap: int, seed: int, metric: str, split: str) -> Draws:
        """The draws of ``metric`` and ``split`` from their own streams (:func:`draw_rng`)."""
        return cls(
            null_weights(pooled, null_draws, draw_rng(seed, NULL, metric, split)),
            bootstrap_weights(pooled, bootstrap, draw_rng(seed, BOOTSTRAP, metric, split)),
        )


def bootstrap_weights(pooled: PooledStats, draws: int, rng: np.random.Generator) -> np.ndarray:
    """(draws x subgroups x clusters): the group keys resampled with replacement within each stratum, as weights.

    docs/methods.md §1.11. A draw weighs each key, and every cluster of a key (the key under
    each subgroup it is filled into) takes its key's weight: a crossed template moves all its
    subgroups at once, so the template's effect keeps cancelling between them; a nested key
    is one subgroup's alone. Keys are drawn within their stratum (a nested subgroup, or the
    subgroups that share templates), Rao and Wu's rescaled way (:func:`biasflow.bootstrap.cluster_weights`,
    every method's one): c − 1 of a stratum's c keys, each weighted c / (c − 1). A stratum with
    one key cannot be resampled: every statistic it enters is NaN (never a zero-width interval).
    """
    key_weights = cluster_weights(rng, pooled.stratum_keys(), len(pooled.keys), draws, RAO_WU)
    return np.where(pooled.membership[None] > 0, key_weights[:, None, pooled.cluster_key], 0.0)


def null_weights(pooled: PooledStats, draws: int, rng: np.random.Generator) -> np.ndarray:
    """(draws x subgroups x clusters): subgroup labels permuted as the design allows, as memberships.

    docs/methods.md §1.12. The labels of a crossed key's clusters are permuted among
    themselves (within the template, whose effect stays shared by the same subgroups); the
    labels of nested clusters are permuted among all nested clusters of the metric and split.
    """
    labels = np.argmax(pooled.membership, axis=0)
    block = np.where(pooled.shared[pooled.cluster_key], pooled.cluster_key, -1)
    n = len(labels)
    by_block = np.lexsort((np.arange(n), block))
    shuffled = np.lexsort((rng.random((draws, n)), np.broadcast_to(block, (draws, n))), axis=-1)
    permuted = np.empty((draws, n), dtype=labels.dtype)
    permuted[:, by_block] = labels[shuffled]
    return (permuted[:, None, :] == np.arange(len(pooled.subgroups))[None, :, None]).astype(np.float64)


def draw_totals(counts: np.ndarray, pooled: PooledStats, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Subgroup sums and counts of one combination under every draw: (subgroups x seeds x draws x models).

    ``counts`` is one combination's multiplicity of each prompt set.
    """
    counts = np.asarray(counts, dtype=np.float64)
    score_sum = np.tensordot(counts, pooled.score_sum, axes=1)
    n = np.tensordot(counts, pooled.n, axes=1)
    return (
        np.einsum("mkc,dgc->gkdm", score_sum, weights, optimize=True),
        np.einsum("mkc,dgc->gkdm", n, weights, optimize=True),
    )


def draw_bias(counts: np.ndarray, pooled: PooledStats, weights: np.ndarray, normalise: str) -> np.ndarray:
    """Eq. 1 of one combination under every draw: (draws x models)."""
    with np.errstate(invalid="ignore", divide="ignore"):  # a subgroup with no key in a draw: NaN, not a warning
        return eq1(*draw_totals(counts, pooled, weights), normalise)


def percentile_interval(draws: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The percentile 95% interval of the defined draws along ``axis`` (NaN where none is defined).

    A draw is undefined where a subgroup of a partly crossed design drew none of its keys;
    a stratum that cannot be resampled makes every draw undefined.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: NaN is the answer
        low, high = np.nanpercentile(draws, INTERVAL, axis=axis)
    return low, high


def small_sample_factor(pooled: PooledStats, level: float = 0.95) -> float:
    """The t/z widening (:func:`biasflow.intervals.small_sample_factor`) for df = Σ over strata of (keys − 1).

    docs/methods.md §1.11: df counts the clusters' degrees of freedom the bootstrap's spread
    rests on (one stratum of 6 templates: 5; four nested subgroups of 3 pages: 8); NaN where
    no stratum can be resampled.
    """
    return t_factor(sum(len(keys) - 1 for keys in pooled.stratum_keys()), level)


def excess_p(bias: np.ndarray, null_draws: np.ndarray) -> np.ndarray:
    """Per model, the share of null draws whose Eq. 1 reaches the observed one: (1 + #{null ≥ Eq. 1}) / (draws + 1).

    docs/methods.md §1.13: the test of "is there a group difference?"; valid under no
    difference because the null draws are exchangeable with the data then. NaN without draws.
    """
    if not len(null_draws):
        return np.full_like(bias, np.nan)
    return (1 + (null_draws >= bias - TIE_TOL).sum(axis=0)) / (len(null_draws) + 1)


def population_terms(counts: np.ndarray, pooled: PooledStats, weights: np.ndarray, normalise: str) -> Terms:
    """The bootstrap's stand-ins for how far population Eq. 1 lies from each model's estimate (docs/methods.md §1.13).

    :class:`biasflow.cairo.population.Terms` of one combination's subgroup deviations
    μ_all − μ_g and their values under the draws ``weights``, divided by the subgroups' number
    where Eq. 1 is (``normalise: mean``).
    """
    totals = draw_totals(counts, pooled, pooled.membership[None])
    observed = _deviations(*totals)[:, :, 0, :]
    # Deviations within rounding of this scale are 0, as eq1 writes them (biasflow.intervals.ROUNDING).
    rounding = len(pooled.subgroups) * np.abs(totals[0].sum(axis=0) / totals[1].sum(axis=0))[:, 0, :]
    scale = len(pooled.subgroups) if normalise == "mean" else 1.0
    return Terms.of(observed, _deviations(*draw_totals(counts, pooled, weights)), rounding[None], scale)


def _deviations(group_sum: np.ndarray, group_n: np.ndarray) -> np.ndarray:
    """μ_all − μ_g of every subgroup (the leading axis)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return group_sum.sum(axis=0) / group_n.sum(axis=0) - group_sum / group_n


def rank_interval(bias_draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Percentile 95% interval of each model's rank (1: least biased) over the defined bootstrap draws.

    (draws x models) in; float ranks, NaN where no draw is defined, whole numbers otherwise.
    """
    defined = bias_draws[np.isfinite(bias_draws).all(axis=1)]
    if not len(defined):
        nan = np.full(bias_draws.shape[1], np.nan)
        return nan, nan
    ranks = rankdata(defined, method="min", axis=1)
    low, high = np.percentile(ranks, INTERVAL, axis=0)
    return np.floor(low), np.ceil(high)


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
    ranks = rankdata(values, axis=1)
    spread = ((ranks.sum(axis=0) - m * (n + 1) / 2) ** 2).sum()
    ties = sum(((counts**3) - counts).sum() for counts in (np.unique(row, return_counts=True)[1] for row in values))
    denominator = m**2 * (n**3 - n) - m * ties
    return float(12 * spread / denominator) if denominator > 0 else float("nan")


def kendall_w_test(values: np.ndarray, permutations: int, rng: np.random.Generator) -> tuple[float, float]:
    """Kendall's W and its permutation p-value: each rater's values shuffled across models on their own.

    p = (1 + #{W_perm ≥ W}) / (B + 1); NaN without permutations. W and its permutations are
    taken across the models by definition, so adding a model moves both.
    """
    observed = kendall_w(values)
    if not permutations or np.isnan(observed):
        return observed, float("nan")
    reached = sum(kendall_w(rng.permuted(values, axis=1)) >= observed - 1e-12 for _ in range(permutations))
    return observed, (1 + reached) / (permutations + 1)


def rankdata(values: np.ndarray, **options) -> np.ndarray:
    """scipy's rankdata, imported on first use: the workflow's rules import this module at every Snakemake start."""
    from scipy.stats import rankdata as scipy_rankdata

    return scipy_rankdata(values, **options)
