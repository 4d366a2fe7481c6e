"""FairPair's ``biasflow`` subcommand: ``fairpair-score`` on continuations a user brings."""

from __future__ import annotations

from biasflow.cli import example
from biasflow.schema import flag


def register(commands) -> None:
    """Add FairPair's subcommand to the ``biasflow`` parser (entry point ``biasflow.commands``)."""
    fair = commands.add_parser(
        "fairpair-score", help="FairPair B, V and F of a continuation table you bring",
        description="Score the two sides of every FairPair prompt (rows of prompt_id, side: perturbed_original "
        "or counterfactual, sample, text) with Jaccard and VADER dissimilarity: the bias B, the sampling "
        "variabilities V_pg and V_gp, and F = B^2 / (V_pg V_gp), one row per prompt and dissimilarity, with the "
        "permutation null's mean F and p-value (the two sides pooled and re-split).",
        **example("biasflow fairpair-score --continuations c.csv --out scores.csv"),
    )
    fair.add_argument("--continuations", required=True, help="table with prompt_id, side, sample, text")
    fair.add_argument("--out", required=True, help="output table (.csv, .tsv or .parquet)")
    flag(fair, "--dissimilarities", "fairpair.dissimilarities")
    flag(fair, "--folds", "fairpair.folds")
    flag(fair, "--null-draws", "fairpair.null_draws")
    flag(fair, "--seed", "fairpair.seed")
    fair.set_defaults(run=_score)


def _score(args) -> None:
    from biasflow.tables import check_not_inputs, check_output_path

    check_output_path(args.out, "--out")
    check_not_inputs({"--out": args.out}, {"--continuations": args.continuations})
    from biasflow.fairpair.scores import ScoreSettings
    from biasflow.fairpair.steps import score_user_sides

    settings = ScoreSettings.defaults(dissimilarities=args.dissimilarities, folds=args.folds,
                                      null_draws=args.null_draws, seed=args.seed)
    score_user_sides(continuations_path=args.continuations, settings=settings, out=args.out)
