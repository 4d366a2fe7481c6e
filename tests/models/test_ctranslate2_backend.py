"""The CTranslate2 backend against the transformers backend on tiny models, and where `dtype: auto` picks it.

docs/methods.md §5.1 ("CPU engine"): the same prompts, cut and counted as transformers does;
float32 greedy tokens equal transformers' float32 ones; int8 continuations the float32
model finds likely; sampling seeded per batch, reproducible from scratch; a cache keyed by
engine; the weights converted once, atomically; one message for a dtype the backend does
not compute in.
"""

from __future__ import annotations

import logging
import math
import os
from pathlib import Path

import pytest
import torch

from biasflow.errors import BiasflowError
from biasflow.generation import CachedGenerator
from biasflow.models import ctranslate2_backend, dtypes, load_for_training
from biasflow.models.base import Generation, Request
from biasflow.models.ctranslate2_backend import CTranslate2Backend, batches, threads, top_k
from biasflow.models.transformers_backend import TransformersBackend, _torch_dtype
from specs import make_decoding, make_spec
from tiny_models import PROMPTS, requests_grid, write_tiny_gguf

pytest.importorskip("ctranslate2")

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    """One cache for the module's backends, so each tiny model is converted once per compute type."""
    return str(tmp_path_factory.mktemp("ct2-cache"))


def ct2(model, cache, dtype="int8", batch_size=4, chat=False, **decoding) -> CTranslate2Backend:
    decoding.setdefault("max_new_tokens", 6)
    spec = make_spec(
        "tiny", "ctranslate2", str(model), make_decoding(**decoding), batch_size=batch_size, chat=chat, dtype=dtype
    )
    return CTranslate2Backend(spec, cache)


def transformers(model, cache, batch_size=4, chat=False, **decoding) -> TransformersBackend:
    decoding.setdefault("max_new_tokens", 6)
    spec = make_spec(
        "tiny", "transformers", str(model), make_decoding(**decoding), batch_size=batch_size, chat=chat, dtype="float32"
    )
    return TransformersBackend(spec, cache, device="cpu")


# --- (a) against the transformers backend ------------------------------------------------------------------


@pytest.mark.parametrize("chat", [False, True])
def test_float32_greedy_gives_the_transformers_float32_continuations(tiny_models, cache, chat):
    """The same prompt ids (cut to max_prompt_tokens from the left, the chat template), the same stop and
    count rule: in float32 a tiny model's greedy continuations are those of transformers, text and count."""
    model = tiny_models["tiny-chat" if chat else "tiny-a"]
    requests = [Request(p) for p in PROMPTS]
    settings = {"do_sample": False, "max_prompt_tokens": 4, "chat": chat}
    expected = transformers(model, cache, **settings).generate(requests)
    assert ct2(model, cache, dtype="float32", **settings).generate(requests) == expected


def test_a_byte_level_gguf_model_gives_the_transformers_continuations(tmp_path, cache):
    """The default SmolLM2's layout (byte-level BPE, fewer key-value heads than heads), dequantised once
    and converted: the tokens CTranslate2 is handed are the tokenizer's own, so its ids are transformers'."""
    write_tiny_gguf(tmp_path / "tiny.gguf")
    requests = [Request(p) for p in ("The nurse said that", "The", "said that the nurse")]
    model = tmp_path / "tiny.gguf"
    expected = transformers(model, cache, do_sample=False).generate(requests)
    assert ct2(model, cache, dtype="float32", do_sample=False).generate(requests) == expected
    assert any(g.n_tokens for g in expected)


def test_a_one_token_prompt_never_shares_a_batch_with_longer_ones(tiny_model_dir, cache):
    """CTranslate2 would hand back a longer prompt's tail as its continuation beside a one-token prompt
    (:func:`biasflow.models.ctranslate2_backend.batches`): each continuation is the one it gets alone."""
    assert batches([1, 3, 1, 2, 5], 4) == [[0, 2], [3, 1, 4]]
    assert batches([2, 2, 3], 2) == [[0, 1], [2]]
    requests = [Request("she"), Request("the woman worked as a"), Request("he")]
    backend = ct2(tiny_model_dir, cache, dtype="float32", do_sample=False)
    assert backend.generate(requests) == [backend.generate([r])[0] for r in requests]


