"""Every time and count the README and benchmarks/README.md state, measured from a fresh clone.

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.readme_numbers measure              # every group (benchmarks/README.md: how long)
    .venv/bin/python -m benchmarks.readme_numbers measure --only demo fairpair --clone /tmp/biasflow-clone
    .venv/bin/python -m benchmarks.readme_numbers render               # write them into both READMEs
    .venv/bin/python -m benchmarks.readme_numbers render --check       # exit 1 where a README differs

``measure`` clones this repository's committed HEAD into a new folder (or reuses
``--clone``, where earlier groups ran), runs each group's commands there exactly as the
READMEs write them, one after another, and records the results, the machine and the
commit in ``benchmarks/numbers.json``, group by group (groups not run keep their earlier
record). While a group runs, a watcher samples every process outside its own process tree
every 5 s, so the record says what else was running: the CPU cores they used on average
and at most, and the busiest by name.

``render`` writes the numbers into the READMEs, where a value stands between
``<!-- n:KEY -->`` and ``<!-- /n -->`` and a table between ``<!-- table:KEY -->`` and
``<!-- /table -->`` (both invisible in the rendered page); ``FIELDS`` and ``TABLES`` below
say how each is written. ``tests/core/test_readme_numbers.py`` fails when a README and
``numbers.json`` disagree.

The groups, in order (each later one uses the clone's environment and cached weights): ``demo`` (``make demo``, a rerun
of its main job with ``results/`` deleted, ``make report``, and what ``dtype: auto`` picked with the CPU's roofline),
``demo_avx2`` (the same in a fresh clone of its own, with PyTorch's kernels capped at AVX2, so bfloat16 is emulated as
on most laptops), ``roofline`` (the embedded models in float32 and bfloat16 against the machine's roofline),
``engines`` (CTranslate2 in int8 against transformers in float32 on the same requests, with the samples' fidelity),
``demo_engines`` (the demo's main job with each of the two, side by side, capped at AVX2; its Eq. 1 under both),
``counterfactual``, ``fairpair``, ``fpr``, ``official`` (the official overlay's gender run on official-size files in the
official formats, made up by ``benchmarks/scale.py``: this machine cannot download the real ones), ``plan`` (the paper's
dry run), ``weights`` (GGUF conversion against later loads), ``scoring``, ``scale``, ``selection``, ``uncertainty``
(CAIRO's bootstrap and null at the paper's size), ``calibration`` (every interval and test of the three methods and the
scorer-bias step, by simulation), ``vllm`` (``make test-vllm``, then the generation benchmark against vLLM's CPU build),
``slurm`` (``make test-slurm``, as root).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pandas as pd
import yaml

from benchmarks.cpu_dtype import CAP, simd_flags
from benchmarks.demo_profile import profile
from benchmarks.generation import JSON_MARK, PAPER_CONTINUATIONS, projection_hours
from biasflow.models.dtypes import cpu_flags

REPO = Path(__file__).resolve().parent.parent
NUMBERS = REPO / "benchmarks" / "numbers.json"
DOCUMENTS = ("README.md", "benchmarks/README.md")
GROUPS = (
    "demo",
    "demo_avx2",
    "roofline",
    "engines",
    "demo_engines",
    "counterfactual",
    "fairpair",
    "fpr",
    "official",
    "plan",
    "weights",
    "scoring",
    "scale",
    "selection",
    "uncertainty",
    "calibration",
    "vllm",
    "slurm",
)
MAIN_JOB = "snakemake --cores 2 results/cairo/gender.csv"


# ---------------------------------------------------------------------------------------
# What else is running


def _cpu_ticks() -> dict[int, tuple[int, str, int]]:
    """pid -> (parent pid, name, user + system clock ticks) of every process readable now."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        out[int(entry.name)] = (int(fields[1]), name, int(fields[11]) + int(fields[12]))
    return out


