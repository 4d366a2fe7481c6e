"""FairPair's ``biasflow`` subcommands on continuations a user brings: ``fairpair-score`` (one table, one model)
and ``fairpair-summary`` (every table and figure the workflow's FairPair steps write, for several models)."""

from __future__ import annotations

from pathlib import Path

from biasflow.cli import example
from biasflow.errors import BiasflowError
from biasflow.fairpair.scores import BootstrapSettings, ScoreSettings
from biasflow.flags import config_flag
from biasflow.model_pairs import PairChoice, add_pair_flags
from biasflow.schema import flag


def register(commands) -> None:
    """Add FairPair's subcommand to the ``biasflow`` parser (the ``commands`` of its declaration, method.py)."""
    fair = commands.add_parser(
        "fairpair-score",
        help="FairPair B, V and F of a continuation table you bring, and their summary",
        description="Score the two sides of every FairPair prompt (rows of prompt_id, side: perturbed_original "
        "or counterfactual, sample, text) with Jaccard and VADER dissimilarity: the bias B, the sampling "
        "variabilities V_pg and V_gp, and F = B^2 / (V_pg V_gp), one row per prompt and dissimilarity, with the "
        "permutation null's mean F and p-value (the two sides pooled and re-split); and beside it the summary "
        "the workflow writes per model (mean F, F_excess and R_excess with their intervals, the headline "
        "p_perm, Welch's test), the whole table counted as one model: --out scores.csv puts it in "
        "scores_summary.csv.",
        **example("biasflow fairpair-score --continuations c.csv --out scores.csv"),
    )
    fair.add_argument("--continuations", required=True, help="table with prompt_id, side, sample, text")
    fair.add_argument("--out", required=True, help="output table (.csv, .tsv or .parquet), one row per prompt")
    fair.add_argument("--summary", help="the summary table (default: beside --out, its name ending in _summary)")
    _settings_flags(fair)
    config_flag(fair)
    fair.set_defaults(run=_score)

    summary = commands.add_parser(
        "fairpair-summary",
        help="every FairPair table the workflow writes, from your models' two sides",
        description="What the workflow's fairpair_score and fairpair_summary steps write, from tables of both sides "
        "you bring (one per model, named by its file stem; the workflow's own are results/fairpair/pairs/"
        "<model>.parquet), under the workflow's names (results/fairpair/): per model its per-prompt scores, null "
        "draws and differential n-grams; over every model the summary, every pair of models compared (Holm and "
        "Benjamini-Hochberg over the pairs), where each model's excess R would move (variance), their figures and "
        "the tables page (docs/methods.md section 2). There is no perturbation step, so no rejection rates. "
        "--baseline compares each model with one model only, --pairs none compares none (section 7).",
        **example("biasflow fairpair-summary --sides model_a.csv model_b.csv --out-dir fairpair/"),
    )
    summary.add_argument(
        "--sides",
        nargs="+",
        required=True,
        help="one table per model with prompt_id, side (perturbed_original or counterfactual), "
        "sample and text; the model is the file's stem",
    )
    summary.add_argument("--out-dir", required=True, help="folder for the tables and figures (created if missing)")
    _settings_flags(summary)
    for key in ("n_max", "top"):
        flag(summary, f"--ngrams-{key.replace('_', '-')}", f"fairpair.ngrams.{key}")
    add_pair_flags(summary)
    config_flag(summary)
    summary.set_defaults(run=_summary)


def _settings_flags(parser) -> None:
    """The settings of the fairpair section both commands take: the score step's (its n-grams apart) and the
    summary's bootstrap, whose seed is the score step's."""
    ScoreSettings.add_flags(parser, "dissimilarities", "folds", "null_draws")
    BootstrapSettings.add_flags(parser)


def summary_path(out: str) -> str:
    """Where the summary goes without ``--summary``: beside ``--out``, ``scores.csv`` → ``scores_summary.csv``."""
    path = Path(out)
    return str(path.with_name(f"{path.stem}_summary{path.suffix}"))


def _score(args) -> None:
    from biasflow.tables import check_not_inputs, check_output_path

    summary_out = args.summary or summary_path(args.out)
    check_output_path(args.out, "--out")
    check_output_path(summary_out, "--summary")
    check_not_inputs({"--out": args.out, "--summary": summary_out}, {"--continuations": args.continuations})
    if Path(summary_out).resolve() == Path(args.out).resolve():
        raise BiasflowError(f"--summary {summary_out} is also --out; name another file for the summary.")
    from biasflow.fairpair.steps import score_user_sides

    score_user_sides(
        continuations_path=args.continuations,
        settings=ScoreSettings.from_config(args.settings),
        summary_settings=BootstrapSettings.from_config(args.settings),
        out=args.out,
        summary_out=summary_out,
    )


def _summary(args) -> None:
    from biasflow.fairpair.outputs import from_sides
    from biasflow.tables import check_inputs_exist, check_not_inputs, check_output_dir

    sides: dict[str, str] = {}
    for path in args.sides:
        model = Path(path).stem
        if model in sides:
            raise BiasflowError(
                f"--sides {sides[model]} and {path} both name model {model!r} (a file's stem); rename one of them."
            )
        sides[model] = path
    check_output_dir(args.out_dir, "--out-dir")
    scored, final = from_sides(args.out_dir, sides)
    written = [*(path for files in scored.values() for path in files.values()), *final.values()]
    check_inputs_exist({"--sides": args.sides})
    check_not_inputs({"--out-dir": written}, {"--sides": args.sides})
    from biasflow.fairpair.comparisons import ComparisonSettings
    from biasflow.fairpair.steps import tables_from_sides

    settings = args.settings  # the flags given over --config's values (biasflow.flags)
    tables_from_sides(
        sides_paths=sides,
        settings=ScoreSettings.from_config(settings),
        summary_settings=BootstrapSettings.from_config(settings),
        comparison=ComparisonSettings.from_config(settings),
        out_dir=args.out_dir,
        pairs=PairChoice.from_args(args),
    )
