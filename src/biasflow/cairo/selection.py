"""CAIRO selection: the prompt-set combination(s) that best correlate two metrics (docs/methods.md §1.7).

Paper 000, Algorithm 1: per axis, metric pair and size k, the bias of every combination on
every model comes from :mod:`biasflow.cairo.combinations`, and the best r across models
from the search's kernels (:mod:`biasflow.cairo.correlation_search`, with the
selection-aware permutation p-value of §1.8: the whole maximisation repeated with the
models of M2 permuted). This module runs the search and says what it found: which metrics
and prompt sets are searched at which k, the curve's rows and the choices.

Beyond the references it checks the r of the selected combination(s) on the held-out split
(§1.9), and reports how far to trust each number (§1.11-1.14, with
:mod:`biasflow.cairo.uncertainty`): bootstrap intervals of r, the search repeated under the
no-bias null, the excess bias (Eq. 1 less its null floor) as a measure and its agreement with
a selection-aware p-value, partial r and Kendall's τ.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from biasflow.cairo.combinations import (
    ORIGINAL,
    PooledStats,
    bias_matrix,
    combination_bias,
    combination_counts,
    pooled_bias,
    pooled_stats,
    pooled_totals,
)
from biasflow.cairo.correlation_search import (
    BLOCK_SIZE,
    CONSTANT_RTOL,
    TIE_TOL,
    Search,
    model_permutations,
    perm_p_floor,
    perm_p_of_search,
    perm_p_one,
    search_independent,
    search_shared,
    standardise,
)
from biasflow.cairo.stats import StatsSettings, check_stats_values
from biasflow.cairo.uncertainty import (
    Draws,
    draw_bias,
    partial_r,
    pearson_rows,
    percentile_interval,
)
from biasflow.errors import BiasflowError
from biasflow.schema import choices
from biasflow.settings import StepSettings
from biasflow.tables import require_columns

log = logging.getLogger("biasflow")

__all__ = [
    "CHOICE_COLUMNS",
    "CURVE_COLUMNS",
    "SearchSettings",
    "Selection",
    "bias_matrix",
    "combination_bias",
    "combination_counts",
    "combination_label",
    "metric_pairs",
    "select",
]

# r is taken across evaluated models; with fewer than 3 it is ±1 or undefined.
MIN_MODELS = 3
CURVE_COLUMNS = [
    "axis",
    "pair",
    "k",
    "measure",
    "best_r",
    "best_r_lo",
    "best_r_hi",
    "best_p",
    "perm_p",
    "perm_p_floor",
    "best_rho",
    "kendall_tau",
    "partial_r",
    "mean_r",
    "test_r",
    "test_r_lo",
    "test_r_hi",
    "excess_r",
    "excess_perm_p",
    "test_excess_r",
    "test_excess_perm_p",
    "null_r_median",
    "null_r_q95",
    "null_p",
    "n_models",
    "n_combinations",
    "n_skipped",
    "selection",
]
# A search's p-values below this that the excess measure does not confirm get a warning.
ALPHA = 0.05
# The log warns where the smallest p the permutation test can give (perm_p_floor) exceeds ALPHA / this factor:
# a floor within a factor of 2 of α (4 models: about 1/4! + 1/(B + 1) ≈ 0.04) leaves a significant selection barely
# within reach, and a floor at α or above (3 models: about 1/6) out of it (docs/methods.md §1.8).
PERM_P_FLOOR_FACTOR = 2
CHOICE_COLUMNS = ["axis", "pair", "k", "metric", "promptset", "multiplicity"]
# The split the selection is made on, and the held-out one it is checked on (docs/methods.md §1.3).
SELECT_SPLIT = "valid"
TEST_SPLIT = "test"


@dataclass(frozen=True)
class SearchSettings(StepSettings):
    """What the selection reads of the config (``cairo.selection``, ``cairo.bias.normalise``); docs/methods.md §1.5-1.8.

    ``mode``: ``shared`` (C1 = C2, the same prompt-set names) or ``independent`` (C1, C2
    free, both of size k); ``combinations``: ``multisets`` (reference code, sets may repeat)
    or ``subsets`` (paper text); ``max_sets``: K, sizes k = 1..K with original included;
    ``permutations``: B for the selection-aware p-value (0 leaves perm_p NaN) and its
    ``seed``, which also seeds the bootstrap and null draws; ``bootstrap``: cluster
    bootstrap draws for the intervals (§1.11); ``null_draws``: label-permutation draws of
    the no-bias null (§1.12); ``normalise``: ``mean`` divides Eq. 1 by the number of
    subgroups; ``measure``: what the selection maximises, ``eq1`` (the paper) or ``excess``
    (Eq. 1 less its null floor, §1.13).
    """

    section = "cairo.selection"
    keys: ClassVar[Mapping[str, str | None]] = {**StatsSettings.keys_for("normalise"), "measure": "cairo.bias.measure"}

    mode: str
    combinations: str
    max_sets: int
    permutations: int
    bootstrap: int
    null_draws: int
    seed: int
    normalise: str
    measure: str


@dataclass
class Selection:
    """The correlation curve (one row per axis, pair and k), the selected combinations, and the draws made.

    Where every combination of a size was skipped (constant bias), its curve row has NaN
    statistics and selection, and it has no choice rows. ``draws`` holds the null and
    bootstrap draws of every (axis, metric, split) searched, each drawn once: the headline
    table (:mod:`biasflow.cairo.headline`) reads them rather than drawing again.
    """

    curve: pd.DataFrame
    choices: pd.DataFrame
    draws: dict[tuple[str, str, str], Draws]


def metric_pairs(stats: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(axis, metric1, metric2), names sorted, for every axis and every pair of metrics on it."""
    require_columns(stats, ["axis", "metric"], "CAIRO statistics")
    pairs: list[tuple[str, str, str]] = []
    for axis in sorted(stats["axis"].unique()):
        metrics = sorted(stats.loc[stats["axis"] == axis, "metric"].unique())
        pairs.extend((axis, first, second) for first, second in itertools.combinations(metrics, 2))
    return pairs


