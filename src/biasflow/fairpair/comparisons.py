"""Paired comparisons of FairPair models: is model A's excess R lower than B's on the same prompts? (methods.md §2.9)

Every model continued the same prompts, so the difference of two models' excess R is more
precise than either: a prompt that reads as biased to both moves both alike. Per
dissimilarity and pair of models, over the prompts both models tested (an R that
re-splitting moves, §2.5):

- ``R_excess_a``, ``R_excess_b``: each model's excess R over those prompts, Σ w (R −
  R_null_mean) / Σ w with its own weights w = 1 / R_null_sd (the headline's statistic; it
  is the headline's own where both models tested the same prompts);
- ``difference`` = ``R_excess_a`` − ``R_excess_b``, with ``difference_lo``/``_hi``, the
  Student t interval difference ± t_{m−1, 0.975} · se over the m shared prompts, se the
  linearised error of the difference, in which each prompt enters both models' means at
  once (:func:`paired_difference`); the studentized bootstrap of a single model's excess
  (§2.5) covered 0 only 91% of the time here, this interval 94-95% (§2.9);
- ``p``: a paired randomisation test: in each draw, each prompt's two models' values and
  weights are swapped with probability ½, which leaves their joint distribution as it is
  when the two models are exchangeable on every prompt; two-sided, (1 + #{|D*| ≥ |D|}) /
  (draws + 1);
- ``p_holm``/``p_bh``: adjusted over the pairs of one dissimilarity the table holds (every
  pair, or the baseline's: :mod:`biasflow.model_pairs`);
- ``lo90``/``hi90``: the same t interval at 90%, and ``p_worse``, its one-sided p of "model_a's
  excess R is at most model_b's" (Student t with m − 1 degrees of freedom): what the verdicts
  against a margin read (:mod:`biasflow.verdicts`, docs/methods.md §7).

Each prompt's swaps draw from a stream keyed by the dissimilarity's name and the prompt's
id, so adding a model, or a prompt, moves no other pair's or prompt's draws.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from biasflow.fairpair.null import permutation_p
from biasflow.hashing import named_rng
from biasflow.intervals import t_quantile, t_sf
from biasflow.model_pairs import PairChoice, compared
from biasflow.multiplicity import adjust
from biasflow.schema import choices
from biasflow.settings import StepSettings
from biasflow.verdicts import LEVEL

FAIRPAIR_COMPARISON_COLUMNS = [
    "dissimilarity",
    "model_a",
    "model_b",
    "R_excess_a",
    "R_excess_b",
    "difference",
    "difference_lo",
    "difference_hi",
    "p",
    "p_holm",
    "p_bh",
    "n_prompts",
    "lo90",
    "hi90",
    "p_worse",
]
# What the excess R of a prompt is read from (:func:`tested_prompts`), and which of it are numbers: all a command that
# compares or plans from score files needs of them, so files written before a later column was added still serve.
TESTED_COLUMNS = ["prompt_id", "dissimilarity", "R", "R_null_mean", "R_null_sd"]
TESTED_NUMBERS = TESTED_COLUMNS[2:]
# The pairs a family of adjusted p-values runs over share their dissimilarity.
FAMILY = ["dissimilarity"]


@dataclass(frozen=True)
class ComparisonSettings(StepSettings):
    """The swap test's draws (``fairpair.null_draws``, as the null's) and their seed (docs/methods.md §2.9): what the
    comparison table and the paired comparison read. The method's declaration names this class, so each field is a
    ``biasflow compare`` flag whose help is its :attr:`what` (docs/adding-a-method.md, section 2)."""

    section = "fairpair"
    what: ClassVar[Mapping[str, str]] = {
        "null_draws": "swap draws of the paired test (0: no p)",
        "seed": "seed of the draws",
    }

    null_draws: int
    seed: int


def comparison_table(
    scores: pd.DataFrame, swaps: int, seed: int, pairs: PairChoice | Sequence[tuple[str, str]] | None = None
) -> pd.DataFrame:
    """Pairs of models in the per-prompt ``scores`` (a ``model`` column) compared (docs/methods.md §2.9).

    ``swaps`` swap draws (0: ``p`` is NaN), seeded by ``seed`` and the dissimilarity's name;
    ``pairs`` says which pairs (:func:`biasflow.model_pairs.compared`: every pair by default,
    each model against a baseline, or given (model_a, model_b) pairs).
    """
    rows = []
    for name in (d for d in choices("fairpair.dissimilarities") if d in set(scores["dissimilarity"])):
        tested = {
            model: tested_prompts(part) for model, part in scores[scores["dissimilarity"] == name].groupby("model")
        }
        for a, b in compared(pairs, tested):
            rows.append(
                {"dissimilarity": name, "model_a": a, "model_b": b, **pair_row(tested[a], tested[b], swaps, seed, name)}
            )
    return adjust(pd.DataFrame(rows, columns=FAIRPAIR_COMPARISON_COLUMNS), FAMILY)


def tested_prompts(part: pd.DataFrame) -> pd.DataFrame:
    """A model's tested prompts (an R, a null centre, a null spread above 0): their excess and weight, by prompt id."""
    R, centre, spread = (part[c].to_numpy(dtype=np.float64) for c in ("R", "R_null_mean", "R_null_sd"))
    keep = np.isfinite(R) & np.isfinite(centre) & (spread > 0)
    return pd.DataFrame(
        {"excess": (R - centre)[keep], "weight": 1 / spread[keep]}, index=part["prompt_id"].astype(str).to_numpy()[keep]
    ).sort_index()


