"""The cluster bootstrap every method shares: one weight per cluster, drawn within strata (docs/methods.md §9).

A cluster is what the data's design repeats: a BOLD page, a HolisticBias, HONEST or probe
template, a prompt cluster of the scorer's bias, an FPR run. A draw weighs each cluster by
how often it was drawn with replacement from its *stratum*, and every statistic of the draw
is the statistic of those weighted sums (a group's mean, an FPR, a gap). The caller says
what is crossed by where it lays a weight: a template's one weight applies to every group
filled into it (crossed: its effect keeps cancelling between them), a nested page's to its
own subgroup alone (each nested subgroup a stratum of its own). The draws come from a stream
keyed by names (:func:`biasflow.hashing.named_rng`), never by a position, so adding a model
moves no other's draws.

Two ways of drawing, chosen by what the calibration table (benchmarks/README.md) shows:

- :data:`RAO_WU`: c − 1 of a stratum's c clusters, each weighted c / (c − 1) (Rao and Wu
  1988), because drawing c understates the variance of a mean of clusters by (c − 1) / c.
  CAIRO's group keys and the scorer's prompt clusters, whose means are all the statistic is.
  A stratum of one cluster cannot be resampled: its weights are NaN, so every statistic it
  enters is NaN (never a zero-width interval).
- :data:`ALL`: c of c. The FPR gaps', which resample two crossed factors (templates and
  runs) and so count a sentence's noise in both: their intervals already cover more than
  95% (§3.3), and c − 1 would widen them further.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# How many of a stratum's c clusters a draw takes (the module's docstring says when each is used).
RAO_WU, ALL = "rao-wu", "all"


def cluster_weights(
    rng: np.random.Generator,
    strata: Sequence[Sequence[int] | np.ndarray],
    clusters: int,
    draws: int,
    scheme: str = RAO_WU,
) -> np.ndarray:
    """(draws x clusters) weights: each stratum's clusters drawn with replacement, the strata in order from ``rng``.

    ``strata`` holds each stratum's cluster indices (into ``clusters``); a cluster in no stratum
    gets weight 0. :data:`RAO_WU` draws c − 1 and weighs them c / (c − 1) (NaN for c = 1),
    :data:`ALL` draws c and weighs each by its multiplicity.
    """
    if scheme not in (RAO_WU, ALL):
        raise ValueError(f"unknown bootstrap scheme {scheme!r}; use {RAO_WU!r} or {ALL!r}")
    weights = np.zeros((draws, clusters))
    for members in strata:
        c = len(members)
        if scheme == ALL:
            weights[:, members] = rng.multinomial(c, np.full(c, 1 / c), size=draws)
        elif c == 1:
            weights[:, members] = np.nan
        else:
            weights[:, members] = rng.multinomial(c - 1, np.full(c, 1 / c), size=draws) * c / (c - 1)
    return weights
