"""CAIRO's paired comparisons of models against a slow loop over raw scored rows, with the same draws.

The bootstrap draws are read off as which clusters each subgroup holds and with what weight
(test_uncertainty.py's ``Reference``), the swap draws as which clusters trade the two
models' rows, each model's scores centred on its mean first; Eq. 1 is recomputed from the
rows (test_uncertainty.py's ``loop_eq1``), one draw at a time, and the interval for the
population difference from each subgroup's deviations recomputed likewise, its terms summed
by plain loops (``population_bounds_terms``).
Simulations with a known truth are the calibration table's "paired" rows
(benchmarks/calibration/cairo.py).
docs/methods.md §1.16.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from baseline_rows import assert_baseline_rows_match
from biasflow.cairo import headline
from biasflow.cairo.comparisons import COMPARISON_COLUMNS, FAMILY, SWAP, comparison_table, swap_weights
from biasflow.cairo.selection import SearchSettings, select
from biasflow.cairo.stats import sufficient_stats
from biasflow.cairo.uncertainty import draw_rng
from biasflow.cairo.verdicts import BOTH_SPLITS, command
from biasflow.cairo.verdicts import compare as compare_rows
from biasflow.compare_pairs import margin
from biasflow.errors import BiasflowError
from biasflow.model_pairs import PairChoice
from biasflow.multiplicity import benjamini_hochberg, holm
from cairo.test_uncertainty import (
    MODELS,
    SUBGROUPS,
    Reference,
    combination_of,
    loop_deviations,
    loop_eq1,
    population_bounds_terms,
    scored_rows,
)
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
    refs = {
        (metric, split): Reference(scored, stats, metric, split, settings, design)
        for metric in SUBGROUPS
        for split in ("valid", "test")
    }
    return table, refs, settings, headline.bias_table(stats, selection, settings)


def centred(rows: pd.DataFrame, combination: dict[str, int]) -> pd.DataFrame:
    """Each model's scores less its mean per seed over the combination's rows (each set counted by its multiplicity)."""
    pooled = pd.concat([rows[rows.promptset == name] for name, mult in combination.items() for _ in range(mult)])
    mean = pooled.groupby(["model", "seed"]).score.mean()
    return rows.assign(score=rows.score - mean.reindex(pd.MultiIndex.from_frame(rows[["model", "seed"]])).to_numpy())


def swapped_rows(rows: pd.DataFrame, members: list[np.ndarray], swap: np.ndarray, a: str, b: str) -> pd.DataFrame:
    """The rows with models a and b's labels traded in every cluster the draw swaps (``members``: each cluster's
    rows' positions)."""
    model = rows.model.to_numpy().copy()
    for c in np.flatnonzero(swap):
        here = members[c]
        here = here[np.isin(model[here], [a, b])]
        model[here] = np.where(model[here] == a, b, a)
    return rows.assign(model=model)


