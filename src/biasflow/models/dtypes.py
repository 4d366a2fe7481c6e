"""``dtype: auto``: the numbers a model is computed in, chosen for the hardware the job runs on.

bfloat16 halves the bytes each decoding step reads, but only hardware that computes it
natively gains from that: a CPU without AVX512-BF16 or AMX emulates it, and a bfloat16
matrix product there runs many times slower than float32 (docs/methods.md §5.1;
benchmarks/README.md, "dtype"). So ``auto`` resolves, per job and device:

* on a CUDA GPU, bfloat16 where the GPU supports it, else float16;
* on a CPU whose flags can be read (Linux on x86), bfloat16 where they name AVX512-BF16 or
  AMX and PyTorch's kernels are not capped below them (``ATEN_CPU_CAPABILITY``,
  ``ONEDNN_MAX_CPU_ISA``), float32 otherwise: read from /proc/cpuinfo and the environment,
  without importing torch, so a job whose results are all cached starts as fast as before;
* on a CPU whose flags cannot be read (ARM, macOS), bfloat16 where a short measurement of a
  matrix product shows it clearly faster than float32, float32 otherwise.

An explicit ``float32``, ``bfloat16`` or ``float16`` always wins. The resolved dtype, never
``auto``, is what the cache key holds, so continuations made in bfloat16 are never served
to a job that computes in float32.

On a CPU, ``auto`` first asks whether the CPU engine is installed (:func:`cpu_engine_installed`):
a model entry of backend ``transformers`` with ``dtype: auto`` is then computed in int8 by
CTranslate2 (:meth:`biasflow.models.transformers_backend.TransformersBackend.resolved`;
docs/methods.md §5.1), whose int8 kernels are made for CPUs; the rule above is what
transformers computes in where it is not installed, on a GPU, or when constructed directly.
"""

from __future__ import annotations

import functools
import os
import platform
import time
from importlib.util import find_spec

from biasflow.extras import require

# bfloat16 is taken on a measurement only when it beats float32 by this factor, so that
# timing noise cannot flip the choice (and with it the cache key) between runs.
MEASURED_MARGIN = 1.5

# CPU flags (/proc/cpuinfo) of native bfloat16 arithmetic.
NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")
# What names oneDNN's instruction-set levels from AVX512_CORE_BF16 up (ONEDNN_MAX_CPU_ISA).
ONEDNN_NATIVE_BF16 = ("BF16", "FP16", "AMX", "AVX10")
# The engine that computes int8 weights on a CPU (biasflow.models.ctranslate2_backend), as Python imports it.
CPU_ENGINE = "ctranslate2"
# Device nodes an NVIDIA driver creates; without them no CUDA device can be seen.
NVIDIA_NODES = ("/dev/nvidiactl", "/proc/driver/nvidia")


def default_device() -> str:
    """The first GPU when there is one, else the CPU; without importing torch where no NVIDIA driver is loaded."""
    if platform.system() in ("Linux", "Darwin") and not any(os.path.exists(p) for p in NVIDIA_NODES):
        return "cpu"
    torch = require("torch", "finding a GPU")

    return "cuda" if torch.cuda.is_available() else "cpu"


def cpu_engine_installed() -> bool:
    """Whether CTranslate2 can be imported; found without importing it, so a fully cached job starts fast."""
    return find_spec(CPU_ENGINE) is not None


def resolve_dtype(requested: str, device: str) -> tuple[str, str]:
    """``(dtype, why)``: the dtype a model is computed in on ``device`` ("cpu" or "cuda...")."""
    if requested != "auto":
        return requested, "set in the config"
    if device.startswith("cuda"):
        return _gpu_dtype()
    return _cpu_dtype()


@functools.cache
def _gpu_dtype() -> tuple[str, str]:
    torch = require("torch", "computing on a GPU")

    if torch.cuda.is_bf16_supported():
        return "bfloat16", f"{torch.cuda.get_device_name()} computes bfloat16 natively"
    return "float16", f"{torch.cuda.get_device_name()} has no bfloat16; float16 is native"


@functools.cache
def _cpu_dtype() -> tuple[str, str]:
    flags = cpu_flags()
    if flags is not None:
        native = sorted(flags & set(NATIVE_BF16_FLAGS))
        cap = kernel_cap()
        if native and not cap:
            return "bfloat16", f"this CPU computes bfloat16 natively, with {', '.join(native)}"
        if native:
            return "float32", f"this CPU has {', '.join(native)}, but {cap} keeps PyTorch's kernels from it"
        return "float32", "this CPU has no native bfloat16 arithmetic, neither AVX512-BF16 nor AMX"
    torch = require("torch", "measuring this CPU's bfloat16 arithmetic")

    bf16, fp32 = measure_gflops(torch)
    measured = f"a matrix product measured {bf16:.1f} GFLOP/s in bfloat16 against {fp32:.1f} in float32"
    if bf16 >= MEASURED_MARGIN * fp32:
        return "bfloat16", f"this CPU's flags cannot be read, and {measured}"
    return "float32", f"this CPU's flags cannot be read, and {measured}"


def kernel_cap() -> str:
    """The environment variable that caps PyTorch's CPU kernels below native bfloat16, as ``NAME=value``; "" if none.

    ``ATEN_CPU_CAPABILITY`` caps ATen's own kernels (default, avx2, avx512), ``ONEDNN_MAX_CPU_ISA``
    oneDNN's, which compute bfloat16 products (native from AVX512_CORE_BF16 on).
    """
    aten = os.environ.get("ATEN_CPU_CAPABILITY", "").strip().lower()
    if aten and aten != "avx512":
        return f"ATEN_CPU_CAPABILITY={aten}"
    onednn = os.environ.get("ONEDNN_MAX_CPU_ISA", "").strip().upper()
    if onednn and onednn not in ("ALL", "DEFAULT") and not any(tag in onednn for tag in ONEDNN_NATIVE_BF16):
        return f"ONEDNN_MAX_CPU_ISA={onednn}"
    return ""


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
        for x, w in operands.values():
            for _ in range(3):
                torch.nn.functional.linear(x, w)
        for _ in range(rounds):
            for dtype, (x, w) in operands.items():
                started, calls = time.perf_counter(), 0
                while time.perf_counter() - started < seconds:
                    torch.nn.functional.linear(x, w)
                    calls += 1
                best[dtype] = max(best[dtype], flop * calls / (time.perf_counter() - started) / 1e9)
