"""Every file CAIRO writes, by role: the one list the rules, the declaration, the steps, the commands' checks and
their help texts name the files from.

The workflow's CAIRO results sit under ``results/cairo/``, one set per scorer run: ``{run}`` is empty
for the headline scorer's and ``scorers/<label>/`` for each other scorer's (docs/methods.md §5.5-5.6).
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


def stats_output(role: str, run: str = "{run}", axis: str = "{axis}") -> str:
    """The workflow's path of one file of the statistics step (the wildcards left as they are by default)."""
    return FOLDER + STATS[role].format(run=run, axis=axis)


def select_output(role: str, run: str = "{run}", axis: str = "{axis}") -> str:
    """The workflow's path of one file of the selection step (the wildcards left as they are by default)."""
    return FOLDER + SELECT[role].format(run=run, axis=axis)


def agreement_output(axis: str = "{axis}") -> str:
    return FOLDER + AGREEMENT.format(axis=axis)


# What ``biasflow cairo-stats`` writes, by cairo_stats's argument.
STATS_OUTPUTS = {"stats_out": "stats.parquet", "bias_out": "bias.csv", "plot_out": "bias.png"}
# What ``biasflow cairo-select`` writes (the curve per axis, <axis>_curve.csv, where the statistics hold several
# axes); ``bias.csv`` is the table the workflow writes as results/cairo/<axis>.csv.
SELECT_OUTPUTS = {
    "curve": "curve.csv",
    "bias": "bias.csv",
    "comparisons": "comparisons.csv",
    "variance": "variance.csv",
    "summary": "selection.json",
}
# What ``biasflow scorer-bias`` writes, as the workflow does per scorer.
SCORER_BIAS_OUTPUTS = ("{axis}_scorer.csv", "{axis}_models.csv", "{axis}_scorer.png")