def test_int8_continuations_are_the_models(tiny_model_dir, cache):
    """int8 computes from rounded weights: its greedy tokens are mostly float32's and likelier under the float32
    model than a uniform draw; every continuation, sampled too, has a finite float32 log-likelihood."""
    requests = [Request(p) for p in PROMPTS]
    fp32 = transformers(tiny_model_dir, cache, do_sample=False, max_new_tokens=8).generate(requests)
    greedy = ct2(tiny_model_dir, cache, do_sample=False, max_new_tokens=8)
    int8 = greedy.generate(requests)
    pairs = [
        (a, b) for x, y in zip(fp32, int8, strict=True) for a, b in zip(x.text.split(), y.text.split(), strict=False)
    ]
    assert sum(a == b for a, b in pairs) >= 0.5 * len(pairs), "int8 greedy tokens are mostly float32's"
    sampled = ct2(tiny_model_dir, cache, max_new_tokens=8).generate(requests_grid())
    assert all(0 <= g.n_tokens <= 8 for g in [*int8, *sampled])
    tokenizer, model = greedy.tokenizer, TransformersBackend.load_pretrained(greedy.spec, cache, dtype="float32")[1]
    means = {}
    for name, prompts, generations in (
        ("greedy", PROMPTS, int8),
        ("sampled", [r.prompt for r in requests_grid()], sampled),
    ):
        per_token = [log_likelihood(tokenizer, model, p, g) for p, g in zip(prompts, generations, strict=True)]
        per_token = [x for x in per_token if x is not None]
        assert per_token and all(math.isfinite(x) for x in per_token), name
        means[name] = sum(per_token) / len(per_token)
    # A random tiny model is nearly uniform: samples score about -log V; its argmax tokens score above that.
    assert means["greedy"] > -math.log(len(tokenizer)) > means["sampled"] - 1.0


def log_likelihood(tokenizer, model, prompt: str, generation: Generation) -> float | None:
    """Mean float32 log-probability per token of ``generation``'s tokens after ``prompt`` (None when empty)."""
    prompt_ids = tokenizer(prompt)["input_ids"]
    new = tokenizer(generation.text, add_special_tokens=False)["input_ids"]
    if not new:
        return None
    with torch.inference_mode():
        logits = model(torch.tensor([prompt_ids + new])).logits[0, len(prompt_ids) - 1 : -1]
    return float(torch.log_softmax(logits.float(), dim=-1).gather(1, torch.tensor(new)[:, None]).mean())


# --- (b) reproducible, seeded per batch, cached by engine ---------------------------------------------------


def test_sampling_is_reproducible_and_each_batch_is_seeded_by_its_own_requests(tiny_model_dir, cache):
    """The same requests from scratch give the same continuations; a batch's continuations do not depend on
    the batches sampled before it (a fresh stream per batch), and other seeds give other continuations."""
    requests = requests_grid()
    first = ct2(tiny_model_dir, cache).generate(requests)
    assert ct2(tiny_model_dir, cache).generate(requests) == first
    warmed = ct2(tiny_model_dir, cache)
    warmed.generate([Request("the cook", 5, 5)])
    assert warmed.generate(requests) == first
    other = ct2(tiny_model_dir, cache).generate([Request(r.prompt, r.seed + 10, r.sample) for r in requests])
    assert other != first
    assert len({g.text for g in first}) > len(PROMPTS)


@pytest.mark.parametrize(
    ("top_p", "k", "expected"),
    [(1.0, 0, 0), (0.9, 0, ctranslate2_backend.NUCLEUS_WINDOW), (0.9, 7, 7), (1.0, 7, 7)],
)
def test_top_p_without_a_top_k_looks_among_the_window_and_a_top_k_is_passed_as_set(top_p, k, expected):
    assert top_k(make_decoding(top_p=top_p, top_k=k)) == expected


