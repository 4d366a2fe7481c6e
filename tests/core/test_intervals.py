"""The interval helpers every method shares (biasflow.intervals).

``t_quantile``, the one Student t quantile of FPR's run intervals, FairPair's intervals and
the bootstrap's small-sample widening, against a printed t table. The two rules every table
follows (docs/methods.md §9): bounds cut to the values a quantity can take, by hand and by
simulation (coverage kept, never below 0), and rounding told from a spread.
"""

from __future__ import annotations

import numpy as np
import pytest

from biasflow.intervals import (
    NON_NEGATIVE,
    estimate_interval,
    is_rounding,
    small_sample_factor,
    standard_error,
    t_interval,
    t_quantile,
    within,
    without_rounding,
)


@pytest.mark.parametrize(
    ("df", "level", "table"), [(5, 0.95, 2.571), (2, 0.95, 4.303), (10, 0.90, 1.812), (30, 0.99, 2.750)]
)
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
    """Coverage near nominal at n = 4, where a z interval would cover about 88%: 1,000 draws hold it within 4 Monte
    Carlo standard errors (±0.028), which the z interval's 7 points below nominal are far outside."""
    rng = np.random.default_rng(3)
    covered = [low <= 2.0 <= high for low, high in (t_interval(rng.normal(2.0, 1.0, 4))[1:] for _ in range(1000))]
    assert abs(np.mean(covered) - 0.95) < 4 * np.sqrt(0.95 * 0.05 / 1000)


def test_rounding_is_told_from_a_difference_by_the_values_size():
    """Equal values written two ways differ by rounding; a difference a study could report does not."""
    assert is_rounding((0.1 + 0.2) - 0.3, 0.3) and is_rounding(0.0, 0.0)
    assert not is_rounding(1e-6, 0.3) and not is_rounding(1e-12, 1e-12), "at the values' own size it is a difference"
    assert without_rounding(3.5e-18, 0.1) == 0.0 and without_rounding(0.02, 0.1) == 0.02
    np.testing.assert_array_equal(
        without_rounding(np.array([-5e-17, 0.3, 4e-17]), np.array([0.2, 0.2, 0.2])), [0.0, 0.3, 0.0]
    )


def test_bounds_are_cut_to_the_quantitys_values_and_empty_without_spread():
    """Hand-worked: a bound below 0 of a quantity that can't be negative is 0; a zero or rounding width, no interval."""
    assert within(0.0358, -0.0087, 0.09, NON_NEGATIVE) == (0.0, 0.09)
    assert within(0.36, -0.81, 1.54, NON_NEGATIVE) == (0.0, 1.54)
    assert within(-0.2, -0.5, 0.1) == (-0.5, 0.1), "a difference keeps its bounds"
    for estimate, low, high in [(0.0, 0.0, 0.0), (0.3, 0.3 - 1e-17, 0.3 + 1e-17), (0.3, 0.3, 0.3)]:
        assert np.isnan(within(estimate, low, high, NON_NEGATIVE)).all()
    low, high = within(np.array([0.1, 0.0]), np.array([-0.1, 0.0]), np.array([0.4, 0.0]), NON_NEGATIVE)
    assert low[0] == 0.0 and high[0] == 0.4 and np.isnan([low[1], high[1]]).all()


def test_estimate_interval_is_the_laid_off_spread_cut_at_the_limit():
    """Against numpy's percentiles by hand: the spread around the median laid off from the estimate, then cut at 0."""
    draws = np.random.default_rng(4).gamma(2.0, 0.05, (500, 3))
    estimate = np.array([0.02, 0.1, 0.3])
    low, middle, high = np.percentile(draws, [2.5, 50, 97.5], axis=0)
    got_low, got_high = estimate_interval(estimate, draws, 1.2, NON_NEGATIVE)
    np.testing.assert_allclose(got_low, np.maximum(0, estimate - 1.2 * (middle - low)))
    np.testing.assert_allclose(got_high, estimate + 1.2 * (high - middle))
    assert got_low[0] == 0.0 and got_low[2] > 0, "only a bound that would leave the values is cut"
    assert np.isnan(estimate_interval(np.array([0.0]), np.zeros((50, 1)), 1.2, NON_NEGATIVE)).all()


def test_a_cut_interval_keeps_its_coverage_and_never_leaves_the_values():
    """By simulation with a known truth: the mean of a skewed non-negative quantity near 0, t interval over 4 values.

    Cutting at 0 only moves bounds that lay below every value the truth can take, so it
    covers the truth exactly as often as the uncut interval, and no bound is ever below 0.
    2,000 studies: the coverage (about 0.879 in 40,000) is held above 0.85, 4 Monte Carlo
    standard errors (0.0073 each) below it.
    """
    rng = np.random.default_rng(5)
    truth, cut, uncut = 0.05, [], []
    for _ in range(2000):
        values = rng.exponential(truth, 4)
        _, low, high = t_interval(values, 0.95, NON_NEGATIVE)
        _, raw_low, raw_high = t_interval(values, 0.95)
        assert low >= 0 and low == max(0.0, raw_low) and high == raw_high
        cut.append(low <= truth <= high)
        uncut.append(raw_low <= truth <= raw_high)
    assert cut == uncut
    assert np.mean(cut) > 0.85  # the t interval of 4 exponential values under-covers a little; the cut changes nothing
