"""`make demo`'s main job with transformers in float32 and with CTranslate2 in int8, side by side in one run
(issue 46, parts 2 and 3): how long each takes, and what int8 moves in the bias it measures.

Usage (from the repository root, after ``make demo``'s set-up; the second line caps every engine's kernels
at AVX2, as on most laptops' CPUs, :data:`benchmarks.cpu_dtype.CAP`)::

    .venv/bin/python -m benchmarks.demo_engines --json benchmarks/out/demo_engines.json
    ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 CT2_FORCE_CPU_ISA=AVX2 \\
        .venv/bin/python -m benchmarks.demo_engines

**Time.** Each engine's run is the main job as ``make demo`` runs it (:data:`MAIN_JOB`), in a clone of
HEAD of its own with a cache of its own, so each converts its weights from the packaged GGUF files as a
first run does: first transformers in float32 (every model and paraphraser entry given ``dtype: float32``
by a second config file, :func:`float32_config`), then the default (``dtype: auto``, which picks
CTranslate2 in int8 where it is installed). One after the other on the same machine, nothing else
running; "ratio" is int8's main job over float32's.

**Bias.** The two runs' CAIRO statistics (``results/cairo/stats/gender.parquet``) side by side, each
system named ``<system> (<dtype>)``: per system and metric, each engine's Eq. 1 on the original prompts of
both splits with its 95% interval (the headline's, at these sample sizes: docs/methods.md §1.11), and
the paired comparison ``biasflow compare`` makes (§1.16, §7), int8's Eq. 1 minus float32's with its 95%
interval from the cluster bootstrap over the group keys both answered. Only the original prompts are
compared: each run paraphrased with its own engine, so their paraphrase sets differ.
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
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

REPO = Path(__file__).resolve().parent.parent
MAIN_JOB = ["snakemake", "--cores", "2", "results/cairo/gender.csv"]
AXIS = "gender"
# (name in the tables, dtype of every entry or None for the config's own): the baseline first.
ENGINES = (("float32", "float32"), ("int8", None))


def float32_config(config: dict) -> dict:
    """The second config file that makes every model and paraphraser entry of ``config`` compute in float32."""
    return {
        section: {name: {"dtype": "float32"} for name in config.get(section) or {}}
        for section in ("models", "paraphrasers")
    }


def clone(target: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(REPO), str(target)], check=True)
    return target


def run_main_job(folder: Path, dtype: str | None) -> dict:
    """The main job in ``folder`` (a fresh clone) with this repository's environment; its seconds and engines."""
    command = [str(REPO / ".venv/bin" / MAIN_JOB[0]), *MAIN_JOB[1:]]
    if dtype:
        override = folder / "engine.yaml"
        config = yaml.safe_load((folder / "config/config.yaml").read_text())
        override.write_text(yaml.safe_dump(float32_config(config)))
        command += ["--configfile", "config/config.yaml", str(override)]
    print(f"[demo_engines] {' '.join(command)} (in {folder})", file=sys.stderr, flush=True)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - started
    (folder / "demo-engines.log").write_text(done.stdout)
    if done.returncode:
        raise SystemExit(f"demo_engines: the main job failed in {folder}; its output is in {folder}/demo-engines.log")
    return {"seconds": seconds, "engines": engines_used(folder)}


