"""CAIRO's scenarios of the calibration table (docs/methods.md §1.11-1.13, §1.15).

Datasets are drawn like a toxicity classifier scores continuations: a continuation is
toxic with probability logistic(model level + subgroup effect + cluster effect) and then
scores uniform on :data:`TOXIC`, else uniform on :data:`CLEAN`. Clusters are *nested*
(each subgroup has its own pages, BOLD) or *crossed* (every subgroup is filled into the
same templates, HolisticBias and HONEST: one effect per template shared by all subgroups);
the cluster logit sd sets the variance between clusters. The truths are computed here with
numpy on the simulated sums, never with the library: E[Eq. 1] at the design's sizes by
simulating many datasets, the population value Σ_g |μ_g − μ_all| by integrating over the
cluster effects.
"""

from __future__ import annotations

import functools
import logging
import math

import numpy as np
import pandas as pd
from scipy.special import expit

from benchmarks.calibration import COVERAGE, MEAN, REJECTION, Scenario
from biasflow.cairo.combinations import pooled_stats
from biasflow.cairo.comparisons import pair_rows, swap_weights
from biasflow.cairo.headline import bias_table, model_uncertainty
from biasflow.cairo.power import Settings as PowerSettings
from biasflow.cairo.power import noninferiority_rows
from biasflow.cairo.power import pair_rows as planner_rows
from biasflow.cairo.selection import SearchSettings, select
from biasflow.cairo.stats import STATS_COLUMNS
from biasflow.cairo.uncertainty import bootstrap_weights, null_weights
from biasflow.cairo.verdicts import compare
from biasflow.schema import default
from biasflow.verdicts import EQUIVALENT, NON_INFERIOR, Verdicts, judge

TOXIC, CLEAN = (0.5, 1.0), (0.0, 0.05)
# Each model's toxic rate before subgroup and cluster effects: small and large models.
LEVELS = np.array([0.02, 0.05, 0.1, 0.2])
MODELS = [f"m{i:02d}" for i in range(len(LEVELS))]
# Continuations per (model, subgroup, cluster), and the draws of one dataset's intervals and null.
SIZE, BOOTSTRAP, NULL_DRAWS = 20, 200, 100
# A known group difference: the first subgroup's odds of a toxic continuation times this, in every model.
ODDS = 2.0
# Simulated datasets behind an expected value used as a truth: at 4000 its own Monte Carlo error (1-2% of
# E[Eq. 1] where clusters are few and skewed) moved coverages near a bound by half a point.
TRUTH_DATASETS = 20000
# The Eq. 1 interval's promised coverage with 3 clusters; 2 subgroups in 3 clusters whose toxicity odds differ
# 4.5-fold per sd (logit sd 1.5) is the one design where the bootstrap, which cannot draw a cluster the data
# lack, reaches only about 90% (docs/methods.md §1.11).
FEW_CLUSTERS_FLOOR, SKEWED_FLOOR = 0.90, 0.85
ALPHA = 0.05


def cluster_effects(rng, design: str, groups: int, clusters: int, sd: float) -> np.ndarray:
    """(groups x clusters) logit effects: one per template shared by every subgroup (crossed), or one per page."""
    if design == "crossed":
        return np.broadcast_to(rng.normal(0.0, sd, clusters), (groups, clusters))
    return rng.normal(0.0, sd, (groups, clusters))


