"""Generation with Hugging Face ``transformers`` on CPU (or a single GPU).

Sampling is seeded per request: each row of a batch draws its tokens from its own
``torch.Generator`` seeded by :meth:`Request.rng_seed`. ``generate`` runs greedy decoding
over the scores of :class:`_PerRequestSampler`, which applies temperature, top-k and
top-p itself and leaves only the token it sampled, so padding, caching and stopping are
transformers' own while the random stream belongs to the request, not to the batch.
(Rows in different batches can still see floating-point differences from padding; on
identical inputs the output is identical.)

Prompts are cut to their last ``max_prompt_tokens`` tokens (the end of a prompt is what the
continuation must follow) and padded on the left.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import cast

from biasflow.errors import BiasflowError
from biasflow.extras import require
from biasflow.models import dtypes
from biasflow.models.base import Decoding, Generation, InProcessBackend, ModelSpec, ProgressCallback, Request
from biasflow.models.dtypes import default_device, resolve_dtype
from biasflow.models.sources import materialise, resolve_source

# What needs torch and transformers here, as the missing-extra message names it (biasflow.extras).
LOADING = "loading a model with transformers"

log = logging.getLogger("biasflow")

# Tokens per block of the two-level inverse-CDF search (:func:`_inverse_cdf`), and the most likely
# tokens a nucleus is looked for among before the whole vocabulary is sorted (:func:`_nucleus`).
BLOCK = 1024


def load_pretrained(spec: ModelSpec, cache_dir: str, dtype: str | None = None):
    """``(tokenizer, model)`` of ``spec.model`` from local weights (GGUF converted once), on the CPU.

    ``dtype`` overrides the entry's own (tuning trains in float32 whatever the entry says);
    ``auto`` is resolved for this machine's CPU (:mod:`biasflow.models.dtypes`).
    """
    torch = require("torch", LOADING)
    transformers = require("transformers", LOADING)

    source = materialise(resolve_source(spec.model, cache_dir), cache_dir)
    kwargs = {"trust_remote_code": spec.trust_remote_code}
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(source.location, **kwargs)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            source.location, dtype=_torch_dtype(torch, resolve_dtype(dtype or spec.dtype, "cpu")[0]), **kwargs
        )
    except OSError as exc:
        raise BiasflowError(
            f"cannot load model {spec.model!r} for {spec.name}: {exc}. A hub id needs the internet on first "
            "use; offline, point `model` at a local directory, a .gguf file or 'pkg:<distribution>/<file>'."
        ) from exc
    return tokenizer, model


class TransformersBackend(InProcessBackend):
    """In-process generation with transformers; its weights also serve tuning (:func:`load_pretrained`)."""

    name = "transformers"
    # Soft-prompt tuning and fine-tuning can train the weights this backend loads.
    trainable = True
    options = ()
    # Requests per call between cache saves (batches of batch_size within a call).
    chunk_size = 256
    # How the random draws become tokens; part of every cache key, so results of another
    # sampler are never mixed with these.
    sampler = "inverse-cdf-nucleus"

    def __init__(self, spec: ModelSpec, cache_dir: str, device: str | None = None):
        started = time.perf_counter()  # the load counts torch's and transformers' imports
        torch = require("torch", LOADING)

        self.device = device or default_device()
        dtype, why = resolve_dtype(spec.dtype, self.device)
        if spec.dtype == "auto":  # else resolved by the caller (CachedGenerator), which logged why
            log.info("model %s: dtype auto is %s (%s)", spec.name, dtype, why)
        self.spec = spec = replace(spec, dtype=dtype)
        self.torch = torch
        self.tokenizer, self.model = load_pretrained(spec, cache_dir)
        self.model.to(self.device).eval()
        log.info(
            "model %s (%s) in %s on %s, loaded in %.1f s",
            spec.name,
            spec.model,
            dtype,
            self.device,
            time.perf_counter() - started,
        )
        self.clock = _ForwardClock(self.model)
        fitting, fit_why = resolve_dtype("auto", "cpu") if self.device == "cpu" else (dtype, "")
        if dtype == "bfloat16" and fitting != "bfloat16":
            log.warning("model %s: bfloat16 is set, but %s; set its dtype: auto", spec.name, fit_why)
        self.tokenizer.padding_side = "left"
        self.tokenizer.truncation_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        if self.tokenizer.pad_token_id is None:
            raise BiasflowError(f"model {spec.name}: its tokenizer has neither a pad nor an eos token.")

    load_pretrained = staticmethod(load_pretrained)

    @staticmethod
    def resolved(spec: ModelSpec) -> ModelSpec:
        """``spec`` as it enters the cache key: ``dtype: auto`` on a CPU is int8 computed by CTranslate2 where it
        is installed (docs/methods.md §5.1), else resolved for transformers (:mod:`biasflow.models.dtypes`).

        The one place that moves a model to another engine: an explicit dtype keeps transformers,
        and so does a GPU. The caller (:class:`biasflow.generation.CachedGenerator`) loads the backend
        the returned spec names, and tuning, which loads the config's own spec, stays in float32
        with transformers (:func:`biasflow.models.load_for_training`).
        """
        if spec.dtype == "auto" and dtypes.default_device() == "cpu" and dtypes.cpu_engine_installed():
            log.info(
                "model %s: dtype auto on this CPU is int8 with CTranslate2 (its int8 kernels are made for CPUs: 2 to 3 "
                "times the tokens/s of transformers in float32 on an AVX2 CPU, docs/methods.md §5.1); set dtype: "
                "float32 to compute with transformers",
                spec.name,
            )
            return replace(spec, backend="ctranslate2", dtype="int8")
        return InProcessBackend.resolved(spec)

    def generate(self, requests: Sequence[Request], progress: ProgressCallback | None = None) -> list[Generation]:
        """Sample one continuation per request; batches are formed from prompts of similar length."""
        chat = self.spec.chat
        if chat and not self.tokenizer.chat_template:
            raise BiasflowError(f"model {self.spec.name} has no chat template; set `chat: false` for it.")
        texts = [self._render(r.prompt, chat) for r in requests]
        lengths = [len(self.tokenizer(t, add_special_tokens=not chat)["input_ids"]) for t in texts]
        order = sorted(range(len(requests)), key=lambda i: (lengths[i], i))
        results: list[Generation | None] = [None] * len(requests)
        size = max(1, self.spec.batch_size)
        started, sampling = time.perf_counter(), 0.0
        self.clock.reset()
        for start in range(0, len(order), size):
            batch = order[start : start + size]
            outputs, seconds = self._generate_batch([texts[i] for i in batch], [requests[i] for i in batch], chat)
            sampling += seconds
            for i, out in zip(batch, outputs, strict=True):
                results[i] = out
            if progress:
                progress(len(batch))
        generated = cast("list[Generation]", results)  # every request's slot is filled above
        log.info(
            "model %s: %d new tokens for %d requests in %.2f s (prefill %.2f s, decode %.2f s, sampling %.2f s)",
            self.spec.name,
            sum(r.n_tokens for r in generated),
            len(requests),
            time.perf_counter() - started,
            self.clock.seconds["prefill"],
            self.clock.seconds["decode"],
            sampling,
        )
        return generated

    def _render(self, prompt: str, chat: bool) -> str:
        if not chat:
            return prompt
        return self.tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
        )

    def _generate_batch(self, texts: list[str], requests: list[Request], chat: bool) -> tuple[list[Generation], float]:
        """The batch's generations, and the seconds its sampler took."""
        from transformers import GenerationConfig, LogitsProcessorList

        torch = self.torch
        decoding = self.spec.decoding
        encoded = self.tokenizer(
            texts,
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=decoding.max_prompt_tokens,
            add_special_tokens=not chat,
        ).to(self.device)
        config = GenerationConfig(
            max_new_tokens=decoding.max_new_tokens,
            do_sample=False,
            pad_token_id=self.tokenizer.pad_token_id,
            eos_token_id=self.model.generation_config.eos_token_id or self.tokenizer.eos_token_id,
        )
        sampler = _PerRequestSampler(torch, decoding, [r.rng_seed() for r in requests])
        with torch.inference_mode():
            output = self.model.generate(
                **encoded, generation_config=config, logits_processor=LogitsProcessorList([sampler])
            )
        new_tokens = output[:, encoded["input_ids"].shape[1] :]
        return [self._decode(row) for row in new_tokens], sampler.seconds

    def _decode(self, row) -> Generation:
        ids = row.tolist()
        stop = set(_as_list(self.model.generation_config.eos_token_id or self.tokenizer.eos_token_id))
        stop.add(self.tokenizer.pad_token_id)
        end = next((k for k, t in enumerate(ids) if t in stop), len(ids))
        return Generation(self.tokenizer.decode(ids[:end], skip_special_tokens=True), end)


