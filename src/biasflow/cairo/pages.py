"""CAIRO's page in the report: the selection per metric pair, how to read it, the curve and every model's bias."""

from __future__ import annotations

import pandas as pd

from biasflow.cairo.comparisons import COMPARISON_COLUMNS
from biasflow.cairo.empty_reasons import SINGLE_CLUSTER
from biasflow.cairo.headline import headline_k
from biasflow.html_tables import Section, write_tables_page

# The comparisons' columns the page leaves to the table itself: the axis (one page per axis), the design and the
# score count (the same on every row of a study), and the release gate's one-sided columns (`biasflow compare`).
PAGE_LEAVES_OUT = ("axis", "design", "n_scores", "lo90", "hi90", "p_worse")
READING_GUIDE = (
    "Three p-values answer three questions about the agreement (docs/methods.md sections 1.8, 1.12, 1.13). "
    "perm_p: is the best agreement more than searching many combinations gives by chance, if the two metrics' "
    "biases were unrelated across models? excess_perm_p: the same, for each model's excess bias, Eq. 1 less its "
    "null floor (the Eq. 1 the model would show if no subgroup were treated differently): do the metrics agree "
    "about groups? null_p: is the best r higher than the search finds with the subgroup labels shuffled? Eq. 1's "
    "noise floor grows with how toxic a model is overall, so metrics can agree about toxicity levels with no group "
    "treated differently: in simulated studies of ten models toxic 0.5% to 8% of the time and no subgroup "
    "difference at all, perm_p falls below 0.05 in about 4 studies of 10 while excess_perm_p and null_p stay near "
    "5% (the calibration table, benchmarks/README.md). Whether one model treats a metric's subgroups differently "
    "is excess_p's question (the share of null draws whose Eq. 1 reaches the observed one); the excess interval "
    "sizes a difference and is not a test. Read the test columns first: the valid ones are the search's own winners."
)


def missing_intervals(table: pd.DataFrame) -> str:
    """A sentence naming each metric and split whose intervals are missing, and why (docs/methods.md §1.11)."""
    single = table.loc[table["n_clusters"] < 2, ["metric", "split"]].drop_duplicates()
    if single.empty:
        return ""
    where = "; ".join(f"{row.metric} on {row.split}" for row in single.itertuples())
    return f" Intervals are missing (–) for {where}: {SINGLE_CLUSTER} (n_clusters 1; the log names the subgroups)."


