"""FairPair's no-bias null: each prompt's 2n continuations pooled and re-split into two sides (docs/methods.md §2.5).

F sits above 1 when both sides come from one distribution (about 1.13 at 6 samples per
side), so F > 1 alone says nothing. Under "no bias" the side labels are exchangeable: every
split of the 2n continuations into two sides of n is as likely as the observed one. Each
draw re-splits them and recomputes F from the same dissimilarity matrix, by matrix products
(no text is compared twice): per prompt the null's mean F and a permutation p-value; per
model, the mean F over prompts against the same mean under every draw (the prompts' draws
taken together), the excess F (mean F − mean null F) with its interval, and the null band.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

NULL_DRAW_COLUMNS = ["prompt_id", "dissimilarity", "draw", "F"]
MODEL_NULL_COLUMNS = ["F_null_mean", "F_null_lo", "F_null_hi", "F_excess", "F_excess_lo", "F_excess_hi", "p_perm"]


def random_splits(rng: np.random.Generator, n: int, draws: int) -> np.ndarray:
    """(draws x 2n) booleans: which of the pooled continuations each draw puts on the first side (n of them)."""
    order = np.argsort(rng.random((draws, 2 * n)), axis=1)
    splits = np.zeros((draws, 2 * n), dtype=bool)
    np.put_along_axis(splits, order[:, :n], True, axis=1)
    return splits


def split_parts(full: np.ndarray, splits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B, V_pg and V_gp under every split, from the (2n x 2n) dissimilarity matrix over both sides (§2.3).

    With s the split's indicator: within the first side sᵀDs, across sᵀD(1−s), within the
    second the rest; the diagonal (a text with itself) never counts.
    """
    full = full - np.diag(np.diag(full))
    side = splits.astype(np.float64)
    n = int(splits[0].sum())
    product = side @ full
    within_first = (product * side).sum(axis=1)
    cross = (product * (1 - side)).sum(axis=1)
    within_second = full.sum() - within_first - 2 * cross
    pairs = n * (n - 1)
    return cross / n**2, within_first / pairs, within_second / pairs


def prompt_null(observed: float, draws: np.ndarray) -> tuple[float, float]:
    """The null's mean F (over its finite draws) and p = (1 + #{draw F ≥ observed F}) / (1 + draws).

    An infinite observed F is matched only by infinite draws; an undefined (NaN) one has no p.
    """
    finite = draws[np.isfinite(draws)]
    mean = float(finite.mean()) if len(finite) else math.nan
    if math.isnan(observed):
        return mean, math.nan
    return mean, float((1 + np.sum(draws >= observed)) / (1 + len(draws)))


def model_null(group: pd.DataFrame, draws: pd.DataFrame, t_quantile: float) -> tuple[float, ...]:
    """:data:`MODEL_NULL_COLUMNS` of one model and dissimilarity, over its prompts with a finite F.

    ``group``: per-prompt scores with ``F`` and ``F_null_mean``; ``draws``: their null F per
    draw (:data:`NULL_DRAW_COLUMNS`). The statistic is the mean F over the prompts; under
    draw b it is the mean of the prompts' draw-b F, an infinite one making it infinite (an
    extreme draw). ``F_excess`` = mean over prompts of F − F_null_mean, with a Student t
    interval over prompts (``t_quantile``).
    """
    finite = group[np.isfinite(group["F"])]
    wide = draws.pivot(index="draw", columns="prompt_id", values="F").reindex(columns=finite["prompt_id"])
    if finite.empty or wide.empty:
        return (math.nan,) * len(MODEL_NULL_COLUMNS)
    statistic = float(finite["F"].mean())
    with np.errstate(invalid="ignore"):
        null_means = np.nanmean(wide.to_numpy(dtype=np.float64), axis=1)
    # Draws of a prompt with an infinite F are infinite: no interpolation, so the band's ends are draws.
    low, high = np.nanpercentile(null_means, [2.5, 97.5], method="inverted_cdf")
    excess = (finite["F"] - finite["F_null_mean"]).to_numpy(dtype=np.float64)
    excess = excess[np.isfinite(excess)]
    mean_excess = float(excess.mean()) if len(excess) else math.nan
    half = t_quantile * excess.std(ddof=1) / math.sqrt(len(excess)) if len(excess) > 1 else math.nan
    p = float((1 + np.sum(null_means >= statistic)) / (1 + len(null_means)))
    return (float(np.nanmean(finite["F_null_mean"])), float(low), float(high), mean_excess, mean_excess - half,
            mean_excess + half, p)
