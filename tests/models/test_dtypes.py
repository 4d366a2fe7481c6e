"""``dtype: auto`` resolved for the hardware: the rule, the real measurement, the log and the cache key."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest
import torch

from biasflow.generation import CachedGenerator
from biasflow.models import dtypes
from biasflow.models.base import Generation, Request
from specs import make_decoding, make_spec


@pytest.fixture(autouse=True)
def fresh_resolution():
    """Each test resolves afresh (the process caches the CPU's and the GPU's answer)."""
    dtypes._cpu_dtype.cache_clear()
    dtypes._gpu_dtype.cache_clear()
    yield
    dtypes._cpu_dtype.cache_clear()
    dtypes._gpu_dtype.cache_clear()


def fake_cpu(monkeypatch, flags, gflops=(10.0, 80.0), **environment):
    """A CPU with these flags (None: unreadable), kernel caps in the environment, and measured
    (bfloat16, float32) GFLOP/s; returns the list of measurements made."""
    measured = []
    monkeypatch.setattr(dtypes, "cpu_flags", lambda: None if flags is None else frozenset(flags))
    for name in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)

    def measure(torch):
        measured.append(True)
        return gflops

    monkeypatch.setattr(dtypes, "measure_gflops", measure)
    return measured


def test_an_explicit_dtype_always_wins(monkeypatch):
    fake_cpu(monkeypatch, {"avx2"})
    for name in ("float32", "bfloat16", "float16"):
        assert dtypes.resolve_dtype(name, "cpu") == (name, "set in the config")
        assert dtypes.resolve_dtype(name, "cuda") == (name, "set in the config")


@pytest.mark.parametrize("flag", ["avx512_bf16", "amx_bf16"])
@pytest.mark.parametrize(
    "environment",
    [
        {},
        {"ATEN_CPU_CAPABILITY": "avx512"},
        {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE_BF16"},
        {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE_AMX"},
        {"ONEDNN_MAX_CPU_ISA": "ALL"},
    ],
)
def test_native_bfloat16_is_taken_without_measuring(monkeypatch, flag, environment):
    measured = fake_cpu(monkeypatch, {"avx2", "avx512f", flag}, **environment)
    dtype, why = dtypes.resolve_dtype("auto", "cpu")
    assert dtype == "bfloat16" and flag in why and not measured


def test_no_native_flags_give_float32_without_measuring(monkeypatch):
    measured = fake_cpu(monkeypatch, {"avx2", "fma", "avx512f", "avx512bw"}, gflops=(500.0, 10.0))
    dtype, why = dtypes.resolve_dtype("auto", "cpu")
    assert dtype == "float32" and "no native bfloat16" in why and not measured


@pytest.mark.parametrize(
    ("environment", "named"),
    [
        ({"ATEN_CPU_CAPABILITY": "avx2"}, "ATEN_CPU_CAPABILITY=avx2"),
        ({"ATEN_CPU_CAPABILITY": "default"}, "ATEN_CPU_CAPABILITY=default"),
        ({"ONEDNN_MAX_CPU_ISA": "AVX2"}, "ONEDNN_MAX_CPU_ISA=AVX2"),
        ({"ONEDNN_MAX_CPU_ISA": "avx512_core_vnni"}, "ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI"),
    ],
)
def test_kernels_capped_below_the_flags_give_float32(monkeypatch, environment, named):
    """ATEN_CPU_CAPABILITY / ONEDNN_MAX_CPU_ISA can keep PyTorch from the CPU's bfloat16 instructions."""
    fake_cpu(monkeypatch, {"avx512f", "avx512_bf16"}, **environment)
    dtype, why = dtypes.resolve_dtype("auto", "cpu")
    assert dtype == "float32" and named in why


@pytest.mark.parametrize(("gflops", "expected"), [((150.0, 80.0), "bfloat16"), ((100.0, 80.0), "float32")])
def test_unreadable_flags_go_by_a_clear_measured_margin(monkeypatch, gflops, expected):
    """Where the flags cannot be read (an ARM CPU, macOS), bfloat16 needs to be clearly faster:
    a margin of 1.5, so timing noise cannot flip the choice and with it the cache key."""
    measured = fake_cpu(monkeypatch, None, gflops=gflops)
    dtype, why = dtypes.resolve_dtype("auto", "cpu")
    assert dtype == expected and "cannot be read" in why and measured
    assert f"{gflops[0]:.1f} GFLOP/s in bfloat16 against {gflops[1]:.1f} in float32" in why


