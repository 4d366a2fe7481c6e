"""The ``biasflow`` command: the workflow's steps on files a user brings.

Each subcommand calls the same library function as the corresponding Snakemake rule. A
:class:`BiasflowError` prints one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from biasflow import __version__
from biasflow.errors import BiasflowError

SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="biasflow", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"biasflow {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("check-config", help="validate a workflow config without running anything")
    check.add_argument("config", help="YAML config file")

    prompts = commands.add_parser("prompts", help="build the prompt table of one metric and axis")
    prompts.add_argument("--metric", required=True, help="BOLD, HolisticBias or HONEST")
    prompts.add_argument("--axis", required=True, help="gender, religion or race")
    prompts.add_argument("--data", required=True, help="folder with the metric's official files")
    prompts.add_argument("--valid-fraction", type=float, default=0.2)
    prompts.add_argument("--out", required=True, help="output table (.parquet, .csv or .tsv)")

    stats = commands.add_parser("cairo-stats", help="sufficient statistics and Eq. 1 bias from scored continuations")
    stats.add_argument("--continuations", nargs="+", required=True, help="continuation tables")
    stats.add_argument("--scores", nargs="+", required=True, help="score tables")
    stats.add_argument("--scorer", required=True, help="which scorer's scores to use")
    stats.add_argument("--normalise", choices=["none", "mean"], default="none")
    stats.add_argument("--out-dir", required=True)

    select = commands.add_parser(
        "cairo-select", help="CAIRO selection on a statistics table (the workflow's cairo_select step)"
    )
    select.add_argument("--stats", nargs="+", required=True, help="CAIRO statistics table(s), one or several axes")
    select.add_argument("--out-dir", required=True)
    select.add_argument("--mode", choices=["shared", "independent"], default="shared")
    select.add_argument("--combinations", choices=["subsets", "multisets"], default="multisets")
    select.add_argument("--max-sets", type=int, default=4, help="largest combination size K")
    select.add_argument("--permutations", type=int, default=1000, help="B for the permutation p-value (0: off)")
    select.add_argument("--seed", type=int, default=0)
    select.add_argument("--normalise", choices=["none", "mean"], default="none")

    fair = commands.add_parser("fairpair-score", help="FairPair B, V and F of a continuation table you bring")
    fair.add_argument("--continuations", required=True, help="table with prompt_id, side, sample, text")
    fair.add_argument("--out", required=True, help="output table (.csv, .tsv or .parquet)")
    fair.add_argument("--folds", type=int, default=None, help="k-fold variant: compute over k folds of the samples")

    gaps = commands.add_parser("fpr-gaps", help="group FPR gaps with CIs from prediction TSVs you bring")
    gaps.add_argument("--predictions", nargs="+", required=True,
                      help="TSVs with y_true, y_pred, category, group, text, run_id (model: a column or the file name)")
    gaps.add_argument("--out", required=True, help="gap table (.csv or .tsv)")
    gaps.add_argument("--interval", choices=["z", "t"], default="z", help="z: 1.96 (the reference); t: Student t")
    gaps.add_argument("--accuracy-floor", type=float, default=0.4, help="flag runs below this accuracy")

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    try:
        _dispatch(args)
    except BiasflowError as exc:
        print(f"biasflow: {exc}", file=sys.stderr)
        return 2
    return 0


def _dispatch(args) -> None:
    from biasflow import pipeline

    if args.command == "check-config":
        from biasflow.config import load_config

        load_config(args.config, SCHEMA)
        print(f"{args.config}: ok")
    elif args.command == "prompts":
        loader = {"valid_fraction": args.valid_fraction, "subgroup_map": None, "options": {}}
        pipeline.original_prompts(args.data, args.metric, args.axis, loader, args.out)
    elif args.command == "cairo-stats":
        out = Path(args.out_dir)
        pipeline.cairo_stats(
            args.continuations, args.scores, args.scorer, args.normalise, "as given",
            str(out / "stats.parquet"), str(out / "bias.csv"), str(out / "bias.png"),
        )
    elif args.command == "cairo-select":
        settings = {
            "mode": args.mode, "combinations": args.combinations, "max_sets": args.max_sets,
            "permutations": args.permutations, "seed": args.seed, "normalise": args.normalise,
        }
        pipeline.select_to_directory(args.stats, settings, args.out_dir)
    elif args.command == "fpr-gaps":
        from biasflow.fpr_steps import gaps

        gaps(args.predictions, args.interval, 1.96, args.accuracy_floor, args.out)
    elif args.command == "fairpair-score":
        from biasflow.fairpair_steps import score_file

        score_file(args.continuations, args.out, args.folds)


if __name__ == "__main__":
    sys.exit(main())
