"""The vLLM backend: its pure parts everywhere, the backend against a stand-in module,
and the real vLLM API only where vLLM is installed (GPU machines)."""

from __future__ import annotations

import inspect
import sys
import types
from dataclasses import dataclass

import pytest

from biasflow.errors import BiasflowError
from biasflow.models import vllm_backend
from biasflow.models.base import Decoding, ModelSpec, Request
from biasflow.models.vllm_backend import (
    VLLMBackend,
    build_params,
    engine_kwargs,
    sampling_kwargs,
    takes_truncation,
)

VLLM_SKIP_REASON = "vLLM needs a GPU machine: pip install 'biasflow[vllm]'"


@dataclass
class OldSamplingParams:
    """Shape of ``SamplingParams`` in releases that take the prompt cap per request."""

    seed: int | None = None
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    max_tokens: int = 16
    truncate_prompt_tokens: int | None = None


@dataclass
class NewSamplingParams:
    """Shape of ``SamplingParams`` in releases that moved the cap to ``tokenization_kwargs``."""

    seed: int | None = None
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    max_tokens: int = 16


def test_seed_is_per_request_and_stable():
    decoding = Decoding()
    seed = sampling_kwargs(decoding, Request("The doctor", seed=0, sample=0))["seed"]

    assert seed == Request("The doctor", seed=0, sample=0).rng_seed()
    assert seed == sampling_kwargs(decoding, Request("The doctor", seed=0, sample=0))["seed"]
    others = {
        sampling_kwargs(decoding, request)["seed"]
        for request in (Request("The doctor", 0, 1), Request("The doctor", 1, 0), Request("The nurse", 0, 0))
    }
    assert seed not in others and len(others) == 3


def test_sampling_settings_and_top_k_mapping():
    kwargs = sampling_kwargs(Decoding(temperature=0.7, top_p=0.9, top_k=0, max_new_tokens=25), Request("x"))

    assert kwargs["temperature"] == 0.7
    assert kwargs["top_p"] == 0.9
    assert kwargs["top_k"] == -1
    assert kwargs["max_tokens"] == 25
    assert sampling_kwargs(Decoding(top_k=40), Request("x"))["top_k"] == 40


def test_greedy_mapping():
    kwargs = sampling_kwargs(Decoding(do_sample=False, temperature=0.7, top_p=0.9, top_k=40), Request("x"))

    assert kwargs["temperature"] == 0.0
    assert kwargs["top_p"] == 1.0
    assert kwargs["top_k"] == -1


def test_truncation_field_is_the_prompt_cap():
    assert sampling_kwargs(Decoding(max_prompt_tokens=100), Request("x"))["truncate_prompt_tokens"] == 100


def test_takes_truncation_reads_fields():
    struct_like = type("StructLike", (), {"__struct_fields__": ("seed", "truncate_prompt_tokens")})

    assert takes_truncation(OldSamplingParams)
    assert not takes_truncation(NewSamplingParams)
    assert takes_truncation(struct_like)


def test_build_params_puts_the_cap_where_vllm_reads_it():
    decoding = Decoding(max_prompt_tokens=50)
    requests = [Request("a"), Request("b")]

    old_params, old_call = build_params(OldSamplingParams, decoding, requests)
    new_params, new_call = build_params(NewSamplingParams, decoding, requests)

    assert [p.truncate_prompt_tokens for p in old_params] == [50, 50]
    assert old_call == {}
    assert new_call == {"tokenization_kwargs": {"truncate_prompt_tokens": 50}}
    assert [p.seed for p in new_params] == [r.rng_seed() for r in requests]


def make_spec(**overrides) -> ModelSpec:
    fields = {"name": "tiny", "backend": "vllm", "model": "org/tiny", "decoding": Decoding(max_new_tokens=5)}
    return ModelSpec(**{**fields, **overrides})


def test_engine_kwargs_defaults():
    assert engine_kwargs(make_spec()) == {"model": "org/tiny", "trust_remote_code": False, "dtype": "auto", "seed": 0}


def test_engine_kwargs_gguf_with_tokenizer_and_engine_options():
    spec = make_spec(
        model="/models/smol.Q4_1.gguf",
        dtype="float16",
        options={"tokenizer": "HuggingFaceTB/SmolLM2-135M-Instruct", "engine": {"gpu_memory_utilization": 0.5}},
    )

    assert engine_kwargs(spec) == {
        "model": "/models/smol.Q4_1.gguf",
        "trust_remote_code": False,
        "dtype": "float16",
        "seed": 0,
        "tokenizer": "HuggingFaceTB/SmolLM2-135M-Instruct",
        "gpu_memory_utilization": 0.5,
    }


