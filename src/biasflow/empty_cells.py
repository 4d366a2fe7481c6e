"""Why a table's cells are empty: the `why_empty` column every table with optional numbers carries (docs/methods.md §9).

An empty interval or p-value reads as "not computed" to a program and as "no evidence" to a
person; neither is what happened. Each table that can leave a number empty says, per row,
which columns are empty and why, in the words of the setting or the data that caused it (a
setting at 0, a subgroup with one group key, draws that do not spread), so a reader never
has to guess whether a NaN is a bug.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

WHY_EMPTY = "why_empty"


@dataclass(frozen=True)
class Reason:
    """Words that explain why ``columns`` are empty in the rows ``where`` marks (True: every row)."""

    columns: Sequence[str]
    words: str
    where: np.ndarray | pd.Series | bool = True


def why_empty(table: pd.DataFrame, reasons: Sequence[Reason]) -> pd.Series:
    """Per row: "<columns>: <words>" for each reason that explains some of its empty cells, joined by "; ".

    Each empty cell takes the first reason (in ``reasons``' order) that names its column and
    marks its row, so a setting that empties everything is named before what the data would
    have emptied anyway. A row with no empty cell gets "". A cell empty with no reason that
    names it raises: the caller's list is incomplete, and a table must not leave it unsaid.
    """
    marks = [
        np.broadcast_to(
            reason.where.fillna(False).to_numpy(dtype=bool)  # a comparison with a missing count marks nothing
            if isinstance(reason.where, pd.Series)
            else np.asarray(reason.where, dtype=bool),
            len(table),
        )
        for reason in reasons
    ]
    columns = list(dict.fromkeys(c for reason in reasons for c in reason.columns))
    # Per column, the index of the reason each row's empty cell takes (-1: not empty, or none yet), column by column
    # and reason by reason, so a table of many rows (every pair of a leaderboard) costs a few array operations.
    taken = np.full((len(table), len(columns)), -1)
    for j, column in enumerate(columns):
        empty = table[column].isna().to_numpy()
        for k, (reason, mark) in enumerate(zip(reasons, marks, strict=True)):
            if column in reason.columns:
                taken[empty & mark & (taken[:, j] < 0), j] = k
        unsaid = np.flatnonzero(empty & (taken[:, j] < 0))
        if len(unsaid):
            raise ValueError(f"{column} is empty in row {unsaid[0]} with no reason given")
    patterns, row_pattern = np.unique(taken, axis=0, return_inverse=True)
    words = [_said(pattern, columns, reasons) for pattern in patterns]
    return pd.Series([words[i] for i in row_pattern.ravel()], index=table.index, dtype=object)


def _said(pattern: np.ndarray, columns: list[str], reasons: Sequence[Reason]) -> str:
    """One row's words: its empty columns grouped by the reason each took, in the order the columns come."""
    said: dict[str, list[str]] = {}
    for column, k in zip(columns, pattern, strict=True):
        if k >= 0:
            said.setdefault(reasons[k].words, []).append(column)
    return "; ".join(f"{', '.join(named)}: {words}" for words, named in said.items())
