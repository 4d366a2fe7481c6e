"""CAIRO's power planner: clusters counted by their design effect, checked by simulation (docs/methods.md §6.3, §6.5)."""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from biasflow.cairo.power import Settings, clusters, icc, plan, subgroup_rows
from biasflow.cairo.stats import STATS_COLUMNS

SETTINGS = Settings.defaults()


def clustered_scores(rng, means: dict[str, float], n_clusters: int, size: int, sd_between: float, sd_within: float):
    """(subgroup, cluster, scores) with a random effect per cluster: an ICC of sd_b² / (sd_b² + sd_w²)."""
    for subgroup, mean in means.items():
        for c in range(n_clusters):
            yield subgroup, f"{subgroup}-page{c}", mean + sd_between * rng.standard_normal() + \
                sd_within * rng.standard_normal(size)


def stats_of(cells, model: str = "m", metric: str = "BOLD") -> pd.DataFrame:
    """CAIRO statistics of the original prompts, one row per cluster, split in two by cluster."""
    rows = [{"model": model, "metric": metric, "axis": "gender", "split": ("valid", "test")[i % 2],
             "promptset": "original", "seed": 0, "subgroup": subgroup, "group_key": key,
             "score_sum": scores.sum(), "score_sq_sum": (scores**2).sum(), "n": len(scores)}
            for i, (subgroup, key, scores) in enumerate(cells)]
    return pd.DataFrame(rows, columns=STATS_COLUMNS)


def test_the_icc_estimate_is_unbiased_over_simulated_pilots():
    """ANOVA's ICC averaged over 200 pilots lands on the true one; a subgroup difference is not taken for clustering."""
    rng = np.random.default_rng(5)
    estimates = [icc(clusters(stats_of(clustered_scores(rng, {"f": 0.0, "m": 3.0}, 30, 8, 0.5, 1.0))))
                 for _ in range(200)]
    rho = np.array([e[0] for e in estimates])
    variance = np.array([e[1] for e in estimates])
    assert rho.mean() == pytest.approx(0.25 / 1.25, abs=0.015)
    assert variance.mean() == pytest.approx(1.25, rel=0.03)


def test_one_cluster_per_subgroup_counts_each_cluster_once():
    rng = np.random.default_rng(0)
    table = pd.DataFrame(subgroup_rows(stats_of(clustered_scores(rng, {"f": 0, "m": 0}, 1, 50, 0.0, 1.0)), SETTINGS))
    assert (table["n"] == 50).all() and table["n_effective"].tolist() == [1.0, 1.0]
    assert table["mdd"].isna().all(), "two units cannot show anything"


def test_a_simulated_subgroup_at_the_mdd_is_detected_about_80_percent_of_the_time():
    """Studies of the pilot's clusters, one subgroup's mean raised by the planner's mdd, tested on cluster means."""
    rng = np.random.default_rng(7)
    n_clusters, size, sd_b, sd_w = 300, 5, 0.4, 1.0
    pilot = stats_of(clustered_scores(rng, {"f": 0.0, "m": 0.0}, n_clusters, size, sd_b, sd_w))
    row = next(r for r in subgroup_rows(pilot, SETTINGS) if r["subgroup"] == "f")
    assert row["n"] == n_clusters * size
    assert row["n_effective"] == pytest.approx(row["n"] / (1 + (size - 1) * sd_b**2 / (sd_b**2 + sd_w**2)), rel=0.1)
    draws = 2000
    shape = (draws, n_clusters)
    def cluster_means(shift):
        return shift + sd_b * rng.standard_normal(shape) + sd_w * rng.standard_normal(shape) / math.sqrt(size)
    _, p = scipy_stats.ttest_ind(cluster_means(row["mdd"]), cluster_means(0.0), axis=1)
    detected = np.mean(p < 0.05)
    assert 0.75 <= detected <= 0.85, detected


def test_the_plan_names_short_subgroups_and_the_models_an_agreement_needs(caplog, tmp_path):
    rng = np.random.default_rng(1)
    tables = [stats_of(clustered_scores(rng, {"f": 0.2, "m": 0.25}, 6, 4, 0.05, 0.2), model=f"m{i}")
              for i in range(3)]
    path = tmp_path / "gender.parquet"
    pd.concat(tables).to_parquet(path)
    with caplog.at_level(logging.WARNING, logger="biasflow"):
        table = plan({"gender": [str(path)]}, SETTINGS)
    agreement = table[table["measure"] == "Pearson r"].iloc[0]
    assert agreement["n"] == 3 and math.isnan(agreement["mdd"]) and agreement["n_needed"] == 30
    assert "3 models, agreement gender (cairo): with 3 models the smallest Pearson r difference" in caplog.text
    assert "m0, BOLD gender, f (cairo): with 24 continuations" in caplog.text
    assert set(table.loc[table["measure"] == "mean score", "subgroup"]) == {"f", "m"}
