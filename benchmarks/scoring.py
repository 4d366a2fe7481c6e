"""Texts scored per second per scorer and device, side by side on the same continuations.

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.scoring                                   # every scorer on the CPU
    python -m benchmarks.scoring --scorers detoxify-unbiased --devices cuda cpu   # Detoxify, GPU and CPU

The texts are the same for every scorer: ``--texts`` sentences of 25 words drawn (seeded)
from the test corpus's words. Detoxify runs a checkpoint of RoBERTa-base's shape with
random weights (what ``unbiased`` is; benchmarks/models.py), so its speed is the real
one's; ``honest`` runs a generated lexicon of the English HurtLex's size (3,360
conservative lemmas) unless ``--lexicon`` names the real file. The first batch is a
warm-up; the score cache is not used. The projection: hours one scorer at this rate
needs for the paper's gender run, 44.8 million continuations.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from benchmarks.generation import PAPER_CONTINUATIONS
from benchmarks.models import CORPUS, roberta_base_detoxify

SCORERS = ("profanity", "vader", "honest", "detoxify-unbiased")


def texts(n: int, words: int = 25, seed: int = 0) -> list[str]:
    vocabulary = sorted({w for line in CORPUS for w in line.split()})
    rng = random.Random(seed)
    return [" ".join(rng.choices(vocabulary, k=words)) for _ in range(n)]


def synthetic_lexicon(path: Path, lemmas: int = 3360) -> Path:
    """A HurtLex-format TSV with ``lemmas`` conservative lemmas that never occur in the texts."""
    rows = ["id\tpos\tcategory\tstereotype\tlemma\tlevel"]
    rows += [f"EN{i}\tn\tcds\tno\thurtful{i}\tconservative" for i in range(lemmas)]
    path.write_text("\n".join(rows) + "\n")
    return path


def scorer_options(name: str, device: str, workdir: Path, lexicon: str | None) -> dict:
    if name == "honest":
        return {"lexicon": lexicon or synthetic_lexicon(workdir / "hurtlex.tsv")}
    if name == "detoxify-unbiased":
        checkpoint, config = roberta_base_detoxify(workdir / "roberta-base-detoxify")
        return {"device": device, "checkpoint": checkpoint, "huggingface_config": config}
    return {}


def measure(name: str, device: str, batch: list[str], workdir: Path, lexicon: str | None) -> dict:
    from biasflow.scorers import get_scorer

    scorer = get_scorer(name, **scorer_options(name, device, workdir, lexicon))
    scorer.score(batch[: scorer.batch_size])  # warm-up: loads the model
    start = time.perf_counter()
    scorer.score(batch)
    seconds = time.perf_counter() - start
    return {
        "scorer": name,
        "device": device,
        "texts": len(batch),
        "batch_size": scorer.batch_size,
        "seconds": seconds,
        "texts_per_s": len(batch) / seconds,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scorers", nargs="+", default=list(SCORERS), choices=SCORERS)
    parser.add_argument("--devices", nargs="+", default=["cpu"], help="for detoxify-unbiased: cpu and/or cuda")
    parser.add_argument("--texts", type=int, default=2048)
    parser.add_argument("--detoxify-cpu-texts", type=int, default=256, help="fewer texts for Detoxify on a CPU")
    parser.add_argument("--lexicon", help="the real HurtLex TSV for honest (default: a generated one of its size)")
    parser.add_argument("--json", help="also write the measurements to this JSON file")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.gettempdir()) / "biasflow-bench-scoring"
    workdir.mkdir(exist_ok=True)
    results = []
    for name in args.scorers:
        for device in args.devices if name == "detoxify-unbiased" else ["cpu"]:
            n = args.detoxify_cpu_texts if (name, device) == ("detoxify-unbiased", "cpu") else args.texts
            results.append(measure(name, device, texts(n), workdir, args.lexicon))
    print(markdown_table(results))
    print(f"25-word texts; paper h: hours for the paper's gender run ({PAPER_CONTINUATIONS:,} continuations)")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2))


def markdown_table(results: list[dict]) -> str:
    """The measurements as benchmarks/README.md shows them."""
    lines = [
        "| scorer | device | texts | batch | seconds | texts/s | paper gender run, h |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        hours = PAPER_CONTINUATIONS / r["texts_per_s"] / 3600
        lines.append(
            f"| {r['scorer']} | {r['device']} | {r['texts']:,} | {r['batch_size']:,} | {r['seconds']:.2f} "
            f"| {r['texts_per_s']:,.1f} | {hours:,.1f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
