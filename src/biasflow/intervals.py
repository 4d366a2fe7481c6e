"""Intervals from resampling draws that every method shares (docs/methods.md §1.11, §5.5).

A bootstrap estimates a standard error from a handful of clusters (pages, templates,
prompts), and its draws of a biased statistic such as Eq. 1 sit above the estimate. Two
corrections follow, used by CAIRO's intervals and the scorer's bias alike: the draws'
spread is laid off from the estimate, so the interval always holds it, and widened by
t/z for the clusters' degrees of freedom, as Student's t does for a mean. The Student t
quantile (:func:`t_quantile`) and interval (:func:`t_interval`, :func:`standard_error`) are
every method's one: FPR's intervals over runs, FairPair's over prompts, and this widening.

Two rules hold in every table (docs/methods.md §9): an interval stays within the values its
quantity can take (Eq. 1 and a mean F are at least 0; :func:`within`), and a difference or a
spread no larger than rounding (:func:`is_rounding`) is none: an estimate that is 0 but for
the order of a sum is written as 0, and an interval whose draws do not spread is empty
(NaN), never of zero width.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

# Percentiles of a 95% interval.
INTERVAL = (2.5, 97.5)
# Values that agree to this share of their size are one value computed two ways (a sum taken in
# another order, a mean of equal floats): float64 rounds at about 1e-16 per operation, so sums of
# up to millions of scores stay far inside it, and no difference a study reports is that small.
ROUNDING = 1e-9
# The values a quantity can take: any (a difference), or none below 0 (Eq. 1, a mean F).
UNBOUNDED, NON_NEGATIVE = (-math.inf, math.inf), (0.0, math.inf)
# Bootstrap standard errors within which two estimates (or one and 0) cannot be told apart, where a bound of a
# maximum or an absolute value must allow for a tie in the population (docs/methods.md §1.16, §3.8): a true tie lies
# beyond 3 in 0.3% of samples (normal), where its noise would be taken as signal.
TIE_SE = 3.0


def is_rounding(difference: npt.ArrayLike, scale: npt.ArrayLike) -> np.ndarray | np.bool_:
    """Whether each ``difference`` is no larger than rounding of values of size ``scale``: every table's one test.

    ``scale`` is the size of the values the difference was taken between (a mean score, the
    largest of a set of values, 1 for rates); an exact 0 is rounding at any scale. It decides
    both rules of docs/methods.md §9: an estimate that is rounding is written as 0
    (:func:`without_rounding`), and an interval or a set of values whose spread is rounding
    has no spread to measure (NaN bounds, no test).
    """
    rounding: np.ndarray | np.bool_ = np.abs(difference) <= ROUNDING * np.abs(scale)
    return rounding


def without_rounding(values: Any, scale: npt.ArrayLike) -> Any:
    """``values`` with every one that :func:`is_rounding` at ``scale`` written as exactly 0 (same shape and type)."""
    if np.ndim(values) == 0:
        return 0.0 if bool(is_rounding(values, scale)) else values
    return np.where(is_rounding(values, scale), 0.0, values)


def within(
    estimate: npt.ArrayLike, low: npt.ArrayLike, high: npt.ArrayLike, limits: tuple[float, float] = UNBOUNDED
) -> tuple[Any, Any]:
    """The bounds ``low``-``high`` of ``estimate`` cut to ``limits``, or NaN where they do not spread (methods.md §9).

    Arrays give arrays; scalars give two floats.

    Cutting keeps coverage: the quantity lies within its limits, so an interval that held it
    still does, and a lower bound laid off below 0 from an Eq. 1 near 0 says only that the
    data allow no difference, which 0 says too. Bounds whose width is rounding of the
    largest of the three (an exact 0 included) are NaN: nothing varied, which is no
    certainty.
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    scale = np.fmax(np.fmax(np.abs(low), np.abs(high)), np.abs(np.asarray(estimate, dtype=np.float64)))
    spread = ~is_rounding(high - low, scale)  # False for NaN bounds too, which stay NaN
    low = np.where(spread, np.clip(low, *limits), np.nan)
    high = np.where(spread, np.clip(high, *limits), np.nan)
    return (low, high) if low.ndim else (float(low), float(high))


