"""CAIRO selection checked against slow, independent computations (docs/methods.md §1.10).

References: Eq. 1 on pooled raw rows in pandas, per-combination loops over itertools with
scipy.stats.pearsonr, and a brute-force permutation test over every combination pair.
"""

import itertools
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from biasflow.cairo.correlation_search import Rows, model_permutations, search_independent, search_shared, standardise
from biasflow.cairo.selection import (
    CHOICE_COLUMNS,
    CURVE_COLUMNS,
    SearchSettings,
    bias_matrix,
    combination_bias,
    combination_counts,
    metric_pairs,
    select,
)
from biasflow.cairo.stats import sufficient_stats
from biasflow.errors import BiasflowError
from stats_helpers import drawn_stats

SUBGROUPS = {"A": ["f", "m", "x"], "B": ["female", "male"]}


def random_scored(seed=0, models=("m0", "m1", "m2", "m3"), sets=("p0", "p1", "p2"), n_seeds=2):
    """Raw scored rows with unequal counts; set p1 lacks subgroup x of metric A in the valid split."""
    rng = np.random.default_rng(seed)
    rows = []
    for metric, groups in SUBGROUPS.items():
        for model, split, promptset, gen_seed, group in itertools.product(
            models, ["valid", "test"], ["original", *sets], range(n_seeds), groups
        ):
            if (metric, split, promptset, group) == ("A", "valid", "p1", "x"):
                continue
            level = rng.random()
            for i in range(int(rng.integers(2, 6))):
                rows.append(
                    (
                        model,
                        metric,
                        "gender",
                        split,
                        promptset,
                        gen_seed,
                        group,
                        f"{split}-k{i % 2}",
                        level * rng.random(),
                    )
                )
    return pd.DataFrame(
        rows, columns=["model", "metric", "axis", "split", "promptset", "seed", "subgroup", "group_key", "score"]
    )


def search_only(**settings) -> SearchSettings:
    """The defaults without bootstrap or null draws (1000 and 200): each has its own seed stream, so what these tests
    check (r, the choices, perm_p and its floor, test r, the log) is the same without them."""
    return SearchSettings.defaults(**{"bootstrap": 0, "null_draws": 0, **settings})


def random_stats(rng, n_models=4, sets=("p0", "p1", "p2"), metrics=("A", "B"), n_seeds=1, n_groups=2):
    """Sufficient statistics drawn directly: fast for many repetitions."""
    return drawn_stats(
        rng, [f"m{i}" for i in range(n_models)], metrics, sets, n_seeds, [f"g{g}" for g in range(n_groups)]
    )


def rows_bias(scored, metric, split, combination, models, normalise="none"):
    """Eq. 1 on the raw rows of the pooled combination (each set's rows repeated mult times), mean over seeds."""
    part = scored[(scored.metric == metric) & (scored.split == split)]
    pooled = pd.concat([part[part.promptset == name] for name, mult in combination.items() for _ in range(mult)])
    out = {}
    for model in models:
        per_seed = []
        for _, rows in pooled[pooled.model == model].groupby("seed"):
            means = rows.groupby("subgroup")["score"].mean()
            bias = (rows["score"].mean() - means).abs().sum()
            per_seed.append(bias / len(means) if normalise == "mean" else bias)
        out[model] = np.mean(per_seed)
    return pd.Series(out)


def stats_bias(stats, metric, split, combination, models):
    """Eq. 1 from statistics pooled with a pandas group-by (an independent reference for searches)."""
    part = stats[(stats.metric == metric) & (stats.split == split) & stats.promptset.isin(list(combination))].copy()
    mult = part.promptset.map(combination)
    part["S"], part["N"] = part.score_sum * mult, part.n * mult
    groups = part.groupby(["model", "seed", "subgroup"])[["S", "N"]].sum().reset_index()
    cell = groups.groupby(["model", "seed"])
    mu_all = cell.S.transform("sum") / cell.N.transform("sum")
    groups["dev"] = (mu_all - groups.S / groups.N).abs()
    return groups.groupby(["model", "seed"]).dev.sum().groupby("model").mean().loc[list(models)]


