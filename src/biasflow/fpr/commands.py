"""The FPR-gap ``biasflow`` subcommand: ``fpr-gaps`` on prediction files a user brings."""

from __future__ import annotations

from biasflow.cli import example
from biasflow.schema import flag


def register(commands) -> None:
    """Add the FPR-gap subcommand to the ``biasflow`` parser (the ``commands`` of its declaration, method.py)."""
    gaps = commands.add_parser(
        "fpr-gaps", help="group FPR gaps with CIs from prediction TSVs you bring",
        description="Each group's negative and positive false-positive rate minus the groups' mean, per model, "
        "with intervals over runs (t by default; z is the reference code's), a second interval by a cluster bootstrap "
        "over templates and runs (needs a template_id column), each run's accuracy with a flag below the floor, "
        "and with --comparisons every pair of systems compared (docs/methods.md section 3.8); the model is the file's "
        "model column or else its name.",
        **example("biasflow fpr-gaps --predictions a.tsv b.tsv --out gaps.csv --interval t"),
    )
    gaps.add_argument("--predictions", nargs="+", required=True,
                      help="TSVs with y_true, y_pred, category, group, text, run_id (model: a column or the file name)")
    gaps.add_argument("--out", required=True, help="gap table (.csv, .tsv or .parquet)")
    flag(gaps, "--interval", "fpr.interval")
    flag(gaps, "--z", "fpr.z")
    flag(gaps, "--accuracy-floor", "fpr.accuracy_floor")
    flag(gaps, "--bootstrap", "fpr.bootstrap")
    flag(gaps, "--null-draws", "fpr.null_draws")
    gaps.add_argument("--comparisons", help="also every pair of systems compared, gap by gap and span by span "
                      "(.csv, .tsv or .parquet; docs/methods.md section 3.8)")
    flag(gaps, "--seed", "fpr.seed")
    gaps.set_defaults(run=_gaps)


def _gaps(args) -> None:
    from biasflow.tables import check_not_inputs, check_output_path

    outputs = {"--out": args.out, **({"--comparisons": args.comparisons} if args.comparisons else {})}
    for flag_name, path in outputs.items():
        check_output_path(path, flag_name)
    check_not_inputs(outputs, {"--predictions": args.predictions})
    from biasflow.fpr.steps import GapSettings, gaps

    settings = GapSettings(interval=args.interval, z=args.z, accuracy_floor=args.accuracy_floor,
                           bootstrap=args.bootstrap, null_draws=args.null_draws, seed=args.seed)
    gaps(prediction_paths=args.predictions, settings=settings, out=args.out, comparisons_out=args.comparisons)
