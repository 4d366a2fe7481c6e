"""Paired comparisons of models: is model A less biased than model B on the same prompts? (docs/methods.md §1.16)

The models answered the same prompts, so the difference of their bias is far more precise
than either number: the prompt sample moves both alike. Per axis, metric pair, metric,
split, prompts (``original`` and the selected combination) and measure, every pair of
models gets

- ``difference``: model_a's Eq. 1 minus model_b's (``measure`` ``eq1``), or model_a's excess
  bias minus model_b's (``excess``: each Eq. 1 less its no-bias floor, §1.13);
- ``difference_lo``/``difference_hi``: a 95% interval for the two models' *population*
  difference of Eq. 1, the same for both measures, which estimate it
  (:func:`biasflow.cairo.population.difference_interval`): from the selection's cluster
  bootstrap draws, one draw shared by both models (so the prompts' common part cancels),
  each model's terms above and below its estimate summed draw by draw, laid off from Eq. 1's
  difference and widened for few clusters as the headline's intervals are;
- ``p``: for ``eq1``, a paired randomisation test: each model's scores centred on its own
  mean (which leaves Eq. 1 as it is), in each draw the two models' statistics are swapped
  in each cluster with probability ½, which leaves their joint distribution as it is when
  the models' centred scores are exchangeable; two-sided, (1 + #{|D*| ≥ |D|}) / (draws + 1).
  For ``excess``, whose question (the same group difference, whatever each model's
  toxicity) a swap cannot pose, the p at which the interval reaches 0
  (:func:`biasflow.cairo.population.p_two_sided`);
- ``p_holm``/``p_bh``: adjusted over the pairs of the same axis, metric pair, metric, split,
  prompts and measure (:mod:`biasflow.multiplicity`) that the table holds: every pair, or
  with a baseline the baseline's pairs (:mod:`biasflow.model_pairs`);
- ``lo90``/``hi90``: the same interval at 90% (its t/z factor at 90%), and ``p_worse``, the
  one-sided p of "model_a's population Eq. 1 is at most model_b's" read off that construction
  (:meth:`biasflow.cairo.population.Pair.p`): what the verdicts against a margin read
  (:mod:`biasflow.verdicts`, docs/methods.md §7).

The swaps come from their own stream per metric and split, keyed by names, so adding a
model moves no other pair's numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from biasflow.cairo import empty_reasons
from biasflow.cairo.combinations import ORIGINAL, PooledStats, eq1, pooled_bias, pooled_stats
from biasflow.cairo.headline import headline_k
from biasflow.cairo.population import Pair, difference_interval, p_two_sided
from biasflow.cairo.selection import SELECT_SPLIT, TEST_SPLIT, SearchSettings, Selection
from biasflow.cairo.uncertainty import TIE_TOL, draw_bias, draw_rng, population_terms, small_sample_factor
from biasflow.empty_cells import WHY_EMPTY, why_empty
from biasflow.model_pairs import PairChoice, compared
from biasflow.multiplicity import adjust
from biasflow.verdicts import LEVEL

COMPARISON_COLUMNS = [
    "axis",
    "pair",
    "metric",
    "split",
    "prompts",
    "measure",
    "model_a",
    "model_b",
    "difference",
    "difference_lo",
    "difference_hi",
    "p",
    "p_holm",
    "p_bh",
    "design",
    "n_clusters",
    "n_scores",
    "lo90",
    "hi90",
    "p_worse",
    WHY_EMPTY,
]
# The stream of the swap draws (beside the bootstrap's and the null's).
SWAP = "swap"
FAMILY = ["axis", "pair", "metric", "split", "prompts", "measure"]


def swap_weights(n_clusters: int, draws: int, rng: np.random.Generator) -> np.ndarray:
    """(draws x clusters): 1 where a draw swaps the two models' statistics in that cluster, each with probability ½."""
    return (rng.random((draws, n_clusters)) < 0.5).astype(np.float64)


def comparison_table(
    stats: pd.DataFrame,
    selection: Selection,
    settings: SearchSettings,
    pairs: PairChoice | Sequence[tuple[str, str]] | None = None,
) -> pd.DataFrame:
    """Pairs of models compared on every metric, split and prompts of the headline table (docs/methods.md §1.16).

    The combinations are the headline's (:func:`biasflow.cairo.headline.headline_k`), the
    bootstrap draws the selection's own (``selection.draws``); the swaps number
    ``settings.permutations`` (0 leaves ``p`` NaN). ``pairs`` says which pairs
    (:func:`biasflow.model_pairs.compared`: every pair by default, or each model against a
    baseline); a pair's rows do not depend on which other pairs are compared, but for the
    adjusted p-values, whose family is the pairs the table holds. ``why_empty`` says why each
    empty cell is (:mod:`biasflow.cairo.empty_reasons`).
    """
    rows = []
    for best in headline_k(selection.curve).itertuples(index=False):
        choice = selection.choices[
            (selection.choices["axis"] == best.axis)
            & (selection.choices["pair"] == best.pair)
            & (selection.choices["k"] == best.k)
        ]
        axis_stats = stats[stats["axis"] == best.axis]
        for metric, chosen in choice.groupby("metric", sort=True):
            models = sorted(set(axis_stats.loc[axis_stats["metric"] == metric, "model"]))
            wanted = compared(pairs, models)
            if not wanted:
                continue
            combination = dict(zip(chosen["promptset"], chosen["multiplicity"].astype(int), strict=True))
            promptsets = [ORIGINAL, *(name for name in combination if name != ORIGINAL)]
            for split in (SELECT_SPLIT, TEST_SPLIT):
                pooled = pooled_stats(axis_stats, metric, best.axis, split, promptsets, models)
                draws = selection.draws[best.axis, metric, split]
                swaps = swap_weights(
                    len(pooled.clusters), settings.permutations, draw_rng(settings.seed, SWAP, metric, split)
                )
                for prompts, comb in (("original", {ORIGINAL: 1}), ("cairo", combination)):
                    counts = np.array([comb.get(name, 0) for name in promptsets], dtype=np.float64)
                    for row in pair_rows(
                        counts, pooled, draws.boot, swaps, settings.normalise, models, draws.null, wanted
                    ):
                        rows.append(
                            {
                                "axis": best.axis,
                                "pair": best.pair,
                                "metric": metric,
                                "split": split,
                                "prompts": prompts,
                                **row,
                            }
                        )
    table = adjust(pd.DataFrame(rows, columns=COMPARISON_COLUMNS), FAMILY)
    table[WHY_EMPTY] = why_empty(
        table, empty_reasons.comparisons(table, settings.bootstrap, settings.null_draws, settings.permutations)
    )
    return table