def combos(sets, k, enumeration):
    pick = itertools.combinations if enumeration == "subsets" else itertools.combinations_with_replacement
    for chosen in pick(sets, k - 1):
        combination = {"original": 1}
        for name in chosen:
            combination[name] = combination.get(name, 0) + 1
        yield combination


def label(combination):
    return "+".join(sorted(name for name, mult in combination.items() for _ in range(mult)))


def brute_force(bias, m1, m2, sets, k, enumeration, mode):
    """Best pair, mean r and skip count by a loop over itertools order with scipy.stats.pearsonr.

    ``bias`` maps (metric, combination label) to the valid split's bias vector (:func:`stats_bias`).
    """
    first = [(c, bias[m1, label(c)]) for c in combos(sets, k, enumeration)]
    second = [(c, bias[m2, label(c)]) for c in combos(sets, k, enumeration)]
    pairs = zip(first, second, strict=True) if mode == "shared" else itertools.product(first, second)
    best, rs, skipped = None, [], 0
    for (c1, b1), (c2, b2) in pairs:
        if np.ptp(b1) == 0 or np.ptp(b2) == 0:
            skipped += 1
            continue
        r = scipy_stats.pearsonr(b1, b2).statistic
        rs.append(r)
        if best is None or r > best[0] + 1e-12:
            best = (r, label(c1) if mode == "shared" else f"{m1}={label(c1)} | {m2}={label(c2)}", b1, b2)
    return best, (np.mean(rs) if rs else np.nan), skipped


def test_combination_counts_follow_itertools():
    counts = [combination_counts(15, k, "multisets") for k in range(1, 7)]
    assert sum(len(c) for c in counts) == 15504
    assert (np.concatenate(counts)[:, 0] == 1).all()
    expected = [np.bincount(c, minlength=15) for c in itertools.combinations_with_replacement(range(15), 3)]
    np.testing.assert_array_equal(counts[3][:, 1:], expected)
    subsets = combination_counts(5, 3, "subsets")
    np.testing.assert_array_equal(
        subsets[:, 1:], [np.bincount(c, minlength=5) for c in itertools.combinations(range(5), 2)]
    )
    assert combination_counts(2, 4, "subsets").shape == (0, 3)
    np.testing.assert_array_equal(combination_counts(0, 1, "multisets"), [[1]])


@pytest.mark.parametrize("normalise", ["none", "mean"])
@pytest.mark.parametrize("enumeration", ["subsets", "multisets"])
def test_bias_matrix_matches_pooled_raw_rows(enumeration, normalise):
    scored = random_scored(seed=1)
    stats = sufficient_stats(scored)
    models, sets = ["m0", "m1", "m2", "m3"], ["original", "p0", "p1", "p2"]
    for metric, split, k in [("A", "valid", 3), ("A", "test", 4), ("B", "valid", 4)]:
        counts = combination_counts(3, k, enumeration)
        got = bias_matrix(stats, metric, split, sets, counts, models, normalise)
        assert got.shape == (len(counts), 4)
        for row, combination in zip(got, combos(sets[1:], k, enumeration), strict=True):
            expected = rows_bias(scored, metric, split, combination, models, normalise)
            np.testing.assert_allclose(row, expected.to_numpy(), rtol=1e-12, atol=1e-14)
    one = combination_bias(stats, "A", "valid", {"p1": 2, "p2": 1}, models, normalise)
    expected = rows_bias(scored, "A", "valid", {"original": 1, "p1": 2, "p2": 1}, models, normalise)
    pd.testing.assert_series_equal(one, expected, check_names=False, check_index=False, rtol=1e-12)
    assert list(one.index) == models


def agreeing(stats):
    """Metric B's statistics: a linear function of metric A's (each mean 0.5 of A's + 0.1), so r = 1 across models."""
    score_sum = 0.5 * stats.score_sum + 0.1 * stats.n
    return stats.assign(metric="B", score_sum=score_sum, score_sq_sum=score_sum**2 / stats.n)