def select(
    stats: pd.DataFrame,
    settings: SearchSettings,
    progress: Callable[[str], None] | None = None,
    block_size: int = BLOCK_SIZE,
) -> Selection:
    """Run the CAIRO search for every metric pair of every axis and k = 1..max_sets.

    ``block_size`` bounds the memory of independent mode (rows of Z1 per product).

    The statistics are checked first (:func:`~biasflow.cairo.stats.check_stats_values`): a
    NaN would otherwise end the search with every combination skipped and no reason given.
    """
    check_settings(settings, block_size)
    check_stats_values(stats)
    pairs = metric_pairs(stats)
    if not pairs:
        raise BiasflowError(
            "CAIRO selection needs at least two metrics on one axis; the statistics have "
            + "; ".join(
                f"axis {axis}: {', '.join(map(str, sorted(group['metric'].unique())))}"
                for axis, group in stats.groupby("axis")
            )
            + ". Evaluate a second metric on the same axis (or unify the axes)."
        )
    curve: list[dict] = []
    choices: list[tuple] = []
    draws: dict[tuple[str, str, str], Draws] = {}
    warned: dict[tuple[str, str], list[str]] = {}
    for axis, metric1, metric2 in pairs:
        pair_curve, pair_choices, warning = _select_pair(
            stats, axis, metric1, metric2, settings, progress, block_size, draws
        )
        curve.extend(pair_curve)
        choices.extend(pair_choices)
        if warning:
            warned.setdefault((axis, warning), []).append(f"{metric1}~{metric2}")
    for (axis, warning), named in warned.items():  # once per axis: the pairs of one axis share their models
        log.warning("%s %s: %s", axis, ", ".join(named), warning)
    return Selection(pd.DataFrame(curve, columns=CURVE_COLUMNS), pd.DataFrame(choices, columns=CHOICE_COLUMNS), draws)


def check_settings(settings: SearchSettings, block_size: int = BLOCK_SIZE) -> None:
    """Raise for a search setting out of range or a combination that cannot run (also at check-config time)."""
    for name, value, allowed in (
        ("mode", settings.mode, choices("cairo.selection.mode")),
        ("combinations", settings.combinations, choices("cairo.selection.combinations")),
        ("normalise", settings.normalise, choices("cairo.bias.normalise")),
        ("measure", settings.measure, choices("cairo.bias.measure")),
    ):
        if value not in allowed:
            raise BiasflowError(f"unknown CAIRO search {name} {value!r}; choose one of: {', '.join(allowed)}.")
    for name, number, least in (
        ("max_sets", settings.max_sets, 1),
        ("permutations", settings.permutations, 0),
        ("bootstrap", settings.bootstrap, 0),
        ("null_draws", settings.null_draws, 0),
        ("block_size", block_size, 1),
    ):
        if int(number) != number or number < least:
            raise BiasflowError(f"CAIRO search {name} must be an integer >= {least}; got {number!r}.")
    if settings.measure == "excess" and not settings.null_draws:
        raise BiasflowError(
            "the excess measure is Eq. 1 less its null floor, which the null draws give: set "
            "cairo.selection.null_draws (--null-draws) above 0, or cairo.bias.measure (--measure) to eq1."
        )


