"""CAIRO's page in the report: the selection per metric pair, the curve and every model's bias."""

from __future__ import annotations

import pandas as pd

from biasflow.cairo.headline import headline_k
from biasflow.html_tables import Section, write_tables_page


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
