"""The FPR-gap figures: forest plots of each group's gap and markedness, and the gap spans."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.fpr.rates import CLASSES
from biasflow.fpr.variance import SOURCES
from biasflow.plotting import plot_separations, pyplot, save_png
from biasflow.variance_components import plot_components


def plot_gaps(gaps: pd.DataFrame, path: str | Path) -> None:
    """Forest plot of FPR gaps with both intervals: one panel per class, one row per group and model.

    Blue: over runs (t or z, §3.3); orange beneath: the cluster bootstrap over templates and runs.
    """
    _forest(gaps, "FPR_gap", "FPR gap (group − mean of groups)", path)


def plot_spans(spans: pd.DataFrame, path: str | Path) -> None:
    """Gap spans per classifier: one panel per class, one bar per probe set (and their mean), with the null's q95.

    A bar that ends left of its black tick is a span group labels that mean nothing reach.
    """
    plt = pyplot()
    table = spans.assign(label=spans["model"] + " · " + spans["category"])
    labels = sorted(table["label"].unique())
    probes = sorted(table["probe"].unique(), key=lambda p: (p == "(mean)", p))
    fig, axes = plt.subplots(
        1, 2, figsize=(10, 1.5 + 0.35 * len(labels) * max(1, len(probes)) / 2), squeeze=False, sharey=True
    )
    height = 0.8 / max(1, len(probes))
    for ax, cls in zip(axes[0], ("negative", "positive"), strict=True):
        for i, probe in enumerate(probes):
            rows = table[table["probe"] == probe].set_index("label").reindex(labels)
            ax.barh(np.arange(len(labels)) + i * height, rows[f"{cls}_span"], height=height, label=probe)
            if f"{cls}_span_null_q95" in rows:  # the span no group difference reaches 95% of the time (§3.4)
                ax.scatter(
                    rows[f"{cls}_span_null_q95"],
                    np.arange(len(labels)) + i * height,
                    marker="|",
                    s=120,
                    color="black",
                    zorder=3,
                    label="no-bias 95th percentile" if i == 0 else None,
                )
        ax.set_yticks(np.arange(len(labels)) + 0.4 - height / 2, labels, fontsize=8)
        ax.set_xlabel(f"{cls} FPR gap span (largest − smallest group gap)")
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].invert_yaxis()  # the panels share it: once puts the first label on top
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=len(probes) + 1, fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    save_png(fig, path)


def plot_markedness(markedness: pd.DataFrame, path: str | Path) -> None:
    """Forest plot of markedness (group FPR minus the FPR without the identity word) with its interval."""
    _forest(
        markedness,
        "markedness",
        "markedness (FPR with the identity word − without)",
        path,
        empty="no template has an unmarked variant",
    )


def plot_comparisons(
    gaps: pd.DataFrame, comparisons: pd.DataFrame, path: str | Path, *, against_baseline: bool = False
) -> None:
    """Per attribute and class: systems ordered by their gap span, and which pairs the paired tests separate.

    The span (largest mean gap less the smallest, docs/methods.md §3.4) has its null but no
    interval of its own, so the left panel shows the points; on the right every pair's
    difference of spans (with ``against_baseline``, each system's against its baseline),
    coloured where Holm's adjusted swap p is at most 0.05 (§3.8;
    :func:`biasflow.plotting.plot_separations`).
    """
    panels = []
    spans = comparisons[comparisons["measure"] == "span"]
    for category, part in gaps.groupby("category", sort=True):
        grouped = part.groupby("model")
        for name in CLASSES:
            column = grouped[f"{name}_FPR_gap"]
            estimates = (column.max() - column.min()).rename("estimate").reset_index().assign(low=np.nan, high=np.nan)
            panels.append(
                (
                    f"{category}, {name} FPR gap span",
                    estimates,
                    spans[(spans["category"] == category) & (spans["class"] == name)],
                )
            )
    plot_separations(panels, "gap span (left: groups treated more alike)", path, against_baseline=against_baseline)


def plot_variance(variance: pd.DataFrame, path: str | Path) -> None:
    """Where the gaps would move: per attribute and class, one stacked bar per probe set and system (§3.9).

    Each bar is the variance of a gap split into another probe set, other templates, other
    runs and other labels of the same sentences, each part averaged over the attribute's
    groups (the table has every group): the longest part is where more data buys the most.
    """
    parts = variance.assign(**{f"_{s}": variance[f"sd_{s}"] ** 2 for s in SOURCES})
    averaged = parts.groupby(["category", "class", "probe", "model"], sort=True)[[f"_{s}" for s in SOURCES]].mean()
    bars = (averaged**0.5).rename(columns={f"_{s}": f"sd_{s}" for s in SOURCES}).reset_index()
    bars["label"] = bars["probe"].astype(str) + " " + bars["model"].astype(str)
    panels = [
        (f"{category}, {name} FPR gaps: variance by source, averaged over groups", rows)
        for (category, name), rows in bars.groupby(["category", "class"], sort=True)
    ]
    plot_components(panels, "label", SOURCES, "variance of a gap (sd_total is its square root)", path)


def _forest(table: pd.DataFrame, value: str, label: str, path: str | Path, empty: str = "no rows") -> None:
    """Two panels (negative, positive class) of ``<class>_<value>`` ± ``<class>_<value>_width`` per group and model.

    A NaN width or bound (one run, runs that all agree, a bootstrap without spread: §3.3) draws
    the point without a bar, never a bar of zero length.
    """
    plt = pyplot()
    rows = table.sort_values(["category", "group", "model"]).reset_index(drop=True)
    labels = [f"{r.group} · {r.model}" for r in rows.itertuples(index=False)]
    fig, axes = plt.subplots(1, 2, figsize=(10, 1.5 + 0.3 * max(1, len(rows))), squeeze=False, sharey=True)
    for ax, cls in zip(axes[0], ("negative", "positive"), strict=True):
        y = np.arange(len(rows))
        if len(rows):
            ax.errorbar(
                rows[f"{cls}_{value}"], y, xerr=rows[f"{cls}_{value}_width"], fmt="o", capsize=3, label="over runs"
            )
            if f"{cls}_{value}_lo" in rows:  # the template bootstrap (docs/methods.md §3.3), below each point
                centre = rows[f"{cls}_{value}"]
                ax.errorbar(
                    centre,
                    y + 0.25,
                    fmt="none",
                    ecolor="tab:orange",
                    capsize=2,
                    xerr=np.vstack([centre - rows[f"{cls}_{value}_lo"], rows[f"{cls}_{value}_hi"] - centre]).clip(
                        min=0
                    ),
                    label="templates and runs resampled",
                )
        else:
            ax.text(0.5, 0.5, empty, ha="center", transform=ax.transAxes)
        ax.axvline(0, color="gray", ls="--", lw=1)
        ax.set_yticks(y, labels, fontsize=8)
        ax.set_xlabel(f"{cls} {label}")
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].invert_yaxis()  # the panels share it: once puts the first row on top
    if len(rows):
        axes[0][1].legend(fontsize=7, loc="lower right", title="95% interval", title_fontsize=7)
    fig.tight_layout()
    save_png(fig, path)
