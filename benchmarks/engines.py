"""CTranslate2 in int8 against the transformers backend in float32, side by side in one run (issue 46, parts 1 and 2).

Usage (from the repository root, after ``make demo``, whose cache holds the converted weights)::

    .venv/bin/python -m benchmarks.engines
    .venv/bin/python -m benchmarks.engines --json benchmarks/out/engines.json
    .venv/bin/python -m benchmarks.engines --requests 8 --max-new-tokens 4 --batch-sizes 4   # a quick look

**Speed.** Both engines get the same requests, as :mod:`benchmarks.generation` makes them:
the bundled BOLD and HONEST prompts, cycled, each with its own seed (its sample index),
sampling at temperature 1 with at most ``--max-new-tokens`` (25) new tokens; for each of the
embedded default's two models (:data:`benchmarks.roofline.MODELS`) and each batch size (32,
and a model entry's default ``batch_size`` from the config schema, 16), each engine is loaded
("start s"), warmed up on a few requests, then timed on one call of all of them, counting
the tokens it generated. Both compute on ``--threads`` threads (every CPU this process may run
on): torch's intra-op threads and ``OMP_NUM_THREADS``, which the CTranslate2 backend reads.
"ratio" is CTranslate2's tokens/s over transformers' at the same model and batch.

**Roofline.** Each engine against its own bound (:func:`benchmarks.roofline.roofline`):
decoding at batch B takes at least max(B × 2P / peak FLOP/s, weight bytes / bandwidth) a
step, with P the parameters (the tied output layer once), the float32 peak measured as a
2048 × 2048 product on these threads and the bandwidth by summing a 1 GiB tensor
(:func:`benchmarks.roofline.peak_flops`, :func:`benchmarks.roofline.bandwidth`). float32 reads
4P bytes a step; int8 reads CTranslate2's own weight file (int8 matrices with their float
scales). **The int8 peak is not measured**: CTranslate2's Python API has no matrix product
to time, and torch's CPU int8 product (``torch._int_mm``) is no stand-in (on the 2-core AVX2
EPYC this was written on, about 1 GOP/s against 18 GFLOP/s in float32 at 512 × 512). It is
the measured float32 peak times the most the instruction set lets an int8 product do per
float32 FMA's work (:func:`int8_peak`): 2 on AVX2 or AVX-512 without VNNI, where
CTranslate2's int8 GEMM (oneDNN's on AMD, Intel MKL's on Intel; ``ctranslate2`` in the JSON
says which ran) forms u8 × s8 products with ``vpmaddubsw`` and widens them with
``vpmaddwd``, two multiply instructions per 32 multiply-adds where a float32 FMA does 8 in
one (on CPUs that issue those no faster than FMAs, which is all we know of); 4 with VNNI,
whose ``vpdpbusd`` does 32 (AVX-VNNI) or 64 (AVX512-VNNI) in one. That makes it an upper
bound of int8's compute rate, and the share of int8's roofline, if anything, too low; the
measured float32 peak would be a lower bound, and the share against it too high. "share of
float32's" is each row against the float32 roofline, the bound transformers is held to
(above 100% where int8 beats anything float32 could do). With AMX's int8 tiles
(``amx_int8``) a CPU can exceed the bound, and the page says so.

**One-time costs.** In a fresh temporary cache: dequantising the GGUF file into a
transformers folder (:func:`biasflow.models.sources.materialise`, which both engines need),
then converting that folder to CTranslate2 in int8
(:func:`biasflow.models.ctranslate2_backend.converted`), each timed apart. Install: the bytes
on disk of the files each engine's distributions installed (their RECORD), as
:mod:`benchmarks.install_size` measures folders: ``ctranslate2`` alone for CTranslate2 (the
backend needs transformers and torch too, for the tokenizer and the conversion), torch and
transformers for the transformers backend.

**The samples stay the model's** (issue 46, part 2). The float32 transformers model scores
every sampled continuation of the batch-32 timed calls, both engines' (:func:`log_likelihoods`):
the mean log-probability per token of the continuation's text, re-tokenised by the model's
tokenizer without special tokens, after its prompt's tokens as the backends make them (cut
to the last ``max_prompt_tokens``); an empty continuation has none and is left out. Per
engine: the mean over prompts of each prompt's mean over its continuations, with a 95%
Student t interval over prompts (repeated prompts, different seeds, are one cluster); and
the paired difference int8 − float32 over the requests both continued
(:func:`fidelity`). Greedy: each distinct prompt decoded with ``do_sample: false`` by both
engines at the first batch size, and the continuations compared as token ids (re-tokenised
as above; :func:`greedy_agreement` defines the shares).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from benchmarks.cpu_dtype import simd_flags
from benchmarks.generation import measure_generations, prompts
from benchmarks.roofline import MODELS, bandwidth, peak_flops, roofline

# (backend, dtype): the baseline first.
ENGINES = (("transformers", "float32"), ("ctranslate2", "int8"))
BASE, CANDIDATE = ENGINES
# The distributions each engine installs beside the core (install_bytes).
DISTRIBUTIONS = {"transformers": ("torch", "transformers"), "ctranslate2": ("ctranslate2",)}
# Sequences the float32 model scores per forward pass (log_likelihoods): Gemma's 262,144-token
# vocabulary makes each position's logits 1 MiB.
SCORING_BATCH = 8
GREEDY = {"do_sample": False}
# What CTranslate2 logs about the CPU when CT2_VERBOSE=1 (ctranslate2_cpu).
CT2_LINE = re.compile(
    r"\]\s+(?:-\s+)?(CPU|Selected ISA|Use Intel MKL|SGEMM backend|GEMM_S8 backend|Selected compute type): (.*)$"
)


def key(backend: str, dtype: str) -> str:
    """An engine's name in the JSON: ``ctranslate2-int8``."""
    return f"{backend}-{dtype}"