def test_differences_intervals_and_swap_p_match_the_row_loop(case):
    table, refs, settings, bias = case
    assert list(table.columns) == COMPARISON_COLUMNS
    assert len(table) == len(bias) // len(MODELS) * 10 * 2, "every pair of 5 models, eq1 and excess"
    assert set(table.measure) == {"eq1", "excess"}
    for (metric, split, prompts), part in table[table.pair == table.pair.iloc[0]].groupby(
        ["metric", "split", "prompts"]
    ):
        ref = refs[metric, split]
        combination = (
            {"original": 1}
            if prompts == "original"
            else combination_of(bias[(bias.metric == metric) & (bias.prompts == "cairo")].combination.iloc[0])
        )
        eq1 = pd.Series(ref.eq1(combination), index=MODELS)
        floor = pd.Series(ref.floor(combination), index=MODELS)
        observed = loop_deviations(ref.rows, combination)
        deviations = ref.deviation_draws(combination)
        swaps = swap_weights(len(ref.clusters), settings.permutations, draw_rng(settings.seed, SWAP, metric, split))
        for a, b in LOOPED:
            i, j = MODELS.index(a), MODELS.index(b)
            own = centred(ref.rows, combination)
            swapped = np.array(
                [(lambda e: e[a] - e[b])(loop_eq1(swapped_rows(own, ref.members, s, a, b), combination)) for s in swaps]
            )
            rows = part[(part.model_a == a) & (part.model_b == b)].set_index("measure")
            difference = eq1[a] - eq1[b]
            excess = difference - (floor[a] - floor[b])
            terms = assert_population_interval(rows.loc["eq1"], difference, observed, deviations, i, j, ref)
            for measure, value in (("eq1", difference), ("excess", excess)):
                row = rows.loc[measure]
                assert row.difference == pytest.approx(value, rel=1e-9, abs=1e-12)
                for column in ("difference_lo", "difference_hi", "lo90", "hi90", "p_worse"):
                    assert row[column] == pytest.approx(rows.loc["eq1", column]), "one population difference"
            reached = np.sum(np.abs(swapped) >= abs(difference) - 1e-12)
            assert rows.loc["eq1", "p"] == pytest.approx((1 + reached) / (len(swaps) + 1))
            # excess's p: twice the one-sided p on the side towards 0, itself twice the smaller of the bounds' shares
            towards = terms["down"] if difference >= 0 else terms["up"]
            shares = [
                (1 + np.sum(ref.factor() * d >= abs(difference))) / (len(d) + 1) for d in (towards, terms["shared"])
            ]
            assert rows.loc["excess", "p"] == pytest.approx(min(1.0, 4 * min(shares)))


def assert_population_interval(row, difference, observed, deviations, i, j, ref):
    """The row's bounds, by plain loops: the nearer of two, each at half the level (docs/methods.md §1.16). Own:
    per draw, a's terms above plus b's below summed over subgroups (less a's below and b's above). Shared:
    2 Σ_g |d̂_a − d̂_b| plus, per draw, Σ_g |Z*_a − Z*_b|. Widened by t/z; p_worse twice the smaller share of
    draws reaching difference / factor. Returns both bounds' draws on each side."""
    above_a, below_a = population_bounds_terms(observed[i], deviations[:, i])
    above_b, below_b = population_bounds_terms(observed[j], deviations[:, j])
    up, down = (above_a + below_b).sum(axis=1), (below_a + above_b).sum(axis=1)
    apart = sum(np.mean(2 * np.abs(observed[i, g] - observed[j, g])) for g in range(observed.shape[1]))
    shared = np.zeros(len(deviations))
    for d in range(len(deviations)):
        for g in range(observed.shape[1]):
            noise = (deviations[d, i, g] - observed[i, g]) - (deviations[d, j, g] - observed[j, g])
            shared[d] += np.mean(np.abs(noise))
    for level, low, high in ((0.95, row.difference_lo, row.difference_hi), (0.90, row.lo90, row.hi90)):
        q = 1 - (1 - (1 + level) / 2) / 2
        reach_up = min(np.quantile(up, q), apart + np.quantile(shared, q))
        reach_down = min(np.quantile(down, q), apart + np.quantile(shared, q))
        assert low == pytest.approx(difference - ref.factor(level) * reach_down, abs=1e-10)
        assert high == pytest.approx(difference + ref.factor(level) * reach_up, abs=1e-10)
    assert row.difference_lo <= row.difference <= row.difference_hi
    shares = [(1 + np.sum(ref.factor(0.90) * d >= difference)) / (len(d) + 1) for d in (down, apart + shared)]
    assert row.p_worse == pytest.approx(min(1.0, 2 * min(shares)))
    return {"up": up, "down": down, "shared": apart + shared}


def test_the_excess_difference_is_the_headline_excess_biases_difference(case):
    """The excess rows difference the headline's own excess_bias (the same null draws give both floors)."""
    table, _, _, bias = case
    excess = bias.set_index(["pair", "metric", "split", "prompts", "model"])["excess_bias"]
    rows = table[table.measure == "excess"]
    expected = [
        excess[r.pair, r.metric, r.split, r.prompts, r.model_a]
        - excess[r.pair, r.metric, r.split, r.prompts, r.model_b]
        for r in rows.itertuples(index=False)
    ]
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


