"""Every file FairPair writes, by role: the one list the rules, the steps, the config check and the declaration name
them from.

Each step writes the roles :data:`STEPS` gives it; the rule's ``output:`` is :func:`of_step`'s mapping,
which the script hands on whole, and the step writes ``outputs[role]``. A role of :data:`COMPARED` is
written only where models are compared; a role of :data:`CAPTIONS` goes into the report with its caption.

The files of ``results/fairpair/`` itself are of two kinds: each model's (:data:`PER_MODEL`)
and the summary's, of fixed names (:data:`SUMMARY`), so a model named like a fixed file, or
like another model's file, would make two jobs write one file; the config check refuses such
names (:mod:`biasflow.fairpair.checks`). The other files of a model sit in folders of their own
(:data:`MODEL_FOLDERS`), where no name collides.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = "results/fairpair/"
PROMPTS = "prompts.parquet"
PER_MODEL = {"scores": "{model}.csv", "ngrams": "{model}_ngrams.csv", "ngrams_plot": "{model}_ngrams.png"}
MODEL_FOLDERS = {
    "continuations": "continuations/{model}.parquet",
    "pairs": "pairs/{model}.parquet",
    "pair_rejections": "pairs/{model}_rejections.csv",
    "null": "null/{model}.parquet",
}
SUMMARY = {
    "summary": "summary.csv",
    "plot": "summary.png",
    "rejections": "perturbation_rejections.csv",
    "comparisons": "comparisons.csv",
    "comparisons_plot": "comparisons.png",
    "variance": "variance.csv",
    "variance_plot": "variance.png",
    "tables_page": "summary.html",
}
# Which files each step writes, by the step's name (biasflow.fairpair.steps).
STEPS = {
    "prompts": ("prompts",),
    "generate": ("continuations",),
    "pairs": ("pairs", "pair_rejections"),
    "score": ("scores", "null", "ngrams", "ngrams_plot"),
    "summary": tuple(SUMMARY),
}
# Written only where comparisons.pairs compares models.
COMPARED = ("comparisons", "comparisons_plot")
# The report's figures and pages: each one's caption in workflow/report/ and its category.
CAPTIONS = {
    "ngrams_plot": ("ngrams.rst", "FairPair"),
    "plot": ("fairpair.rst", "FairPair"),
    "comparisons_plot": ("comparisons.rst", "FairPair"),
    "variance_plot": ("fairpair_variance.rst", "FairPair"),
    "tables_page": ("fairpair_tables.rst", "FairPair"),
}


def of_step(step: str, *, compares: bool = True, model: str = "{model}") -> dict[str, str]:
    """The workflow's files of one step by role (its rule's ``output:``); without ``compares``, none of COMPARED."""
    return {role: output(role, model) for role in STEPS[step] if compares or role not in COMPARED}


def output(role: str, model: str = "{model}") -> str:
    """The workflow's path of one file by its role (a model's name, or the ``{model}`` wildcard left as it is)."""
    return FOLDER + relative(role, model)


def relative(role: str, model: str = "{model}") -> str:
    """One file's path by its role, relative to the folder of FairPair's results (``biasflow fairpair-summary``'s)."""
    if role == "prompts":
        return PROMPTS
    names = {**PER_MODEL, **MODEL_FOLDERS, **SUMMARY}
    return names[role].format(model=model)


def from_sides(out_dir: str, models, *, compares: bool = True) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """What ``biasflow fairpair-summary`` writes under ``out_dir``: each model's files of the score step, by model
    and role, and the summary step's, by role; no rejection rates, since no perturbation ran, and without
    ``compares`` none of :data:`COMPARED`."""
    folder = Path(out_dir)
    scored = {model: {role: str(folder / relative(role, model)) for role in STEPS["score"]} for model in models}
    final = {
        role: str(folder / name)
        for role, name in SUMMARY.items()
        if role != "rejections" and (compares or role not in COMPARED)
    }
    return scored, final