def engines_used(folder: Path) -> list[str]:
    """The line each model job logged on loading its model: the engine, the compute type (``model … with CTranslate2
    4.8.5, computing in int8 on the CPU``; ``model … in float32 on cpu``)."""
    lines = set()
    for log in sorted((folder / "logs").rglob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if " INFO model " in line and ", loaded in" in line:
                lines.add(re.sub(r"^.*? INFO ", "", line).split(" (threads")[0].split(", loaded in")[0])
    return sorted(lines)


def named_stats(folder: Path, engine: str) -> pd.DataFrame:
    stats = pd.read_parquet(folder / "results/cairo/stats" / f"{AXIS}.parquet")
    return stats.assign(model=stats["model"] + f" ({engine})")


def bias_rows(stats: pd.DataFrame, systems: list[str]) -> list[dict]:
    """Per system and metric: each engine's Eq. 1 with its 95% interval, and int8 − float32 paired (§1.16)."""
    from biasflow.cairo.combinations import ORIGINAL, pooled_bias, pooled_stats
    from biasflow.cairo.selection import SearchSettings
    from biasflow.cairo.uncertainty import BOOTSTRAP, bootstrap_weights, draw_bias, draw_rng, small_sample_factor
    from biasflow.cairo.verdicts import BOTH_SPLITS, both_splits, compare
    from biasflow.intervals import NON_NEGATIVE, estimate_interval

    settings = SearchSettings.defaults()
    (base, _), (candidate, _) = ENGINES
    rows = []
    for system in systems:
        names = [f"{system} ({base})", f"{system} ({candidate})"]
        paired = compare([stats], names[0], names[1], settings).set_index("metric")
        for metric in sorted(paired.index):
            part = both_splits(stats[(stats["metric"] == metric) & stats["model"].isin(names)])
            order = sorted(names)
            pooled = pooled_stats(part, metric, AXIS, BOTH_SPLITS, [ORIGINAL], order)
            counts = np.array([1.0])
            bias = pooled_bias(counts[None, :], pooled, settings.normalise)[0]
            weights = bootstrap_weights(pooled, settings.bootstrap, draw_rng(settings.seed, BOOTSTRAP, metric, "bench"))
            low, high = estimate_interval(
                bias, draw_bias(counts, pooled, weights, settings.normalise), small_sample_factor(pooled), NON_NEGATIVE
            )
            row = {"system": system, "metric": metric}
            for engine, name in zip((base, candidate), names, strict=True):
                i = order.index(name)
                row[engine] = {"eq1": float(bias[i]), "low": float(low[i]), "high": float(high[i])}
            found = paired.loc[metric]
            row["difference"] = {
                "eq1": float(found["difference"]),
                "low": float(found["difference_lo"]),
                "high": float(found["difference_hi"]),
            }
            row["n_clusters"] = int(found["n_clusters"])
            rows.append(row)
    return rows


def measure(workdir: Path) -> dict:
    """Both engines' main jobs, one after the other, then their statistics compared."""
    runs, frames = {}, []
    for engine, dtype in ENGINES:
        folder = clone(workdir / engine)
        runs[engine] = run_main_job(folder, dtype)
        frames.append(named_stats(folder, engine))
    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    (base, _), (candidate, _) = ENGINES
    return {
        "runs": runs,
        "ratio": runs[candidate]["seconds"] / runs[base]["seconds"],
        "caps": {k: v for k, v in os.environ.items() if k in _cap_names()},
        "bias": bias_rows(pd.concat(frames, ignore_index=True), sorted(config["models"])),
    }


def _cap_names() -> tuple[str, ...]:
    from benchmarks.cpu_dtype import CAP

    return tuple(CAP)


def _value(value: dict) -> str:
    """``0.052 (0.031 to 0.080)``; the estimate alone where the interval is empty."""
    if value["low"] != value["low"]:  # NaN
        return f"{value['eq1']:.3f}"
    return f"{value['eq1']:.3f} ({value['low']:.3f} to {value['high']:.3f})"


def markdown_tables(numbers: dict) -> str:
    """The two main jobs' times and their ratio; then Eq. 1 per system and metric under each engine."""
    (base, _), (candidate, _) = ENGINES
    runs = numbers["runs"]
    lines = [
        "| engine | main job s | ratio |",
        "|---|---:|---:|",
        *(
            f"| {name} | {runs[name]['seconds']:.0f} | {runs[name]['seconds'] / runs[base]['seconds']:.2f} |"
            for name, _ in ENGINES
        ),
        "",
        f"| system | metric | Eq. 1, {base} | Eq. 1, {candidate} | {candidate} − {base} | group keys |",
        "|---|---|---|---|---|---:|",
        *(
            f"| {r['system']} | {r['metric']} | {_value(r[base])} | {_value(r[candidate])} | "
            f"{_value(r['difference'])} | {r['n_clusters']} |"
            for r in numbers["bias"]
        ),
    ]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", help="where the two clones go (default: a new temporary folder)")
    parser.add_argument("--json", help="also write the measurements to this file")
    args = parser.parse_args(argv)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="biasflow-engines-"))
    numbers = measure(workdir)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(numbers, indent=1))
    print(markdown_tables(numbers))


if __name__ == "__main__":
    main()
