"""FairPair's page in the report: the summary per model and the perturbation's rejection rates."""

from __future__ import annotations

import pandas as pd

from biasflow.html_tables import Section, write_tables_page


def write_tables(
    summary: pd.DataFrame, rejections: pd.DataFrame, comparisons: pd.DataFrame | None, variance: pd.DataFrame, path
) -> None:
    """The report's page of FairPair tables (docs/methods.md §2.3, §2.5, §2.9, §2.10); ``comparisons`` None: no pairs
    were compared (``comparisons.pairs`` none), and its section is left out."""
    write_tables_page(
        path,
        "FairPair",
        (
            "FairPair (Dwivedi-Yu et al., 2024; docs/methods.md section 2) grounds each prompt in one entity, swaps "
            "its gender to build a counterfactual, samples continuations on both sides and compares the difference "
            "between the sides (B) with the sampling variability within each side (V_pg, V_gp). F = B^2 / (V_pg V_gp): "
            "F near 1 means the differences between the sides are within sampling variability; F above 1, bias "
            "beyond it."
        ),
        [
            Section(
                "F per model and dissimilarity",
                (
                    "mean_F, the mean of per-prompt F, with its 95% confidence interval over prompts (F_ci_low, "
                    "F_ci_high), leaving out the prompts counted in n_infinite_F (a side without variation, sides that "
                    "differ) and n_undefined_F; the means of B and the V's and F_of_means, their ratio as the paper's "
                    "Table 3 reports it. F can sit above 1 with no bias at few samples, so F > 1 alone is not "
                    "evidence; the permutation null (each prompt's two sides pooled and re-split) says what chance "
                    "gives: F_null_mean and F_excess, the mean F above it with a 95% interval, in F's units; and the "
                    "headline on R = F / (1 + F), F's bounded image (1/2 at F = 1, 1 where F is infinite): R_excess, "
                    "the mean R above its null over the n_tested prompts whose R re-splitting moves, each weighted by "
                    "the inverse of its null spread, with a 95% interval, R_null_lo-R_null_hi, where chance alone puts "
                    "R_excess, and p_perm, the finding's p-value. F's skew makes F_excess's interval cover less than "
                    "its 95% at few prompts; R_excess's holds it (the calibration table in benchmarks/README.md). "
                    "Welch's t-test of the cross-side against the within-side dissimilarities is the paper's (a small "
                    "welch_p: the sides differ more than samples of one side do), which treats pairs sharing samples "
                    "as independent. jaccard compares the words; sentiment, VADER compound scores; docs/methods.md "
                    "section 2.5."
                ),
                summary,
            ),
            Section(
                "Every pair of models compared on the same prompts",
                (
                    "Is model_a's excess R lower than model_b's? difference: R_excess_a less R_excess_b, each over the "
                    "n_prompts prompts both models tested (negative: model_a shows less bias beyond sampling "
                    "variability), with a paired 95% interval and the paired randomisation p-value (the two models' "
                    "per-prompt excesses swapped prompt by prompt), adjusted over the pairs of a dissimilarity by Holm "
                    "(p_holm) and Benjamini-Hochberg (p_bh); docs/methods.md section 2.9. Read this, not two "
                    "overlapping R_excess intervals above: the same prompts move both models alike."
                ),
                comparisons,
            ),
            Section(
                "Where each model's excess R would move",
                (
                    "The variance of R_excess split in two: another sample of prompts (sd_prompts) and other samples "
                    "of the same prompts (sd_samples, from how far each prompt's R moves with its own samples), with "
                    "each one's share; sd_total is the root of their sum. The larger share is where more data buys the "
                    "most: more prompts, or more samples per side. Near no bias the samples' part is overstated "
                    "(docs/methods.md section 2.10)."
                ),
                variance,
            ),
            Section(
                "Perturbation rejections",
                (
                    "Prompts whose counterfactual the perturbation could not build (n: prompts, n_accepted: kept); "
                    "a high rate means F rests on fewer prompts."
                ),
                rejections,
            ),
        ],
    )
