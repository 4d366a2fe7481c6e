"""CAIRO's ``biasflow`` subcommands on files a user brings: ``prompts`` (a metric's prompt table), ``score`` (a
continuation table scored), ``cairo-stats``, ``cairo-select``, ``scorer-bias``, ``scorer-agreement``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from biasflow.cairo.datasets import AXES, METRICS
from biasflow.cairo.outputs import SCORER_BIAS, in_folder
from biasflow.cairo.scorer_bias import ScorerBiasSettings
from biasflow.cairo.scorer_runs import SCORING, scoring_keys
from biasflow.cairo.selection import SearchSettings
from biasflow.cairo.stats import StatsSettings
from biasflow.cli import example, listed, one_of, scorer_help
from biasflow.errors import BiasflowError
from biasflow.flags import config_flag
from biasflow.model_pairs import PairChoice, add_pair_flags
from biasflow.schema import flag


def register(commands) -> None:
    """Add CAIRO's subcommands to the ``biasflow`` parser (the ``commands`` of its declaration, method.py)."""
    prompts = commands.add_parser(
        "prompts",
        help="build the prompt table of one metric and axis",
        description="Build the prompt table of one metric and axis from its files, as the original_prompts step "
        "does. Settings come from --config (any part of a workflow config; no models needed) and the flags, the "
        "flags winning. Without --config the subgroups keep their own labels unless --map names them; with it, "
        "cairo.subgroups and cairo.subgroup_map decide.",
        **example(
            "biasflow prompts --config config/config.yaml --metric BOLD --axis religion --data path/to/prompts "
            "--out p.parquet --summary s.csv"
        ),
    )
    prompts.add_argument("--metric", required=True, help=one_of(METRICS))
    prompts.add_argument("--axis", required=True, help=one_of(AXES))
    prompts.add_argument(
        "--data", help="folder with the metric's official files (default: the config's cairo.datasets path)"
    )
    flag(prompts, "--valid-fraction", "cairo.valid_fraction")
    prompts.add_argument(
        "--map",
        action="append",
        metavar="NATIVE=SHARED",
        help="subgroup map entry; repeat it (unmapped subgroups are dropped)",
    )
    prompts.add_argument(
        "--options", metavar="JSON", help='loader options, e.g. \'{"sets": {"gender": ["binary"]}}\' for HONEST'
    )
    flag(prompts, "--per-subgroup", "cairo.prompts.per_subgroup")
    flag(prompts, "--seed", "cairo.prompts.seed")
    prompts.add_argument("--out", required=True, help="output table (.parquet, .csv or .tsv)")
    prompts.add_argument("--summary", help="also write the summary: prompts per subgroup and split (.csv)")
    config_flag(prompts, also="cairo.subgroups, cairo.subgroup_map and cairo.datasets")
    prompts.set_defaults(run=_prompts)

    score = commands.add_parser(
        "score",
        help="score a table of continuations you bring (CSV or parquet with a continuation column)",
        description="Score every row's continuation with one scorer, as the workflow's score step does; the output "
        "keeps every input column and adds score (and category, for honest).",
        **example("biasflow score --scorer profanity --continuations mine.csv --out scored.csv"),
    )
    score.add_argument("--scorer", required=True, help=scorer_help())
    score.add_argument("--continuations", required=True, help="table with a continuation column (.csv, .tsv, .parquet)")
    score.add_argument("--out", required=True, help="output table (.csv, .tsv or .parquet)")
    _scoring_flags(score)
    score.add_argument("--cache-dir", help="score cache, so a rerun scores only new texts (default: none)")
    config_flag(score)
    score.set_defaults(run=_score)

    stats = commands.add_parser(
        "cairo-stats",
        help="sufficient statistics and Eq. 1 bias from scored continuations",
        description="Pool scored continuations into CAIRO's sufficient statistics (one row per model, metric, "
        "axis, split, prompt set, seed, subgroup and group key) and each model's Eq. 1 bias, as the workflow's "
        f"cairo_stats step does; writes each axis's {listed(_named('stats').values())} into --out-dir, the "
        "workflow's names under results/cairo/.",
        **example(
            "biasflow cairo-stats --continuations continuations.parquet --scores scores.parquet "
            "--scorer profanity --out-dir stats/"
        ),
    )
    stats.add_argument("--continuations", nargs="+", required=True, help="continuation tables")
    stats.add_argument("--scores", nargs="+", required=True, help="score tables")
    stats.add_argument("--scorer", required=True, help="which scorer's scores to use")
    StatsSettings.add_flags(stats, "normalise")
    stats.add_argument("--out-dir", required=True)
    config_flag(stats)
    stats.set_defaults(run=_stats)

    select = commands.add_parser(
        "cairo-select",
        help="CAIRO selection on a statistics table (the workflow's cairo_select step)",
        description="Search the prompt-set combinations that make the metrics agree across models (Pearson's r "
        "on the valid split), check the choice on the test split and give its selection-aware permutation "
        "p-value, cluster bootstrap intervals, the no-bias null and the excess bias, and every pair of models "
        "compared on the same prompts (--baseline: each model against one; --pairs none: no "
        f"{_named('select')['comparisons']}), and where each model's bias would move, one selection per axis of the "
        "statistics, as the workflow's cairo_select job of that axis makes it; writes each axis's "
        f"{listed(_named('select').values())} into --out-dir, the workflow's names under results/cairo/.",
        **example("biasflow cairo-select --stats stats.parquet --out-dir out/"),
    )
    select.add_argument(
        "--stats",
        nargs="+",
        required=True,
        help="CAIRO statistics table(s), of one axis or several (one selection each)",
    )
    select.add_argument("--out-dir", required=True)
    SearchSettings.add_flags(select)
    add_pair_flags(select)
    config_flag(select)
    select.set_defaults(run=_select)

    scorer_bias = commands.add_parser(
        "scorer-bias",
        help="the scorer's own bias: rescore continuations with the group words swapped",
        description="Score continuations (columns model, subgroup, continuation; the workflow's metric, seed and "
        "group_key where present) with one scorer, rescore every one that names its own subgroup with those words "
        "swapped for each other subgroup's and for a neutral placeholder (docs/methods.md §5.5), and write the "
        "scorer's bias per subgroup, each model's Eq. 1 on raw against neutral scores, and a figure: "
        f"{listed(name.replace('{axis}', '<axis>') for name in SCORER_BIAS.values())} in --out-dir.",
        **example("biasflow scorer-bias --continuations c.parquet --scorer profanity --axis religion --out-dir d/"),
    )
    scorer_bias.add_argument("--continuations", nargs="+", required=True, help="continuation tables")
    scorer_bias.add_argument("--scorer", required=True, help=scorer_help())
    scorer_bias.add_argument("--axis", required=True, choices=AXES)
    flag(scorer_bias, "--identity-lexicon", f"{SCORING}.identity_lexicon")
    _scoring_flags(scorer_bias)
    ScorerBiasSettings.add_flags(scorer_bias)
    scorer_bias.add_argument("--cache-dir", help="score cache, so a rerun scores only new texts (default: none)")
    scorer_bias.add_argument("--out-dir", required=True)
    config_flag(scorer_bias)
    scorer_bias.set_defaults(run=_scorer_bias)

    agreement = commands.add_parser(
        "scorer-agreement",
        help="how alike several scorers rank the models (Kendall's tau per metric and split)",
        description="From each scorer's bias table (cairo-select's <axis>.csv, the workflow's "
        "results/cairo/<axis>.csv), Kendall's tau-b between the model rankings by Eq. 1 on the original prompts of "
        "every pair of scorers, per axis, metric and split, and how many models rank outside their 95% rank interval "
        "under the other scorer; "
        "the workflow's results/cairo/scorers/<axis>_agreement.csv (docs/methods.md section 5.6).",
        **example(
            "biasflow scorer-agreement --bias profanity=profanity/gender.csv vader=vader/gender.csv --out agreement.csv"
        ),
    )
    agreement.add_argument(
        "--bias",
        nargs="+",
        required=True,
        metavar="SCORER=CSV",
        help="each scorer's name and its bias table; two or more, their pairs in this order",
    )
    agreement.add_argument("--out", required=True, help="the agreement table (.csv, .tsv or .parquet)")
    agreement.set_defaults(run=_agreement)


