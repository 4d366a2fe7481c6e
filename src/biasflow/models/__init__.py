"""Generation backends behind one interface (see :mod:`biasflow.models.base`).

Backends are chosen by name; each imports its heavy dependencies only when constructed,
so ``import biasflow`` never pulls torch, vLLM or the OpenAI client.
"""

from __future__ import annotations

from dataclasses import replace

from biasflow.errors import BiasflowError
from biasflow.models.base import Backend, Decoding, Generation, ModelSpec, Request

BACKENDS = ("transformers", "vllm", "openai")

__all__ = [
    "BACKENDS", "Backend", "Decoding", "Generation", "ModelSpec", "Request", "load_backend", "model_spec",
    "spec_from_entry",
]


def model_spec(name: str, entry: dict) -> ModelSpec:
    """Build a :class:`ModelSpec` from a config entry (already schema-validated)."""
    backend = entry.get("backend", "transformers")
    if backend not in BACKENDS:
        raise BiasflowError(f"model {name}: unknown backend {backend!r}; use one of {', '.join(BACKENDS)}.")
    if not entry.get("model"):
        raise BiasflowError(f"model {name}: no `model` given (a hub id, directory, .gguf file or pkg:...).")
    decoding_keys = set(Decoding.__dataclass_fields__)
    unknown = set(entry.get("decoding", {})) - decoding_keys
    if unknown:
        raise BiasflowError(
            f"model {name}: unknown decoding setting(s) {', '.join(sorted(unknown))}; "
            f"known: {', '.join(sorted(decoding_keys))}."
        )
    return ModelSpec(
        name=name,
        backend=backend,
        model=str(entry["model"]),
        decoding=Decoding(**entry.get("decoding", {})),
        chat=bool(entry.get("chat", False)),
        batch_size=int(entry.get("batch_size", 16)),
        trust_remote_code=bool(entry.get("trust_remote_code", False)),
        dtype=str(entry.get("dtype", "auto")),
        options=dict(entry.get("options", {})),
    )


def spec_from_entry(entry: dict) -> ModelSpec:
    """The :class:`ModelSpec` of a workflow params entry: the config entry plus its ``name``."""
    return model_spec(entry["name"], {key: value for key, value in entry.items() if key != "name"})


def load_backend(spec: ModelSpec, cache_dir: str = ".cache/biasflow") -> Backend:
    """Construct the backend named by ``spec.backend`` (loads the model)."""
    if spec.backend == "transformers":
        from biasflow.models.transformers_backend import TransformersBackend

        return TransformersBackend(spec, cache_dir=cache_dir)
    if spec.backend == "vllm":
        from biasflow.models.sources import resolve_source
        from biasflow.models.vllm_backend import VLLMBackend

        # vLLM loads hub ids, directories and .gguf files itself; pkg: specs become file paths.
        return VLLMBackend(replace(spec, model=resolve_source(spec.model, cache_dir).location))
    if spec.backend == "openai":
        from biasflow.models.openai_backend import OpenAIBackend

        return OpenAIBackend(spec)
    raise BiasflowError(f"model {spec.name}: unknown backend {spec.backend!r}; use one of {', '.join(BACKENDS)}.")
