"""Every file CAIRO writes, by role: the one list the rules, the declaration, the steps, the commands' checks and
their help texts name the files from.

The workflow's CAIRO results sit under ``results/cairo/``, one set per scorer run: ``{run}`` is empty
for the headline scorer's and ``scorers/<label>/`` for each other scorer's (docs/methods.md §5.5-5.6); the
scorer's own bias under ``results/scorer_bias/<scorer>/``. Each step writes the roles :data:`STEPS` gives
it; the rule's ``output:`` is :func:`of_step`'s mapping, which the script hands on whole, and the step
writes ``outputs[role]``. A role of :data:`COMPARED` is written only where models are compared; a role
of :data:`CAPTIONS` goes into the report with its caption.
"""

from __future__ import annotations

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
# Which files each step writes, by the step's name (biasflow.cairo.steps).
STEPS = {"stats": tuple(STATS), "select": tuple(SELECT), "scorer_bias": tuple(SCORER_BIAS)}
# Written only where comparisons.pairs compares models.
COMPARED = ("comparisons", "comparisons_plot")
# The report's figures and pages: each one's caption in workflow/report/ and its category.
CAPTIONS = {
    "plot": ("bias.rst", "CAIRO"),
    "comparisons_plot": ("comparisons.rst", "CAIRO"),
    "curve_plot": ("curve.rst", "CAIRO"),
    "bias_plot": ("before_after.rst", "CAIRO"),
    "variance_plot": ("variance.rst", "CAIRO"),
    "shares_plot": ("shares.rst", "CAIRO"),
    "tables_page": ("cairo_tables.rst", "CAIRO"),
    "scorer_plot": ("scorer_bias.rst", "Scorer bias"),
}


def of_step(step: str, *, compares: bool = True, **wildcards: str) -> dict[str, str]:
    """The workflow's files of one step by role (its rule's ``output:``); without ``compares``, none of COMPARED.

    ``wildcards`` fill ``run``, ``axis`` or ``scorer``; the others are left as wildcards.
    """
    fill = {"run": "{run}", "axis": "{axis}", "scorer": "{scorer}", **wildcards}
    if step == "scorer_bias":
        folder, names = SCORER_BIAS_FOLDER, SCORER_BIAS
    else:
        folder, names = FOLDER, STATS if step == "stats" else SELECT
    return {role: (folder + names[role]).format(**fill) for role in STEPS[step] if compares or role not in COMPARED}


def stats_output(role: str, run: str = "{run}", axis: str = "{axis}") -> str:
    """The workflow's path of one file of the statistics step (the wildcards left as they are by default)."""
    return FOLDER + STATS[role].format(run=run, axis=axis)


def select_output(role: str, run: str = "{run}", axis: str = "{axis}") -> str:
    """The workflow's path of one file of the selection step (the wildcards left as they are by default)."""
    return FOLDER + SELECT[role].format(run=run, axis=axis)


def agreement_output(axis: str = "{axis}") -> str:
    return FOLDER + AGREEMENT.format(axis=axis)


# What ``biasflow cairo-stats`` writes, by role (the statistics step's, STATS).
STATS_OUTPUTS = {"stats": "stats.parquet", "bias": "bias.csv", "plot": "bias.png"}
# What ``biasflow cairo-select`` writes (the curve per axis, <axis>_curve.csv, where the statistics hold several
# axes); ``bias.csv`` is the table the workflow writes as results/cairo/<axis>.csv.
SELECT_OUTPUTS = {
    "curve": "curve.csv",
    "bias": "bias.csv",
    "comparisons": "comparisons.csv",
    "variance": "variance.csv",
    "summary": "selection.json",
}
