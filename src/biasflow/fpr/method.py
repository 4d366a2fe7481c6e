"""Group FPR gaps as the core sees them (:class:`biasflow.methods.Method`; Tian et al., 2023, docs/methods.md §3)."""

from __future__ import annotations

from biasflow.fpr.outputs import OUTPUTS
from biasflow.methods import Method, own_models


def summary(config: dict) -> str:
    fpr = config["fpr"]
    return (
        f"probe sets {', '.join(fpr['probes'])}; classifiers {', '.join(fpr['classifiers'])}; "
        f"{fpr['runs']} runs each, {fpr['interval']} intervals."
    )


METHOD = Method(
    name="fpr",
    title="Group FPR gaps",
    citation="Tian et al., 2023; Template-Based Probes Are Imperfect Lenses, anonymous, under review",
    evaluated=lambda config: own_models(config, "fpr"),
    loads=lambda config: [("models", name) for name in own_models(config, "fpr")],
    finals=lambda config: [OUTPUTS.output("spans")],
    comparisons=lambda config: [OUTPUTS.output("comparisons", probe=probe) for probe in config["fpr"]["probes"]],
    variance=lambda config: [OUTPUTS.output("variance")],
    pages=lambda config: [OUTPUTS.output("tables_page")],
    summary=summary,
    check="biasflow.fpr.checks:check",
    commands="biasflow.fpr.commands:register",
    power="biasflow.fpr.power",
    compare="biasflow.fpr.verdicts",
    api=("biasflow.fpr.api:probe_sentences", "biasflow.fpr.api:fpr_gaps"),
    schema="biasflow.fpr:config.schema.yaml",
    compare_input=(
        "predictions",
        "one probe set's prediction TSVs, as fpr-gaps reads them, with template_id "
        "(results/fpr/<probe>/<model>/<classifier>.tsv)",
    ),
    compare_settings=(
        ("fpr.bootstrap", "template bootstrap draws of the paired intervals"),
        ("fpr.null_draws", "swap draws of the paired test (0: no p)"),
        ("fpr.seed", "seed of the draws"),
        ("fpr.accuracy_floor", "a run less accurate than this is named in the verdict"),
    ),
    named=(("fpr", "probes"), ("fpr", "classifiers")),
)
