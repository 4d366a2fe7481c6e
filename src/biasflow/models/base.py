"""The one generation interface every backend implements.

Requests are data (the HELM request-cache idea): a request is the prompt plus the seed
and sample index, and together with the model's identity
(:attr:`biasflow.generation.CachedGenerator.identity`, the one place that says what it holds)
it determines the cache key. Sampling is seeded per request, so a result does not depend
on which other requests shared its batch.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import ClassVar

from biasflow.hashing import stable_hash
from biasflow.schema import filled

log = logging.getLogger("biasflow")


@dataclass(frozen=True)
class Decoding:
    """Decoding settings (the config's ``decoding``; defaults in the schema: 25 new tokens, prompts cut to 100)."""

    do_sample: bool
    temperature: float
    top_p: float
    top_k: int
    max_new_tokens: int
    max_prompt_tokens: int

    @classmethod
    def from_params(cls, decoding: dict) -> Decoding:
        """The decoding of a config mapping; keys it leaves out take the schema's defaults."""
        return cls(**filled(dict(decoding), "#/definitions/decoding"))

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Request:
    """One continuation to sample: ``prompt`` with generation ``seed`` and ``sample`` index."""

    prompt: str
    seed: int = 0
    sample: int = 0

    def rng_seed(self) -> int:
        """Seed of this request's own random stream (63 bits, stable across runs)."""
        return int(stable_hash(self.prompt, self.seed, self.sample), 16) & (2**63 - 1)


@dataclass(frozen=True)
class Generation:
    text: str
    n_tokens: int


@dataclass(frozen=True)
class ModelSpec:
    """A model entry of the config, resolved to what a backend needs.

    ``name`` is only used in paths, never in a cache key, so renaming an entry keeps its cached
    results; what a key holds is :meth:`identity` with the backend's sampler
    (:attr:`biasflow.generation.CachedGenerator.identity`).
    """

    name: str
    backend: str
    model: str
    decoding: Decoding
    chat: bool
    batch_size: int
    trust_remote_code: bool
    dtype: str
    options: dict

    def identity(self) -> dict:
        """What of the entry determines the outputs (``dtype`` as the backend resolved it from ``auto``)."""
        return {
            "backend": self.backend,
            "model": self.model,
            "decoding": self.decoding.as_dict(),
            "chat": self.chat,
            "dtype": self.dtype,
        }


ProgressCallback = Callable[[int], None]


class Backend(ABC):
    """Generate one continuation per request, in request order; and every other member the code asks of a backend.

    A spec with ``chat`` wraps each prompt as a single user message with the model's chat
    template; otherwise the prompt is continued as plain text. ``progress`` is called
    with the number of requests finished since the last call.

    The class attributes and static methods are read from the class, before any model is
    loaded: the config check (``local_weights``, ``check_environment``, ``options``, ``dtypes``), the
    jobs' resources (``requests_in_flight``), the cache key (``sampler``, ``resolved``;
    :attr:`biasflow.generation.CachedGenerator.identity` is it), tuning (``trainable``,
    ``load_pretrained``) and the cache's save points (``chunk_size``).
    """

    name: ClassVar[str]  # the config's `backend:` value
    options: ClassVar[tuple[str, ...]]  # the keys a model entry's `options:` may hold for it
    local_weights: ClassVar[bool]  # `model` names weights this process loads (checked before any job runs)
    trainable: ClassVar[bool] = False  # soft-prompt tuning and fine-tuning can train its weights
    chunk_size: ClassVar[int]  # requests per call between cache saves
    sampler: ClassVar[str]  # how random draws become tokens: part of every cache key
    # The `dtype:` values an entry may set for it (checked with the config, before any job runs).
    dtypes: ClassVar[tuple[str, ...]] = ("auto", "float32", "bfloat16", "float16")
    spec: ModelSpec

    @abstractmethod
    def __init__(self, spec: ModelSpec, cache_dir: str) -> None:
        """Load the model ``spec`` names (or open its server); ``cache_dir`` holds what loading it downloads."""

    @staticmethod
    @abstractmethod
    def requests_in_flight(options: dict) -> int:
        """Requests to a server it keeps open at once (its share of the workflow's ``api`` limit)."""

    @staticmethod
    @abstractmethod
    def check_environment(spec: ModelSpec, where: str = "") -> str | None:
        """Raise :class:`~biasflow.errors.BiasflowError` for what the machine lacks (an API key), before jobs run."""

    @staticmethod
    @abstractmethod
    def resolved(spec: ModelSpec) -> ModelSpec:
        """``spec`` as it enters the cache key (``dtype: auto`` resolved where this process computes)."""

    @classmethod
    def load_pretrained(cls, spec: ModelSpec, cache_dir: str, dtype: str | None = None):
        """The tokenizer and model to tune (trainable backends only; callers check ``trainable`` first)."""
        raise TypeError(f"backend {cls.name} has no weights to train")

    @abstractmethod
    def generate(self, requests: Sequence[Request], progress: ProgressCallback | None = None) -> list[Generation]:
        """One continuation per request, in request order."""


class InProcessBackend(Backend):
    """What backends that load the weights into this process share: no server, no key.

    The workflow asks each backend class for its share of the global ``api`` limit and for
    what it needs from the environment before any job runs (``biasflow.config``); a model
    run in process keeps no request to a server open and needs nothing beyond its
    weights, which are checked apart.
    """

    local_weights = True

    @staticmethod
    def requests_in_flight(options: dict) -> int:
        return 0

    @staticmethod
    def check_environment(spec: ModelSpec, where: str = "") -> None:
        return None

    @staticmethod
    def resolved(spec: ModelSpec) -> ModelSpec:
        """``spec`` with ``dtype: auto`` resolved for the device this process computes on, logged with why."""
        from biasflow.models.dtypes import default_device, resolve_dtype

        dtype, why = resolve_dtype(spec.dtype, default_device())
        if spec.dtype == "auto":
            log.info("model %s: dtype auto is %s (%s)", spec.name, dtype, why)
        return replace(spec, dtype=dtype)
