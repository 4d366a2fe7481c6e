"""Intervals over prompts for FairPair's summary: the studentized bootstrap (docs/methods.md §2.5).

A model's excess is a (weighted) mean over prompts of per-prompt values that are skewed (F is
a ratio of dissimilarities; F − its null mean has a long right tail), and with 20 prompts
the Student t interval of such a mean covers its truth too rarely (about 80% for the F
excess at 5 samples per side). The studentized (bootstrap-t) interval resamples the prompts
and reads the quantiles of t* = (mean* − mean) / se* instead of assuming t's, which follows
the skew (Efron and Tibshirani, *An Introduction to the Bootstrap*, 1993, §12.5). Its
coverage is in the calibration table of benchmarks/README.md.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from biasflow.intervals import is_rounding

log = logging.getLogger("biasflow")


def weighted_mean(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Σ w·x / Σ w over the last axis, with its standard error over the m units.

    se = √(m/(m−1)) · √(Σ w² (x − mean)²) / Σ w, the linearised error of a ratio estimator;
    with equal weights, sd/√m.
    """
    m = values.shape[-1]
    total = weights.sum(axis=-1)
    mean = (weights * values).sum(axis=-1) / total
    spread = np.sqrt((weights**2 * (values - mean[..., None]) ** 2).sum(axis=-1)) / total
    return mean, spread * math.sqrt(m / (m - 1)) if m > 1 else np.full_like(spread, math.nan)


def studentized_interval(
    values: np.ndarray,
    rng: np.random.Generator,
    draws: int,
    confidence: float,
    what: str,
    weights: np.ndarray | None = None,
    limits: tuple[float, float] = (-math.inf, math.inf),
) -> tuple[float, float, float]:
    """The (weighted) mean of ``values``, one per prompt, and its studentized bootstrap interval over prompts.

    Each of ``draws`` resamples the m prompts with replacement, each with its weight; with
    se the standard error of :func:`weighted_mean`, the interval is
    mean − t*_{upper} · se … mean − t*_{lower} · se, t*'s quantiles taken at
    (1 ± confidence)/2 as order statistics, then cut to ``limits``, the values the mean can
    take at all: with few prompts a resample that repeats one or two of them has almost no
    spread, and t* can reach far beyond them. A resample without spread has t* = 0 if its
    mean is the estimate's and ±∞ otherwise (the mean could lie anywhere that side). The
    bounds are NaN, with a log line naming ``what``, where they cannot be had: no draws (the
    intervals turned off), fewer than 2 values or values without spread (nothing to
    resample), or so few values (3 or fewer) that more than a tail's share of resamples
    repeat one value and t* is unbounded.
    """
    values = np.asarray(values, dtype=np.float64)
    weights = np.ones_like(values) if weights is None else np.asarray(weights, dtype=np.float64)
    m = len(values)
    if not m:
        return math.nan, math.nan, math.nan
    mean, se = (float(x) for x in weighted_mean(values, weights))
    if not draws:
        log.info("%s: no interval (fairpair.bootstrap is 0); its bounds are NaN", what)
        return mean, math.nan, math.nan
    if not se > 0 or is_rounding(np.ptp(values), np.abs(values).max()):  # equal values written two ways too (§9)
        log.warning(
            "%s: no interval (%d value(s), too few or all alike: nothing to resample); its bounds are NaN", what, m
        )
        return mean, math.nan, math.nan
    chosen = rng.integers(0, m, size=(draws, m))
    means, errors = weighted_mean(values[chosen], weights[chosen])
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (means - mean) / errors
    t = np.where(np.isnan(t), 0.0, t)
    tail = (1 - confidence) / 2
    lower, upper = np.quantile(t, [tail, 1 - tail], method="inverted_cdf")
    if not (np.isfinite(lower) and np.isfinite(upper)):
        log.warning(
            "%s: no interval (%d values: so many resamples repeat one value that t* is unbounded); its bounds are NaN",
            what,
            m,
        )
        return mean, math.nan, math.nan
    # The limits never cut past the estimate, itself a value the mean takes: where every prompt sits at a
    # limit (all R at 1), the mean and the limit differ only by rounding, and the cut would leave it outside.
    return (
        mean,
        max(mean - float(upper) * se, min(limits[0], mean)),
        min(mean - float(lower) * se, max(limits[1], mean)),
    )
