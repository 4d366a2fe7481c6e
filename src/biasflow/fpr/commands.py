"""The FPR-gap ``biasflow`` subcommand: ``fpr-gaps`` on prediction files a user brings."""

from __future__ import annotations

from biasflow.cli import example


def register(commands) -> None:
    """Add the FPR-gap subcommand to the ``biasflow`` parser (entry point ``biasflow.commands``)."""
    gaps = commands.add_parser(
        "fpr-gaps", help="group FPR gaps with CIs from prediction TSVs you bring",
        description="Each group's negative and positive false-positive rate minus the groups' mean, per model, "
        "with intervals over runs, and each run's accuracy with a flag below the floor; the model is the "
        "file's model column or else its name.",
        **example("biasflow fpr-gaps --predictions a.tsv b.tsv --out gaps.csv --interval t"),
    )
    gaps.add_argument("--predictions", nargs="+", required=True,
                      help="TSVs with y_true, y_pred, category, group, text, run_id (model: a column or the file name)")
    gaps.add_argument("--out", required=True, help="gap table (.csv, .tsv or .parquet)")
    gaps.add_argument("--interval", choices=["z", "t"], default="z", help="z: 1.96 (the reference); t: Student t")
    gaps.add_argument("--accuracy-floor", type=float, default=0.4,
                      help="flag runs below this accuracy, a share in [0, 1] (default 0.4)")
    gaps.set_defaults(run=_gaps)


def _gaps(args) -> None:
    from biasflow.tables import check_output_path

    check_output_path(args.out, "--out")
    from biasflow.fpr.steps import gaps

    gaps(prediction_paths=args.predictions, interval=args.interval, z=1.96, accuracy_floor=args.accuracy_floor,
         out=args.out)