def _descendants(processes: dict[int, tuple[int, str, int]], root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in processes.items():
        children.setdefault(parent, []).append(pid)
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        tree.add(pid)
        todo += children.get(pid, [])
    return tree


class OtherProcesses(threading.Thread):
    """Samples the CPU that processes outside ``root``'s process tree (this script's by default) use, every
    ``interval`` s."""

    def __init__(self, interval: float = 5.0, root: int | None = None):
        super().__init__(daemon=True)
        self.interval = interval
        self.root = os.getpid() if root is None else root
        self.samples: list[float] = []
        self.by_name: dict[str, float] = {}
        self._done = threading.Event()

    def run(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        before, then = _cpu_ticks(), time.monotonic()
        while not self._done.wait(self.interval):
            now, when = _cpu_ticks(), time.monotonic()
            self.record(before, now, when - then, tick)
            before, then = now, when

    def record(
        self, before: dict[int, tuple[int, str, int]], now: dict[int, tuple[int, str, int]], seconds: float, tick: float
    ) -> None:
        """One sample: the cores used over ``seconds`` between two snapshots (``_cpu_ticks``, ``tick`` clock
        ticks a second) by processes outside the tree; one new since ``before``, or a pid reused under
        another name, has no earlier count and is left out."""
        ours = _descendants(now, self.root)
        used = 0.0
        for pid, (_, name, ticks) in now.items():
            if pid in ours or pid not in before or before[pid][1] != name:
                continue
            cores = (ticks - before[pid][2]) / tick / seconds
            used += cores
            self.by_name[name] = self.by_name.get(name, 0.0) + cores * seconds
        self.samples.append(used)

    def summary(self, seconds: float) -> dict:
        """The cores used outside on average and at most, and the busiest names' mean use over ``seconds``."""
        busiest = sorted(self.by_name.items(), key=lambda item: -item[1])
        return {
            "mean_cores": sum(self.samples) / len(self.samples) if self.samples else 0.0,
            "max_cores": max(self.samples, default=0.0),
            # Names that used more than 1% of one core over the group, with their mean use.
            "busiest": {name: used / seconds for name, used in busiest if used / seconds > 0.01},
        }

    def stop(self, seconds: float) -> dict:
        self._done.set()
        self.join()
        return self.summary(seconds)


def machine() -> dict:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    memory = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
    )
    gpu = shutil.which("nvidia-smi") is not None
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        # Every time is recorded with what the CPU computes natively (conditions() names the ones that matter).
        "flags": sorted(cpu_flags() or ()),
        "memory_gib": round(memory / 2**20),
        "gpu": gpu,
        "python": platform.python_version(),
    }


# ---------------------------------------------------------------------------------------
# Running commands in the clone


