"""What the CAIRO selection means for each model: the tables and summary users read.

:mod:`biasflow.cairo.selection` finds, per metric pair and combination size k, the prompt-set
combination that makes the metrics agree on the valid split. This module picks the
headline size (the k with the highest valid r; the smallest such k on ties), recomputes
every model's bias under the original prompts and under that combination on both splits,
ranks the models within each metric, and writes the summary JSON and the tables page of
the report (:func:`write_tables_page`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict

import pandas as pd

from biasflow.cairo.selection import SearchSettings, Selection, combination_bias, combination_label
from biasflow.html_tables import Section, write_tables_page

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
            for split in (settings.select_split, settings.test_split):
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
        "settings": asdict(settings),
        "models": sorted(stats["model"].unique().tolist()),
        "scorer": sorted(stats["scorer"].unique().tolist()) if "scorer" in stats else None,
        "subgroups": sorted(stats["subgroups"].unique().tolist()) if "subgroups" in stats else None,
        "pairs": pairs,
    }


def json_writer(data: dict):
    """A function writing ``data`` as JSON to a given (temporary) file, for :func:`biasflow.tables.write_together`."""
    text = json.dumps(data, indent=2, sort_keys=False) + "\n"
    return lambda tmp: tmp.write_text(text)


def _number(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def write_tables(curve: pd.DataFrame, table: pd.DataFrame, path, axis: str) -> None:
    """The report's page of CAIRO tables for one axis: the headline per pair, the curve, every model's bias."""
    headline = headline_k(curve)[["pair", "k", "selection", "best_r", "test_r", "mean_r", "perm_p", "perm_p_floor",
                                  "n_models"]]
    original = curve[curve["k"] == 1].set_index("pair")["best_r"]
    headline.insert(3, "original_r", headline["pair"].map(original))
    wide = table.pivot_table(index=["pair", "metric", "model", "split"], columns="prompts", values=["bias", "rank"])
    wide.columns = [f"{value}_{prompts}" for value, prompts in wide.columns]
    wide = wide.reset_index()
    write_tables_page(path, f"CAIRO on the {axis} axis", (
        "CAIRO (Zayed et al., 2024; docs/methods.md section 1) searches combinations of the original prompts and "
        "their paraphrases for the one that makes each pair of metrics agree most across the evaluated models "
        "(Pearson's r on the valid split), then checks that combination on the held-out test split. Trust a "
        "selection when perm_p is small and test r stays near valid r."), [
        Section("The selection per metric pair", (
            "k: prompt sets in the headline combination (the size with the best valid r); original_r: r with the "
            "original prompts alone; best_r: r of the selected combination on the valid split; test_r: the same "
            "combination on the test split; mean_r: the mean r of all combinations of size k; perm_p: the "
            "selection-aware permutation p-value, which cannot fall below perm_p_floor with this many models and "
            "permutations."), headline),
        Section("Correlation against the number of prompt sets", (
            "One row per pair and k: the best combination on the valid split and how it holds on test. "
            "n_skipped counts combinations whose bias was constant across models (no r)."),
            curve[["pair", "k", "best_r", "test_r", "mean_r", "best_rho", "perm_p", "n_combinations", "n_skipped",
                   "selection"]]),
        Section("Every model's bias, original prompts against the selection", (
            "Eq. 1 bias (lower is fairer) of each model under each metric, with the original prompts and with the "
            "selected combination, and the model's rank among the models (1: least biased). When the ranks move, "
            "a leaderboard built on the original prompts would have ordered the models differently."), wide),
    ])
