"""FairPair's no-bias null: each prompt's 2n continuations pooled and re-split into two sides (docs/methods.md §2.5).

F sits above 1 when both sides come from one distribution (about 1.13 at 6 samples per
side), so F > 1 alone says nothing. Under "no bias" the side labels are exchangeable: every
split of the 2n continuations into two sides of n is as likely as the observed one. Each
draw re-splits them and recomputes F from the same dissimilarity matrix, by matrix products
(no text is compared twice).

F is infinite where a side does not vary and the sides differ, which VADER's many exact
zeros make common, and heavily skewed where a side barely varies; a mean of F over prompts
is then infinite or dominated by one prompt. The tests therefore read F through its bounded
image R = F / (1 + F) = B² / (B² + V_pg · V_gp): the same order as F (so a prompt's p-value
is the same), 1/2 at F = 1, 1 where F is infinite, and undefined only where all 2n texts are
alike, which no re-split changes. Per prompt: the null's mean F, the mean and spread of R
over the splits, and the permutation p-value. Per model, the headline is the excess R over
prompts, each prompt weighted by the inverse of its null spread (a prompt whose R jumps
between 0.3 and 1 from split to split says less than one whose R stays near 0.5), computed
by one rule for the observed split and every draw (docs/methods.md §2.5).
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from biasflow.fairpair.intervals import studentized_interval
from biasflow.hashing import named_rng

log = logging.getLogger("biasflow")

NULL_DRAW_COLUMNS = ["prompt_id", "dissimilarity", "draw", "F"]
MODEL_NULL_COLUMNS = [
    "F_null_mean",
    "F_excess",
    "F_excess_lo",
    "F_excess_hi",
    "n_tested",
    "R_excess",
    "R_excess_lo",
    "R_excess_hi",
    "R_null_lo",
    "R_null_hi",
    "p_perm",
]
# A draw equal to the observed value up to rounding counts as at least it (matrix products
# and direct sums of one split can differ in the last bits), as scipy.stats.permutation_test does.
TIE_TOLERANCE = 1e-12


def prompt_stream(seed: int, prompt_id) -> np.random.Generator:
    """The null's random stream of one prompt, keyed by its id.

    Keyed by the name, not the prompt's position, so adding, removing or reordering prompts
    (or models) moves no other prompt's draws.
    """
    return named_rng(seed, "fairpair-null", str(prompt_id))


def random_splits(rng: np.random.Generator, n: int, draws: int) -> np.ndarray:
    """(draws x 2n) booleans: which of the pooled continuations each draw puts on the first side (n of them)."""
    order = np.argsort(rng.random((draws, 2 * n)), axis=1)
    splits = np.zeros((draws, 2 * n), dtype=bool)
    np.put_along_axis(splits, order[:, :n], True, axis=1)
    return splits


def split_parts(full: np.ndarray, splits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B, V_pg and V_gp under every split, from the (2n x 2n) dissimilarity matrix over both sides (§2.3).

    With s the split's indicator and t = 1 − s: within the first side sᵀDs, within the second
    tᵀDt, across sᵀDt; the diagonal (a text with itself) never counts. Each sum is taken
    directly over its own non-negative terms, so a side whose texts are all alike has a
    within sum of exactly 0 (a total less the other sums would leave a rounding residue,
    possibly negative, and F = B² / (V·V) enormous or negative).
    """
    full = full - np.diag(np.diag(full))
    first = splits.astype(np.float64)
    second = 1.0 - first
    n = int(splits[0].sum())
    from_first, from_second = first @ full, second @ full
    within_first = (from_first * first).sum(axis=1)
    within_second = (from_second * second).sum(axis=1)
    cross = (from_first * second).sum(axis=1)
    pairs = n * (n - 1)
    return cross / n**2, within_first / pairs, within_second / pairs