def cell_sums(rng, logit: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Sum and sum of squares of ``size`` scores per cell whose toxic probability is expit(``logit``)."""
    toxic = rng.binomial(size, expit(logit))
    scores = np.where(
        np.arange(size) < toxic[..., None],
        rng.uniform(*TOXIC, (*logit.shape, size)),
        rng.uniform(*CLEAN, (*logit.shape, size)),
    )
    return scores.sum(axis=-1), (scores**2).sum(axis=-1)


def dataset(
    rng, design: str, groups: int, clusters: int, sd: float, size: int, effect: np.ndarray, levels: np.ndarray = LEVELS
) -> tuple[np.ndarray, np.ndarray]:
    """Cell sums of one simulated study: (models x groups x clusters), the same clusters for every model.

    ``effect`` (models x groups) is each subgroup's logit shift in each model.
    """
    logit = (
        np.log(levels / (1 - levels))[:, None, None]
        + effect[:, :, None]
        + cluster_effects(rng, design, groups, clusters, sd)[None]
    )
    return cell_sums(rng, logit, size)


def as_stats(
    design: str,
    score_sum: np.ndarray,
    score_sq_sum: np.ndarray,
    size: int,
    metric: str = "M",
    split: str = "valid",
    promptset: str = "original",
) -> pd.DataFrame:
    """The sums as CAIRO statistics (:data:`STATS_COLUMNS`): template keys shared by subgroups when crossed."""
    models, groups, clusters = score_sum.shape
    m, g, c = (a.ravel() for a in np.meshgrid(range(models), range(groups), range(clusters), indexing="ij"))
    key = [f"t{k}" if design == "crossed" else f"g{a}-p{k}" for a, k in zip(g, c, strict=True)]
    return pd.DataFrame(
        {
            "model": [f"m{i:02d}" for i in m],
            "metric": metric,
            "axis": "religion",
            "split": split,
            "promptset": promptset,
            "seed": 0,
            "subgroup": [f"g{i}" for i in g],
            "group_key": key,
            "score_sum": score_sum.ravel(),
            "score_sq_sum": score_sq_sum.ravel(),
            "n": size,
        }
    )[STATS_COLUMNS]


def effect_of(groups: int, odds: float, models: int = len(LEVELS)) -> np.ndarray:
    """(models x groups) logit shifts: the first subgroup's odds times ``odds``, the others' unchanged."""
    effect = np.zeros((models, groups))
    effect[:, 0] = np.log(odds)
    return effect


def eq1(score_sum: np.ndarray, size: int) -> np.ndarray:
    """Eq. 1 per model from (... x models x groups x clusters) sums of equal cells, with numpy."""
    group_mean = score_sum.sum(axis=-1) / (score_sum.shape[-1] * size)
    return np.abs(group_mean - group_mean.mean(axis=-1, keepdims=True)).sum(axis=-1)


@functools.cache
def expected_eq1(
    design: str,
    groups: int,
    clusters: int,
    sd: float,
    odds: float,
    size: int = SIZE,
    levels: tuple = tuple(LEVELS),
    datasets: int = TRUTH_DATASETS,
) -> np.ndarray:
    """E[Eq. 1] per model at the design's sizes: the mean over ``datasets`` simulated studies (a stream of its own)."""
    rng = np.random.default_rng([7, groups, clusters, int(100 * sd), int(100 * odds), size, design == "crossed"])
    effect = effect_of(groups, odds, len(levels))
    return np.mean(
        [
            eq1(dataset(rng, design, groups, clusters, sd, size, effect, np.array(levels))[0], size)
            for _ in range(datasets)
        ],
        axis=0,
    )


def population_eq1(levels: np.ndarray, effect: np.ndarray, sd: float) -> np.ndarray:
    """Σ_g |μ_g − μ_all| per model over the population of clusters (Gauss-Hermite over the cluster effect).

    ``effect`` (models x groups) is each subgroup's logit shift from the model's toxic ``levels``;
    every subgroup has the same clusters and continuations, so μ_all is the subgroups' mean.
    """
    nodes, weights = np.polynomial.hermite_e.hermegauss(60)
    logit = np.log(levels / (1 - levels))[:, None, None] + effect[:, :, None] + sd * nodes
    toxic = expit(logit) @ (weights / weights.sum())
    mean = toxic * np.mean(TOXIC) + (1 - toxic) * np.mean(CLEAN)
    return np.abs(mean - mean.mean(axis=1, keepdims=True)).sum(axis=1)


def population_value(groups: int, sd: float, odds: float) -> np.ndarray:
    """Population Eq. 1 of each of the :data:`LEVELS` models with the first subgroup's odds times ``odds``."""
    return population_eq1(LEVELS, effect_of(groups, odds), sd)


def one_metric(rng, design: str, groups: int, clusters: int, sd: float, odds: float):
    """One simulated metric's valid split, pooled as the selection pools it."""
    score_sum, score_sq_sum = dataset(rng, design, groups, clusters, sd, SIZE, effect_of(groups, odds))
    return pooled_stats(as_stats(design, score_sum, score_sq_sum, SIZE), "M", "religion", "valid", ["original"], MODELS)


def interval_trial(rng, design: str, groups: int, clusters: int, sd: float, odds: float, check: str) -> np.ndarray:
    """One dataset's headline columns (:func:`biasflow.cairo.headline.model_uncertainty`), checked per model.

    ``check``: ``eq1`` (the Eq. 1 interval covers E[Eq. 1]), ``excess`` (the excess interval
    covers the population value), ``excess_p`` (it is at most 0.05).
    """
    pooled = one_metric(rng, design, groups, clusters, sd, odds)
    shape = (0, *pooled.membership.shape)
    boot = bootstrap_weights(pooled, BOOTSTRAP, rng) if check != "excess_p" else np.empty(shape)
    null = null_weights(pooled, NULL_DRAWS, rng) if check == "excess_p" else np.empty(shape)
    columns = model_uncertainty(np.array([1.0]), pooled, null, boot, "none")
    if check == "eq1":
        truth = expected_eq1(design, groups, clusters, sd, odds)
        return (columns["bias_lo"] <= truth) & (truth <= columns["bias_hi"])
    if check == "excess":
        truth = population_value(groups, sd, odds)
        return (columns["excess_bias_lo"] <= truth) & (truth <= columns["excess_bias_hi"])
    return columns["excess_p"] <= ALPHA


# Two models compared (docs/methods.md §1.16): equally toxic, the first subgroup's odds times
# ``odds`` in model A and ``odds_b`` in model B; the same clusters (prompts) for both.
PAIR_LEVEL = np.array([0.1, 0.1])
SWAPS = 200
# The power the paired test promises at odds ×4 in A against B, by clusters per subgroup (the full table's rate, less
# a margin).
POWER = {6: 0.4, 20: 0.8}
# Two models toxic at different rates (the excess rows' question), and the power their test promises at odds ×4 in
# A against B with 20 clusters per subgroup (the full table's rate, less a margin): nested, 58.7% ± 2.0% since the
# test reads the interval for the population difference, whose two bounds each take half the level (§1.16).
UNEQUAL = (0.05, 0.2)
EXCESS_POWER = {"nested": 0.55, "crossed": 0.9}


def pair_effect(groups: int, odds: float, odds_b: float) -> np.ndarray:
    effect = np.zeros((2, groups))
    effect[:, 0] = np.log([odds, odds_b])
    return effect


@functools.cache
def expected_difference(
    design: str, groups: int, clusters: int, sd: float, odds: float, odds_b: float, datasets: int = TRUTH_DATASETS
) -> float:
    """E[Eq. 1 of A − Eq. 1 of B] at the design's sizes: the mean over ``datasets`` simulated pairs (numpy). Not a truth
    any row is held to: the effect the paired planner's pilot plans the swap test for (:func:`planned_clusters`), the
    difference of Eq. 1 a sample of that size shows on average, which the swap test tests."""
    rng = np.random.default_rng(
        [11, groups, clusters, int(100 * sd), int(100 * odds), int(100 * odds_b), design == "crossed"]
    )
    effect = pair_effect(groups, odds, odds_b)
    draws = [
        eq1(dataset(rng, design, groups, clusters, sd, SIZE, effect, PAIR_LEVEL)[0], SIZE) for _ in range(datasets)
    ]
    return float(np.mean([a - b for a, b in draws]))


def population_difference(
    groups: int, sd: float, odds: float, odds_b: float, levels: tuple = tuple(PAIR_LEVEL)
) -> float:
    """Population Eq. 1 of A − of B (:func:`population_eq1`): what a paired interval and the gate name."""
    first, second = population_eq1(np.array(levels), pair_effect(groups, odds, odds_b), sd)
    return float(first - second)


def comparison_trial(
    rng,
    design: str,
    groups: int,
    clusters: int,
    sd: float,
    odds: float,
    odds_b: float,
    check: str,
    levels: tuple = tuple(PAIR_LEVEL),
) -> np.ndarray:
    """One simulated pair of models through :func:`biasflow.cairo.comparisons.pair_rows`, checked once.

    ``check``: ``p`` (the swap test is at most 0.05), ``zero`` (the difference's interval
    covers 0), ``eq1`` (it covers population Eq. 1 of A − of B, :func:`population_difference`),
    ``apart`` (it lies wholly on one side of 0), ``unpaired`` (the two models' own Eq. 1
    intervals do not overlap: how a reader comparing the headline's bars would conclude);
    ``excess_p``, ``excess_zero`` and ``excess``: the same of the excess rows (the same truth).
    ``levels``: the two models' toxic rates.
    """
    score_sum, score_sq_sum = dataset(
        rng, design, groups, clusters, sd, SIZE, pair_effect(groups, odds, odds_b), np.array(levels)
    )
    models = MODELS[:2]
    pooled = pooled_stats(
        as_stats(design, score_sum, score_sq_sum, SIZE), "M", "religion", "valid", ["original"], models
    )
    boot = bootstrap_weights(pooled, BOOTSTRAP, rng)
    if check == "unpaired":
        own = model_uncertainty(np.array([1.0]), pooled, np.empty((0, *boot.shape[1:])), boot, "none")
        return np.array([own["bias_lo"][0] > own["bias_hi"][1] or own["bias_lo"][1] > own["bias_hi"][0]])
    measure = "excess" if check.startswith("excess") else "eq1"
    null = null_weights(pooled, NULL_DRAWS, rng) if measure == "excess" else np.empty((0, *boot.shape[1:]))
    swaps = swap_weights(len(pooled.clusters), SWAPS if measure == "eq1" else 0, rng)
    row = {
        r["measure"]: r for r in pair_rows(np.array([1.0]), pooled, boot, swaps, "none", models, null, [tuple(models)])
    }[measure]
    if check in ("p", "excess_p"):
        return np.array([row["p"] <= ALPHA])
    if check == "apart":
        return np.array([row["difference_lo"] > 0 or row["difference_hi"] < 0])
    truth = 0.0 if check in ("zero", "excess_zero") else population_difference(groups, sd, odds, odds_b, levels)
    return np.array([row["difference_lo"] <= truth <= row["difference_hi"]])


# The paired planner's pilot (§6.6): clusters per subgroup, and the planned difference is A − B's expected Eq. 1 there.
PILOT_CLUSTERS = 60


@functools.cache
def planned_clusters(design: str, groups: int, sd: float, odds: float, odds_b: float) -> int:
    """The group keys per subgroup the paired planner asks for to detect E[Eq. 1 of A − Eq. 1 of B] at 80% power.

    Planned from one pilot of :data:`PILOT_CLUSTERS` per subgroup (a seeded stream of its
    own), the difference to detect being its expected value at the pilot's size.
    """
    rng = np.random.default_rng([6006, groups, design == "crossed"])
    score_sum, score_sq_sum = dataset(
        rng, design, groups, PILOT_CLUSTERS, sd, SIZE, pair_effect(groups, odds, odds_b), PAIR_LEVEL
    )
    settings = PowerSettings.defaults(
        alpha=ALPHA,
        power=0.8,
        min_r=0.5,
        normalise="none",
        min_effect=expected_difference(design, groups, PILOT_CLUSTERS, sd, odds, odds_b),
    )
    [row] = planner_rows(as_stats(design, score_sum, score_sq_sum, SIZE), settings)
    return math.ceil(row["n_needed"])


def planned_comparison_trial(
    rng, design: str, groups: int, sd: float, odds: float, odds_b: float, check: str = "p"
) -> np.ndarray:
    """Whether the paired test finds the difference at the group keys the planner asks for.

    ``check``: ``p`` (Eq. 1's swap test) or ``excess_p`` (the excess rows' test).
    """
    return comparison_trial(
        rng, design, groups, planned_clusters(design, groups, sd, odds, odds_b), sd, odds, odds_b, check
    )


# The release gate (docs/methods.md §7, §6.8): two equally toxic models on 4 subgroups, GATE_CLUSTERS group keys per
# subgroup over both splits (half in each), A's first subgroup's odds ×GATE_ODDS (or the odds of GATE_ABOVE) and B's ×1
# (B's population Eq. 1 is 0: a baseline with no group difference) or ×GATE_ODDS (above 0); the margin is A − B's
# population Eq. 1 (:func:`population_difference`, quadrature), so the true difference is exactly the margin.
# Equivalence is a verdict only where the 90% interval is narrower than twice the margin, and at −δ it is `better` where
# the interval is narrower than the margin, so its rows have EQUIVALENCE_CLUSTERS group keys and A's odds per design
# (EQUIVALENCE_ODDS).
GATE_CLUSTERS, GATE_ODDS, GATE_SD, EQUIVALENCE_CLUSTERS = 12, 2.0, 0.8, 24
EQUIVALENCE_ODDS = {"nested": 3.0, "crossed": 2.0}
# A's odds where B's are ×GATE_ODDS: the baseline's population Eq. 1 above 0.
GATE_ABOVE = 4.0
# The power a plan from one pilot reaches: 80% where the pilot's standard error is exact (docs/methods.md §6.8).
PLANNED_FLOOR = 0.80
# The metrics of the gate's three-measure scenario: each its own prompts (clusters), all at the margin.
GATE_METRICS = ("BOLD", "HolisticBias", "HONEST")
# The comparison's draws as `biasflow compare` makes them by default, less the swaps (a verdict reads no p).
GATE_SEARCH = SearchSettings.defaults(permutations=0)
# The planned scenario: each study planned from its own pilot of this many group keys per subgroup, two models truly
# equal (both ×GATE_ODDS), for the default margin power.min_effect.cairo.
GATE_PILOT = 60


def gate_stats(rng, design: str, clusters: int, odds: float, odds_b: float, metrics=("HONEST",)) -> pd.DataFrame:
    """Two models' statistics (m00 with ``odds``, m01 with ``odds_b``) on each metric's own clusters, alternate clusters
    in the valid and the test split, as `biasflow compare` reads them (it pools both splits' original prompts)."""
    frames = []
    for metric in metrics:
        score_sum, score_sq_sum = dataset(
            rng, design, 4, clusters, GATE_SD, SIZE, pair_effect(4, odds, odds_b), PAIR_LEVEL
        )
        stats = as_stats(design, score_sum, score_sq_sum, SIZE, metric)
        frames.append(stats.assign(split=np.where(np.arange(len(stats)) % clusters % 2, "test", "valid")))
    return pd.concat(frames, ignore_index=True)


def gate_verdicts(stats: pd.DataFrame, baseline: str, candidate: str, margin: float) -> Verdicts:
    """The verdicts `biasflow compare --method cairo` gives the simulated statistics at ``margin``."""
    return Verdicts(
        "cairo",
        baseline,
        candidate,
        "the simulated truth",
        judge(compare([stats], baseline, candidate, GATE_SEARCH), margin),
    )


def gate_trial(
    rng, design: str, check: str, clusters: int = GATE_CLUSTERS, odds: float = GATE_ODDS, odds_b: float = 1.0
) -> np.ndarray:
    """One study at the margin through the comparison and its verdicts, checked.

    ``check``: ``not_worse`` (A against B: ``not worse``, ``equivalent`` or ``better`` claimed),
    ``equivalent_above`` (A against B, the truth +δ: ``equivalent`` claimed), ``equivalent_below``
    (B against A, the truth −δ: ``equivalent`` claimed), ``gate`` (three metrics each at +δ:
    ``--fail-on not-noninferior`` passes).
    """
    margin = population_difference(4, GATE_SD, odds, odds_b)
    stats = gate_stats(rng, design, clusters, odds, odds_b, GATE_METRICS if check == "gate" else ("HONEST",))
    baseline, candidate = ("m00", "m01") if check == "equivalent_below" else ("m01", "m00")
    verdicts = gate_verdicts(stats, baseline, candidate, margin)
    if check == "gate":
        return np.array([verdicts.exit_code("not-noninferior") == 0])
    shown = verdicts.rows["verdict"]
    return (shown == EQUIVALENT if check.startswith("equivalent") else shown.isin(NON_INFERIOR)).to_numpy()


def gate_planned_clusters(rng, design: str) -> int:
    """The group keys per subgroup the planner's gate row asks for (§6.8) at the default margin, from a pilot of
    :data:`GATE_PILOT` group keys per subgroup of two truly equal models."""
    pilot = gate_stats(rng, design, GATE_PILOT, GATE_ODDS, GATE_ODDS)
    [row] = noninferiority_rows(pilot, PowerSettings.defaults(min_effect=default("power.min_effect.cairo")))
    return math.ceil(row["n_needed"])


def gate_planned_trial(rng, design: str) -> np.ndarray:
    """Whether a candidate truly equal to the baseline is shown non-inferior at the group keys the planner asks for.

    Each study is planned from a pilot of its own (the first draws of its stream), so the rate
    is the power a user planning from one pilot gets, averaged over pilots.
    """
    stats = gate_stats(rng, design, gate_planned_clusters(rng, design), GATE_ODDS, GATE_ODDS)
    verdicts = gate_verdicts(stats, "m01", "m00", default("power.min_effect.cairo"))
    return verdicts.rows["verdict"].isin(NON_INFERIOR).to_numpy()


# Studies through the whole selection: ten models toxic 0.5% to 8% of the time, two metrics
# (4 subgroups; 4 clusters of 20 and 6 of 32 continuations), both splits, original and two
# paraphrase sets (the same clusters, new continuations).
RATES = np.geomspace(0.005, 0.08, 10)
STUDY_SHAPES = {"HolisticBias": (4, 20), "HONEST": (6, 32)}
STUDY_GROUPS = 4
# The shared group bias: one pattern over the subgroups in both metrics, scaled per model (logit).
SHARED_PATTERN = np.array([0.0, 0.3, 1.0, -0.5])
SHARED_STRENGTH = np.linspace(0.3, 1.2, len(RATES))


def study(rng, design: str, sd: float, truth: str) -> pd.DataFrame:
    """CAIRO statistics of one simulated study: every model, metric, split and prompt set.

    ``truth``: ``levels`` (models differ only in how toxic they are), ``equal`` (every model
    equally toxic, no group difference), ``shared`` (a group pattern both metrics share).
    """
    rates = np.full(len(RATES), np.sqrt(RATES[0] * RATES[-1])) if truth == "equal" else RATES
    effect = SHARED_STRENGTH[:, None] * SHARED_PATTERN if truth == "shared" else np.zeros((len(RATES), STUDY_GROUPS))
    frames = []
    for metric, (clusters, size) in STUDY_SHAPES.items():
        for split in ("valid", "test"):
            logit = (
                np.log(rates / (1 - rates))[:, None, None]
                + effect[:, :, None]
                + cluster_effects(rng, design, STUDY_GROUPS, clusters, sd)[None]
            )
            for promptset in ("original", "p0", "p1"):
                sums = cell_sums(rng, logit, size)
                frames.append(as_stats(design, *sums, size, metric, split, promptset))
    return pd.concat(frames, ignore_index=True)


def study_trial(rng, design: str, sd: float, truth: str, check: str) -> np.ndarray:
    """One study through :func:`~biasflow.cairo.selection.select` (and the headline table), checked.

    ``check``: a p-value of the curve's k = 2 row (``perm_p``, ``excess_perm_p``,
    ``test_excess_perm_p``, ``null_p``) below 0.05; ``excess_p``: every headline row's
    ``excess_p`` at most 0.05; ``test_excess``: the test split's ``excess_bias`` values.
    """
    stats = study(rng, design, sd, truth)
    headline = check in ("excess_p", "test_excess")
    settings = SearchSettings.defaults(
        mode="shared",
        max_sets=2,
        permutations=0 if headline else 199,
        bootstrap=0,
        null_draws=100,
        seed=int(rng.integers(2**31)),
    )
    logger = logging.getLogger("biasflow")
    level, logger.level = logger.level, logging.ERROR  # the toxicity-level warning fires in most null studies
    try:
        selection = select(stats, settings)
        if not headline:
            return np.array([selection.curve.loc[selection.curve["k"] == 2, check].iloc[0] < ALPHA])
        table = bias_table(stats, selection, settings)
    finally:
        logger.level = level
    if check == "excess_p":
        return (table["excess_p"] <= ALPHA).to_numpy()
    return table.loc[table["split"] == "test", "excess_bias"].to_numpy()


def _interval(statistic, design, groups, clusters, sd, odds, check, measure, nominal, lower, upper, quick=50, full=500):
    cross = "templates" if design == "crossed" else "pages each"
    truth = "no group difference" if odds == 1 else f"first subgroup's odds ×{odds:g}"
    return Scenario(
        "cairo",
        statistic,
        f"{design}: {groups} subgroups × {clusters} {cross}, cluster logit sd {sd:g}",
        truth,
        measure,
        nominal,
        lower,
        upper,
        interval_trial,
        dict(design=design, groups=groups, clusters=clusters, sd=sd, odds=odds, check=check),
        quick,
        full,
    )


def _comparison(
    statistic,
    design,
    groups,
    clusters,
    sd,
    odds,
    odds_b,
    check,
    measure,
    nominal,
    lower,
    upper,
    quick=60,
    full=600,
    levels=tuple(PAIR_LEVEL),
):
    cross = "templates" if design == "crossed" else "pages each"
    model = "model" if levels[0] == levels[1] else f"model toxic {levels[0]:.0%} and {levels[1]:.0%} of the time"
    truth = (
        f"the same {model} twice, no group difference"
        if odds == odds_b == 1
        else f"the same {model} twice, first subgroup's odds ×{odds:g}"
        if odds == odds_b
        else f"first subgroup's odds ×{odds:g} in A, ×{odds_b:g} in B"
    )
    if levels[0] != levels[1]:
        truth = f"toxic {levels[0]:.0%} and {levels[1]:.0%} of the time, " + (
            "no group difference" if odds == odds_b == 1 else truth
        )
    return Scenario(
        "cairo",
        statistic,
        f"2 models, {design}: {groups} subgroups × {clusters} {cross}, cluster logit sd {sd:g}",
        truth,
        measure,
        nominal,
        lower,
        upper,
        comparison_trial,
        dict(
            design=design,
            groups=groups,
            clusters=clusters,
            sd=sd,
            odds=odds,
            odds_b=odds_b,
            check=check,
            **({} if levels == tuple(PAIR_LEVEL) else {"levels": levels}),
        ),
        quick,
        full,
    )


def _gate(statistic, design, check, truth, clusters, odds, upper, quick=60, full=1000, odds_b=1.0):
    """A scenario of the release gate at the margin (:func:`gate_trial`): a claim rate promised at most ``upper``."""
    cross = "templates" if design == "crossed" else "pages each"
    margin = population_difference(4, GATE_SD, odds, odds_b)
    return Scenario(
        "cairo",
        statistic,
        f"2 models, {design}: 4 subgroups × {clusters} {cross}, both splits, cluster logit sd {GATE_SD:g}, margin "
        f"{margin:.4f}: population Eq. 1 of A (odds ×{odds:g}) − of B (×{odds_b:g})",
        truth,
        REJECTION,
        ALPHA,
        0.0,
        upper,
        gate_trial,
        dict(design=design, check=check, clusters=clusters, odds=odds, **({"odds_b": odds_b} if odds_b != 1 else {})),
        quick,
        full,
    )


def _study(statistic, design, sd, truth, check, measure, nominal, lower, upper, quick=20, full=200):
    words = {
        "levels": "toxicity levels differ, no group difference",
        "equal": "equal toxicity, no group difference",
        "shared": "a group pattern both metrics share",
    }[truth]
    return Scenario(
        "cairo",
        statistic,
        f"10 models, 2 metrics, {design} clusters, cluster logit sd {sd:g}",
        words,
        measure,
        nominal,
        lower,
        upper,
        study_trial,
        dict(design=design, sd=sd, truth=truth, check=check),
        quick,
        full,
    )


EQ1 = "Eq. 1 interval covers E[Eq. 1]"
SCENARIOS = [
    # The Eq. 1 interval, in the designs real data have: between-cluster variance, few clusters, 2-8 subgroups.
    *(
        _interval(EQ1, design, 4, 6, sd, 1.0, "eq1", COVERAGE, 0.95, 0.90, 1.0)
        for design in ("nested", "crossed")
        for sd in (0.0, 0.8, 1.5)
    ),
    *(
        _interval(EQ1, design, 4, clusters, 0.8, 1.0, "eq1", COVERAGE, 0.95, 0.90, 1.0)
        for design in ("nested", "crossed")
        for clusters in (3, 20)
    ),
    *(
        _interval(
            EQ1,
            design,
            groups,
            3,
            1.5,
            odds,
            "eq1",
            COVERAGE,
            0.95,
            SKEWED_FLOOR if groups == 2 else FEW_CLUSTERS_FLOOR,
            1.0,
        )
        for design in ("nested", "crossed")
        for groups in (2, 8)
        for odds in (1.0, ODDS)
    ),
    # Is there a group difference? excess_p, and the excess interval, which sizes a difference and is no test.
    *(
        _interval("excess_p ≤ 0.05", design, groups, 6, 0.8, 1.0, "excess_p", REJECTION, 0.05, 0.0, 0.06)
        for design in ("nested", "crossed")
        for groups in (2, 4, 8)
    ),
    *(
        _interval("excess_p ≤ 0.05", design, 4, 3, 1.5, 1.0, "excess_p", REJECTION, 0.05, 0.0, 0.06)
        for design in ("nested", "crossed")
    ),
    *(
        _interval("excess_p ≤ 0.05 (power)", design, 4, 6, 0.8, 4.0, "excess_p", REJECTION, np.nan, lower, 1.0)
        for design, lower in (("nested", 0.45), ("crossed", 0.70))
    ),
    *(
        _interval(
            "excess interval covers Σ_g |μ_g − μ_all|",
            design,
            4,
            clusters,
            0.8,
            ODDS,
            "excess",
            COVERAGE,
            0.95,
            0.90,
            1.0,
        )
        for design in ("nested", "crossed")
        for clusters in (3, 6)
    ),
    # At a true 0, the commonest case of a release: the same interval covers it, few clusters and many subgroups too.
    *(
        _interval(
            "excess interval covers Σ_g |μ_g − μ_all| = 0",
            design,
            groups,
            clusters,
            0.8,
            1.0,
            "excess",
            COVERAGE,
            0.95,
            FEW_CLUSTERS_FLOOR if clusters == 3 else 0.95,
            1.0,
        )
        for design in ("nested", "crossed")
        for groups, clusters in ((2, 6), (4, 6), (8, 6), (4, 3), (4, 20))
    ),
    # The whole selection: agreement about toxicity levels is not agreement about groups.
    _study("perm_p < 0.05 (k = 2)", "nested", 0.0, "levels", "perm_p", REJECTION, np.nan, 0.0, 1.0),
    *(
        _study(f"{p} < 0.05 (k = 2)", design, sd, "levels", p, REJECTION, 0.05, 0.0, 0.10)
        for design, sd in (("nested", 0.0), ("crossed", 1.0))
        for p in ("excess_perm_p", "test_excess_perm_p", "null_p")
    ),
    *(
        _study(f"{p} < 0.05 (k = 2)", "nested", 0.0, "equal", p, REJECTION, 0.05, 0.0, 0.07)
        for p in ("excess_perm_p", "null_p")
    ),
    *(
        _study(f"{p} < 0.05 (k = 2, power)", design, sd, "shared", p, REJECTION, np.nan, 0.8, 1.0)
        for design, sd in (("nested", 0.0), ("crossed", 1.0))
        for p in ("excess_perm_p", "test_excess_perm_p")
    ),
    *(
        _study("headline excess_p ≤ 0.05", design, sd, "levels", "excess_p", REJECTION, 0.05, 0.0, 0.06)
        for design, sd in (("nested", 0.8), ("crossed", 1.0))
    ),
    *(
        _study("test-split excess_bias", design, sd, "levels", "test_excess", MEAN, 0.0, -0.002, 0.002)
        for design, sd in (("nested", 0.8), ("crossed", 1.0))
    ),
    # Paired comparisons of two models (§1.16): valid when they are exchangeable, and more powerful than the bars.
    # Each model's centring on its own mean makes swapped clusters nearly, not exactly, exchangeable: 6.1% ± 0.2%
    # where both models share a group difference (9,600 datasets), so the promise is at most 7%.
    *(
        _comparison("paired p ≤ 0.05", design, 4, clusters, sd, odds, odds, "p", REJECTION, 0.05, 0.0, 0.07)
        for design in ("nested", "crossed")
        for clusters, sd, odds in ((6, 0.8, 1.0), (6, 0.8, ODDS), (3, 1.5, 1.0), (6, 0.0, 1.0))
    ),
    *(
        _comparison("paired interval covers 0", design, 4, 6, 0.8, odds, odds, "zero", COVERAGE, 0.95, 0.93, 1.0)
        for design in ("nested", "crossed")
        for odds in (1.0, ODDS)
    ),
    *(
        _comparison(
            "paired interval covers A − B's population Eq. 1",
            design,
            4,
            clusters,
            0.8,
            4.0,
            1.0,
            "eq1",
            COVERAGE,
            0.95,
            0.90,
            1.0,
        )
        for design in ("nested", "crossed")
        for clusters in (3, 6)
    ),
    *(
        _comparison(f"{what} (power)", design, 4, clusters, 0.8, 4.0, 1.0, check, REJECTION, np.nan, lower, 1.0)
        for design in ("nested", "crossed")
        for clusters in (6, 20)
        for what, check, lower in (
            ("paired p ≤ 0.05", "p", POWER[clusters]),
            ("paired interval apart from 0", "apart", 0.0),
            ("the two models' own Eq. 1 intervals apart, unpaired", "unpaired", 0.0),
        )
    ),
    # The excess rows (§1.16): the same group difference whatever each model's toxicity, where Eq. 1's test says
    # "not the same distribution".
    *(
        _comparison(
            "paired excess p ≤ 0.05", design, 4, 6, 0.8, 1.0, 1.0, "excess_p", REJECTION, 0.05, 0.0, 0.06, levels=levels
        )
        for design in ("nested", "crossed")
        for levels in (tuple(PAIR_LEVEL), UNEQUAL)
    ),
    *(
        _comparison(
            "paired Eq. 1 p ≤ 0.05 (what Eq. 1's test asks)",
            design,
            4,
            6,
            0.8,
            1.0,
            1.0,
            "p",
            REJECTION,
            np.nan,
            0.0,
            1.0,
            levels=UNEQUAL,
        )
        for design in ("nested", "crossed")
    ),
    *(
        _comparison(
            "paired excess interval covers 0",
            design,
            4,
            6,
            0.8,
            1.0,
            1.0,
            "excess_zero",
            COVERAGE,
            0.95,
            0.93,
            1.0,
            levels=UNEQUAL,
        )
        for design in ("nested", "crossed")
    ),
    *(
        _comparison(
            "paired excess interval covers A − B's population Eq. 1",
            design,
            4,
            clusters,
            0.8,
            4.0,
            1.0,
            "excess",
            COVERAGE,
            0.95,
            0.90,
            1.0,
        )
        for design in ("nested", "crossed")
        for clusters in (3, 6)
    ),
    *(
        _comparison(
            "paired excess p ≤ 0.05 (power)",
            design,
            4,
            clusters,
            0.8,
            4.0,
            1.0,
            "excess_p",
            REJECTION,
            np.nan,
            lower,
            1.0,
        )
        for design in ("nested", "crossed")
        for clusters, lower in ((6, 0.0), (20, EXCESS_POWER[design]))
    ),
    # The paired planner (§6.6): at the group keys it asks for, the swap test finds the difference 80% of the time.
    *(
        Scenario(
            "cairo",
            "paired p ≤ 0.05 at the planner's size (power)",
            f"2 models, {design}: 4 subgroups × the planned {'templates' if design == 'crossed' else 'pages each'}, "
            "cluster logit sd 0.8",
            "first subgroup's odds ×4 in A, ×1 in B",
            REJECTION,
            0.80,
            0.78,
            1.0,
            planned_comparison_trial,
            dict(design=design, groups=4, sd=0.8, odds=4.0, odds_b=1.0),
            60,
            600,
        )
        for design in ("nested", "crossed")
    ),
    # The planner plans the Eq. 1 rows; what the excess rows' test finds at that size.
    *(
        Scenario(
            "cairo",
            "paired excess p ≤ 0.05 at the Eq. 1 planner's size (power)",
            f"2 models, {design}: 4 subgroups × the planned {'templates' if design == 'crossed' else 'pages each'}, "
            "cluster logit sd 0.8",
            "first subgroup's odds ×4 in A, ×1 in B",
            REJECTION,
            np.nan,
            0.0,
            1.0,
            planned_comparison_trial,
            dict(design=design, groups=4, sd=0.8, odds=4.0, odds_b=1.0, check="excess_p"),
            60,
            600,
        )
        for design in ("nested", "crossed")
    ),
    # The release gate (§7): each verdict a one-sided test at 5%, so at the margin a claim of no harm is made in at
    # most 5% of studies, and the intersection-union gate over three metrics at the margin passes in no more.
    # Three metrics each at the margin pass together about 0.05³ of the time: few datasets tell that from 5%.
    *(
        _gate(statistic, design, check, truth, *sizes, upper, *repetitions)
        for design in ("nested", "crossed")
        for statistic, check, truth, sizes, upper, repetitions in (
            (
                "'not worse' claimed (better, equivalent or not worse)",
                "not_worse",
                "A's population Eq. 1 exactly the margin above B's, which is 0",
                (GATE_CLUSTERS, GATE_ODDS),
                ALPHA,
                (60, 1000),
            ),
            (
                "--fail-on not-noninferior passes (3 metrics)",
                "gate",
                "each metric's population Eq. 1 in A exactly the margin above B's, which is 0",
                (GATE_CLUSTERS, GATE_ODDS),
                ALPHA,
                (30, 200),
            ),
            (
                "'equivalent' claimed",
                "equivalent_above",
                "A's population Eq. 1 exactly the margin above B's",
                (EQUIVALENCE_CLUSTERS, EQUIVALENCE_ODDS[design]),
                ALPHA,
                (40, 400),
            ),
            (
                "'equivalent' claimed",
                "equivalent_below",
                "the candidate's population Eq. 1 exactly the margin below the baseline's",
                (EQUIVALENCE_CLUSTERS, EQUIVALENCE_ODDS[design]),
                ALPHA,
                (40, 400),
            ),
        )
    ),
    # The baseline's own population Eq. 1 above 0 (B's first subgroup's odds ×GATE_ODDS, A's ×GATE_ABOVE).
    *(
        _gate(
            "'not worse' claimed (better, equivalent or not worse)",
            design,
            "not_worse",
            "A's population Eq. 1 exactly the margin above B's, which is above 0",
            GATE_CLUSTERS,
            GATE_ABOVE,
            ALPHA,
            odds_b=GATE_ODDS,
        )
        for design in ("nested", "crossed")
    ),
    # The gate's planner (§6.8): at the group keys it asks for, a truly equal candidate is shown not worse 80% of the
    # time.
    *(
        Scenario(
            "cairo",
            "'not worse' shown at the gate planner's size (power)",
            f"2 models, {design}: 4 subgroups × the {'templates' if design == 'crossed' else 'pages each'} planned "
            f"from a pilot of {GATE_PILOT}, both splits, cluster logit sd {GATE_SD:g}, margin "
            f"{default('power.min_effect.cairo'):g}",
            f"the same model twice, first subgroup's odds ×{GATE_ODDS:g}",
            REJECTION,
            0.80,
            PLANNED_FLOOR,
            1.0,
            gate_planned_trial,
            dict(design=design),
            20,
            300,
        )
        for design in ("nested", "crossed")
    ),
]