def write_tables(
    curve: pd.DataFrame, table: pd.DataFrame, comparisons: pd.DataFrame | None, variance: pd.DataFrame, path, axis: str
) -> None:
    """The report's page of CAIRO tables for one axis: the headline per pair, the curve, every model's bias, the
    pairs of models compared (None: none were, and the section is left out), and where each model's bias would move."""
    headline = headline_k(curve)[
        [
            "pair",
            "k",
            "measure",
            "selection",
            "best_r",
            "test_r",
            "test_r_lo",
            "test_r_hi",
            "perm_p",
            "perm_p_floor",
            "excess_r",
            "excess_perm_p",
            "test_excess_r",
            "test_excess_perm_p",
            "null_p",
            "n_models",
        ]
    ]
    original = curve[curve["k"] == 1].set_index("pair")["best_r"]
    headline.insert(4, "original_r", headline["pair"].map(original))
    values = ["bias", "bias_lo", "bias_hi", "excess_bias", "excess_p", "rank", "rank_lo", "rank_hi"]
    wide = table.astype({"rank_lo": "float64", "rank_hi": "float64"}).pivot_table(
        index=["pair", "metric", "design", "n_clusters", "model", "split"],
        columns="prompts",
        values=values,
        dropna=False,
    )
    wide.columns = [f"{value}_{prompts}" for value, prompts in wide.columns]
    wide = wide.reset_index()
    write_tables_page(
        path,
        f"CAIRO on the {axis} axis",
        (
            "CAIRO (Zayed et al., 2024; docs/methods.md section 1) searches combinations of the original prompts and "
            "their paraphrases for the one that makes each pair of metrics agree most across the evaluated models "
            "(Pearson's r on the valid split), then checks that combination on the held-out test split. Every r and "
            "bias has a 95% cluster-bootstrap interval (_lo, _hi)." + missing_intervals(table) + " " + READING_GUIDE
        ),
        [
            Section(
                "The selection per metric pair",
                (
                    "k: prompt sets in the headline combination (the size with the best valid r); measure: what the "
                    "search maximised (eq1 or excess); original_r: r with the original prompts alone; best_r: r of the "
                    "selected combination on the valid split; test_r: the same combination on the test split, with its "
                    "interval; perm_p: the selection-aware permutation p-value, which cannot fall below perm_p_floor "
                    "with this many models and permutations; excess_r, excess_perm_p: the agreement of the excess "
                    "biases and its p-value (test_ on the test split); null_p: best_r against the search's best r with "
                    "no group difference."
                ),
                headline,
            ),
            Section(
                "Correlation against the number of prompt sets",
                (
                    "One row per pair and k: the best combination on the valid split and how it holds on test. "
                    "null_r_median and null_r_q95: the search's best r with the subgroup labels shuffled (the band in "
                    "the figure); partial_r: the agreement of Eq. 1 after each model's mean score on both metrics; "
                    "n_skipped counts combinations whose bias was constant across models (no r)."
                ),
                curve[
                    [
                        "pair",
                        "k",
                        "best_r",
                        "best_r_lo",
                        "best_r_hi",
                        "test_r",
                        "test_r_lo",
                        "test_r_hi",
                        "mean_r",
                        "perm_p",
                        "excess_r",
                        "excess_perm_p",
                        "null_r_median",
                        "null_r_q95",
                        "null_p",
                        "partial_r",
                        "kendall_tau",
                        "n_combinations",
                        "n_skipped",
                        "selection",
                    ]
                ],
            ),
            Section(
                "Every model's bias, original prompts against the selection",
                (
                    "Eq. 1 bias (lower is fairer) of each model under each metric, with the original prompts and with "
                    "the selected combination, its 95% interval, its excess over the no-bias floor with excess_p "
                    "(below 0.05: the subgroups differ for this model), and the model's rank among the models (1: "
                    "least biased) with its interval. design: nested (each subgroup its own pages) or crossed "
                    "(subgroups filled into the same templates), which decides how the draws move clusters; "
                    "n_clusters: the fewest group keys resampled together. When the ranks move, a leaderboard built on "
                    "the original prompts would have ordered the models differently; when their intervals overlap, the "
                    "prompts cannot tell those models apart."
                ),
                wide,
            ),
            Section(
                "Every pair of models compared on the same prompts",
                (
                    "Is model_a less biased than model_b? measure eq1: difference is model_a's Eq. 1 less model_b's "
                    "(negative: model_a is less biased), with a paired 95% interval (one bootstrap draw for both "
                    "models) and the paired randomisation p-value (the two models' centred statistics swapped cluster "
                    "by cluster); measure excess: the same for their excess bias (Eq. 1 less each model's no-bias "
                    "floor), the row to read when the two models differ in how toxic they are overall, with p the "
                    "level at which its interval reaches 0 (conservative). p is adjusted over the pairs by Holm "
                    "(p_holm) and Benjamini-Hochberg (p_bh); docs/methods.md section 1.16. Read this, not two "
                    "overlapping intervals above: the same prompts move both models alike, so their difference is far "
                    "more precise than either bias."
                ),
                None
                if comparisons is None
                else comparisons[[column for column in COMPARISON_COLUMNS if column not in PAGE_LEAVES_OUT]],
            ),
            Section(
                "Where each model's bias would move",
                (
                    "Per metric, split and model: the standard deviation of the model's Eq. 1 (original prompts) that "
                    "each source would give, and its share of their sum: wording (another paraphrase set of the same "
                    "size), seed (another generation seed), prompts (another sample of prompts, the cluster bootstrap) "
                    "and continuations (other samples of the same prompts); docs/methods.md section 1.17. A difference "
                    "between two models smaller than sd_total says little; the largest share is where more data "
                    "helps most."
                ),
                variance[
                    [
                        "metric",
                        "split",
                        "model",
                        "bias",
                        "sd_total",
                        "sd_wording",
                        "sd_seed",
                        "sd_prompts",
                        "sd_continuations",
                        "share_wording",
                        "share_seed",
                        "share_prompts",
                        "share_continuations",
                        "n_sets",
                        "n_seeds",
                        "n_clusters",
                    ]
                ],
            ),
        ],
    )