def _select_pair(stats, axis, metric1, metric2, settings, progress, block_size, draws):
    """Curve rows and choice rows of one (axis, metric pair), for k = 1..max_sets, and its floor's warning (or None).

    ``draws`` maps (axis, metric, split) to the draws made so far; the pair's metrics are drawn
    where they are not yet. The permutations of the models (§1.8) come from ``cairo.selection.seed``
    alone, the same for every pair: they permute the models' places, so which models are
    present changes them by definition, as it changes r.
    """
    pair = f"{metric1}~{metric2}"
    models = _shared_models(stats, axis, metric1, metric2, pair)
    sides = list(zip((metric1, metric2), _paraphrase_sets(stats, axis, metric1, metric2, pair, settings), strict=True))
    promptsets = [[ORIGINAL, *sets] for _, sets in sides]
    valid = [
        _Side(stats, metric, axis, SELECT_SPLIT, names, models, settings, draws)
        for (metric, _), names in zip(sides, promptsets, strict=True)
    ]
    test = [
        _Side(stats, metric, axis, TEST_SPLIT, names, models, settings, draws)
        for (metric, _), names in zip(sides, promptsets, strict=True)
    ]
    perms = model_permutations(len(models), settings.permutations, settings.seed)
    floor = perm_p_floor(perms)
    curve, choices = [], []
    for k in range(1, _largest_size(sides, settings, axis, pair) + 1):
        counts = [combination_counts(len(sets), k, settings.combinations) for _, sets in sides]
        measured, null_best = _null_pass(counts, valid, settings, block_size)
        z = [standardise(m.values, side.pooled) for m, side in zip(measured, valid, strict=True)]
        search = search_shared(*z, perms) if settings.mode == "shared" else search_independent(*z, perms, block_size)
        row = dict(
            axis=axis,
            pair=pair,
            k=k,
            measure=settings.measure,
            best_r=search.best_r,
            perm_p=search.perm_p,
            perm_p_floor=floor,
            mean_r=search.mean_r,
            n_models=len(models),
            n_combinations=search.n_combinations,
            n_skipped=search.n_skipped,
            selection=None,
        )
        row.update(_null_summary(null_best, search.best_r))
        if search.best is not None:
            chosen = [c[i] for c, i in zip(counts, search.best, strict=True)]
            row.update(_chosen_statistics(chosen, search.best, measured, search.perm_p, valid, test, perms, settings))
            labels = [_label(c, p) for c, p in zip(chosen, promptsets, strict=True)]
            shared = settings.mode == "shared"
            row["selection"] = labels[0] if shared else f"{metric1}={labels[0]} | {metric2}={labels[1]}"
            for (metric, _), c, names in zip(sides, chosen, promptsets, strict=True):
                choices.extend((axis, pair, k, metric, name, int(m)) for name, m in zip(names, c, strict=True) if m)
        curve.append({column: row.get(column, np.nan) for column in CURVE_COLUMNS})
        _report(progress, row, search, floor)
    return curve, choices, floor_warning(floor, len(models))


def _report(progress, row: dict, search: Search, floor: float) -> None:
    """One progress line per k, and the warning when the metrics agree about toxicity levels only."""
    if row["perm_p"] < ALPHA and row.get("excess_perm_p", np.nan) >= ALPHA:
        log.warning(
            "%s %s k=%d: perm_p %.4f is below %.2f but excess_perm_p is %.4f: the metrics agree about the models' "
            "toxicity levels, not about groups (docs/methods.md §1.13).",
            row["axis"],
            row["pair"],
            row["k"],
            row["perm_p"],
            ALPHA,
            row.get("excess_perm_p", np.nan),
        )
    if progress is None:
        return
    progress(
        f"{row['axis']} {row['pair']} k={row['k']}: best r={row['best_r']:.3f} ({row['selection']}), "
        f"mean r={row['mean_r']:.3f}, perm p={row['perm_p']:.4f} (floor {floor:.4f}), "
        f"test r={row.get('test_r', np.nan):.3f}, excess r={row.get('excess_r', np.nan):.3f} "
        f"(p {row.get('excess_perm_p', np.nan):.4f}), null p={row['null_p']:.4f}; "
        f"{search.n_combinations} searched, {search.n_skipped} skipped"
    )


