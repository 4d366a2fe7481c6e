"""How far two systems' population gap spans can differ from their estimates (docs/methods.md §3.8).

A gap span is max_g gap_g − min_g gap_g. Where groups tie in the population (a system with no
group difference ties them all), the estimated span is pushed up by the noise: the largest of
several noisy equal gaps lies above their common value. A percentile bootstrap of the span
difference is centred on what a sample of this size expects, so a release gate read off it
takes a baseline's noise for bias and passes a candidate truly worse by the margin far more
often than its level says. The span is directionally differentiable: at gaps θ whose largest
are the groups M and smallest the groups m, span(θ + h) − span(θ) → max_M h − min_m h. The
bootstrap is used on this derivative (Fang and Santos 2019) with h* = θ* − θ̂, the template
and run draws of the comparison, and two stand-ins that keep each side of a bound valid:

- *below* the span's sampling error: h at the estimate's largest group less h at its smallest
  (exact ties: the smallest and the largest of them), since the sample's max is at least the
  true top group's value and its min at most the true bottom's;
- *above* it: the largest h among the groups whose gap lies within
  :data:`biasflow.intervals.TIE_SE` bootstrap standard errors of the largest, less the smallest
  h among those as near the smallest (groups further off cannot be the sample's extreme).

The difference's upper bounds take the candidate's error below and the baseline's above (the
baseline's span is as small as its noise allows); its lower bounds the other way round.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from biasflow.fpr.rates import RATE_SCALE
from biasflow.intervals import TIE_SE, is_rounding


def span_errors(observed: np.ndarray, drawn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per draw, the stand-ins below and above the span's sampling error (module docstring).

    ``observed``: one system's gaps (groups); ``drawn``: its bootstrap draws (draws × groups).
    Groups without a gap are left out; NaN where fewer than two groups have one, or where a
    draw lacks the groups a stand-in reads.
    """
    present = np.isfinite(observed)
    if present.sum() < 2:
        nothing = np.full(len(drawn), np.nan)
        return nothing, nothing
    gaps, moved = observed[present], drawn[:, present] - observed[present]
    top, bottom = int(np.argmax(gaps)), int(np.argmin(gaps))
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # draws without a group: NaN is the answer
        at_top, at_bottom = is_rounding(gaps[top] - gaps, RATE_SCALE), is_rounding(gaps - gaps[bottom], RATE_SCALE)
        near_top = at_top | (gaps[top] - gaps <= TIE_SE * np.nanstd(moved[:, [top]] - moved, axis=0))
        near_bottom = at_bottom | (gaps - gaps[bottom] <= TIE_SE * np.nanstd(moved - moved[:, [bottom]], axis=0))
        below = np.nanmin(moved[:, at_top], axis=1) - np.nanmax(moved[:, at_bottom], axis=1)
        above = np.nanmax(moved[:, near_top], axis=1) - np.nanmin(moved[:, near_bottom], axis=1)
    return below, above


def difference_reaches(
    difference: float, observed: Sequence[np.ndarray], drawn: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Draws whose upper and lower quantiles bound span_a − span_b (``difference``) from above and below.

    ``observed`` and ``drawn``: system a's and b's gaps and paired draws. Each is ``difference``
    less a stand-in of its sampling error, so a draw's quantile is a bound (the basic bootstrap).
    """
    (below_a, above_a), (below_b, above_b) = (span_errors(o, d) for o, d in zip(observed, drawn, strict=True))
    return difference - (below_a - above_b), difference - (above_a - below_b)