def test_a_machine_without_an_nvidia_driver_is_a_cpu_without_importing_torch(monkeypatch):
    monkeypatch.setattr(dtypes.os.path, "exists", lambda path: False)
    monkeypatch.setitem(sys.modules, "torch", None)  # importing it would fail
    assert dtypes.default_device() == "cpu"


@pytest.mark.parametrize(("supported", "expected"), [(True, "bfloat16"), (False, "float16")])
def test_gpu_takes_bfloat16_where_supported(monkeypatch, supported, expected):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: supported)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a, **k: "Some GPU")
    dtype, why = dtypes.resolve_dtype("auto", "cuda")
    assert dtype == expected and why.startswith("Some GPU")


def test_the_measurement_really_times_both_dtypes():
    bf16, fp32 = dtypes.measure_gflops(torch, rounds=2, seconds=0.005)
    assert bf16 > 0 and fp32 > 0
    assert torch.get_num_threads() >= 1


def test_auto_picks_float32_where_bfloat16_is_emulated():
    """The real rule and the real kernels, in a process whose kernels are capped at AVX2: bfloat16
    really runs emulated there (a decoding-shaped product slower than in float32), and auto picks float32."""
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
    code = (
        "import torch; from biasflow.models.dtypes import resolve_dtype, measure_gflops; "
        "print(resolve_dtype('auto', 'cpu')[0], *measure_gflops(torch))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    dtype, bf16, fp32 = out.split()
    assert float(bf16) < float(fp32), "capped at AVX2, bfloat16 must be emulated (slower than float32)"
    assert dtype == "float32"


def test_this_machine_gets_bfloat16_exactly_when_its_cpu_computes_it_natively(monkeypatch):
    """On this machine, uncapped: bfloat16 exactly where the flags name it (how much faster it then
    runs is a measurement: benchmarks/cpu_dtype.py, in benchmarks/README.md)."""
    for name in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA"):
        monkeypatch.delenv(name, raising=False)
    flags = dtypes.cpu_flags()
    dtype, _ = dtypes.resolve_dtype("auto", "cpu")
    if flags is None:
        return  # resolved by measurement: the margin test above covers the rule
    native = bool(flags & set(dtypes.NATIVE_BF16_FLAGS))
    assert dtype == ("bfloat16" if native else "float32")


class Echo:
    def __init__(self):
        self.computed = 0

    def generate(self, requests, progress=None):
        self.computed += len(requests)
        return [Generation(f"{r.prompt}!", 1) for r in requests]


def generator(tmp_path, dtype, echo):
    spec = make_spec("m", "transformers", "some/model", make_decoding(), dtype=dtype)
    return CachedGenerator(spec, str(tmp_path), backend_factory=lambda spec, cache_dir: echo)


@pytest.mark.parametrize(("resolved", "other"), [("float32", "bfloat16"), ("bfloat16", "float32")])
def test_the_cache_key_holds_the_resolved_dtype(monkeypatch, tmp_path, caplog, resolved, other):
    """auto's continuations are those of the dtype it resolves to: served to a job that sets that
    dtype, never to one that sets the other; the log names the choice and why. (Transformers' own
    rule, where CTranslate2 is not installed: tests/models/test_ctranslate2_backend.py has the other.)"""
    monkeypatch.setattr(dtypes, "_cpu_dtype", lambda: (resolved, "because of this CPU"))
    monkeypatch.setattr(dtypes, "default_device", lambda: "cpu")
    monkeypatch.setattr(dtypes, "find_spec", lambda name: None)
    first = Echo()
    with caplog.at_level(logging.INFO, logger="biasflow"):
        auto = generator(tmp_path, "auto", first)
    assert auto.spec.dtype == resolved and auto.identity["dtype"] == resolved
    assert f"model m: dtype auto is {resolved} (because of this CPU)" in caplog.text
    auto([make_request()])
    same, different = Echo(), Echo()
    generator(tmp_path, resolved, same)([make_request()])
    generator(tmp_path, other, different)([make_request()])
    assert (first.computed, same.computed, different.computed) == (1, 0, 1)


def make_request() -> Request:
    return Request("the nurse said", 0, 0)
