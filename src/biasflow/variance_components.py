"""Variance components: one number's variance split by source, the way every method reports it (docs/methods.md §8).

Each method estimates the variance each source of variation contributes to one of its
numbers (CAIRO's Eq. 1, §1.17; an FPR gap, §3.9; FairPair's excess R, §2.10); this module
turns those estimates into the columns every variance table shares, and draws them. An
estimate is a difference of variances and can fall below 0 by chance, so each is clipped
at 0; an unknown one (a source the data cannot show, such as a seed where there is one)
stays NaN and counts in neither the total nor the shares.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from biasflow.plotting import pyplot, save_png

# One colour per position of a source in its method's list (at most four sources so far).
COLOURS = ("tab:purple", "tab:orange", "tab:blue", "tab:gray")


def component_columns(sources: Sequence[str]) -> list[str]:
    """``sd_total``, then ``sd_<source>`` and ``share_<source>`` for each source, in order."""
    return ["sd_total", *(f"sd_{s}" for s in sources), *(f"share_{s}" for s in sources)]


def split_columns(parts: dict[str, float]) -> dict[str, float]:
    """The columns of :func:`component_columns` from each source's variance (NaN: unknown).

    Each variance is clipped at 0; ``sd_total`` is the root of the known ones' sum,
    ``sd_<source>`` each one's root and ``share_<source>`` its part of the sum (NaN with
    nothing known, or a sum of 0).
    """
    kept = {name: max(float(value), 0.0) if math.isfinite(value) else math.nan for name, value in parts.items()}
    total = sum(value for value in kept.values() if math.isfinite(value))
    return {
        "sd_total": math.sqrt(total),
        **{f"sd_{name}": math.sqrt(value) for name, value in kept.items()},
        **{f"share_{name}": value / total if total > 0 else math.nan for name, value in kept.items()},
    }


def plot_components(
    panels: list[tuple[str, pd.DataFrame]], label: str, sources: Sequence[str], xlabel: str, path: str | Path
) -> None:
    """One panel per (title, rows): a stacked bar per row (named by its ``label`` column), one part per source.

    Each part is the source's variance (``sd_<source>`` squared); an unknown one draws nothing.
    """
    plt = pyplot()
    bars = max([1, *(len(rows) for _, rows in panels)])
    fig, axes = plt.subplots(len(panels) or 1, 1, figsize=(7, 1.2 + 0.45 * bars * max(1, len(panels))), squeeze=False)
    # No panel still draws one empty axis, so the axes may outnumber the panels.
    for ax, (title, rows) in zip(axes[:, 0], panels, strict=False):
        left = np.zeros(len(rows))
        for source, colour in zip(sources, COLOURS, strict=False):  # the palette's first len(sources) colours
            width = np.nan_to_num(rows[f"sd_{source}"].to_numpy(dtype=float) ** 2)
            ax.barh(rows[label].astype(str), width, left=left, color=colour, label=source)
            left += width
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.tick_params(labelsize=7)
    if panels:
        axes[0][0].legend(fontsize=7, loc="best")
    fig.tight_layout()
    save_png(fig, path)
