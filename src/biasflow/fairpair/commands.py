"""FairPair's ``biasflow`` subcommand: ``fairpair-score`` on continuations a user brings."""

from __future__ import annotations

from pathlib import Path

from biasflow.cli import example
from biasflow.errors import BiasflowError
from biasflow.schema import flag


def register(commands) -> None:
    """Add FairPair's subcommand to the ``biasflow`` parser (the ``commands`` of its declaration, method.py)."""
    fair = commands.add_parser(
        "fairpair-score", help="FairPair B, V and F of a continuation table you bring, and their summary",
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
    flag(fair, "--dissimilarities", "fairpair.dissimilarities")
    flag(fair, "--folds", "fairpair.folds")
    flag(fair, "--null-draws", "fairpair.null_draws")
    flag(fair, "--bootstrap", "fairpair.bootstrap")
    flag(fair, "--seed", "fairpair.seed")
    fair.set_defaults(run=_score)


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
    from biasflow.fairpair.scores import BootstrapSettings, ScoreSettings
    from biasflow.fairpair.steps import score_user_sides

    settings = ScoreSettings.defaults(dissimilarities=args.dissimilarities, folds=args.folds,
                                      null_draws=args.null_draws, seed=args.seed)
    score_user_sides(continuations_path=args.continuations, settings=settings,
                     summary_settings=BootstrapSettings.defaults(bootstrap=args.bootstrap, seed=args.seed),
                     out=args.out, summary_out=summary_out)
