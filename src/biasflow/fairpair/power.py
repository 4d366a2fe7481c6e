"""The power planner of FairPair: how large an excess R a model's prompts can show (docs/methods.md §6.4).

A model's finding is the headline permutation test of its excess R (§2.5): the mean over
prompts of R − R_null_mean, R = F / (1 + F), each prompt weighted by w = 1 / R_null_sd.
That excess is Σ z / Σ w with z = (R − R_null_mean) / R_null_sd, each prompt's excess in
units of its own null spread, and under no bias z has mean 0 and sd about 1, the spread the
test measures against. So the planner takes the one-mean design on z over prompts and states
it in R's units: one prompt's spread is sd(z) / mean(w), and the planned difference is the
excess R itself. The test is one-sided (bias raises R); a two-sided design at 2α has the
same upper tail, and that is what the shared t design is solved at. More samples per side
narrow each prompt's R, which the pilot's spread already holds at the samples it had. Per
pair of models, the paired comparison's difference of excess R (§6.6), and the release gate's
design (§6.8): the prompts at which ``biasflow compare`` shows a candidate truly equal to the
baseline ``not worse`` at the margin, from the comparison's own interval on the pilot.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import ClassVar

import numpy as np
import pandas as pd

from biasflow.fairpair.checks import check_null, scores_by_model
from biasflow.fairpair.comparisons import (
    comparison_table,
    paired_difference,
    paired_influence,
    shared_units,
    tested_prompts,
)
from biasflow.power import PowerSettings, mean_mdd, mean_needed, noninferiority_row, planned

log = logging.getLogger("biasflow")

# The confidence at which the gate's plan reads a pilot's standard error (:func:`planning_factor`).
PLANNING_CONFIDENCE = 0.80


@dataclass(frozen=True)
class Settings(PowerSettings):
    """``power.alpha``, ``power.power`` and ``power.min_effect.fairpair`` (an excess R, and the gate's margin)."""

    keys: ClassVar[Mapping[str, str | None]] = {**PowerSettings.keys, "min_effect": "power.min_effect.fairpair"}


def plan(sources: Mapping[str, Sequence[str | pd.DataFrame]], settings: Settings) -> pd.DataFrame:
    """Per model (a source, or a DataFrame's ``model`` column) and dissimilarity: the smallest excess R its prompts
    detect, and the prompts needed; per pair of models, the same for the paired comparison (§6.6)."""
    models = scores_by_model((name, table) for name, tables in sources.items() for table in tables)
    settings.pairs.check(models, "the FairPair pilot")
    rows = [row for model, scores in models.items() for row in model_rows(scores, model, settings)]
    every = pd.concat([scores.assign(model=model) for model, scores in models.items()], ignore_index=True)
    return planned(rows + pair_rows(every, settings) + noninferiority_rows(every, settings), "fairpair", settings)


def model_rows(scores: pd.DataFrame, model: str, settings: Settings) -> list[dict]:
    """The planner's rows of one model's per-prompt scores (the prompts the headline test counts)."""
    check_null(scores, model, "the planner")
    one_sided = 2 * settings.alpha
    rows = []
    for dissimilarity, part in scores.groupby("dissimilarity", sort=True):
        spread = part["R_null_sd"].to_numpy(dtype=np.float64)
        tested = (spread > 0) & np.isfinite(part["R"] - part["R_null_mean"]).to_numpy()
        weights = 1 / spread[tested]
        z = (part["R"] - part["R_null_mean"]).to_numpy(dtype=np.float64)[tested] * weights
        sd = float(z.std(ddof=1) / weights.mean()) if len(z) > 1 else math.nan
        if not sd > 0:
            log.warning(
                "%s, %s: the excess R of %d prompt(s) has no spread to plan from; its mdd and n_needed are NaN",
                model,
                dissimilarity,
                len(z),
            )
            sd = math.nan
        rows.append(
            {
                "model": model,
                "scope": dissimilarity,
                "subgroup": "",
                "measure": "excess R",
                "unit": "prompts",
                "n": len(z),
                "n_other": math.nan,
                "n_effective": len(z),
                "baseline": float(weights @ part["R_null_mean"].to_numpy()[tested] / weights.sum())
                if len(z)
                else math.nan,
                "sd": sd,
                "mdd": mean_mdd(sd, len(z), one_sided, settings.power),
                "target": settings.min_effect,
                "n_needed": mean_needed(sd, settings.min_effect, one_sided, settings.power),
            }
        )
    return rows


def pair_rows(scores: pd.DataFrame, settings: Settings) -> list[dict]:
    """Per pair of models (those ``settings.pairs`` chooses) and dissimilarity: the smallest difference of excess R
    the paired comparison detects.

    The difference over the m prompts both models tested is a mean over prompts of each
    prompt's paired influence (docs/methods.md §2.9), so the planner takes the one-mean design
    with one prompt's spread ``sd`` = se · √m, se the difference's linearised error; ``n``
    and ``n_needed`` count prompts both models test (§6.6).
    """
    rows = []
    for dissimilarity, part in scores.groupby("dissimilarity", sort=True):
        tested = {model: tested_prompts(mine) for model, mine in part.groupby("model", sort=True)}
        for a, b in settings.pairs.of(tested):
            units = shared_units(tested[a], tested[b])
            m = units.shape[1]
            se = float(paired_difference(units)[1]) if m > 1 else math.nan
            sd = se * math.sqrt(m) if se > 0 else math.nan
            rows.append(
                {
                    "model": f"{a} vs {b}",
                    "scope": dissimilarity,
                    "subgroup": "",
                    "measure": "paired excess R difference",
                    "unit": "prompts",
                    "n": m,
                    "n_other": math.nan,
                    "n_effective": m,
                    "baseline": 0.0,
                    "sd": sd,
                    "mdd": mean_mdd(sd, m, settings.alpha, settings.power),
                    "target": settings.min_effect,
                    "n_needed": mean_needed(sd, settings.min_effect, settings.alpha, settings.power),
                }
            )
    return rows


def noninferiority_rows(scores: pd.DataFrame, settings: Settings) -> list[dict]:
    """Per pair of models (those ``settings.pairs`` chooses; the first the candidate) and dissimilarity: the release
    gate's design (§6.8) from the interval ``biasflow compare`` reads on the pilot.

    The comparison table's rows (:func:`biasflow.fairpair.comparisons.comparison_table`, no
    swap draws: the gate reads no p) give the t interval ``lo90``-``hi90`` over the prompts
    both models tested. Two things a pilot's interval does not carry move the plan
    (docs/methods.md §6.8): its standard error is itself an estimate, so the plan reads it at
    its one-sided 80% upper confidence bound (:func:`planning_factor`), and not every prompt
    a study writes is tested (all its texts alike), so the size is in prompts written, the
    pilot's share of tested ones scaling it (``n`` counts the pilot's prompts both models scored).
    """
    pairs = settings.pairs.of(sorted(scores["model"].unique()))
    if not pairs:
        return []
    table = with_plan_inputs(comparison_table(scores, 0, 0, pairs=pairs), scores)
    rows = []
    for row in table.itertuples(index=False):
        rows.append(
            noninferiority_row(
                model=f"{row.model_a} vs {row.model_b}",
                scope=row.dissimilarity,
                subgroup="",
                what="excess R",
                unit="prompts",
                n=row.plan_units,
                lo90=row.lo90,
                hi90=row.hi90,
                settings=settings,
                difference=row.difference,
                plan_factor=row.plan_factor,
            )
        )
    return rows


def with_plan_inputs(rows: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Comparison ``rows`` with what the gate's plan reads beside their interval: ``plan_factor``
    (:func:`planning_factor` of the pair's tested prompts) and ``plan_units``, the prompts both
    models scored, tested or not (``scores``: the pair's per-prompt scores with a ``model`` column)."""
    factors, units = [], []
    for row in rows.itertuples(index=False):
        part = scores[scores["dissimilarity"] == row.dissimilarity]
        a, b = (part[part["model"] == model] for model in (row.model_a, row.model_b))
        factors.append(planning_factor(shared_units(tested_prompts(a), tested_prompts(b))))
        units.append(len(set(a["prompt_id"].astype(str)) & set(b["prompt_id"].astype(str))))
    return rows.assign(plan_factor=factors, plan_units=units)


def planning_factor(units: np.ndarray) -> float:
    """The pilot's standard error at its one-sided 80% upper confidence bound, as a multiple of the estimate.

    The paired error's square is a mean of the prompts' squared influences u_i
    (:func:`biasflow.fairpair.comparisons.paired_difference`), whose relative variance is
    (κ − 1)/m, κ = m Σu⁴ / (Σu²)² their kurtosis (3 if normal; more with zero-inflated
    scores). The bound is √(1 + z_{0.80} √((κ − 1)/m)); 1 without two prompts. Planning from it,
    a study reaches the planned power for at least 80% of pilots, and more than it on average.
    """
    m = units.shape[-1]
    if m < 2:
        return 1.0
    _, u = paired_influence(units)
    squares = float((u**2).sum())
    if not squares > 0:
        return 1.0
    kurtosis = m * float((u**4).sum()) / squares**2
    return math.sqrt(1 + NormalDist().inv_cdf(PLANNING_CONFIDENCE) * math.sqrt(max(kurtosis - 1, 0.0) / m))
