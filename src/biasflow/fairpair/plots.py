"""FairPair's figures: the excess R per model with its interval and null band, and the differential n-grams."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.fairpair.scores import SIDES
from biasflow.fairpair.variance import SOURCES
from biasflow.plotting import plot_separations, pyplot, save_png
from biasflow.tables import require_columns
from biasflow.variance_components import plot_components


def plot_summary(table: pd.DataFrame, path: str | Path) -> None:
    """The excess R per model with its 95% interval and the no-bias null band, one panel per dissimilarity.

    R = F / (1 + F) is F's bounded image (1/2 at F = 1, 1 where F is infinite), and the
    excess R is the mean R over prompts above what re-splitting each prompt's two sides gives
    (docs/methods.md §2.5). The gray band is where the permutation null puts the excess R
    with no bias at all: a point right of it is bias beyond sampling variability, the
    headline ``p_perm`` says how far; the bar is the excess's studentized bootstrap interval.
    """
    plt = pyplot()
    names = sorted(table["dissimilarity"].unique())
    fig, axes = plt.subplots(
        1, len(names), figsize=(4.5 * len(names), 0.6 * table["model"].nunique() + 2), squeeze=False
    )
    for ax, name in zip(axes[0], names, strict=True):
        rows = table[table["dissimilarity"] == name].sort_values("model")
        y = list(range(len(rows)))
        errors = [rows["R_excess"] - rows["R_excess_lo"], rows["R_excess_hi"] - rows["R_excess"]]
        for row, (low, high) in zip(y, zip(rows["R_null_lo"], rows["R_null_hi"], strict=True), strict=True):
            if np.isfinite(low) and np.isfinite(high):  # where chance alone puts the excess (docs/methods.md §2.5)
                ax.fill_betweenx(
                    [row - 0.3, row + 0.3],
                    low,
                    high,
                    color="gray",
                    alpha=0.25,
                    lw=0,
                    label="no-bias null, 95%" if row == 0 else None,
                )
        ax.errorbar(rows["R_excess"], y, xerr=errors, fmt="o", capsize=3, label="excess R, 95% interval")
        ax.axvline(0.0, color="gray", ls="--", lw=1)
        ax.set_yticks(y, rows["model"])
        ax.set_xlabel("excess R = mean F/(1+F) above its null (0 = sampling variability)")
        ax.set_title(name)
    axes[0][0].legend(fontsize=7, loc="best")
    fig.tight_layout()
    save_png(fig, path)


def plot_ngrams(ngrams: pd.DataFrame, path, title: str = "") -> None:
    """Figure 6 of the paper from :func:`differential_ngrams` output, as a PNG.

    Left panel: the n-grams over-represented in φ(G(x)) (``perturbed_original``); right
    panel: those over-represented in G(φ(x)) (``counterfactual``). Each n-gram gets a pair
    of horizontal bars, its frequency on both sides, sorted by the frequency on its own
    side, so a reader sees both how common a phrase is and how lopsided.
    """
    require_columns(ngrams, ["ngram", "freq_a", "freq_b", "side"], "n-gram table")
    plt = pyplot()

    rows = max(1, *(int((ngrams["side"] == s).sum()) for s in SIDES))
    fig, axes = plt.subplots(1, 2, figsize=(11, 1.2 + 0.28 * rows), squeeze=False)
    labels = {SIDES[0]: "φ(G(x)): original prompt, perturbed after", SIDES[1]: "G(φ(x)): perturbed prompt"}
    for ax, side, own in zip(axes[0], SIDES, ("freq_a", "freq_b"), strict=True):
        part = ngrams[ngrams["side"] == side].sort_values(own, ascending=True)
        y = np.arange(len(part))
        ax.barh(y - 0.2, part["freq_a"], height=0.4, color="tab:blue", label=labels[SIDES[0]])
        ax.barh(y + 0.2, part["freq_b"], height=0.4, color="tab:orange", label=labels[SIDES[1]])
        ax.set_yticks(y, part["ngram"], fontsize=8)
        ax.set_title(f"over-represented in {side}", fontsize=10)
        ax.set_xlabel("frequency (share of n-grams of its length)")
        ax.grid(axis="x", alpha=0.3)
        if part.empty:
            ax.text(0.5, 0.5, "none", ha="center", va="center", transform=ax.transAxes)
    handles, legend_labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, legend_labels, loc="lower center", ncol=2, fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    save_png(fig, path)


def plot_comparisons(
    summary: pd.DataFrame, comparisons: pd.DataFrame, path: str | Path, *, against_baseline: bool = False
) -> None:
    """Per dissimilarity: models ordered by their excess R with its interval, and which pairs the paired tests separate.

    The summary's ``R_excess`` and interval on the left; on the right every pair's difference
    of excess R over the prompts both tested (with ``against_baseline``, each model's against
    the baseline), coloured where Holm's adjusted swap p is at most 0.05 (docs/methods.md
    §2.9; :func:`biasflow.plotting.plot_separations`).
    """
    panels = []
    for name in sorted(summary["dissimilarity"].unique()):
        rows = summary[summary["dissimilarity"] == name].rename(
            columns={"R_excess": "estimate", "R_excess_lo": "low", "R_excess_hi": "high"}
        )
        panels.append(
            (name, rows[["model", "estimate", "low", "high"]], comparisons[comparisons["dissimilarity"] == name])
        )
    plot_separations(
        panels, "excess R (left: less bias beyond sampling variability)", path, against_baseline=against_baseline
    )


def plot_variance(variance: pd.DataFrame, path: str | Path) -> None:
    """Where each model's excess R would move: one stacked bar per model and dissimilarity (docs/methods.md §2.10).

    Each bar is the variance of the model's ``R_excess`` split into another sample of prompts
    and other samples of the same prompts: the longer part is where more data buys the most,
    more prompts or more samples per side.
    """
    panels = [
        (f"{name}: variance of the excess R by source", rows.sort_values("model"))
        for name, rows in variance.groupby("dissimilarity", sort=True)
    ]
    plot_components(panels, "model", SOURCES, "variance of R_excess (sd_total is its square root)", path)
