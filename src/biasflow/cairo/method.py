"""CAIRO as the core sees it (:class:`biasflow.methods.Method`; Zayed et al., 2024, docs/methods.md §1)."""

from __future__ import annotations

from pathlib import Path

from biasflow.cairo import targets
from biasflow.cairo.datasets.sources import fill_sources, source_lines
from biasflow.cairo.outputs import OUTPUTS
from biasflow.methods import Method


def loads(config: dict) -> list[tuple[str, str]]:
    """Every paraphraser, then every evaluated model."""
    return [("paraphrasers", name) for name in config["paraphrasers"]] + [("models", name) for name in config["models"]]


def selected(role: str, axis: str) -> str:
    """One file of the headline scorer's selection on ``axis``."""
    return OUTPUTS.output(role, step="select", run="", axis=axis)


def finals(config: dict) -> list[str]:
    return [selected("table", axis) for axis in config["cairo"]["axes"]]


def comparisons(config: dict) -> list[str]:
    return [selected("comparisons", axis) for axis in config["cairo"]["axes"]]


def variance(config: dict) -> list[str]:
    return [selected("variance", axis) for axis in config["cairo"]["axes"]]


def pages(config: dict) -> list[str]:
    return [selected("tables_page", axis) for axis in config["cairo"]["axes"]]


def computed(config: dict) -> dict:
    """The config with the axes whose selection has written its table: ``make demo`` runs one axis of two."""
    section = config["cairo"]
    axes = {axis: metrics for axis, metrics in section["axes"].items() if Path(selected("table", axis)).exists()}
    return {**config, "cairo": {**section, "axes": axes}}


def summary(config: dict) -> str:
    section = config["cairo"]
    axes = "; ".join(f"{axis}: {', '.join(metrics)}" for axis, metrics in section["axes"].items())
    paraphrasers = ", ".join(config["paraphrasers"]) or "none (original prompts only)"
    selection, generation = section["selection"], section["generation"]
    return (
        f"metrics per axis {axes}; paraphrasers {paraphrasers} with seeds "
        f"{', '.join(map(str, section['paraphrase']['seeds']))}; {generation['samples']} "
        f"continuation(s) per prompt and seed, seeds {', '.join(map(str, generation['seeds']))}; "
        f"scored by {_scoring(section['scoring'])}; {selection['mode']} selection of up to "
        f"{selection['max_sets']} prompt sets, {selection['permutations']} permutations." + _floor(config)
    )


def _floor(config: dict) -> str:
    """The smallest permutation p-value this many models leave the selection (docs/methods.md §1.8), from the
    permutations the selection draws, and, where the log warns of it, the log's words."""
    from biasflow.cairo.correlation_search import model_permutations, perm_p_floor
    from biasflow.cairo.selection import floor_warning

    selection, n_models = config["cairo"]["selection"], len(config["models"])
    if not selection["permutations"]:
        return ""
    floor = perm_p_floor(model_permutations(n_models, selection["permutations"], selection["seed"]))
    warning = floor_warning(floor, n_models)
    if warning:
        return f" {warning[0].upper()}{warning[1:]}"
    return f" With {n_models} models the permutation p-value cannot fall below {floor:.3f} (perm_p_floor)."


def _scoring(scoring: dict) -> str:
    """The headline scorer, the others, and what counterfactual rescoring does to them (docs/methods.md §5.5-5.6)."""
    from biasflow.cairo.scorer_runs import counterfactual

    text = scoring["scorer"] + (
        " with the group words made neutral (raw scores beside them)" if scoring["neutralise"] else ""
    )
    if scoring["scorers"]:
        text += f", and also by {', '.join(scoring['scorers'])}"
    if counterfactual(scoring):
        text += " (each scorer's own bias measured by counterfactual rescoring)"
    return text


METHOD = Method(
    name="cairo",
    title="CAIRO",
    citation="Zayed et al., 2024",
    evaluated=lambda config: list(config["models"]),
    loads=loads,
    finals=finals,
    comparisons=comparisons,
    variance=variance,
    pages=pages,
    computed=computed,
    summary=summary,
    check="biasflow.cairo.checks:check",
    commands="biasflow.cairo.commands:register",
    power="biasflow.cairo.power",
    compare="biasflow.cairo.verdicts",
    api=(
        "biasflow.cairo.api:cairo_statistics",
        "biasflow.cairo.api:cairo_bias",
        "biasflow.cairo.api:cairo_select",
        "biasflow.cairo.api:scorer_bias",
        "biasflow.cairo.api:score",
    ),
    compare_input=(
        "stats",
        "CAIRO statistics table(s), results/cairo/stats/<axis>.parquet (the two models' "
        "original prompts of both splits are compared)",
    ),
    compare_settings="biasflow.cairo.verdicts:CompareSettings",
    data=source_lines,
    fill=fill_sources,
    schema="biasflow.cairo:config.schema.yaml",
    moved_keys=(
        "valid_fraction",
        "prompts",
        "datasets",
        "axes",
        "subgroups",
        "subgroup_map",
        "paraphrase",
        "generation",
        "scoring",
        "bias",
        "selection",
        "power.min_r",
    ),
    targets=targets.targets,
    power_sources=targets.power_sources,
    pair_sources=targets.pair_sources,
)
