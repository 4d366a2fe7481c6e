"""Figures written beside the tables they show (PNG, matplotlib's non-interactive backend)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.fairpair import SIDES
from biasflow.tables import atomic_path, require_columns


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_bias(bias: pd.DataFrame, path: str | Path) -> None:
    """Eq. 1 bias of every model under each metric: one panel per metric, one marker per prompt set.

    Original prompts are drawn as large black markers, paraphrase sets as small coloured
    ones, so the spread that paraphrasing alone causes (paper 000, Figure 2) is visible.
    Both splits are pooled in the mean of the two split values.
    """
    plt = _pyplot()
    metrics = sorted(bias["metric"].unique())
    models = sorted(bias["model"].unique())
    mean = bias.groupby(["metric", "model", "promptset"], as_index=False)["bias"].mean()
    fig, axes = plt.subplots(1, len(metrics), figsize=(4 * len(metrics), 3.5), squeeze=False, sharey=False)
    for ax, metric in zip(axes[0], metrics):
        rows = mean[mean["metric"] == metric]
        for promptset, part in rows.groupby("promptset"):
            x = [models.index(m) for m in part["model"]]
            original = promptset == "original"
            ax.scatter(
                x, part["bias"], s=60 if original else 18, marker="D" if original else "o",
                color="black" if original else None, label=promptset, zorder=3 if original else 2, alpha=0.9,
            )
        ax.set_title(metric)
        ax.set_xticks(range(len(models)), models, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("bias (Eq. 1, lower is fairer)")
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", fontsize=7, title="prompt set")
    fig.tight_layout(rect=(0, 0, 0.85, 1))
    _save(fig, path)


def plot_curve(curve: pd.DataFrame, path: str | Path) -> None:
    """Correlation versus combination size (paper 000, Figure 6).

    Per metric pair: the best valid r found by CAIRO, the same combination's r on the
    held-out test split, and the mean r over all combinations of that size (the paper's
    "average" baseline). k = 1 is the original prompts alone.
    """
    plt = _pyplot()
    panels = list(curve.groupby(["axis", "pair"], sort=True))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, ((axis, pair), rows) in zip(axes[0], panels):
        rows = rows.sort_values("k")
        ax.plot(rows["k"], rows["best_r"], "o-", color="tab:blue", label="CAIRO (valid)")
        ax.plot(rows["k"], rows["test_r"], "s--", color="tab:green", label="CAIRO selection on test")
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
    _save(fig, path)


def plot_before_after(table: pd.DataFrame, path: str | Path, split: str = "test") -> None:
    """Each model's bias under the two metrics of a pair, original prompts vs CAIRO (Figures 10-11).

    One row of two panels per pair; points are models. Drawn on the held-out ``split`` so
    the picture shows whether the agreement found on the valid split carries over.
    """
    plt = _pyplot()
    rows = table[table["split"] == split]
    pairs = sorted(rows[["axis", "pair"]].drop_duplicates().itertuples(index=False, name=None))
    fig, axes = plt.subplots(len(pairs), 2, figsize=(8, 3.6 * len(pairs)), squeeze=False)
    for (axis, pair), panel_row in zip(pairs, axes):
        metric_x, metric_y = pair.split("~")
        for ax, prompts in zip(panel_row, ("original", "cairo")):
            part = rows[(rows["axis"] == axis) & (rows["pair"] == pair) & (rows["prompts"] == prompts)]
            wide = part.pivot_table(index="model", columns="metric", values="bias")
            ax.scatter(wide[metric_x], wide[metric_y], color="tab:blue" if prompts == "cairo" else "black")
            for model, point in wide.iterrows():
                ax.annotate(model, (point[metric_x], point[metric_y]), fontsize=7, xytext=(3, 3), textcoords="offset points")
            r = np.corrcoef(wide[metric_x], wide[metric_y])[0, 1] if len(wide) > 2 else float("nan")
            combination = part["combination"].iloc[0] if prompts == "cairo" and len(part) else "original"
            ax.set_title(f"{axis}, {prompts} prompts: r = {r:.2f}\n{combination}", fontsize=8)
            ax.set_xlabel(f"{metric_x} bias")
            ax.set_ylabel(f"{metric_y} bias")
            ax.grid(alpha=0.3)
    fig.tight_layout()
    _save(fig, path)


def plot_paraphraser_shares(choices: pd.DataFrame, path: str | Path) -> None:
    """Share of each paraphraser among the paraphrase sets of the best combinations (Figure 7).

    Prompt sets are named ``<paraphraser>-s<seed>``; ``original`` is left out (it is in
    every combination).
    """
    plt = _pyplot()
    paraphrased = choices[choices["promptset"] != "original"].copy()
    paraphrased["paraphraser"] = paraphrased["promptset"].str.rsplit("-s", n=1).str[0]
    panels = sorted(choices[["axis", "pair"]].drop_duplicates().itertuples(index=False, name=None))
    fig, axes = plt.subplots(1, max(1, len(panels)), figsize=(4.2 * max(1, len(panels)), 3.4), squeeze=False)
    for ax, (axis, pair) in zip(axes[0], panels):
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
    _save(fig, path)


def _save(fig, path) -> None:
    plt = _pyplot()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=120, format="png")
    plt.close(fig)


def plot_fairpair_summary(table: pd.DataFrame, path: str | Path) -> None:
    """Mean FairPair score per model with its 95% CI, one panel per scorer; F = 1 marked.

    F near 1 means the two sides differ no more than samples of one side differ among
    themselves (paper 001, section 2); F above 1 is bias beyond sampling variability.
    """
    plt = _pyplot()
    scorers = sorted(table["scorer"].unique())
    fig, axes = plt.subplots(1, len(scorers), figsize=(4.5 * len(scorers), 0.6 * table["model"].nunique() + 2),
                             squeeze=False)
    for ax, scorer in zip(axes[0], scorers):
        rows = table[table["scorer"] == scorer].sort_values("model")
        y = list(range(len(rows)))
        errors = [rows["mean_F"] - rows["F_ci_low"], rows["F_ci_high"] - rows["mean_F"]]
        ax.errorbar(rows["mean_F"], y, xerr=errors, fmt="o", capsize=3)
        ax.axvline(1.0, color="gray", ls="--", lw=1)
        ax.set_yticks(y, rows["model"])
        ax.set_xlabel("FairPair score F (1 = sampling variability)")
        ax.set_title(scorer)
    fig.tight_layout()
    _save(fig, path)


def plot_ngrams(ngrams: pd.DataFrame, path, title: str = "") -> None:
    """Figure 6 of the paper from :func:`differential_ngrams` output, as a PNG.

    Left panel: the n-grams over-represented in φ(G(x)) (``perturbed_original``); right
    panel: those over-represented in G(φ(x)) (``counterfactual``). Each n-gram gets a pair
    of horizontal bars, its frequency on both sides, sorted by the frequency on its own
    side, so a reader sees both how common a phrase is and how lopsided.
    """
    require_columns(ngrams, ["ngram", "freq_a", "freq_b", "side"], "n-gram table")
    plt = _pyplot()

    rows = max(1, *(int((ngrams["side"] == s).sum()) for s in SIDES))
    fig, axes = plt.subplots(1, 2, figsize=(11, 1.2 + 0.28 * rows), squeeze=False)
    labels = {SIDES[0]: "φ(G(x)): original prompt, perturbed after", SIDES[1]: "G(φ(x)): perturbed prompt"}
    for ax, side, own in zip(axes[0], SIDES, ("freq_a", "freq_b")):
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
    _save(fig, path)


def plot_fpr_gaps(gaps: pd.DataFrame, path: str | Path) -> None:
    """Forest plot of FPR gaps with their CIs: one panel per class, one row per group and model."""
    plt = _pyplot()
    rows = gaps.sort_values(["category", "group", "model"]).reset_index(drop=True)
    labels = [f"{r.group} · {r.model}" for r in rows.itertuples(index=False)]
    fig, axes = plt.subplots(1, 2, figsize=(10, 1.5 + 0.3 * len(rows)), squeeze=False, sharey=True)
    for ax, cls in zip(axes[0], ("negative", "positive")):
        y = np.arange(len(rows))
        ax.errorbar(rows[f"{cls}_FPR_gap"], y, xerr=rows[f"{cls}_FPR_gap_width"], fmt="o", capsize=3)
        ax.axvline(0, color="gray", ls="--", lw=1)
        ax.set_yticks(y, labels, fontsize=8)
        ax.set_xlabel(f"{cls} FPR gap (group − mean of groups)")
        ax.invert_yaxis()
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    _save(fig, path)
