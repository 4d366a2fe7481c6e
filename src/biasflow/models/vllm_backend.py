"""Backend for vLLM, the fast path on GPU machines (optional extra ``vllm``).

Every request gets its own ``SamplingParams`` with ``seed=request.rng_seed()``; vLLM
then draws that request's tokens from a generator seeded for it alone, so a
continuation does not depend on which other prompts were scheduled beside it (up to
floating-point differences between batch shapes, which can flip a near-tie), and the
workflow's cache may mix results from different runs.

Prompts are cut to ``max_prompt_tokens`` by vLLM itself (``truncate_prompt_tokens``).
For generation models vLLM loads the tokenizer with ``truncation_side="left"``, so the
*last* tokens are kept: the words the continuation follows on from survive. The cap
counts the special tokens the tokenizer adds (a BOS stays in front of a cut prompt, as
with a Hugging Face tokenizer asked for ``truncation=True, max_length=cap``). With
``chat=True`` the cap applies to the whole templated conversation, template tokens
included, so it should leave room for the template.

Older vLLM releases take the cap in ``SamplingParams``; newer ones removed it there and
take it in ``tokenization_kwargs`` of ``generate``/``chat``; both are handled.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import replace

from biasflow.errors import BiasflowError
from biasflow.extras import require
from biasflow.models.base import Decoding, Generation, InProcessBackend, ModelSpec, ProgressCallback, Request
from biasflow.models.sources import resolve_source

# Engine arguments a model entry may set in its options (docs/methods.md §5.1). On vLLM's
# CPU build gpu_memory_utilization is the share of CPU memory kept for the KV cache.
ENGINE_OPTIONS = ("gpu_memory_utilization", "max_model_len", "tensor_parallel_size", "enforce_eager")

# Engine arguments that the model entry sets itself; taking them from options.engine as
# well would let two places disagree about what was loaded.
_RESERVED_ENGINE_ARGS = ("model", "trust_remote_code", "dtype", "seed", "tokenizer", *ENGINE_OPTIONS)


def _import_vllm():
    return require("vllm", "the vllm backend (on a GPU machine; on this one, backend: transformers)")


def sampling_kwargs(decoding: Decoding, request: Request) -> dict:
    """Keyword arguments of one request's ``vllm.SamplingParams``.

    Greedy decoding is temperature 0 (vLLM then ignores top-p and top-k). ``top_k=0``
    means "no limit" here; vLLM spells that -1 (older releases reject 0).
    """
    return {
        "seed": request.rng_seed(),
        "temperature": decoding.temperature if decoding.do_sample else 0.0,
        "top_p": decoding.top_p if decoding.do_sample else 1.0,
        "top_k": decoding.top_k if decoding.do_sample and decoding.top_k > 0 else -1,
        "max_tokens": decoding.max_new_tokens,
        "truncate_prompt_tokens": decoding.max_prompt_tokens,
    }


def takes_truncation(sampling_params_cls) -> bool:
    """Whether this vLLM's ``SamplingParams`` still has the ``truncate_prompt_tokens`` field."""
    fields = getattr(sampling_params_cls, "__struct_fields__", None)
    if fields is None:
        fields = inspect.signature(sampling_params_cls).parameters
    return "truncate_prompt_tokens" in fields


def build_params(sampling_params_cls, decoding: Decoding, requests: Sequence[Request]) -> tuple[list, dict]:
    """One ``SamplingParams`` per request, plus the extra keyword arguments of the call.

    The prompt cap goes where this vLLM reads it: in each ``SamplingParams`` or, for
    releases that dropped the field, in ``tokenization_kwargs`` (a fresh dict per call,
    because vLLM pops keys from it).
    """
    per_request = takes_truncation(sampling_params_cls)
    params = []
    for request in requests:
        kwargs = sampling_kwargs(decoding, request)
        if not per_request:
            kwargs.pop("truncate_prompt_tokens")
        params.append(sampling_params_cls(**kwargs))
    call_kwargs = {} if per_request else {"tokenization_kwargs": {"truncate_prompt_tokens": decoding.max_prompt_tokens}}
    return params, call_kwargs


