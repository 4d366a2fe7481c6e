"""The interval helpers every method shares (biasflow.intervals).

``interval_p``, the p read off the bootstrap interval's construction (docs/methods.md §1.16),
against a brute-force search: the smallest two-sided level α on a fine grid whose interval,
built from numpy's percentiles at α/2 and 1 − α/2 the way the 95% one is, leaves out 0.
``t_quantile``, the one Student t quantile of FPR's run intervals, FairPair's intervals and
the bootstrap's small-sample widening, against a printed t table.
"""

from __future__ import annotations

import numpy as np
import pytest

from biasflow.intervals import interval_p, small_sample_factor, standard_error, t_interval, t_quantile


def brute_force_p(estimate: float, draws: np.ndarray, factor: float) -> float:
    """The smallest α on a grid of 1/2000 whose interval, laid off from the estimate, leaves out 0 (1 if none)."""
    middle = np.median(draws)
    for alpha in np.arange(1, 2001) / 2000:
        low, high = np.quantile(draws, [alpha / 2, 1 - alpha / 2], method="inverted_cdf")
        if estimate - factor * (middle - low) > 0 or estimate + factor * (high - middle) < 0:
            return float(alpha)
    return 1.0


@pytest.mark.parametrize("seed", range(12))
def test_p_is_the_level_at_which_the_interval_reaches_zero(seed):
    rng = np.random.default_rng(seed)
    draws = rng.gamma(2.0, 1.0, 399) * rng.choice([-1, 1]) + rng.normal(0, 1)
    estimate, factor = rng.normal(0, 3), rng.uniform(1.0, 1.5)
    p = interval_p(estimate, draws, factor)
    assert p == pytest.approx(brute_force_p(estimate, draws, factor), abs=2 * 2 / 400)


def test_hand_worked():
    """Draws 1..9 (median 5), estimate 3, factor 1: draws at least 3 below 5 are 1 and 2, so p = 2·3/10."""
    assert interval_p(3.0, np.arange(1.0, 10.0), 1.0) == pytest.approx(0.6)
    assert interval_p(-3.0, np.arange(1.0, 10.0), 1.0) == pytest.approx(0.6), "draws at least 3 above: 8 and 9"
    assert interval_p(0.0, np.arange(1.0, 10.0), 1.0) == 1.0


@pytest.mark.parametrize("estimate, draws, factor", [
    (np.nan, np.arange(5.0), 1.0), (1.0, np.full(5, np.nan), 1.0), (1.0, np.arange(5.0), np.nan),
])
def test_undefined_is_nan_never_zero(estimate, draws, factor):
    assert np.isnan(interval_p(estimate, draws, factor))


@pytest.mark.parametrize("df, level, table", [(5, 0.95, 2.571), (2, 0.95, 4.303), (10, 0.90, 1.812), (30, 0.99, 2.750)])
def test_t_quantile_matches_a_printed_t_table(df, level, table):
    """The two-sided quantiles of a printed Student t table (three decimals)."""
    assert t_quantile(df, level) == pytest.approx(table, abs=5e-4)


def test_t_quantile_without_degrees_of_freedom_is_nan():
    assert np.isnan(t_quantile(0)) and np.isnan(t_quantile(-1))
    assert small_sample_factor(5) == pytest.approx(2.571 / 1.960, abs=1e-3)


def test_t_interval_matches_scipy_and_its_standard_error_the_textbook_one():
    from scipy import stats

    values = np.random.default_rng(2).normal(1.0, 2.0, 7)
    mean, low, high = t_interval(values, 0.9)
    assert (low, high) == pytest.approx(stats.t.interval(0.9, 6, loc=values.mean(), scale=stats.sem(values)))
    assert mean == pytest.approx(values.mean())
    assert standard_error(values) == pytest.approx(stats.sem(values))


@pytest.mark.parametrize("values", [[], [0.4], [0.3, 0.3, 0.3], [0.1 * 3, 0.1 + 0.2]])
def test_t_interval_without_spread_is_nan_never_zero_width(values):
    """One value, or values that all agree (the last pair equal floats written two ways), have no interval."""
    mean, low, high = t_interval(np.array(values))
    assert np.isnan(low) and np.isnan(high)
    assert np.isnan(mean) if not values else mean == pytest.approx(values[0])


def test_t_interval_covers_the_mean_of_few_normal_values():
    """Coverage near nominal at n = 4, where a z interval would cover about 88%."""
    rng = np.random.default_rng(3)
    covered = [low <= 2.0 <= high for low, high in (t_interval(rng.normal(2.0, 1.0, 4))[1:] for _ in range(4000))]
    assert abs(np.mean(covered) - 0.95) < 4 * np.sqrt(0.95 * 0.05 / 4000)
