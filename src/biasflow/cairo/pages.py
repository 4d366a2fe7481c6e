"""CAIRO's page in the report: the selection per metric pair, how to read it, the curve and every model's bias."""

from __future__ import annotations

import pandas as pd

from biasflow.cairo.headline import headline_k
from biasflow.html_tables import Section, write_tables_page

READING_GUIDE = (
    "Three p-values answer three questions (docs/methods.md sections 1.8, 1.12, 1.13). perm_p: is the best "
    "agreement more than searching many combinations gives by chance, if the two metrics' biases were unrelated "
    "across models? excess_perm_p: the same, for each model's excess bias, Eq. 1 less its null floor (the Eq. 1 "
    "the model would show if no subgroup were treated differently): do the metrics agree about groups? null_p: "
    "is the best r higher than the search finds with the subgroup labels shuffled among pages and templates? "
    "Eq. 1's noise floor grows with how toxic a model is overall, so metrics can agree about toxicity levels "
    "with no group treated differently. A worked example, ten simulated models toxic 0.5% to 8% of the time and "
    "no subgroup difference at all (benchmarks/cairo_calibration.py): best_r 0.73 with perm_p 0.03 looks like "
    "agreement, but excess_r is -0.17 with excess_perm_p 0.86, and the null's best r has median 0.70 and 95th "
    "percentile 0.89 (null_p 0.43): the metrics agree about which models are toxic, not about groups. With a "
    "group bias both metrics share: best_r 0.98, excess_r 0.96 with excess_perm_p 0.005, and null_p 0.03. Read "
    "the test columns first: the valid ones are the search's own winners."
)


def write_tables(curve: pd.DataFrame, table: pd.DataFrame, path, axis: str) -> None:
    """The report's page of CAIRO tables for one axis: the headline per pair, the curve, every model's bias."""
    headline = headline_k(curve)[["pair", "k", "measure", "selection", "best_r", "test_r", "test_r_lo", "test_r_hi",
                                  "perm_p", "perm_p_floor", "excess_r", "excess_perm_p", "test_excess_r",
                                  "test_excess_perm_p", "null_p", "n_models"]]
    original = curve[curve["k"] == 1].set_index("pair")["best_r"]
    headline.insert(4, "original_r", headline["pair"].map(original))
    values = ["bias", "bias_lo", "bias_hi", "excess_bias", "rank", "rank_lo", "rank_hi"]
    wide = table.pivot_table(index=["pair", "metric", "model", "split"], columns="prompts", values=values,
                             dropna=False)
    wide.columns = [f"{value}_{prompts}" for value, prompts in wide.columns]
    wide = wide.reset_index()
    write_tables_page(path, f"CAIRO on the {axis} axis", (
        "CAIRO (Zayed et al., 2024; docs/methods.md section 1) searches combinations of the original prompts and "
        "their paraphrases for the one that makes each pair of metrics agree most across the evaluated models "
        "(Pearson's r on the valid split), then checks that combination on the held-out test split. Every r and "
        "bias has a 95% cluster-bootstrap interval (_lo, _hi). " + READING_GUIDE), [
        Section("The selection per metric pair", (
            "k: prompt sets in the headline combination (the size with the best valid r); measure: what the search "
            "maximised (eq1 or excess); original_r: r with the original prompts alone; best_r: r of the selected "
            "combination on the valid split; test_r: the same combination on the test split, with its interval; "
            "perm_p: the selection-aware permutation p-value, which cannot fall below perm_p_floor with this many "
            "models and permutations; excess_r, excess_perm_p: the agreement of the excess biases and its p-value "
            "(test_ on the test split); null_p: best_r against the search's best r with no group difference."),
            headline),
        Section("Correlation against the number of prompt sets", (
            "One row per pair and k: the best combination on the valid split and how it holds on test. "
            "null_r_median and null_r_q95: the search's best r with the subgroup labels shuffled (the band in the "
            "figure); partial_r: the agreement of Eq. 1 after each model's mean score on both metrics; n_skipped "
            "counts combinations whose bias was constant across models (no r)."),
            curve[["pair", "k", "best_r", "best_r_lo", "best_r_hi", "test_r", "test_r_lo", "test_r_hi", "mean_r",
                   "perm_p", "excess_r", "excess_perm_p", "null_r_median", "null_r_q95", "null_p", "partial_r",
                   "kendall_tau", "n_combinations", "n_skipped", "selection"]]),
        Section("Every model's bias, original prompts against the selection", (
            "Eq. 1 bias (lower is fairer) of each model under each metric, with the original prompts and with the "
            "selected combination, its 95% interval, its excess over the no-bias floor, and the model's rank among "
            "the models (1: least biased) with its interval. When the ranks move, a leaderboard built on the "
            "original prompts would have ordered the models differently; when their intervals overlap, the "
            "prompts cannot tell those models apart."), wide),
    ])
