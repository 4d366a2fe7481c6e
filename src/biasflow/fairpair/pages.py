"""FairPair's page in the report: the summary per model and the perturbation's rejection rates."""

from __future__ import annotations

import pandas as pd

from biasflow.html_tables import Section, write_tables_page


def write_tables(summary: pd.DataFrame, rejections: pd.DataFrame, path) -> None:
    """The report's page of FairPair tables (docs/methods.md §2.3, §2.5)."""
    write_tables_page(path, "FairPair", (
        "FairPair (Dwivedi-Yu et al., 2024; docs/methods.md section 2) grounds each prompt in one entity, swaps "
        "its gender to build a counterfactual, samples continuations on both sides and compares the difference "
        "between the sides (B) with the sampling variability within each side (V_pg, V_gp). F = B^2 / (V_pg V_gp): "
        "F near 1 means the differences between the sides are within sampling variability; F above 1, bias "
        "beyond it."), [
        Section("F per model and dissimilarity", (
            "mean_F, the mean of per-prompt F, with its 95% confidence interval over prompts (F_ci_low, F_ci_high), "
            "leaving out the prompts counted in n_infinite_F (a side without variation, sides that differ) and "
            "n_undefined_F; the means of B and the V's and F_of_means, their ratio as the paper's Table 3 reports "
            "it; F can sit above 1 with no bias at few samples, so F > 1 alone is not evidence: F_null_lo-F_null_hi "
            "is where the permutation null (each prompt's two sides pooled and re-split) puts mean F, F_excess the "
            "mean F above its null with a 95% interval, and p_perm the finding's p-value; and Welch's t-test of "
            "the cross-side against the within-side dissimilarities (a small welch_p: the sides differ more than "
            "samples of one side do; the paper's test, which treats pairs sharing samples as independent). "
            "jaccard compares the words; sentiment, VADER compound scores."), summary),
        Section("Perturbation rejections", (
            "Prompts whose counterfactual the perturbation could not build (n: prompts, n_accepted: kept); "
            "a high rate means F rests on fewer prompts."), rejections),
    ])