def constant_case(seed):
    """Random statistics where metric B is identical across models in original and p0: combinations
    of those two sets only have a constant B bias and must be skipped."""
    stats = random_stats(np.random.default_rng(seed))
    flat = (stats.metric == "B") & stats.promptset.isin(["original", "p0"])
    cell = ["split", "promptset", "seed", "subgroup", "group_key"]
    first = stats[flat & (stats.model == "m0")].set_index(cell)
    keys = pd.MultiIndex.from_frame(stats.loc[flat, cell])
    columns = ["score_sum", "score_sq_sum", "n"]
    stats.loc[flat, columns] = first.loc[keys, columns].to_numpy()
    return stats


@pytest.fixture(scope="module")
def constant_cases():
    """Per seed, :func:`constant_case` and the brute force's bias vectors of every multiset (subsets among them) up
    to k = 4, pooled once for the four searches that read them."""
    cases = []
    for seed in range(2):
        stats = constant_case(seed)
        bias = {
            (metric, label(c)): stats_bias(stats, metric, "valid", c, ["m0", "m1", "m2", "m3"]).to_numpy()
            for metric in ("A", "B")
            for k in range(1, 5)
            for c in combos(["p0", "p1", "p2"], k, "multisets")
        }
        cases.append((stats, bias))
    return cases


@pytest.mark.parametrize("mode", ["shared", "independent"])
@pytest.mark.parametrize("enumeration", ["subsets", "multisets"])
def test_search_matches_brute_force(mode, enumeration, constant_cases):
    for stats, bias in constant_cases:
        settings = search_only(mode=mode, combinations=enumeration, max_sets=4, permutations=0)
        curve = select(stats, settings).curve
        assert list(curve.columns) == CURVE_COLUMNS
        assert curve.perm_p.isna().all()
        for row in curve.itertuples():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", scipy_stats.ConstantInputWarning)
                best, mean_r, skipped = brute_force(bias, "A", "B", ["p0", "p1", "p2"], row.k, enumeration, mode)
            n1 = len(list(combos(["p0", "p1", "p2"], row.k, enumeration)))
            assert row.n_combinations == (n1 if mode == "shared" else n1 * n1)
            assert row.n_skipped == skipped
            if best is None:
                assert np.isnan(row.best_r) and pd.isna(row.selection)
                continue
            assert row.selection == best[1]
            assert np.isclose(row.best_r, best[0], atol=1e-12)
            assert np.isclose(row.mean_r, mean_r, atol=1e-12)
        assert curve.loc[curve.k == 1, "n_skipped"].item() == 1
        assert np.isnan(curve.loc[curve.k == 1, "best_r"].item())


def chosen_vectors(stats, selection, pair, k, split="valid"):
    """The bias vectors of the combination each metric was given in the choices table."""
    out = []
    for metric in pair.split("~"):
        rows = selection.choices[
            (selection.choices.pair == pair) & (selection.choices.k == k) & (selection.choices.metric == metric)
        ]
        combination = dict(zip(rows.promptset, rows.multiplicity, strict=True))
        out.append(stats_bias(stats, metric, split, combination, ["m0", "m1", "m2", "m3", "m4"]).to_numpy())
    return out


@pytest.mark.parametrize("mode", ["shared", "independent"])
def test_reported_p_and_rho_are_scipys(mode):
    stats = random_stats(np.random.default_rng(7), n_models=5, metrics=("A", "B", "C"))
    selection = select(stats, search_only(mode=mode, max_sets=3, permutations=0))
    assert list(selection.choices.columns) == CHOICE_COLUMNS
    assert sorted(selection.curve.pair.unique()) == ["A~B", "A~C", "B~C"]
    for row in selection.curve.itertuples():
        first, second = chosen_vectors(stats, selection, row.pair, row.k)
        assert np.isclose(row.best_r, scipy_stats.pearsonr(first, second).statistic, atol=1e-12)
        assert np.isclose(row.best_p, scipy_stats.pearsonr(first, second).pvalue, rtol=1e-9)
        assert np.isclose(row.best_rho, scipy_stats.spearmanr(first, second).statistic, atol=1e-12)


