"""CAIRO's paired comparisons of models against a slow loop over raw scored rows, with the same draws.

The bootstrap draws are read off as which clusters each subgroup holds and with what weight
(test_uncertainty.py's ``Reference``), the swap draws as which clusters trade the two
models' rows, each model's scores centred on its mean first; Eq. 1 is recomputed from the
rows with pandas, one draw at a time.
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
from biasflow.cairo.compare import command, oriented, sentences
from biasflow.cairo.comparisons import COMPARISON_COLUMNS, FAMILY, SWAP, comparison_table, swap_weights
from biasflow.cairo.selection import SearchSettings, select
from biasflow.cairo.stats import sufficient_stats
from biasflow.cairo.uncertainty import draw_rng
from biasflow.errors import BiasflowError
from biasflow.multiplicity import benjamini_hochberg, holm
from cairo.test_uncertainty import (
    MODELS, SUBGROUPS, Reference, combination_of, draw_rows, loop_eq1, scored_rows, template_rows,
)
from biasflow.model_pairs import PairChoice
from baseline_rows import assert_baseline_rows_match
from compare_cli import assert_refused, compare

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


def centred(rows: pd.DataFrame, combination: dict[str, int]) -> pd.DataFrame:
    """Each model's scores less its mean per seed over the combination's rows (each set counted by its multiplicity)."""
    pooled = pd.concat([rows[rows.promptset == name] for name, mult in combination.items() for _ in range(mult)])
    mean = pooled.groupby(["model", "seed"]).score.mean()
    return rows.assign(score=rows.score - mean.reindex(pd.MultiIndex.from_frame(rows[["model", "seed"]])).to_numpy())


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
    assert len(table) == len(bias) // len(MODELS) * 10 * 2, "every pair of 5 models, eq1 and excess"
    assert set(table.measure) == {"eq1", "excess"}
    for (metric, split, prompts), part in table[table.pair == table.pair.iloc[0]].groupby(["metric", "split",
                                                                                          "prompts"]):
        ref = refs[metric, split]
        combination = ({"original": 1} if prompts == "original" else
                       combination_of(bias[(bias.metric == metric) & (bias.prompts == "cairo")].combination.iloc[0]))
        eq1 = pd.Series(ref.eq1(combination), index=MODELS)
        floor = pd.Series(ref.floor(combination), index=MODELS)
        boot = np.array([loop_eq1(draw_of(ref, w), combination).to_numpy() for w in ref.boot])
        swaps = swap_weights(len(ref.clusters), settings.permutations, draw_rng(settings.seed, SWAP, metric, split))
        for a, b in LOOPED:
            i, j = MODELS.index(a), MODELS.index(b)
            own = centred(ref.rows, combination)
            swapped = np.array([(lambda e: e[a] - e[b])(loop_eq1(swapped_rows(own, ref.clusters, s, a, b),
                                                                 combination)) for s in swaps])
            rows = part[(part.model_a == a) & (part.model_b == b)].set_index("measure")
            difference = eq1[a] - eq1[b]
            excess = difference - (floor[a] - floor[b])
            low, middle, high = np.percentile(boot[:, i] - boot[:, j], [2.5, 50, 97.5])
            for measure, value in (("eq1", difference), ("excess", excess)):
                row = rows.loc[measure]
                assert row.difference == pytest.approx(value, rel=1e-9, abs=1e-12)
                assert row.difference_lo == pytest.approx(value - ref.factor() * (middle - low), abs=1e-10)
                assert row.difference_hi == pytest.approx(value + ref.factor() * (high - middle), abs=1e-10)
                assert row.difference_lo <= row.difference <= row.difference_hi
            reached = np.sum(np.abs(swapped) >= abs(difference) - 1e-12)
            assert rows.loc["eq1", "p"] == pytest.approx((1 + reached) / (len(swaps) + 1))
            assert (rows.loc["excess", "p"] <= 0.05) == (rows.loc["excess", "difference_lo"] > 0
                                                          or rows.loc["excess", "difference_hi"] < 0)


def test_the_excess_difference_is_the_headline_excess_biases_difference(case):
    """The excess rows difference the headline's own excess_bias (the same null draws give both floors)."""
    table, _, _, bias = case
    excess = bias.set_index(["pair", "metric", "split", "prompts", "model"])["excess_bias"]
    rows = table[table.measure == "excess"]
    expected = [excess[r.pair, r.metric, r.split, r.prompts, r.model_a] - excess[r.pair, r.metric, r.split, r.prompts,
                                                                                   r.model_b]
                for r in rows.itertuples(index=False)]
    np.testing.assert_allclose(rows.difference, expected, atol=1e-12)


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
    assert set(twins.measure) == {"eq1", "excess"}
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



