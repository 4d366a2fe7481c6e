"""What CAIRO needs of a config, checked before any job runs (the ``check`` of its declaration, method.py).

Its axes and metrics exist and HONEST stays on gender; every metric's dataset folder holds
the files it reads (docs/methods.md §4); the scorer and its files exist; unified subgroups
map every metric of an axis to the same shared labels (§1.1); counterfactual rescoring has unified
subgroups and an identity lexicon with every axis (§5.5); at least :data:`MIN_MODELS`
models, since r is taken across them (§1.7); the search settings can run together (the
excess measure needs null draws, §1.13); the paraphrase templates' folder exists.
"""

from __future__ import annotations

from pathlib import Path

from biasflow.cairo.datasets import AXES, METRICS, check_folder
from biasflow.cairo.datasets.sources import used_metrics
from biasflow.cairo.scorer_runs import check_scoring, counterfactual
from biasflow.cairo.selection import MIN_MODELS, SearchSettings, check_settings
from biasflow.errors import BiasflowError
from biasflow.scorers.identity_lexicon import IdentityLexicon


def check(config: dict, workdir: Path) -> list[str]:
    """Raise :class:`BiasflowError` for the first problem of CAIRO's settings; return warnings."""
    section = config["cairo"]
    for axis, metrics in section["axes"].items():
        if axis not in AXES:
            raise BiasflowError(f"config cairo.axes: unknown axis {axis!r}; use {', '.join(AXES)}.")
        for metric in metrics:
            if metric not in METRICS:
                raise BiasflowError(f"config cairo.axes.{axis}: unknown metric {metric!r}; use {', '.join(METRICS)}.")
            if metric == "HONEST" and axis != "gender":
                raise BiasflowError(
                    f"config cairo.axes.{axis}: HONEST covers gender only; use BOLD and HolisticBias for {axis}."
                )
    warnings = []
    for metric in used_metrics(config):
        source = section["datasets"][metric]
        if source["path"]:
            axes = [axis for axis, metrics in section["axes"].items() if metric in metrics]
            warnings += check_folder(
                metric, axes, workdir / source["path"], source["options"], f"config cairo.datasets.{metric}.path"
            )
    check_scoring(section["scoring"], workdir)
    _check_subgroups(config)
    if len(config["models"]) < MIN_MODELS:
        names = ", ".join(config["models"]) or "none"
        raise BiasflowError(
            f"config models: CAIRO takes Pearson's r across the evaluated models, so it needs at least {MIN_MODELS}; "
            f"this config has {len(config['models'])} ({names}). Add models (two decoding settings of one model "
            "count as two systems), or leave cairo out of `methods` for a FairPair or FPR study."
        )
    check_settings(SearchSettings.from_config(config))
    if counterfactual(section["scoring"]):
        warnings += _check_lexicon(config, workdir)
    paraphrase_templates = Path(section["paraphrase"]["templates"])
    if config["paraphrasers"] and not (workdir / paraphrase_templates).is_dir():
        raise BiasflowError(
            f"config cairo.paraphrase.templates: folder {paraphrase_templates} does not exist; fix the path, or "
            "leave the key out for the bundled templates."
        )
    return warnings


def _check_lexicon(config: dict, workdir: Path) -> list[str]:
    """Every axis needs the identity lexicon's words; a unified subgroup without them is not rescored."""
    section = config["cairo"]
    if section["subgroups"] != "unified":
        raise BiasflowError(
            "config cairo.scoring.counterfactual (or neutralise): counterfactual rescoring swaps the words of the "
            "unified subgroups the identity lexicon names; set `cairo.subgroups: unified`, or turn it off."
        )
    lexicon = IdentityLexicon.from_file(workdir / section["scoring"]["identity_lexicon"])
    warnings = []
    for axis in section["axes"]:
        known = set(lexicon.axis(axis).subgroups)
        shared = {label for mapping in section["subgroup_map"][axis].values() for label in mapping.values()}
        if shared - known:
            warnings.append(
                f"identity lexicon {lexicon.source}, axis {axis}: no words for subgroup(s) "
                f"{', '.join(sorted(shared - known))}; their continuations are not rescored. Add them to a copy of "
                "the lexicon (cairo.scoring.identity_lexicon)."
            )
    return warnings


def _check_subgroups(config: dict) -> None:
    """In unified mode every metric of an axis needs a map, and all of them the same shared subgroups.

    CAIRO correlates the metrics' Eq. 1 bias, a sum over subgroups: metrics that cover
    different groups would not measure the same thing (docs/methods.md §1.1).
    """
    section = config["cairo"]
    if section["subgroups"] != "unified":
        return
    for axis, metrics in section["axes"].items():
        maps = section["subgroup_map"].get(axis)
        if maps is None:
            raise BiasflowError(
                f"config cairo.subgroups is 'unified' but cairo.subgroup_map has no entry for axis {axis}; "
                "add one, or set cairo.subgroups: native."
            )
        shared = {}
        for metric in metrics:
            if not maps.get(metric):
                raise BiasflowError(
                    f"config cairo.subgroup_map.{axis}: no map for {metric}, so none of its prompts would be kept; add "
                    f"cairo.subgroup_map.{axis}.{metric} (native label: shared label), or set cairo.subgroups: native."
                )
            shared[metric] = set(maps[metric].values())
        first, *others = metrics
        for metric in others:
            if shared[metric] != shared[first]:
                only_first = ", ".join(sorted(shared[first] - shared[metric])) or "none"
                only_other = ", ".join(sorted(shared[metric] - shared[first])) or "none"
                raise BiasflowError(
                    f"config cairo.subgroup_map.{axis}: {first} and {metric} map to different shared subgroups "
                    f"(only {first}: {only_first}; only {metric}: {only_other}); the metrics being correlated "
                    "must cover the same subgroups. Map the same shared labels for every metric of the axis."
                )