def workflow_batch() -> int:
    """A model entry's default ``batch_size`` (the config schema's): the batch a workflow job runs at."""
    from biasflow.schema import subschema

    return int(subschema("#/definitions/model")["properties"]["batch_size"]["default"])


def default_threads() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextmanager
def threads(n: int) -> Iterator[None]:
    """Both engines on ``n`` threads: torch's intra-op threads and ``OMP_NUM_THREADS`` (CTranslate2's backend
    reads it when loaded); both restored after."""
    import torch

    before, variable = torch.get_num_threads(), os.environ.get("OMP_NUM_THREADS")
    torch.set_num_threads(n)
    os.environ["OMP_NUM_THREADS"] = str(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)
        if variable is None:
            os.environ.pop("OMP_NUM_THREADS", None)
        else:
            os.environ["OMP_NUM_THREADS"] = variable


# ---------------------------------------------------------------------------------------
# The machine


def int8_peak(flags: frozenset[str] | set[str], float32_flops: float) -> dict:
    """The int8 compute peak this benchmark assumes (module docstring): ``float32_flops`` times the most an int8
    product can do per float32 FMA's work on a CPU with ``flags``, with why."""
    if flags & {"avx512_vnni", "avx_vnni"}:
        factor, why = 4, "VNNI: vpdpbusd does 4 times the multiply-adds of a float32 FMA of its width"
    elif "avx2" in flags or "avx512bw" in flags:
        factor = 2
        why = (
            "no VNNI: u8 x s8 products by vpmaddubsw, widened by vpmaddwd, two multiply instructions per 32 "
            "multiply-adds against 8 in one float32 FMA"
        )
    else:
        factor, why = 1, "no AVX2: int8 assumed no faster than float32"
    note = "an upper bound of int8's rate, not measured"
    if "amx_int8" in flags:
        note = "AMX's int8 tiles can exceed it: a lower bound of int8's rate here"
    return {"flops": factor * float32_flops, "factor": factor, "why": f"{why}; {note}"}


