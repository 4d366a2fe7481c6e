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
# The same three as points and bars (a point needs more ink than a cell).
POINTS = {SEPARATED_LOWER: (0.12, 0.47, 0.71), SEPARATED_HIGHER: (0.85, 0.37, 0.01), UNSEPARATED: (0.5, 0.5, 0.5)}
# Up to this many models a panel draws the matrix of every pair; above it, each model's counts (docs/methods.md §7).
MATRIX_MAX = 30
# The columns of :func:`separation_counts`.
COUNTS = ("lower", "unseparated", "higher", "untested")
# The height of one model's row, in inches, where the counts or a baseline view have more than MATRIX_MAX models.
COMPACT_ROW = 0.13


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


def plot_separations(
    panels: list[tuple[str, pd.DataFrame, pd.DataFrame]],
    xlabel: str,
    path: str | Path,
    *,
    against_baseline: bool = False,
) -> None:
    """Models ordered by bias with their intervals and, beside them, which pairs the corrected paired tests separate.

    One row per panel ``(title, estimates, pairs)``: ``estimates`` has ``model``,
    ``estimate``, ``low``, ``high`` (NaN bounds: no bar), ``pairs`` the comparison rows
    ``model_a``, ``model_b``, ``difference`` (a − b), ``difference_lo``, ``difference_hi`` and
    ``p_holm``. Left, the models from least to most biased; right, in the same order, one of
    three views, each coloured where Holm's adjusted paired p is at most 0.05 (blue: less
    biased; orange: more), gray where the tests do not separate, so "A ranks above B" is read
    from the test and never from two overlapping bars (docs/methods.md §1.16, §2.9, §3.8, §7):

    - every pair, up to :data:`MATRIX_MAX` models: the matrix of pairs, each cell the row
      model's bias less the column model's (:func:`separation_cells`);
    - every pair, more models: per model, how many models the tests separate it from as less
      and as more biased, and how many they do not (:func:`separation_counts`), since a
      matrix of 200 × 200 cells cannot be read;
    - ``against_baseline``: per candidate, its difference from its baseline with the paired
      interval (:func:`baseline_cells`); the baseline's own row says so.
    """
    plt = pyplot()
    size = max(2, max((len(estimates) for _, estimates, _ in panels), default=2))
    if size <= MATRIX_MAX and not against_baseline:
        width, height, ticks = 6 + 0.7 * size, 1.2 + 0.45 * size, 8
    else:
        width, height, ticks = (
            12,
            1.4 + (0.45 if size <= MATRIX_MAX else COMPACT_ROW) * size,
            (8 if size <= MATRIX_MAX else 5),
        )
    fig, axes = plt.subplots(
        len(panels),
        2,
        figsize=(width, height * len(panels) + 0.6),
        squeeze=False,
        gridspec_kw={"width_ratios": [1, 1.2]},
    )
    for (title, estimates, pairs), (forest, right) in zip(panels, axes, strict=True):
        ordered = estimates.sort_values(["estimate", "model"]).reset_index(drop=True)
        models = list(ordered["model"])
        y = np.arange(len(models))
        bars = [(ordered["estimate"] - ordered["low"]).fillna(0), (ordered["high"] - ordered["estimate"]).fillna(0)]
        forest.errorbar(
            ordered["estimate"],
            y,
            xerr=bars,
            fmt="o",
            capsize=3 if ticks == 8 else 1,
            markersize=6 if ticks == 8 else 2,
        )
        forest.set_yticks(y, models, fontsize=ticks)
        if size > MATRIX_MAX or against_baseline:  # rows level with the view beside it
            forest.set_ylim(len(models) - 0.5, -0.5)
        else:
            forest.invert_yaxis()
        forest.set_xlabel(xlabel, fontsize=8)
        forest.set_title(title, fontsize=9)
        forest.grid(axis="x", alpha=0.3)
        if against_baseline:
            _draw_baseline(right, models, pairs, ticks)
        elif len(models) <= MATRIX_MAX:
            colours, labels = separation_cells(models, pairs)
            for (i, j), label in np.ndenumerate(labels):
                right.text(j, i, label, ha="center", va="center", fontsize=7)
            right.imshow(colours, aspect="auto")
            right.set_xticks(y, models, rotation=45, ha="right", fontsize=7)
            right.set_yticks(y, models, fontsize=7)
            right.set_title("row − column; * and colour: Holm p ≤ 0.05", fontsize=8)
        else:
            _draw_counts(right, models, pairs, ticks)
    fig.tight_layout()
    save_png(fig, path)


def _draw_counts(axis, models: list[str], pairs: pd.DataFrame, ticks: int) -> None:
    """The summary view: one stacked bar per model of :func:`separation_counts`, in the forest's order."""
    counts = separation_counts(models, pairs)
    y = np.arange(len(models))
    left = np.zeros(len(models))
    for column, colour in (("lower", SEPARATED_LOWER), ("unseparated", UNSEPARATED), ("higher", SEPARATED_HIGHER)):
        axis.barh(y, counts[column], left=left, color=colour, height=0.85)
        left += counts[column].to_numpy()
    axis.set_yticks(y, models, fontsize=ticks)
    axis.set_ylim(len(models) - 0.5, -0.5)
    axis.set_xlim(0, max(1, len(models) - 1))
    axis.set_xlabel(f"of the other {len(models) - 1} models, how many the paired tests separate it from", fontsize=8)
    axis.set_title(
        "models each is separated from (Holm p ≤ 0.05): blue as less biased, orange as more biased; "
        "gray: not separated",
        fontsize=8,
    )


