"""The comparison view every method draws (docs/methods.md §1.16, §2.9, §3.8, §7): a hand-worked separation matrix,
the counts that replace it above 30 models, and the view against a baseline."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PIL import Image

from biasflow.plotting import (
    SEPARATED_HIGHER,
    SEPARATED_LOWER,
    UNSEPARATED,
    baseline_cells,
    plot_separations,
    separation_cells,
    separation_counts,
)

PAIRS = pd.DataFrame(
    {
        "model_a": ["a", "a", "b"],
        "model_b": ["b", "c", "c"],
        "difference": [-0.02, -0.05, -0.03],
        "p_holm": [0.3, 0.01, np.nan],
    }
)


def test_each_cell_is_the_row_models_bias_less_the_columns_starred_where_holm_separates():
    colours, labels = separation_cells(["a", "b", "c"], PAIRS)
    assert labels.tolist() == [["", "-0.020", "-0.050*"], ["+0.020", "", "-0.030"], ["+0.050*", "+0.030", ""]]
    assert tuple(colours[0, 2]) == SEPARATED_LOWER and tuple(colours[2, 0]) == SEPARATED_HIGHER
    assert tuple(colours[0, 1]) == UNSEPARATED == tuple(colours[1, 2]), "p 0.3, and a pair without a test"
    assert (colours[np.diag_indices(3)] == 1).all()


def test_a_pair_of_a_model_not_drawn_is_left_out():
    _, labels = separation_cells(["a", "b"], PAIRS)
    assert labels.tolist() == [["", "-0.020"], ["+0.020", ""]]


def test_the_figure_is_written_with_models_without_an_interval(tmp_path):
    estimates = pd.DataFrame(
        {
            "model": ["a", "b", "c"],
            "estimate": [0.1, 0.12, 0.15],
            "low": [0.05, np.nan, 0.1],
            "high": [0.15, np.nan, 0.2],
        }
    )
    path = tmp_path / "comparisons.png"
    plot_separations([("one", estimates, PAIRS), ("two", estimates.iloc[:2], PAIRS.iloc[:1])], "bias", path)
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_above_the_matrix_size_each_model_gets_its_counts_worked_by_hand():
    """The summary view (docs/methods.md §7) on PAIRS with a fourth model d that no row compares.

    a: less biased than c (p_holm 0.01, difference −0.05), not separated from b (0.3), d untested;
    b: not separated from a (0.3) nor from c (no p: untested pairs count as not separated), d untested;
    c: more biased than a, not separated from b, d untested; d: three untested.
    """
    counts = separation_counts(["a", "b", "c", "d"], PAIRS)
    assert list(counts.index) == ["a", "b", "c", "d"]
    assert counts.to_dict("index") == {
        "a": {"lower": 1, "unseparated": 1, "higher": 0, "untested": 1},
        "b": {"lower": 0, "unseparated": 2, "higher": 0, "untested": 1},
        "c": {"lower": 0, "unseparated": 1, "higher": 1, "untested": 1},
        "d": {"lower": 0, "unseparated": 0, "higher": 0, "untested": 3},
    }


def test_against_a_baseline_each_candidate_shows_its_difference_from_it():
    """Rows read candidate − baseline: a is 0.02 below b, not separated; c 0.05 above, separated; b the baseline."""
    rows = pd.DataFrame(
        {
            "model_a": ["a", "c"],
            "model_b": ["b", "b"],
            "difference": [-0.02, 0.05],
            "difference_lo": [-0.04, 0.01],
            "difference_hi": [0.01, 0.09],
            "p_holm": [0.3, 0.01],
        }
    )
    cells = baseline_cells(["c", "b", "a", "d"], rows)
    assert list(cells.index) == ["c", "b", "a", "d"]
    assert cells.loc["c", ["baseline", "difference", "low", "high", "separated"]].tolist() == [
        "b",
        0.05,
        0.01,
        0.09,
        True,
    ]
    assert cells.loc["c", "colour"] == SEPARATED_HIGHER and cells.loc["a", "colour"] == UNSEPARATED
    assert cells.loc["a", ["difference", "separated"]].tolist() == [-0.02, False]
    assert cells.loc["b", "baseline"] == "" and np.isnan(cells.loc["b", "difference"]), "the baseline's own row"
    assert pd.isna(cells.loc["d", "baseline"]), "a model in no row"


def leaderboard(n: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``n`` models' estimates and every pair's row, the differences those of the estimates."""
    rng = np.random.default_rng(seed)
    names = [f"model{i:03d}" for i in range(n)]
    estimate = rng.normal(0, 1, n)
    estimates = pd.DataFrame({"model": names, "estimate": estimate, "low": estimate - 0.5, "high": estimate + 0.5})
    a, b = np.triu_indices(n, 1)
    pairs = pd.DataFrame(
        {
            "model_a": np.array(names)[a],
            "model_b": np.array(names)[b],
            "difference": estimate[a] - estimate[b],
            "difference_lo": estimate[a] - estimate[b] - 0.3,
            "difference_hi": estimate[a] - estimate[b] + 0.3,
            "p_holm": np.where(np.abs(estimate[a] - estimate[b]) > 1, 0.001, 0.5),
        }
    )
    return estimates, pairs


def test_a_leaderboard_gets_the_counts_and_a_figure_a_reader_can_scroll(tmp_path):
    """40 models, past the 30 a matrix of labels is drawn for: the counts add up to the other models, and agree with
    the matrix; the figure grows by a compact row per model (at 200 models, 28 in tall where a matrix would be
    146 in wide)."""
    estimates, pairs = leaderboard(40)
    path = tmp_path / "comparisons.png"
    plot_separations([("leaderboard", estimates, pairs)], "bias", path)
    width, height = Image.open(path).size
    assert (width, height) == (1440, 864), "12 in wide, 1.4 in + 0.13 in per model + 0.6 in tall, at 120 dpi"
    names = list(estimates["model"])
    counts = separation_counts(names, pairs)
    assert (counts.sum(axis=1) == 39).all()
    colours, _ = separation_cells(names, pairs)
    for i, name in enumerate(names):
        row = [tuple(colour) for j, colour in enumerate(colours[i]) if j != i]
        assert counts.loc[name, "lower"] == row.count(SEPARATED_LOWER)
        assert counts.loc[name, "higher"] == row.count(SEPARATED_HIGHER)


def test_a_baseline_figure_is_written_at_any_size(tmp_path):
    estimates, pairs = leaderboard(60, seed=1)
    against = pairs[pairs["model_b"] == "model059"]
    for size in (5, 60):
        path = tmp_path / f"baseline{size}.png"
        plot_separations([("against model059", estimates.tail(size), against)], "bias", path, against_baseline=True)
        assert path.read_bytes()[:4] == b"\x89PNG"
