"""The studentized bootstrap over prompts (docs/methods.md §2.5) against a slow loop over the same resamples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from biasflow.fairpair.intervals import studentized_interval


def slow_interval(values, weights, seed: int, draws: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """Each resample's weighted mean and linearised error by plain loops; t*'s quantiles as order statistics."""
    m = len(values)

    def mean_and_error(xs, ws):
        total = sum(ws)
        mean = sum(w * x for w, x in zip(ws, xs, strict=True)) / total
        return mean, math.sqrt(m / (m - 1) * sum((w * (x - mean)) ** 2 for w, x in zip(ws, xs, strict=True))) / total

    mean, se = mean_and_error(values, weights)
    chosen = np.random.default_rng(seed).integers(0, m, size=(draws, m))
    t = []
    for row in chosen:
        resampled_mean, resampled_se = mean_and_error([values[i] for i in row], [weights[i] for i in row])
        t.append((resampled_mean - mean) / resampled_se if resampled_se else 0.0)
    t.sort()
    tail = (1 - confidence) / 2
    lower, upper = t[math.ceil(tail * draws) - 1], t[math.ceil((1 - tail) * draws) - 1]
    return mean, mean - upper * se, mean - lower * se


def test_the_weighted_interval_equals_the_slow_loop():
    rng = np.random.default_rng(0)
    values, weights = rng.gamma(1.0, 0.2, 15) - 0.2, rng.uniform(1, 10, 15)
    fast = studentized_interval(values, np.random.default_rng(3), 999, 0.95, "test", weights)
    assert fast == pytest.approx(slow_interval(list(values), list(weights), 3, 999))


def test_equal_weights_are_the_textbook_bootstrap_t():
    """With equal weights se = sd/√m (scipy.stats.sem), t* = (mean* − mean) / sem*."""
    values = np.random.default_rng(1).exponential(1.0, 12)
    mean, low, high = studentized_interval(values, np.random.default_rng(4), 500, 0.9, "test")
    assert mean == pytest.approx(values.mean())
    resampled = values[np.random.default_rng(4).integers(0, 12, size=(500, 12))]
    t = np.sort((resampled.mean(axis=1) - values.mean()) / stats.sem(resampled, axis=1))
    assert (low, high) == pytest.approx(
        (values.mean() - t[474] * stats.sem(values), values.mean() - t[24] * stats.sem(values))
    )


def test_a_right_skew_widens_the_upper_side():
    """t* follows the skew: the interval reaches further above a right-skewed mean than below it."""
    values = np.random.default_rng(2).lognormal(0, 1.2, 20)
    mean, low, high = studentized_interval(values, np.random.default_rng(5), 2000, 0.95, "test")
    assert high - mean > mean - low


def test_the_interval_is_cut_to_the_values_the_mean_can_take():
    values = np.random.default_rng(3).lognormal(0, 1.0, 10)
    mean, low, high = studentized_interval(values, np.random.default_rng(6), 2000, 0.95, "test")
    cut = studentized_interval(values, np.random.default_rng(6), 2000, 0.95, "test", limits=(low + 0.1, high - 0.1))
    assert cut == pytest.approx((mean, low + 0.1, high - 0.1))


def test_a_limit_a_rounding_below_the_estimate_still_holds_it():
    """Every prompt's R at 1 puts R_excess at its upper limit 1 − centre, which rounding can leave an ulp below the
    mean: the interval still holds its estimate (the summary's figure drew a negative error bar and failed)."""
    values = np.random.default_rng(4).normal(0.4, 0.05, 8)
    mean = studentized_interval(values, np.random.default_rng(7), 2000, 0.95, "test")[0]
    for limits in ((-np.inf, np.nextafter(mean, -np.inf)), (np.nextafter(mean, np.inf), np.inf)):
        estimate, low, high = studentized_interval(values, np.random.default_rng(7), 2000, 0.95, "test", limits=limits)
        assert low <= estimate <= high and estimate in (low, high)


@pytest.mark.parametrize(
    ("values", "draws", "words"),
    [
        (np.array([0.3, 0.3, 0.3, 0.3]), 100, "all alike"),
        (np.array([0.3]), 100, "too few"),
        (np.array([0.1, 0.5, 0.2]), 1000, "t* is unbounded"),
    ],
)
def test_an_interval_that_cannot_be_had_is_nan_with_a_log_line(values, draws, words, caplog):
    mean, low, high = studentized_interval(values, np.random.default_rng(0), draws, 0.95, "m, sentiment: R_excess")
    assert mean == pytest.approx(values.mean()) and math.isnan(low) and math.isnan(high)
    assert words in caplog.text and "m, sentiment: R_excess" in caplog.text


def test_no_draws_turn_the_interval_off():
    mean, low, high = studentized_interval(np.array([0.1, 0.4, 0.2]), np.random.default_rng(0), 0, 0.95, "test")
    assert mean == pytest.approx(0.7 / 3) and math.isnan(low) and math.isnan(high)
