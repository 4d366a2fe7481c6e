"""The benchmark's pieces: the synthetic statistics have the requested shape, and the pandas
baseline and the vectorised engine agree on a tiny problem (docs/methods.md §1.10)."""

import numpy as np
import pytest

from benchmarks.baseline_pandas import baseline_select, pooled_bias
from benchmarks.bench_selection import combinations_per_k, compare_choices, compare_curves
from benchmarks.synthetic import paper_sized_stats
from biasflow.cairo.selection import SearchSettings, select
from biasflow.cairo.stats import STATS_COLUMNS, bias_from_stats
from unrendered_figures import unrendered

TINY = dict(n_models=4, n_paraphrasers=1, seeds_per_paraphraser=3, n_gen_seeds=2, subgroups=3, rng_seed=7)


def search_only(**settings) -> SearchSettings:
    """The search without bootstrap or null draws (the defaults: 1000 and 200), which the baseline does not make: what
    the two are compared on comes from streams of its own."""
    return SearchSettings.defaults(bootstrap=0, null_draws=0, **settings)


def test_synthetic_stats_have_requested_shape():
    stats = paper_sized_stats(
        n_models=5, n_paraphrasers=2, seeds_per_paraphraser=3, n_gen_seeds=4, subgroups=3, clusters=2
    )
    assert list(stats.columns) == STATS_COLUMNS
    assert stats["model"].nunique() == 5
    assert sorted(stats["metric"].unique()) == ["BOLD", "HONEST", "HolisticBias"]
    assert set(stats["split"]) == {"valid", "test"}
    assert stats["promptset"].nunique() == 1 + 2 * 3 and "original" in set(stats["promptset"])
    assert stats["seed"].nunique() == 4 and stats["subgroup"].nunique() == 3
    assert len(stats) == 5 * 3 * 2 * 7 * 4 * 3 * 2
    assert not stats.duplicated(STATS_COLUMNS[:8]).any()
    per_subgroup = stats.groupby(STATS_COLUMNS[:7])["n"].sum()
    assert per_subgroup.between(1, 500).all() and per_subgroup.median() >= 50
    assert (stats["score_sq_sum"] * stats["n"] >= stats["score_sum"] ** 2 * (1 - 1e-9)).all()
    assert ((stats["score_sum"] > 0) & (stats["score_sum"] < stats["n"])).all()
    assert stats.equals(
        paper_sized_stats(n_models=5, n_paraphrasers=2, seeds_per_paraphraser=3, n_gen_seeds=4, subgroups=3, clusters=2)
    )


def test_baseline_pooling_of_original_is_eq1():
    stats = paper_sized_stats(**TINY)
    expected = bias_from_stats(stats, normalise="none")
    expected = expected[
        (expected["promptset"] == "original") & (expected["split"] == "valid") & (expected["metric"] == "BOLD")
    ].set_index("model")["bias"]
    cell = stats[(stats["metric"] == "BOLD") & (stats["split"] == "valid")]
    np.testing.assert_allclose(pooled_bias(cell, ("original",)).to_numpy(), expected.to_numpy())


def test_baseline_pooling_repeats_rows_for_multiplicity():
    stats = paper_sized_stats(**TINY)
    cell = stats[(stats["metric"] == "HONEST") & (stats["split"] == "test")]
    twice = cell[cell["promptset"] == "para0-s1"]
    doubled = cell[cell["promptset"] == "original"].copy()
    for part in (twice, twice):
        merged = doubled.merge(part, on=["model", "seed", "subgroup"], suffixes=("", "_add"))
        doubled = merged.assign(
            score_sum=merged["score_sum"] + merged["score_sum_add"], n=merged["n"] + merged["n_add"]
        )
        doubled = doubled[cell.columns]
    np.testing.assert_allclose(
        pooled_bias(cell, ("original", "para0-s1", "para0-s1")).to_numpy(),
        pooled_bias(doubled, ("original",)).to_numpy(),
    )


