"""Adjusted p-values for a family of tests, shared by every method's comparisons (docs/methods.md §1.16).

Holm's step-down adjustment controls the family-wise error rate; Benjamini and Hochberg's
step-up adjustment the false discovery rate. A NaN p (a test that could not be made) is
no member of the family: it stays NaN and does not count in m.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def holm(p: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values: p_(i) ↦ max_{j ≤ i} min(1, (m − j + 1) p_(j)) over the m defined ones."""
    p = np.asarray(p, dtype=np.float64)
    adjusted = np.full_like(p, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    m = len(order)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    return adjusted


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """BH-adjusted p-values: p_(i) ↦ min_{j ≥ i} min(1, m p_(j) / j) over the m defined ones."""
    p = np.asarray(p, dtype=np.float64)
    adjusted = np.full_like(p, np.nan)
    tested = np.flatnonzero(np.isfinite(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    m = len(order)
    scaled = m * p[order] / np.arange(1, m + 1)
    adjusted[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return adjusted


def adjust(table: pd.DataFrame, family: list[str]) -> pd.DataFrame:
    """``table`` with ``p_holm`` and ``p_bh``: its ``p`` adjusted within each family (the rows sharing ``family``'s
    values)."""
    table = table.copy()
    for column, method in (("p_holm", holm), ("p_bh", benjamini_hochberg)):
        table[column] = np.nan
        for _, members in table.groupby(family, sort=False):
            table.loc[members.index, column] = method(members["p"].to_numpy(dtype=np.float64))
    return table
