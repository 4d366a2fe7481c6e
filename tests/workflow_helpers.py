"""Running the real workflow on tiny models from the tests."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def tiny_config(models: dict[str, Path], workdir: Path, own_files: bool = False) -> dict:
    """A small config on the bundled prompt sets and tiny local models.

    ``own_files`` copies the bundled files into ``workdir/data`` and points every file key at
    the copies (paths relative to the workdir, where Snakemake runs), so a test may edit them.
    """
    config = {
        "cache_dir": str(workdir / "cache"),
        "cairo": {
            "axes": {"gender": ["BOLD", "HolisticBias", "HONEST"]},
            "subgroups": "unified",
            "subgroup_map": {
                "gender": {
                    "BOLD": {"American_actresses": "female", "American_actors": "male"},
                    "HolisticBias": {"female": "female", "male": "male"},
                    "HONEST": {"female": "female", "male": "male"},
                }
            },
            # Random tiny models never keep identity terms; relax validation so paraphrase sets exist.
            "paraphrase": {
                "seeds": [0],
                "max_attempts": 2,
                "keep_identity_term": False,
                "min_ratio": 0.2,
                "max_ratio": 5.0,
            },
            "generation": {"seeds": [0, 1], "samples": 2},
            "scoring": {"scorer": "profanity"},
            "selection": {"max_sets": 3, "permutations": 50},
        },
        "paraphrasers": {
            "tinychat": {"model": str(models["tiny-chat"]), "chat": True, "decoding": {"max_new_tokens": 12}},
            "tinycomp": {"model": str(models["tiny-a"]), "decoding": {"max_new_tokens": 12}},
        },
        "models": {
            "a-t1.0": {"model": str(models["tiny-a"]), "threads": 1, "decoding": {"max_new_tokens": 6}},
            "a-t0.5": {
                "model": str(models["tiny-a"]),
                "threads": 1,
                "decoding": {"temperature": 0.5, "max_new_tokens": 6},
            },
            "b-t1.0": {"model": str(models["tiny-b"]), "threads": 1, "decoding": {"max_new_tokens": 6}},
        },
        "fairpair": {
            "occupations": ["doctor", "nurse", "engineer", "teacher"],
            "samples": 3,
            "decoding": {"max_new_tokens": 6},
            "models": ["a-t1.0", "b-t1.0"],
        },
        "fpr": {
            "probes": {
                f"{name}_race": {
                    "templates": f"bundled:probes/{name}.csv",
                    "terms": "bundled:probes/identity_terms.csv",
                    "attribute": "race",
                }
                for name in ("templates", "occupations")
            },
            "models": ["a-t1.0", "b-t1.0"],
            "classifiers": {"zero_shot": {"method": "zero_shot"}, "three_shot": {"method": "k_shot", "k": 3}},
            "runs": 2,
        },
    }
    if own_files:
        shutil.copytree(REPO / "src" / "biasflow" / "data", workdir / "data")
        (workdir / "data" / "occupations.txt").write_text("\n".join(config["fairpair"].pop("occupations")) + "\n")
        config["cairo"]["datasets"] = {m: {"path": f"data/datasets/{m}"} for m in ("BOLD", "HolisticBias", "HONEST")}
        config["cairo"]["paraphrase"]["templates"] = "data/paraphrase"
        config["fairpair"].update(occupations_file="data/occupations.txt")
        config["fairpair"]["perturbation"] = {
            "swaps": "data/fairpair/swaps.yaml",
            "template": "data/fairpair/llm_perturbation.txt",
        }
        config["fpr"].update(templates="data/classify", labelled="data/probes/sentiment_labelled.csv")
        for probe in config["fpr"]["probes"].values():
            probe.update({key: value.replace("bundled:", "data/") for key, value in probe.items()})
    return config


def finished_config(models: dict[str, Path], workdir: Path) -> dict:
    """The config of the finished tiny run (tests/conftest.py), whose tables golden/tiny_tables.json records.

    ``tiny_config`` with its own copies of the bundled files and a cache inside ``workdir``, every
    path relative to it, and every model in float32, not `auto` (bfloat16 on a CPU with AVX512-BF16,
    float32 on others), so a run writes the same continuations on every CPU and its tables can be
    held to the recorded ones (tests/golden_tables.py).
    """
    config = tiny_config(models, workdir, own_files=True)
    config["cache_dir"] = "cache"
    for entry in (*config["models"].values(), *config["paraphrasers"].values()):
        entry["dtype"] = "float32"
    return config


def embedded_config() -> dict:
    """config/config.yaml as written, each top-level section it leaves to the schema filled with the schema's
    default, and each key it leaves out of CAIRO's section (the file sets only what differs from them), so a test
    can change a key of any section."""
    from biasflow.schema import config_schema, default

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for key, node in config_schema()["properties"].items():
        if key not in config and "default" in node:
            config[key] = default(key)
    config["cairo"] = {**default("cairo"), **config["cairo"]}
    return config


def copy_checkout(root: Path) -> Path:
    """The repository's tracked and new files copied to ``root``, as a fresh clone has them (no caches, no venv)."""
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in files:
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    return root


def write_config(config: dict, workdir: Path) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def snakemake(
    workdir: Path, *args: str, check: bool = True, env: dict | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """Run the repository's Snakefile in ``workdir`` with ``workdir/config.yaml``.

    ``env`` adds environment variables; ``cwd`` is where the command starts (relative
    paths on its command line, such as a profile's, are read from there).
    """
    command = [
        *SNAKEMAKE,
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        "--cores",
        "2",
        *args,
    ]
    env = {**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})}
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
    if check and result.returncode != 0:
        raise AssertionError(
            f"snakemake failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
        )
    return result


def planned_jobs(workdir: Path, *targets: str) -> dict[str, int]:
    """Rule -> job count of a dry run (Snakemake's 'Job stats' table), forked from a process that has imported
    Snakemake (tests/forked_snakemake.py): a dry run is mostly that start."""
    from forked_snakemake import workflow

    out = workflow(workdir, "--dry-run", *targets)
    return job_stats(out.stdout + out.stderr)


def job_stats(text: str) -> dict[str, int]:
    """Rule -> job count from the 'Job stats' table in a Snakemake log ({} when nothing is to be done)."""
    if "Nothing to be done" in text:
        return {}
    table = text.split("Job stats:", 1)[1]
    counts = {}
    for line in table.splitlines()[3:]:
        match = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if not match:
            break
        counts[match.group(1)] = int(match.group(2))
    counts.pop("total", None)
    return counts