def _named(step: str) -> dict[str, str]:
    """The files a command of ``step`` writes per axis by role, for its help text (``<axis>`` for the axis's name)."""
    return {role: Path(path).as_posix() for role, path in in_folder("", step, "<axis>").items()}


def _stats(args) -> None:
    from biasflow.tables import check_output_dir

    check_output_dir(args.out_dir, "--out-dir")
    from biasflow.cairo.steps import stats_to_directory

    stats_to_directory(
        continuation_paths=args.continuations,
        score_paths=args.scores,
        settings=StatsSettings(scorer=args.scorer, normalise=args.normalise, subgroups="as given"),
        out_dir=args.out_dir,
    )


def _select(args) -> None:
    from biasflow.tables import check_output_dir

    check_output_dir(args.out_dir, "--out-dir")
    from biasflow.cairo.steps import select_to_directory

    select_to_directory(
        stats_paths=args.stats,
        settings=SearchSettings.from_config(args.settings),  # the flags given over --config's values (biasflow.flags)
        out_dir=args.out_dir,
        pairs=PairChoice.from_args(args),
    )


def _scorer_bias(args) -> None:
    from biasflow.tables import check_not_inputs, check_output_dir

    out = check_output_dir(args.out_dir, "--out-dir")
    from biasflow.cairo.steps import scorer_bias_to_directory

    check_not_inputs(
        {"--out-dir": [out / name.format(axis=args.axis) for name in SCORER_BIAS.values()]},
        {"--continuations": args.continuations},
    )
    if args.cache_dir:
        check_output_dir(args.cache_dir, "--cache-dir")
    from biasflow import bundled
    from biasflow.cairo.scorer_runs import check_scoring
    from biasflow.scorers.table import ScoringSettings

    scoring = {
        **{key: getattr(args, key) for key in scoring_keys()},
        "scorers": [],
        "counterfactual": True,
        "neutralise": False,
        "identity_lexicon": bundled.resolve(args.identity_lexicon),
    }
    check_scoring(scoring, Path.cwd())
    scorer_bias_to_directory(
        continuation_paths=args.continuations,
        scoring=ScoringSettings.of(scoring),
        axis=args.axis,
        lexicon_path=scoring["identity_lexicon"],
        settings=ScorerBiasSettings.from_config(args.settings),
        cache_dir=args.cache_dir,
        out_dir=args.out_dir,
    )


