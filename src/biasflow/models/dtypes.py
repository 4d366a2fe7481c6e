"""``dtype: auto``: the numbers a model is computed in, chosen for the hardware the job runs on.

bfloat16 halves the bytes each decoding step reads, but only hardware that computes it
natively gains from that: a CPU without AVX512-BF16 or AMX emulates it, and a bfloat16
matrix product there runs many times slower than float32 (docs/methods.md §5.1;
benchmarks/README.md, "dtype"). So ``auto`` resolves, per job and device:

* on a CUDA GPU, bfloat16 where the GPU supports it, else float16;
* on a CPU, bfloat16 where the CPU has native bfloat16 arithmetic (its flags name
  AVX512-BF16 or AMX and PyTorch's kernels may use them: ``ATEN_CPU_CAPABILITY`` and
  ``ONEDNN_MAX_CPU_ISA`` can cap them below), or where a short measurement of a matrix
  product shows bfloat16 clearly faster than float32 (CPUs whose flags do not say, such as
  ARM ones); float32 otherwise.

An explicit ``float32``, ``bfloat16`` or ``float16`` always wins. The resolved dtype, never
``auto``, is what the cache key holds, so continuations made in bfloat16 are never served
to a job that computes in float32.
"""

from __future__ import annotations

import functools
import logging
import time

log = logging.getLogger("biasflow")

DTYPES = ("auto", "float32", "bfloat16", "float16")

# bfloat16 is taken on a measurement only when it beats float32 by this factor, so that
# timing noise cannot flip the choice (and with it the cache key) between runs.
MEASURED_MARGIN = 1.5

# CPU flags (/proc/cpuinfo) of native bfloat16 arithmetic.
NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")


def default_device() -> str:
    """The first GPU when there is one, else the CPU."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def resolve_dtype(requested: str, device: str) -> tuple[str, str]:
    """``(dtype, why)``: the dtype a model is computed in on ``device`` ("cpu" or "cuda...")."""
    if requested != "auto":
        return requested, "set in the config"
    if device.startswith("cuda"):
        return _gpu_dtype()
    return _cpu_dtype()


@functools.lru_cache(maxsize=None)
def _gpu_dtype() -> tuple[str, str]:
    import torch

    if torch.cuda.is_bf16_supported():
        return "bfloat16", f"{torch.cuda.get_device_name()} computes bfloat16 natively"
    return "float16", f"{torch.cuda.get_device_name()} has no bfloat16; float16 is native"


@functools.lru_cache(maxsize=None)
def _cpu_dtype() -> tuple[str, str]:
    import torch

    flags = cpu_flags()
    capability = torch.backends.cpu.get_cpu_capability()
    native = sorted(set(flags or ()) & set(NATIVE_BF16_FLAGS))
    if native and capability.startswith("AVX512") and _onednn_bf16(torch):
        return "bfloat16", f"this CPU computes bfloat16 natively ({', '.join(native)})"
    bf16, fp32 = measure_gflops(torch)
    measured = f"a matrix product measured {bf16:.1f} GFLOP/s in bfloat16 against {fp32:.1f} in float32"
    if native:
        why = f"this CPU has {', '.join(native)} but PyTorch's kernels are capped at {capability}"
    elif flags is not None:
        why = "this CPU has no native bfloat16 arithmetic (no AVX512-BF16 or AMX)"
    else:
        why = "this CPU's flags cannot be read"
    if bf16 >= MEASURED_MARGIN * fp32:
        return "bfloat16", f"{why}, but {measured}"
    return "float32", f"{why}: bfloat16 would be emulated ({measured})"


def cpu_flags() -> frozenset[str] | None:
    """The CPU's feature flags from /proc/cpuinfo (Linux), or None where they cannot be read."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        return None
    return None


def _onednn_bf16(torch) -> bool:
    """oneDNN's own check, which ``ONEDNN_MAX_CPU_ISA`` lowers; True where torch cannot say."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return True


def measure_gflops(torch, rounds: int = 5, seconds: float = 0.01) -> tuple[float, float]:
    """GFLOP/s of a decoding-shaped product (32 × 576 by 576 × 1536) in bfloat16 and float32.

    The shape is a small model's MLP at a batch of 32 (the embedded default's). Each dtype is
    warmed up, then timed on one thread in ``rounds`` short rounds taken in turn with the other dtype's, and
    its best round counts, so work beside the job slows both alike; about 0.1 s in all
    where bfloat16 is native, up to about 0.5 s where it is emulated.
    """
    batch, width, hidden = 32, 576, 1536
    flop = 2 * batch * width * hidden
    operands = {}
    for dtype in (torch.bfloat16, torch.float32):
        operands[dtype] = (torch.randn(batch, width).to(dtype), torch.randn(hidden, width).to(dtype))
    best = dict.fromkeys(operands, 0.0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: a ratio of kernels, not of how busy the other cores are
    try:
        _time_rounds(torch, operands, best, flop, rounds, seconds)
    finally:
        torch.set_num_threads(threads)
    return best[torch.bfloat16], best[torch.float32]


def _time_rounds(torch, operands: dict, best: dict, flop: int, rounds: int, seconds: float) -> None:
    with torch.no_grad():
        for dtype, (x, w) in operands.items():
            for _ in range(3):
                torch.nn.functional.linear(x, w)
        for _ in range(rounds):
            for dtype, (x, w) in operands.items():
                started, calls = time.perf_counter(), 0
                while time.perf_counter() - started < seconds:
                    torch.nn.functional.linear(x, w)
                    calls += 1
                best[dtype] = max(best[dtype], flop * calls / (time.perf_counter() - started) / 1e9)