def ctranslate2_cpu(folder: Path) -> dict:
    """What CTranslate2 says it computes with on this CPU: its CPU line, instruction set, GEMM backends and the
    compute type int8 loads as (``CT2_VERBOSE=1`` in a process of its own: it says so once per process)."""
    code = (
        "import sys, ctranslate2; "
        "ctranslate2.Generator(sys.argv[1], device='cpu', compute_type='int8', intra_threads=1)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(folder)],
        env={**os.environ, "CT2_VERBOSE": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    info = {}
    for line in done.stderr.splitlines():
        found = CT2_LINE.search(line)
        if found:
            info[found.group(1)] = found.group(2).strip()
    return info


def install_bytes(distribution: str) -> dict:
    """The version and bytes on disk of the files ``distribution`` installed (its RECORD)."""
    from importlib import metadata

    dist = metadata.distribution(distribution)
    paths = (Path(dist.locate_file(f)) for f in dist.files or [])
    size = sum(p.stat().st_size for p in paths if p.is_file() and not p.is_symlink())
    return {"version": dist.version, "bytes": size}


def machine(peak: dict | None = None) -> dict:
    """The CPU's flags (:func:`biasflow.models.dtypes.cpu_flags`), torch's kernel level, and the peaks: measured
    float32 FLOP/s and bandwidth on these threads unless ``peak`` gives them, int8's from them (:func:`int8_peak`)."""
    import torch

    from biasflow.models.dtypes import cpu_flags

    flags = cpu_flags() or frozenset()
    peak = dict(peak or {"flops": {"float32": peak_flops("float32")}, "bandwidth": bandwidth()})
    int8 = int8_peak(flags, peak["flops"]["float32"])
    peak["flops"] = {**peak["flops"], "int8": int8["flops"]}
    peak["int8"] = {"factor": int8["factor"], "why": int8["why"]}
    cpu = {"flags": sorted(flags), "simd": simd_flags(flags), "capability": torch.backends.cpu.get_cpu_capability()}
    return {"cpu": cpu, "peak": peak}


# ---------------------------------------------------------------------------------------
# One-time costs


def conversion(model: str) -> dict:
    """Seconds to dequantise ``model`` into a transformers folder, then to convert that to CTranslate2 in int8,
    each in a fresh temporary cache; the int8 folder's bytes and what CTranslate2 computes it with."""
    # Imported before the clocks start, else the first model's times would hold them.
    import ctranslate2.converters  # noqa: F401
    from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: F401

    from biasflow.models.ctranslate2_backend import converted
    from biasflow.models.sources import materialise, resolve_source

    with tempfile.TemporaryDirectory(prefix="biasflow-bench-engines-") as cache:
        start = time.perf_counter()
        source = materialise(resolve_source(model, cache), cache)
        dequantise = time.perf_counter() - start
        start = time.perf_counter()
        folder = converted(source, cache, "int8", trust_remote_code=False)
        convert = time.perf_counter() - start
        size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        return {
            "dequantise_s": dequantise,
            "convert_s": convert,
            "int8_bytes": size,
            "weight_bytes": (folder / "model.bin").stat().st_size,
            "ctranslate2": ctranslate2_cpu(folder),
        }


# ---------------------------------------------------------------------------------------
# The samples stay the model's


def scoring_model(model: str, cache_dir: str):
    """``(tokenizer, model)``: ``model`` in float32 with transformers, as its backend loads it, for scoring."""
    from biasflow.models import model_spec
    from biasflow.models.transformers_backend import load_pretrained

    spec = model_spec("bench", {"backend": "transformers", "model": model, "dtype": "float32"})
    tokenizer, network = load_pretrained(spec, cache_dir, dtype="float32")
    return tokenizer, network.eval()


def prompt_ids(tokenizer, prompt: str, max_prompt_tokens: int) -> list[int]:
    """The prompt's ids as both backends make them (plain prompt): special tokens added, cut to the last
    ``max_prompt_tokens`` (the tokenizer is set to cut from the left, as theirs are)."""
    tokenizer.truncation_side = "left"
    return tokenizer(prompt, truncation=True, max_length=max_prompt_tokens)["input_ids"]


def continuation_ids(tokenizer, text: str) -> list[int]:
    """A continuation's text as the tokenizer splits it, without special tokens."""
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def log_likelihoods(
    tokenizer,
    model,
    prompts: Sequence[str],
    continuations: Sequence[str],
    max_prompt_tokens: int,
    batch_size: int = SCORING_BATCH,
) -> list[float | None]:
    """Per pair, the mean log-probability per token ``model`` gives the continuation's tokens after the prompt's
    (:func:`prompt_ids`, :func:`continuation_ids`); None for a continuation with no tokens.

    Sequences of similar length share a forward pass, padded on the right: a causal model's
    logits at a position see only the positions before it, so the padding after a sequence
    changes none of the logits read (the test checks this against one sequence at a time).
    """
    import torch

    rows = [
        (prompt_ids(tokenizer, p, max_prompt_tokens), continuation_ids(tokenizer, c))
        for p, c in zip(prompts, continuations, strict=True)
    ]
    out: list[float | None] = [None] * len(rows)
    order = sorted((i for i, (_, new) in enumerate(rows) if new), key=lambda i: len(rows[i][0]) + len(rows[i][1]))
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        sequences = [rows[i][0] + rows[i][1] for i in batch]
        width = max(len(s) for s in sequences)
        ids = torch.tensor([s + [pad] * (width - len(s)) for s in sequences])
        mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in sequences])
        # Each continuation token with the position whose logits predict it and its row in the batch.
        which = [(r, len(rows[i][0]) - 1 + k, t) for r, i in enumerate(batch) for k, t in enumerate(rows[i][1])]
        row, position, token = (torch.tensor(column) for column in zip(*which, strict=True))
        with torch.inference_mode():
            logits = model(input_ids=ids, attention_mask=mask).logits[row, position].float()
            scores = torch.log_softmax(logits, dim=-1).gather(1, token[:, None])[:, 0]
        for r, i in enumerate(batch):
            out[i] = float(scores[row == r].mean())
    return out


