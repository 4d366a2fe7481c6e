"""FairPair as the core sees it (:class:`biasflow.methods.Method`; Dwivedi-Yu et al., 2024, docs/methods.md §2)."""

from __future__ import annotations

from typing import Any

from biasflow.fairpair.outputs import OUTPUTS
from biasflow.methods import Method, own_models
from biasflow.model_pairs import PairChoice
from biasflow.outputs import Target


def loads(config: dict) -> list[tuple[str, str]]:
    """Its evaluated models, then the perturbing LLM where perturbation.method is llm."""
    used = [("models", name) for name in own_models(config, "fairpair")]
    perturbation = config["fairpair"]["perturbation"]
    if perturbation["method"] == "llm":
        used.append(
            ("paraphrasers" if perturbation["model"] in config["paraphrasers"] else "models", perturbation["model"])
        )
    return used


def summary(config: dict) -> str:
    fairpair = config["fairpair"]
    return (
        f"{fairpair['samples']} continuations per side and prompt, dissimilarities "
        f"{', '.join(fairpair['dissimilarities'])}, perturbation by {fairpair['perturbation']['method']}."
    )


def targets(config: dict) -> list[Target]:
    """Its final table, the summary, written with its figures and pages by one job."""
    return [OUTPUTS.target("summary", "summary", compares=PairChoice.from_config(config).compares)]


def power_sources(config: dict) -> dict[str, list[str]]:
    """The power planner reads each model's per-prompt scores (docs/methods.md §6)."""
    return {model: [OUTPUTS.output("scores", model=model)] for model in own_models(config, "fairpair")}


def pair_sources(config: dict, baseline: str, candidate: str) -> list[dict[str, Any]]:
    """A pair's comparison reads the two models' per-prompt scores (docs/methods.md §7)."""
    paths = [OUTPUTS.output("scores", model=model) for model in (baseline, candidate)]
    return [{"paths": paths, "baseline": baseline, "candidate": candidate}]


METHOD = Method(
    name="fairpair",
    title="FairPair",
    citation="Dwivedi-Yu et al., 2024",
    evaluated=lambda config: own_models(config, "fairpair"),
    loads=loads,
    finals=lambda config: [OUTPUTS.output("summary")],
    comparisons=lambda config: [OUTPUTS.output("comparisons")],
    variance=lambda config: [OUTPUTS.output("variance")],
    pages=lambda config: [OUTPUTS.output("tables_page")],
    summary=summary,
    check="biasflow.fairpair.checks:check",
    commands="biasflow.fairpair.commands:register",
    power="biasflow.fairpair.power",
    compare="biasflow.fairpair.verdicts",
    api=("biasflow.fairpair.api:fairpair_scores",),
    schema="biasflow.fairpair:config.schema.yaml",
    compare_input=("scores", "per-prompt scores, results/fairpair/<model>.csv (the file name being the model)"),
    compare_settings="biasflow.fairpair.comparisons:ComparisonSettings",
    targets=targets,
    power_sources=power_sources,
    pair_sources=pair_sources,
)