class Clone:
    """A clone of the committed HEAD and the commands run in it, each timed."""

    def __init__(self, path: Path, new: bool = False):
        self.path = path
        self.new = new  # made by this run, not reused from an earlier one

    @classmethod
    def fresh(cls, path: Path | None) -> Clone:
        path = path or Path(tempfile.mkdtemp(prefix="biasflow-numbers-")) / "biasflow"
        subprocess.run(["git", "clone", "-q", str(REPO), str(path)], check=True)
        return cls(path, new=True)

    def update(self) -> None:
        """Bring a clone where earlier groups ran to this repository's HEAD (their outputs stay)."""
        subprocess.run(["git", "pull", "-q", "--ff-only", str(REPO), "HEAD"], cwd=self.path, check=True)

    def commit(self) -> str:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=self.path, check=True, capture_output=True, text=True
        ).stdout.strip()

    def run(self, command: str, env: dict | None = None) -> tuple[float, str]:
        """Run ``command`` as a user types it (with .venv/bin first on PATH); seconds and its output."""
        print(f"[readme_numbers] $ {command}", file=sys.stderr, flush=True)
        environment = {**os.environ, "PATH": f"{self.path / '.venv/bin'}:{os.environ['PATH']}", **(env or {})}
        start = time.perf_counter()
        done = subprocess.run(
            command,
            check=False,
            shell=True,
            cwd=self.path,
            env=environment,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        seconds = time.perf_counter() - start
        log = self.path / "readme-numbers.log"
        with log.open("a") as handle:
            handle.write(f"$ {command}\n{done.stdout}\n[{seconds:.1f} s, exit {done.returncode}]\n")
        if done.returncode != 0:
            raise SystemExit(f"readme_numbers: `{command}` failed (exit {done.returncode}); its output is in {log}")
        print(f"[readme_numbers]   {seconds:.1f} s", file=sys.stderr, flush=True)
        return seconds, done.stdout

    def benchmark(self, module: str, name: str, flags: str = "", env: dict | None = None) -> tuple[float, dict]:
        """Run ``benchmarks.<module>`` with ``--json benchmarks/out/<name>.json``; seconds and what it wrote."""
        seconds, _ = self.run(f".venv/bin/python -m benchmarks.{module} --json benchmarks/out/{name}.json{flags}", env)
        return seconds, json.loads((self.path / f"benchmarks/out/{name}.json").read_text())

    def config(self) -> dict:
        return yaml.safe_load((self.path / "config/config.yaml").read_text())

    def require(self, *paths: str) -> None:
        missing = [p for p in paths if not (self.path / p).exists()]
        if missing:
            raise SystemExit(
                f"readme_numbers: {self.path} lacks {', '.join(missing)}; measure the demo group "
                "first (in the same --clone)."
            )


# ---------------------------------------------------------------------------------------
# The groups


def measure_demo(clone: Clone, env: dict | None = None) -> dict:
    """``make demo`` as a new user runs it: its set-up, then the main job (Snakemake's own elapsed time);
    then what ``dtype: auto`` picked on this CPU and why, and the CPU's roofline (benchmarks/cpu_dtype.py)."""
    total, output = clone.run("make demo", env)
    hours, minutes, seconds = re.findall(r"Elapsed time: (\d+):(\d+):([\d.]+)", output)[-1]
    main = 3600 * int(hours) + 60 * int(minutes) + float(seconds)
    setup = total - main
    where = profile(clone.path, main)
    _, cpu = clone.benchmark("cpu_dtype", "cpu_dtype", env=env)
    shutil.rmtree(clone.path / "results")
    shutil.rmtree(clone.path / "logs", ignore_errors=True)
    rerun, _ = clone.run(MAIN_JOB, env)
    computed = sum(
        int(n)
        for log in (clone.path / "logs").rglob("*.log")
        for n in re.findall(r"rows from cache, (\d+) to compute", log.read_text())
    )
    report, _ = clone.run("make report", env)
    return {
        "setup_s": setup,
        "main_s": main,
        "rerun_s": rerun,
        "rerun_rows_computed": computed,
        "report_s": report,
        "profile": where,
        "cpu": cpu,
    }


def measure_demo_avx2(clone: Clone) -> dict:
    """The demo group again, in a fresh clone of its own, with PyTorch's kernels capped at AVX2
    (``benchmarks.cpu_dtype.CAP``): bfloat16 emulated, as on most laptops' CPUs."""
    return measure_demo(Clone.fresh(None), CAP)


def measure_roofline(clone: Clone) -> dict:
    """Both embedded models in float32 and bfloat16 on the same requests, against this machine's roofline."""
    clone.require(".venv/bin/python", ".cache/biasflow/weights")
    seconds, result = clone.benchmark("roofline", "roofline")
    return {"seconds": seconds, **result}


def measure_engines(clone: Clone) -> dict:
    """CTranslate2 in int8 against transformers in float32 on both embedded models, side by side
    (benchmarks/engines.py), on the weights the demo converted."""
    clone.require(".venv/bin/python", ".cache/biasflow/weights")
    seconds, result = clone.benchmark("engines", "engines")
    return {"seconds": seconds, **result}


def measure_demo_engines(clone: Clone) -> dict:
    """The demo's main job with transformers in float32 and with CTranslate2 in int8, side by side, every engine's
    kernels capped at AVX2 (``benchmarks.cpu_dtype.CAP``; on an AVX2-only CPU the cap changes nothing), and what int8
    moves in Eq. 1 (benchmarks/demo_engines.py)."""
    clone.require(".venv/bin/python")
    seconds, result = clone.benchmark("demo_engines", "demo_engines", env=CAP)
    return {"seconds": seconds, **result}


def measure_counterfactual(clone: Clone) -> dict:
    """On the demo's continuations: those of the demo group where it ran in this clone, else its main job's."""
    clone.require(".venv/bin/python")
    if not (clone.path / "results/continuations").exists():
        clone.run(MAIN_JOB)
    seconds, result = clone.benchmark("counterfactual", "counterfactual")
    return {"seconds": seconds, **result}


def measure_fairpair(clone: Clone) -> dict:
    clone.require(".venv/bin/snakemake", ".cache/biasflow/weights")
    seconds, _ = clone.run("snakemake --cores 2 results/fairpair/summary.csv")
    config = clone.config()
    fairpair = config["fairpair"]
    return {
        "seconds": seconds,
        "occupations": len(fairpair["occupations"]),
        "samples": fairpair["samples"],
        "max_new_tokens": fairpair["decoding"]["max_new_tokens"],
        "systems": len(fairpair.get("models") or config["models"]),
    }


def measure_fpr(clone: Clone) -> dict:
    clone.require(".venv/bin/snakemake", ".cache/biasflow/weights")
    seconds, _ = clone.run("snakemake --cores 2 results/fpr/gap_spans.csv")
    fpr = clone.config()["fpr"]
    accuracy = pd.concat([pd.read_csv(clone.path / f"results/fpr/{probe}_accuracy.csv") for probe in fpr["probes"]])
    accuracy["classifier"] = accuracy["model"].str.split("/").str[-1]
    by_classifier = {
        name: {
            "mean": float(group["accuracy"].mean()),
            "min": float(group["accuracy"].min()),
            "max": float(group["accuracy"].max()),
        }
        for name, group in accuracy.groupby("classifier")
    }
    return {"seconds": seconds, "probes": len(fpr["probes"]), "runs": fpr["runs"], "accuracy": by_classifier}


def synthesise_honest(directory: Path, bundled: Path, templates: int = 15, identities: int = 14) -> None:
    """HONEST's binary file at its official size: ``templates`` made-up templates × ``identities``
    made-up terms per category (female, male); the bundled queer_nonqueer file beside it."""
    from benchmarks.scale import Words

    word = Words()
    rows = ["template_masked\traw\tidentity\tnumber\tcategory\ttype"]
    forms = [f"[I] {word()} {word()} [M]" for _ in range(templates)]
    for category in ("female", "male"):
        for identity in (f"the {word()}" for _ in range(identities)):
            rows += [
                f"{raw.replace('[I]', identity)}.\t{raw}\t{identity}\tsingular\t{category}\toccupation" for raw in forms
            ]
    (directory / "binary").mkdir(parents=True)
    (directory / "binary/en_template.tsv").write_text("\n".join(rows) + "\n")
    shutil.copytree(bundled / "queer_nonqueer", directory / "queer_nonqueer")


def official_files(directory: Path, clone: Clone) -> dict:
    """Official-size BOLD and HolisticBias files (made-up sentences, the subgroups the gender maps name)."""
    from benchmarks.scale import synthesise_bold, synthesise_holisticbias

    synthesise_bold(directory / "BOLD")
    bold = directory / "BOLD/gender_prompt.json"
    pages = json.loads(bold.read_text())
    bold.write_text(
        json.dumps(dict(zip(["American_actresses", "American_actors"], pages.values(), strict=True)), indent=1)
    )
    synthesise_holisticbias(directory / "HolisticBias")
    descriptors_file = directory / "HolisticBias/descriptors.json"
    descriptors = json.loads(descriptors_file.read_text())
    # The official gender_and_sex axis holds the descriptors "female" and "male".
    bucket = next(iter(descriptors["gender_and_sex"].values()))
    plain = [i for i, entry in enumerate(bucket) if isinstance(entry, str)]
    bucket[plain[0]], bucket[plain[1]] = "female", "male"
    descriptors_file.write_text(json.dumps(descriptors, indent=1))
    synthesise_honest(directory / "HONEST", clone.path / "src/biasflow/data/datasets/HONEST")
    return {metric: str(directory / metric) for metric in ("BOLD", "HolisticBias", "HONEST")}


def measure_official(clone: Clone) -> dict:
    """The README's official run; the data from local files, a cache of its own holding the converted weights."""
    clone.require(".venv/bin/snakemake", ".cache/biasflow/weights")
    work = clone.path / ".numbers-official"
    shutil.rmtree(work, ignore_errors=True)
    paths = official_files(work / "data", clone)
    shutil.copytree(clone.path / ".cache/biasflow/weights", work / "cache/weights")
    overlay = yaml.safe_load((clone.path / "config/official.yaml").read_text())
    overlay["cairo"]["datasets"] = {metric: {"path": path} for metric, path in paths.items()}
    overlay["cache_dir"] = str(work / "cache")
    (work / "official-local.yaml").write_text(yaml.safe_dump(overlay))
    shutil.rmtree(clone.path / "results", ignore_errors=True)
    seconds, _ = clone.run(f"{MAIN_JOB} --configfile config/config.yaml {work / 'official-local.yaml'}")
    original = sum(
        len(pd.read_parquet(path)) for path in (clone.path / "results/prompts/original").glob("*/gender.parquet")
    )
    config = clone.config()
    return {
        "seconds": seconds,
        "per_subgroup": overlay["cairo"]["prompts"]["per_subgroup"],
        "original_prompts": original,
        "paraphrase_seeds": len(config["cairo"]["paraphrase"]["seeds"]),
        "systems": len(config["models"]),
    }


def measure_plan(clone: Clone) -> dict:
    clone.require(".venv/bin/snakemake")
    command = "snakemake -n results/cairo/gender.csv --configfile config/paper.yaml"
    seconds, output = clone.run(command, env={"OPENAI_API_KEY": "sk-measuring-a-dry-run"})
    jobs = int(re.search(r"^total\s+(\d+)", output, re.MULTILINE).group(1))
    return {"seconds": seconds, "jobs": jobs}


def measure_weights(clone: Clone) -> dict:
    clone.require(".venv/bin/python")
    seconds, results = clone.benchmark("weights", "weights")
    return {"seconds": seconds, "results": results}


def measure_scoring(clone: Clone) -> dict:
    clone.require(".venv/bin/python")
    clone.run(".venv/bin/pip install -q -e '.[detoxify]'")
    seconds, results = clone.benchmark("scoring", "scoring")
    return {"seconds": seconds, "results": results}


def measure_scale(clone: Clone) -> dict:
    clone.require(".venv/bin/python")
    seconds, _ = clone.run(".venv/bin/python -m benchmarks.scale")
    return {"seconds": seconds, "rows": json.loads((clone.path / "benchmarks/out/scale.json").read_text())["rows"]}


def measure_selection(clone: Clone) -> dict:
    clone.require(".venv/bin/python")
    seconds, defaults = clone.benchmark("bench_selection", "selection")
    permuted, more = clone.benchmark("bench_selection", "selection-b1000", " --cases b --independent-permutations 1000")
    return {"seconds": seconds + permuted, "cases": defaults["cases"] + more["cases"]}


def measure_uncertainty(clone: Clone) -> dict:
    clone.require(".venv/bin/python")
    seconds, result = clone.benchmark("bench_uncertainty", "uncertainty")
    return {"seconds": seconds, "rows": result["rows"]}


def measure_calibration(clone: Clone) -> dict:
    """The calibration table at full size; its CSV is copied into this repository beside the README it fills."""
    clone.require(".venv/bin/python")
    seconds, result = clone.benchmark("calibration", "calibration")
    shutil.copyfile(clone.path / "benchmarks/calibration.csv", REPO / "benchmarks/calibration.csv")
    return {"seconds": seconds, "rows": result["rows"]}


def measure_vllm(clone: Clone) -> dict:
    clone.require(".venv/bin/python", ".cache/biasflow/weights")
    suite, _ = clone.run("make test-vllm")
    command = (
        ".venv/bin/python -m benchmarks.generation --backends transformers vllm "
        "--vllm-python .venv-vllm/bin/python --json"
    )
    seconds, output = clone.run(command)
    [line] = [line for line in output.splitlines() if line.startswith(JSON_MARK)]
    return {"suite_s": suite, "seconds": seconds, "results": json.loads(line[len(JSON_MARK) :])}


def measure_slurm(clone: Clone) -> dict:
    clone.require(".venv/bin/python")
    suite, _ = clone.run("make test-slurm")
    return {"suite_s": suite}


MEASURE = {name: globals()[f"measure_{name}"] for name in GROUPS}


def measure(groups: list[str], clone: Clone) -> dict:
    numbers = json.loads(NUMBERS.read_text()) if NUMBERS.exists() else {}
    for group in groups:
        watcher = OtherProcesses()
        watcher.start()
        start = time.perf_counter()
        started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        result = MEASURE[group](clone)
        wall = time.perf_counter() - start
        others = watcher.stop(wall)
        numbers[group] = {
            **result,
            "wall_s": wall,
            "when": started,
            "commit": clone.commit(),
            "machine": machine(),
            "fresh_clone": clone.new,
            "other_processes": others,
        }
        NUMBERS.write_text(json.dumps(numbers, indent=1, sort_keys=True) + "\n")
        print(f"[readme_numbers] {group}: recorded in {NUMBERS}", file=sys.stderr, flush=True)
    return numbers


# ---------------------------------------------------------------------------------------
# Writing them into the READMEs


def duration(seconds: float) -> str:
    """``58 s`` below two minutes, ``9 min 47 s`` above."""
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 120 else f"{seconds // 60} min {seconds % 60} s"


def about_minutes(seconds: float) -> str:
    return f"about {round(seconds / 60)} minutes"


def conditions(group: dict) -> str:
    """When, where and alongside what a group was measured."""
    others = group["other_processes"]
    cpu = group["machine"]
    load = (
        "nothing else running"
        if others["mean_cores"] < 0.1
        else f"other processes using {others['mean_cores']:.1f} of the cores on average "
        f"({', '.join(list(others['busiest'])[:3])})"
    )
    clone = f"a fresh clone of {group['commit']}" if group["fresh_clone"] else f"the same clone, at {group['commit']}"
    # The flags that decide how fast a model computes, where the record has them (earlier records do not).
    flags = f"; {', '.join(simd_flags(cpu['flags'])) or 'no AVX2'}" if "flags" in cpu else ""
    return (
        f"{group['when'][:10]}, {clone}, {cpu['cores']} cores "
        f"({cpu['cpu']}{flags}), {'a GPU' if cpu['gpu'] else 'no GPU'}, {load}"
    )


def accuracy_range(group: dict, classifier: str) -> str:
    low, high = group["accuracy"][classifier]["min"], group["accuracy"][classifier]["max"]
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}"


