"""CAIRO's ``biasflow`` subcommands: ``cairo-stats`` and ``cairo-select`` on files a user brings."""

from __future__ import annotations

from biasflow.cli import example
from biasflow.schema import flag


def register(commands) -> None:
    """Add CAIRO's subcommands to the ``biasflow`` parser (entry point ``biasflow.commands``)."""
    stats = commands.add_parser(
        "cairo-stats", help="sufficient statistics and Eq. 1 bias from scored continuations",
        description="Pool scored continuations into CAIRO's sufficient statistics (one row per model, metric, "
        "axis, split, prompt set, seed, subgroup and group key) and each model's Eq. 1 bias, as the workflow's cairo_stats "
        "step does; writes stats.parquet, bias.csv and bias.png into --out-dir.",
        **example("biasflow cairo-stats --continuations continuations.parquet --scores scores.parquet "
                  "--scorer profanity --out-dir stats/"),
    )
    stats.add_argument("--continuations", nargs="+", required=True, help="continuation tables")
    stats.add_argument("--scores", nargs="+", required=True, help="score tables")
    stats.add_argument("--scorer", required=True, help="which scorer's scores to use")
    flag(stats, "--normalise", "bias.normalise")
    stats.add_argument("--out-dir", required=True)
    stats.set_defaults(run=_stats)

    select = commands.add_parser(
        "cairo-select", help="CAIRO selection on a statistics table (the workflow's cairo_select step)",
        description="Search the prompt-set combinations that make the metrics agree across models (Pearson's r "
        "on the valid split), check the choice on the test split and give its selection-aware permutation "
        "p-value, cluster bootstrap intervals, the no-bias null and the excess bias; writes curve.csv, bias.csv "
        "and selection.json into --out-dir.",
        **example("biasflow cairo-select --stats stats.parquet --out-dir out/"),
    )
    select.add_argument("--stats", nargs="+", required=True, help="CAIRO statistics table(s), one or several axes")
    select.add_argument("--out-dir", required=True)
    for name in ("mode", "combinations", "max_sets", "permutations", "bootstrap", "null_draws", "seed"):
        flag(select, f"--{name.replace('_', '-')}", f"selection.{name}")
    flag(select, "--normalise", "bias.normalise")
    flag(select, "--measure", "bias.measure")
    select.set_defaults(run=_select)


# What each command writes into its --out-dir.
STATS_OUTPUTS = ("stats.parquet", "bias.csv", "bias.png")
SELECT_OUTPUTS = ("curve.csv", "bias.csv", "selection.json")


def _stats(args) -> None:
    from biasflow.tables import check_not_inputs, check_output_dir

    out = check_output_dir(args.out_dir, "--out-dir")
    check_not_inputs({"--out-dir": [out / name for name in STATS_OUTPUTS]},
                     {"--continuations": args.continuations, "--scores": args.scores})
    from biasflow.cairo.stats import StatsSettings
    from biasflow.cairo.steps import cairo_stats

    settings = StatsSettings(scorer=args.scorer, normalise=args.normalise, subgroups="as given")
    cairo_stats(
        continuation_paths=args.continuations, score_paths=args.scores, settings=settings,
        stats_out=str(out / "stats.parquet"), bias_out=str(out / "bias.csv"), plot_out=str(out / "bias.png"),
    )


def _select(args) -> None:
    from biasflow.tables import check_not_inputs, check_output_dir

    out = check_output_dir(args.out_dir, "--out-dir")
    check_not_inputs({"--out-dir": [out / name for name in SELECT_OUTPUTS]}, {"--stats": args.stats})
    from biasflow.cairo.selection import SearchSettings
    from biasflow.cairo.steps import select_to_directory

    settings = SearchSettings(mode=args.mode, combinations=args.combinations, max_sets=args.max_sets,
                              permutations=args.permutations, bootstrap=args.bootstrap, null_draws=args.null_draws,
                              seed=args.seed, normalise=args.normalise, measure=args.measure)
    select_to_directory(stats_paths=args.stats, settings=settings, out_dir=args.out_dir)
