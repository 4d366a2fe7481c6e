"""CAIRO's intervals, no-bias null and agreement statistics against slow, independent computations.

Resampling is checked with the same random draws: the draws are read off as which clusters
each subgroup holds and with what weight, the raw scored rows of those clusters are gathered
(weighted or relabelled) and Eq. 1 is recomputed from them (grouped with numpy's bincount), one draw and one
combination at a time; the statistics follow with numpy and scipy, never the selection's own code.
docs/methods.md §1.11-1.14; calibration by simulation is in test_calibration.py.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from biasflow.cairo import headline
from biasflow.cairo.combinations import pooled_stats
from biasflow.cairo.selection import SearchSettings, select
from biasflow.cairo.stats import sufficient_stats
from biasflow.cairo.uncertainty import (
    BOOTSTRAP,
    NULL,
    bootstrap_weights,
    draw_rng,
    kendall_w,
    kendall_w_test,
    null_weights,
    partial_r,
)

MODELS = ["m0", "m1", "m2", "m3", "m4"]
SETS = ["p0", "p1"]
SUBGROUPS = {"A": ["f", "m", "x"], "B": ["female", "male"]}


def scored_rows(seed=0, design="nested") -> pd.DataFrame:
    """Raw scored rows: 3 clusters per subgroup and split, unequal sizes, model-specific levels, 2 seeds.

    ``nested``: each subgroup has its own clusters (BOLD pages); ``crossed``: every subgroup is
    filled into the same 3 templates of a split (HolisticBias, HONEST), a template's effect
    shared by all of them.
    """
    rng = np.random.default_rng(seed)
    template_effect = {
        (metric, split, key): rng.random() for metric in SUBGROUPS for split in ("valid", "test") for key in range(3)
    }
    rows = []
    for metric, groups in SUBGROUPS.items():
        for model, split, promptset, gen_seed, group in itertools.product(
            MODELS, ["valid", "test"], ["original", *SETS], range(2), groups
        ):
            level = rng.random() * (1 + MODELS.index(model)) / len(MODELS)
            for key in range(3):
                name = f"{split}-t{key}" if design == "crossed" else f"{group}-{split}-k{key}"
                effect = template_effect[metric, split, key] if design == "crossed" else 1.0
                for _ in range(int(rng.integers(1, 4))):
                    rows.append(
                        (
                            model,
                            metric,
                            "gender",
                            split,
                            promptset,
                            gen_seed,
                            group,
                            name,
                            level * effect * rng.random(),
                        )
                    )
    return pd.DataFrame(
        rows, columns=["model", "metric", "axis", "split", "promptset", "seed", "subgroup", "group_key", "score"]
    )


def draw_rows(rows: pd.DataFrame, members: list[np.ndarray], subgroups: list[str], weights: np.ndarray):
    """The rows one draw stands for: each cluster's rows (``members``: their positions, cluster by cluster), weighted
    by the draw, under the subgroup it is given."""
    g, c = np.nonzero(weights)
    sizes = [len(members[i]) for i in c]
    drawn = rows.iloc[np.concatenate([members[i] for i in c])]
    return drawn.assign(
        subgroup=np.repeat(np.array(subgroups, dtype=object)[g], sizes),
        weight=drawn.weight.to_numpy() * np.repeat(weights[g, c], sizes),
    )


def template_rows(rows: pd.DataFrame, clusters: list[tuple[str, str]], weights: np.ndarray) -> pd.DataFrame:
    """The rows a crossed bootstrap draw stands for, rebuilt template by template: all of a template's rows, every
    subgroup's, weighted by how often the draw took the template."""
    taken = {}
    for g, c in zip(*np.nonzero(weights), strict=True):
        taken.setdefault(clusters[c][1], set()).add(float(weights[g, c]))
    assert all(len(w) == 1 for w in taken.values()), "one weight per template, whatever the subgroup"
    keys = rows.group_key.to_numpy()
    at = [np.flatnonzero(keys == key) for key in taken]
    drawn = rows.iloc[np.concatenate(at)]
    weight = np.repeat([w.pop() for w in taken.values()], [len(part) for part in at])
    return drawn.assign(weight=drawn.weight.to_numpy() * weight)


