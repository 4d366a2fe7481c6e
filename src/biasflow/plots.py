"""Figures written beside the tables they show (PNG, matplotlib's non-interactive backend)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from biasflow.tables import atomic_path


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
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=120, format="png")
    plt.close(fig)
