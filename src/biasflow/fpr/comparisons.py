"""Paired comparisons of FPR-gap systems: are system A's gaps smaller than B's on the same probes? (methods.md §3.8)

Two systems (model and classifier) that classified the same probe set answered the same
sentences, so the difference of their gaps is far more precise than either gap: the
templates that happen to have been written move both alike. Per attribute (``category``),
class and pair of systems:

- ``measure`` ``gap``, one row per group: ``difference`` is model_a's mean gap over its runs
  less model_b's (the gap table's numbers); ``measure`` ``span``, one row with no group: the
  difference of their gap spans;
- ``difference_lo``/``difference_hi``: the 2.5th and 97.5th percentiles of the difference
  under a cluster bootstrap over templates and runs (§3.3) whose template draw is *shared* by
  both systems (so the templates' common part cancels) and whose run draws are each
  system's own (runs are not paired); a span's bounds allow for groups tied in the
  population, whose noise pushes a sample's span up (:mod:`biasflow.fpr.span_bounds`): they
  bound the population spans' difference; a zero-width interval is NaN;
- ``p``: a paired randomisation test: in each draw, each template's run-averaged counts of
  the two systems are swapped with probability ½, which leaves their joint distribution as
  it is when the systems' template-level results are exchangeable; two-sided,
  (1 + #{|D*| ≥ |D|}) / (draws + 1);
- ``p_holm``/``p_bh``: adjusted over every row of the same measure in the table (one probe
  set: the pairs it holds, every pair or the baseline's (:mod:`biasflow.model_pairs`),
  attributes, groups and classes);
- ``lo90``/``hi90``: the 90% bounds from the same draws, and ``p_worse``, the
  one-sided p of "model_a's gap (span) is at most model_b's": (1 + #{draws ≤ 0}) / (draws + 1)
  (a draw within rounding of 0, :func:`biasflow.intervals.is_rounding`, is 0 in both),
  at most 0.05 where the lower 90% bound lies above 0: what the verdicts against a margin read
  (:mod:`biasflow.verdicts`, docs/methods.md §7).

Only the templates both systems classified enter a pair. The template draws and the swaps
come from streams keyed by the attribute's name, each system's run draws from one keyed by
its name and the attribute's, so adding a system moves no other pair's numbers.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from biasflow.bootstrap import ALL, cluster_weights
from biasflow.fpr.predictions import UNMARKED
from biasflow.fpr.rates import CLASSES, RATE_SCALE
from biasflow.fpr.resampling import class_counts, mean_gaps, stream
from biasflow.fpr.span_bounds import difference_reaches
from biasflow.hashing import named_rng
from biasflow.intervals import is_rounding, without_rounding
from biasflow.model_pairs import PairChoice, compared
from biasflow.multiplicity import adjust
from biasflow.verdicts import LEVEL

FPR_COMPARISON_COLUMNS = [
    "category",
    "class",
    "measure",
    "group",
    "model_a",
    "model_b",
    "difference",
    "difference_lo",
    "difference_hi",
    "p",
    "p_holm",
    "p_bh",
    "n_templates",
    "n_runs_a",
    "n_runs_b",
    "lo90",
    "hi90",
    "p_worse",
]
# The rows a family of adjusted p-values runs over share their measure (gap or span).
FAMILY = ["measure"]
# Differences this close count as ties in the randomisation test (sums of counts in floating point).
TIE_TOL = 1e-12


def comparison_table(
    preds: pd.DataFrame, draws: int, swaps: int, seed: int, pairs: PairChoice | Sequence[tuple[str, str]] | None = None
) -> pd.DataFrame:
    """Pairs of systems in ``preds`` (one probe set) compared gap by gap and span by span (docs/methods.md §3.8).

    ``draws`` bootstrap draws (0: the intervals are NaN) and ``swaps`` swap draws (0: ``p`` is
    NaN), seeded by ``seed`` and names; ``pairs`` says which pairs (:func:`biasflow.model_pairs.compared`:
    every pair by default, each system against a baseline, or given (model_a, model_b) pairs).
    Needs ``template_id``: without it the table is empty (the caller says so).
    """
    marked = preds[preds["group"] != UNMARKED]
    rows: list[dict] = []
    if "template_id" not in marked:
        return pd.DataFrame(rows, columns=FPR_COMPARISON_COLUMNS)
    for category, part in marked.groupby("category", sort=True):
        templates, groups, systems = category_systems(part, category, draws, seed)
        template_weights = cluster_weights(
            named_rng(seed, "fpr-compare-templates", str(category)), [range(len(templates))], len(templates), draws, ALL
        )
        swap_draws = (named_rng(seed, "fpr-compare-swaps", str(category)).random((swaps, len(templates))) < 0.5).astype(
            float
        )
        for a, b in compared(pairs, systems):
            rows += _pair_rows(category, systems[a], systems[b], template_weights, swap_draws, groups)
    return adjust(pd.DataFrame(rows, columns=FPR_COMPARISON_COLUMNS), FAMILY)


def category_systems(
    part: pd.DataFrame, category, draws: int, seed: int
) -> tuple[np.ndarray, np.ndarray, dict[str, System]]:
    """One attribute's templates and groups (sorted names), and each system's :class:`System` over them."""
    templates, template_index = np.unique(part["template_id"].astype(str), return_inverse=True)
    groups, group_index = np.unique(part["group"].astype(str), return_inverse=True)
    part = part.assign(_template=template_index, _group=group_index)
    systems = {
        model: System(rows_of, len(templates), len(groups), draws, seed, category)
        for model, rows_of in part.groupby("model", sort=True)
    }
    return templates, groups, systems


class System:
    """One system's counts on one attribute: per class, false positives and sentences (runs × templates × groups).

    ``present`` marks the templates it classified; ``run_weights`` holds ``draws`` bootstrap
    draws of its runs (none with ``draws`` 0).
    """

    def __init__(self, part: pd.DataFrame, n_templates: int, n_groups: int, draws: int, seed: int, category):
        self.model = part["model"].iloc[0]
        runs, run_index = np.unique(part["run_id"].astype(str), return_inverse=True)
        self.n_runs = len(runs)
        self.counts = class_counts(
            part, (run_index, part["_template"], part["_group"]), (len(runs), n_templates, n_groups)
        )
        self.present = np.zeros(n_templates, dtype=bool)
        self.present[np.unique(part["_template"])] = True
        self.run_weights = cluster_weights(
            stream("fpr-compare-runs", seed, self.model, category), [range(len(runs))], len(runs), draws, ALL
        )


def _pair_rows(
    category, a: System, b: System, template_weights: np.ndarray, swaps: np.ndarray, groups: np.ndarray
) -> list[dict]:
    """The rows of one pair on one attribute: per class, one per group (``gap``) and one for the span."""
    shared = a.present & b.present
    base = {
        "category": category,
        "model_a": a.model,
        "model_b": b.model,
        "n_templates": int(shared.sum()),
        "n_runs_a": a.n_runs,
        "n_runs_b": b.n_runs,
    }
    rows = []
    for name in CLASSES:
        sides = [
            (fp * shared[:, None], counted * shared[:, None], system)
            for (fp, counted), system in ((a.counts[name], a), (b.counts[name], b))
        ]
        observed = [
            mean_gaps(fp.sum(axis=1), counted.sum(axis=1), np.ones(system.n_runs)) for fp, counted, system in sides
        ]
        drawn = [
            mean_gaps(
                np.einsum("bt,rtg->brg", template_weights, fp),
                np.einsum("bt,rtg->brg", template_weights, counted),
                system.run_weights,
            )
            for fp, counted, system in sides
        ]
        side_a, side_b = ((fp.mean(axis=0), counted.mean(axis=0)) for fp, counted, _ in sides)
        swapped = _swapped_gaps(side_a, side_b, swaps)
        gap_swaps = swapped[0] - swapped[1]
        for g, group in enumerate(groups):
            gap_draws = drawn[0][:, g] - drawn[1][:, g]
            rows.append(
                {
                    **base,
                    "class": name,
                    "measure": "gap",
                    "group": group,
                    **_difference(observed[0][g] - observed[1][g], gap_draws, gap_draws, gap_swaps[:, g]),
                }
            )
        span_difference = _span(observed[0]) - _span(observed[1])
        rows.append(
            {
                **base,
                "class": name,
                "measure": "span",
                "group": None,
                **_difference(
                    span_difference,
                    *difference_reaches(span_difference, observed, drawn),
                    _span(swapped[0]) - _span(swapped[1]),
                ),
            }
        )
    return rows


def _swapped_gaps(
    side_a: tuple[np.ndarray, np.ndarray], side_b: tuple[np.ndarray, np.ndarray], swaps: np.ndarray
) -> np.ndarray:
    """(2 × (1 + swap draws) × groups): each system's gaps from its run-averaged counts, unswapped first, then per draw.

    A side is (false positives, counted), templates × groups, averaged over the system's runs:
    the mean gap over runs of sentences that every run classified. In a draw the two systems
    trade template t's counts where ``swaps[d, t]`` is 1.
    """
    (fp_a, counted_a), (fp_b, counted_b) = side_a, side_b
    trades = np.vstack([np.zeros((1, swaps.shape[1])), swaps])
    moved_fp, moved_counted = trades @ (fp_b - fp_a), trades @ (counted_b - counted_a)
    ones = np.ones((len(trades), 1))
    return np.stack(
        [
            mean_gaps(
                (fp_a.sum(axis=0) + moved_fp)[:, None, :], (counted_a.sum(axis=0) + moved_counted)[:, None, :], ones
            ),
            mean_gaps(
                (fp_b.sum(axis=0) - moved_fp)[:, None, :], (counted_b.sum(axis=0) - moved_counted)[:, None, :], ones
            ),
        ]
    )


def _span(gaps: np.ndarray) -> np.ndarray:
    """max − min over groups (the last axis) of the gaps; NaN where no group has a gap."""
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN draws: NaN is the answer
        return np.nanmax(gaps, axis=-1) - np.nanmin(gaps, axis=-1)


def _difference(difference: float, upper: np.ndarray, lower: np.ndarray, swapped: np.ndarray) -> dict:
    """``difference``, its interval from the bootstrap's draws, and the swap test's p.

    The upper bounds are quantiles of ``upper``, the lower ones of ``lower``: for a gap both are
    the drawn differences (a percentile interval); for a span, draws that allow for groups tied
    in the population (:func:`biasflow.fpr.span_bounds.difference_reaches`). ``swapped[0]`` is
    the statistic the swaps are measured against (the difference from run-averaged counts, equal
    to ``difference`` where every run classified the same sentences), ``swapped[1:]`` its value
    under each swap draw. An interval without finite draws, or of zero width, is NaN; so is
    ``p`` without draws or a finite difference.
    """
    low = high = low90 = high90 = p_worse = np.nan
    upper, lower = (without_rounding(d[np.isfinite(d)], RATE_SCALE) for d in (upper, lower))  # eps traces of 0 (§9)
    if len(upper) and len(lower):
        low, low90 = np.percentile(lower, [2.5, 50 * (1 - LEVEL)])
        high90, high = np.percentile(upper, [50 * (1 + LEVEL), 97.5])
        if is_rounding(high - low, RATE_SCALE):
            low = high = low90 = high90 = np.nan
        else:  # the lower 90% bound lies above 0 where fewer than 5% of the draws do not
            p_worse = float((1 + np.count_nonzero(lower <= 0)) / (len(lower) + 1))
    observed, null = swapped[0], swapped[1:]
    null = null[np.isfinite(null)]
    p = (
        float((1 + np.count_nonzero(np.abs(null) >= abs(observed) - TIE_TOL)) / (len(null) + 1))
        if len(null) and np.isfinite(observed) and np.isfinite(difference)
        else np.nan
    )
    return {
        "difference": difference,
        "difference_lo": low,
        "difference_hi": high,
        "p": p,
        "lo90": low90,
        "hi90": high90,
        "p_worse": p_worse,
    }
