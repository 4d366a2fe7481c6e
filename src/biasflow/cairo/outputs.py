"""Every file CAIRO writes, by role: the one list the rules, the declaration, the steps, the commands' checks and
their help texts name the files from.

The prompts, continuations and scores the statistics are pooled from sit under ``results/prompts/``,
``results/continuations/`` and ``results/scores/`` (:data:`EARLIER`); the workflow's CAIRO results
under ``results/cairo/``, one set per scorer run: ``{run}`` is empty
for the headline scorer's and ``scorers/<label>/`` for each other scorer's (docs/methods.md §5.5-5.6); the
scorer's own bias under ``results/scorer_bias/<scorer>/``. :data:`OUTPUTS` holds them all, a
:class:`biasflow.outputs.Outputs` (docs/adding-a-method.md, section 5): each step writes the roles :data:`STEPS`
gives it; the rule's ``output:`` is :func:`of_step`'s mapping, which the script hands on whole, and the step
writes ``outputs[role]``. A role of ``OUTPUTS.compared`` is written only where models are compared; a role
of ``OUTPUTS.captions`` goes into the report with its caption.
"""

from __future__ import annotations

from pathlib import Path

from biasflow.outputs import Outputs

# The label of a scorer's neutral scores: its own name with this suffix (a path segment and the scorer column).
NEUTRAL_SUFFIX = "-neutral"
# The files of the steps before the statistics, by step and role: each metric's original prompts and their summary,
# the summary of all, each paraphraser's paraphrases and rejections, the prompt sets, the rejections of all, each
# model's continuations, each scorer's scores, its counterfactual variants and its neutral scores
# (docs/methods.md §1.1-1.3, §5.5).
SCORES = "results/scores/{scorer}/{model}/{metric}/{axis}.parquet"
EARLIER = {
    "original_prompts": {
        "prompts": "results/prompts/original/{metric}/{axis}.parquet",
        "summary": "results/prompts/original/{metric}/{axis}_summary.csv",
    },
    "prompt_summary": {"table": "results/prompts/summary.csv"},
    "paraphrase": {
        "paraphrases": "results/prompts/paraphrased/{paraphraser}/{metric}/{axis}.parquet",
        "rejections": "results/prompts/paraphrased/{paraphraser}/{metric}/{axis}_rejections.csv",
    },
    "prompt_sets": {"prompts": "results/prompts/sets/{metric}/{axis}.parquet"},
    "rejections": {"table": "results/prompts/rejections.csv"},
    "generate": {"continuations": "results/continuations/{model}/{metric}/{axis}.parquet"},
    "score": {"scores": SCORES},
    "counterfactual": {"variants": "results/scorer_bias/{scorer}/variants/{model}/{metric}/{axis}.parquet"},
    "neutral_scores": {"scores": SCORES.replace("{scorer}", "{scorer}" + NEUTRAL_SUFFIX)},
}
FOLDER = "results/cairo/"
# One scorer run's files of an axis, by the rules' output names: the statistics step's, then the selection's.
STATS = {"stats": "{run}stats/{axis}.parquet", "bias": "{run}bias/{axis}.csv", "plot": "{run}bias/{axis}.png"}
SELECT = {
    "table": "{run}{axis}.csv",
    "curve": "{run}{axis}_curve.csv",
    "comparisons": "{run}{axis}_comparisons.csv",
    "variance": "{run}{axis}_variance.csv",
    "summary": "{run}{axis}.json",
    "curve_plot": "{run}{axis}_curve.png",
    "bias_plot": "{run}{axis}_bias.png",
    "comparisons_plot": "{run}{axis}_comparisons.png",
    "variance_plot": "{run}{axis}_variance.png",
    "shares_plot": "{run}{axis}_paraphrasers.png",
    "tables_page": "{run}{axis}_tables.html",
}
# How alike the scorer runs rank the models, per axis.
AGREEMENT = "scorers/{axis}_agreement.csv"
# The scorer's own bias and the models' bias on raw against neutral scores, per scorer (§5.5).
SCORER_BIAS_FOLDER = "results/scorer_bias/{scorer}/"
SCORER_BIAS = {"scorer": "{axis}_scorer.csv", "models": "{axis}_models.csv", "scorer_plot": "{axis}_scorer.png"}
# What ``biasflow cairo-select`` writes of the selection step: its tables and summary (the figures and the report's
# page are the workflow's).
SELECT_TABLES = ("table", "curve", "comparisons", "variance", "summary")
# Every step's files by role (docs/adding-a-method.md, section 5): the earlier steps' whole paths, one scorer run's
# statistics, selection and agreement under results/cairo/, and each scorer's own bias under its folder.
OUTPUTS = Outputs(
    folder=FOLDER,
    steps={
        **EARLIER,
        "stats": STATS,
        "select": SELECT,
        "scorer_agreement": {"table": AGREEMENT},
        "scorer_bias": SCORER_BIAS,
    },
    folders={**dict.fromkeys(EARLIER, ""), "scorer_bias": SCORER_BIAS_FOLDER},
    compared=("comparisons", "comparisons_plot"),
    captions={
        "plot": ("cairo/bias.rst", "CAIRO"),
        "comparisons_plot": ("comparisons.rst", "CAIRO"),
        "curve_plot": ("cairo/curve.rst", "CAIRO"),
        "bias_plot": ("cairo/before_after.rst", "CAIRO"),
        "variance_plot": ("cairo/variance.rst", "CAIRO"),
        "shares_plot": ("cairo/shares.rst", "CAIRO"),
        "tables_page": ("cairo/tables.rst", "CAIRO"),
        "scorer_plot": ("cairo/scorer_bias.rst", "Scorer bias"),
    },
)
# Short names for OUTPUTS' roles and files, which this module's helpers and rules/cairo/common.smk read.
STEPS = OUTPUTS.roles
of_step = OUTPUTS.of_step


def stats_output(role: str, run: str = "{run}", axis: str = "{axis}") -> str:
    """The workflow's path of one file of the statistics step (the wildcards left as they are by default)."""
    return OUTPUTS.output(role, step="stats", run=run, axis=axis)


def select_output(role: str, run: str = "{run}", axis: str = "{axis}") -> str:
    """The workflow's path of one file of the selection step (the wildcards left as they are by default)."""
    return OUTPUTS.output(role, step="select", run=run, axis=axis)


def agreement_output(axis: str = "{axis}") -> str:
    """The workflow's table of how alike the scorer runs rank the models on ``axis``."""
    return OUTPUTS.output("table", step="scorer_agreement", axis=axis)


def per_metric(step: str, metrics, **wildcards: str) -> dict[str, list[str]]:
    """One earlier step's files by role (:data:`EARLIER`), each a list over ``metrics``: the output of a job that
    serves every metric of an axis, or the input of one that reads them."""
    files = [of_step(step, **{**wildcards, "metric": metric}) for metric in metrics]
    return {role: [paths[role] for paths in files] for role in STEPS[step]}


def in_folder(out_dir: str | Path, step: str, axis: str, *, compares: bool = True) -> dict[str, str]:
    """What ``biasflow cairo-stats`` (``step`` "stats") or ``biasflow cairo-select`` ("select") writes under
    ``out_dir`` for one axis, by role: the workflow's names of the headline scorer's run, relative to
    ``results/cairo/`` (of the selection only :data:`SELECT_TABLES`, and without ``compares`` none of
    ``OUTPUTS.compared``)."""
    files = of_step(step, compares=compares, under=out_dir, run="", axis=axis)
    return files if step == "stats" else {role: files[role] for role in SELECT_TABLES if role in files}
