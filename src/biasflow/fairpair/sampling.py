"""How far one prompt's R would move with other samples of its two sides (docs/methods.md §2.10).

The score step writes it per prompt (``R_samples_sd``) from the dissimilarity matrix it
already holds; the variance split (:mod:`biasflow.fairpair.variance`) weighs it over prompts.
"""

from __future__ import annotations

import math

import numpy as np


def samples_sd(full: np.ndarray) -> float:
    """The infinitesimal jackknife's standard deviation of R over one prompt's 2n samples (docs/methods.md §2.10).

    ``full`` is the (2n x 2n) dissimilarity matrix over both sides, the first side's samples
    first. R = B² / (B² + V_pg · V_gp) moves with each sample through its influence on B
    (its mean dissimilarity to the other side, less B) and on its own side's V (twice its
    mean dissimilarity to the rest of its side, less V); the variance is
    Σ_samples (∇R · influence)² / n². NaN where R is undefined (nothing differs).
    """
    n = full.shape[0] // 2
    full = full - np.diag(np.diag(full))
    cross, within = full[:n, n:], (full[:n, :n], full[n:, n:])
    B = cross.mean()
    V = [side.sum() / (n * (n - 1)) for side in within]
    scale = (B**2 + V[0] * V[1]) ** 2
    if not scale > 0:
        return math.nan
    slope_B = 2 * B * V[0] * V[1] / scale
    slope_V = (-(B**2) * V[1] / scale, -(B**2) * V[0] / scale)
    influence = [
        slope_B * (cross.mean(axis=1 - side) - B) + slope_V[side] * 2 * (within[side].sum(axis=1) / (n - 1) - V[side])
        for side in (0, 1)
    ]
    return math.sqrt(sum(float((values**2).sum()) for values in influence)) / n
