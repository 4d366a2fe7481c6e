"""The comparison view every method draws (docs/methods.md §1.16, §2.9, §3.8): a hand-worked separation matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd

from biasflow.plotting import SEPARATED_HIGHER, SEPARATED_LOWER, UNSEPARATED, plot_separations, separation_cells

PAIRS = pd.DataFrame({"model_a": ["a", "a", "b"], "model_b": ["b", "c", "c"], "difference": [-0.02, -0.05, -0.03],
                      "p_holm": [0.3, 0.01, np.nan]})


def test_each_cell_is_the_row_models_bias_less_the_columns_starred_where_holm_separates():
    colours, labels = separation_cells(["a", "b", "c"], PAIRS)
    assert labels.tolist() == [["", "-0.020", "-0.050*"], ["+0.020", "", "-0.030"], ["+0.050*", "+0.030", ""]]
    assert tuple(colours[0, 2]) == SEPARATED_LOWER and tuple(colours[2, 0]) == SEPARATED_HIGHER
    assert tuple(colours[0, 1]) == UNSEPARATED == tuple(colours[1, 2]), "p 0.3, and a pair without a test"
    assert (colours[np.diag_indices(3)] == 1).all()


def test_a_pair_of_a_model_not_drawn_is_left_out():
    colours, labels = separation_cells(["a", "b"], PAIRS)
    assert labels.tolist() == [["", "-0.020"], ["+0.020", ""]]


def test_the_figure_is_written_with_models_without_an_interval(tmp_path):
    estimates = pd.DataFrame({"model": ["a", "b", "c"], "estimate": [0.1, 0.12, 0.15], "low": [0.05, np.nan, 0.1],
                              "high": [0.15, np.nan, 0.2]})
    path = tmp_path / "comparisons.png"
    plot_separations([("one", estimates, PAIRS), ("two", estimates.iloc[:2], PAIRS.iloc[:1])], "bias", path)
    assert path.read_bytes()[:4] == b"\x89PNG"