def null_rows(rng, n_models=6, n_combinations=4) -> Rows:
    """One metric's z-scored bias rows under the null: every combination shares the original prompts' part (a
    level per model) and adds its own, drawn independently of the other metric, so the models are exchangeable."""
    bias = rng.random(n_models) + 0.5 * rng.random((n_combinations, n_models))
    return standardise(bias, SimpleNamespace(scale=1.0))


@pytest.mark.parametrize("mode", ["shared", "independent"])
def test_permutation_p_is_uniform_under_the_null(mode):
    """The search's selection-aware p over 1000 null studies, each with its own permutations (``select`` hands these
    kernels its bias rows and ``model_permutations``; that its p is the brute force's on the same data is
    test_independent_permutation_p_matches_brute_force's and tests/cairo/test_benchmarks.py's). Independent mode
    multiplies in blocks of 3 rows, so the maximum is carried across blocks."""
    rng, studies = np.random.default_rng(11), 1000
    p = []
    for seed in range(studies):
        first, second, perms = null_rows(rng), null_rows(rng), model_permutations(6, 19, seed)
        search = (
            search_shared(first, second, perms) if mode == "shared" else search_independent(first, second, perms, 3)
        )
        p.append(search.perm_p)
    p = np.array(p)
    assert p.min() >= 1 / 20
    # P(p <= 0.1) = 0.1 under exchangeability (a drawn identity permutation ties the observed r: p only grows):
    # 100 expected of 1000, Monte Carlo sd 9.5.
    assert abs(np.sum(p <= 0.1 + 1e-12) - 0.1 * studies) <= 3.3 * np.sqrt(studies * 0.1 * 0.9)


@pytest.mark.parametrize("mode", ["shared", "independent"])
def test_permutation_p_is_smallest_when_metrics_agree(mode):
    stats = random_stats(np.random.default_rng(3), n_models=8, metrics=("A",))
    agree = agreeing(stats)
    curve = select(pd.concat([stats, agree]), search_only(mode=mode, max_sets=3, permutations=99)).curve
    assert np.allclose(curve.best_r, 1.0)
    assert (curve.perm_p == 1 / 100).all()


@pytest.mark.parametrize("mode", ["shared", "independent"])
def test_three_models_cannot_reach_a_small_permutation_p_and_say_so(mode, caplog):
    """With 3 models 1 in 3! = 6 permutations leaves them in place: p never falls below about 1/6."""
    stats = random_stats(np.random.default_rng(3), n_models=3, metrics=("A",))
    agree = agreeing(stats)
    settings = search_only(mode=mode, max_sets=2, permutations=999, seed=2)
    with caplog.at_level("WARNING", logger="biasflow"):
        curve = select(pd.concat([stats, agree]), settings).curve
    perms = np.random.default_rng(2).permuted(np.tile(np.arange(3), (999, 1)), axis=1)
    identity = sum(tuple(p) == (0, 1, 2) for p in perms)  # counted independently of the engine
    assert np.allclose(curve.best_r, 1.0) and (curve.n_models == 3).all()
    assert (curve.perm_p_floor == (1 + identity) / 1000).all()
    assert (curve.perm_p == curve.perm_p_floor).all(), "perfect agreement reaches the floor and no lower"
    assert 1 / 6 - 0.04 < curve.perm_p_floor.iloc[0] < 1 / 6 + 0.04
    assert "with 3 models the permutation p-value cannot fall below" in caplog.text


