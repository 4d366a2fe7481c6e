"""Shared plotting: matplotlib's non-interactive backend and atomic PNG writes.

Each method draws its own figures (``cairo/plots.py``, ``fairpair/plots.py``,
``fpr/plots.py``), PNGs written beside the tables they show; the view of paired comparisons
every method shares is drawn here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.tables import atomic_path

# The separation matrix's colours: the row model separated as less biased, as more biased, not separated.
SEPARATED_LOWER, SEPARATED_HIGHER, UNSEPARATED = (0.62, 0.79, 0.95), (0.98, 0.75, 0.55), (0.9, 0.9, 0.9)


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_png(fig, path: str | Path) -> None:
    """Write ``fig`` to ``path`` as a PNG atomically and close it."""
    plt = pyplot()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=120, format="png")
    plt.close(fig)


def plot_separations(panels: list[tuple[str, pd.DataFrame, pd.DataFrame]], xlabel: str, path: str | Path) -> None:
    """Models ordered by bias with their intervals and, beside them, which pairs the corrected paired tests separate.

    One row per panel ``(title, estimates, pairs)``: ``estimates`` has ``model``,
    ``estimate``, ``low``, ``high`` (NaN bounds: no bar), ``pairs`` the comparison rows
    ``model_a``, ``model_b``, ``difference`` (a − b) and ``p_holm``. Left, the models from
    least to most biased; right, the matrix of pairs in the same order, each cell the row
    model's bias less the column model's, coloured where Holm's adjusted paired p is at most
    0.05 (blue: the row model is less biased; orange: more), gray where the tests do not
    separate the two, so "A ranks above B" is read from the test and never from two
    overlapping bars (docs/methods.md §1.16, §2.9, §3.8).
    """
    plt = pyplot()
    size = max(2, max((len(estimates) for _, estimates, _ in panels), default=2))
    fig, axes = plt.subplots(len(panels), 2, figsize=(6 + 0.7 * size, (1.2 + 0.45 * size) * len(panels) + 0.6),
                             squeeze=False, gridspec_kw={"width_ratios": [1, 1.2]})
    for (title, estimates, pairs), (forest, matrix) in zip(panels, axes):
        ordered = estimates.sort_values(["estimate", "model"]).reset_index(drop=True)
        models = list(ordered["model"])
        y = np.arange(len(models))
        bars = [(ordered["estimate"] - ordered["low"]).fillna(0), (ordered["high"] - ordered["estimate"]).fillna(0)]
        forest.errorbar(ordered["estimate"], y, xerr=bars, fmt="o", capsize=3)
        forest.set_yticks(y, models, fontsize=8)
        forest.invert_yaxis()
        forest.set_xlabel(xlabel, fontsize=8)
        forest.set_title(title, fontsize=9)
        forest.grid(axis="x", alpha=0.3)
        colours, labels = separation_cells(models, pairs)
        for (i, j), label in np.ndenumerate(labels):
            matrix.text(j, i, label, ha="center", va="center", fontsize=7)
        matrix.imshow(colours, aspect="auto")
        matrix.set_xticks(y, models, rotation=45, ha="right", fontsize=7)
        matrix.set_yticks(y, models, fontsize=7)
        matrix.set_title("row − column; * and colour: Holm p ≤ 0.05", fontsize=8)
    fig.tight_layout()
    save_png(fig, path)


def separation_cells(models: list[str], pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The separation matrix of :func:`plot_separations`: (models × models × RGB colours, models × models labels).

    Cell (i, j) holds model i's bias less model j's, starred and coloured
    (:data:`SEPARATED_LOWER`, :data:`SEPARATED_HIGHER`) where Holm's adjusted p of the pair is
    at most 0.05, else :data:`UNSEPARATED`; the diagonal, and a pair without a row, are white
    and blank.
    """
    colours = np.ones((len(models), len(models), 3))
    labels = np.full((len(models), len(models)), "", dtype=object)
    for row in pairs.itertuples(index=False):
        if row.model_a not in models or row.model_b not in models:
            continue
        separated = bool(np.isfinite(row.p_holm) and row.p_holm <= 0.05)
        for first, second, sign in ((row.model_a, row.model_b, 1), (row.model_b, row.model_a, -1)):
            i, j = models.index(first), models.index(second)
            difference = sign * row.difference
            colours[i, j] = (SEPARATED_LOWER if difference < 0 else SEPARATED_HIGHER) if separated else UNSEPARATED
            labels[i, j] = f"{difference:+.3f}" + ("*" if separated else "")
    return colours, labels