# The simulated metrics under the names of two real ones, as the commands read them.
NAMES = {"A": "BOLD", "B": "HONEST"}


def as_named(stats: pd.DataFrame) -> pd.DataFrame:
    return stats.assign(metric=stats.metric.map(NAMES))


def named_stats() -> pd.DataFrame:
    """The simulated statistics under the names of two real metrics, as the commands read them."""
    return as_named(sufficient_stats(scored_rows(seed=2)))


@pytest.fixture(scope="module")
def stats_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("compare") / "stats.parquet"
    named_stats().to_parquet(path)
    return path


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--baseline", "m1", "--candidate", "m1"],
            "--baseline and --candidate are both 'm1'; name two different models.",
        ),
        (
            ["--baseline", "m1", "--candidate", "m9"],
            "--candidate 'm9' is not in the statistics; their models: m0, m1, m2",
        ),
        (["--baseline", "m1", "--candidate", "m2", "--method", "cairo"], None),
    ],
)
def test_compare_stops_bad_pairs_in_one_line(stats_path, tmp_path, flags, message):
    out = tmp_path / "compared.csv"
    result = compare("cairo", "--stats", [str(stats_path)], out, flags)
    if message is None:
        assert result.returncode == 0, result.stderr[-2000:]
        compared = pd.read_csv(out)
        assert set(zip(compared.model_a, compared.model_b, strict=True)) == {("m2", "m1")}
        assert len(compared) == 2 and len(result.stdout.strip().splitlines()) == 3, "the overall, then each metric"
        return
    assert_refused(result, message, out)


def test_a_pair_with_no_shared_metric_is_refused(tmp_path):
    stats = named_stats()
    stats = stats[
        ~((stats.model == "m0") & (stats.metric == "HONEST")) & ~((stats.model == "m1") & (stats.metric == "BOLD"))
    ]
    path = tmp_path / "stats.parquet"
    stats.to_parquet(path)
    with pytest.raises(BiasflowError, match="m0 and m1 share no metric in the statistics"):
        command([str(path)], "m0", "m1", None, *margin(None, "cairo"))


def test_the_baselines_pairs_are_the_matching_rows_of_every_pair_adjusted_over_their_own_family():
    """docs/methods.md §7: each model against m2 is all pairs' row of the two (the selection's own bootstrap draws,
    the same swap stream), turned to read candidate − m2 where all pairs wrote it m2 − candidate; Holm and BH run
    over the baseline's pairs only."""
    stats = sufficient_stats(scored_rows(seed=4, design="crossed"))
    settings = SearchSettings.defaults(mode="shared", max_sets=2, permutations=39, bootstrap=40, null_draws=10, seed=2)
    selection = select(stats, settings)
    every = comparison_table(stats, selection, settings)
    against = comparison_table(stats, selection, settings, pairs=PairChoice(pairs="baseline", baseline="m2"))
    assert_baseline_rows_match(
        every,
        against,
        {m: "m2" for m in MODELS if m != "m2"},
        ["axis", "pair", "metric", "split", "prompts", "measure"],
        FAMILY,
    )
    assert comparison_table(stats, selection, settings, pairs=PairChoice(pairs="none", baseline=None)).empty


