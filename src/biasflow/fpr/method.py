"""Group FPR gaps as the core sees them (:class:`biasflow.methods.Method`; Tian et al., 2023, docs/methods.md §3)."""

from __future__ import annotations

from typing import Any

from biasflow.fpr.outputs import OUTPUTS, predictions
from biasflow.methods import Method, own_models
from biasflow.model_pairs import VARIANT
from biasflow.outputs import Target


def summary(config: dict) -> str:
    fpr = config["fpr"]
    return (
        f"probe sets {', '.join(fpr['probes'])}; classifiers {', '.join(fpr['classifiers'])}; "
        f"{fpr['runs']} runs each, {fpr['interval']} intervals."
    )


def targets(config: dict) -> list[Target]:
    """Its final table, the gap spans, written with the summary's other tables, figures and page by one job."""
    return [OUTPUTS.target("summary", "spans")] if config["fpr"]["probes"] else []


def power_sources(config: dict) -> dict[str, list[str]]:
    """The power planner reads each probe set's predictions, of every model and classifier (docs/methods.md §6)."""
    fpr = config["fpr"]
    runs = [(model, classifier) for model in own_models(config, "fpr") for classifier in fpr["classifiers"]]
    return {probe: [predictions(probe, *run) for run in runs] for probe in fpr["probes"]}


def pair_sources(config: dict, baseline: str, candidate: str) -> list[dict[str, Any]]:
    """A pair's comparisons: on each probe set, each classifier's system of the candidate against the baseline's of
    the same classifier (biasflow compare --method fpr on the two prediction files), labelled by both (§7)."""
    fpr = config["fpr"]
    return [
        {
            "paths": [predictions(probe, model, classifier) for model in (baseline, candidate)],
            "baseline": f"{baseline}{VARIANT}{classifier}",
            "candidate": f"{candidate}{VARIANT}{classifier}",
            "labels": {"probe": probe, "classifier": classifier},
        }
        for probe in fpr["probes"]
        for classifier in fpr["classifiers"]
    ]


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
    compare_settings="biasflow.fpr.verdicts:CompareSettings",
    named=(("fpr", "probes"), ("fpr", "classifiers")),
    targets=targets,
    power_sources=power_sources,
    pair_sources=pair_sources,
)
