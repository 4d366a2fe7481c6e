"""The why_empty column: each empty cell's first reason, said once per row (biasflow.empty_cells)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasflow.empty_cells import Reason, why_empty


def test_each_empty_cell_takes_the_first_reason_that_marks_its_row_and_names_its_column():
    table = pd.DataFrame(
        {"lo": [0.1, np.nan, np.nan, np.nan], "hi": [0.2, np.nan, np.nan, 0.3], "p": [0.5, np.nan, 0.4, np.nan]}
    )
    reasons = [
        Reason(["lo", "hi", "p"], "setting off", np.array([False, True, False, False])),
        Reason(["p"], "no swaps", pd.Series([False, False, False, True])),
        Reason(["lo", "hi"], "no spread"),
    ]
    assert why_empty(table, reasons).tolist() == [
        "",
        "lo, hi, p: setting off",
        "lo, hi: no spread",
        "lo: no spread; p: no swaps",
    ]


def test_a_missing_count_marks_nothing_and_an_unexplained_empty_cell_raises():
    table = pd.DataFrame({"lo": [np.nan, np.nan], "n": pd.array([1, pd.NA], dtype="Int64")})
    assert why_empty(table, [Reason(["lo"], "one cluster", table["n"] < 2), Reason(["lo"], "else")]).tolist() == [
        "lo: one cluster",
        "lo: else",
    ]
    with pytest.raises(ValueError, match="lo is empty in row 1 with no reason given"):
        why_empty(table, [Reason(["lo"], "one cluster", table["n"] < 2)])
