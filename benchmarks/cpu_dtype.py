r"""What ``dtype: auto`` picks on this CPU and why (the engine too), with the CPU's roofline for the embedded Gemma.

Usage (from the repository root, after ``make demo``, whose weights it reads)::

    .venv/bin/python -m benchmarks.cpu_dtype
    ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 CT2_FORCE_CPU_ISA=AVX2 \
        .venv/bin/python -m benchmarks.cpu_dtype

The second line caps PyTorch's kernels (ATen's, oneDNN's and MKL's) and CTranslate2's at AVX2, as on a CPU
without AVX512-BF16 or AMX, so bfloat16 runs emulated: the record shows whether it really
does (a decoding-shaped product much slower in bfloat16). ``readme_numbers.py`` runs both
beside ``make demo`` in each condition. The roofline is ``benchmarks.roofline``'s: Gemma 3
270M decoding at batch 32 in the dtype ``auto`` picks for transformers, bound by this CPU's measured peak
FLOP/s and memory bandwidth on the job's threads.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from benchmarks.roofline import MODELS, bandwidth, parameters, peak_flops, roofline

CAP = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
    "CT2_FORCE_CPU_ISA": "AVX2",  # CTranslate2's own kernels, what `dtype: auto` computes with where installed
}
# The CPU flags that decide how fast a model computes here (float32 vectors, int8 dot products, native
# bfloat16, matrix tiles), in the order the pages name them.
SIMD_FLAGS = (
    "avx2",
    "fma",
    "avx512f",
    "avx512bw",
    "avx_vnni",
    "avx512_vnni",
    "avx512_bf16",
    "amx_bf16",
    "amx_int8",
)


def simd_flags(flags) -> list[str]:
    """Those of ``flags`` (a CPU's, :func:`biasflow.models.dtypes.cpu_flags`) in :data:`SIMD_FLAGS`, in its order."""
    return [flag for flag in SIMD_FLAGS if flag in set(flags or ())]


def run(cache_dir: str, batch: int = 32) -> dict:
    import torch

    from biasflow.models.dtypes import cpu_engine_installed, measure_gflops, resolve_dtype

    # What a model entry's `dtype: auto` computes in on this CPU: int8 with CTranslate2 where it is installed
    # (biasflow.models.transformers_backend.TransformersBackend.resolved), else what transformers picks.
    torch_dtype, torch_why = resolve_dtype("auto", "cpu")
    if cpu_engine_installed():
        engine, dtype, why = "CTranslate2", "int8", "CTranslate2 is installed, whose int8 kernels are made for CPUs"
    else:
        engine, dtype, why = "transformers", torch_dtype, torch_why
    bf16, fp32 = measure_gflops(torch)
    # One timed product where a dtype is emulated: a 2048 × 2048 product then takes most of a minute.
    peak = {
        name: peak_flops(name, repeats=6 if rate >= 10 else 1) for name, rate in (("float32", fp32), ("bfloat16", bf16))
    }
    memory = bandwidth()
    params = parameters(MODELS["Gemma 3 270M"], cache_dir)
    return {
        "engine": engine,
        "dtype": dtype,
        "why": why,
        "torch_dtype": torch_dtype,
        "torch_why": torch_why,
        "capability": torch.backends.cpu.get_cpu_capability(),
        "capped": {key: os.environ[key] for key in CAP if key in os.environ},
        "gemm_gflops": {"bfloat16": bf16, "float32": fp32},
        "peak_gflops": {name: value / 1e9 for name, value in peak.items()},
        "bandwidth_gbs": memory / 1e9,
        "gemma_roofline": {name: roofline(params, name, batch, peak[name], memory) for name in peak},
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", default=".cache/biasflow")
    parser.add_argument("--json", help="also write the record to this file")
    args = parser.parse_args(argv)
    record = run(args.cache_dir)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(record, indent=1))
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