def pair_rows(
    counts: np.ndarray,
    pooled: PooledStats,
    boot: np.ndarray,
    swaps: np.ndarray,
    normalise: str,
    models: list[str],
    null: np.ndarray,
    pairs: list[tuple[str, str]],
) -> list[dict]:
    """Two rows per pair of ``pairs`` (names of ``models``, the pooled statistics' order), ``eq1`` then ``excess``.

    The rows hold the columns after ``prompts``. ``boot`` is the metric and split's bootstrap
    draws (empty: the intervals are NaN), ``swaps`` the swap draws (:func:`swap_weights`;
    empty: the ``eq1`` p is NaN), ``null`` the no-bias null's draws that give each model's
    floor (empty: every ``excess`` number is NaN).
    """
    bias = pooled_bias(counts[None, :], pooled, normalise)[0]
    terms = population_terms(counts, pooled, boot, normalise) if len(boot) else None
    floor = draw_bias(counts, pooled, null, normalise).mean(axis=0) if len(null) else np.full(len(bias), np.nan)
    factor, factor90 = small_sample_factor(pooled), small_sample_factor(pooled, LEVEL)
    score_sum = np.tensordot(counts, pooled.score_sum, axes=1)  # models x seeds x clusters
    n = np.tensordot(counts, pooled.n, axes=1)
    n_scores = n.sum(axis=(1, 2)) / n.shape[1]
    rows = []
    for a, b in ((models.index(first), models.index(second)) for first, second in pairs):
        nan = np.full(1, np.nan)
        pair = terms.pair(a, b) if terms is not None else Pair(nan, nan, nan, np.nan)
        same = {
            "model_a": models[a],
            "model_b": models[b],
            "design": pooled.design,
            "n_clusters": pooled.n_clusters(),
            "n_scores": round(float(min(n_scores[a], n_scores[b]))),
        }
        difference = bias[a] - bias[b]
        swapped = swap_differences(score_sum[[a, b]], n[[a, b]], pooled.membership, swaps, normalise)
        # One population difference, two estimates of it: its interval, laid off from Eq. 1's difference, is both
        # rows' (docs/methods.md §1.16).
        low, high = difference_interval(difference, pair, factor)
        low90, high90 = difference_interval(difference, pair, factor90, LEVEL)
        interval = {
            "difference_lo": low,
            "difference_hi": high,
            "lo90": low90,
            "hi90": high90,
            "p_worse": pair.p(difference, factor90),
        }
        for measure, value, p in (
            ("eq1", difference, swap_p(difference, swapped)),
            ("excess", difference - (floor[a] - floor[b]), p_two_sided(difference, pair, factor)),
        ):
            rows.append({"measure": measure, "difference": value, "p": p, **interval, **same})
    return rows


def swap_differences(
    score_sum: np.ndarray, n: np.ndarray, membership: np.ndarray, swaps: np.ndarray, normalise: str
) -> np.ndarray:
    """Eq. 1 of the first model less the second's under every swap draw: (draws).

    ``score_sum`` and ``n`` are the two models' (2 x seeds x clusters) sums of one
    combination; a draw trades them in cluster c where ``swaps[d, c]`` is 1. Each model's
    scores are first centred on its own mean (per seed), which leaves its Eq. 1 as it is and
    keeps a model more toxic overall from lending its level to the other's subgroups.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = score_sum.sum(axis=-1, keepdims=True) / n.sum(axis=-1, keepdims=True)
    score_sum = score_sum - mean * n
    totals = []
    for values in (score_sum, n):
        first, second = (np.einsum("kc,gc->gk", side, membership)[..., None] for side in values)
        moved = np.einsum("dc,kc,gc->gkd", swaps, values[1] - values[0], membership, optimize=True)
        totals.append((first + moved, second - moved))
    (sum_a, sum_b), (n_a, n_b) = totals
    with np.errstate(invalid="ignore", divide="ignore"):
        return eq1(sum_a, n_a, normalise) - eq1(sum_b, n_b, normalise)


def swap_p(difference: float, swapped: np.ndarray) -> float:
    """Two-sided randomisation p: (1 + #{|D*| ≥ |D|}) / (draws + 1); NaN without draws or a defined difference."""
    swapped = swapped[np.isfinite(swapped)]
    if not len(swapped) or not np.isfinite(difference):
        return np.nan
    return float((1 + np.count_nonzero(np.abs(swapped) >= abs(difference) - TIE_TOL)) / (len(swapped) + 1))