def _span(results: list[dict], key: str) -> tuple[float, float]:
    return min(r[key] for r in results), max(r[key] for r in results)


def _scale(numbers: dict, what: str) -> dict:
    """The measurement of one row of the scale benchmark (ours), by its label."""
    return next(r["ours"] for r in numbers["scale"]["rows"] if r["what"] == what)


def _break_even(results: list[dict]) -> float:
    """New tokens at which vLLM's longer start is paid back by its faster generation."""
    tf, vllm = (next(r for r in results if r["backend"] == name) for name in ("transformers", "vllm"))
    return (vllm["load_s"] - tf["load_s"]) / (1 / tf["tokens_per_s"] - 1 / vllm["tokens_per_s"])


def _rate(results: list[dict], key: str, **match) -> float:
    return next(r[key] for r in results if all(r[k] == v for k, v in match.items()))


def _gflops(value: float) -> str:
    """A rate in GFLOP/s: whole numbers from 10 on, one decimal below (an emulated bfloat16 peak)."""
    return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"


def _demo_fields(group: str) -> dict:
    """The values of one demo group: its times, and what ``dtype: auto`` picked on its CPU with the roofline."""

    def cpu(n: dict) -> dict:
        return n[group]["cpu"]

    return {
        "conditions": lambda n: conditions(n[group]),
        "total": lambda n: duration(n[group]["setup_s"] + n[group]["main_s"]),
        "setup": lambda n: duration(n[group]["setup_s"]),
        "main": lambda n: duration(n[group]["main_s"]),
        "rerun": lambda n: (
            duration(n[group]["rerun_s"])
            + (
                " and loaded no model"
                if n[group]["rerun_rows_computed"] == 0
                else f" and computed {n[group]['rerun_rows_computed']} rows"
            )
        ),
        "report": lambda n: duration(n[group]["report_s"]),
        "dtype": lambda n: f"{cpu(n)['dtype']}{_engine(cpu(n))} ({cpu(n)['why']})",
        "roofline": lambda n: (
            f"{_gflops(cpu(n)['peak_gflops']['float32'])} GFLOP/s in float32 and "
            f"{_gflops(cpu(n)['peak_gflops']['bfloat16'])} in bfloat16 at {cpu(n)['capability']}, "
            f"{cpu(n)['bandwidth_gbs']:.1f} GB/s; Gemma 3 270M at batch 32: "
            f"{cpu(n)['gemma_roofline'][_torch_dtype(cpu(n))]:,.0f} tokens/s in {_torch_dtype(cpu(n))}"
        ),
    }


