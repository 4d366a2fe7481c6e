"""The power planner of FairPair: how large an excess F a model's prompts can show (docs/methods.md §6.4).

A model's finding is its excess F, the mean over prompts of F − F_null_mean, whose t interval
over prompts excludes 0 or not (§2.5). The planner takes the one-mean design on the per-prompt
excess: its spread in the pilot and the number of prompts. More samples per side narrow each
prompt's F, which the pilot's spread already holds at the samples it had.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from biasflow.errors import BiasflowError
from biasflow.fairpair.scores import PROMPT_SCORE_COLUMNS
from biasflow.power import PowerSettings, mean_mdd, mean_needed, planned
from biasflow.tables import read_table


@dataclass(frozen=True)
class Settings(PowerSettings):
    """``power.alpha``, ``power.power`` and ``power.min_effect.fairpair`` (an excess F)."""

    keys = {"min_effect": "power.min_effect.fairpair"}


def plan(sources: Mapping[str, Sequence[str]], settings: Settings) -> pd.DataFrame:
    """Per model (a source) and dissimilarity: the smallest excess F its prompts detect, and the prompts needed."""
    rows = []
    for model, paths in sources.items():
        scores = pd.concat([read_table(path, PROMPT_SCORE_COLUMNS, "FairPair scores") for path in paths])
        rows += model_rows(scores, model, settings)
    return planned(rows, "fairpair", settings)


def model_rows(scores: pd.DataFrame, model: str, settings: Settings) -> list[dict]:
    """The planner's rows of one model's per-prompt scores (prompts with a finite F and null mean)."""
    if scores["F_null_mean"].isna().all():
        raise BiasflowError(
            f"FairPair scores of {model} have no permutation null (F_null_mean is empty), which the planner measures "
            "the excess F against; score them with fairpair.null_draws above 0 (and no folds)."
        )
    rows = []
    for dissimilarity, part in scores.groupby("dissimilarity", sort=True):
        excess = (part["F"] - part["F_null_mean"]).to_numpy(dtype=np.float64)
        excess = excess[np.isfinite(excess)]
        sd = float(excess.std(ddof=1)) if len(excess) > 1 else math.nan
        rows.append({
            "model": model, "scope": dissimilarity, "subgroup": "", "measure": "excess F", "unit": "prompts",
            "n": len(excess), "n_other": math.nan, "n_effective": len(excess),
            "baseline": float(np.nanmean(part["F_null_mean"])), "sd": sd,
            "mdd": mean_mdd(sd, len(excess), settings.alpha, settings.power), "target": settings.min_effect,
            "n_needed": mean_needed(sd, settings.min_effect, settings.alpha, settings.power),
        })
    return rows