def fidelity(prompts: Sequence[str], scores: dict[str, Sequence[float | None]]) -> dict:
    """Each engine's mean log-likelihood per token over prompts with its 95% t interval, and the paired
    difference of the candidate (int8) minus the baseline (float32).

    A prompt's value is the mean over its scored continuations (a cycled prompt recurs with
    other seeds: one cluster), and the interval is :func:`biasflow.intervals.t_interval` over
    prompts; the paired difference is taken per request where both engines' continuations
    were scored, then averaged the same way.
    """
    from biasflow.intervals import t_interval

    def over_prompts(values: Sequence[float | None]) -> dict:
        by_prompt: dict[str, list[float]] = {}
        for prompt, value in zip(prompts, values, strict=True):
            if value is not None:
                by_prompt.setdefault(prompt, []).append(value)
        mean, low, high = t_interval([sum(v) / len(v) for v in by_prompt.values()])
        n = sum(len(v) for v in by_prompt.values())
        return {"mean": mean, "low": low, "high": high, "continuations": n, "prompts": len(by_prompt)}

    result = {name: over_prompts(values) for name, values in scores.items()}
    base, candidate = scores[key(*BASE)], scores[key(*CANDIDATE)]
    paired = [c - b if b is not None and c is not None else None for b, c in zip(base, candidate, strict=True)]
    result["difference"] = over_prompts(paired)
    return result