@pytest.mark.parametrize("mode", ["shared", "independent"])
def test_four_models_can_reach_a_p_below_005_only_just_and_the_log_says_so(mode, caplog):
    """With 4 models the identity comes up about 1 in 4! = 24 draws: the floor, about 0.04 + 1/(B + 1), is below 0.05
    (so "4 models cannot be significant" is wrong) but within a factor of 2 of it, where the log warns (§1.8)."""
    stats = random_stats(np.random.default_rng(3), n_models=4, metrics=("A",))
    settings = search_only(mode=mode, max_sets=2, permutations=1000, seed=0)
    with caplog.at_level("WARNING", logger="biasflow"):
        curve = select(pd.concat([stats, agreeing(stats)]), settings).curve
    perms = np.random.default_rng(0).permuted(np.tile(np.arange(4), (1000, 1)), axis=1)
    identity = sum(tuple(p) == (0, 1, 2, 3) for p in perms)  # counted independently of the engine
    floor = (1 + identity) / 1001
    assert (curve.perm_p_floor == floor).all() and 0.025 < floor < 0.05
    assert (curve.perm_p == floor).all(), "a perfect agreement of 4 models is significant at 0.05"
    assert f"with 4 models the permutation p-value cannot fall below {floor:.3f}" in caplog.text
    assert "within a factor of 2 of 0.05" in caplog.text and "no selection can be shown significant" not in caplog.text


def test_the_floor_warning_is_logged_once_per_axis_for_all_its_metric_pairs(caplog):
    stats = random_stats(np.random.default_rng(3), n_models=4, metrics=("A", "B", "C"))
    with caplog.at_level("WARNING", logger="biasflow"):
        select(stats, search_only(max_sets=1, permutations=200, seed=0))
    assert caplog.text.count("permutation p-value cannot fall below") == 1
    assert "A~B, A~C, B~C" in caplog.text, "the one line names every pair it holds for"


def test_five_models_leave_the_floor_below_half_of_005_and_the_log_quiet(caplog):
    stats = random_stats(np.random.default_rng(3), n_models=5, metrics=("A",))
    with caplog.at_level("WARNING", logger="biasflow"):
        curve = select(pd.concat([stats, agreeing(stats)]), search_only(max_sets=2, permutations=1000, seed=0)).curve
    perms = np.random.default_rng(0).permuted(np.tile(np.arange(5), (1000, 1)), axis=1)
    floor = (1 + sum(tuple(p) == (0, 1, 2, 3, 4) for p in perms)) / 1001
    assert (curve.perm_p_floor == floor).all() and floor < 0.025
    assert "permutation p-value cannot fall below" not in caplog.text


def test_a_metric_with_one_cluster_per_subgroup_is_warned_of_once_per_split_however_many_pairs(caplog):
    """Metric A is in the pairs A~B and A~C: its one-cluster warning comes once per split, not once per pair."""
    rng = np.random.default_rng(6)
    stats = pd.concat(
        [
            random_stats(rng, n_models=4, metrics=("B", "C")),
            drawn_stats(rng, [f"m{i}" for i in range(4)], ("A",), ("p0", "p1", "p2"), clusters=1),
        ]
    )
    with caplog.at_level("WARNING", logger="biasflow"):
        curve = select(stats, SearchSettings.defaults(max_sets=2, permutations=20, bootstrap=20, null_draws=20)).curve
    assert set(curve["pair"]) == {"A~B", "A~C", "B~C"}
    for split in ("valid", "test"):
        lines = [
            line
            for line in caplog.text.splitlines()
            if f"gender A {split}: subgroup(s) g0, g1 have one cluster" in line
        ]
        assert len(lines) == 1, (split, lines)
    assert "gender B valid: subgroup(s)" not in caplog.text


def test_permutation_p_floor_is_1_over_b_plus_1_with_many_models():
    stats = random_stats(np.random.default_rng(4), n_models=8, sets=("p0",))
    curve = select(stats, search_only(max_sets=2, permutations=99)).curve
    assert (curve.perm_p_floor == 1 / 100).all() and (curve.perm_p >= curve.perm_p_floor).all()
    off = select(stats, search_only(max_sets=2, permutations=0)).curve
    assert off.perm_p_floor.isna().all()