def engine_kwargs(spec: ModelSpec) -> dict:
    """Arguments of ``vllm.LLM`` for a model entry.

    ``spec.model`` may be a hub id, a directory or a ``.gguf`` file; for GGUF, vLLM
    advises the original model's tokenizer (``options.tokenizer``) over the one it can
    rebuild from the file. The entry's ``dtype`` (``auto`` resolved for the device first, as
    :mod:`biasflow.models.dtypes` says) and the options of :data:`ENGINE_OPTIONS`
    (``gpu_memory_utilization``, ``max_model_len``, ``tensor_parallel_size``,
    ``enforce_eager``) go to the engine; ``options.engine`` passes any further engine
    argument through. ``seed=0`` only fixes the engine's global state; sampling uses
    per-request seeds.
    """
    engine = dict(spec.options.get("engine") or {})
    clash = sorted(set(engine) & set(_RESERVED_ENGINE_ARGS))
    if clash:
        raise BiasflowError(
            f"Model {spec.name!r}: options.engine must not set {', '.join(clash)}; "
            "use the entry's own model, trust_remote_code and dtype keys, and options.tokenizer, "
            f"options.{', options.'.join(ENGINE_OPTIONS)}."
        )
    kwargs = {"model": spec.model, "trust_remote_code": spec.trust_remote_code, "dtype": spec.dtype, "seed": 0}
    for key in ("tokenizer", *ENGINE_OPTIONS):
        if spec.options.get(key) is not None:
            kwargs[key] = spec.options[key]
    return {**kwargs, **engine}


class VLLMBackend(InProcessBackend):
    """Continuations from a model loaded once into a vLLM engine.

    ``chat=True`` sends each prompt as one user message through ``LLM.chat``, which
    applies the tokenizer's chat template with the generation prompt added. vLLM loads
    hub ids, directories and ``.gguf`` files itself; ``pkg:`` specs become file paths.
    """

    name = "vllm"
    trainable = False
    options = ("tokenizer", *ENGINE_OPTIONS, "engine")
    # Requests per call between cache saves: vLLM schedules continuously within a call, so
    # large calls keep a GPU busy; a killed job loses at most one call's results.
    chunk_size = 4096
    sampler = "vllm"

    def __init__(self, spec: ModelSpec, cache_dir: str):
        vllm = _import_vllm()
        spec = replace(self.resolved(spec), model=resolve_source(spec.model, cache_dir).location)
        self.spec = spec
        self._sampling_params_cls = vllm.SamplingParams
        self._llm = vllm.LLM(**engine_kwargs(spec))

    def __repr__(self) -> str:
        return f"VLLMBackend(model={self.spec.model!r})"

    def generate(self, requests: Sequence[Request], progress: ProgressCallback | None = None) -> list[Generation]:
        """One continuation per request, in request order, all in one engine call.

        vLLM returns outputs in input order; its own progress bar is off, ``progress``
        gets the whole count when the call returns.
        """
        chat = self.spec.chat
        params, call_kwargs = build_params(self._sampling_params_cls, self.spec.decoding, requests)
        if chat:
            conversations = [[{"role": "user", "content": r.prompt}] for r in requests]
            outputs = self._llm.chat(conversations, sampling_params=params, use_tqdm=False, **call_kwargs)
        else:
            prompts = [r.prompt for r in requests]
            outputs = self._llm.generate(prompts, sampling_params=params, use_tqdm=False, **call_kwargs)
        generations = [Generation(text=out.outputs[0].text, n_tokens=_new_tokens(out.outputs[0])) for out in outputs]
        if progress is not None:
            progress(len(requests))
        return generations


def _new_tokens(completion) -> int:
    """Tokens generated before the end-of-sequence token, as the transformers backend counts them.

    vLLM includes the EOS token in ``token_ids`` when a request stopped on it (finish
    reason ``stop`` with no stop string or token of ours, since none are set).
    """
    ended_on_eos = completion.finish_reason == "stop" and completion.stop_reason is None
    return len(completion.token_ids) - int(ended_on_eos and len(completion.token_ids) > 0)