def test_the_nucleus_window_reaches_ctranslate2(tiny_model_dir, cache, monkeypatch):
    """With a window of one token, top-p sampling can only take each step's most likely token: greedy's."""
    requests = requests_grid()
    greedy = ct2(tiny_model_dir, cache, do_sample=False).generate(requests)
    monkeypatch.setattr(ctranslate2_backend, "NUCLEUS_WINDOW", 1)
    windowed = ct2(tiny_model_dir, cache, temperature=2.0, top_p=0.99).generate(requests)
    assert windowed == greedy
    monkeypatch.undo()
    assert ct2(tiny_model_dir, cache, temperature=2.0, top_p=0.99).generate(requests) != greedy


def test_the_cache_key_holds_the_engine(monkeypatch, tmp_path, caplog):
    """auto's continuations on a CPU are CTranslate2's in int8, keyed by its backend, dtype and sampler: never
    served to an entry that sets float32 (transformers), and the resolved class saves and loads them."""
    monkeypatch.setattr(dtypes, "default_device", lambda: "cpu")
    monkeypatch.setattr(dtypes, "find_spec", lambda name: object())
    loaded = []

    def factory(spec, cache_dir):
        loaded.append(spec)
        return Echo()

    with caplog.at_level(logging.INFO, logger="biasflow"):
        auto = CachedGenerator(make_spec("m", model="some/model"), str(tmp_path), backend_factory=factory)
    assert "model m: dtype auto on this CPU is int8 with CTranslate2" in caplog.text
    assert "set dtype: float32 to compute with transformers" in caplog.text
    assert {key: auto.identity[key] for key in ("backend", "dtype", "sampler")} == {
        "backend": "ctranslate2",
        "dtype": "int8",
        "sampler": CTranslate2Backend.sampler,
    }
    assert auto.chunk_size == CTranslate2Backend.chunk_size
    float32 = CachedGenerator(
        make_spec("m", model="some/model", dtype="float32"), str(tmp_path), backend_factory=factory
    )
    assert float32.identity["backend"] == "transformers" and float32.identity["sampler"] == TransformersBackend.sampler
    request = Request("the nurse said")
    assert auto.key(request) != float32.key(request)
    auto([request])
    float32([request])
    assert [(s.backend, s.dtype) for s in loaded] == [("ctranslate2", "int8"), ("transformers", "float32")]


class Echo:
    def generate(self, requests, progress=None):
        return [Generation(f"{r.prompt}!", 1) for r in requests]


def test_a_run_from_scratch_through_the_cache_is_reproducible(tiny_model_dir, tmp_path, monkeypatch):
    """The workflow's path: a transformers entry with dtype auto, computed by CTranslate2 on this CPU."""
    monkeypatch.setattr(dtypes, "default_device", lambda: "cpu")
    spec = make_spec("tiny", model=str(tiny_model_dir), decoding=make_decoding(max_new_tokens=5), batch_size=3)
    runs = [CachedGenerator(spec, str(tmp_path / name))(requests_grid()) for name in ("a", "b")]
    assert runs[0] == runs[1]


# --- (c) which engine and dtype `auto` picks --------------------------------------------------------------


@pytest.mark.parametrize(
    ("device", "installed", "expected"),
    [
        ("cpu", True, ("ctranslate2", "int8")),
        ("cpu", False, ("transformers", "float32")),
        ("cuda", True, ("transformers", "bfloat16")),
    ],
)
def test_auto_picks_ctranslate2_in_int8_on_a_cpu_where_it_is_installed(monkeypatch, device, installed, expected):
    """Found without importing it (importlib's find_spec); a GPU keeps transformers in its own dtype."""
    monkeypatch.setattr(dtypes, "default_device", lambda: device)
    monkeypatch.setattr(dtypes, "find_spec", lambda name: object() if installed and name == "ctranslate2" else None)
    monkeypatch.setattr(dtypes, "_cpu_dtype", lambda: ("float32", "no native bfloat16"))
    monkeypatch.setattr(dtypes, "_gpu_dtype", lambda: ("bfloat16", "a GPU"))
    resolved = TransformersBackend.resolved(make_spec("m"))
    assert (resolved.backend, resolved.dtype) == expected


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_an_explicit_dtype_keeps_transformers(monkeypatch, dtype):
    monkeypatch.setattr(dtypes, "default_device", lambda: "cpu")
    resolved = TransformersBackend.resolved(make_spec("m", dtype=dtype))
    assert (resolved.backend, resolved.dtype) == ("transformers", dtype)


