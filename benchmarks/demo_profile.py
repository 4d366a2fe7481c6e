"""Where a finished run's time went, per job, from its logs and Snakemake's job benchmarks.

Usage (from the repository root, after a run such as ``make demo``)::

    .venv/bin/python -m benchmarks.demo_profile --elapsed 290

Each job's log has timestamped lines; a model job's also says how long the model took to
import and load (``loaded in``) and, per call, how its generation divided into prefill,
decoding and sampling (the transformers backend's summary line; CTranslate2's gives the call's
time only, all of it *generation, other*). Snakemake's benchmark file
gives the job's wall time. So per job: *start and writing* is the wall time outside the
first and last log lines (the process starting, Python's imports, writing the outputs),
*load* the model's imports and load, *prefill*, *decode* and *sampling* the backend's,
*generation, other* the rest of its generate calls (tokenising, transformers' own loop),
and *rest* what else the logged span holds (caches, tables, scoring). Snakemake's own time
is the run's elapsed time (``--elapsed``) less the union of the jobs' intervals.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
from pathlib import Path

# A log record's time, wherever it starts: a record written while a progress bar is drawn
# follows the bar's last frame on the same line.
STAMP = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) ")
LOADED = re.compile(r"loaded in ([\d.]+) s")
GENERATED = re.compile(
    r"(\d+) new tokens for \d+ requests in ([\d.]+) s \(prefill ([\d.]+) s, decode ([\d.]+) s, "
    r"sampling ([\d.]+) s\)"
)
# CTranslate2's summary line (biasflow.models.ctranslate2_backend): its calls have no clock of their phases, so the
# whole call is *generation, other*.
GENERATED_CT2 = re.compile(r"(\d+) new tokens for \d+ requests in ([\d.]+) s \([\d.]+ tokens/s, CTranslate2 in ")
PHASES = ("start_s", "load_s", "prefill_s", "decode_s", "sampling_s", "generation_other_s", "rest_s")


def job(log: Path, benchmark: Path | None) -> dict | None:
    """One job's phases (module docstring); None for a log without timestamps."""
    text = log.read_text(errors="replace")
    stamps = [dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S,%f") for s in STAMP.findall(text)]
    if not stamps:
        return None
    span = (stamps[-1] - stamps[0]).total_seconds()
    wall = float(benchmark.read_text().splitlines()[1].split("\t")[0]) if benchmark and benchmark.exists() else span
    load = sum(float(s) for s in LOADED.findall(text))
    calls = [tuple(float(x) for x in call) for call in GENERATED.findall(text)]
    calls += [(float(tokens), float(seconds), 0.0, 0.0, 0.0) for tokens, seconds in GENERATED_CT2.findall(text)]
    tokens, generating, prefill, decode, sampling = (sum(call[i] for call in calls) for i in range(5))
    return {
        "wall_s": wall,
        "end": stamps[-1].timestamp(),
        "start_s": max(0.0, wall - span),
        "load_s": load,
        "prefill_s": prefill,
        "decode_s": decode,
        "sampling_s": sampling,
        "generation_other_s": generating - prefill - decode - sampling,
        "rest_s": max(0.0, span - load - generating),
        "new_tokens": int(tokens),
    }


def profile(workdir: Path, elapsed: float) -> dict:
    """Per rule (and model, for model jobs): the jobs' phases summed; and Snakemake's own seconds."""
    groups: dict[str, dict] = {}
    intervals = []
    for log in sorted((workdir / "logs").rglob("*.log")):
        parts = log.relative_to(workdir / "logs").with_suffix("").parts
        found = job(log, workdir / "benchmarks" / "out" / Path(*parts).with_suffix(".tsv"))
        if found is None:
            continue
        intervals.append((found["end"] - found["wall_s"], found["end"]))
        model_job = parts[0] in ("generate", "paraphrase")
        name = f"{parts[0]} {parts[1]}" if model_job else parts[0]
        group = groups.setdefault(name, {"jobs": 0, "wall_s": 0.0, **dict.fromkeys(PHASES, 0.0), "new_tokens": 0})
        group["jobs"] += 1
        for key in ("wall_s", *PHASES, "new_tokens"):
            group[key] += found[key]
    return {"elapsed_s": elapsed, "jobs": groups, "snakemake_s": max(0.0, elapsed - _union(intervals))}


def _union(intervals: list[tuple[float, float]]) -> float:
    """Seconds covered by at least one interval."""
    covered, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop > end:
            covered += stop - max(start, end)
            end = stop
    return covered


def markdown_table(numbers: dict) -> str:
    lines = [
        "| jobs | n | wall s | start and writing | imports and load | prefill | decode | sampling | generation, "
        "other | rest | new tokens |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, g in sorted(numbers["jobs"].items(), key=lambda item: -item[1]["wall_s"]):
        lines.append(
            f"| {name} | {g['jobs']} | {g['wall_s']:.1f} | "
            + " | ".join(f"{g[p]:.1f}" for p in PHASES)
            + f" | {g['new_tokens']:,} |"
        )
    lines.append(f"| Snakemake itself | | {numbers['snakemake_s']:.1f} | | | | | | | | |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=".", help="the run's folder (with logs/ and benchmarks/out/)")
    parser.add_argument("--elapsed", type=float, required=True, help="the run's elapsed seconds (Snakemake's summary)")
    parser.add_argument("--json", help="also write the profile to this file")
    args = parser.parse_args(argv)
    numbers = profile(Path(args.workdir), args.elapsed)
    if args.json:
        Path(args.json).write_text(json.dumps(numbers, indent=1))
    print(markdown_table(numbers))


if __name__ == "__main__":
    main()
