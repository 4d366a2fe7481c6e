"""The report's front page: what data it shows and which methods and models made it.

``snakemake --report`` renders ``workflow/report/workflow.rst`` with the config; this module
prepares, from the validated config and the methods whose results exist, the lines that
page lists: each metric's data (bundled, a folder or a URL, the HolisticBias release, the
prompt budget), the methods run and the models each ran. A method whose results are not
there is named as not run, so a CAIRO-only run shows no FairPair or FPR settings.
"""

from __future__ import annotations

from pathlib import Path

from biasflow import bundled
from biasflow.config import counterfactual, dataset_dir, used_metrics
from biasflow.datasets import holisticbias

# How the papers are cited on every page of the report.
CITATIONS = {
    "cairo": "Zayed et al., 2024",
    "fairpair": "Dwivedi-Yu et al., 2024",
    "fpr": "Tian et al., 2023; Template-Based Probes Are Imperfect Lenses, anonymous, under review",
}
NAMES = {"cairo": "CAIRO", "fairpair": "FairPair", "fpr": "Group FPR gaps"}


def front_page(config: dict, reported: list[str], data_root: str | Path) -> dict:
    """``{"data": [...], "methods": [...], "not_run": [...]}``: the front page's contents.

    ``methods`` holds per method run its ``name``, ``citation``, ``models`` and ``settings``
    (text); ``data`` a sentence per metric; ``reported`` names the methods whose final tables
    exist; ``data_root`` is the bundled files' folder (to tell a bundled prompt set from one
    the user gave).
    """
    methods = [{"name": NAMES[method], "citation": CITATIONS[method], "models": _models(config, method),
                "settings": _settings(config, method)} for method in reported]
    not_run = [NAMES[m] for m in ("cairo", "fairpair", "fpr") if m not in reported]
    data = [_source(config, metric, data_root) for metric in used_metrics(config)] if "cairo" in reported else []
    return {"data": data, "methods": methods, "not_run": not_run}


def _source(config: dict, metric: str, data_root: str | Path) -> str:
    source = config["datasets"][metric]
    folder = Path(dataset_dir(config, metric))
    if not source["path"]:
        where = f"downloaded from {source['url']} into {folder}"
    elif folder.resolve() == (Path(data_root) / "datasets" / metric).resolve():
        where = f"the small bundled set written by biasflow in the official format ({bundled.PREFIX}datasets/{metric})"
    else:
        where = f"the files in {folder}"
    if metric == "HolisticBias" and (folder / "descriptors.json").is_file():
        where += f", release {holisticbias.version(folder)}"
    budget = config["prompts"]["per_subgroup"]
    kept = f"at most {budget} prompts per subgroup and split (seed {config['prompts']['seed']})" if budget else \
        "every prompt"
    return f"{metric}: {where}; {kept}."


def _models(config: dict, method: str) -> list[str]:
    if method == "cairo":
        return list(config["models"])
    return list(config[method]["models"] or config["models"])


def _settings(config: dict, method: str) -> str:
    if method == "cairo":
        axes = "; ".join(f"{axis}: {', '.join(metrics)}" for axis, metrics in config["axes"].items())
        paraphrasers = ", ".join(config["paraphrasers"]) or "none (original prompts only)"
        selection = config["selection"]
        return (f"metrics per axis {axes}; paraphrasers {paraphrasers} with seeds "
                f"{', '.join(map(str, config['paraphrase']['seeds']))}; {config['generation']['samples']} "
                f"continuation(s) per prompt and seed, seeds {', '.join(map(str, config['generation']['seeds']))}; "
                f"scored by {_scoring(config['scoring'])}; {selection['mode']} selection of up to "
                f"{selection['max_sets']} prompt sets, {selection['permutations']} permutations.")
    if method == "fairpair":
        fairpair = config["fairpair"]
        return (f"{fairpair['samples']} continuations per side and prompt, dissimilarities "
                f"{', '.join(fairpair['dissimilarities'])}, perturbation by {fairpair['perturbation']['method']}.")
    fpr = config["fpr"]
    return (f"probe sets {', '.join(fpr['probes'])}; classifiers {', '.join(fpr['classifiers'])}; "
            f"{fpr['runs']} runs each, {fpr['interval']} intervals.")


def _scoring(scoring: dict) -> str:
    """The headline scorer, the others, and what counterfactual rescoring does to them (docs/methods.md §5.5-5.6)."""
    text = scoring["scorer"] + (" with the group words made neutral (raw scores beside them)"
                                if scoring["neutralise"] else "")
    if scoring["scorers"]:
        text += f", and also by {', '.join(scoring['scorers'])}"
    if counterfactual(scoring):
        text += " (each scorer's own bias measured by counterfactual rescoring)"
    return text