class _PerRequestSampler:
    """A logits processor that samples each row from its own seeded generator.

    It returns scores that are ``-inf`` everywhere but at the sampled token, so greedy
    decoding picks exactly that token. With ``do_sample`` false in the decoding settings it
    keeps the argmax (plain greedy).

    Sampling is by inverse CDF (docs/methods.md §5.1): each row draws one uniform number
    from its request's generator, and the token is the first whose cumulative probability
    exceeds it. The generators live on the CPU whatever the model's device (a CUDA
    generator draws a different stream from a CPU one with the same seed), so a GPU run
    samples the same continuations as a CPU run up to floating-point differences in the
    probabilities; only one number per row crosses to the device, and the search is
    vectorised there (:func:`_inverse_cdf`).
    """

    def __init__(self, torch, decoding: Decoding, seeds: list[int]):
        self.torch = torch
        self.decoding = decoding
        self.seconds = 0.0
        self.generators = []
        for seed in seeds:
            generator = torch.Generator(device="cpu")
            generator.manual_seed(seed)
            self.generators.append(generator)

    def __call__(self, input_ids, scores):
        started = time.perf_counter()
        torch = self.torch
        scores = scores.float()
        if not self.decoding.do_sample:
            chosen = scores.argmax(dim=-1)
        else:
            uniform = torch.stack([torch.rand((), generator=g, dtype=torch.float64) for g in self.generators])
            # In place, as below: scores is this step's own float copy of the logits.
            chosen = _sample(
                torch, scores.div_(max(self.decoding.temperature, 1e-5)), self.decoding, uniform.to(scores.device)
            )
        # In place: a second vocabulary-wide tensor per step would cost as much as the search.
        scores.fill_(float("-inf"))
        scores.scatter_(1, chosen.unsqueeze(1), 0.0)
        self.seconds += time.perf_counter() - started
        return scores