@dataclass(frozen=True)
class _Measured:
    """One metric's bias of every combination on one split: the measure searched, Eq. 1 and its null floor."""

    values: np.ndarray
    eq1: np.ndarray
    floor: np.ndarray

    @property
    def excess(self) -> np.ndarray:
        return self.eq1 - self.floor


class _Side:
    """One metric on one split of a pair: its pooled statistics and its bootstrap and null draws.

    The draws are those of ``draws`` (keyed by axis, metric and split), made here if absent.
    """

    def __init__(self, stats, metric, axis, split, promptsets, models, settings: SearchSettings, draws: dict):
        self.metric, self.split, self.settings = metric, split, settings
        self.pooled = pooled_stats(stats, metric, axis, split, promptsets, models)
        key = (axis, metric, split)
        if key not in draws:  # each metric and split once, however many pairs it is in
            single = self.pooled.single_cluster_subgroups()
            if single and settings.bootstrap:
                log.warning(
                    "%s %s %s: subgroup(s) %s have one cluster (group_key) each, which a bootstrap cannot resample, "
                    "so nothing says how far their means would move on other prompts: every interval of this metric "
                    "and split is NaN (docs/methods.md §1.11). Give each subgroup prompts of two or more group keys "
                    "in each split, or map it together with another.",
                    axis,
                    metric,
                    split,
                    ", ".join(single),
                )
            draws[key] = Draws.of(self.pooled, settings.null_draws, settings.bootstrap, settings.seed, metric, split)
        self.null, self.boot = draws[key].null, draws[key].boot

    def null_biases(self, counts: np.ndarray):
        """Eq. 1 of every combination under each null draw, one draw at a time: (combinations x models)."""
        for weights in self.null:
            yield pooled_bias(counts, self.pooled, self.settings.normalise, weights)

    def chosen(self, counts: np.ndarray) -> dict:
        """Eq. 1, null floor and measure of one combination, and the measure under every bootstrap draw."""
        normalise = self.settings.normalise
        bias = pooled_bias(counts[None, :], self.pooled, normalise)[0]
        floor = (
            draw_bias(counts, self.pooled, self.null, normalise).mean(axis=0)
            if len(self.null)
            else np.full_like(bias, np.nan)
        )
        excess = self.settings.measure == "excess"
        boot = draw_bias(counts, self.pooled, self.boot, normalise) - (floor if excess else 0)
        return {"eq1": bias, "floor": floor, "measure": bias - floor if excess else bias, "boot": boot}


def _null_pass(counts, sides, settings, block_size) -> tuple[list[_Measured], np.ndarray]:
    """Each side's Eq. 1, null floor and measure of every combination, and the search's best r under each null draw.

    The floor is Eq. 1's mean over the null draws (docs/methods.md §1.12). With the ``eq1``
    measure the search under a draw needs no floor, so one pass over the draws gives both;
    the ``excess`` measure subtracts the floor from every draw's Eq. 1, so it takes two.
    """
    bias = [pooled_bias(c, side.pooled, settings.normalise) for side, c in zip(sides, counts, strict=True)]
    best = np.full(settings.null_draws, np.nan)
    if not settings.null_draws:
        return [_Measured(b, b, np.full_like(b, np.nan)) for b in bias], best
    excess = settings.measure == "excess"
    floors = (
        [sum(side.null_biases(c)) / settings.null_draws for side, c in zip(sides, counts, strict=True)]
        if excess
        else None
    )
    totals = [np.zeros_like(b) for b in bias]
    empty = np.empty((0, bias[0].shape[1]), dtype=np.int64)
    for draw, drawn in enumerate(
        zip(*(side.null_biases(c) for side, c in zip(sides, counts, strict=True)), strict=True)
    ):
        if floors is not None:  # the excess measure
            biases = [b - f for b, f in zip(drawn, floors, strict=True)]
        else:
            biases = list(drawn)
            totals = [t + b for t, b in zip(totals, drawn, strict=True)]
        first, second = (standardise(b, side.pooled) for b, side in zip(biases, sides, strict=True))
        search = (
            search_shared(first, second, empty)
            if settings.mode == "shared"
            else search_independent(first, second, empty, block_size)
        )
        best[draw] = search.best_r
    if floors is None:
        floors = [t / settings.null_draws for t in totals]
    return [_Measured(b - f if excess else b, b, f) for b, f in zip(bias, floors, strict=True)], best