@pytest.mark.parametrize("combinations", ["multisets", "subsets"])
def test_engine_equals_baseline_on_tiny_problem(combinations):
    stats = paper_sized_stats(**TINY)
    engine = select(stats, search_only(mode="shared", combinations=combinations, max_sets=3, permutations=30))
    curve, extras = baseline_select(stats, mode="shared", combinations=combinations, max_sets=3, permutations=30)
    assert compare_curves(engine.curve, curve, max_k=3, perm_p=True) == 3 * 3
    assert compare_choices(engine.choices, extras["winners"], max_k=3) == 3 * 3
    assert curve.groupby("pair")["n_combinations"].apply(list).map(tuple).unique().tolist() == [
        tuple(combinations_per_k(3, 3, combinations))
    ]


def test_engine_equals_baseline_in_independent_mode():
    """Independent mode, permutation p included: the engine prunes permutations with a bound, the baseline does not."""
    stats = paper_sized_stats(**{**TINY, "n_models": 6})
    engine = select(stats, search_only(mode="independent", max_sets=3, permutations=20), block_size=7)
    curve, extras = baseline_select(stats, mode="independent", max_sets=3, permutations=20)
    assert compare_curves(engine.curve, curve, max_k=3, perm_p=True) == 3 * 3
    assert compare_choices(engine.choices, extras["winners"], max_k=3) == 3 * 3
    squares = [n * n for n in combinations_per_k(3, 3, "multisets")]
    assert curve.sort_values(["pair", "k"])["n_combinations"].tolist() == squares * 3


def test_the_comparisons_benchmark_runs_every_method_at_its_quick_size(tmp_path):
    """benchmarks/bench_comparisons.py --quick --models 4: every method's 6 pairs of four models (45 of ten without
    --models), timed beside its step."""
    import json

    from benchmarks.bench_comparisons import main

    assert main(["--quick", "--models", "4", "--json", str(tmp_path / "rows.json")]) == 0
    rows = {row["method"]: row for row in json.loads((tmp_path / "rows.json").read_text())}
    assert set(rows) == {"CAIRO", "FPR gaps", "FairPair"}
    assert all(row["size"].endswith(("4 models", "4 systems")) for row in rows.values())
    assert rows["FairPair"]["rows"] == 6, "one row per pair and dissimilarity"
    assert rows["FPR gaps"]["rows"] == 6 * 2 * (4 + 1), "per pair and class: 4 groups and the span"
    assert all(row["baseline_s"] > 0 and row["comparisons_s"] > 0 and row["variance_s"] > 0 for row in rows.values())


def test_the_leaderboard_benchmark_times_every_pair_the_baselines_and_none(tmp_path, monkeypatch):
    """benchmarks/bench_comparisons.py --leaderboard --quick: each method's step at 3 models, with n(n − 1)/2, n − 1
    and no pairs compared (docs/methods.md §7), the ratio taken to the step with none.

    The harness (a first run to warm up, the ratio, the JSON) runs once, on CAIRO's step, the cheapest; FPR's and
    FairPair's steps run without it at the same size. The unrecorded run before each size's choices, which only
    steadies their timing, is left out, and the figures are built but not rendered (tests/unrendered_figures.py):
    what is checked is the rows and that each step is timed.
    """
    import json

    from benchmarks import bench_comparisons
    from benchmarks.bench_comparisons import CHOICES, fairpair_leaderboard, fpr_leaderboard, main

    unrendered(monkeypatch)
    monkeypatch.setattr(bench_comparisons, "WARM", CHOICES)
    assert main(["--leaderboard", "cairo", "--quick", "--sizes", "3", "--json", str(tmp_path / "rows.json")]) == 0
    rows = json.loads((tmp_path / "rows.json").read_text())
    assert [row["pairs"] for row in rows] == ["none", "baseline", "all"]
    assert all((row["ratio"] == 1) == (row["pairs"] == "none") for row in rows)
    for method in (fpr_leaderboard, fairpair_leaderboard):
        (tmp_path / method.__name__).mkdir()
        rows += method(3, True, tmp_path / method.__name__)
    per_pair = {"FPR gaps (fpr-summary)": 2 * (3 + 1), "FairPair (summary step)": 1, "CAIRO (cairo-select)": 16}
    assert len(rows) == 3 * 3 and {row["method"] for row in rows} == set(per_pair)
    for row in rows:
        pairs = {"all": 3, "baseline": 2, "none": 0}[row["pairs"]]
        assert row["models"] == 3 and row["rows"] == pairs * per_pair[row["method"]], row
        assert row["seconds"] > 0 and row["cpu_s"] > 0
