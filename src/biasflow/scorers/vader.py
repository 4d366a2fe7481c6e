"""Sentiment scorer: VADER compound score in [-1, 1].

Used as an alternative CAIRO proxy and by FairPair's sentiment dissimilarity
(docs/methods.md §2.2); vaderSentiment ships its lexicon, so it works offline.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from biasflow.errors import BiasflowError
from biasflow.scorers.base import Scorer


class VaderScorer(Scorer):
    name = "vader"

    def __init__(self, batch_size: int | None = None):
        if batch_size is not None:
            self.batch_size = int(batch_size)
        self._analyzer: Any = None  # loaded on first use (an untyped library's object)

    def _score_batch(self, texts: list[str]) -> np.ndarray:
        if self._analyzer is None:
            self._analyzer = _load_analyzer()
        return np.array([self._analyzer.polarity_scores(t)["compound"] for t in texts], dtype=np.float64)


def _load_analyzer():
    try:
        from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
    except ImportError as exc:
        raise BiasflowError("the 'vader' scorer needs the vaderSentiment package: pip install vaderSentiment.") from exc
    return SentimentIntensityAnalyzer()