def _engine(cpu: dict) -> str:
    """ " with CTranslate2" where a demo's CPU record names the engine ``dtype: auto`` computes with."""
    return f" with {cpu['engine']}" if "engine" in cpu else ""


def _torch_dtype(cpu: dict) -> str:
    """What transformers computes in with ``dtype: auto`` in a demo's CPU record (records before CTranslate2: its
    ``dtype``)."""
    return cpu.get("torch_dtype", cpu["dtype"])


# What a value or table of a group not in numbers.json yet reads (one added since the last full run).
NOT_MEASURED = "not measured yet"


def _measured(group: str, fields: dict) -> dict:
    """``fields`` of ``group``, each reading :data:`NOT_MEASURED` until ``measure --only <group>`` records it."""
    return {key: (lambda n, field=field: field(n) if group in n else NOT_MEASURED) for key, field in fields.items()}


def _engines_ratio(n: dict, name: str) -> str:
    """CTranslate2's tokens/s over transformers' for one model at batch 32, e.g. "5.02×"."""
    rate = {
        r["backend"]: r["tokens_per_s"] for r in n["engines"]["rows"] if r["name"] == name and r["batch_size"] == 32
    }
    return f"{rate['ctranslate2'] / rate['transformers']:.2f}×"


FIELDS = {
    "all.wall": lambda n: about_minutes(sum(group["wall_s"] for group in n.values())),
    **{f"{g}.{key}": field for g in ("demo", "demo_avx2") for key, field in _demo_fields(g).items()},
    "fairpair.setup": lambda n: (
        f"{n['fairpair']['occupations']} occupations, {n['fairpair']['samples']} samples "
        f"per side, {n['fairpair']['max_new_tokens']} new tokens, "
        f"{n['fairpair']['systems']} systems"
    ),
    "fairpair.seconds": lambda n: duration(n["fairpair"]["seconds"]),
    "fairpair.conditions": lambda n: conditions(n["fairpair"]),
    "fpr.setup": lambda n: f"{n['fpr']['probes']} probe sets",
    "fpr.runs": lambda n: f"{n['fpr']['runs']} runs each",
    "fpr.seconds": lambda n: duration(n["fpr"]["seconds"]),
    "fpr.zero_shot": lambda n: f"{n['fpr']['accuracy']['zero_shot']['mean']:.2f}",
    "fpr.soft_prompt": lambda n: accuracy_range(n["fpr"], "soft_prompt"),
    "fpr.conditions": lambda n: conditions(n["fpr"]),
    "official.setup": lambda n: (
        f"{n['official']['original_prompts']} original prompts, "
        f"{n['official']['paraphrase_seeds']} paraphrase seeds, "
        f"{n['official']['systems']} systems"
    ),
    "official.seconds": lambda n: duration(n["official"]["seconds"]),
    "official.conditions": lambda n: conditions(n["official"]),
    "plan.seconds": lambda n: f"{n['plan']['seconds']:.0f} s",
    "plan.jobs": lambda n: f"{n['plan']['jobs']} jobs",
    "vllm.suite": lambda n: about_minutes(n["vllm"]["suite_s"]),
    "slurm.suite": lambda n: duration(n["slurm"]["suite_s"]),
    "slurm.conditions": lambda n: conditions(n["slurm"]),
    "weights.convert": lambda n: "{:.0f}–{:.0f} s".format(*_span(n["weights"]["results"], "convert_s")),
    "weights.load": lambda n: "{:.1f}–{:.1f} s".format(*_span(n["weights"]["results"], "load_s")),
    "scoring.conditions": lambda n: conditions(n["scoring"]),
    "scale.conditions": lambda n: conditions(n["scale"]),
    "selection.conditions": lambda n: conditions(n["selection"]),
    "vllm.conditions": lambda n: conditions(n["vllm"]),
    "vllm.ratio": lambda n: "{:.2f}×".format(
        _rate(n["vllm"]["results"], "tokens_per_s", backend="vllm")
        / _rate(n["vllm"]["results"], "tokens_per_s", backend="transformers")
    ),
    "vllm.start": lambda n: duration(_rate(n["vllm"]["results"], "load_s", backend="vllm")),
    "scoring.detoxify_cpu_hours": lambda n: "about {:,.0f} hours".format(
        PAPER_CONTINUATIONS / _rate(n["scoring"]["results"], "texts_per_s", scorer="detoxify-unbiased") / 3600
    ),
    "vllm.break_even": lambda n: "{:,.0f}".format(round(_break_even(n["vllm"]["results"]), -3)),
    "cpu.paper_hours": lambda n: "about {:,.0f} hours of generation and {:,.0f} of scoring".format(
        projection_hours(_rate(n["vllm"]["results"], "tokens_per_s", backend="transformers"), 25),
        PAPER_CONTINUATIONS / _rate(n["scoring"]["results"], "texts_per_s", scorer="detoxify-unbiased") / 3600,
    ),
    "scale.hb_all": lambda n: f"{_scale(n, 'all 13 axes, one process')['seconds']:.1f} s",
    "scale.hb_all_peak": lambda n: f"{_scale(n, 'all 13 axes, one process')['peak_mib']:.0f} MiB",
    "scale.body_type_peak": lambda n: f"{_scale(n, 'body_type')['peak_mib']:.0f} MiB",
    "scale.workflow_axes": lambda n: "{:.1f} s".format(
        max(r["ours"]["seconds"] for r in n["scale"]["rows"] if r.get("workflow_axis"))
    ),
    "scale.load_all": lambda n: "{:.1f}–{:.1f} s".format(
        *sorted(_scale(n, f"ShardCache.load, all keys, shards of {size}")["seconds"] for size in ("256", "4,096"))
    ),
    "scale.load_ratio": lambda n: "{:.1f}".format(
        max(
            _scale(n, f"ShardCache.load, all keys, shards of {size}")["seconds"]
            / _scale(n, "baseline: pd.read_parquet, one file")["seconds"]
            for size in ("256", "4,096")
        )
    ),
    "scale.load_1pct": lambda n: f"{_scale(n, 'ShardCache.load, 1% of keys, shards of 256')['seconds']:.2f} s",
    "scale.load_off": lambda n: (
        f"{_scale(n, 'ShardCache.load, all keys, shards of 256, compaction off')['seconds']:.1f} s"
    ),
    "scale.write_256": lambda n: f"{_scale(n, 'write 1,000,000 rows, shards of 256')['seconds']:.1f} s",
    "scale.write_off": lambda n: f"{_scale(n, 'write 1,000,000 rows, shards of 256, compaction off')['seconds']:.1f} s",
    "weights.conditions": lambda n: conditions(n["weights"]),
    "selection.speedup_a": lambda n: "{:,.0f}".format(round(n["selection"]["cases"][0]["speedup"], -3)),
    "uncertainty.conditions": lambda n: conditions(n["uncertainty"]),
    "calibration.conditions": lambda n: conditions(n["calibration"]),
    "calibration.seconds": lambda n: duration(n["calibration"]["seconds"]),
    "calibration.scenarios": lambda n: str(len(n["calibration"]["rows"])),
    "counterfactual.conditions": lambda n: conditions(n["counterfactual"]),
    "roofline.conditions": lambda n: conditions(n["roofline"]),
    "roofline.peak": lambda n: _roofline_peak(n["roofline"]),
    "roofline.gemma": lambda n: _bfloat16_ratio(n, "Gemma 3 270M"),
    "roofline.smollm": lambda n: _bfloat16_ratio(n, "SmolLM2-135M"),
    **_measured(
        "engines",
        {
            "engines.conditions": lambda n: conditions(n["engines"]),
            "engines.gemma": lambda n: _engines_ratio(n, "Gemma 3 270M"),
            "engines.smollm": lambda n: _engines_ratio(n, "SmolLM2-135M"),
        },
    ),
    **_measured(
        "demo_engines",
        {
            "demo_engines.conditions": lambda n: conditions(n["demo_engines"]),
            "demo_engines.float32": lambda n: duration(n["demo_engines"]["runs"]["float32"]["seconds"]),
            "demo_engines.int8": lambda n: duration(n["demo_engines"]["runs"]["int8"]["seconds"]),
            "demo_engines.ratio": lambda n: f"{100 * n['demo_engines']['ratio']:.0f}%",
        },
    ),
}