def _draw_baseline(axis, models: list[str], pairs: pd.DataFrame, ticks: int) -> None:
    """The baseline view: each candidate's difference from its baseline, paired interval, in the forest's order."""
    cells = baseline_cells(models, pairs)
    y = np.arange(len(models))
    for i in np.flatnonzero((cells["baseline"] == "").to_numpy()):
        axis.text(0, i, "baseline", ha="center", va="center", fontsize=max(ticks - 1, 5), style="italic")
    for colour, point in POINTS.items():  # one call per colour: a call per model is slow at hundreds
        shown = np.flatnonzero(
            (cells["colour"] == colour).to_numpy() & np.isfinite(cells["difference"].to_numpy(dtype=np.float64))
        )
        if not len(shown):
            continue
        part = cells.iloc[shown]
        bars = [
            (part["difference"] - part["low"]).clip(lower=0).fillna(0),
            (part["high"] - part["difference"]).clip(lower=0).fillna(0),
        ]
        axis.errorbar(
            part["difference"],
            shown,
            xerr=bars,
            fmt="o",
            color=point,
            capsize=3 if ticks == 8 else 1,
            markersize=6 if ticks == 8 else 2,
        )
    axis.axvline(0, color="black", linewidth=0.8)
    axis.set_yticks(y, models, fontsize=ticks)
    axis.set_ylim(len(models) - 0.5, -0.5)
    axis.grid(axis="x", alpha=0.3)
    axis.set_xlabel("candidate − baseline (left: less biased than the baseline)", fontsize=8)
    axis.set_title("against the baseline; blue/orange: Holm p ≤ 0.05", fontsize=8)


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


def separation_counts(models: list[str], pairs: pd.DataFrame) -> pd.DataFrame:
    """The summary view of :func:`plot_separations`: per model, how many others the paired tests separate it from.

    One row per model (the index, in ``models``' order): ``lower``, the models it is separated
    from as less biased (its bias less theirs, Holm's adjusted p at most 0.05); ``higher``, as
    more biased; ``unseparated``, compared without being separated (p above 0.05, or no p);
    ``untested``, no comparison row with it. The four add up to len(models) − 1: a model's
    counts are its row of the separation matrix (:func:`separation_cells`) counted by colour.
    """
    counts = {model: dict.fromkeys(COUNTS, 0) for model in models}
    for row in pairs.drop_duplicates(["model_a", "model_b"]).itertuples(index=False):
        if row.model_a not in counts or row.model_b not in counts or row.model_a == row.model_b:
            continue
        separated = bool(np.isfinite(row.p_holm) and row.p_holm <= 0.05)
        for first, sign in ((row.model_a, 1), (row.model_b, -1)):
            counts[first]["unseparated" if not separated else "lower" if sign * row.difference < 0 else "higher"] += 1
    for tally in counts.values():
        tally["untested"] = len(models) - 1 - sum(tally.values())
    return pd.DataFrame.from_dict(counts, orient="index", columns=list(COUNTS)).rename_axis("model")


def baseline_cells(models: list[str], pairs: pd.DataFrame) -> pd.DataFrame:
    """The baseline view of :func:`plot_separations`: per model (index, in ``models``' order) its comparison row.

    Rows against a baseline read candidate − baseline (``model_a`` the candidate, ``model_b``
    the baseline, :mod:`biasflow.model_pairs`). A candidate gets ``baseline`` (whom it is
    compared with), ``difference``, ``low``, ``high`` (the paired interval), ``separated``
    (Holm's adjusted p at most 0.05) and ``colour`` (:data:`SEPARATED_LOWER` where it is
    separated as less biased, :data:`SEPARATED_HIGHER` as more, else :data:`UNSEPARATED`); a
    baseline gets ``baseline`` "" and NaN numbers, and a model in no row None.
    """
    rows = pairs[pairs["model_a"].isin(models)].drop_duplicates("model_a").set_index("model_a")
    bases = set(pairs["model_b"]) - set(rows.index)
    cells = []
    for model in models:
        if model in rows.index:
            row = rows.loc[model]
            separated = bool(np.isfinite(row["p_holm"]) and row["p_holm"] <= 0.05)
            colour = (SEPARATED_LOWER if row["difference"] < 0 else SEPARATED_HIGHER) if separated else UNSEPARATED
            cells.append(
                {
                    "baseline": row["model_b"],
                    "difference": float(row["difference"]),
                    "low": float(row["difference_lo"]),
                    "high": float(row["difference_hi"]),
                    "separated": separated,
                    "colour": colour,
                }
            )
        else:
            cells.append(
                {
                    "baseline": "" if model in bases else None,
                    "difference": np.nan,
                    "low": np.nan,
                    "high": np.nan,
                    "separated": False,
                    "colour": None,
                }
            )
    return pd.DataFrame(cells, index=pd.Index(models, name="model"))