def pair_row(a: pd.DataFrame, b: pd.DataFrame, swaps: int, seed: int, dissimilarity: str) -> dict:
    """The columns after ``model_b`` of a pair, over the prompts both tested (``a``, ``b``: :func:`tested_prompts`)."""
    shared = a.index.intersection(b.index).sort_values()
    units = shared_units(a, b)
    m = units.shape[1]
    own = [float((units[w] * units[x]).sum() / units[w].sum()) if m else math.nan for x, w in ((0, 1), (2, 3))]
    difference, se = (float(value) for value in paired_difference(units)) if m > 1 else (own[0] - own[1], math.nan)
    half, half90 = (t_quantile(m - 1, level) * se if se > 0 else math.nan for level in (0.95, LEVEL))
    trades = swap_draws(seed, dissimilarity, shared, swaps)
    return {
        "R_excess_a": own[0],
        "R_excess_b": own[1],
        "difference": difference,
        "difference_lo": max(difference - half, -1.0),
        "difference_hi": min(difference + half, 1.0),
        "p": swap_p(units, trades, difference),
        "n_prompts": m,
        "lo90": max(difference - half90, -1.0),
        "hi90": min(difference + half90, 1.0),
        "p_worse": t_sf(difference / se, m - 1) if se > 0 else math.nan,
    }


def swap_draws(seed: int, dissimilarity: str, prompt_ids, swaps: int) -> np.ndarray:
    """(swaps × prompts) booleans: whether each draw trades each prompt's two models, one stream per prompt id."""
    columns = [
        named_rng(seed, "fairpair-compare-swaps", dissimilarity, str(prompt)).random(swaps) < 0.5
        for prompt in prompt_ids
    ]
    return np.stack(columns, axis=1) if columns else np.zeros((swaps, 0), dtype=bool)


def shared_units(a: pd.DataFrame, b: pd.DataFrame) -> np.ndarray:
    """(x_a, w_a, x_b, w_b) × the prompts both tested, by prompt id (``a``, ``b``: :func:`tested_prompts`)."""
    shared = a.index.intersection(b.index).sort_values()
    return np.stack(
        [a.loc[shared, "excess"], a.loc[shared, "weight"], b.loc[shared, "excess"], b.loc[shared, "weight"]]
    ).reshape(4, len(shared))


def paired_difference(units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The difference of two models' weighted means over the same prompts, with its standard error.

    ``units`` is (x_a, w_a, x_b, w_b, …, prompts): each model's per-prompt value and weight.
    se = √(m/(m−1)) · √(Σ u²) with u the prompts' influences (:func:`paired_influence`), the
    linearised error of the difference; with one model the error
    :func:`biasflow.fairpair.intervals.weighted_mean` gives.
    """
    m = units.shape[-1]
    difference, influence = paired_influence(units)
    spread = np.sqrt((influence**2).sum(axis=-1))
    return difference, spread * math.sqrt(m / (m - 1)) if m > 1 else np.full_like(spread, math.nan)


def paired_influence(units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The difference of the two weighted means and each prompt's influence on it (``units``: as
    :func:`paired_difference`): u_i = w_a,i (x_a,i − θ_a) / Σ w_a − w_b,i (x_b,i − θ_b) / Σ w_b, the prompt's
    effect on both means at once."""
    means, influence = [], []
    for x, w in ((units[0], units[1]), (units[2], units[3])):
        total = w.sum(axis=-1)
        means.append((w * x).sum(axis=-1) / total)
        influence.append(w * (x - means[-1][..., None]) / total[..., None])
    return means[0] - means[1], influence[0] - influence[1]


def swap_p(units: np.ndarray, trades: np.ndarray, difference: float) -> float:
    """Two-sided p of the swap test: each draw trades the models' (value, weight) on the prompts ``trades`` marks."""
    if not len(trades) or not math.isfinite(difference):
        return math.nan
    first, second = units[:2], units[2:]
    swapped = np.concatenate(
        [np.where(trades, second[:, None], first[:, None]), np.where(trades, first[:, None], second[:, None])]
    )
    null, _ = paired_difference(swapped)
    return permutation_p(abs(difference), np.abs(null))
