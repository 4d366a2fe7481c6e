"""Every file the FPR gaps write, by role: the one list the rules, the steps and ``biasflow fpr-summary`` name
them from.

The workflow writes them under ``results/fpr/`` (:data:`FOLDER`); the command under the
folder it is given, so a user holding prediction files gets the workflow's tables by the
workflow's names (docs/tables.md, "FPR gaps"). Each step writes the roles :data:`STEPS` gives it;
the rule's ``output:`` is :func:`of_step`'s mapping, which the script hands on whole, and the step
writes ``outputs[role]``. A role of :data:`COMPARED` is written only where models are compared; a
role of :data:`CAPTIONS` goes into the report with its caption.
"""

from __future__ import annotations

from pathlib import Path

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
# Which files each step writes, by the step's name (biasflow.fpr.steps).
STEPS = {"gaps": tuple(PER_PROBE), "summary": tuple(SUMMARY)}
# Written only where comparisons.pairs compares models.
COMPARED = ("comparisons", "comparisons_plot")
# The report's figures and pages: each one's caption in workflow/report/ and its category.
CAPTIONS = {
    "comparisons_plot": ("comparisons.rst", "FPR gaps"),
    "plot": ("fpr_gaps.rst", "FPR gaps"),
    "spans_plot": ("fpr_spans.rst", "FPR gaps"),
    "markedness_plot": ("fpr_markedness.rst", "FPR gaps"),
    "variance_plot": ("fpr_variance.rst", "FPR gaps"),
    "tables_page": ("fpr_tables.rst", "FPR gaps"),
}


def of_step(step: str, *, compares: bool = True, probe: str = "{probe}") -> dict[str, str]:
    """The workflow's files of one step by role (its rule's ``output:``); without ``compares``, none of COMPARED."""
    files = per_probe(FOLDER, probe, compares=compares) if step == "gaps" else summary(FOLDER)
    return {role: files[role] for role in STEPS[step] if role in files}


def per_probe(folder: str | Path, probe: str, *, compares: bool = True) -> dict[str, str]:
    """One probe set's outputs under ``folder``, by role; without ``compares``, none of :data:`COMPARED`."""
    return {
        role: str(Path(folder) / name.format(probe=probe))
        for role, name in PER_PROBE.items()
        if compares or role not in COMPARED
    }


def summary(folder: str | Path) -> dict[str, str]:
    """The summary's outputs under ``folder``, by role."""
    return {role: str(Path(folder) / name) for role, name in SUMMARY.items()}
