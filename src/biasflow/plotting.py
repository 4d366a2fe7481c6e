"""Shared plotting: matplotlib's non-interactive backend and atomic PNG writes.

Each method draws its own figures (``cairo/plots.py``, ``fairpair/plots.py``,
``fpr/plots.py``), PNGs written beside the tables they show.
"""

from __future__ import annotations

from pathlib import Path

from biasflow.tables import atomic_path


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