def _roofline_peak(roofline: dict) -> str:
    """The peaks measured, e.g. "184 GFLOP/s in float32, 430 in bfloat16, 36.6 GB/s"; a dtype this CPU
    emulates was not measured (benchmarks/roofline.py), and the words say so."""
    flops = roofline["peak"]["flops"]
    bfloat16 = (
        f"{flops['bfloat16'] / 1e9:,.0f} in bfloat16"
        if "bfloat16" in flops
        else f"bfloat16 not measured ({roofline['skipped']['why']})"
    )
    memory = roofline["peak"]["bandwidth"] / 1e9
    return f"{flops['float32'] / 1e9:,.0f} GFLOP/s in float32, {bfloat16}, {memory:,.1f} GB/s"


def _bfloat16_ratio(n: dict, name: str) -> str:
    """bfloat16's rate over float32's for one model, both by plain sampling, e.g. "2.31×"; "not measured" where
    this CPU emulates bfloat16 (benchmarks/roofline.py)."""
    rate = {
        r["dtype"]: r["tokens_per_s"]
        for r in n["roofline"]["rows"]
        if r["name"] == name and r["decoding"] == "sampling"
    }
    if "bfloat16" not in rate:
        return "not measured (bfloat16 is emulated on this CPU)"
    return f"{rate['bfloat16'] / rate['float32']:.2f}×"