def loop_eq1(rows: pd.DataFrame, combination: dict[str, int]) -> pd.Series:
    """Eq. 1 per model from raw rows: weighted means per model, seed and subgroup (each set's rows counted by its
    multiplicity), per seed Σ over subgroups of |mean of all − subgroup mean|, then the mean over seeds."""
    promptset = rows.promptset.to_numpy()
    multiplicity = np.zeros(len(rows))
    for name, mult in combination.items():
        multiplicity[promptset == name] = mult
    kept = multiplicity > 0
    weight = (rows.weight.to_numpy() * multiplicity)[kept]
    model, models = pd.factorize(rows.model.to_numpy()[kept])
    subgroup, subgroups = pd.factorize(rows.subgroup.to_numpy()[kept])
    seed = rows.seed.to_numpy()[kept]
    cell_key = model * (seed.max() + 1) + seed
    groups, group = np.unique(cell_key * len(subgroups) + subgroup, return_inverse=True)
    weight_sum = np.bincount(group, weight)
    score_sum = np.bincount(group, weight * rows.score.to_numpy()[kept])
    cells, cell = np.unique(groups // len(subgroups), return_inverse=True)
    overall = np.bincount(cell, score_sum) / np.bincount(cell, weight_sum)
    per_seed = np.bincount(cell, np.abs(overall[cell] - score_sum / weight_sum))
    cell_model = cells // (seed.max() + 1)
    per_model = np.bincount(cell_model, per_seed) / np.bincount(cell_model)
    return pd.Series(per_model, index=models).reindex(MODELS)


def loop_deviations(rows: pd.DataFrame, combination: dict[str, int]) -> np.ndarray:
    """(models x subgroups x seeds): mean of all − subgroup mean, per model and seed, from raw rows weighted as in
    loop_eq1 (each set's rows counted by its multiplicity)."""
    rows = rows[rows.promptset.isin(list(combination))]
    weight = rows.weight * rows.promptset.map(combination).astype(float)
    frame = rows.assign(w=weight, ws=weight * rows.score)
    subgroup = frame.groupby(["model", "seed", "subgroup"])[["w", "ws"]].sum()
    cell = subgroup.groupby(level=["model", "seed"]).sum()
    overall = (cell.ws / cell.w).reindex(subgroup.index.droplevel("subgroup")).to_numpy()
    deviation = pd.Series(overall - (subgroup.ws / subgroup.w).to_numpy(), index=subgroup.index)
    cube = deviation.unstack("seed").unstack("subgroup")  # models x (seed, subgroup)
    seeds = sorted(set(rows.seed))
    subgroups = sorted(set(rows.subgroup))
    return np.stack(
        [[[cube.loc[model, (seed, subgroup)] for seed in seeds] for subgroup in subgroups] for model in MODELS]
    )


def population_bounds_terms(observed: np.ndarray, draws: np.ndarray, kappa: float = 3.0):
    """Per draw and subgroup, one model's terms above and below its Eq. 1 (docs/methods.md §1.13), by plain loops.

    ``observed``: (subgroups x seeds), ``draws``: (draws x subgroups x seeds). Above: −sign(d̄_g) times the
    draw's deviation less the observed, averaged over seeds; below: the same with +sign, but |·| (each seed's) for a
    subgroup whose seed-mean deviation d̄_g lies within ``kappa`` standard deviations of its draws' seed-means of 0.
    """
    above = np.zeros((len(draws), observed.shape[0]))
    below = np.zeros((len(draws), observed.shape[0]))
    for g in range(observed.shape[0]):
        mean = observed[g].mean()
        noise = draws[:, g, :] - observed[g][None, :]
        unsure = abs(mean) <= kappa * noise.mean(axis=1).std() or mean == 0
        above[:, g] = (np.abs(noise) if mean == 0 else -np.sign(mean) * noise).mean(axis=1)
        below[:, g] = (np.abs(noise) if unsure else np.sign(mean) * noise).mean(axis=1)
    return above, below


def combinations_of(k):
    for chosen in itertools.combinations_with_replacement(SETS, k - 1):
        combination = {"original": 1}
        for name in chosen:
            combination[name] = combination.get(name, 0) + 1
        yield combination


class Reference:
    """One metric on one split: its rows and the selection's draws, read as clusters (templates, where crossed)."""

    def __init__(self, scored, stats, metric, split, settings, design):
        self.rows = scored[(scored.metric == metric) & (scored.split == split)].assign(weight=1.0)
        self.design, self._draws = design, {}
        pooled = pooled_stats(stats, metric, "gender", split, ["original", *SETS], MODELS)
        self.clusters, self.subgroups = pooled.clusters, pooled.subgroups
        subgroup, key = self.rows.subgroup.to_numpy(), self.rows.group_key.to_numpy()
        self.members = [np.flatnonzero((subgroup == s) & (key == k)) for s, k in self.clusters]
        self.boot = bootstrap_weights(pooled, settings.bootstrap, draw_rng(settings.seed, BOOTSTRAP, metric, split))
        self.null = null_weights(pooled, settings.null_draws, draw_rng(settings.seed, NULL, metric, split))

    def draw(self, weights: np.ndarray) -> pd.DataFrame:
        """The rows one draw stands for: templates, where a crossed bootstrap draw takes them, else clusters."""
        if self.design == "crossed" and weights.sum(axis=0).max() > 1:
            return template_rows(self.rows, self.clusters, weights)
        return draw_rows(self.rows, self.members, self.subgroups, weights)

    def eq1(self, combination, weights=None) -> np.ndarray:
        return loop_eq1(self.rows if weights is None else self.draw(weights), combination).to_numpy()

    def draws_eq1(self, combination, kind: str) -> np.ndarray:
        """Eq. 1 of each of the ``boot`` or ``null`` draws, one row per draw: computed once per combination, as the
        tests of one study read the same draws."""
        key = (kind, label(combination))
        if key not in self._draws:
            self._draws[key] = np.array([self.eq1(combination, w) for w in getattr(self, kind)])
        return self._draws[key]

    def deviation_draws(self, combination) -> np.ndarray:
        """(draws x models x subgroups x seeds): :func:`loop_deviations` of each bootstrap draw's rows."""
        key = ("deviations", label(combination))
        if key not in self._draws:
            self._draws[key] = np.array([loop_deviations(self.draw(w), combination) for w in self.boot])
        return self._draws[key]

    def floor(self, combination) -> np.ndarray:
        return self.draws_eq1(combination, "null").mean(axis=0)

    def factor(self, level: float = 0.95) -> float:
        """t_{df, (1+level)/2} / z_{(1+level)/2}, df the clusters' degrees of freedom, counted from the rows."""
        keys = self.rows.groupby("subgroup").group_key.nunique()
        df = self.rows.group_key.nunique() - 1 if self.design == "crossed" else int((keys - 1).sum())
        q = (1 + level) / 2
        return scipy_stats.t.ppf(q, df) / scipy_stats.norm.ppf(q)


def combination_of(label: str) -> dict[str, int]:
    combination = {}
    for name in label.split("+"):
        combination[name] = combination.get(name, 0) + 1
    return combination


@pytest.fixture(scope="module", params=["nested", "crossed"])
def case(request):
    design = request.param
    scored = scored_rows(design=design)
    stats = sufficient_stats(scored)
    settings = SearchSettings.defaults(mode="shared", max_sets=2, permutations=59, bootstrap=40, null_draws=15, seed=7)
    selection = select(stats, settings)
    table = headline.bias_table(stats, selection, settings)
    refs = {
        (metric, split): Reference(scored, stats, metric, split, settings, design)
        for metric in SUBGROUPS
        for split in ("valid", "test")
    }
    perms = np.random.default_rng(settings.seed).permuted(np.tile(np.arange(len(MODELS)), (59, 1)), axis=1)
    return selection, table, refs, perms


def test_draws_are_cluster_resamples_and_label_permutations(case):
    _, table, refs, _ = case
    ref = refs["A", "valid"]
    own = np.array([[s == g for s, _ in ref.clusters] for g in ref.subgroups], dtype=float)
    assert (table.design == ref.design).all()
    if ref.design == "nested":
        size = own.sum(axis=1, keepdims=True)
        for weights in ref.boot:
            assert (weights[own == 0] == 0).all(), "a bootstrap draw keeps each cluster in its own subgroup"
            drawn = weights * (size - 1) / size  # Rao-Wu: c − 1 of c clusters drawn, each weighted c / (c − 1)
            np.testing.assert_allclose(drawn, np.round(drawn), atol=1e-12)
            np.testing.assert_allclose(drawn.sum(axis=1), size[:, 0] - 1)
        for weights in ref.null:
            assert (weights.sum(axis=0) == 1).all() and (weights.sum(axis=1) == own.sum(axis=1)).all()
        assert any((w != own).any() for w in ref.null), "the null moves clusters between subgroups"
        return
    templates = sorted({key for _, key in ref.clusters})
    of_template = np.array([[key == t for _, key in ref.clusters] for t in templates], dtype=float)
    for weights in ref.boot:
        per_template = [set(weights[own.astype(bool) & (row == 1)[None]]) for row in of_template]
        assert all(len(w) == 1 for w in per_template), "every subgroup takes its template's one weight"
        drawn = np.array([w.pop() for w in per_template]) * (len(templates) - 1) / len(templates)
        np.testing.assert_allclose(drawn, np.round(drawn), atol=1e-12)  # c − 1 of c templates, Rao-Wu
        assert drawn.sum() == pytest.approx(len(templates) - 1)
    for weights in ref.null:
        assert (weights.sum(axis=0) == 1).all()
        for row in of_template:  # within a template, its subgroups' labels are permuted among themselves
            assert (weights[:, row == 1].sum(axis=1) == own[:, row == 1].sum(axis=1)).all()
    assert any((w != own).any() for w in ref.null), "the null moves labels within templates"


def test_headline_intervals_and_floor_match_the_row_loop(case):
    _, table, refs, _ = case
    for (metric, split, prompts), part in table.groupby(["metric", "split", "prompts"]):
        ref = refs[metric, split]
        combination = {"original": 1} if prompts == "original" else combination_of(part.combination.iloc[0])
        part = part.set_index("model").loc[MODELS]
        bias = ref.eq1(combination)
        draws = ref.draws_eq1(combination, "boot")
        floor = ref.floor(combination)
        np.testing.assert_allclose(part.bias, bias, rtol=1e-10)
        low, middle, high = np.percentile(draws, [2.5, 50, 97.5], axis=0)
        # Eq. 1 cannot be negative, so a lower bound laid off below 0 is 0 (docs/methods.md §9).
        np.testing.assert_allclose(part.bias_lo, np.maximum(0, bias - ref.factor() * (middle - low)), rtol=1e-10)
        np.testing.assert_allclose(part.bias_hi, bias + ref.factor() * (high - middle), rtol=1e-10)
        assert (part.bias_lo <= part.bias).all() and (part.bias <= part.bias_hi).all(), "the interval holds Eq. 1"
        np.testing.assert_allclose(part.null_floor, floor, rtol=1e-10)
        np.testing.assert_allclose(part.excess_bias, bias - floor, rtol=1e-9, atol=1e-12)
        null = ref.draws_eq1(combination, "null")
        np.testing.assert_allclose(part.excess_p, (1 + (null >= bias - 1e-12).sum(axis=0)) / (len(null) + 1))
        assert (part.n_clusters == 3).all()
        ranks = np.array([scipy_stats.rankdata(d, method="min") for d in draws])
        assert (part.rank_lo.to_numpy() == np.floor(np.percentile(ranks, 2.5, axis=0))).all()
        assert (part.rank_hi.to_numpy() == np.ceil(np.percentile(ranks, 97.5, axis=0))).all()
        assert (part.rank_lo <= part["rank"]).all() and (part["rank"] <= part.rank_hi).all()


def test_null_best_r_and_null_p_match_the_row_loop(case):
    selection, _, refs, _ = case
    for row in selection.curve.itertuples():
        a, b = refs["A", "valid"], refs["B", "valid"]
        every = [(a.draws_eq1(c, "null"), b.draws_eq1(c, "null")) for c in combinations_of(row.k)]
        null_best = np.array(
            [max(scipy_stats.pearsonr(x[i], y[i]).statistic for x, y in every) for i in range(len(a.null))]
        )
        assert row.null_r_median == pytest.approx(np.median(null_best), abs=1e-10)
        assert row.null_r_q95 == pytest.approx(np.percentile(null_best, 95), abs=1e-10)
        assert row.null_p == pytest.approx((1 + np.sum(null_best >= row.best_r - 1e-12)) / (len(null_best) + 1))


def test_excess_r_its_permutation_p_and_r_intervals_match_the_row_loop(case):
    selection, _, refs, perms = case
    for row in selection.curve.itertuples():
        chosen = combination_of(row.selection)
        excess = {}
        for split in ("valid", "test"):
            a, b = refs["A", split], refs["B", split]
            excess[split] = [ref.eq1(chosen) - ref.floor(chosen) for ref in (a, b)]
            r_boot = [
                scipy_stats.pearsonr(x, y).statistic
                for x, y in zip(a.draws_eq1(chosen, "boot"), b.draws_eq1(chosen, "boot"), strict=True)
            ]
            low, high = (row.best_r_lo, row.best_r_hi) if split == "valid" else (row.test_r_lo, row.test_r_hi)
            assert (low, high) == pytest.approx(tuple(np.percentile(r_boot, [2.5, 97.5])), abs=1e-10)
        excess_r = scipy_stats.pearsonr(*excess["valid"]).statistic
        test_excess_r = scipy_stats.pearsonr(*excess["test"]).statistic
        assert row.excess_r == pytest.approx(excess_r, abs=1e-10)
        assert row.test_excess_r == pytest.approx(test_excess_r, abs=1e-10)
        # valid: selection-aware, the best excess r over every combination under each permutation
        a, b = refs["A", "valid"], refs["B", "valid"]
        every = [(a.eq1(c) - a.floor(c), b.eq1(c) - b.floor(c)) for c in combinations_of(row.k)]
        reached = sum(
            max(scipy_stats.pearsonr(x, y[perm]).statistic for x, y in every) >= excess_r - 1e-12 for perm in perms
        )
        assert row.excess_perm_p == pytest.approx((1 + reached) / (len(perms) + 1))
        # test: one combination, a plain permutation test
        x, y = excess["test"]
        reached = sum(scipy_stats.pearsonr(x, y[perm]).statistic >= test_excess_r - 1e-12 for perm in perms)
        assert row.test_excess_perm_p == pytest.approx((1 + reached) / (len(perms) + 1))


def test_partial_r_is_the_correlation_of_regression_residuals():
    """Hand-worked: y's that are exact linear functions of the covariate have no partial correlation left."""
    mean_score = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    noise1 = np.array([1.0, -1.0, 0.0, 1.0, -1.0])
    noise2 = np.array([1.0, -1.0, 0.5, 0.5, -1.0])
    first, second = 2 * mean_score + 0.01 * noise1, -mean_score + 0.01 * noise2
    assert scipy_stats.pearsonr(first, second).statistic < -0.99, "raw r is dominated by the shared covariate"
    residual = [noise - np.polyval(np.polyfit(mean_score, noise, 1), mean_score) for noise in (noise1, noise2)]
    expected = scipy_stats.pearsonr(*residual).statistic
    assert partial_r(first, second, mean_score[:, None]) == pytest.approx(expected, abs=1e-9)
    assert expected > 0.9


def test_partial_r_matches_the_recursive_formula_and_gives_up_without_degrees_of_freedom():
    rng = np.random.default_rng(0)
    x, y, z = rng.normal(size=(3, 12))
    r = lambda a, b: scipy_stats.pearsonr(a, b).statistic  # noqa: E731
    expected = (r(x, y) - r(x, z) * r(y, z)) / np.sqrt((1 - r(x, z) ** 2) * (1 - r(y, z) ** 2))
    assert partial_r(x, y, z[:, None]) == pytest.approx(expected, abs=1e-12)
    assert np.isnan(partial_r(x[:3], y[:3], rng.normal(size=(3, 2))))


def test_kendall_w_hand_worked_and_by_friedman():
    assert kendall_w(np.array([[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]])) == pytest.approx(1.0)
    assert kendall_w(np.array([[1, 2, 3], [3, 1, 2], [2, 3, 1]])) == pytest.approx(0.0)
    # two raters, three models: ranks (1,2,3) and (1,3,2): rank sums 2,5,5 around mean 4: S = 4+1+1 = 6;
    # W = 12 S / (m² (n³ − n)) = 72 / (4 · 24) = 0.75
    assert kendall_w(np.array([[0.1, 0.2, 0.3], [0.1, 0.9, 0.5]])) == pytest.approx(0.75)
    rng = np.random.default_rng(1)
    for values in (rng.normal(size=(3, 8)), rng.integers(0, 3, size=(4, 6)).astype(float)):
        m, n = values.shape
        chi2 = scipy_stats.friedmanchisquare(*values.T).statistic  # ties-corrected Friedman: W = chi2 / (m (n − 1))
        assert kendall_w(values) == pytest.approx(chi2 / (m * (n - 1)), abs=1e-12)


def test_kendall_w_permutation_p_is_a_loop_over_the_same_shuffles():
    values = np.random.default_rng(2).normal(size=(3, 6))
    w, p = kendall_w_test(values, 99, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    reached = sum(kendall_w(rng.permuted(values, axis=1)) >= w - 1e-12 for _ in range(99))
    assert p == pytest.approx((1 + reached) / 100)
    agreeing = np.tile(np.arange(7.0), (3, 1))
    assert kendall_w_test(agreeing, 199, np.random.default_rng(0)) == pytest.approx((1.0, 1 / 200))


def test_a_subgroup_with_one_cluster_cannot_be_resampled_its_intervals_are_nan_and_the_log_says_so(caplog):
    from biasflow.cairo.empty_reasons import SINGLE_CLUSTER
    from stats_helpers import drawn_stats

    stats = drawn_stats(np.random.default_rng(4), MODELS, ["A", "B"], SETS, clusters=1)
    settings = SearchSettings.defaults(max_sets=2, permutations=0, bootstrap=20, null_draws=5)
    with caplog.at_level("WARNING", logger="biasflow"):
        selection = select(stats, settings)
    assert "subgroup(s) g0, g1 have one cluster (group_key) each" in caplog.text
    assert "every interval of this metric and split is NaN" in caplog.text
    table = headline.bias_table(stats, selection, settings)
    interval_columns = ["bias_lo", "bias_hi", "excess_bias_lo", "excess_bias_hi", "rank_lo", "rank_hi"]
    assert table[interval_columns].isna().all().all(), "nothing to resample: no interval, never a zero-width one"
    assert (table.n_clusters == 1).all() and table.bias.notna().all()
    assert (table.why_empty == ", ".join(interval_columns) + ": " + SINGLE_CLUSTER).all(), "the table says why"
    assert selection.curve[["best_r_lo", "best_r_hi", "test_r_lo", "test_r_hi"]].isna().all().all()


def test_the_excess_measure_maximises_the_agreement_of_excess_biases(case):
    """With ``bias.measure: excess`` the best r is the best excess r over every combination, by the row loop."""
    _, _, refs, _ = case
    scored = scored_rows(design=refs["A", "valid"].design)
    settings = SearchSettings.defaults(
        mode="shared", max_sets=2, permutations=59, bootstrap=40, null_draws=15, seed=7, measure="excess"
    )
    curve = select(sufficient_stats(scored), settings).curve
    a, b = refs["A", "valid"], refs["B", "valid"]
    for row in curve.itertuples():
        every = {
            label(c): scipy_stats.pearsonr(a.eq1(c) - a.floor(c), b.eq1(c) - b.floor(c)).statistic
            for c in combinations_of(row.k)
        }
        assert row.best_r == pytest.approx(max(every.values()), abs=1e-10)
        assert every[row.selection] == pytest.approx(row.best_r, abs=1e-10)
        assert row.excess_r == pytest.approx(row.best_r, abs=1e-10) and row.excess_perm_p == row.perm_p


def label(combination: dict[str, int]) -> str:
    return "+".join(sorted(name for name, mult in combination.items() for _ in range(mult)))
