"""The ``biasflow`` command: the workflow's steps on files a user brings.

Each subcommand calls the same library function as the corresponding Snakemake rule. The
shared core's commands are defined here; each method package adds its own through its
declaration (:mod:`biasflow.methods`), so this module knows no method. A
:class:`BiasflowError` prints one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys

from biasflow import __version__
from biasflow.compare_pairs import margin as margin_of
from biasflow.errors import BiasflowError
from biasflow.flags import config_flag, method_flag, resolve
from biasflow.methods import method, methods
from biasflow.model_pairs import PairChoice, add_pair_flags
from biasflow.schema import check_flags, default, flag
from biasflow.settings import flag_name
from biasflow.verdicts import FAIL_ON, FORMATS


class ExampleFormatter(argparse.HelpFormatter):
    """Wraps the prose of a help text and keeps indented paragraphs (worked examples) as written."""

    def _fill_text(self, text, width, indent):
        fill = super()._fill_text
        return "\n\n".join(
            paragraph if paragraph.startswith("  ") else fill(paragraph, width, indent)
            for paragraph in text.split("\n\n")
        )


def example(command: str, after: str = "") -> dict:
    """Keywords for ``add_parser`` that end a command's ``--help`` with a worked example.

    Every example is run as written by tests/workflow/test_documented_commands.py.
    """
    return {
        "epilog": f"Example:\n\n  {command}" + (f"\n\n{after}" if after else ""),
        "formatter_class": ExampleFormatter,
    }


def build_parser() -> argparse.ArgumentParser:
    """The ``biasflow`` parser: the core's subcommands and every method package's."""
    parser = argparse.ArgumentParser(
        prog="biasflow",
        description=__doc__.splitlines()[0],
        **example("biasflow check-config my.yaml", after="Every command's --help ends with an example of its own."),
    )
    parser.add_argument("--version", action="version", version=f"biasflow {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    _register_core(commands)
    for declared in methods():
        declared.part("commands")(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    try:
        subcommands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        command = subcommands.choices[args.command]
        resolve(command, args)  # flag given > --config > schema default
        check_flags(command, args)
        status = args.run(args)  # a gate's 1 (compare --fail-on); None for done
    except BiasflowError as exc:
        print(f"biasflow: {exc}", file=sys.stderr)
        return 2
    return status or 0


def listed(names, conjunction: str = "and") -> str:
    """``a, b and c`` (or ``a, b or c``): names for a help text, read from their one home."""
    names = list(names)
    return ", ".join(names[:-1]) + f" {conjunction} {names[-1]}" if len(names) > 1 else "".join(names)


def one_of(names) -> str:
    """``a, b or c``: the names a flag takes."""
    return listed(names, "or")


def scorer_help() -> str:
    """The ``--scorer`` help: the registered scorers (imported here: pandas comes with them)."""
    from biasflow.scorers import SCORERS

    return one_of(SCORERS)


def _register_core(commands) -> None:
    check = commands.add_parser(
        "check-config",
        help="validate a workflow config without running anything",
        description="Check a workflow config as `snakemake` does before any job runs: the schema, every name, "
        "every path, the dataset folders, the models and the API keys; prints one line naming the first problem "
        "and its fix. Several files are merged as `snakemake --configfile` merges them, later ones winning. A "
        "workflow config is whole: it names its models (the other commands' --config takes any part of one).",
        **example("biasflow check-config config/config.yaml config/official.yaml"),
    )
    check.add_argument("config", nargs="+", help="YAML config file(s), in --configfile order")
    check.set_defaults(run=_check_config)

    power = commands.add_parser(
        "power",
        help="how large a difference a pilot's sizes can show, and the sizes a difference needs",
        description="From a pilot run's files, per subgroup the smallest difference detectable at the given power "
        "and significance level with the sizes at hand, and the sentences, continuations, prompts or models a "
        "study needs to detect --target (docs/methods.md section 6), as the workflow's results/power/<method>.csv. "
        "--pilot takes what the method's workflow step reads: CAIRO statistics (results/cairo/stats/<axis>.parquet), "
        "FPR predictions TSVs (one probe set per file) or FairPair per-prompt scores (results/fairpair/<model>.csv, "
        "the file name being the model). Per pair of models, the rows measured as a 'non-inferiority margin' plan "
        "biasflow compare's release gate (section 6.8): the units at which a candidate truly equal to the baseline "
        "is shown not worse at the margin --target, from the interval compare reads on the pilot (--measure, "
        "--bootstrap, --null-draws and --seed set its draws as they set compare's).",
        **example("biasflow power --method fpr --pilot predictions.tsv --target 0.05 --out power.csv"),
    )
    power.add_argument("--method", required=True, choices=_method_names(), help="the method whose files --pilot are")
    power.add_argument(
        "--pilot", nargs="+", required=True, help="the pilot's files, each a source named by its file stem"
    )
    power.add_argument("--out", required=True, help="power table (.csv, .tsv or .parquet)")
    _planner_flags(power)
    flag(power, "--alpha", "power.alpha")
    flag(power, "--power", "power.power")
    add_pair_flags(power, none="no paired rows in the table")
    config_flag(power)
    power.set_defaults(run=_power)

    compare = commands.add_parser(
        "compare",
        help="did the candidate get worse than the baseline? paired verdicts against a margin, a CI gate",
        description="The two models answered the same prompts, so their difference is far more precise than either "
        "number. Per measure (CAIRO: axis and metric; FairPair: dissimilarity; FPR: attribute and class's gap span) "
        "the candidate's bias less the baseline's with a paired 90% interval, read as a verdict against the margin: "
        "better, equivalent, not worse, worse by more than the margin, worse, or inconclusive (docs/methods.md "
        "section 7). The overall verdict comes first; --fail-on turns it into the exit status (0 pass, 1 the gate "
        "fails, 2 bad input); --out gets the rows.",
        **example(
            "biasflow compare --method cairo --stats stats.parquet --baseline model00 --candidate model01 "
            "--margin 0.01 --fail-on not-noninferior --out compared.csv"
        ),
    )
    compare.add_argument("--method", required=True, choices=_method_names(), help="the method whose files are given")
    for declared in methods():
        flag_name, files = declared.compare_input
        compare.add_argument(f"--{flag_name}", nargs="+", help=f"{declared.name}: {files}")
    compare.add_argument("--baseline", required=True, help="the model compared against (say, before your change)")
    compare.add_argument("--candidate", required=True, help="the model you want to know about (say, after it)")
    compare.add_argument("--out", help="the judged rows, one per measure (.csv, .tsv or .parquet)")
    margins = ", ".join(f"{m} {value}" for m, value in default("power.min_effect").items())
    compare.add_argument(
        "--margin",
        type=float,
        help="the largest rise of the candidate's bias over the baseline's "
        f"that does not matter, in the method's unit (default: power.min_effect.<method>: {margins})",
    )
    compare.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        help="worse: exit 1 when a measure is worse after Holm's correction; not-noninferior: exit 1 "
        "unless every measure is better, equivalent or not worse (the intersection-union rule); "
        "never, or no --fail-on: exit 0 whatever the verdicts",
    )
    compare.add_argument(
        "--format",
        choices=FORMATS,
        help="the summary printed: text lines (without --format), a markdown table for a pull request, or JSON",
    )
    _compare_flags(compare)
    compare.set_defaults(run=_compare)


def _method_names() -> list[str]:
    """The registered methods' names (each has a power planner and a paired comparison)."""
    return [declared.name for declared in methods()]