def _agreement(args) -> None:
    from biasflow.errors import BiasflowError
    from biasflow.tables import check_inputs_exist, check_not_inputs, check_output_path

    tables = {}
    for entry in args.bias:
        label, sep, path = entry.partition("=")
        if not (sep and label and path):
            raise BiasflowError(f"--bias {entry}: give a scorer's name and its bias table as SCORER=CSV.")
        if label in tables:
            raise BiasflowError(f"--bias names scorer {label!r} twice; give each scorer once.")
        tables[label] = path
    if len(tables) < 2:
        raise BiasflowError("--bias: give two or more scorers' bias tables to compare their rankings.")
    check_output_path(args.out, "--out")
    check_inputs_exist({"--bias": list(tables.values())})
    check_not_inputs({"--out": args.out}, {"--bias": list(tables.values())})
    from biasflow.cairo.steps import scorer_agreement

    scorer_agreement(headline_paths=tables, outputs={"table": args.out})


def _prompts(args) -> None:
    from biasflow.tables import check_output_path

    check_output_path(args.out, "--out")
    if args.summary:
        check_output_path(args.summary, "--summary")
    from biasflow.cairo.datasets import LoaderSettings, write_prompts
    from biasflow.cairo.datasets.sources import dataset_dir, loader_settings

    loader = LoaderSettings.defaults(subgroup_map=None, options={})
    data = args.data
    if args.config:
        loader = loader_settings(args.settings, args.metric, args.axis)
        data = data or dataset_dir(args.settings, args.metric)
    if data is None:
        raise BiasflowError(
            "biasflow prompts needs --data (the metric's folder) or --config with cairo.datasets.<metric>.path."
        )
    flags = {
        "valid_fraction": args.valid_fraction,
        "per_subgroup": args.per_subgroup,
        "sample_seed": args.seed,
        "subgroup_map": dict(_pair(entry) for entry in args.map) if args.map else None,
        "options": _json(args.options, "--options") if args.options is not None else None,
    }
    loader = dataclasses.replace(loader, **{key: value for key, value in flags.items() if value is not None})
    outputs = {"prompts": args.out, **({"summary": args.summary} if args.summary else {})}
    write_prompts(data_dir=data, metric=args.metric, axis=args.axis, settings=loader, outputs=outputs)


def _score(args) -> None:
    from biasflow.tables import check_not_inputs, check_output_dir, check_output_path

    check_output_path(args.out, "--out")
    check_not_inputs({"--out": args.out}, {"--continuations": args.continuations})
    if args.cache_dir:
        check_output_dir(args.cache_dir, "--cache-dir")
    from biasflow.scorers.table import ScoringSettings, score_user_table

    settings = ScoringSettings.of({key: getattr(args, key) for key in scoring_keys()})
    score_user_table(continuations_path=args.continuations, settings=settings, cache_dir=args.cache_dir, out=args.out)


def _scoring_flags(parser) -> None:
    """A flag for each setting of the scoring section a scoring command reads besides ``--scorer`` (which it
    requires): what is scored, the batch size and every scorer's own options, as ``biasflow.score`` takes them."""
    for key, config_key in scoring_keys().items():
        if key != "scorer":
            flag(parser, f"--{key.replace('_', '-')}", config_key)


def _pair(entry: str) -> tuple[str, str]:
    native, sep, shared = entry.partition("=")
    if not sep or not native or not shared:
        raise BiasflowError(f"--map takes NATIVE=SHARED (say American_actresses=female), got {entry!r}.")
    return native, shared


def _json(text: str, flag: str):
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BiasflowError(
            f'{flag} is not valid JSON ({exc}); write it like \'{{"sets": {{"gender": ["binary"]}}}}\'.'
        ) from exc
