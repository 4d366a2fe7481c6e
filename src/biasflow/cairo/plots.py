"""CAIRO's figures: bias per prompt set, the correlation curve, before/after, paraphraser shares."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.cairo.scorer_bias import ALPHA as SCORER_PART_ALPHA
from biasflow.cairo.variance import SOURCES
from biasflow.plotting import plot_separations, pyplot, save_png
from biasflow.variance_components import plot_components


def plot_bias(bias: pd.DataFrame, path: str | Path) -> None:
    """Eq. 1 bias of every model under each metric: one panel per metric, one marker per prompt set.

    Original prompts are drawn as large black markers, paraphrase sets as small coloured
    ones, so the spread that paraphrasing alone causes (paper 000, Figure 2) is visible.
    Both splits are pooled in the mean of the two split values.
    """
    plt = pyplot()
    metrics = sorted(bias["metric"].unique())
    models = sorted(bias["model"].unique())
    mean = bias.groupby(["metric", "model", "promptset"], as_index=False)["bias"].mean()
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 3.5), squeeze=False, sharey=False)
    for ax, metric in zip(axes[0], metrics, strict=True):
        rows = mean[mean["metric"] == metric]
        for promptset, part in rows.groupby("promptset"):
            x = [models.index(m) for m in part["model"]]
            original = promptset == "original"
            ax.scatter(
                x,
                part["bias"],
                s=60 if original else 18,
                marker="D" if original else "o",
                color="black" if original else None,
                label=promptset,
                zorder=3 if original else 2,
                alpha=0.9,
            )
        ax.set_title(metric)
        ax.set_xticks(range(len(models)), models, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("bias (Eq. 1, lower is fairer)")
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", fontsize=7, title="prompt set")
    fig.tight_layout(rect=(0, 0, 0.85, 1))
    save_png(fig, path)


def plot_curve(curve: pd.DataFrame, path: str | Path) -> None:
    """Correlation versus combination size (paper 000, Figure 6), with what chance and toxicity levels give.

    Per metric pair: the best valid r found by CAIRO, the same combination's r on the
    held-out test split with its bootstrap interval, and the mean r over all combinations of
    that size (the paper's "average" baseline); the band is the best r the search reaches
    when no subgroup is treated differently (median to 95th percentile of the no-bias null,
    docs/methods.md §1.12), and the excess r is the agreement about groups (§1.13). k = 1 is
    the original prompts alone.
    """
    plt = pyplot()
    panels = list(curve.groupby(["axis", "pair"], sort=True))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False)
    for ax, ((axis, pair), rows) in zip(axes[0], panels, strict=True):
        rows = rows.sort_values("k")
        ax.fill_between(
            rows["k"],
            rows["null_r_median"],
            rows["null_r_q95"],
            color="tab:orange",
            alpha=0.2,
            label="no-bias null (median to 95%)",
        )
        ax.plot(rows["k"], rows["best_r"], "o-", color="tab:blue", label="CAIRO (valid)")
        ax.errorbar(
            rows["k"],
            rows["test_r"],
            yerr=_error_bars(rows["test_r"], rows["test_r_lo"], rows["test_r_hi"]),
            fmt="s--",
            color="tab:green",
            capsize=3,
            label="selection on test (95% CI)",
        )
        ax.plot(rows["k"], rows["excess_r"], "D-.", color="tab:red", label="excess r (agreement about groups)")
        ax.plot(rows["k"], rows["mean_r"], "^:", color="tab:gray", label="average over combinations")
        ax.set_title(f"{pair} ({axis})", fontsize=10)
        ax.set_xlabel("prompt sets in the combination (k)")
        ax.set_ylabel("Pearson r across models")
        ax.set_xticks(rows["k"])
        ax.set_ylim(-1.05, 1.05)
        ax.axhline(0, color="black", lw=0.5)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    save_png(fig, path)


def _error_bars(value: pd.Series, low: pd.Series, high: pd.Series) -> np.ndarray:
    """Matplotlib's (2, n) error bar lengths from an interval; NaN, so no bar is drawn, where the interval is missing
    (never a zero-length bar, which would read as certainty)."""
    return np.vstack([value - low, high - value]).clip(min=0)


def plot_before_after(table: pd.DataFrame, path: str | Path, split: str = "test") -> None:
    """Each model's bias under the two metrics of a pair, original prompts vs CAIRO (Figures 10-11).

    One row of two panels per pair; points are models, with their bootstrap 95% intervals on
    both metrics (docs/methods.md §1.11). Drawn on the held-out ``split`` so the picture
    shows whether the agreement found on the valid split carries over.
    """
    plt = pyplot()
    rows = table[table["split"] == split]
    pairs = sorted(rows[["axis", "pair"]].drop_duplicates().itertuples(index=False, name=None))
    fig, axes = plt.subplots(len(pairs), 2, figsize=(8, 3.6 * len(pairs)), squeeze=False)
    for (axis, pair), panel_row in zip(pairs, axes, strict=True):
        metric_x, metric_y = pair.split("~")
        for ax, prompts in zip(panel_row, ("original", "cairo"), strict=True):
            part = rows[(rows["axis"] == axis) & (rows["pair"] == pair) & (rows["prompts"] == prompts)]
            wide = part.pivot_table(index="model", columns="metric", values="bias")
            low = part.pivot_table(index="model", columns="metric", values="bias_lo", dropna=False).reindex(wide.index)
            high = part.pivot_table(index="model", columns="metric", values="bias_hi", dropna=False).reindex(wide.index)
            ax.errorbar(
                wide[metric_x],
                wide[metric_y],
                fmt="o",
                capsize=2,
                alpha=0.8,
                color="tab:blue" if prompts == "cairo" else "black",
                xerr=_error_bars(wide[metric_x], low.get(metric_x, wide[metric_x]), high.get(metric_x, wide[metric_x])),
                yerr=_error_bars(wide[metric_y], low.get(metric_y, wide[metric_y]), high.get(metric_y, wide[metric_y])),
            )
            for model, point in wide.iterrows():
                ax.annotate(
                    model, (point[metric_x], point[metric_y]), fontsize=7, xytext=(3, 3), textcoords="offset points"
                )
            r = np.corrcoef(wide[metric_x], wide[metric_y])[0, 1] if len(wide) > 2 else float("nan")
            combination = part["combination"].iloc[0] if prompts == "cairo" and len(part) else "original"
            ax.set_title(f"{axis}, {prompts} prompts: r = {r:.2f}\n{combination}", fontsize=8)
            ax.set_xlabel(f"{metric_x} bias")
            ax.set_ylabel(f"{metric_y} bias")
            ax.grid(alpha=0.3)
    fig.tight_layout()
    save_png(fig, path)


def plot_paraphraser_shares(choices: pd.DataFrame, path: str | Path) -> None:
    """Share of each paraphraser among the paraphrase sets of the best combinations (Figure 7).

    Prompt sets are named ``<paraphraser>-s<seed>``; ``original`` is left out (it is in
    every combination).
    """
    plt = pyplot()
    paraphrased = choices[choices["promptset"] != "original"].copy()
    paraphrased["paraphraser"] = paraphrased["promptset"].str.rsplit("-s", n=1).str[0]
    panels = sorted(choices[["axis", "pair"]].drop_duplicates().itertuples(index=False, name=None))
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(4.2 * max(1, len(panels)), 3.4), squeeze=False)
    # No panel still draws one empty axis, so the axes may outnumber the panels.
    for ax, (axis, pair) in zip(axes[0], panels, strict=False):
        part = paraphrased[(paraphrased["axis"] == axis) & (paraphrased["pair"] == pair)]
        shares = part.pivot_table(index="k", columns="paraphraser", values="multiplicity", aggfunc="sum", fill_value=0)
        if len(shares):
            shares = shares.div(shares.sum(axis=1), axis=0)
            shares.plot.bar(stacked=True, ax=ax, width=0.7, legend=ax is axes[0][0])
        ax.set_title(f"{pair} ({axis})", fontsize=10)
        ax.set_xlabel("prompt sets in the combination (k)")
        ax.set_ylabel("share of paraphrased sets")
        ax.set_ylim(0, 1)
    fig.tight_layout()
    save_png(fig, path)


def plot_scorer_bias(own: pd.DataFrame, models: pd.DataFrame, path: str | Path) -> None:
    """The scorer's own bias per subgroup, and each model's Eq. 1 on raw against neutral scores (§5.5).

    Left: C_g with its 95% interval over prompts (a bar above zero: the scorer rates the same
    content higher when it names g). Right: per model and metric, the raw bias with its
    interval and the neutral one beside it; a model marked * is one whose scorer's part (raw −
    neutral) the paired test finds (``scorer_part_p`` < 0.05): bias the scorer made.
    """
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    x = np.arange(len(own))
    left.bar(
        x,
        own["scorer_bias"].fillna(0),
        color="tab:purple",
        alpha=0.8,
        yerr=_error_bars(own["scorer_bias"], own["scorer_bias_lo"], own["scorer_bias_hi"]),
        capsize=3,
    )
    left.axhline(0, color="black", linewidth=0.8)
    left.set_xticks(x, own["subgroup"], rotation=45, ha="right", fontsize=8)
    left.set_ylabel("scorer's bias C_g (score units)")
    left.set_title("same content, group word swapped")
    rows = models.reset_index(drop=True)
    y = np.arange(len(rows))
    right.errorbar(
        rows["bias"],
        y,
        xerr=_error_bars(rows["bias"], rows["bias_lo"], rows["bias_hi"]),
        fmt="o",
        color="black",
        capsize=3,
        label="raw scores",
    )
    right.scatter(rows["bias_neutral"], y, marker="x", color="tab:orange", zorder=3, label="neutral placeholder")
    marks = np.where(rows["scorer_part_p"] < SCORER_PART_ALPHA, " *", "")
    right.set_yticks(
        y,
        [f"{m} · {metric}{mark}" for m, metric, mark in zip(rows["model"], rows["metric"], marks, strict=True)],
        fontsize=7,
    )
    right.set_xlabel("bias (Eq. 1, original prompts); * scorer's part p < 0.05")
    right.invert_yaxis()
    right.legend(fontsize=7, loc="best")
    right.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save_png(fig, path)


def plot_comparisons(
    table: pd.DataFrame,
    comparisons: pd.DataFrame,
    path: str | Path,
    split: str = "test",
    *,
    against_baseline: bool = False,
) -> None:
    """Per axis and metric on the held-out ``split``, original prompts: models by Eq. 1, which pairs differ in it.

    Left, each model's Eq. 1 with its bootstrap interval (the headline table's); right, every
    pair's paired difference (with ``against_baseline``, each model's against the baseline),
    coloured where Holm's adjusted swap p is at most 0.05 (docs/methods.md §1.16;
    :func:`biasflow.plotting.plot_separations`). A metric of several
    pairs has the same original prompts in each: the first pair's rows are drawn.
    """
    rows = table[(table["split"] == split) & (table["prompts"] == "original")]
    compared = comparisons[
        (comparisons["split"] == split) & (comparisons["prompts"] == "original") & (comparisons["measure"] == "eq1")
    ]
    panels = []
    for (axis, metric), part in rows.groupby(["axis", "metric"], sort=True):
        pair = sorted(part["pair"])[0]
        part = part[part["pair"] == pair]
        estimates = part.rename(columns={"bias": "estimate", "bias_lo": "low", "bias_hi": "high"})
        panels.append(
            (
                f"{axis} {metric}, {split} split, original prompts",
                estimates[["model", "estimate", "low", "high"]],
                compared[(compared["axis"] == axis) & (compared["pair"] == pair) & (compared["metric"] == metric)],
            )
        )
    plot_separations(panels, "Eq. 1 bias (left: less biased)", path, against_baseline=against_baseline)


def plot_variance(variance: pd.DataFrame, path: str | Path, split: str = "test") -> None:
    """Where each model's Eq. 1 would move, on the held-out ``split``: one stacked bar per model and metric.

    Each bar is the variance of the model's Eq. 1 split by source (docs/methods.md §1.17): a
    rewording of the prompts, another generation seed, another sample of prompts, other
    continuations of the same prompts. The longest part is where more data (or care) buys
    the most: more paraphrase sets, seeds, prompts or samples per prompt.
    """
    rows = variance[variance["split"] == split]
    panels = sorted(rows[["axis", "metric"]].drop_duplicates().itertuples(index=False, name=None))
    plot_components(
        [
            (
                f"{axis} {metric}, {split} split: variance of Eq. 1 by source",
                rows[(rows["axis"] == axis) & (rows["metric"] == metric)].sort_values("model"),
            )
            for axis, metric in panels
        ],
        "model",
        SOURCES,
        "variance of Eq. 1 (sd_total is its square root)",
        path,
    )
