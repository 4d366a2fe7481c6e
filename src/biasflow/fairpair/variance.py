"""Where a model's excess R would move: another sample of prompts, other samples per side (docs/methods.md §2.10).

Per model and dissimilarity, the variance of the headline ``R_excess`` = Σ w x / Σ w over the
m tested prompts (x = R − R_null_mean, w = 1 / R_null_sd; §2.5) is split in two, in R's units:

- ``samples``: other continuations of the same prompts, Σ (w_i / Σ w)² s_i², s_i a prompt's
  ``R_samples_sd``: the infinitesimal jackknife of R over its own samples
  (:func:`biasflow.fairpair.sampling.samples_sd`). The null's centre moves with the samples
  too, but, a mean over the re-splits, little (about 1% of R's variance in simulations, §2.10);
- ``prompts``: another sample of prompts: the linearised variance of the weighted mean over
  prompts, m / (m − 1) · Σ (w_i (x_i − θ) / Σ w)²
  (:func:`biasflow.fairpair.intervals.weighted_mean`, the error the comparisons' interval
  rests on, §2.9), which holds both sources, less the samples' part.

The samples' part is capped at the whole and each part clipped at 0
(:func:`biasflow.variance_components.split_columns`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from biasflow.fairpair.comparisons import tested_prompts
from biasflow.fairpair.intervals import weighted_mean
from biasflow.variance_components import component_columns, split_columns

SOURCES = ("prompts", "samples")
FAIRPAIR_VARIANCE_COLUMNS = [
    "model",
    "dissimilarity",
    "R_excess",
    *component_columns(SOURCES),
    "n_prompts",
    "n_samples",
]


def variance_table(scores: pd.DataFrame) -> pd.DataFrame:
    """Each model's variance components per dissimilarity from per-prompt ``scores`` (with ``model``; §2.10)."""
    rows = []
    for (model, name), part in scores.groupby(["model", "dissimilarity"], sort=True):
        tested = tested_prompts(part)
        spread = part.set_index(part["prompt_id"].astype(str))["R_samples_sd"].reindex(tested.index)
        x, w, s = (values.to_numpy(dtype=np.float64) for values in (tested["excess"], tested["weight"], spread))
        m = len(x)
        theta, se = (float(value) for value in weighted_mean(x, w)) if m else (math.nan, math.nan)
        whole = se**2
        samples = min(float(((w / w.sum() * s) ** 2).sum()), whole) if m > 1 else math.nan
        rows.append(
            {
                "model": model,
                "dissimilarity": name,
                "R_excess": theta,
                **split_columns({"prompts": whole - samples, "samples": samples}),
                "n_prompts": m,
                "n_samples": int(part["n"].min()),
            }
        )
    return pd.DataFrame(rows, columns=FAIRPAIR_VARIANCE_COLUMNS)