@pytest.mark.parametrize("design", ["nested", "crossed"])
def test_compare_judges_the_original_prompts_of_both_splits_against_the_row_loop(design):
    """``biasflow compare``'s rows (docs/methods.md §1.16, §7): the original prompts of both splits pooled, candidate −
    baseline, against Eq. 1 recomputed from the rows under the same bootstrap and swap draws."""
    scored = scored_rows(seed=6, design=design)
    settings = SearchSettings.defaults(permutations=29, bootstrap=30, null_draws=12, seed=5)
    rows = compare_rows([as_named(sufficient_stats(scored))], "m0", "m1", settings).set_index("metric")
    pooled = as_named(scored).assign(split=BOTH_SPLITS)  # the streams of draws are keyed by the metric's name
    original = {"original": 1}
    for metric in NAMES.values():
        ref = Reference(pooled, sufficient_stats(pooled), metric, BOTH_SPLITS, settings, design)
        row = rows.loc[metric]
        eq1 = pd.Series(ref.eq1(original), index=MODELS)
        difference = eq1["m1"] - eq1["m0"]
        assert (row.model_a, row.model_b, row.measure) == ("m1", "m0", "eq1")
        assert row.difference == pytest.approx(difference, rel=1e-9, abs=1e-12)
        observed, deviations = loop_deviations(ref.rows, original), ref.deviation_draws(original)
        assert_population_interval(row, difference, observed, deviations, MODELS.index("m1"), MODELS.index("m0"), ref)
        swaps = swap_weights(
            len(ref.clusters), settings.permutations, draw_rng(settings.seed, SWAP, metric, BOTH_SPLITS)
        )
        own = centred(ref.rows, original)
        swapped = np.array(
            [
                (lambda e: e["m1"] - e["m0"])(loop_eq1(swapped_rows(own, ref.members, s, "m1", "m0"), original))
                for s in swaps
            ]
        )
        assert row.p == pytest.approx((1 + np.sum(np.abs(swapped) >= abs(difference) - 1e-12)) / (len(swaps) + 1))
        assert row.n_units == row.n_clusters and row.why_untested is None
        assert row.unit == "pages or templates per subgroup"


def test_a_study_without_paraphrases_compares_and_one_group_key_cannot_be_tested():
    """No selection runs, so statistics of the original prompts alone compare; a subgroup with one group key in both
    splits has no interval, so its row carries no verdict and says why (docs/methods.md §1.11)."""
    scored = scored_rows(seed=6)
    scored = scored[scored.promptset == "original"]
    single = scored.assign(group_key=np.where(scored.metric == "A", "one", scored.group_key))
    verdicts = command([as_named(sufficient_stats(single))], "m0", "m1", None, *margin(None, "cairo"))
    rows = verdicts.rows.set_index("metric")
    assert rows.loc["BOLD", "why_untested"].startswith("one group key per subgroup")
    assert pd.isna(rows.loc["BOLD", "verdict"]) and isinstance(rows.loc["HONEST", "verdict"], str)
    assert (
        "gender BOLD Eq. 1: candidate m1: cannot be tested against m0: one group key per subgroup" in verdicts.report()
    )
    assert verdicts.overall != "not worse" and verdicts.exit_code("not-noninferior") == 1, (
        "an untested measure is not shown non-inferior"
    )


def test_a_file_that_lacks_the_candidate_is_a_measure_that_cannot_be_tested_never_left_out(tmp_path):
    """The new user's case: gender statistics with both models, religion's without the candidate. The gate counted
    two measures and passed; now religion's metrics are rows that cannot be tested, the first line counts them, and
    --fail-on not-noninferior fails."""
    stats = named_stats()
    gender, religion = tmp_path / "gender.parquet", tmp_path / "religion.parquet"
    stats.to_parquet(gender)
    stats[stats.model != "m1"].assign(axis="religion").to_parquet(religion)
    out = tmp_path / "verdicts.csv"
    flags = ["--baseline", "m0", "--candidate", "m1", "--margin", "10", "--fail-on", "not-noninferior"]
    result = compare("cairo", "--stats", [str(gender), str(religion)], out, flags)
    assert result.returncode == 1, result.stdout + result.stderr
    rows = pd.read_csv(out).set_index("measure_name")
    untested = rows.loc[["religion BOLD Eq. 1", "religion HONEST Eq. 1"]]
    assert untested["verdict"].isna().all()
    assert (untested["why_untested"] == "the statistics given have no m1 for this axis and metric").all()
    assert rows.loc[["gender BOLD Eq. 1", "gender HONEST Eq. 1"], "verdict"].notna().all()
    first = result.stdout.splitlines()[0]
    assert "4 measure(s) given, 2 judged, 2 that cannot be tested" in first and ": inconclusive (" in first
    assert "religion BOLD Eq. 1: candidate m1: cannot be tested against m0: the statistics given have no m1" in (
        result.stdout
    )
