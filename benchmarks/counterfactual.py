"""The cost of counterfactual rescoring on the demo's continuations, and projected for the official datasets.

Usage (from the repository root, after ``make demo``)::

    .venv/bin/python -m benchmarks.counterfactual --json benchmarks/out/counterfactual.json

For every continuation table of a finished run (``--results``, default ``results``) it makes
the variants the workflow's counterfactual step makes (the bundled identity lexicon, every
other subgroup of the table and the neutral placeholder, docs/methods.md §5.5) and scores the
continuations, then the variants, with ``profanity``, without the cache. The baseline is
the run without counterfactual rescoring, side by side on the same texts: the multiplier is
texts scored with it over texts scored without, and the time ratio the same for seconds.

The projection for the official datasets (``config/paper.yaml``: its axes, metrics and unified subgroups) is 1 + s × G
(G − 1 other subgroups and the neutral placeholder) per metric and axis, with G the axis's subgroups and s the share of
continuations that name their own subgroup, measured here per metric on the demo's gender axis and assumed alike on the
other axes (the demo has no religion or race run): an assumption, marked as such in the table.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd
import yaml

from biasflow import bundled
from biasflow.cairo.scorer_runs import scoring_settings
from biasflow.scorers.counterfactual import cost_multiplier, variant_table
from biasflow.scorers.identity_lexicon import UNSWAPPABLE, IdentityLexicon
from biasflow.scorers.table import score_table

REPO = Path(__file__).resolve().parents[1]


def measure(results: Path) -> list[dict]:
    """One row per continuation table: texts, mentioning texts, variants, and the two scoring times."""
    lexicon = IdentityLexicon.from_file(bundled.package_path("identity/lexicon.yaml"))
    settings = scoring_settings(scorer="profanity")
    paths = sorted((results / "continuations").glob("*/*/*.parquet"))
    if not paths:
        raise SystemExit(f"no continuation tables under {results}/continuations: run `make demo` first.")
    score_table(pd.read_parquet(paths[0]).head(1), settings, None)  # the scorer's one-off import, timed in neither
    rows = []
    for path in paths:
        model, metric, axis = path.parent.parent.name, path.parent.name, path.stem
        table = pd.read_parquet(path)
        axis_lexicon = lexicon.axis(axis)
        groups = sorted(set(table["subgroup"]) & set(axis_lexicon.subgroups))
        start = time.perf_counter()
        score_table(table, settings, None)
        raw_s = time.perf_counter() - start
        start = time.perf_counter()
        variants = variant_table(table, settings, axis_lexicon, groups, None)
        variants_s = time.perf_counter() - start
        mentioning = len(variants.drop_duplicates(["prompt_id", "seed", "sample"]))
        scored = int((variants["variant"] != UNSWAPPABLE).sum())  # an unswappable continuation is not rescored
        rows.append(
            {
                "model": model,
                "metric": metric,
                "axis": axis,
                "subgroups": len(groups),
                "texts": len(table),
                "mentioning": mentioning,
                "variants": scored,
                "raw_s": raw_s,
                "variants_s": variants_s,
                "multiplier": cost_multiplier(len(table), scored),
            }
        )
    return rows


def projection(rows: list[dict], paper: dict) -> list[dict]:
    """The multiplier per axis and metric of the paper's config, from the demo's share per metric."""
    measured = pd.DataFrame(rows)
    share = (measured.groupby("metric")["mentioning"].sum() / measured.groupby("metric")["texts"].sum()).to_dict()
    out = []
    section = paper["cairo"]
    for axis, metrics in section["axes"].items():
        groups = len({label for mapping in section["subgroup_map"][axis].values() for label in mapping.values()})
        for metric in metrics:
            if metric in share:
                out.append(
                    {
                        "axis": axis,
                        "metric": metric,
                        "subgroups": groups,
                        "share": share[metric],
                        "multiplier": 1 + share[metric] * groups,
                        "assumed": axis != "gender",
                    }
                )
    return out


def markdown_tables(result: dict) -> str:
    measured = pd.DataFrame(result["measured"])
    per_metric = measured.groupby("metric")[["texts", "mentioning", "variants", "raw_s", "variants_s"]].sum()
    lines = [
        "| metric (demo, gender) | continuations | name their subgroup | variants | texts scored | seconds |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for metric, row in per_metric.iterrows():
        lines.append(
            f"| {metric} | {int(row.texts):,} | {int(row.mentioning):,} ({row.mentioning / row.texts:.0%}) | "
            f"{int(row.variants):,} | ×{cost_multiplier(row.texts, row.variants):.2f} | "
            f"×{(row.raw_s + row.variants_s) / row.raw_s:.2f} |"
        )
    total = per_metric.sum()
    lines.append(
        f"| all | {int(total.texts):,} | {int(total.mentioning):,} ({total.mentioning / total.texts:.0%}) | "
        f"{int(total.variants):,} | ×{cost_multiplier(total.texts, total.variants):.2f} | "
        f"×{(total.raw_s + total.variants_s) / total.raw_s:.2f} |"
    )
    lines += [
        "",
        "| official run (config/paper.yaml) | subgroups | share naming their subgroup | texts scored |",
        "|---|---:|---:|---:|",
    ]
    for row in result["projection"]:
        note = " (share assumed from gender)" if row["assumed"] else ""
        lines.append(
            f"| {row['axis']} · {row['metric']} | {row['subgroups']} | {row['share']:.0%}{note} | "
            f"×{row['multiplier']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"), help="a finished run's results folder")
    parser.add_argument("--json", type=Path, help="write the measurements here")
    args = parser.parse_args(argv)
    measured = measure(args.results)
    result = {
        "measured": measured,
        "projection": projection(measured, yaml.safe_load((REPO / "config/paper.yaml").read_text())),
    }
    print(markdown_tables(result))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