def test_engine_options_cannot_override_the_entry():
    with pytest.raises(BiasflowError, match="trust_remote_code"):
        engine_kwargs(make_spec(options={"engine": {"trust_remote_code": True}}))


class FakeLLM:
    """Stands in for ``vllm.LLM``: answers in input order and records its calls."""

    instances: list[FakeLLM] = []

    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.calls: list[tuple[str, list, dict]] = []
        FakeLLM.instances.append(self)

    def _answer(self, texts, sampling_params):
        return [
            types.SimpleNamespace(outputs=[types.SimpleNamespace(text=f"{text}|{p.seed}", token_ids=[1] * (i + 1))])
            for i, (text, p) in enumerate(zip(texts, sampling_params, strict=True))
        ]

    def generate(self, prompts, sampling_params=None, *, use_tqdm=True, tokenization_kwargs=None):
        call = {"use_tqdm": use_tqdm, "tokenization_kwargs": tokenization_kwargs}
        self.calls.append(("generate", list(prompts), call))
        return self._answer(prompts, sampling_params)

    def chat(self, messages, sampling_params=None, use_tqdm=True, tokenization_kwargs=None):
        call = {"use_tqdm": use_tqdm, "tokenization_kwargs": tokenization_kwargs}
        self.calls.append(("chat", list(messages), call))
        return self._answer([m[0]["content"] for m in messages], sampling_params)


@pytest.fixture
def fake_vllm(monkeypatch):
    module = types.ModuleType("vllm")
    module.LLM = FakeLLM
    module.SamplingParams = NewSamplingParams
    FakeLLM.instances = []
    monkeypatch.setitem(sys.modules, "vllm", module)
    return module


def test_backend_generates_in_order_with_progress(fake_vllm, monkeypatch):
    monkeypatch.setattr(vllm_backend, "CHUNK_SIZE", 2)
    backend = VLLMBackend(make_spec())
    requests = [Request(f"p{i}", seed=1, sample=i) for i in range(5)]
    finished = []

    generations = backend.generate(requests, progress=finished.append)

    [llm] = FakeLLM.instances
    assert llm.kwargs == engine_kwargs(make_spec())
    assert [g.text for g in generations] == [f"p{i}|{r.rng_seed()}" for i, r in enumerate(requests)]
    assert [g.n_tokens for g in generations] == [1, 2, 1, 2, 1]
    assert finished == [2, 2, 1]
    assert all(kind == "generate" and kw["use_tqdm"] is False for kind, _, kw in llm.calls)
    assert all(kw["tokenization_kwargs"] == {"truncate_prompt_tokens": 100} for _, _, kw in llm.calls)
    assert len({id(kw["tokenization_kwargs"]) for _, _, kw in llm.calls}) == 3


def test_backend_chat_sends_one_user_message_each(fake_vllm):
    fake_vllm.SamplingParams = OldSamplingParams
    backend = VLLMBackend(make_spec(chat=True))

    generations = backend.generate([Request("Hi"), Request("Bye")], chat=True)

    [(kind, conversations, kwargs)] = FakeLLM.instances[0].calls
    assert kind == "chat"
    assert conversations == [[{"role": "user", "content": "Hi"}], [{"role": "user", "content": "Bye"}]]
    assert kwargs["tokenization_kwargs"] is None
    assert [g.text.split("|")[0] for g in generations] == ["Hi", "Bye"]


def test_missing_vllm_is_a_biasflow_error_with_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)

    with pytest.raises(BiasflowError, match=r"pip install 'biasflow\[vllm\]'"):
        VLLMBackend(make_spec())


def test_real_vllm_accepts_our_arguments():
    vllm = pytest.importorskip("vllm", reason=VLLM_SKIP_REASON)
    params, call_kwargs = build_params(vllm.SamplingParams, Decoding(), [Request("x")])

    assert params[0].seed == Request("x").rng_seed()
    assert params[0].max_tokens == Decoding().max_new_tokens
    for method in (vllm.LLM.generate, vllm.LLM.chat):
        accepted = inspect.signature(method).parameters
        assert {"sampling_params", "use_tqdm", *call_kwargs} <= set(accepted)