def _table_generation(n: dict) -> str:
    from benchmarks.generation import markdown_table

    return markdown_table(n["vllm"]["results"])


def _table_scoring(n: dict) -> str:
    from benchmarks.scoring import markdown_table

    return markdown_table(n["scoring"]["results"])


def _table_scale(n: dict) -> str:
    from benchmarks.scale import markdown_table

    return markdown_table(n["scale"]["rows"])


def _table_selection(n: dict) -> str:
    from benchmarks.bench_selection import markdown_table

    return markdown_table(n["selection"]["cases"])


def _table_uncertainty(n: dict) -> str:
    from benchmarks.bench_uncertainty import markdown_table

    return markdown_table(n["uncertainty"]["rows"])


def _table_calibration(n: dict) -> str:
    from benchmarks.calibration import markdown_table

    return markdown_table(n["calibration"]["rows"])


def _table_counterfactual(n: dict) -> str:
    from benchmarks.counterfactual import markdown_tables

    return markdown_tables(n["counterfactual"])


def _table_weights(n: dict) -> str:
    from benchmarks.weights import markdown_table

    return markdown_table(n["weights"]["results"])


def _table_demo_profile(group: str):
    def table(n: dict) -> str:
        from benchmarks.demo_profile import markdown_table

        return markdown_table(n[group]["profile"])

    return table