def bounded(F) -> np.ndarray:
    """R = F / (1 + F) = B² / (B² + V_pg · V_gp): 1 where F is infinite, NaN where F is undefined (§2.5)."""
    F = np.asarray(F, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(np.isposinf(F), 1.0, F / (1.0 + F))


def permutation_p(observed: float, draws: np.ndarray) -> float:
    """(1 + #{draw ≥ observed}) / (1 + draws), ties up to :data:`TIE_TOLERANCE` counted as reaching it."""
    reached = draws >= observed - TIE_TOLERANCE * abs(observed)
    return float((1 + np.sum(reached)) / (1 + len(draws)))


def prompt_null(observed: float, draws: np.ndarray) -> tuple[float, float, float, float]:
    """One prompt's ``F_null_mean``, ``R_null_mean``, ``R_null_sd`` and ``p_perm`` from its F and its null draws of F.

    ``F_null_mean`` is the mean of the finite draws (NaN if none); ``R_null_mean`` the mean
    R of the draws; ``R_null_sd`` the spread (sd) of R over the observed split and the
    draws, all of them, so that it is the same whichever of them is the observed one (what
    keeps the weighted model test exact); p compares R (the same order as F, an infinite F
    being R = 1). A prompt whose texts are all alike has no R in any split: NaN but for
    ``F_null_mean``.
    """
    finite = draws[np.isfinite(draws)]
    F_mean = float(finite.mean()) if len(finite) else math.nan
    R, R_draws = float(bounded(observed)), bounded(draws)
    if math.isnan(R) or np.isnan(R_draws).any():
        return F_mean, math.nan, math.nan, math.nan
    spread = float(np.append(R_draws, R).std())
    return F_mean, float(R_draws.mean()), spread, permutation_p(R, R_draws)


def model_null(
    group: pd.DataFrame, draws: pd.DataFrame, streams, bootstrap: int, confidence: float, what: str
) -> tuple[float, ...]:
    """:data:`MODEL_NULL_COLUMNS` of one model and dissimilarity (docs/methods.md §2.5).

    ``group``: per-prompt scores (``F``, ``F_null_mean``, ``R_null_mean``, ``R_null_sd``),
    one row per prompt; ``draws``: their null F per draw (:data:`NULL_DRAW_COLUMNS`);
    ``streams(name)`` the bootstrap's random stream of one statistic; ``what`` names the
    model and dissimilarity in log lines.

    The headline, over the ``n_tested`` prompts with an R and a null spread of it:
    ``R_excess`` = Σ w (R − R_null_mean) / Σ w with w = 1 / R_null_sd; its null band
    ``R_null_lo``-``R_null_hi``, the same weighted mean under every draw (each draw's R in
    place of the observed one, the same prompts, weights and centre); and ``p_perm``, the
    share of draws whose weighted mean R reaches the observed one. ``F_excess`` = mean of
    F − F_null_mean over the prompts where both are finite, beside the mean of their
    ``F_null_mean``. Both excesses have a studentized bootstrap interval over prompts
    (:func:`~biasflow.fairpair.intervals.studentized_interval`), cut to the values each can
    take: R lies in [0, 1], so R's excess in [−centre, 1 − centre] with the centre
    Σ w R_null_mean / Σ w; F ≥ 0, so F's excess is at least −F_null_mean.
    """
    group = group.sort_values("prompt_id", kind="stable")
    R, R_draws = bounded(group["F"]), bounded(_draw_matrix(draws, group["prompt_id"]))
    spread = group["R_null_sd"].to_numpy(dtype=np.float64)
    tested = ~np.isnan(R) & ~np.isnan(R_draws).any(axis=0) & (spread > 0) if len(R_draws) else np.zeros(len(R), bool)
    headline = _headline(
        R[tested],
        R_draws[:, tested],
        group["R_null_mean"].to_numpy()[tested],
        1 / spread[tested],
        streams,
        bootstrap,
        confidence,
        what,
    )
    F_excess = (group["F"] - group["F_null_mean"]).to_numpy(dtype=np.float64)
    kept = np.isfinite(F_excess)
    F_null_mean = float(group["F_null_mean"].to_numpy()[kept].mean()) if kept.any() else math.nan
    F_interval = studentized_interval(
        F_excess[kept], streams("F_excess"), bootstrap, confidence, f"{what}: F_excess", limits=(-F_null_mean, math.inf)
    )
    return (F_null_mean, *F_interval, int(tested.sum()), *headline)


def weighted_test(R: np.ndarray, R_draws: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, float]:
    """The headline test: the weighted mean R of the observed splits against the same mean under every draw.

    ``R`` (prompts), ``R_draws`` (draws x prompts) and ``weights`` (prompts, 1 / R_null_sd):
    the null's weighted means, one per draw, and p = (1 + #{draw's ≥ observed}) / (1 + draws).
    """
    total = weights.sum()
    null_statistics = R_draws @ weights / total
    return null_statistics, permutation_p(float(weights @ R / total), null_statistics)


def _draw_matrix(draws: pd.DataFrame, prompt_ids: pd.Series) -> np.ndarray:
    """(draws x prompts) null F, the prompts in the order given; NaN where a prompt lacks a draw."""
    draw, index = pd.factorize(draws["draw"], sort=True)
    matrix = np.full((len(index), len(prompt_ids)), np.nan)
    column = pd.Index(prompt_ids).get_indexer(draws["prompt_id"])
    known = column >= 0
    matrix[draw[known], column[known]] = draws["F"].to_numpy(dtype=np.float64)[known]
    return matrix


def _headline(
    R: np.ndarray,
    R_draws: np.ndarray,
    R_null_mean: np.ndarray,
    weights: np.ndarray,
    streams,
    bootstrap: int,
    confidence: float,
    what: str,
) -> tuple[float, ...]:
    """R_excess with its interval, its null band and p_perm, over the prompts given (each with R and a null spread)."""
    if not len(R):
        log.warning(
            "%s: no prompt has an R that re-splitting moves (no null draws, or every prompt's texts alike); "
            "R_excess and p_perm are NaN",
            what,
        )
        return (math.nan,) * 6
    centre = float(weights @ R_null_mean / weights.sum())
    excess = studentized_interval(
        R - R_null_mean,
        streams("R_excess"),
        bootstrap,
        confidence,
        f"{what}: R_excess",
        weights,
        limits=(-centre, 1 - centre),
    )
    null_statistics, p = weighted_test(R, R_draws, weights)
    tail = (1 - confidence) / 2
    low, high = np.quantile(null_statistics - centre, [tail, 1 - tail], method="inverted_cdf")
    return (*excess, float(low), float(high), p)
