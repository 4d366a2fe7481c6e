"""CAIRO's intervals and no-bias null calibrated by simulation with a known truth (docs/methods.md §1.11-1.13).

Studies are drawn by :func:`benchmarks.synthetic.toxicity_study`: scores like a toxicity
classifier's, models that differ in how often they are toxic at all and, where a scenario
says so, subgroups that multiply that rate, prompts in clusters. Sizes are quick; the
thresholds leave room for the Monte Carlo error of the repetitions (about ±2 points at 95%
over 200), and the random streams are fixed so the outcome is the same on every run. The
same scenarios at 1000 repetitions are in benchmarks/cairo_calibration.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.cairo_calibration import (  # noqa: E402
    MODEL_RATES,
    expected_eq1,
    interval_draws,
    no_group_difference,
    one_metric,
    population_value,
    shared_group_bias,
    study_curves,
)
from biasflow.cairo.combinations import pooled_stats  # noqa: E402
from biasflow.cairo.uncertainty import draw_bias  # noqa: E402

REPETITIONS = 200


def eq1_by_hand(stats: pd.DataFrame) -> pd.Series:
    """Eq. 1 per model from one metric's rows (one split, one set, one seed), with a pandas group-by."""
    groups = stats.groupby(["model", "subgroup"])[["score_sum", "n"]].sum()
    mean = groups.score_sum / groups.n
    overall = groups.groupby("model").score_sum.sum() / groups.groupby("model").n.sum()
    return (mean - overall.reindex(mean.index, level="model")).abs().groupby("model").sum()


@pytest.fixture(scope="module")
def intervals():
    """Eq. 1, its null floor and both 95% intervals of 4 models on 200 simulated datasets."""
    return interval_draws(REPETITIONS, seed=11)


def test_the_simulated_eq1_is_eq1():
    """The scenario's Eq. 1 is the pandas one and the numpy one on the same data (so each measures the same)."""
    stats = one_metric(np.random.default_rng(3))
    models = [f"m{i:02d}" for i in range(len(MODEL_RATES))]
    pooled = pooled_stats(stats, "A", "religion", "valid", ["original"], models)
    np.testing.assert_allclose(draw_bias(np.array([1.0]), pooled, pooled.membership[None], "none")[0],
                               eq1_by_hand(stats).loc[models], rtol=1e-12)
    assert expected_eq1(1, seed=3) == pytest.approx(eq1_by_hand(one_metric(np.random.default_rng(3))).loc[models])


def test_eq1_interval_covers_the_estimators_own_mean(intervals):
    """Eq. 1 is biased upward; its interval is about E[Eq. 1] at these sizes, found by simulating 4000 datasets."""
    expected = expected_eq1(4000, seed=12)
    covered = (intervals["eq1_lo"] <= expected) & (expected <= intervals["eq1_hi"])
    assert (covered.mean(axis=0) >= 0.90).all(), covered.mean(axis=0)
    assert (expected > population_value()).all(), "the bias the docs warn of: E[Eq. 1] exceeds the population value"


def test_excess_interval_covers_the_population_group_difference(intervals):
    truth = population_value()
    covered = (intervals["excess_lo"] <= truth) & (truth <= intervals["excess_hi"])
    clear = [0, 2]  # models whose subgroups clearly differ
    assert (covered.mean(axis=0)[clear] >= 0.90).all(), covered.mean(axis=0)


def test_excess_bias_is_centred_on_zero_without_group_differences_and_eq1_is_not(intervals):
    no_difference = 1  # the model whose rate is the same for every subgroup
    excess = intervals["eq1"][:, no_difference] - intervals["floor"][:, no_difference]
    eq1 = intervals["eq1"][:, no_difference]
    assert abs(excess.mean()) <= 2 * excess.std(ddof=1) / np.sqrt(len(excess))
    assert eq1.mean() > 10 * eq1.std(ddof=1) / np.sqrt(len(eq1))


def test_toxicity_levels_alone_fool_perm_p_but_not_excess_perm_p_or_null_p():
    """No subgroup differs; models differ only in how toxic they are (docs/methods.md §1.12-1.13).

    400 studies: excess_perm_p runs slightly liberal here (about 6.5% below 0.05 over 1000
    studies, benchmarks/README.md), so 200 would leave a 10% bound within 2 Monte Carlo errors.
    """
    curve = study_curves(no_group_difference, seed=21, repetitions=400)
    rejected = (curve[["perm_p", "excess_perm_p", "test_excess_perm_p", "null_p"]] < 0.05).mean()
    assert rejected.perm_p >= 0.3, rejected
    assert rejected.excess_perm_p <= 0.10 and rejected.test_excess_perm_p <= 0.10, rejected
    assert rejected.null_p <= 0.10, rejected
    assert curve.best_r.mean() > 0.4 and abs(curve.test_excess_r.mean()) < 0.1


def test_a_group_bias_both_metrics_share_is_found_by_excess_perm_p():
    """Subgroups multiply the toxic rate alike in both metrics, more strongly in some models than in others."""
    curve = study_curves(shared_group_bias, seed=22, repetitions=REPETITIONS)
    rejected = (curve[["excess_perm_p", "test_excess_perm_p"]] < 0.05).mean()
    assert rejected.excess_perm_p >= 0.80 and rejected.test_excess_perm_p >= 0.80, rejected
