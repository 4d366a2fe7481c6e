"""The FPR-gap ``biasflow`` subcommands, on prediction files a user brings: ``fpr-gaps`` (one table of gaps)
and ``fpr-summary`` (every table and figure the workflow's FPR steps write, by the workflow's names)."""

from __future__ import annotations

import re

from biasflow.cli import example
from biasflow.errors import BiasflowError
from biasflow.flags import config_flag
from biasflow.fpr.steps import GapSettings
from biasflow.model_pairs import PairChoice, add_pair_flags
from biasflow.schema import subschema

PREDICTIONS_HELP = "TSVs with y_true, y_pred, category, group, text, run_id (model: a column or the file name)"


def register(commands) -> None:
    """Add the FPR-gap subcommands to the ``biasflow`` parser (the ``commands`` of its declaration, method.py)."""
    gaps = commands.add_parser(
        "fpr-gaps",
        help="group FPR gaps with CIs from prediction TSVs you bring",
        description="Each group's negative and positive false-positive rate minus the groups' mean, per model, "
        "with intervals over runs (t by default; z is the reference code's), a second interval by a cluster bootstrap "
        "over templates and runs (needs a template_id column), each run's accuracy with a flag below the floor, "
        "and with --comparisons every pair of systems compared (docs/methods.md section 3.8); the model is the file's "
        "model column or else its name. `biasflow fpr-summary` writes every other table from the same files.",
        **example("biasflow fpr-gaps --predictions a.tsv b.tsv --out gaps.csv --interval t"),
    )
    gaps.add_argument("--predictions", nargs="+", required=True, help=PREDICTIONS_HELP)
    gaps.add_argument("--out", required=True, help="gap table (.csv, .tsv or .parquet)")
    GapSettings.add_flags(gaps)
    gaps.add_argument(
        "--comparisons",
        help="also pairs of systems compared, gap by gap and span by span: every "
        "pair, or with --baseline each system against it (.csv, .tsv or .parquet; docs/methods.md "
        "sections 3.8, 7)",
    )
    add_pair_flags(gaps)
    config_flag(gaps)
    gaps.set_defaults(run=_gaps)

    summary = commands.add_parser(
        "fpr-summary",
        help="every FPR table the workflow writes, from the prediction TSVs of your probe sets",
        description="What the workflow's fpr_gaps and fpr_summary steps write, from prediction files you bring, "
        "under the workflow's names (results/fpr/): per probe set its gaps, run accuracy and comparisons; over "
        "every probe set the gap spans with their null, net significance over models (raw, Holm and "
        "Benjamini-Hochberg), markedness (where the files hold unmarked sentences, group (unmarked)), where the "
        "gaps would move (variance), their figures and the tables page (docs/methods.md section 3). With many "
        "systems, --baseline compares each with one system only (n - 1 pairs, not n(n - 1)/2) and --pairs none "
        "compares none (section 7).",
        **example(
            "biasflow fpr-summary --probe-set race race_a.tsv race_b.tsv --probe-set age age_a.tsv age_b.tsv "
            "--out-dir fpr/"
        ),
    )
    summary.add_argument(
        "--probe-set",
        action="append",
        nargs="+",
        required=True,
        metavar=("NAME", "TSV"),
        help=f"a probe set's name, then its prediction files: {PREDICTIONS_HELP}; repeat it per "
        "probe set (a span's null permutes within one probe set's templates)",
    )
    summary.add_argument("--out-dir", required=True, help="folder for the tables and figures (created if missing)")
    GapSettings.add_flags(summary)
    add_pair_flags(summary)
    config_flag(summary)
    summary.set_defaults(run=_summary)


def _settings(args) -> GapSettings:
    """The gap settings: the flags given over ``--config``'s values (:mod:`biasflow.flags`)."""
    return GapSettings.from_config(args.settings)


def _gaps(args) -> None:
    from biasflow.tables import check_not_inputs, check_output_path

    pairs = PairChoice.from_args(args)
    if args.comparisons and not pairs.compares:
        none = "--pairs none" if args.pairs is not None else "--config's comparisons.pairs none"
        raise BiasflowError(f"--comparisons asks for the comparison table and {none} for none; leave out one.")
    if args.baseline is not None and not args.comparisons:
        raise BiasflowError(f"--baseline {args.baseline} chooses the pairs of --comparisons; add --comparisons PATH.")
    outputs = {"--out": args.out, **({"--comparisons": args.comparisons} if args.comparisons else {})}
    for flag_name, path in outputs.items():
        check_output_path(path, flag_name)
    check_not_inputs(outputs, {"--predictions": args.predictions})
    from biasflow.fpr.steps import gaps

    gaps(
        prediction_paths=args.predictions,
        settings=_settings(args),
        outputs={"gaps": args.out, **({"comparisons": args.comparisons} if args.comparisons else {})},
        pairs=pairs,
    )


def _summary(args) -> None:
    from biasflow.fpr import outputs
    from biasflow.tables import check_inputs_exist, check_not_inputs, check_output_dir

    probe_sets = {}
    for name, *paths in args.probe_set:
        if not paths:
            raise BiasflowError(f"--probe-set {name}: give the probe set's prediction files after its name.")
        if not re.match(subschema("#/definitions/name")["pattern"], name):  # as the config's names (file names)
            raise BiasflowError(
                f"--probe-set {name!r}: a probe set's name becomes part of file names; use letters, "
                "digits, '.', '_' and '-', starting with a letter or digit."
            )
        if name in probe_sets:
            raise BiasflowError(f"--probe-set {name} is given twice; give each probe set once, with all its files.")
        probe_sets[name] = paths
    check_output_dir(args.out_dir, "--out-dir")
    written = [
        *outputs.summary(args.out_dir).values(),
        *(path for name in probe_sets for path in outputs.per_probe(args.out_dir, name).values()),
    ]
    given = {"--probe-set": [path for paths in probe_sets.values() for path in paths]}
    check_inputs_exist(given)
    check_not_inputs({"--out-dir": written}, given)
    from biasflow.fpr.steps import tables_from_predictions

    tables_from_predictions(
        prediction_paths=probe_sets, settings=_settings(args), out_dir=args.out_dir, pairs=PairChoice.from_args(args)
    )