def test_independent_permutation_p_matches_brute_force():
    """The pruned permutation search is exact: same p as the full product, same permutations."""
    stats = random_stats(np.random.default_rng(5), n_models=6, sets=("p0", "p1", "p2", "p3", "p4"), n_groups=3)
    settings = search_only(mode="independent", max_sets=3, permutations=60, seed=4)
    curve = select(stats, settings).curve
    models = [f"m{i}" for i in range(6)]
    perms = np.random.default_rng(4).permuted(np.tile(np.arange(6), (60, 1)), axis=1)
    sets = ["p0", "p1", "p2", "p3", "p4"]
    assert (curve.perm_p < 1).any() and (curve.perm_p > 1 / 61).any()
    for row in curve.itertuples():
        first = np.array([stats_bias(stats, "A", "valid", c, models) for c in combos(sets, row.k, "multisets")])
        second = np.array([stats_bias(stats, "B", "valid", c, models) for c in combos(sets, row.k, "multisets")])
        n = len(first)
        r_max = [np.corrcoef(first, second[:, perm])[:n, n:].max() for perm in perms]
        assert np.isclose(np.max(np.corrcoef(first, second)[:n, n:]), row.best_r)
        assert row.perm_p == (1 + np.sum(np.array(r_max) >= row.best_r - 1e-12)) / 61


def test_test_r_uses_only_test_rows():
    stats = random_stats(np.random.default_rng(9), n_models=5)
    settings = search_only(max_sets=3, permutations=0)
    before = select(stats, settings)
    test = stats.split == "test"
    perturbed = stats.copy()
    perturbed.loc[test, "score_sum"] = perturbed.loc[test, "n"] * np.random.default_rng(1).random(test.sum())
    perturbed.loc[test, "score_sq_sum"] = perturbed.loc[test, "score_sum"]  # scores in [0, 1]: squares at most the sum
    after = select(perturbed, settings)
    keep = ["k", "best_r", "mean_r", "selection"]
    pd.testing.assert_frame_equal(before.curve[keep], after.curve[keep])
    assert not np.allclose(before.curve.test_r, after.curve.test_r)
    for row in after.curve.itertuples():
        first, second = chosen_vectors(perturbed, after, row.pair, row.k, split="test")
        assert np.isclose(row.test_r, scipy_stats.pearsonr(first, second).statistic, atol=1e-12)


def test_metric_pairs_and_progress():
    stats = random_stats(np.random.default_rng(0), metrics=("HONEST", "BOLD"))
    other = random_stats(np.random.default_rng(1), metrics=("X", "HolisticBias", "BOLD")).assign(axis="religion")
    assert metric_pairs(pd.concat([stats, other])) == [
        ("gender", "BOLD", "HONEST"),
        ("religion", "BOLD", "HolisticBias"),
        ("religion", "BOLD", "X"),
        ("religion", "HolisticBias", "X"),
    ]
    messages = []
    curve = select(stats, search_only(max_sets=2, permutations=0), progress=messages.append).curve
    assert list(curve.pair) == ["BOLD~HONEST"] * 2 and len(messages) == 2