class _ForwardClock:
    """Seconds the model's forward passes take, prefill (the whole prompt) apart from decoding (one new token).

    Hooks on the model's own forward, so the log can say where a job's time went
    (benchmarks/README.md, the demo's profile).
    """

    def __init__(self, model):
        self.seconds = {"prefill": 0.0, "decode": 0.0}
        self._started = 0.0
        self._phase = "decode"
        model.register_forward_pre_hook(self._before, with_kwargs=True)
        model.register_forward_hook(self._after)

    def reset(self) -> None:
        self.seconds = {"prefill": 0.0, "decode": 0.0}

    def _before(self, module, args, kwargs):
        ids = kwargs.get("input_ids", args[0] if args else None)
        self._phase = "prefill" if ids is not None and ids.shape[-1] > 1 else "decode"
        self._started = time.perf_counter()

    def _after(self, module, args, output):
        self.seconds[self._phase] += time.perf_counter() - self._started


def _inverse_cdf(torch, probs, uniform):
    """Per row, the first token whose cumulative probability exceeds ``uniform`` times the total.

    The sum runs in two levels: the mass of each block of :data:`BLOCK` tokens (summed in
    float32, accumulated over blocks in float64) to find the block, then the float64
    cumulative sum inside that block alone. It reads a 262k-token row once instead of
    converting and summing all of it in float64, and finds the token a whole-vocabulary
    float64 sum finds except where u falls within float32 rounding (about 1e-7) of a
    boundary (docs/methods.md §5.1). A token of zero probability is never chosen.
    """
    rows, vocab = probs.shape
    pad = (-vocab) % BLOCK
    blocks = (torch.nn.functional.pad(probs, (0, pad)) if pad else probs).view(rows, -1, BLOCK)
    block_cdf = blocks.sum(dim=-1).double().cumsum(dim=-1)
    target = uniform * block_cdf[:, -1]
    block = torch.searchsorted(block_cdf, target.unsqueeze(1), right=True).squeeze(1).clamp(max=block_cdf.shape[1] - 1)
    below = torch.where(block > 0, block_cdf.gather(1, (block - 1).clamp(min=0).unsqueeze(1)).squeeze(1), 0.0)
    inside = blocks[torch.arange(rows, device=probs.device), block]
    offset = torch.searchsorted(inside.double().cumsum(dim=-1), (target - below).unsqueeze(1), right=True).squeeze(1)
    # Rounding can put the target past the block's own running sum: take its last token of positive probability.
    last = BLOCK - 1 - (inside.flip(-1) > 0).int().argmax(dim=-1)
    return block * BLOCK + torch.minimum(offset, last)


