"""The ``biasflow`` command: the workflow's steps on files a user brings.

Each subcommand calls the same library function as the corresponding Snakemake rule. The
shared core's commands are defined here; each method package adds its own through the
``biasflow.commands`` entry point group (``pyproject.toml``), so this module knows no
method. A :class:`BiasflowError` prints one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import logging
import sys
from importlib.metadata import entry_points

from biasflow import __version__
from biasflow.errors import BiasflowError

COMMAND_GROUP = "biasflow.commands"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="biasflow", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"biasflow {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    _register_core(commands)
    for entry in sorted(entry_points(group=COMMAND_GROUP), key=lambda e: e.name):
        entry.load()(commands)

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    try:
        args.run(args)
    except BiasflowError as exc:
        print(f"biasflow: {exc}", file=sys.stderr)
        return 2
    return 0


def _register_core(commands) -> None:
    check = commands.add_parser("check-config", help="validate a workflow config without running anything")
    check.add_argument("config", help="YAML config file")
    check.set_defaults(run=_check_config)

    prompts = commands.add_parser("prompts", help="build the prompt table of one metric and axis")
    prompts.add_argument("--metric", required=True, help="BOLD, HolisticBias or HONEST")
    prompts.add_argument("--axis", required=True, help="gender, religion or race")
    prompts.add_argument("--data", required=True, help="folder with the metric's official files")
    prompts.add_argument("--valid-fraction", type=float, default=0.2)
    prompts.add_argument("--out", required=True, help="output table (.parquet, .csv or .tsv)")
    prompts.set_defaults(run=_prompts)


def _check_config(args) -> None:
    from biasflow.config import load_config

    load_config(args.config)
    print(f"{args.config}: ok")


def _prompts(args) -> None:
    from biasflow.datasets import write_prompts

    loader = {"valid_fraction": args.valid_fraction, "subgroup_map": None, "options": {}}
    write_prompts(data_dir=args.data, metric=args.metric, axis=args.axis, loader=loader, out=args.out)


if __name__ == "__main__":
    sys.exit(main())