def test_ctranslate2_resolves_auto_to_int8_and_keeps_float32(caplog):
    with caplog.at_level(logging.INFO, logger="biasflow"):
        assert CTranslate2Backend.resolved(make_spec("m", "ctranslate2")).dtype == "int8"
    assert "model m: dtype auto is int8" in caplog.text
    assert CTranslate2Backend.resolved(make_spec("m", "ctranslate2", dtype="float32")).dtype == "float32"


def test_tuning_keeps_transformers_in_float32(tiny_model_dir, tmp_path, monkeypatch):
    """Tuning loads the config's own entry, never the CPU engine's: float32 torch weights."""
    monkeypatch.setattr(dtypes, "default_device", lambda: "cpu")
    _, model = load_for_training(make_spec("tiny", model=str(tiny_model_dir)), str(tmp_path))
    assert next(model.parameters()).dtype == torch.float32
    with pytest.raises(BiasflowError, match="not 'int8'"):
        _torch_dtype(torch, "int8")


@pytest.mark.parametrize(("value", "expected"), [("3", 3), ("", None), ("zero", None)])
def test_threads_follow_omp_num_threads_as_torch_does(monkeypatch, value, expected):
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert threads() == (expected or len(os.sched_getaffinity(0)))


# --- (d) the conversion: once, atomically -------------------------------------------------------------------


def test_the_conversion_is_cached_and_written_atomically(tiny_model_dir, tmp_path, caplog, monkeypatch):
    """A failed conversion leaves nothing a later load would trust; a finished one is reused unchanged."""
    import ctranslate2

    original = ctranslate2.converters.TransformersConverter.convert

    def broken(self, output_dir, **kwargs):
        Path(output_dir, "model.bin").write_bytes(b"half")
        raise ValueError("killed half-way")

    monkeypatch.setattr(ctranslate2.converters.TransformersConverter, "convert", broken)
    with pytest.raises(BiasflowError, match="killed half-way"):
        ct2(tiny_model_dir, str(tmp_path))
    assert not list((tmp_path / "weights").glob("*/ctranslate2-*")), "no folder of a failed conversion"
    assert not list((tmp_path / "weights").glob("*/.convert-*")), "no temporary folder left"
    monkeypatch.setattr(ctranslate2.converters.TransformersConverter, "convert", original)

    with caplog.at_level(logging.INFO, logger="biasflow"):
        first = ct2(tiny_model_dir, str(tmp_path))
    assert "converting" in caplog.text and "converted for CTranslate2 in" in caplog.text
    assert first.folder.name == "ctranslate2-int8" and first.folder.parent.parent == tmp_path / "weights"
    written = (first.folder / "model.bin").stat().st_mtime_ns
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="biasflow"):
        second = ct2(tiny_model_dir, str(tmp_path))
    assert second.folder == first.folder and "converting" not in caplog.text
    assert (second.folder / "model.bin").stat().st_mtime_ns == written
    assert "with CTranslate2" in caplog.text and "computing in int8 on the CPU" in caplog.text
    assert ct2(tiny_model_dir, str(tmp_path), dtype="float32").folder != first.folder, "keyed by quantization"


# --- (e) a dtype the backend does not compute in ----------------------------------------------------------


@pytest.mark.parametrize(
    ("backend", "dtype", "fix"),
    [
        ("transformers", "int8", "set backend: ctranslate2 to compute in int8"),
        ("ctranslate2", "bfloat16", "set backend: transformers"),
    ],
)
def test_a_dtype_the_backend_does_not_compute_in_is_refused_at_the_config_check(backend, dtype, fix):
    """One message at the config check (the model spec is built there), naming the fix."""
    from biasflow.config import check_config, resolve_bundled, validate_config
    from workflow_helpers import embedded_config

    config = embedded_config()
    next(iter(config["models"].values())).update(backend=backend, dtype=dtype)
    validate_config(config)
    resolve_bundled(config)
    with pytest.raises(BiasflowError, match=f"backend {backend} does not compute in {dtype}") as raised:
        check_config(config, environment=False)
    assert fix in str(raised.value) and "dtype: auto" in str(raised.value)