def t_quantile(df: int, level: float = 0.95) -> float:
    """t_{df, (1 + level)/2}: the Student t quantile of a two-sided ``level`` interval, every method's one.

    NaN for df < 1, where there is no spread to estimate (one run, one prompt, one cluster):
    the interval is then empty, never of zero width.
    """
    if not df >= 1:
        return np.nan
    # Imported here: every scoring job imports this module through the scorers, and scipy.stats
    # alone would add over a second to each job's start.
    from scipy import stats

    return float(stats.t.ppf((1 + level) / 2, df))


def t_sf(statistic: float, df: int) -> float:
    """P(T ≥ ``statistic``) for Student's t with ``df`` degrees of freedom: a one-sided p (NaN for df < 1)."""
    if not df >= 1 or not math.isfinite(statistic):
        return np.nan
    from scipy import stats

    return float(stats.t.sf(statistic, df))


def standard_error(values: np.ndarray) -> float:
    """sd (ddof=1) / √n of ``values``: NaN for fewer than two, or values that all agree (docs/methods.md §3.3).

    Values that all agree show no spread to measure, which is not certainty: an interval on
    them would have zero width and its test p = 0. Agreement is tested on the values
    themselves (:func:`is_rounding` of their range), not on sd == 0: the sd of equal floats
    can come out a few ulps above 0.
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2 or bool(is_rounding(np.ptp(values), np.abs(values).max())):
        return np.nan
    return float(np.std(values, ddof=1)) / math.sqrt(len(values))


def t_interval(
    values: np.ndarray, level: float = 0.95, limits: tuple[float, float] = UNBOUNDED
) -> tuple[float, float, float]:
    """The mean of ``values`` and its Student t interval, mean ± t_{n−1} · :func:`standard_error`: every method's one.

    FairPair's mean F over prompts takes it, cut to F's values (``limits`` (0, ∞); :func:`within`);
    FPR's gaps over runs take its standard error with their own quantile (t, or the reference
    code's z). The bounds are NaN where the standard error is (one value, or values that all
    agree), never of zero width.
    """
    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        return np.nan, np.nan, np.nan
    mean = float(values.mean())
    half = t_quantile(len(values) - 1, level) * standard_error(values)  # NaN for one value: t has no df
    return (mean, *within(mean, mean - half, mean + half, limits))


def small_sample_factor(df: int, level: float = 0.95) -> float:
    """t_{df, (1+level)/2} / z_{(1+level)/2}: how much a bootstrap interval on ``df`` degrees of freedom widens.

    1 for many clusters (1.31 at df = 5, 4.3/1.96 at df = 2 for 95%); NaN where nothing was resampled (df < 1).
    """
    from scipy import stats

    return t_quantile(df, level) / float(stats.norm.ppf((1 + level) / 2))


def estimate_interval(
    estimate: np.ndarray, draws: np.ndarray, factor: float, limits: tuple[float, float] = UNBOUNDED, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """An interval that holds its estimate: the draws' percentile spread around their median, placed at the estimate.

    The distances from the defined draws' median (along the first axis) to their (1 − level)/2
    and (1 + level)/2 percentiles (2.5th and 97.5th for 95%), times ``factor``
    (:func:`small_sample_factor` at the same level), are laid off from the
    estimate, then cut to ``limits``, the values the quantity can take (Eq. 1: (0, ∞)), by
    :func:`within`. NaN where no draw is defined or the draws do not spread. Coverage: the
    calibration table (benchmarks/README.md).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices: NaN is the answer
        low, middle, high = np.nanpercentile(draws, (50 * (1 - level), 50, 50 * (1 + level)), axis=0)
    return within(estimate, estimate - factor * (middle - low), estimate + factor * (high - middle), limits)
