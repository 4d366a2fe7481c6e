"""Cached generation: requests (prompt, seed, sample) in, continuations out, each computed once.

Every request's key is a content hash of the model's identity (backend, weights, decoding,
chat) and the request (prompt text, seed, sample), so renaming a model, reordering prompts
or adding paraphrase seeds reuses every continuation already sampled. The backend is loaded
only when something is missing: a fully cached rerun never loads the model. Each method builds its
table of continuations on it (CAIRO's: :func:`biasflow.cairo.continuations.continuation_table`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import pandas as pd
from tqdm.auto import tqdm

from biasflow.cache import ShardCache, report_hits
from biasflow.hashing import stable_hash
from biasflow.models import Backend, Generation, ModelSpec, Request, backend_class, load_backend

log = logging.getLogger("biasflow")


class CachedGenerator:
    """``generator(requests) -> generations`` for one model, through the result cache.

    New results are written to the cache every ``chunk_size`` requests (by default the
    backend's own: large for vLLM, which schedules a whole call at once), so a killed job
    keeps what it had finished. ``identity`` is the one place that says what a continuation's
    cache key holds besides the request: the entry's :meth:`~biasflow.models.base.ModelSpec.identity`
    (backend and dtype as resolved, model, decoding, chat) and the resolved backend's sampler.
    """

    def __init__(
        self,
        spec: ModelSpec,
        cache_dir: str,
        *,
        backend_factory: Callable[[ModelSpec, str], Backend] = load_backend,
        chunk_size: int | None = None,
        description: str = "",
    ):
        # `dtype: auto` resolved for this machine first, so the key holds the dtype computed in; it may
        # pick another engine (transformers' auto on a CPU: CTranslate2), whose class serves from then on.
        self.spec = spec = backend_class(spec.backend, f"model {spec.name}: ").resolved(spec)
        backend = backend_class(spec.backend, f"model {spec.name}: ")
        self.cache_dir = cache_dir
        # What decides a continuation: the model entry's identity and the backend's sampler.
        self.identity = {**spec.identity(), "sampler": backend.sampler}
        self.cache = ShardCache(f"{cache_dir}/generations/{stable_hash(self.identity)}")
        self.backend_factory = backend_factory
        self.chunk_size = chunk_size or backend.chunk_size
        self.description = description or spec.name
        self._backend: Backend | None = None

    def key(self, request: Request) -> str:
        return stable_hash(self.identity, request.prompt, request.seed, request.sample)

    def __call__(self, requests: Sequence[Request]) -> list[Generation]:
        keys = [self.key(r) for r in requests]
        cached = self.cache.load(keys)
        todo: dict[str, Request] = {}
        for key, request in zip(keys, requests, strict=True):
            if key not in cached.index and key not in todo:
                todo[key] = request
        report_hits(self.description, len(set(keys)), len(todo))
        if todo:
            fresh = self._compute(list(todo.items()))
            cached = pd.concat([cached, fresh.set_index("key", drop=False)])
        texts = cached["text"].to_dict()
        counts = cached["n_tokens"].to_dict()
        return [Generation(texts[k], int(counts[k])) for k in keys]

    def _compute(self, items: list[tuple[str, Request]]) -> pd.DataFrame:
        if self._backend is None:
            self._backend = self.backend_factory(self.spec, self.cache_dir)
        frames = []
        with tqdm(total=len(items), desc=self.description, unit="req", mininterval=5) as bar:
            for start in range(0, len(items), self.chunk_size):
                chunk = items[start : start + self.chunk_size]
                out = self._backend.generate([r for _, r in chunk], progress=bar.update)
                frame = pd.DataFrame(
                    {"key": [k for k, _ in chunk], "text": [g.text for g in out], "n_tokens": [g.n_tokens for g in out]}
                )
                self.cache.add(frame)
                frames.append(frame)
        return pd.concat(frames, ignore_index=True)