def test_errors_name_the_fix():
    stats = random_stats(np.random.default_rng(2))
    with pytest.raises(BiasflowError, match=r"lacks the column.*score_sum"):
        select(stats.drop(columns="score_sum"), SearchSettings.defaults())
    with pytest.raises(BiasflowError, match=r"at least 3 models.*A has m0, m1, m2, m3.*B has m0, m1"):
        select(stats[(stats.metric == "A") | stats.model.isin(["m0", "m1"])], SearchSettings.defaults())
    renamed = stats.assign(
        promptset=np.where(
            (stats.metric == "B") & (stats.promptset != "original"), "q-" + stats.promptset, stats.promptset
        )
    )
    with pytest.raises(BiasflowError, match=r"A has p0, p1, p2, B has q-p0, q-p1, q-p2.*max_sets: 1"):
        select(renamed, SearchSettings.defaults(max_sets=2))
    assert len(select(renamed, search_only(max_sets=1, permutations=0)).curve) == 1
    assert len(select(renamed, search_only(mode="independent", max_sets=2, permutations=0)).curve) == 2
    hole = (stats.metric == "B") & (stats.promptset == "original") & (stats.model == "m2") & (stats.subgroup == "g1")
    with pytest.raises(BiasflowError, match=r"original prompt set of metric B.*'valid'.*model=m2, seed=0, subgroup=g1"):
        select(stats[~(hole & (stats.split == "valid"))], SearchSettings.defaults())
    empty = hole & (stats.split == "test")
    with pytest.raises(BiasflowError, match=r"original prompt set of metric B.*'test'.*model=m2"):
        select(
            stats.assign(n=np.where(empty, 0, stats.n), score_sum=np.where(empty, 0.0, stats.score_sum)),
            SearchSettings.defaults(max_sets=1),
        )
    with pytest.raises(BiasflowError, match=r"no rows for metric A.*split 'valid'.*splits present: dev, test"):
        select(stats.assign(split=stats.split.replace({"valid": "dev"})), SearchSettings.defaults())
    for bad, match in [
        (dict(mode="paired"), "mode 'paired'.*shared, independent"),
        (dict(combinations="sets"), "combinations 'sets'.*subsets, multisets"),
        (dict(normalise="max"), "normalise 'max'.*none, mean"),
        (dict(max_sets=0), "max_sets must be an integer >= 1"),
    ]:
        with pytest.raises(BiasflowError, match=match):
            select(stats, SearchSettings.defaults(**bad))
    with pytest.raises(BiasflowError, match=r"two metrics on one axis.*gender: A"):
        select(stats[stats.metric == "A"], SearchSettings.defaults())


BAD_VALUES = {
    "NaN score_sum": ("score_sum", np.nan, "column score_sum must be a finite number .*1 row"),
    "inf score_sum": ("score_sum", np.inf, "column score_sum must be a finite number .*split=valid, score_sum=inf"),
    "NaN n": ("n", np.nan, "column n must be a finite number .*split=valid, n=nan"),
    "fractional n": ("n", 2.5, "column n must be a whole number"),
    "negative n": ("n", -3, "column n must be >= 0"),
    "missing subgroup": ("subgroup", None, "column subgroup must be present"),
}


@pytest.mark.parametrize("case", BAD_VALUES, ids=list(BAD_VALUES))
def test_bad_statistics_name_column_rows_cell_and_fix(case):
    """One NaN in a valid cell used to leave every combination skipped, the selection empty and no reason given."""
    column, value, match = BAD_VALUES[case]
    stats = random_stats(np.random.default_rng(3))
    stats[column] = stats[column].astype(object if value is None else "float64")
    at = stats.index[(stats.metric == "B") & (stats.promptset == "p1") & (stats.split == "valid")][0]
    stats.loc[at, column] = value
    cell = f"model=m0, metric=B, promptset=p1, subgroup={value if column == 'subgroup' else 'g0'}, split=valid"
    with pytest.raises(BiasflowError, match=match) as error:
        select(stats, search_only(permutations=0))
    assert cell in str(error.value) and "`biasflow cairo-stats` (the workflow's cairo_stats step)" in str(error.value)


def test_an_empty_cell_with_a_score_sum_is_refused():
    stats = random_stats(np.random.default_rng(3))
    stats.loc[stats.promptset == "p2", ["n", "score_sum"]] = 0
    assert len(select(stats, search_only(max_sets=2, permutations=0)).curve) == 2, "n = 0 with sum 0 pools as absent"
    stats.loc[stats.promptset == "p2", "score_sum"] = 1.0
    with pytest.raises(BiasflowError, match=r"score_sum must be 0 where n is 0.*but 64 row\(s\)"):
        select(stats, search_only(permutations=0))


def test_infinite_scores_stop_at_the_statistics():
    scored = random_scored()
    scored.loc[5, "score"] = np.inf
    with pytest.raises(BiasflowError, match=r"1 scored continuation.*infinite score.*Rerun the scoring step"):
        sufficient_stats(scored)
