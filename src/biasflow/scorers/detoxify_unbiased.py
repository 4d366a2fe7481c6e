"""The CAIRO paper's toxicity classifier: Detoxify's ``unbiased`` checkpoint (docs/methods.md §5.2).

The paper scores every continuation with Detoxify (appendix A) and uses the toxicity
probability as the bias proxy (docs/methods.md §1.4). By default the ``unbiased`` release
checkpoint is downloaded on first use (into torch's hub cache); ``checkpoint`` names a
Detoxify checkpoint file instead (one downloaded by hand, or a fine-tuned one), with
``huggingface_config`` the folder of its transformers config and tokenizer for loading
offline. Detoxify loads checkpoints with ``torch.load(weights_only=False)``, that is by
unpickling: only use checkpoint files you trust.

The device is ``auto`` (the first GPU when there is one), ``cpu`` or ``cuda``; batches are
sized for it unless ``batch_size`` is given. The model is loaded on the first batch, not at
construction, so a fully cached rerun never loads it. What the scores depend on, the
checkpoint's content, is part of the score cache key.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

import numpy as np

from biasflow.errors import BiasflowError
from biasflow.extras import require
from biasflow.schema import choices
from biasflow.scorers.base import Scorer

log = logging.getLogger("biasflow")

# Texts per batch by device: a RoBERTa-base forward pass of 32 short texts keeps 2 CPU
# cores busy; a GPU needs far larger batches to be saturated (benchmarks/scoring.py).
BATCH_SIZES = {"cpu": 32, "cuda": 512}
# The release file Detoxify('unbiased') downloads; its name carries the file's hash prefix.
RELEASE_CHECKPOINT = "toxic_debiased-c7548aa0.ckpt"

_UNAVAILABLE = (
    "the 'detoxify-unbiased' scorer could not load Detoxify: {exc}. It needs `pip install detoxify` and, "
    "without cairo.scoring.checkpoint, the internet on first use (to download its checkpoint); offline, give "
    "cairo.scoring.checkpoint and cairo.scoring.huggingface_config, or use the 'profanity' scorer."
)


def resolve_device(device: str) -> str:
    """``auto`` → ``cuda`` when a GPU is visible, else ``cpu``; ``cuda`` without a GPU is an error."""
    allowed = choices("cairo.scoring.device")  # the setting is CAIRO's, and its schema holds the choices
    if device not in allowed:
        raise BiasflowError(f"unknown scoring device {device!r}; use one of {', '.join(allowed)}.")
    require("detoxify", "the detoxify-unbiased scorer")  # which brings torch: the extra to name is detoxify
    import torch

    available = torch.cuda.is_available()
    if device == "cuda" and not available:
        raise BiasflowError(
            "cairo.scoring.device is cuda but PyTorch sees no CUDA device here; use device: auto (or cpu), or run the "
            "score jobs on a GPU node (a CUDA build of torch is needed)."
        )
    if device == "auto":
        return "cuda" if available else "cpu"
    return device


class DetoxifyUnbiasedScorer(Scorer):
    name = "detoxify-unbiased"
    options = ("device", "checkpoint", "huggingface_config")
    files = ("checkpoint", "huggingface_config")

    def __init__(
        self,
        device: str,
        batch_size: int | None = None,
        checkpoint: str | Path | None = None,
        huggingface_config: str | Path | None = None,
    ):
        self.device = resolve_device(device)
        self.batch_size = int(batch_size) if batch_size is not None else BATCH_SIZES[self.device]
        self.checkpoint = Path(checkpoint) if checkpoint else None
        self.huggingface_config = Path(huggingface_config) if huggingface_config else None
        if self.checkpoint is not None and not self.checkpoint.is_file():
            raise BiasflowError(f"Detoxify checkpoint not found: {self.checkpoint}. Fix cairo.scoring.checkpoint.")
        if self.huggingface_config is not None and not self.huggingface_config.is_dir():
            raise BiasflowError(
                f"Detoxify config folder not found: {self.huggingface_config}. Fix cairo.scoring.huggingface_config."
            )
        self._model: Any = None  # loaded on first use (an untyped library's object)

    def cache_identity(self) -> dict:
        """The scorer, and a digest of the checkpoint (and config folder) its scores come from."""
        if self.checkpoint is None:
            return {"name": self.name, "checkpoint": RELEASE_CHECKPOINT}
        digest = hashlib.sha256()
        files = [self.checkpoint]
        if self.huggingface_config is not None:
            files += sorted(p for p in self.huggingface_config.rglob("*") if p.is_file())
        for path in files:
            with open(path, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        return {"name": self.name, "checkpoint": digest.hexdigest()}

    def _score_batch(self, texts: list[str]) -> np.ndarray:
        if self._model is None:
            self._model = self._load()
        return np.asarray(self._model.predict(texts)["toxicity"], dtype=np.float64).reshape(len(texts))

    def _load(self):
        """Import and build Detoxify, turning any import or download failure into a user error."""
        log.info("Detoxify on %s, batches of %d", self.device, self.batch_size)
        Detoxify = require("detoxify", "the detoxify-unbiased scorer").Detoxify
        try:
            if self.checkpoint is None:
                return Detoxify("unbiased", device=self.device)
            config = str(self.huggingface_config) if self.huggingface_config is not None else None
            return Detoxify(checkpoint=str(self.checkpoint), device=self.device, huggingface_config_path=config)
        except Exception as exc:  # ImportError, OSError, HTTP and hub errors all mean "not available here"
            raise BiasflowError(_UNAVAILABLE.format(exc=exc)) from exc
