"""CAIRO's paired comparisons of models against a slow loop over raw scored rows, with the same draws.

The bootstrap draws are read off as which clusters each subgroup holds and with what weight
(test_uncertainty.py's ``Reference``), the swap draws as which clusters trade the two
models' rows; Eq. 1 is recomputed from the rows with pandas, one draw at a time.
Simulations with a known truth are the calibration table's "paired" rows
(benchmarks/calibration/cairo.py).
docs/methods.md §1.16.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from biasflow.cairo import headline
from biasflow.cairo.comparisons import COMPARISON_COLUMNS, SWAP, comparison_table, swap_weights
from biasflow.cairo.selection import SearchSettings, select
from biasflow.cairo.stats import sufficient_stats
from biasflow.cairo.uncertainty import draw_rng
from biasflow.multiplicity import benjamini_hochberg, holm
from cairo.test_uncertainty import (
    MODELS, SUBGROUPS, Reference, combination_of, draw_rows, loop_eq1, scored_rows, template_rows,
)

# The pairs the loop recomputes (the loop is slow); every pair's row is checked for its shape.
LOOPED = [("m0", "m1"), ("m1", "m4")]


@pytest.fixture(scope="module", params=["nested", "crossed"])
def case(request):
    design = request.param
    scored = scored_rows(seed=3, design=design)
    stats = sufficient_stats(scored)
    settings = SearchSettings.defaults(mode="shared", max_sets=2, permutations=29, bootstrap=30, null_draws=12, seed=5)
    selection = select(stats, settings)
    table = comparison_table(stats, selection, settings)
    refs = {(metric, split): Reference(scored, stats, metric, split, settings, design)
            for metric in SUBGROUPS for split in ("valid", "test")}
    return table, refs, settings, headline.bias_table(stats, selection, settings)


def draw_of(ref: Reference, weights: np.ndarray) -> pd.DataFrame:
    """The rows one bootstrap draw stands for, as the reference's Eq. 1 gathers them."""
    if ref.design == "crossed" and weights.sum(axis=0).max() > 1:
        return template_rows(ref.rows, ref.clusters, weights)
    return draw_rows(ref.rows, ref.clusters, ref.subgroups, weights)


def swapped_rows(rows: pd.DataFrame, clusters, swap: np.ndarray, a: str, b: str) -> pd.DataFrame:
    """The rows with models a and b's labels traded in every cluster the draw swaps."""
    rows = rows.copy()
    for c in np.flatnonzero(swap):
        subgroup, key = clusters[c]
        here = (rows.subgroup == subgroup) & (rows.group_key == key) & rows.model.isin([a, b])
        rows.loc[here, "model"] = rows.loc[here, "model"].map({a: b, b: a})
    return rows


def test_differences_intervals_and_swap_p_match_the_row_loop(case):
    table, refs, settings, bias = case
    assert list(table.columns) == COMPARISON_COLUMNS
    assert len(table) == len(bias) // len(MODELS) * 10, "every pair of 5 models"
    assert (table.measure == "eq1").all()
    for (metric, split, prompts), part in table[table.pair == table.pair.iloc[0]].groupby(["metric", "split",
                                                                                          "prompts"]):
        ref = refs[metric, split]
        combination = ({"original": 1} if prompts == "original" else
                       combination_of(bias[(bias.metric == metric) & (bias.prompts == "cairo")].combination.iloc[0]))
        eq1 = pd.Series(ref.eq1(combination), index=MODELS)
        boot = np.array([loop_eq1(draw_of(ref, w), combination).to_numpy() for w in ref.boot])
        swaps = swap_weights(len(ref.clusters), settings.permutations, draw_rng(settings.seed, SWAP, metric, split))
        for a, b in LOOPED:
            i, j = MODELS.index(a), MODELS.index(b)
            swapped = np.array([(lambda e: e[a] - e[b])(loop_eq1(swapped_rows(ref.rows, ref.clusters, s, a, b),
                                                                 combination)) for s in swaps])
            row = part[(part.model_a == a) & (part.model_b == b)].iloc[0]
            difference = eq1[a] - eq1[b]
            assert row.difference == pytest.approx(difference, rel=1e-9, abs=1e-12)
            low, middle, high = np.percentile(boot[:, i] - boot[:, j], [2.5, 50, 97.5])
            assert row.difference_lo == pytest.approx(difference - ref.factor() * (middle - low), abs=1e-10)
            assert row.difference_hi == pytest.approx(difference + ref.factor() * (high - middle), abs=1e-10)
            assert row.difference_lo <= row.difference <= row.difference_hi
            reached = np.sum(np.abs(swapped) >= abs(difference) - 1e-12)
            assert row.p == pytest.approx((1 + reached) / (len(swaps) + 1))


def test_each_family_is_adjusted_by_holm_and_bh(case):
    table, *_ = case
    for _, family in table.groupby(["axis", "pair", "metric", "split", "prompts", "measure"]):
        assert len(family) == 10
        for column, method in (("p_holm", "holm"), ("p_bh", "fdr_bh")):
            np.testing.assert_allclose(family[column], multipletests(family.p, method=method)[1], atol=1e-12)


def test_swapping_two_identical_models_never_moves_their_difference():
    """Hand-worked: the same rows under two names differ by 0 under every swap: p = 1, a zero difference."""
    scored = scored_rows(seed=1)
    twin = scored[scored.model == "m0"].assign(model="m0-twin")
    stats = sufficient_stats(pd.concat([scored, twin], ignore_index=True))
    settings = SearchSettings.defaults(mode="shared", max_sets=2, permutations=19, bootstrap=20, null_draws=5, seed=1)
    table = comparison_table(stats, select(stats, settings), settings)
    twins = table[(table.model_a == "m0") & (table.model_b == "m0-twin")]
    assert len(twins) and (twins.p == 1).all() and (twins.difference.abs() < 1e-12).all()


@pytest.mark.parametrize("seed", range(5))
def test_holm_and_bh_match_statsmodels_with_untested_members_left_out(seed):
    rng = np.random.default_rng(seed)
    p = rng.random(12) ** 3
    p[rng.random(12) < 0.25] = np.nan
    tested = np.isfinite(p)
    for ours, method in ((holm, "holm"), (benjamini_hochberg, "fdr_bh")):
        adjusted = ours(p)
        assert np.isnan(adjusted[~tested]).all()
        np.testing.assert_allclose(adjusted[tested], multipletests(p[tested], method=method)[1], atol=1e-12)


def test_holm_by_hand():
    """m = 3: 0.01·3, max(0.03, 0.02·2), max(0.04, 0.04·1)."""
    np.testing.assert_allclose(holm(np.array([0.04, 0.01, 0.02])), [0.04, 0.03, 0.04])
    np.testing.assert_allclose(benjamini_hochberg(np.array([0.04, 0.01, 0.02])), [0.04, 0.03, 0.03])