def _sample(torch, logits, decoding: Decoding, uniform):
    """Each row's token for its uniform number: top-k (:func:`_top_k`), then top-p (:func:`_nucleus`), then by
    inverse CDF.

    With top-p the search runs over the nucleus's tokens alone (:func:`_inverse_cdf_within`)
    instead of masking, normalising and searching the whole vocabulary: the same tokens in
    the same order with the same probabilities, so the same token but for float rounding at
    a boundary.
    """
    logits = _top_k(torch, logits, decoding.top_k)
    if decoding.top_p < 1.0:
        probs, ids, kept = _nucleus(torch, torch.softmax(logits, dim=-1), decoding.top_p)
        return _inverse_cdf_within(torch, probs, ids, kept, uniform)
    return _inverse_cdf(torch, torch.softmax(logits, dim=-1), uniform)


def _inverse_cdf_within(torch, probs, ids, kept, uniform):
    """The inverse-CDF token among each row's kept candidates, taken in vocabulary order.

    ``probs``, ``ids`` and ``kept`` are each row's candidates (as :func:`_nucleus` returns
    them); the cumulative sum runs in float64 over the kept ones sorted by token id, the order
    the whole-vocabulary search (:func:`_inverse_cdf`) walks them in.
    """
    vocab_end = torch.iinfo(ids.dtype).max
    ids, order = torch.where(kept, ids, vocab_end).sort(dim=-1)  # the dropped ones last
    cdf = torch.where(kept, probs, 0.0).gather(1, order).double().cumsum(dim=-1)
    position = torch.searchsorted(cdf, (uniform * cdf[:, -1]).unsqueeze(1), right=True).squeeze(1)
    # Rounding can put the target at the total: take the last kept candidate.
    position = torch.minimum(position, kept.sum(dim=-1) - 1)
    return ids.gather(1, position.unsqueeze(1)).squeeze(1)


def _top_k(torch, logits, top_k: int | None):
    if not top_k or top_k <= 0:
        return logits
    kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[:, -1:]
    return logits.masked_fill(logits < kth, float("-inf"))


def _nucleus(torch, probs, top_p: float):
    """``(probabilities, token ids, kept)`` of each row's candidates, most likely first, ``kept`` marking the
    nucleus: the most likely tokens until their mass reaches ``top_p``.

    The candidates are the :data:`BLOCK` most likely tokens when they hold at least ``top_p``
    of the mass in every row (the usual case), which avoids sorting a 262k-token vocabulary at
    every step; otherwise the whole vocabulary, sorted. Both give the same nucleus.
    """
    top, ids = torch.topk(probs, min(BLOCK, probs.shape[-1]), dim=-1)
    if not bool((top.sum(dim=-1) >= top_p).all()):
        top, ids = torch.sort(probs, descending=True, dim=-1)
    return top, ids, (top.cumsum(dim=-1) - top) < top_p


def _torch_dtype(torch, name: str):
    """The torch dtype of ``name``; int8 (CTranslate2's) or an unknown name never reaches torch."""
    if name not in TransformersBackend.dtypes:
        raise BiasflowError(f"transformers computes in float32, bfloat16 or float16, not {name!r}.")
    return getattr(torch, name)


def _as_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]
