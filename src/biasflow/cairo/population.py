"""Intervals for population values of Eq. 1: a model's Σ_g |μ_g − μ_all|, and two models' difference of it.

docs/methods.md §1.13 and §1.16 say why and how; in short: Eq. 1 adds absolute values of
subgroup deviations d_g = μ_all − μ_g. Where a true deviation is 0, |d̂_g| is pushed up by the
sampling noise Z_g = d̂_g − d_g (no estimator of |d| is unbiased there), so an interval laid off
from the bootstrap's spread around its own centre covers what a sample of this size expects,
not the population value; a gate read off it passes a candidate truly worse by the margin far
more often than its level says (issue 47). Eq. 1 is directionally differentiable, and the
bootstrap is used on its directional derivative (Fang and Santos 2019), with the triangle
inequality to keep each side valid:

- *above the estimate* (how much larger the population value can be): |d_g| − |d̂_g| ≤
  −sign(d_g)·Z_g for every d_g, so the linear term −ŝ_g·Z*_g, with the sign the data give,
  bounds it (exactly where d_g is clearly away from 0, conservatively at 0);
- *below the estimate* (how much of Eq. 1 is noise): |d̂_g| − |d_g| ≤ |Z_g| always, and equals
  ŝ_g·Z_g where d_g is clearly away from 0. A subgroup whose seed-averaged deviation lies
  within :data:`biasflow.intervals.TIE_SE` bootstrap standard errors of 0 cannot be told from 0, so it takes
  |Z*_g|; the others take ŝ_g·Z*_g.

Z* is a cluster bootstrap draw of d̂ less d̂ (the selection's draws, shared by every model, so
a pair's draws are paired). A bound is the estimate plus or minus the surrogate's quantile,
times the small-sample t/z factor (§1.11). A pair's difference has two bounds (:class:`Pair`):
one model's term above plus the other's below, and one that reads the two together,
2 Σ_g |d̂_a − d̂_b| + Σ_g |Z*_a − Z*_b| (two models that treat the subgroups alike share their
noise, which cancels); each side takes the nearer, each at half the level. Bounds whose width
is rounding are NaN (§9).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from biasflow.intervals import NON_NEGATIVE, TIE_SE, UNBOUNDED, is_rounding, within


@dataclass(frozen=True)
class Terms:
    """The bootstrap's stand-ins for how far population Eq. 1 lies from the estimate, per draw, subgroup and model.

    ``above`` and ``below`` (draws x subgroups x models): the module docstring's terms, averaged
    over seeds as Eq. 1 is; ``observed`` (subgroups x seeds x models) the deviations and
    ``noise`` (subgroups x seeds x draws x models) each draw's less the observed, which a pair's
    bound reads (:meth:`pair`). NaN in a draw where a subgroup drew no key. ``scale`` divides
    every term (the subgroups' number where Eq. 1 is their mean).
    """

    above: np.ndarray
    below: np.ndarray
    observed: np.ndarray
    noise: np.ndarray
    scale: float = 1.0

    @classmethod
    def of(cls, observed: np.ndarray, draws: np.ndarray, rounding: np.ndarray, scale: float = 1.0) -> Terms:
        """The terms of deviations μ_all − μ_g ``observed`` (subgroups x seeds x models) and their values under every
        draw (subgroups x seeds x draws x models); ``rounding`` (1 x seeds x models) is the size of the scores, below
        whose rounding a deviation is 0 (docs/methods.md §9)."""
        observed = np.where(is_rounding(observed, rounding), 0.0, observed)
        draws = np.where(is_rounding(draws, rounding[:, :, None, :]), 0.0, draws)
        noise = draws - observed[:, :, None, :]  # Z*: subgroups x seeds x draws x models
        mean = observed.mean(axis=1)  # subgroups x models
        sign = np.sign(mean)[:, None, None, :]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a subgroup without keys in every draw: NaN
            se = np.nanstd(noise.mean(axis=1), axis=1)  # subgroups x models
        unsure = (np.abs(mean) <= TIE_SE * se)[:, None, None, :] | (sign == 0)
        magnitude = np.abs(noise)
        above = np.where(sign == 0, magnitude, -sign * noise).mean(axis=1)  # subgroups x draws x models
        below = np.where(unsure, magnitude, sign * noise).mean(axis=1)
        return cls(above.transpose(1, 0, 2), below.transpose(1, 0, 2), observed, noise, scale)

    def models(self) -> tuple[np.ndarray, np.ndarray]:
        """Every model's (above, below) per draw (draws x models): its terms summed over the subgroups."""
        return _sum(self.above) / self.scale, _sum(self.below) / self.scale

    def pair(self, a: int, b: int) -> Pair:
        """The draws of a − b's two bounds (:class:`Pair`): the models' own terms, and the one that reads both."""
        noise = self.noise[..., a] - self.noise[..., b]  # Z*_a − Z*_b: subgroups x seeds x draws
        own_up = self.above[:, :, a] + self.below[:, :, b]
        own_down = self.below[:, :, a] + self.above[:, :, b]
        apart = 2 * np.abs(self.observed[:, :, a] - self.observed[:, :, b]).mean(axis=1).sum()
        return Pair(
            _sum(own_up) / self.scale,
            _sum(own_down) / self.scale,
            _sum(np.abs(noise).mean(axis=1).T) / self.scale,
            float(apart) / self.scale,
        )


@dataclass(frozen=True)
class Pair:
    """Two bounds on how far a − b's population Eq. 1 lies from its estimate, each valid alone (docs/methods.md §1.16).

    ``up``/``down`` (per draw): a's term above plus b's below, and the reverse. ``shared`` (per
    draw) and ``apart``: Σ_g |Z*_a − Z*_b| and 2 Σ_g |d̂_a − d̂_b|, since
    |d_a| − |d_b| − (|d̂_a| − |d̂_b|) ≤ 2 |d̂_a − d̂_b| + |Z_a − Z_b| either way, by the triangle inequality:
    tight for two models that treat the subgroups alike, whose noise is shared and cancels. An
    interval takes the nearer of the two at half the level each (Bonferroni), so it keeps its level.
    """

    up: np.ndarray
    down: np.ndarray
    shared: np.ndarray
    apart: float

    def flipped(self) -> Pair:
        """The same bounds for b − a: what lies above a − b's estimate lies below b − a's."""
        return Pair(self.down, self.up, self.shared, self.apart)

    def reach(self, side: str, level: float) -> float:
        """How far the bound on ``side`` (``up`` or ``down``) lies from the estimate at one-sided ``level``."""
        tail = 1 - (1 - level) / 2  # each bound at half the level
        return float(np.fmin(_quantile(getattr(self, side), tail), self.apart + _quantile(self.shared, tail)))

    def p(self, difference: float, factor: float) -> float:
        """One-sided p of "a's population Eq. 1 is at most b's": the level at which the lower bound reaches 0, twice
        the smaller of the two bounds' shares of draws reaching difference / factor, (1 + k) / (draws + 1)."""
        shares = []
        for draws in (self.down, self.apart + self.shared):
            draws = draws[np.isfinite(draws)]
            if len(draws):
                shares.append((1 + np.count_nonzero(draws * factor >= difference)) / (len(draws) + 1))
        if not shares or not np.isfinite(difference) or not np.isfinite(factor):
            return np.nan
        return float(min(1.0, 2 * min(shares)))


def _sum(terms: np.ndarray) -> np.ndarray:
    """Per draw, the sum over subgroups (draws x subgroups in); NaN where a subgroup's term is."""
    return terms.sum(axis=1)


def _quantile(values: np.ndarray, level: float) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # no defined draw: NaN
        return np.nanquantile(values, level, axis=0)


def eq1_interval(
    estimate: np.ndarray, above: np.ndarray, below: np.ndarray, factor: float, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Each model's interval for its population Eq. 1 at ``level`` (two-sided), cut at 0; NaN without spread."""
    tail = (1 + level) / 2
    low = estimate - factor * _quantile(below, tail)
    high = estimate + factor * _quantile(above, tail)
    return within(estimate, low, high, NON_NEGATIVE)


def difference_interval(difference: float, pair: Pair, factor: float, level: float = 0.95) -> tuple[float, float]:
    """The interval at ``level`` for model a's population Eq. 1 minus model b's (:class:`Pair`'s bounds)."""
    tail = (1 + level) / 2
    low = difference - factor * pair.reach("down", tail)
    high = difference + factor * pair.reach("up", tail)
    return within(difference, low, high, UNBOUNDED)


def p_two_sided(difference: float, pair: Pair, factor: float) -> float:
    """Two-sided p of "a's and b's population Eq. 1 are equal": twice the one-sided p on the side the difference
    lies, at most 1."""
    if not np.isfinite(difference):
        return np.nan
    one_sided = pair.p(difference, factor) if difference >= 0 else pair.flipped().p(-difference, factor)
    return float(min(1.0, 2 * one_sided)) if np.isfinite(one_sided) else np.nan
