"""The FPR-gap figures: a forest plot of each group's gap with its interval."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.plotting import pyplot, save_png


def plot_gaps(gaps: pd.DataFrame, path: str | Path) -> None:
    """Forest plot of FPR gaps with their CIs: one panel per class, one row per group and model."""
    plt = pyplot()
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
    save_png(fig, path)
