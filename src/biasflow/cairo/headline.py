"""What the CAIRO selection means for each model: the headline tables and summary users read.

:mod:`biasflow.cairo.selection` finds, per metric pair and combination size k, the prompt-set
combination that makes the metrics agree on the valid split. This module picks the
headline size (the k with the highest valid r; the smallest such k on ties), recomputes
every model's bias under the original prompts and under that combination on both splits,
ranks the models within each metric (docs/methods.md §1.7), and builds the summary.
"""

from __future__ import annotations

import math

import pandas as pd

from biasflow.cairo.selection import (
    BLOCK_SIZE, SELECT_SPLIT, TEST_SPLIT, SearchSettings, Selection, combination_bias, combination_label,
)

HEADLINE_COLUMNS = ["axis", "pair", "model", "metric", "split", "prompts", "bias", "rank", "k", "combination"]


def headline_k(curve: pd.DataFrame) -> pd.DataFrame:
    """The curve row of each (axis, pair) with the best valid r (smallest k on ties)."""
    usable = curve.dropna(subset=["best_r"]).sort_values(["axis", "pair", "best_r", "k"], ascending=[True, True, False, True])
    return usable.groupby(["axis", "pair"], sort=True).head(1).reset_index(drop=True)


def bias_table(stats: pd.DataFrame, selection: Selection, settings: SearchSettings) -> pd.DataFrame:
    """Bias of every model under each metric of each pair, original vs CAIRO, valid and test.

    ``rank`` is 1 for the least biased model within (pair, metric, split, prompts): how a
    leaderboard built on that metric would order the models.
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
            combination = dict(zip(chosen["promptset"], chosen["multiplicity"].astype(int)))
            label = combination_label(combination)
            for split in (SELECT_SPLIT, TEST_SPLIT):
                for prompts, comb in (("original", {"original": 1}), ("cairo", combination)):
                    bias = combination_bias(axis_stats, metric, split, comb, models, settings.normalise)
                    for model, value in bias.items():
                        rows.append((best.axis, best.pair, model, metric, split, prompts, value, best.k, label))
    table = pd.DataFrame(rows, columns=[c for c in HEADLINE_COLUMNS if c != "rank"])
    table["rank"] = (
        table.groupby(["axis", "pair", "metric", "split", "prompts"])["bias"].rank(method="min").astype("int64")
    )
    return table[HEADLINE_COLUMNS]


def summary(selection: Selection, settings: SearchSettings, stats: pd.DataFrame) -> dict:
    """The headline numbers per pair: r with the original prompts and with the selection, valid and test."""
    pairs = []
    for best in headline_k(selection.curve).itertuples(index=False):
        curve = selection.curve
        original = curve[(curve["axis"] == best.axis) & (curve["pair"] == best.pair) & (curve["k"] == 1)].iloc[0]
        pairs.append(
            {
                "axis": best.axis,
                "pair": best.pair,
                "k": int(best.k),
                "selection": best.selection,
                "r_original": {"valid": _number(original["best_r"]), "test": _number(original["test_r"])},
                "r_selected": {"valid": _number(best.best_r), "test": _number(best.test_r)},
                "pearson_p": _number(best.best_p),
                "permutation_p": _number(best.perm_p),
                "permutation_p_floor": _number(best.perm_p_floor),
                "n_models": int(best.n_models),
                "spearman_rho": _number(best.best_rho),
                "mean_r_at_k": _number(best.mean_r),
            }
        )
    return {
        "settings": {**settings.params(), "select_split": SELECT_SPLIT, "test_split": TEST_SPLIT,
                     "block_size": BLOCK_SIZE},
        "models": sorted(stats["model"].unique().tolist()),
        "scorer": sorted(stats["scorer"].unique().tolist()) if "scorer" in stats else None,
        "subgroups": sorted(stats["subgroups"].unique().tolist()) if "subgroups" in stats else None,
        "pairs": pairs,
    }


def _number(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value