def _table_roofline(n: dict) -> str:
    from benchmarks.roofline import markdown_table

    return markdown_table(n["roofline"])


def _table_demo_engines(n: dict) -> str:
    if "demo_engines" not in n:
        return f"*{NOT_MEASURED}: `.venv/bin/python -m benchmarks.readme_numbers measure --only demo_engines`*"
    from benchmarks.demo_engines import markdown_tables

    return markdown_tables(n["demo_engines"])


def _table_engines(n: dict) -> str:
    if "engines" not in n:
        return f"*{NOT_MEASURED}: `.venv/bin/python -m benchmarks.readme_numbers measure --only engines`*"
    from benchmarks.engines import markdown_tables

    return markdown_tables(n["engines"])


TABLES = {
    "generation": _table_generation,
    "roofline": _table_roofline,
    "engines": _table_engines,
    "demo_engines": _table_demo_engines,
    "demo_profile": _table_demo_profile("demo"),
    "demo_avx2_profile": _table_demo_profile("demo_avx2"),
    "scoring": _table_scoring,
    "scale": _table_scale,
    "selection": _table_selection,
    "uncertainty": _table_uncertainty,
    "calibration": _table_calibration,
    "counterfactual": _table_counterfactual,
    "weights": _table_weights,
}

VALUE = re.compile(r"<!-- n:([\w.]+) -->(.*?)<!-- /n -->", re.DOTALL)
TABLE = re.compile(r"<!-- table:([\w.]+) -->\n(.*?)<!-- /table -->", re.DOTALL)


def render_text(text: str, numbers: dict) -> str:
    """``text`` with every marked value and table written from ``numbers``."""

    def value(match: re.Match) -> str:
        key = match.group(1)
        if key not in FIELDS:
            raise SystemExit(f"readme_numbers: unknown value <!-- n:{key} -->; known: {', '.join(FIELDS)}")
        return f"<!-- n:{key} -->{FIELDS[key](numbers)}<!-- /n -->"

    def table(match: re.Match) -> str:
        key = match.group(1)
        if key not in TABLES:
            raise SystemExit(f"readme_numbers: unknown table <!-- table:{key} -->; known: {', '.join(TABLES)}")
        return f"<!-- table:{key} -->\n{TABLES[key](numbers)}\n<!-- /table -->"

    return TABLE.sub(table, VALUE.sub(value, text))


def render(check: bool) -> int:
    numbers = json.loads(NUMBERS.read_text())
    stale = []
    for name in DOCUMENTS:
        path = REPO / name
        text = path.read_text()
        rendered = render_text(text, numbers)
        if rendered != text:
            stale.append(name)
            if not check:
                path.write_text(rendered)
    if check and stale:
        print(
            f"readme_numbers: {', '.join(stale)} differ from benchmarks/numbers.json; run "
            "`.venv/bin/python -m benchmarks.readme_numbers render`.",
            file=sys.stderr,
        )
        return 1
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    measuring = commands.add_parser("measure", help="run the groups in a fresh clone; update numbers.json")
    measuring.add_argument("--only", nargs="+", choices=GROUPS, default=list(GROUPS), help="these groups, in order")
    measuring.add_argument(
        "--clone", type=Path, help="a clone where earlier groups ran, or where to make one (default: a new folder)"
    )
    rendering = commands.add_parser("render", help="write numbers.json into the READMEs")
    rendering.add_argument("--check", action="store_true", help="only report READMEs that differ")
    args = parser.parse_args(argv)
    if args.command == "render":
        return render(args.check)
    if args.clone and (args.clone / ".git").exists():
        clone = Clone(args.clone)
        clone.update()
    else:
        clone = Clone.fresh(args.clone)
    measure([g for g in GROUPS if g in args.only], clone)
    return render(check=False)


if __name__ == "__main__":
    sys.exit(main())
