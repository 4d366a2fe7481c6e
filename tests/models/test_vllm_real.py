"""The vLLM backend against the real engine, on vLLM's CPU build (`make test-vllm`).

vLLM pins its own transformers, so it lives in its own environment (.venv-vllm); in the
default environment these tests skip. Tiny local models with 32-wide attention heads (the
smallest the CPU kernels take); greedy decoding where a test compares prompts, sampling
where it compares seeds.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace

import pytest

from biasflow.generation import CachedGenerator
from biasflow.models import load_backend
from biasflow.models.base import Decoding, ModelSpec, Request
from specs import make_decoding, make_spec

vllm = pytest.importorskip("vllm", reason="vLLM's CPU build runs in its own environment: make test-vllm")
pytestmark = pytest.mark.vllm

# Small engines: on the CPU build gpu_memory_utilization is the share of host memory kept for
# the KV cache, and eager mode skips minutes of compilation for models this size.
ENGINE = {"gpu_memory_utilization": 0.15, "max_model_len": 256, "enforce_eager": True}


def spec(path, decoding: Decoding, chat: bool = False) -> ModelSpec:
    return make_spec(
        name="tiny",
        backend="vllm",
        model=str(path),
        decoding=decoding,
        chat=chat,
        dtype="float32",
        options=dict(ENGINE),
    )


@pytest.fixture(scope="module")
def models(vllm_tiny_models):
    """Built once per run (tests/conftest.py), shared with tests/workflow/test_vllm_workflow.py."""
    return {"plain": vllm_tiny_models["tiny-a"], "chat": vllm_tiny_models["tiny-chat"]}


@pytest.fixture(scope="module")
def sampler(models, tmp_path_factory):
    return load_backend(spec(models["plain"], make_decoding(max_new_tokens=12)), str(tmp_path_factory.mktemp("cache")))


@contextmanager
def decoding_as(backend, model_spec: ModelSpec):
    """``backend``'s engine computing for ``model_spec`` (the same model): the backend reads its spec's decoding at
    every call, so one engine serves each decoding a test needs (starting one is most of this suite's time)."""
    original = backend.spec
    backend.spec = model_spec
    try:
        yield backend
    finally:
        backend.spec = original


@pytest.fixture
def greedy(models, sampler):
    """Greedy decoding with prompts cut to their last 4 tokens, on the sampler's engine."""
    decoding = make_decoding(do_sample=False, max_new_tokens=8, max_prompt_tokens=4)
    with decoding_as(sampler, spec(models["plain"], decoding)) as backend:
        yield backend


@pytest.fixture(scope="module")
def greedy_chat(models, tmp_path_factory):
    decoding = make_decoding(do_sample=False, max_new_tokens=8, max_prompt_tokens=10)
    return load_backend(spec(models["chat"], decoding, chat=True), str(tmp_path_factory.mktemp("cache")))


REQUESTS = [Request("the woman worked as a", seed=s, sample=k) for s in (0, 1) for k in range(3)]


def texts(backend, requests):
    return [g.text for g in backend.generate(requests)]


def test_per_request_seeds_reproduce_and_differ(sampler):
    first = texts(sampler, REQUESTS)
    assert first == texts(sampler, REQUESTS)
    assert len(set(first)) > 1, "different seeds and samples give different continuations"


def test_results_do_not_depend_on_batch_composition(sampler):
    alone = {r: texts(sampler, [r])[0] for r in REQUESTS[:2]}
    others = [Request(f"people of every faith live in this town {i}", seed=i) for i in range(14)]
    mixed = [*others[:7], REQUESTS[1], *others[7:], REQUESTS[0]]
    together = dict(zip(mixed, texts(sampler, mixed), strict=True))
    assert {r: together[r] for r in alone} == alone


def test_prompts_are_cut_to_their_last_tokens_on_the_completion_path(greedy):
    tail = "worked as a nurse"  # 4 tokens of the tiny word-level vocabulary
    long, short = f"the cook said that the woman {tail}", tail
    assert texts(greedy, [Request(long)]) == texts(greedy, [Request(short)])
    uncut = replace(greedy.spec.decoding, max_prompt_tokens=100)
    greedy.spec = replace(greedy.spec, decoding=uncut)
    try:
        assert texts(greedy, [Request(long)]) != texts(greedy, [Request(short)]), "the control: uncut prompts differ"
    finally:
        greedy.spec = replace(greedy.spec, decoding=replace(uncut, max_prompt_tokens=4))


def test_prompts_are_cut_on_the_chat_path_too(greedy_chat):
    """The cap applies to the templated conversation: its last 10 tokens are the same for both."""
    tail = "she is a kind person who likes music"
    long, short = f"the cook said that the bread was good and {tail}", tail
    assert texts(greedy_chat, [Request(long)]) == texts(greedy_chat, [Request(short)])


def test_outputs_and_cache_follow_the_transformers_contract(models, sampler, tmp_path):
    """Text without the prompt, tokens counted before EOS, at most max_new_tokens; cached like any backend."""
    decoding = make_decoding(max_new_tokens=30)
    loads = []

    def factory(model_spec, cache_dir):
        loads.append(model_spec)
        return sampler  # the model's engine, started by load_backend for this module, given this spec below

    generator = CachedGenerator(spec(models["plain"], decoding), str(tmp_path), backend_factory=factory)
    requests = [Request("the woman worked as a", seed=0, sample=k) for k in range(12)]
    with decoding_as(sampler, spec(models["plain"], decoding)):
        generations = generator(requests)
    assert all(0 <= g.n_tokens <= 30 for g in generations)
    assert any(g.n_tokens < 30 for g in generations), "some continuations end on EOS, which is not counted"
    assert not any(g.text.startswith("the woman") for g in generations)
    again = CachedGenerator(spec(models["plain"], decoding), str(tmp_path), backend_factory=factory)
    assert [g.text for g in again(requests)] == [g.text for g in generations]
    assert len(loads) == 1, "a fully cached rerun loads no engine"