def test_the_pair_is_turned_to_read_candidate_minus_baseline():
    table = pd.DataFrame({"model_a": ["m0", "m0"], "model_b": ["m1", "m2"], "difference": [0.3, 0.1],
                          "difference_lo": [0.1, 0.0], "difference_hi": [0.4, 0.2], "p": [0.01, 0.5]})
    rows = oriented(table, baseline="m0", candidate="m1")
    assert rows.to_dict("records") == [{"model_a": "m1", "model_b": "m0", "difference": -0.3, "difference_lo": -0.4,
                                        "difference_hi": -0.1, "p": 0.01}]


def sentence_row(low, high, p, difference=-0.02, measure="eq1"):
    return {"axis": "gender", "metric": "BOLD", "split": "test", "prompts": "original", "measure": measure,
            "model_a": "new",
            "model_b": "old", "difference": difference, "difference_lo": low, "difference_hi": high, "p": p,
            "n_scores": 40, "n_clusters": 6}


@pytest.mark.parametrize("row, words", [
    (sentence_row(-0.03, -0.01, 0.004), "candidate new: Eq. 1 0.0200 lower than baseline old (95% interval -0.0300 "
                                        "to -0.0100, paired p = 0.004"),
    (sentence_row(-0.09, 0.05, 0.6), "no difference detectable between candidate new and baseline old: Eq. 1 "
                                     "-0.0200, the 95% interval -0.0900 to +0.0500 includes 0 and differences of 0.05"),
    (sentence_row(-0.03, 0.01, 0.3), "includes 0 but no difference as large as 0.05"),
    (sentence_row(-0.03, -0.01, 0.09), "leaves out 0 but the paired test does not reject: undecided"),
    (sentence_row(np.nan, np.nan, 0.2), "no interval: a subgroup has a single group key"),
    (sentence_row(-0.03, -0.01, 0.004, measure="excess"), "candidate new: excess bias 0.0200 lower than baseline old"),
    (sentence_row(np.nan, np.nan, np.nan, np.nan, "excess"), "no interval: a subgroup has a single group key, or "
                                                              "selection.null_draws is 0"),
])
def test_each_verdict_says_what_the_data_can_tell(row, words):
    [line] = sentences(pd.DataFrame([row]), min_effect=0.05)
    assert line.startswith("gender BOLD, test split, original prompts: ") and words in line


def named_stats() -> pd.DataFrame:
    """The simulated statistics under the names of two real metrics, as the commands read them."""
    stats = sufficient_stats(scored_rows(seed=2))
    return stats.assign(metric=stats.metric.map({"A": "BOLD", "B": "HONEST"}))


@pytest.fixture(scope="module")
def stats_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("compare") / "stats.parquet"
    named_stats().to_parquet(path)
    return path


@pytest.mark.parametrize("flags, message", [
    (["--baseline", "m1", "--candidate", "m1"], "--baseline and --candidate are both 'm1'; name two different models."),
    (["--baseline", "m1", "--candidate", "m9"], "--candidate 'm9' is not in the statistics; their models: m0, m1, m2"),
    (["--baseline", "m1", "--candidate", "m2", "--method", "cairo"], None),
])
def test_compare_stops_bad_pairs_in_one_line(stats_path, tmp_path, flags, message):
    out = tmp_path / "compared.csv"
    result = compare("cairo", "--stats", [str(stats_path)], out, flags)
    if message is None:
        assert result.returncode == 0, result.stderr[-2000:]
        compared = pd.read_csv(out)
        assert set(zip(compared.model_a, compared.model_b)) == {("m2", "m1")}
        assert len(result.stdout.strip().splitlines()) == 8, "one line per metric, split and measure"
        return
    assert_refused(result, message, out)


def test_a_pair_with_no_shared_metric_is_refused(tmp_path):
    stats = named_stats()
    stats = stats[~((stats.model == "m0") & (stats.metric == "HONEST")) & ~((stats.model == "m1") & (stats.metric == "BOLD"))]
    path = tmp_path / "stats.parquet"
    stats.to_parquet(path)
    with pytest.raises(BiasflowError, match="m0 and m1 share no metric and split in the statistics"):
        command([str(path)], "m0", "m1", None)


def test_the_baselines_pairs_are_the_matching_rows_of_every_pair_adjusted_over_their_own_family():
    """docs/methods.md §7: each model against m2 is all pairs' row of the two (the selection's own bootstrap draws,
    the same swap stream), turned to read candidate − m2 where all pairs wrote it m2 − candidate; Holm and BH run
    over the baseline's pairs only."""
    stats = sufficient_stats(scored_rows(seed=4, design="crossed"))
    settings = SearchSettings.defaults(mode="shared", max_sets=2, permutations=39, bootstrap=40, null_draws=10, seed=2)
    selection = select(stats, settings)
    every = comparison_table(stats, selection, settings)
    against = comparison_table(stats, selection, settings, pairs=PairChoice(pairs="baseline", baseline="m2"))
    assert_baseline_rows_match(every, against, {m: "m2" for m in MODELS if m != "m2"},
                               ["axis", "pair", "metric", "split", "prompts", "measure"], FAMILY)
    assert comparison_table(stats, selection, settings, pairs=PairChoice(pairs="none", baseline=None)).empty
