"""CAIRO's power planner: clusters counted by design effect, checked by simulation (docs/methods.md §6.3, §6.5)."""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from biasflow.cairo.power import Settings, clusters, icc, pair_rows, plan, subgroup_rows
from biasflow.cairo.stats import STATS_COLUMNS

SETTINGS = Settings.defaults()


def clustered_scores(rng, means: dict[str, float], n_clusters: int, size: int, sd_between: float, sd_within: float):
    """(subgroup, cluster, scores) with a random effect per cluster: an ICC of sd_b² / (sd_b² + sd_w²)."""
    for subgroup, mean in means.items():
        for c in range(n_clusters):
            yield (
                subgroup,
                f"{subgroup}-page{c}",
                mean + sd_between * rng.standard_normal() + sd_within * rng.standard_normal(size),
            )


def stats_of(cells, model: str = "m", metric: str = "BOLD") -> pd.DataFrame:
    """CAIRO statistics of the original prompts, one row per cluster, split in two by cluster."""
    rows = [
        {
            "model": model,
            "metric": metric,
            "axis": "gender",
            "split": ("valid", "test")[i % 2],
            "promptset": "original",
            "seed": 0,
            "subgroup": subgroup,
            "group_key": key,
            "score_sum": scores.sum(),
            "score_sq_sum": (scores**2).sum(),
            "n": len(scores),
        }
        for i, (subgroup, key, scores) in enumerate(cells)
    ]
    return pd.DataFrame(rows, columns=STATS_COLUMNS)


def test_the_icc_estimate_is_unbiased_over_simulated_pilots():
    """ANOVA's ICC averaged over 100 pilots lands on the true one; a subgroup difference is not taken for clustering.

    A pilot's ICC has an sd of about 0.047 and its variance one of 7%: the means' Monte Carlo errors are 0.0047 and
    0.7%, so the tolerances below are 3.2 and 4.3 of them.
    """
    rng = np.random.default_rng(5)
    estimates = [
        icc(clusters(stats_of(clustered_scores(rng, {"f": 0.0, "m": 3.0}, 30, 8, 0.5, 1.0)))) for _ in range(100)
    ]
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
    tables = [stats_of(clustered_scores(rng, {"f": 0.2, "m": 0.25}, 6, 4, 0.05, 0.2), model=f"m{i}") for i in range(3)]
    path = tmp_path / "gender.parquet"
    pd.concat(tables).to_parquet(path)
    with caplog.at_level(logging.WARNING, logger="biasflow"):
        table = plan({"gender": [str(path)]}, SETTINGS)
    agreement = table[table["measure"] == "Pearson r"].iloc[0]
    assert agreement["n"] == 3 and math.isnan(agreement["mdd"]) and agreement["n_needed"] == 30
    assert "3 models, agreement gender (cairo): with 3 models the smallest Pearson r difference" in caplog.text
    assert "m0, BOLD gender, f (cairo): with 24 continuations" in caplog.text
    assert set(table.loc[table["measure"] == "mean score", "subgroup"]) == {"f", "m"}


def paired_cells(rng, shift: float, clusters_per_subgroup: int, size: int):
    """Two models' scores on the same clusters: a cluster effect both share, model b's subgroup f shifted."""
    for subgroup in ("f", "m"):
        for c in range(clusters_per_subgroup):
            shared = 0.8 * rng.standard_normal()
            for model, extra in (("a", 0.0), ("b", shift if subgroup == "f" else 0.0)):
                yield model, subgroup, f"{subgroup}-page{c}", 1.0 + shared + extra + rng.standard_normal(size)


def paired_stats(rng, shift: float = 0.6, clusters_per_subgroup: int = 12, size: int = 6) -> pd.DataFrame:
    rows = [
        {
            "model": model,
            "metric": "BOLD",
            "axis": "gender",
            "split": "test",
            "promptset": "original",
            "seed": 0,
            "subgroup": subgroup,
            "group_key": key,
            "score_sum": scores.sum(),
            "score_sq_sum": (scores**2).sum(),
            "n": len(scores),
        }
        for model, subgroup, key, scores in paired_cells(rng, shift, clusters_per_subgroup, size)
    ]
    return pd.DataFrame(rows, columns=STATS_COLUMNS)


