"""Generation backends behind one interface (see :mod:`biasflow.models.base`), chosen by name.

Every backend class names itself (``name``) and says what its ``model`` field refers to
(``local_weights``: weights this process loads, checked before any job runs) and whether
tuning can train it (``trainable``); :data:`BACKENDS` is the one list of them, as the
scorer registry is for scorers. Each backend imports its heavy dependencies only when
constructed, so ``import biasflow`` never pulls torch, CTranslate2, vLLM or the OpenAI client.
"""

from __future__ import annotations

from biasflow.errors import BiasflowError, did_you_mean
from biasflow.models.base import Backend, Decoding, Generation, ModelSpec, Request
from biasflow.models.ctranslate2_backend import CTranslate2Backend
from biasflow.models.openai_backend import OpenAIBackend
from biasflow.models.transformers_backend import TransformersBackend
from biasflow.models.vllm_backend import VLLMBackend
from biasflow.registry import Registry
from biasflow.schema import filled

_REGISTRY: Registry[type[Backend]] = Registry(
    "backend",
    builtin=[(cls.name, cls) for cls in (TransformersBackend, CTranslate2Backend, VLLMBackend, OpenAIBackend)],
)
BACKENDS = _REGISTRY.names()

__all__ = [
    "BACKENDS",
    "Backend",
    "Decoding",
    "Generation",
    "ModelSpec",
    "Request",
    "backend_class",
    "job_resources",
    "load_backend",
    "load_for_training",
    "model_spec",
    "spec_from_entry",
]


def backend_class(name: str, where: str = "") -> type[Backend]:
    """The backend class registered as ``name``; an unknown name is a :class:`BiasflowError`.

    ``where`` starts the message (say, the config key that named the backend).
    """
    return _REGISTRY.get(name, where)


def model_spec(name: str, entry: dict) -> ModelSpec:
    """Build a :class:`ModelSpec` from a config entry; keys it leaves out take the schema's defaults."""
    entry = filled(entry, "#/definitions/model")
    backend = entry["backend"]
    if not entry.get("model"):
        raise BiasflowError(f"model {name}: no `model` given (a hub id, directory, .gguf file or pkg:...).")
    cls = backend_class(backend, f"model {name}: ")
    _check_dtype(name, cls, str(entry["dtype"]))
    allowed = cls.options
    unknown_options = sorted(set(entry["options"] or {}) - set(allowed))
    if unknown_options:
        key = unknown_options[0]
        hint = did_you_mean(key, allowed)
        raise BiasflowError(
            f"model {name}: unknown option {key!r}{hint} for backend {backend}; "
            f"its options are: {', '.join(allowed) or 'none'}."
        )
    decoding_keys = set(Decoding.__dataclass_fields__)
    unknown = set(entry["decoding"]) - decoding_keys
    if unknown:
        raise BiasflowError(
            f"model {name}: unknown decoding setting(s) {', '.join(sorted(unknown))}; "
            f"known: {', '.join(sorted(decoding_keys))}."
        )
    return ModelSpec(
        name=name,
        backend=backend,
        model=str(entry["model"]),
        decoding=Decoding.from_params(entry["decoding"]),
        chat=bool(entry["chat"]),
        batch_size=int(entry["batch_size"]),
        trust_remote_code=bool(entry["trust_remote_code"]),
        dtype=str(entry["dtype"]),
        options=dict(entry["options"]),
    )


def _check_dtype(name: str, cls: type[Backend], dtype: str) -> None:
    """Refuse a ``dtype`` the backend does not compute in, naming the backends that do (docs/methods.md §5.1)."""
    if dtype in cls.dtypes:
        return
    others = [other.name for other in _REGISTRY.all() if dtype in other.dtypes and other.local_weights]
    fix = f"set backend: {' or '.join(others)} to compute in {dtype}, or " if others else "set "
    raise BiasflowError(
        f"model {name}: backend {cls.name} does not compute in {dtype} (its dtypes: {', '.join(cls.dtypes)}); "
        f"{fix}dtype: auto, which picks what this machine computes fastest (int8 with CTranslate2 on a CPU "
        "where it is installed)."
    )


def spec_from_entry(entry: dict) -> ModelSpec:
    """The :class:`ModelSpec` of a workflow params entry: the config entry plus its ``name``."""
    return model_spec(entry["name"], {key: value for key, value in entry.items() if key != "name"})


def job_resources(entry: dict) -> dict:
    """What a job that loads the model of ``entry`` (a schema-validated config entry) asks of a scheduler.

    ``threads``, ``mem_mb`` and ``gpu`` as the entry gives them, and ``api``: the requests
    it keeps in flight to an OpenAI-compatible server (its ``max_concurrency``; 0 for
    backends that call no server), which a global ``api`` cap bounds over all jobs.
    """
    cls = backend_class(entry["backend"])
    return {
        "threads": entry["threads"],
        "mem_mb": entry["mem_mb"],
        "gpu": entry["gpu"],
        "api": cls.requests_in_flight(entry["options"]),
    }


def load_backend(spec: ModelSpec, cache_dir: str) -> Backend:
    """Construct the backend named by ``spec.backend`` (loads the model)."""
    return backend_class(spec.backend, f"model {spec.name}: ")(spec, cache_dir=cache_dir)


def load_for_training(spec: ModelSpec, cache_dir: str):
    """``(tokenizer, model)`` in float32 on the CPU, for soft-prompt tuning and fine-tuning.

    Only a backend whose weights are local and in the transformers layout can be trained.
    """
    cls = backend_class(spec.backend, f"model {spec.name}: ")
    if not cls.trainable:
        trainable = ", ".join(c.name for c in _REGISTRY.all() if c.trainable)
        raise BiasflowError(
            f"model {spec.name}: soft-prompt tuning and fine-tuning need local weights (backend {trainable}), "
            f"not backend {spec.backend}."
            + (
                " Set backend: transformers for it: with dtype: auto it still generates with CTranslate2 on a CPU."
                if cls.local_weights
                else ""
            )
        )
    return cls.load_pretrained(spec, cache_dir, dtype="float32")