# The planner settings whose flags are not named after them, and what --target is.
PLANNER_FLAGS = {"min_effect": "--target", "min_r": "--target-r"}
TARGET = "the difference worth detecting, in the method's unit"


def _planner_flags(power) -> None:
    """A flag for each setting of a method's planner that the planners do not all share (``--alpha``, ``--power`` and
    the pairs they do): it sets the key of the method ``--method`` names, and another method refuses it."""
    from biasflow.power import PowerSettings, planner

    shared = {field.name for field in dataclasses.fields(PowerSettings)} - {"min_effect"}
    keys: dict[str, dict[str, str]] = {}
    for name in _method_names():
        settings = planner(name).Settings
        for field in dataclasses.fields(settings):
            if field.name not in shared:
                keys.setdefault(field.name, {})[name] = settings.key(field.name)
    for setting, by_method in keys.items():
        method_flag(
            power,
            PLANNER_FLAGS.get(setting, flag_name(setting)),
            by_method,
            TARGET if setting == "min_effect" else "",
        )


def _compare_flags(compare) -> None:
    """The settings each method's comparison reads (the fields of its declaration's ``compare_settings`` class) as
    flags, one per field name: ``--seed`` sets CAIRO's seed key for CAIRO, FairPair's for FairPair, each help the
    class's ``what``; then ``--config``."""
    keys: dict[str, dict[str, str]] = {}
    words: dict[str, dict[str, str]] = {}
    for declared in methods():
        if declared.compare_settings is None:
            continue
        settings = declared.part("compare_settings")
        for field in dataclasses.fields(settings):
            keys.setdefault(field.name, {})[declared.name] = settings.key(field.name)
            words.setdefault(field.name, {})[declared.name] = settings.what[field.name]
    for name in keys:
        method_flag(compare, flag_name(name), keys[name], words[name])
    config_flag(compare, also="power.min_effect.<method> (the margin's default)")


def _compare(args) -> int:
    from biasflow.tables import check_not_inputs, check_output_path, write_table

    declared = method(args.method)
    module = declared.part("compare")
    flag_name = declared.compare_input[0]
    inputs = getattr(args, flag_name)
    if not inputs:
        raise BiasflowError(f"--method {args.method} compares models on --{flag_name}: give its file(s).")
    if args.out:
        check_output_path(args.out, "--out")
        check_not_inputs({"--out": args.out}, {f"--{flag_name}": inputs})
    margin, source = margin_of(args.settings, args.method, args.margin)
    verdicts = module.command(inputs, args.baseline, args.candidate, args.settings, margin, source)
    print(verdicts.report(args.format or "text"))
    if args.out:
        write_table(verdicts.rows, args.out)
    return verdicts.exit_code(args.fail_on or "never")


def _check_config(args) -> None:
    from biasflow.config import load_config

    _, warnings = load_config(args.config)
    for warning in warnings:
        print(f"biasflow: warning: {warning}", file=sys.stderr)
    print(f"{', '.join(args.config)}: ok")


def _power(args) -> None:
    from pathlib import Path

    from biasflow.power import plan_sources, planner
    from biasflow.tables import check_not_inputs, check_output_path

    check_output_path(args.out, "--out")
    check_not_inputs({"--out": args.out}, {"--pilot": args.pilot})
    stems = [Path(path).stem for path in args.pilot]
    repeated = sorted({stem for stem in stems if stems.count(stem) > 1})
    if repeated:
        raise BiasflowError(
            f"--pilot names the source {repeated[0]} twice (sources are named by file stem); give "
            "each file a distinct name."
        )
    # args.settings holds the flags given over --config's values (biasflow.flags); the pairs are the pair flags'.
    settings = planner(args.method).Settings.from_config(args.settings, pairs=PairChoice.from_args(args))
    plan_sources(
        method=args.method,
        sources={stem: [path] for stem, path in zip(stems, args.pilot, strict=True)},
        settings=settings.params(),
        outputs={"table": args.out},
    )


if __name__ == "__main__":
    sys.exit(main())
