"""The vLLM backend's pure parts, and what the real engine cannot show: the argument shapes of
older vLLM releases and a missing vLLM. The real engine is tested by tests/models/test_vllm_real.py
(`make test-vllm`, on vLLM's CPU build)."""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass

import pytest

from biasflow.errors import BiasflowError
from biasflow.models.base import ModelSpec, Request
from biasflow.models.vllm_backend import (
    VLLMBackend,
    build_params,
    engine_kwargs,
    sampling_kwargs,
    takes_truncation,
)
from specs import make_decoding, make_spec

VLLM_SKIP_REASON = "vLLM needs a GPU machine: pip install -e '.[vllm]'"


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
    decoding = make_decoding()
    seed = sampling_kwargs(decoding, Request("The doctor", seed=0, sample=0))["seed"]

    assert seed == Request("The doctor", seed=0, sample=0).rng_seed()
    assert seed == sampling_kwargs(decoding, Request("The doctor", seed=0, sample=0))["seed"]
    others = {
        sampling_kwargs(decoding, request)["seed"]
        for request in (Request("The doctor", 0, 1), Request("The doctor", 1, 0), Request("The nurse", 0, 0))
    }
    assert seed not in others and len(others) == 3


def test_sampling_settings_and_top_k_mapping():
    kwargs = sampling_kwargs(make_decoding(temperature=0.7, top_p=0.9, top_k=0, max_new_tokens=25), Request("x"))

    assert kwargs["temperature"] == 0.7
    assert kwargs["top_p"] == 0.9
    assert kwargs["top_k"] == -1
    assert kwargs["max_tokens"] == 25
    assert sampling_kwargs(make_decoding(top_k=40), Request("x"))["top_k"] == 40


def test_greedy_mapping():
    kwargs = sampling_kwargs(make_decoding(do_sample=False, temperature=0.7, top_p=0.9, top_k=40), Request("x"))

    assert kwargs["temperature"] == 0.0
    assert kwargs["top_p"] == 1.0
    assert kwargs["top_k"] == -1


def test_truncation_field_is_the_prompt_cap():
    assert sampling_kwargs(make_decoding(max_prompt_tokens=100), Request("x"))["truncate_prompt_tokens"] == 100


def test_takes_truncation_reads_fields():
    struct_like = type("StructLike", (), {"__struct_fields__": ("seed", "truncate_prompt_tokens")})

    assert takes_truncation(OldSamplingParams)
    assert not takes_truncation(NewSamplingParams)
    assert takes_truncation(struct_like)


def test_build_params_puts_the_cap_where_vllm_reads_it():
    decoding = make_decoding(max_prompt_tokens=50)
    requests = [Request("a"), Request("b")]

    old_params, old_call = build_params(OldSamplingParams, decoding, requests)
    new_params, new_call = build_params(NewSamplingParams, decoding, requests)

    assert [p.truncate_prompt_tokens for p in old_params] == [50, 50]
    assert old_call == {}
    assert new_call == {"tokenization_kwargs": {"truncate_prompt_tokens": 50}}
    assert [p.seed for p in new_params] == [r.rng_seed() for r in requests]


def vllm_spec(**overrides) -> ModelSpec:
    fields = {"name": "tiny", "backend": "vllm", "model": "org/tiny", "decoding": make_decoding(max_new_tokens=5)}
    return make_spec(**{**fields, **overrides})


def test_engine_kwargs_defaults():
    assert engine_kwargs(vllm_spec()) == {"model": "org/tiny", "trust_remote_code": False, "dtype": "auto", "seed": 0}


def test_engine_kwargs_gguf_with_tokenizer_and_engine_options():
    spec = vllm_spec(
        model="/models/smol.Q4_1.gguf",
        dtype="float16",
        options={
            "tokenizer": "HuggingFaceTB/SmolLM2-135M-Instruct",
            "gpu_memory_utilization": 0.5,
            "max_model_len": 512,
            "tensor_parallel_size": 2,
            "enforce_eager": True,
            "engine": {"swap_space": 2},
        },
    )

    assert engine_kwargs(spec) == {
        "model": "/models/smol.Q4_1.gguf",
        "trust_remote_code": False,
        "dtype": "float16",
        "seed": 0,
        "tokenizer": "HuggingFaceTB/SmolLM2-135M-Instruct",
        "gpu_memory_utilization": 0.5,
        "max_model_len": 512,
        "tensor_parallel_size": 2,
        "enforce_eager": True,
        "swap_space": 2,
    }


@pytest.mark.parametrize("key", ["trust_remote_code", "gpu_memory_utilization", "tokenizer"])
def test_engine_options_cannot_override_the_entry(key):
    with pytest.raises(BiasflowError, match=key):
        engine_kwargs(vllm_spec(options={"engine": {key: 1}}))


def test_unknown_model_options_are_named_with_the_closest_one():
    from biasflow.models import model_spec

    with pytest.raises(BiasflowError, match=r"unknown option 'max_model_length' \(did you mean max_model_len\?\)"):
        model_spec("big", {"backend": "vllm", "model": "org/big", "options": {"max_model_length": 4096}})
    with pytest.raises(
        BiasflowError, match="unknown option 'base_url' for backend transformers; its options are: none"
    ):
        model_spec("local", {"model": "org/small", "options": {"base_url": "http://x"}})


def test_missing_vllm_is_a_biasflow_error_with_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)

    with pytest.raises(BiasflowError, match=r"pip install -e '\.\[vllm\]'"):
        VLLMBackend(vllm_spec(), cache_dir=".cache/biasflow")


def test_real_vllm_accepts_our_arguments():
    vllm = pytest.importorskip("vllm", reason=VLLM_SKIP_REASON)
    params, call_kwargs = build_params(vllm.SamplingParams, make_decoding(), [Request("x")])

    assert params[0].seed == Request("x").rng_seed()
    assert params[0].max_tokens == make_decoding().max_new_tokens
    for method in (vllm.LLM.generate, vllm.LLM.chat):
        accepted = inspect.signature(method).parameters
        assert {"sampling_params", "use_tqdm", *call_kwargs} <= set(accepted)