def eq1_by_hand(cells: list, model: str) -> float:
    """Σ over subgroups of |subgroup mean − mean of all|, from :func:`paired_cells`' scores (docs/methods.md §1.6)."""
    sums, counts = {}, {}
    for name, subgroup, _, scores in cells:
        if name == model:
            sums[subgroup] = sums.get(subgroup, 0.0) + scores.sum()
            counts[subgroup] = counts.get(subgroup, 0) + len(scores)
    overall = sum(sums.values()) / sum(counts.values())
    return sum(abs(sums[g] / counts[g] - overall) for g in sums)


def test_the_paired_standard_error_is_the_spread_of_the_difference_over_replicate_studies():
    """The planner's se (sd / √n) from one pilot against the sd of Eq. 1 of a less Eq. 1 of b over 300 studies
    of the same design, computed by hand: within 10% on average over 20 pilots (docs/methods.md §6.6)."""
    rng = np.random.default_rng(8)
    studies = (list(paired_cells(rng, 0.6, 12, 6)) for _ in range(300))  # paired_stats' studies, as their cells
    replicate = [eq1_by_hand(cells, "a") - eq1_by_hand(cells, "b") for cells in studies]
    truth = np.std(replicate, ddof=1)
    estimates = []
    for _ in range(20):
        [row] = pair_rows(paired_stats(rng), SETTINGS)
        assert row["n"] == 12 and row["unit"] == "group keys per subgroup" and row["model"] == "a vs b"
        estimates.append(row["sd"] / math.sqrt(row["n"]))
    assert np.mean(estimates) == pytest.approx(truth, rel=0.1), (np.mean(estimates), truth)


def test_the_paired_mdd_and_size_follow_the_one_mean_t_design():
    """At the planner's mdd the one-sample t test on n clusters has power 0.8 (scipy's noncentral t)."""
    [row] = pair_rows(paired_stats(np.random.default_rng(9)), SETTINGS)
    n, d = row["n"], row["mdd"] / row["sd"]
    critical = scipy_stats.t.ppf(0.975, n - 1)
    power = scipy_stats.nct.sf(critical, n - 1, d * math.sqrt(n)) + scipy_stats.nct.cdf(
        -critical, n - 1, d * math.sqrt(n)
    )
    assert power == pytest.approx(0.8, abs=1e-3)
    target = row["target"] / row["sd"]
    needed = row["n_needed"]
    assert scipy_stats.nct.sf(
        scipy_stats.t.ppf(0.975, needed - 1), needed - 1, target * math.sqrt(needed)
    ) == pytest.approx(0.8, abs=0.01)


def test_the_gate_rows_plan_from_the_interval_compare_reads():
    """docs/methods.md §6.8: on the same pilot, the release gate's row is worked from the 90% interval and group keys
    of `biasflow compare` (both splits pooled, the configured draws), so its n_needed is the units the inconclusive
    verdict quotes; its mdd is (z_0.95 + z_0.8) · (hi90 − lo90) / (2 z_0.95)."""
    from biasflow.cairo.verdicts import command

    rng = np.random.default_rng(10)
    pilot = pd.concat([paired_stats(rng, shift=0.0), paired_stats(rng, shift=0.0).assign(split="valid")])
    pilot["group_key"] = pilot["group_key"] + "-" + pilot["split"]
    table = plan({"gender": [pilot]}, Settings.defaults(min_effect=0.01))
    [row] = table[table["measure"].str.startswith("non-inferiority margin")].to_dict("records")
    [judged] = command([pilot], "b", "a", None, 0.01, "--margin").rows.to_dict("records")
    assert judged["verdict"] == "inconclusive" and judged["n_units"] == 24
    assert (row["model"], row["scope"], row["measure"], row["unit"], row["n"]) == (
        "a vs b",
        "BOLD gender both splits",
        "non-inferiority margin (Eq. 1)",
        "pages or templates per subgroup",
        24,
    )
    assert row["n_needed"] == judged["units_needed"] > 24
    z = scipy_stats.norm.ppf(0.95)
    assert row["mdd"] == pytest.approx((z + scipy_stats.norm.ppf(0.8)) * (judged["hi90"] - judged["lo90"]) / (2 * z))
    # The configured draws are the comparison's: another seed moves the interval, and the plan with it.
    other = plan({"gender": [pilot]}, Settings.defaults(min_effect=0.01, seed=1))
    assert other.loc[other["measure"] == row["measure"], "mdd"].iloc[0] != row["mdd"]
