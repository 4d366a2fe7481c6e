"""The CAIRO paper's toxicity classifier: Detoxify's ``unbiased`` checkpoint.

The paper scores every continuation with Detoxify (appendix A) and uses the toxicity
probability as the bias proxy (docs/methods.md §1.4). The checkpoint is downloaded on first
use, so this scorer needs the internet once; offline runs use ``profanity`` instead.
The model is loaded on the first batch, not at construction, so a fully cached rerun
never loads it.
"""

from __future__ import annotations

import numpy as np

from biasflow.errors import BiasflowError
from biasflow.scorers.base import Scorer

_UNAVAILABLE = (
    "the 'detoxify-unbiased' scorer could not load Detoxify('unbiased'): {exc}. "
    "It needs `pip install detoxify` and internet access on first use (to download its "
    "checkpoint); offline, use the 'profanity' scorer instead."
)


class DetoxifyUnbiasedScorer(Scorer):
    name = "detoxify-unbiased"
    batch_size = 32

    def __init__(self, batch_size: int | None = None, device: str = "cpu"):
        if batch_size is not None:
            self.batch_size = int(batch_size)
        self.device = device
        self._model = None

    def _score_batch(self, texts: list[str]) -> np.ndarray:
        if self._model is None:
            self._model = _load_model(self.device)
        return np.asarray(self._model.predict(texts)["toxicity"], dtype=np.float64)


def _load_model(device: str):
    """Import and build Detoxify, turning any import or download failure into a user error."""
    try:
        from detoxify import Detoxify

        return Detoxify("unbiased", device=device)
    except Exception as exc:  # ImportError, OSError, HTTP and hub errors all mean "not available here"
        raise BiasflowError(_UNAVAILABLE.format(exc=exc)) from exc