def _null_summary(null_best: np.ndarray, best_r: float) -> dict:
    """Median and 95th percentile of the null's best r, and null_p = (1 + #{null ≥ observed}) / (draws + 1)."""
    kept = null_best[np.isfinite(null_best)]
    if not len(kept) or np.isnan(best_r):
        return {"null_r_median": np.nan, "null_r_q95": np.nan, "null_p": np.nan}
    return {
        "null_r_median": float(np.median(kept)),
        "null_r_q95": float(np.percentile(kept, 95)),
        "null_p": (1 + int(np.count_nonzero(kept >= best_r - TIE_TOL))) / (len(kept) + 1),
    }


def _chosen_statistics(chosen, best, measured, search_perm_p, valid, test, perms, settings) -> dict:
    """Everything the curve reports about the selected combination(s) beyond the search itself."""
    from scipy import stats as scipy_stats  # here: the rules import this module at every Snakemake start

    first, second = (m.values[i] for m, i in zip(measured, best, strict=True))
    row = {
        "best_p": scipy_stats.pearsonr(first, second).pvalue,
        "best_rho": scipy_stats.spearmanr(first, second).statistic,
        "kendall_tau": scipy_stats.kendalltau(first, second).statistic,
    }
    on_valid = [side.chosen(c) for side, c in zip(valid, chosen, strict=True)]
    on_test = [side.chosen(c) for side, c in zip(test, chosen, strict=True)]
    row["best_r_lo"], row["best_r_hi"] = _r_interval(on_valid)
    row["test_r"] = _held_out_r([t["measure"] for t in on_test], test)
    row["test_r_lo"], row["test_r_hi"] = _r_interval(on_test)
    mean_scores = [_mean_score(c, side.pooled) for c, side in zip(chosen, valid, strict=True)]
    row["partial_r"] = partial_r(on_valid[0]["eq1"], on_valid[1]["eq1"], np.column_stack(mean_scores))
    if settings.null_draws:
        row["excess_r"] = float(pearson_rows(*(v["eq1"] - v["floor"] for v in on_valid)))
        if settings.measure == "excess":
            row["excess_perm_p"] = search_perm_p  # the search's own: the excess r is its best r
        else:
            excess_z = [standardise(m.excess, side.pooled) for m, side in zip(measured, valid, strict=True)]
            row["excess_perm_p"] = perm_p_of_search(excess_z, perms, row["excess_r"], settings.mode)
        first, second = (t["eq1"] - t["floor"] for t in on_test)
        row["test_excess_r"] = float(pearson_rows(first, second))
        row["test_excess_perm_p"] = perm_p_one(first, second, perms)
    return row


def _r_interval(chosen: list[dict]) -> tuple[float, float]:
    """Percentile 95% interval of r of the measure over the bootstrap draws (both metrics resampled)."""
    if not len(chosen[0]["boot"]):
        return np.nan, np.nan
    r = pearson_rows(chosen[0]["boot"], chosen[1]["boot"])
    r = r[np.isfinite(r)]
    if not len(r):
        return np.nan, np.nan
    low, high = percentile_interval(r)
    return float(low), float(high)


def _mean_score(counts: np.ndarray, pooled: PooledStats) -> np.ndarray:
    """Each model's mean score over every continuation of a combination (all subgroups, seeds pooled)."""
    score_sum, n = pooled_totals(counts[None, :], pooled)
    return score_sum[..., 0].sum(axis=(0, 1)) / n[..., 0].sum(axis=(0, 1))


