"""What the CAIRO selection means for each model: the headline tables and summary users read.

:mod:`biasflow.cairo.selection` finds, per metric pair and combination size k, the prompt-set
combination that makes the metrics agree on the valid split. This module picks the
headline size (the k with the highest valid r; the smallest such k on ties), recomputes
every model's bias under the original prompts and under that combination on both splits,
ranks the models within each metric (docs/methods.md §1.7), and builds the summary. Its
intervals and null read the bootstrap and null draws the selection made (``Selection.draws``),
never drawing again (§1.11).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from biasflow.cairo import empty_reasons
from biasflow.cairo.combinations import ORIGINAL, pooled_bias, pooled_stats
from biasflow.cairo.correlation_search import BLOCK_SIZE
from biasflow.cairo.empty_reasons import SINGLE_CLUSTER
from biasflow.cairo.population import eq1_interval
from biasflow.cairo.selection import SELECT_SPLIT, TEST_SPLIT, SearchSettings, Selection, combination_label
from biasflow.cairo.uncertainty import (
    draw_bias,
    excess_p,
    kendall_w_test,
    population_terms,
    rank_interval,
    small_sample_factor,
)
from biasflow.empty_cells import WHY_EMPTY, why_empty
from biasflow.intervals import NON_NEGATIVE, estimate_interval

HEADLINE_COLUMNS = [
    "axis",
    "pair",
    "model",
    "metric",
    "split",
    "prompts",
    "bias",
    "bias_lo",
    "bias_hi",
    "null_floor",
    "excess_bias",
    "excess_bias_lo",
    "excess_bias_hi",
    "excess_p",
    "rank",
    "rank_lo",
    "rank_hi",
    "design",
    "n_clusters",
    "k",
    "combination",
    WHY_EMPTY,
]
# Ranks are whole numbers, missing where no bootstrap draw could be made.
RANK_COLUMNS = ["rank_lo", "rank_hi"]


def headline_k(curve: pd.DataFrame) -> pd.DataFrame:
    """The curve row of each (axis, pair) with the best valid r (smallest k on ties)."""
    usable = curve.dropna(subset=["best_r"]).sort_values(
        ["axis", "pair", "best_r", "k"], ascending=[True, True, False, True]
    )
    return usable.groupby(["axis", "pair"], sort=True).head(1).reset_index(drop=True)


def bias_table(stats: pd.DataFrame, selection: Selection, settings: SearchSettings) -> pd.DataFrame:
    """Bias of every model under each metric of each pair, original vs CAIRO, valid and test, with intervals.

    ``rank`` is 1 for the least biased model within (pair, metric, split, prompts): how a
    leaderboard built on that metric would order the models. ``bias_lo``/``bias_hi`` is a
    95% interval for Eq. 1 at these sample sizes (not for the population) that holds the
    estimate, ``rank_lo``/``rank_hi`` the percentile interval of the rank, both over cluster
    bootstrap draws (docs/methods.md §1.11); ``null_floor`` is Eq. 1's mean under the no-bias
    null, ``excess_bias`` Eq. 1 less it, with an interval for the population value
    Σ_g |μ_g − μ_all|, and ``excess_p`` the null's test of a group difference (§1.12-1.13).
    ``design`` (nested, crossed or mixed) and ``n_clusters`` (the fewest group keys the
    bootstrap resamples together) say what the intervals rest on; with a single key
    somewhere they are NaN; ``why_empty`` says why each empty cell is. The draws are the
    selection's own (``selection.draws``), so
    the intervals of a combination here and of r in the curve rest on the same draws.
    """
    rows = []
    for best in headline_k(selection.curve).itertuples(index=False):
        choice = selection.choices[
            (selection.choices["axis"] == best.axis)
            & (selection.choices["pair"] == best.pair)
            & (selection.choices["k"] == best.k)
        ]
        axis_stats = stats[stats["axis"] == best.axis]
        for metric, chosen in choice.groupby("metric", sort=True):
            models = sorted(set(axis_stats.loc[axis_stats["metric"] == metric, "model"]))
            combination = dict(zip(chosen["promptset"], chosen["multiplicity"].astype(int), strict=True))
            label = combination_label(combination)
            promptsets = [ORIGINAL, *(name for name in combination if name != ORIGINAL)]
            for split in (SELECT_SPLIT, TEST_SPLIT):
                pooled = pooled_stats(axis_stats, metric, best.axis, split, promptsets, models)
                draws = selection.draws[best.axis, metric, split]
                for prompts, comb in (("original", {ORIGINAL: 1}), ("cairo", combination)):
                    counts = np.array([comb.get(name, 0) for name in promptsets], dtype=np.float64)
                    columns = model_uncertainty(counts, pooled, draws.null, draws.boot, settings.normalise)
                    for i, model in enumerate(models):
                        rows.append(
                            {
                                "axis": best.axis,
                                "pair": best.pair,
                                "model": model,
                                "metric": metric,
                                "split": split,
                                "prompts": prompts,
                                "k": best.k,
                                "combination": label,
                                "design": pooled.design,
                                "n_clusters": pooled.n_clusters(),
                                **{name: values[i] for name, values in columns.items()},
                            }
                        )
    table = pd.DataFrame(rows, columns=HEADLINE_COLUMNS)
    table["rank"] = (
        table.groupby(["axis", "pair", "metric", "split", "prompts"])["bias"].rank(method="min").astype("int64")
    )
    table[RANK_COLUMNS] = table[RANK_COLUMNS].astype("Int64")
    table[WHY_EMPTY] = why_empty(table, empty_reasons.headline(table, settings.bootstrap, settings.null_draws))
    return table[HEADLINE_COLUMNS]


def model_uncertainty(counts: np.ndarray, pooled, null: np.ndarray, boot: np.ndarray, normalise: str) -> dict:
    """Every column of the headline table but the names, ranks and design, for each model of one combination.

    ``null`` and ``boot`` are the metric and split's null and bootstrap draws (either may be
    empty). The calibration table (benchmarks/calibration/cairo.py) checks these columns.
    """
    bias = pooled_bias(counts[None, :], pooled, normalise)[0]
    nan = np.full_like(bias, np.nan)
    columns = {
        "bias": bias,
        "bias_lo": nan,
        "bias_hi": nan,
        "null_floor": nan,
        "excess_bias": nan,
        "excess_bias_lo": nan,
        "excess_bias_hi": nan,
        "excess_p": nan,
        "rank_lo": nan,
        "rank_hi": nan,
    }
    if len(boot):
        draws = draw_bias(counts, pooled, boot, normalise)
        columns["bias_lo"], columns["bias_hi"] = estimate_interval(
            bias, draws, small_sample_factor(pooled), NON_NEGATIVE
        )
        columns["rank_lo"], columns["rank_hi"] = rank_interval(draws)
        above, below = population_terms(counts, pooled, boot, normalise).models()
        columns["excess_bias_lo"], columns["excess_bias_hi"] = eq1_interval(
            bias, above, below, small_sample_factor(pooled)
        )
    if len(null):
        null_bias = draw_bias(counts, pooled, null, normalise)
        columns["null_floor"] = null_bias.mean(axis=0)
        columns["excess_bias"] = bias - columns["null_floor"]
        columns["excess_p"] = excess_p(bias, null_bias)
    return columns


def summary(selection: Selection, settings: SearchSettings, stats: pd.DataFrame, table: pd.DataFrame) -> dict:
    """The headline numbers per pair, with their intervals and nulls, and the metrics' concordance per axis.

    ``table`` is :func:`bias_table`'s: Kendall's W of the metrics' rankings of the models by
    excess bias with the original prompts comes from it (docs/methods.md §1.14).
    """
    pairs = []
    curve = selection.curve
    for best in headline_k(curve).itertuples(index=False):
        original = curve[(curve["axis"] == best.axis) & (curve["pair"] == best.pair) & (curve["k"] == 1)].iloc[0]
        pairs.append(
            {
                "axis": best.axis,
                "pair": best.pair,
                "k": int(best.k),
                "measure": best.measure,
                "selection": best.selection,
                "r_original": {"valid": _number(original["best_r"]), "test": _number(original["test_r"])},
                "r_selected": {"valid": _number(best.best_r), "test": _number(best.test_r)},
                "r_selected_interval": {
                    "valid": [_number(best.best_r_lo), _number(best.best_r_hi)],
                    "test": [_number(best.test_r_lo), _number(best.test_r_hi)],
                },
                "pearson_p": _number(best.best_p),
                "permutation_p": _number(best.perm_p),
                "permutation_p_floor": _number(best.perm_p_floor),
                "excess_r": {"valid": _number(best.excess_r), "test": _number(best.test_excess_r)},
                "excess_permutation_p": {
                    "valid": _number(best.excess_perm_p),
                    "test": _number(best.test_excess_perm_p),
                },
                "null_best_r": {
                    "median": _number(best.null_r_median),
                    "q95": _number(best.null_r_q95),
                    "p": _number(best.null_p),
                },
                "partial_r": _number(best.partial_r),
                "n_models": int(best.n_models),
                "spearman_rho": _number(best.best_rho),
                "kendall_tau": _number(best.kendall_tau),
                "mean_r_at_k": _number(best.mean_r),
            }
        )
    return {
        "settings": {
            **settings.params(),
            "select_split": SELECT_SPLIT,
            "test_split": TEST_SPLIT,
            "block_size": BLOCK_SIZE,
        },
        "models": sorted(stats["model"].unique().tolist()),
        "scorer": sorted(stats["scorer"].unique().tolist()) if "scorer" in stats else None,
        "subgroups": sorted(stats["subgroups"].unique().tolist()) if "subgroups" in stats else None,
        "pairs": pairs,
        "kendall_w": concordance(table, settings),
        "designs": designs(table),
    }


def designs(table: pd.DataFrame) -> list[dict]:
    """Per axis, metric and split: how its clusters are laid out, and why its intervals are missing if they are."""
    rows = []
    for row in table.drop_duplicates(["axis", "metric", "split"]).sort_values(["axis", "metric", "split"]).itertuples():
        rows.append(
            {
                "axis": row.axis,
                "metric": row.metric,
                "split": row.split,
                "design": row.design,
                "n_clusters": int(row.n_clusters),
                "intervals_missing": SINGLE_CLUSTER if row.n_clusters < 2 else None,
            }
        )
    return rows


def concordance(table: pd.DataFrame, settings: SearchSettings) -> list[dict]:
    """Kendall's W of the metrics' rankings of the models by excess bias (original prompts), per axis and split.

    Its permutations come from ``cairo.selection.seed`` alone: they shuffle the models, so which
    models are present changes them, and W, by definition (§1.14).
    """
    rows = []
    original = table[table["prompts"] == ORIGINAL].drop_duplicates(["axis", "metric", "split", "model"])
    for (axis, split), group in original.groupby(["axis", "split"], sort=True):
        wide = group.pivot(index="metric", columns="model", values="excess_bias").dropna(axis=1)
        w, p = np.nan, np.nan
        if len(wide) >= 2 and wide.shape[1] >= 3:
            w, p = kendall_w_test(wide.to_numpy(), settings.permutations, np.random.default_rng(settings.seed))
        rows.append(
            {
                "axis": axis,
                "split": split,
                "metrics": wide.index.tolist(),
                "n_models": int(wide.shape[1]),
                "w": _number(w),
                "permutation_p": _number(p),
            }
        )
    return rows


def _number(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value
