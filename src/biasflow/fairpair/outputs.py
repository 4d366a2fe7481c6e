"""Every file FairPair writes, by role: the one list the rules, the steps, the config check and the declaration name
them from.

:data:`OUTPUTS` holds them all, a :class:`biasflow.outputs.Outputs` (docs/adding-a-method.md, section 5): each
step writes the roles :data:`STEPS` gives it; the rule's ``output:`` is :func:`of_step`'s mapping,
which the script hands on whole, and the step writes ``outputs[role]``. A role of ``OUTPUTS.compared`` is
written only where models are compared; a role of ``OUTPUTS.captions`` goes into the report with its caption.

The files of ``results/fairpair/`` itself are of two kinds: each model's (:data:`PER_MODEL`)
and the summary's, of fixed names (:data:`SUMMARY`), so a model named like a fixed file, or
like another model's file, would make two jobs write one file; the config check refuses such
names (:mod:`biasflow.fairpair.checks`). The other files of a model sit in folders of their own
(:data:`MODEL_FOLDERS`), where no name collides.
"""

from __future__ import annotations

from biasflow.outputs import Outputs

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
# Every step's files by role (docs/adding-a-method.md, section 5), each step's in the order its step writes them.
_NAMES = {"prompts": PROMPTS, **PER_MODEL, **MODEL_FOLDERS, **SUMMARY}
OUTPUTS = Outputs(
    folder=FOLDER,
    steps={
        step: {role: _NAMES[role] for role in roles}
        for step, roles in {
            "prompts": ("prompts",),
            "generate": ("continuations",),
            "pairs": ("pairs", "pair_rejections"),
            "score": ("scores", "null", "ngrams", "ngrams_plot"),
            "summary": tuple(SUMMARY),
        }.items()
    },
    compared=("comparisons", "comparisons_plot"),
    captions={
        "ngrams_plot": ("fairpair/ngrams.rst", "FairPair"),
        "plot": ("fairpair/summary.rst", "FairPair"),
        "comparisons_plot": ("comparisons.rst", "FairPair"),
        "variance_plot": ("fairpair/variance.rst", "FairPair"),
        "tables_page": ("fairpair/tables.rst", "FairPair"),
    },
)
# Short names for OUTPUTS' roles and files, which this module's helpers and the rules read.
STEPS = OUTPUTS.roles
of_step = OUTPUTS.of_step


def output(role: str, model: str = "{model}") -> str:
    """The workflow's path of one file by its role (a model's name, or the ``{model}`` wildcard left as it is)."""
    return OUTPUTS.output(role, model=model)


def relative(role: str, model: str = "{model}") -> str:
    """One file's path by its role, relative to the folder of FairPair's results (``biasflow fairpair-summary``'s)."""
    return OUTPUTS.output(role, under="", model=model)


def from_sides(out_dir: str, models, *, compares: bool = True) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """What ``biasflow fairpair-summary`` writes under ``out_dir``: each model's files of the score step, by model
    and role, and the summary step's, by role; no rejection rates, since no perturbation ran, and without
    ``compares`` none of ``OUTPUTS.compared``."""
    scored = {model: of_step("score", under=out_dir, model=model) for model in models}
    final = of_step("summary", compares=compares, under=out_dir)
    del final["rejections"]
    return scored, final