def floor_warning(floor: float, n_models: int) -> str | None:
    """What the log says where the floor is within :data:`PERM_P_FLOOR_FACTOR` of α (docs/methods.md §1.8), else None.

    At or above α no selection can be shown significant; below it, p < α needs almost every
    permutation but the identity to fall short of the observed r, so even a real agreement is
    rarely shown. Either way a valid r near 1 says little.
    """
    if not floor > ALPHA / PERM_P_FLOOR_FACTOR:
        return None
    reach = (
        f"so no selection can be shown significant at {ALPHA:g}"
        if floor >= ALPHA
        else f"within a factor of {PERM_P_FLOOR_FACTOR} of {ALPHA:g}: p < {ALPHA:g} needs almost every other "
        "permutation to fall short of the observed r, so even a real agreement is rarely shown significant"
    )
    return (
        f"with {n_models} models the permutation p-value cannot fall below {floor:.3f} (perm_p_floor: about "
        f"1/{n_models}! + 1/(B + 1), as a permutation leaves the models in place 1 time in {n_models}!, "
        f"docs/methods.md §1.8), {reach}; a valid r near 1 says little. Evaluate more models."
    )


def _shared_models(stats, axis, metric1, metric2, pair) -> list[str]:
    """Models with statistics for both metrics on the axis: r is taken across these (sorted)."""
    have = [set(stats.loc[(stats["axis"] == axis) & (stats["metric"] == m), "model"]) for m in (metric1, metric2)]
    models = sorted(have[0] & have[1])
    if len(models) < MIN_MODELS:
        raise BiasflowError(
            f"CAIRO selection of {pair} on axis {axis} needs at least {MIN_MODELS} models evaluated on both "
            f"metrics (r is taken across models); {metric1} has {', '.join(sorted(have[0])) or 'none'}, "
            f"{metric2} has {', '.join(sorted(have[1])) or 'none'}. Evaluate more models on both metrics."
        )
    return models


def _paraphrase_sets(stats, axis, metric1, metric2, pair, settings) -> tuple[list[str], list[str]]:
    """Paraphrase sets each metric ranges over: its own (independent) or those both have (shared)."""
    own = [
        sorted(set(stats.loc[(stats["axis"] == axis) & (stats["metric"] == m), "promptset"]) - {ORIGINAL})
        for m in (metric1, metric2)
    ]
    if settings.mode == "independent":
        return own[0], own[1]
    common = sorted(set(own[0]) & set(own[1]))
    if settings.max_sets > 1 and not common and (own[0] or own[1]):
        raise BiasflowError(
            f"shared-mode CAIRO selection of {pair} on axis {axis} needs paraphrase sets with the same names "
            f"for both metrics; {metric1} has {', '.join(own[0]) or 'none'}, {metric2} has "
            f"{', '.join(own[1]) or 'none'}. Paraphrase both with the same paraphrasers and seeds, "
            "use mode: independent (--mode independent), or set max_sets: 1 (--max-sets 1)."
        )
    return common, common


def _largest_size(sides, settings: SearchSettings, axis: str, pair: str) -> int:
    """The largest combination size k searched: ``max_sets``, or 1 where a metric has no paraphrase set to add.

    A study of the original prompts alone (no paraphrasers) has one combination per metric,
    ``original``; every k > 1 would have none (docs/methods.md §1.7). The search then
    compares the metrics on the original prompts, and the log says why k stops at 1.
    """
    lacking = [metric for metric, sets in sides if not sets]
    if settings.max_sets == 1 or not lacking:
        return settings.max_sets
    log.info(
        "%s %s: searched at k = 1 (the original prompts) only, although max_sets is %d: k > 1 needs paraphrase "
        "sets, and %s %s none (paraphrase the prompts to search larger combinations).",
        axis,
        pair,
        settings.max_sets,
        " and ".join(lacking),
        "has" if len(lacking) == 1 else "have",
    )
    return 1


def _held_out_r(bias: list[np.ndarray], test: list[_Side]) -> float:
    """Pearson r of the selected combination(s)' measure recomputed on the held-out split (NaN if constant there)."""
    if any(np.ptp(b) <= CONSTANT_RTOL * t.pooled.scale for b, t in zip(bias, test, strict=True)):
        return np.nan
    from scipy import stats as scipy_stats

    return float(scipy_stats.pearsonr(*bias).statistic)


def _label(counts: np.ndarray, promptsets: list[str]) -> str:
    return combination_label(dict(zip(promptsets, counts, strict=True)))


def combination_label(combination: dict[str, int]) -> str:
    """Prompt-set names of a combination, sorted, each repeated by its multiplicity (the curve's format)."""
    return "+".join(sorted(name for name, mult in combination.items() for _ in range(int(mult))))
