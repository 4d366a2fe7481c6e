"""Every file the FPR gaps write, by role: the one list the rules, the steps and ``biasflow fpr-summary`` name
them from.

The workflow writes them under ``results/fpr/`` (:data:`FOLDER`); the command under the
folder it is given, so a user holding prediction files gets the workflow's tables by the
workflow's names (docs/tables.md, "FPR gaps"). :data:`OUTPUTS` holds them all, a
:class:`biasflow.outputs.Outputs` (docs/adding-a-method.md, section 5): each step writes the roles :data:`STEPS`
gives it; the rule's ``output:`` is :func:`of_step`'s mapping, which the script hands on whole, and the step
writes ``outputs[role]`` (the classify step, one job for every probe set, gets its ``predictions`` by probe
set). A role of ``OUTPUTS.compared`` is written only where models are compared; a
role of ``OUTPUTS.captions`` goes into the report with its caption.
"""

from __future__ import annotations

from pathlib import Path

from biasflow.outputs import Outputs

FOLDER = "results/fpr/"
# Each probe set's predictions: results/fpr/<probe>/<model>/<classifier>.tsv.
PREDICTIONS = "{probe}/{model}/{classifier}.tsv"
# One probe set's tables and figures (rule fpr_gaps).
PER_PROBE = {
    "gaps": "{probe}_gaps.csv",
    "accuracy": "{probe}_accuracy.csv",
    "comparisons": "{probe}_comparisons.csv",
    "comparisons_plot": "{probe}_comparisons.png",
    "plot": "{probe}_gaps.png",
}
# Every probe set together (rule fpr_summary); spans is the final table.
SUMMARY = {
    "spans": "gap_spans.csv",
    "net": "net_significance.csv",
    "markedness": "markedness.csv",
    "spans_plot": "gap_spans.png",
    "markedness_plot": "markedness.png",
    "variance": "variance.csv",
    "variance_plot": "variance.png",
    "tables_page": "summary.html",
}
# Every step's files by role (docs/adding-a-method.md, section 5): each classifier run's predictions of every probe
# set, then the gaps and the summary.
OUTPUTS = Outputs(
    folder=FOLDER,
    steps={"classify": {"predictions": PREDICTIONS}, "gaps": PER_PROBE, "summary": SUMMARY},
    compared=("comparisons", "comparisons_plot"),
    captions={
        "comparisons_plot": ("comparisons.rst", "FPR gaps"),
        "plot": ("fpr/gaps.rst", "FPR gaps"),
        "spans_plot": ("fpr/spans.rst", "FPR gaps"),
        "markedness_plot": ("fpr/markedness.rst", "FPR gaps"),
        "variance_plot": ("fpr/variance.rst", "FPR gaps"),
        "tables_page": ("fpr/tables.rst", "FPR gaps"),
    },
)
# Short names for OUTPUTS' roles and files, which this module's helpers and the rules read.
STEPS = OUTPUTS.roles
of_step = OUTPUTS.of_step


def predictions(probe: str = "{probe}", model: str = "{model}", classifier: str = "{classifier}") -> str:
    """One classifier run's predictions of a probe set in the workflow (:data:`PREDICTIONS`), the wildcards left as
    they are by default."""
    return OUTPUTS.output("predictions", probe=probe, model=model, classifier=classifier)


def per_probe(folder: str | Path, probe: str, *, compares: bool = True) -> dict[str, str]:
    """One probe set's outputs under ``folder``, by role; without ``compares``, none of ``OUTPUTS.compared``."""
    return of_step("gaps", compares=compares, under=folder, probe=probe)


def summary(folder: str | Path) -> dict[str, str]:
    """The summary's outputs under ``folder``, by role."""
    return of_step("summary", under=folder)
