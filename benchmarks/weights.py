"""The one-time GGUF conversion of each of the default's models against the loads after it.

Usage (from the repository root)::

    .venv/bin/python -m benchmarks.weights --json benchmarks/out/weights.json

For every GGUF model the embedded default names (``config/config.yaml``, models and
paraphrasers), in a cache of its own: seconds to convert it into a transformers directory
(``materialise``; README, "Models"), then seconds to load that directory, the work of
every later job. The ratio is what the cache saves each job that loads the model.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def default_gguf_models(config_path: Path) -> list[str]:
    config = yaml.safe_load(config_path.read_text())
    entries = [*config["models"].values(), *config.get("paraphrasers", {}).values()]
    return sorted({entry["model"] for entry in entries if entry["model"].endswith(".gguf")})


def measure(spec: str) -> dict:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from biasflow.models.sources import materialise, resolve_source

    with tempfile.TemporaryDirectory(prefix="biasflow-bench-weights-") as cache:
        start = time.perf_counter()
        converted = materialise(resolve_source(spec, cache), cache)
        convert = time.perf_counter() - start
        start = time.perf_counter()
        AutoTokenizer.from_pretrained(converted.location)
        AutoModelForCausalLM.from_pretrained(converted.location)
        load = time.perf_counter() - start
    return {"model": spec, "convert_s": convert, "load_s": load}


def markdown_table(results: list[dict]) -> str:
    lines = ["| model | conversion s | later load s | ratio |", "|---|---:|---:|---:|"]
    lines += [
        f"| `{r['model']}` | {r['convert_s']:.1f} | {r['load_s']:.2f} | {r['convert_s'] / r['load_s']:.0f} |"
        for r in results
    ]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=REPO / "config" / "config.yaml")
    parser.add_argument("--json", help="also write the measurements to this JSON file")
    args = parser.parse_args(argv)
    results = [measure(spec) for spec in default_gguf_models(args.config)]
    print(markdown_table(results))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