def greedy_agreement(pairs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> dict:
    """How far the candidate's greedy token ids ``a`` follow the baseline's ``b``, over prompts' pairs ``(a, b)``.

    With n = max(len a, len b) the positions a pair is compared at (a token one side has and
    the other has not is a difference) and N = Σ n over pairs:

    - ``identical``: the share of pairs with a == b;
    - ``prefix``: Σ k / N, k the length of the longest common prefix: the tokens equal up to
      each pair's first difference, the part of the continuation that is float32's own;
    - ``positions``: Σ #{t : a[t] == b[t]} / N, equal tokens position by position over the
      whole length (after a first difference the two continue different texts, so this counts
      the later positions where they happen to agree too).

    ``prefix`` ≤ ``positions`` ≤ 1; the shares are NaN where no pair has a token.
    """
    compared = prefix = equal = identical = 0
    for a, b in pairs:
        n = max(len(a), len(b))
        same = [x == y for x, y in zip(a, b, strict=False)]
        compared += n
        prefix += next((t for t, s in enumerate(same) if not s), len(same))
        equal += sum(same)
        identical += list(a) == list(b)
    nan = float("nan")
    return {
        "prompts": len(pairs),
        "tokens": compared,
        "identical": identical / len(pairs) if pairs else nan,
        "prefix": prefix / compared if compared else nan,
        "positions": equal / compared if compared else nan,
    }


# ---------------------------------------------------------------------------------------
# The run


def run(
    requests: int,
    max_new_tokens: int,
    batch_sizes: Sequence[int],
    cache_dir: str,
    models: dict[str, str] | None = None,
    n_threads: int | None = None,
    peak: dict | None = None,
) -> dict:
    """Every measurement of the module docstring, for ``models`` (name -> model spec; the default's two), on
    ``n_threads`` threads; ``peak``: the float32 peak and bandwidth instead of measuring them (a test's)."""
    n_threads = n_threads or default_threads()
    numbers: dict = {
        "requests": requests,
        "max_new_tokens": max_new_tokens,
        "batch_sizes": list(batch_sizes),
        "threads": n_threads,
        "install": {name: install_bytes(name) for names in DISTRIBUTIONS.values() for name in names},
        "models": [],
        "rows": [],
    }
    with threads(n_threads):
        numbers.update(machine(peak))
        flops, memory = numbers["peak"]["flops"], numbers["peak"]["bandwidth"]
        for name, model in (MODELS if models is None else models).items():
            once = conversion(model)
            numbers["cpu"].setdefault("ctranslate2", once.pop("ctranslate2"))
            measured = measure_model(model, requests, max_new_tokens, batch_sizes, cache_dir)
            params = measured["params"]
            for row in measured.pop("rows"):
                weight_bytes = once["weight_bytes"] if row["dtype"] == "int8" else None
                batch, dtype = row["batch_size"], row["dtype"]
                row.update(
                    name=name,
                    params=params,
                    roofline=roofline(params, dtype, batch, flops[dtype], memory, weight_bytes),
                    float32_roofline=roofline(params, "float32", batch, flops["float32"], memory),
                )
                numbers["rows"].append(row)
            numbers["models"].append({"name": name, "model": model, **once, **measured})
    return numbers


def measure_model(model: str, requests: int, max_new_tokens: int, batch_sizes: Sequence[int], cache_dir: str) -> dict:
    """One model: each engine's timed ``rows`` at each batch size (:func:`benchmarks.generation.measure_generations`),
    the float32 model's scores of the first batch size's continuations (``fidelity``), both engines' greedy
    continuations of the distinct prompts compared (``greedy``), and the model's ``params``."""
    from biasflow.models.base import Decoding

    texts = prompts(requests)
    rows: list[dict] = []
    sampled: dict[str, list[str]] = {}
    for batch in batch_sizes:
        for backend, dtype in ENGINES:
            row, generations = measure_generations(
                backend, "cpu", model, requests, max_new_tokens, batch, dtype, cache_dir
            )
            rows.append(row)
            sampled.setdefault(key(backend, dtype), [g.text for g in generations])
    distinct = list(dict.fromkeys(texts))
    greedy = {}
    for backend, dtype in ENGINES:
        _, greedy[key(backend, dtype)] = measure_generations(
            backend, "cpu", model, len(distinct), max_new_tokens, batch_sizes[0], dtype, cache_dir, GREEDY, distinct
        )
    tokenizer, scorer = scoring_model(model, cache_dir)
    max_prompt_tokens = Decoding.from_params({}).max_prompt_tokens
    scores = {
        engine: log_likelihoods(tokenizer, scorer, texts, continuations, max_prompt_tokens)
        for engine, continuations in sampled.items()
    }
    pairs = [
        (continuation_ids(tokenizer, c.text), continuation_ids(tokenizer, b.text))
        for b, c in zip(greedy[key(*BASE)], greedy[key(*CANDIDATE)], strict=True)
    ]
    return {
        "rows": rows,
        "params": sum(p.numel() for p in scorer.parameters()),  # a tied output layer once
        "fidelity": fidelity(texts, scores),
        "greedy": greedy_agreement(pairs),
    }


# ---------------------------------------------------------------------------------------
# The page


def _interval(value: dict) -> str:
    """``-2.31 (-2.40 to -2.22)``; the mean alone where the interval is empty (one prompt)."""
    if value["low"] != value["low"]:  # NaN
        return f"{value['mean']:.2f}"
    return f"{value['mean']:.2f} ({value['low']:.2f} to {value['high']:.2f})"


def markdown_tables(numbers: dict) -> str:
    """Speed against each engine's roofline; the one-time costs; the samples' fidelity; the peaks, CPU and installs."""
    base_rate = {(r["name"], r["batch_size"]): r["tokens_per_s"] for r in numbers["rows"] if r["backend"] == BASE[0]}
    lines = [
        "| model | engine | dtype | batch | requests | new tokens | seconds | tokens/s | ratio | roofline tokens/s | "
        "share of roofline | share of float32's | start s |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in numbers["rows"]:
        lines.append(
            f"| {r['name']} | {r['backend']} | {r['dtype']} | {r['batch_size']} | {r['requests']:,} | "
            f"{r['new_tokens']:,} | {r['seconds']:.1f} | {r['tokens_per_s']:,.1f} | "
            f"{r['tokens_per_s'] / base_rate[r['name'], r['batch_size']]:.2f} | {r['roofline']:,.0f} | "
            f"{r['tokens_per_s'] / r['roofline']:.0%} | {r['tokens_per_s'] / r['float32_roofline']:.0%} | "
            f"{r['load_s']:.1f} |"
        )
    lines += [
        "",
        "| model | parameters | GGUF to transformers s | transformers to CTranslate2 int8 s | int8 folder MiB |",
        "|---|---:|---:|---:|---:|",
    ]
    for m in numbers["models"]:
        lines.append(
            f"| {m['name']} | {m['params'] / 1e6:,.0f}M | {m['dequantise_s']:.1f} | {m['convert_s']:.1f} | "
            f"{m['int8_bytes'] / 2**20:,.0f} |"
        )
    base, candidate = key(*BASE), key(*CANDIDATE)
    lines += [
        "",
        "| model | scored (prompts) | float32 log-likelihood per token: float32's samples | int8's samples | "
        "int8 − float32, paired | greedy prompts | identical | tokens equal to the first difference | "
        "tokens equal by position |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in numbers["models"]:
        f, g = m["fidelity"], m["greedy"]
        lines.append(
            f"| {m['name']} | {f['difference']['continuations']:,} ({f['difference']['prompts']}) | "
            f"{_interval(f[base])} | {_interval(f[candidate])} | {_interval(f['difference'])} | {g['prompts']} | "
            f"{g['identical']:.0%} | {g['prefix']:.0%} | {g['positions']:.0%} |"
        )
    return "\n".join(lines) + "\n\n" + notes(numbers)


def notes(numbers: dict) -> str:
    """The peaks the rooflines use, the CPU and what CTranslate2 computed with, and the installs, in words."""
    peak, cpu, install = numbers["peak"], numbers["cpu"], numbers["install"]
    flops = peak["flops"]
    ct2 = cpu.get("ctranslate2", {})
    engine = ", ".join(
        f"{label} {ct2[key]}"
        for key, label in (("Selected ISA", "ISA"), ("GEMM_S8 backend", "int8 GEMM"), ("Selected compute type", "as"))
        if key in ct2
    )

    def size(*names: str) -> str:
        versions = " + ".join(f"{name} {install[name]['version']}" for name in names)
        return f"{versions} {sum(install[name]['bytes'] for name in names) / 2**20:,.0f} MiB"

    return "\n".join(
        [
            f"peak: {flops['float32'] / 1e9:,.0f} GFLOP/s in float32 (measured), {flops['int8'] / 1e9:,.0f} assumed "
            f"in int8 ({peak['int8']['factor']} × float32: {peak['int8']['why']}); memory: "
            f"{peak['bandwidth'] / 1e9:,.1f} GB/s; threads: {numbers['threads']}",
            f"CPU flags: {', '.join(cpu['simd']) or 'none of note'}; PyTorch's kernels: {cpu['capability']}"
            + (f"; CTranslate2: {engine}" if engine else ""),
            f"installed: {size(*DISTRIBUTIONS['ctranslate2'])} (needs transformers and torch too); "
            f"{size(*DISTRIBUTIONS['transformers'])}",
        ]
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=128)
    parser.add_argument("--max-new-tokens", type=int, default=25)
    parser.add_argument(
        "--models",
        nargs="+",
        default=list(MODELS),
        help=f"names of the default's models ({', '.join(MODELS)}) or model specs (a directory, .gguf, pkg:...)",
    )
    parser.add_argument(
        "--batch-sizes",
        type=int,
        nargs="+",
        help="default: 32 and a model entry's default batch_size (the config schema's)",
    )
    parser.add_argument("--threads", type=int, default=default_threads(), help="default: every CPU this process has")
    parser.add_argument("--cache-dir", default=".cache/biasflow")
    parser.add_argument("--json", help="also write the measurements to this file")
    args = parser.parse_args(argv)
    batch_sizes = args.batch_sizes or list(dict.fromkeys([32, workflow_batch()]))
    models = {name: MODELS.get(name, name) for name in args.models}
    numbers = run(args.requests, args.max_new_tokens, batch_sizes, args.cache_dir, models, args.threads)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(numbers, indent=1))
    print(markdown_tables(numbers))


if __name__ == "__main__":
    main()
