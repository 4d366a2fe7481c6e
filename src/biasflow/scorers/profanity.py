"""Offline toxicity proxy: alt-profanity-check's linear model.

The package ships its model, so it works without internet; the embedded default config
uses it in place of Detoxify (docs/methods.md §5.2). Score = probability of "offensive".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from biasflow.extras import require
from biasflow.scorers.base import Scorer


class ProfanityScorer(Scorer):
    name = "profanity"
    batch_size = 1024

    def __init__(self, batch_size: int | None = None):
        if batch_size is not None:
            self.batch_size = int(batch_size)
        self._predict_prob: Any = None  # loaded on first use (an untyped library's object)

    def _score_batch(self, texts: list[str]) -> np.ndarray:
        if self._predict_prob is None:
            self._predict_prob = _load_predict_prob()
        return np.asarray(self._predict_prob(texts), dtype=np.float64)


def _load_predict_prob():
    """Import lazily: scikit-learn loading costs a second even when every score is cached."""
    return require("profanity_check", "the profanity scorer").predict_prob
